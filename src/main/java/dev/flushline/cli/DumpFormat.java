package dev.flushline.cli;

import dev.flushline.schema.CqlType;
import dev.flushline.schema.Durations;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.UUID;

/**
 * Value text as sstabledump prints it: {@link #json} is Cassandra's {@code toJSONString} (cell
 * values, clustering values), {@link #plain} its {@code getString} (partition keys, cell paths),
 * {@link #cqlLiteral} its {@code toCQLString} (clustering values in -d), for every type, nested.
 * Empty values of non-text types print as {@code ""} in JSON and as the empty string in plain form.
 *
 * <p>Thread safety: stateless.
 */
final class DumpFormat {
    private DumpFormat() {}

    private static final DateTimeFormatter TIMESTAMP_JSON =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSX", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter TIMESTAMP_PLAIN =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSX", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    static String json(CqlType t, byte[] b, int off, int len) {
        switch (t.kind()) {
            case TEXT:
            case ASCII:
                return '"' + JsonOut.escape(new String(b, off, len, StandardCharsets.UTF_8)) + '"';
            case BLOB:
                return "\"0x" + hex(b, off, len) + '"';
            case LIST:
            case SET:
                return listJson(t, b, off, len);
            case MAP:
                return mapJson(t, b, off, len);
            case TUPLE:
                return tupleJson(t, b, off, len);
            case UDT:
                return udtJson(t, b, off, len);
            case VECTOR:
                return vectorJson(t, b, off, len);
            case DURATION:
                return '"' + (len == 0 ? "" : Durations.toString(b, off, len)) + '"';
            case COUNTER:
                // CounterColumnType.toJSONString reads the value as a long: the first 8 bytes of the counter context
                return Long.toString(getLong(b, off));
            default:
                break;
        }
        if (len == 0) return "\"\"";
        switch (t.kind()) {
            case INT:
            case BIGINT:
            case SMALLINT:
            case TINYINT:
            case VARINT:
            case DECIMAL:
            case BOOLEAN:
                return plain(t, b, off, len);
            case DOUBLE: {
                double d = Double.longBitsToDouble(getLong(b, off));
                return Double.isNaN(d) || Double.isInfinite(d) ? "null" : Double.toString(d);
            }
            case FLOAT: {
                float f = Float.intBitsToFloat(getInt(b, off));
                return Float.isNaN(f) || Float.isInfinite(f) ? "null" : Float.toString(f);
            }
            case TIMESTAMP:
                return '"' + TIMESTAMP_JSON.format(Instant.ofEpochMilli(getLong(b, off))) + '"';
            default:
                return '"' + plain(t, b, off, len) + '"';
        }
    }

    static String plain(CqlType t, byte[] b, int off, int len) {
        if (t.kind() == CqlType.Kind.TEXT || t.kind() == CqlType.Kind.ASCII) return new String(b, off, len, StandardCharsets.UTF_8);
        if (t.kind() == CqlType.Kind.BLOB) return hex(b, off, len);
        if (t.kind() == CqlType.Kind.TUPLE || t.kind() == CqlType.Kind.UDT) return tuplePlain(t, b, off, len);
        if (t.kind() == CqlType.Kind.DURATION) return len == 0 ? "" : Durations.toString(b, off, len);
        if (len == 0) return "";
        switch (t.kind()) {
            case INT: return Integer.toString(getInt(b, off));
            case BIGINT: return Long.toString(getLong(b, off));
            case SMALLINT: return Short.toString((short) (((b[off] & 0xFF) << 8) | (b[off + 1] & 0xFF)));
            case TINYINT: return Byte.toString(b[off]);
            case VARINT: return new BigInteger(b, off, len).toString();
            case DECIMAL: return new BigDecimal(new BigInteger(b, off + 4, len - 4), getInt(b, off)).toString();
            case BOOLEAN: return b[off] != 0 ? "true" : "false";
            case DOUBLE: return Double.toString(Double.longBitsToDouble(getLong(b, off)));
            case FLOAT: return Float.toString(Float.intBitsToFloat(getInt(b, off)));
            case TIMESTAMP: return TIMESTAMP_PLAIN.format(Instant.ofEpochMilli(getLong(b, off)));
            case DATE: {
                int days = getInt(b, off) + Integer.MIN_VALUE; // int arithmetic, as Cassandra shifts the epoch
                return Instant.ofEpochMilli(java.time.Duration.ofDays(days).toMillis()).atZone(ZoneOffset.UTC)
                        .format(DateTimeFormatter.ISO_LOCAL_DATE);
            }
            case TIME: return time(getLong(b, off));
            case UUID:
            case TIMEUUID: return new UUID(getLong(b, off), getLong(b, off + 8)).toString();
            case INET:
                try {
                    return InetAddress.getByAddress(java.util.Arrays.copyOfRange(b, off, off + len)).getHostAddress();
                } catch (UnknownHostException e) {
                    return hex(b, off, len);
                }
            default:
                return hex(b, off, len); // collections, vectors and counters: their bytes
        }
    }

    /**
     * TupleType.getString (UDTs too): the components' plain forms joined by ':', each with ':'
     * and '@' escaped by a backslash, '@' for a null component; it stops where the value ends.
     */
    private static String tuplePlain(CqlType t, byte[] b, int off, int len) {
        StringBuilder sb = new StringBuilder();
        int p = off, end = off + len;
        for (int i = 0; i < t.size(); i++) {
            if (p >= end) return sb.toString();
            if (i > 0) sb.append(':');
            int l = getInt(b, p);
            p += 4;
            if (l < 0) {
                sb.append('@');
                continue;
            }
            sb.append(plain(t.component(i), b, p, l).replace(":", "\\:").replace("@", "\\@"));
            p += l;
        }
        return sb.toString();
    }

    /** TupleType.toJSONString: [a, b], null for a null component (and for one the value lacks). */
    private static String tupleJson(CqlType t, byte[] b, int off, int len) {
        StringBuilder sb = new StringBuilder("[");
        int p = off, end = off + len;
        for (int i = 0; i < t.size(); i++) {
            if (i > 0) sb.append(", ");
            int l = p + 4 <= end ? getInt(b, p) : -1;
            p += 4;
            if (l < 0) {
                sb.append("null");
                continue;
            }
            sb.append(json(t.component(i), b, p, l));
            p += l;
        }
        return sb.append(']').toString();
    }

    /** UserType.toJSONString: {"f": a, "\"G\"": b} (a name that is not lowercase in escaped quotes); null for a null field. */
    private static String udtJson(CqlType t, byte[] b, int off, int len) {
        StringBuilder sb = new StringBuilder("{");
        int p = off, end = off + len;
        for (int i = 0; i < t.size(); i++) {
            if (i > 0) sb.append(", ");
            String name = t.fieldName(i);
            if (!name.equals(name.toLowerCase(Locale.US))) name = '"' + name + '"';
            sb.append('"').append(JsonOut.escape(name)).append("\": ");
            int l = p + 4 <= end ? getInt(b, p) : -1;
            p += 4;
            if (l < 0) {
                sb.append("null");
                continue;
            }
            sb.append(json(t.component(i), b, p, l));
            p += l;
        }
        return sb.append('}').toString();
    }

    /** VectorType.toJSONString: [a, b, ...]. */
    private static String vectorJson(CqlType t, byte[] b, int off, int len) {
        StringBuilder sb = new StringBuilder("[");
        int[] at = {off};
        for (int i = 0; i < t.dimension(); i++) {
            if (i > 0) sb.append(", ");
            int l = vectorElement(t, b, at);
            sb.append(json(t.elementType(), b, at[0], l));
            at[0] += l;
        }
        return sb.append(']').toString();
    }

    /** The length of the vector element at {@code at[0]}; moves {@code at[0]} past its length prefix, if it has one. */
    private static int vectorElement(CqlType t, byte[] b, int[] at) {
        int fixed = t.elementType().fixedLength();
        if (fixed > 0) return fixed;
        int p = at[0];
        int first = b[p] & 0xFF;
        int extra = Integer.numberOfLeadingZeros(~first & 0xFF) - 24;
        long v = first & (0xFF >> extra);
        for (int i = 1; i <= extra; i++) v = (v << 8) | (b[p + i] & 0xFF);
        at[0] = p + 1 + extra;
        return (int) v;
    }

    private static String time(long nanosOfDay) {
        long v = nanosOfDay;
        long nano = v % 1000; v /= 1000;
        long micro = v % 1000; v /= 1000;
        long milli = v % 1000; v /= 1000;
        long seconds = v % 60; v /= 60;
        long minutes = v % 60; v /= 60;
        long hours = v % 24;
        return String.format(Locale.ROOT, "%02d:%02d:%02d.%03d%03d%03d", hours, minutes, seconds, milli, micro, nano);
    }

    private static String listJson(CqlType t, byte[] b, int off, int len) {
        StringBuilder sb = new StringBuilder("[");
        int n = getInt(b, off), p = off + 4;
        for (int i = 0; i < n; i++) {
            if (i > 0) sb.append(", ");
            int l = getInt(b, p);
            p += 4;
            sb.append(json(t.elementType(), b, p, Math.max(l, 0)));
            p += Math.max(l, 0);
        }
        return sb.append(']').toString();
    }

    private static String mapJson(CqlType t, byte[] b, int off, int len) {
        StringBuilder sb = new StringBuilder("{");
        int n = getInt(b, off), p = off + 4;
        for (int i = 0; i < n; i++) {
            if (i > 0) sb.append(", ");
            int l = getInt(b, p);
            p += 4;
            String key = json(t.elementType(), b, p, l);
            p += l;
            if (key.startsWith("\"")) sb.append(key);
            else sb.append('"').append(JsonOut.escape(key)).append('"');
            sb.append(": ");
            l = getInt(b, p);
            p += 4;
            sb.append(json(t.valueType(), b, p, l));
            p += l;
        }
        return sb.append('}').toString();
    }

    /**
     * A CQL literal ({@code toCQLString}): "null" for an empty value (not for text and blob); text, ascii, inet, date,
     * time and timestamp in single quotes (a quote doubled, twice for text, as Cassandra 5.0.9
     * does); blob as 0x hex; anything else as its plain form.
     */
    static String cqlLiteral(CqlType t, byte[] b, int off, int len) {
        // Text and blob serializers treat only a missing value as null, so an empty one is '' / 0x.
        boolean emptyIsValue = t.kind() == CqlType.Kind.TEXT || t.kind() == CqlType.Kind.ASCII || t.kind() == CqlType.Kind.BLOB;
        if (len < 0 || (len == 0 && !emptyIsValue)) return "null";
        switch (t.kind()) {
            case TEXT:
            case ASCII:
                return quote(plain(t, b, off, len).replace("'", "''"));
            case INET:
            case DATE:
            case TIME:
            case TIMESTAMP:
                return quote(plain(t, b, off, len));
            case BLOB:
                return "0x" + hex(b, off, len);
            case LIST:
            case SET:
            case MAP: {
                // CQL3Type.Collection.toCQLLiteral: [a, b], {a, b}, {k: v}
                boolean map = t.kind() == CqlType.Kind.MAP;
                StringBuilder sb = new StringBuilder(t.kind() == CqlType.Kind.LIST ? "[" : "{");
                int n = getInt(b, off), p = off + 4;
                for (int i = 0; i < n; i++) {
                    if (i > 0) sb.append(", ");
                    int l = getInt(b, p);
                    p += 4;
                    sb.append(cqlLiteral(t.elementType(), b, p, l));
                    p += Math.max(l, 0);
                    if (map) {
                        l = getInt(b, p);
                        p += 4;
                        sb.append(": ").append(cqlLiteral(t.valueType(), b, p, l));
                        p += Math.max(l, 0);
                    }
                }
                return sb.append(t.kind() == CqlType.Kind.LIST ? "]" : "}").toString();
            }
            case TUPLE:
            case UDT: {
                // CQL3Type.Tuple / UserDefined.toCQLLiteral: (a, null) and {f: a, "G": null}, up to where the value ends
                boolean udt = t.kind() == CqlType.Kind.UDT;
                StringBuilder sb = new StringBuilder(udt ? "{" : "(");
                int p = off, end = off + len;
                for (int i = 0; i < t.size() && p < end; i++) {
                    int l = getInt(b, p);
                    p += 4;
                    if (i > 0) sb.append(", ");
                    if (udt) sb.append(cqlName(t.fieldName(i))).append(": ");
                    sb.append(cqlLiteral(t.component(i), b, p, l));
                    p += Math.max(l, 0);
                }
                return sb.append(udt ? "}" : ")").toString();
            }
            case VECTOR: {
                StringBuilder sb = new StringBuilder("[");
                int[] at = {off};
                for (int i = 0; i < t.dimension(); i++) {
                    if (i > 0) sb.append(", ");
                    int l = vectorElement(t, b, at);
                    sb.append(cqlLiteral(t.elementType(), b, at[0], l));
                    at[0] += l;
                }
                return sb.append(']').toString();
            }
            default:
                return plain(t, b, off, len);
        }
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    /** A composite key component in getString form: ':' escaped, a trailing '\\' or '!' followed by '!'. */
    static String escapeComponent(String s) {
        if (s.isEmpty()) return s;
        String r = s.replace(":", "\\:");
        char last = r.charAt(r.length() - 1);
        return last == '\\' || last == '!' ? r + '!' : r;
    }

    static String hex(byte[] b, int off, int len) {
        char[] c = new char[2 * len];
        for (int i = 0; i < len; i++) {
            c[2 * i] = HEX[(b[off + i] >> 4) & 0xF];
            c[2 * i + 1] = HEX[b[off + i] & 0xF];
        }
        return new String(c);
    }

    static int getInt(byte[] b, int off) {
        return ((b[off] & 0xFF) << 24) | ((b[off + 1] & 0xFF) << 16) | ((b[off + 2] & 0xFF) << 8) | (b[off + 3] & 0xFF);
    }

    static long getLong(byte[] b, int off) {
        return ((long) getInt(b, off) << 32) | (getInt(b, off + 4) & 0xFFFFFFFFL);
    }

    /** A column name as CQL prints it: unquoted when lowercase letters, digits and '_' (starting with a letter). */
    static String cqlName(String name) {
        if (name.matches("[a-z][a-z0-9_]*")) return name;
        return '"' + name.replace("\"", "\"\"") + '"';
    }
}

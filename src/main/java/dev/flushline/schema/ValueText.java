package dev.flushline.schema;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * The one home of value text: every way a value becomes text, for every type, nested.
 * <ul>
 *   <li>JSON strings: {@link #escape} and {@link #quote}, with the escapes Jackson writes (the dump's
 *       JSON must be byte-identical to sstabledump's).</li>
 *   <li>Parsed input values (the value model of {@link ValueCodec}: String, BigDecimal, Boolean,
 *       List, Map, null) as JSON, whole ({@link #json(Object)}) or cut for a message
 *       ({@link #display(Object)}, {@link #cut}): a 70 KB key must not flood the terminal.</li>
 *   <li>Serialized values in Cassandra's three text forms, as sstabledump prints them:
 *       {@link #json(CqlType, byte[], int, int) toJSONString} (cell and clustering values),
 *       {@link #plain getString} (partition keys, cell paths), {@link #cqlLiteral toCQLString}
 *       (clustering values in {@code dump -d}). Empty values of non-text types print as {@code ""}
 *       in JSON and as the empty string in plain form.</li>
 *   <li>Serialized values for messages and test diffs ({@link #display(CqlType, byte[])}), which
 *       never throws.</li>
 * </ul>
 *
 * <p>Thread safety: stateless.
 */
public final class ValueText {
    private ValueText() {}

    /**
     * A byte count as Cassandra's log lines print it (three decimals of MiB, as its flush and
     * compaction lines do), for every log line of ours that stands beside one of Cassandra's.
     */
    public static String mib(long bytes) {
        return String.format(java.util.Locale.ROOT, "%.3fMiB", bytes / (1024.0 * 1024.0));
    }

    // ---------------------------------------------------------------------------------------
    // JSON strings

    /** Blob bytes print in lower case; JSON's {@code \\uXXXX} escapes in upper case, as Jackson writes them. */
    private static final char[] HEX = "0123456789abcdef".toCharArray();
    private static final char[] ESCAPE_HEX = "0123456789ABCDEF".toCharArray();

    /** {@code s} with JSON's escapes (quote, backslash, control characters), without the quotes; {@code s} itself if none is needed. */
    public static String escape(String s) {
        StringBuilder sb = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            String rep = null;
            if (c == '"') rep = "\\\"";
            else if (c == '\\') rep = "\\\\";
            else if (c < 0x20) {
                switch (c) {
                    case '\b': rep = "\\b"; break;
                    case '\t': rep = "\\t"; break;
                    case '\n': rep = "\\n"; break;
                    case '\f': rep = "\\f"; break;
                    case '\r': rep = "\\r"; break;
                    default: rep = "\\u00" + ESCAPE_HEX[c >> 4] + ESCAPE_HEX[c & 0xF];
                }
            }
            if (rep != null) {
                if (sb == null) sb = new StringBuilder(s.length() + 8).append(s, 0, i);
                sb.append(rep);
            } else if (sb != null) {
                sb.append(c);
            }
        }
        return sb == null ? s : sb.toString();
    }

    /** A JSON string literal. */
    public static String quote(String s) {
        return '"' + escape(s) + '"';
    }

    public static void appendQuoted(StringBuilder sb, String s) {
        sb.append('"').append(escape(s)).append('"');
    }

    // ---------------------------------------------------------------------------------------
    // Parsed input values

    /** Longest rendering of a value in a message, in chars, before it is cut with "...". */
    public static final int MAX_DISPLAY_CHARS = 80;

    /** A name from the input (a column or field that the table lacks), cut as {@link #display(Object)} cuts. */
    public static String cut(String name) {
        if (name.length() <= MAX_DISPLAY_CHARS) return name;
        return name.substring(0, MAX_DISPLAY_CHARS) + "... (" + name.length() + " chars)";
    }

    /** The parsed value as JSON, cut to {@link #MAX_DISPLAY_CHARS} with its full length noted. */
    public static String display(Object v) {
        StringBuilder sb = new StringBuilder();
        append(sb, v);
        if (sb.length() <= MAX_DISPLAY_CHARS) return sb.toString();
        return sb.substring(0, MAX_DISPLAY_CHARS) + "... (" + sb.length() + " chars)";
    }

    /** The parsed value as JSON text, whole (a map key of a composite type is JSON text, as Cassandra reads it). */
    public static String json(Object v) {
        StringBuilder sb = new StringBuilder();
        append(sb, v);
        return sb.toString();
    }

    private static void append(StringBuilder sb, Object v) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof String) {
            appendQuoted(sb, (String) v);
        } else if (v instanceof BigDecimal) {
            sb.append(((BigDecimal) v).toString());
        } else if (v instanceof List) {
            sb.append('[');
            boolean first = true;
            for (Object e : (List<?>) v) {
                if (!first) sb.append(',');
                first = false;
                append(sb, e);
            }
            sb.append(']');
        } else if (v instanceof Map) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                if (!first) sb.append(',');
                first = false;
                appendQuoted(sb, String.valueOf(e.getKey()));
                sb.append(':');
                append(sb, e.getValue());
            }
            sb.append('}');
        } else {
            sb.append(v);
        }
    }

    // ---------------------------------------------------------------------------------------
    // Serialized values: Cassandra's text forms, as sstabledump prints them

    private static final DateTimeFormatter TIMESTAMP_JSON =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSX", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter TIMESTAMP_PLAIN =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSX", Locale.ROOT).withZone(ZoneOffset.UTC);

    /** Cassandra's {@code toJSONString}: how sstabledump prints cell and clustering values. */
    public static String json(CqlType t, byte[] b, int off, int len) {
        switch (t.kind()) {
            case TEXT:
            case ASCII:
                return '"' + escape(new String(b, off, len, StandardCharsets.UTF_8)) + '"';
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
                return Long.toString(CqlTypes.readLong(b, off));
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
                double d = Double.longBitsToDouble(CqlTypes.readLong(b, off));
                return Double.isNaN(d) || Double.isInfinite(d) ? "null" : Double.toString(d);
            }
            case FLOAT: {
                float f = Float.intBitsToFloat(CqlTypes.readInt(b, off));
                return Float.isNaN(f) || Float.isInfinite(f) ? "null" : Float.toString(f);
            }
            case TIMESTAMP:
                return '"' + TIMESTAMP_JSON.format(Instant.ofEpochMilli(CqlTypes.readLong(b, off))) + '"';
            default:
                return '"' + plain(t, b, off, len) + '"';
        }
    }

    /** Cassandra's {@code getString}: how sstabledump prints partition keys and cell paths. */
    public static String plain(CqlType t, byte[] b, int off, int len) {
        if (t.kind() == CqlType.Kind.TEXT || t.kind() == CqlType.Kind.ASCII) return new String(b, off, len, StandardCharsets.UTF_8);
        if (t.kind() == CqlType.Kind.BLOB) return hex(b, off, len);
        if (t.kind() == CqlType.Kind.TUPLE || t.kind() == CqlType.Kind.UDT) return tuplePlain(t, b, off, len);
        if (t.kind() == CqlType.Kind.DURATION) return len == 0 ? "" : Durations.toString(b, off, len);
        if (len == 0) return "";
        switch (t.kind()) {
            case INT: return Integer.toString(CqlTypes.readInt(b, off));
            case BIGINT: return Long.toString(CqlTypes.readLong(b, off));
            case SMALLINT: return Short.toString((short) (((b[off] & 0xFF) << 8) | (b[off + 1] & 0xFF)));
            case TINYINT: return Byte.toString(b[off]);
            case VARINT: return new BigInteger(b, off, len).toString();
            case DECIMAL: return new BigDecimal(new BigInteger(b, off + 4, len - 4), CqlTypes.readInt(b, off)).toString();
            case BOOLEAN: return b[off] != 0 ? "true" : "false";
            case DOUBLE: return Double.toString(Double.longBitsToDouble(CqlTypes.readLong(b, off)));
            case FLOAT: return Float.toString(Float.intBitsToFloat(CqlTypes.readInt(b, off)));
            case TIMESTAMP: return TIMESTAMP_PLAIN.format(Instant.ofEpochMilli(CqlTypes.readLong(b, off)));
            case DATE: {
                int days = CqlTypes.readInt(b, off) + Integer.MIN_VALUE; // int arithmetic, as Cassandra shifts the epoch
                return Instant.ofEpochMilli(java.time.Duration.ofDays(days).toMillis()).atZone(ZoneOffset.UTC)
                        .format(DateTimeFormatter.ISO_LOCAL_DATE);
            }
            case TIME: return time(CqlTypes.readLong(b, off));
            case UUID:
            case TIMEUUID: return new UUID(CqlTypes.readLong(b, off), CqlTypes.readLong(b, off + 8)).toString();
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
            int l = CqlTypes.readInt(b, p);
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
        return componentsJson(t, b, off, len, false);
    }

    /** UserType.toJSONString: {"f": a, "\"G\"": b} (a name that is not lowercase in escaped quotes); null for a null field. */
    private static String udtJson(CqlType t, byte[] b, int off, int len) {
        return componentsJson(t, b, off, len, true);
    }

    /** A tuple's or a UDT's components, each an int length (negative: null) and its bytes; a UDT's with their names. */
    private static String componentsJson(CqlType t, byte[] b, int off, int len, boolean named) {
        StringBuilder sb = new StringBuilder(named ? "{" : "[");
        int p = off, end = off + len;
        for (int i = 0; i < t.size(); i++) {
            if (i > 0) sb.append(", ");
            if (named) {
                String name = t.fieldName(i);
                if (!name.equals(name.toLowerCase(Locale.US))) name = '"' + name + '"';
                sb.append('"').append(escape(name)).append("\": ");
            }
            int l = p + 4 <= end ? CqlTypes.readInt(b, p) : -1;
            p += 4;
            if (l < 0) {
                sb.append("null");
                continue;
            }
            sb.append(json(t.component(i), b, p, l));
            p += l;
        }
        return sb.append(named ? '}' : ']').toString();
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
        int n = CqlTypes.readInt(b, off), p = off + 4;
        for (int i = 0; i < n; i++) {
            if (i > 0) sb.append(", ");
            int l = CqlTypes.readInt(b, p);
            p += 4;
            sb.append(json(t.elementType(), b, p, Math.max(l, 0)));
            p += Math.max(l, 0);
        }
        return sb.append(']').toString();
    }

    private static String mapJson(CqlType t, byte[] b, int off, int len) {
        StringBuilder sb = new StringBuilder("{");
        int n = CqlTypes.readInt(b, off), p = off + 4;
        for (int i = 0; i < n; i++) {
            if (i > 0) sb.append(", ");
            int l = CqlTypes.readInt(b, p);
            p += 4;
            String key = json(t.elementType(), b, p, l);
            p += l;
            if (key.startsWith("\"")) sb.append(key);
            else sb.append('"').append(escape(key)).append('"');
            sb.append(": ");
            l = CqlTypes.readInt(b, p);
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
    public static String cqlLiteral(CqlType t, byte[] b, int off, int len) {
        // Text and blob serializers treat only a missing value as null, so an empty one is '' / 0x.
        boolean emptyIsValue = t.kind() == CqlType.Kind.TEXT || t.kind() == CqlType.Kind.ASCII || t.kind() == CqlType.Kind.BLOB;
        if (len < 0 || (len == 0 && !emptyIsValue)) return "null";
        switch (t.kind()) {
            case TEXT:
            case ASCII:
                return cqlQuote(plain(t, b, off, len).replace("'", "''"));
            case INET:
            case DATE:
            case TIME:
            case TIMESTAMP:
                return cqlQuote(plain(t, b, off, len));
            case BLOB:
                return "0x" + hex(b, off, len);
            case LIST:
            case SET:
            case MAP: {
                // CQL3Type.Collection.toCQLLiteral: [a, b], {a, b}, {k: v}
                boolean map = t.kind() == CqlType.Kind.MAP;
                StringBuilder sb = new StringBuilder(t.kind() == CqlType.Kind.LIST ? "[" : "{");
                int n = CqlTypes.readInt(b, off), p = off + 4;
                for (int i = 0; i < n; i++) {
                    if (i > 0) sb.append(", ");
                    int l = CqlTypes.readInt(b, p);
                    p += 4;
                    sb.append(cqlLiteral(t.elementType(), b, p, l));
                    p += Math.max(l, 0);
                    if (map) {
                        l = CqlTypes.readInt(b, p);
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
                    int l = CqlTypes.readInt(b, p);
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

    private static String cqlQuote(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    /** A composite key component in getString form: ':' escaped, a trailing '\\' or '!' followed by '!'. */
    public static String escapeComponent(String s) {
        if (s.isEmpty()) return s;
        String r = s.replace(":", "\\:");
        char last = r.charAt(r.length() - 1);
        return last == '\\' || last == '!' ? r + '!' : r;
    }

    public static String hex(byte[] b, int off, int len) {
        char[] c = new char[2 * len];
        for (int i = 0; i < len; i++) {
            c[2 * i] = HEX[(b[off + i] >> 4) & 0xF];
            c[2 * i + 1] = HEX[b[off + i] & 0xF];
        }
        return new String(c);
    }


    /** A column name as CQL prints it: unquoted when lowercase letters, digits and '_' (starting with a letter). */
    public static String cqlName(String name) {
        if (name.matches("[a-z][a-z0-9_]*")) return name;
        return '"' + name.replace("\"", "\"\"") + '"';
    }

    /** CounterContext.total: the counts of every shard, after the header (int16 count, then count int16 indexes). */
    public static long counterTotal(byte[] b, int off, int len) {
        if (len < 2) return 0;
        int count = Math.abs((short) (((b[off] & 0xFF) << 8) | (b[off + 1] & 0xFF)));
        long total = 0;
        for (int p = off + 2 + 2 * count; p + 32 <= off + len; p += 32) total += CqlTypes.readLong(b, p + 24);
        return total;
    }

    // ---------------------------------------------------------------------------------------
    // Serialized values for messages

    private static final DateTimeFormatter DISPLAY_TIMESTAMP =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSX").withZone(ZoneOffset.UTC);

    /**
     * A readable rendering of a serialized value, for messages and test diffs: strings quoted,
     * blobs as 0x hex, timestamps in UTC, collections as [..] and {k: v}. Never throws: a value
     * whose length does not fit the type is shown as hex with a note.
     */
    public static String display(CqlType type, byte[] value) {
        try {
            return displayAt(type, value, 0, value.length);
        } catch (RuntimeException e) {
            return "0x" + hex(value, 0, value.length) + " (malformed " + type + ")";
        }
    }

    private static String displayAt(CqlType t, byte[] b, int off, int len) {
        if (len == 0) return "<empty>";
        if (off < 0 || len < 0 || off + len > b.length) throw new IllegalArgumentException("truncated");
        int fixed = t.fixedLength();
        if (fixed > 0 && len != fixed) throw new IllegalArgumentException("length " + len);
        switch (t.kind()) {
            case ASCII:
            case TEXT: return quote(new String(b, off, len, StandardCharsets.UTF_8));
            case BLOB: return "0x" + hex(b, off, len);
            case BOOLEAN: return b[off] == 0 ? "false" : "true";
            case TINYINT: return Byte.toString(b[off]);
            case SMALLINT: return Short.toString((short) ((b[off] << 8) | (b[off + 1] & 0xFF)));
            case INT: return Integer.toString(CqlTypes.readInt(b, off));
            case BIGINT: return Long.toString(CqlTypes.readLong(b, off));
            case VARINT: return new BigInteger(b, off, len).toString();
            case DECIMAL: return new BigDecimal(new BigInteger(b, off + 4, len - 4), CqlTypes.readInt(b, off)).toString();
            case FLOAT: return Float.toString(Float.intBitsToFloat(CqlTypes.readInt(b, off)));
            case DOUBLE: return Double.toString(Double.longBitsToDouble(CqlTypes.readLong(b, off)));
            case TIMESTAMP: {
                long ms = CqlTypes.readLong(b, off);
                try {
                    return DISPLAY_TIMESTAMP.format(Instant.ofEpochMilli(ms));
                } catch (DateTimeException e) {
                    return ms + "ms";
                }
            }
            case DATE: {
                if (len != 4) throw new IllegalArgumentException("length " + len);
                long days = (CqlTypes.readInt(b, off) & 0xFFFF_FFFFL) + Integer.MIN_VALUE;
                try {
                    return LocalDate.ofEpochDay(days).toString();
                } catch (DateTimeException e) {
                    return days + " days";
                }
            }
            case TIME: {
                if (len != 8) throw new IllegalArgumentException("length " + len);
                long n = CqlTypes.readLong(b, off);
                return String.format(Locale.ROOT, "%02d:%02d:%02d.%09d",
                        n / 3_600_000_000_000L, n / 60_000_000_000L % 60, n / 1_000_000_000L % 60, n % 1_000_000_000L);
            }
            case UUID:
            case TIMEUUID: return new UUID(CqlTypes.readLong(b, off), CqlTypes.readLong(b, off + 8)).toString();
            case INET: return inetText(b, off, len);
            case LIST:
            case SET:
            case MAP: return displayCollection(t, b, off, len);
            case TUPLE:
            case UDT: return displayTuple(t, b, off, len);
            case VECTOR: return displayVector(t, b, off, len);
            case DURATION: return Durations.toString(b, off, len);
            case COUNTER: return "counter context 0x" + hex(b, off, len);
            default: throw new AssertionError(t);
        }
    }

    /** (a, b) for a tuple, {f: a, g: b} for a UDT; null components as null. */
    private static String displayTuple(CqlType t, byte[] b, int off, int len) {
        boolean udt = t.kind() == CqlType.Kind.UDT;
        StringBuilder sb = new StringBuilder(udt ? "{" : "(");
        int p = off, end = off + len;
        for (int i = 0; i < t.size() && p < end; i++) {
            if (i > 0) sb.append(", ");
            if (udt) sb.append(CqlType.cqlName(t.fieldName(i))).append(": ");
            int l = CqlTypes.readInt(b, p);
            p += 4;
            if (l < 0) {
                sb.append("null");
                continue;
            }
            if (p + l > end) throw new IllegalArgumentException("truncated");
            sb.append(displayAt(t.component(i), b, p, l));
            p += l;
        }
        if (p != end) throw new IllegalArgumentException("trailing bytes");
        return sb.append(udt ? "}" : ")").toString();
    }

    private static String displayVector(CqlType t, byte[] b, int off, int len) {
        CqlType e = t.elementType();
        StringBuilder sb = new StringBuilder("[");
        int p = off, end = off + len;
        for (int i = 0; i < t.dimension(); i++) {
            if (i > 0) sb.append(", ");
            int l;
            if (e.fixedLength() > 0) {
                l = e.fixedLength();
            } else {
                long x = CqlTypes.readUnsignedVInt(b, p);
                p += CqlTypes.sizeOfUnsignedVIntAt(b, p);
                if (x > end - p) throw new IllegalArgumentException("truncated");
                l = (int) x;
            }
            if (p + l > end) throw new IllegalArgumentException("truncated");
            sb.append(displayAt(e, b, p, l));
            p += l;
        }
        if (p != end) throw new IllegalArgumentException("trailing bytes");
        return sb.append(']').toString();
    }

    private static String displayCollection(CqlType t, byte[] b, int off, int len) {
        int n = CqlTypes.readInt(b, off);
        int p = off + 4, end = off + len;
        boolean map = t.kind() == CqlType.Kind.MAP;
        StringBuilder sb = new StringBuilder(map ? "{" : "[");
        for (int i = 0; i < n; i++) {
            if (i > 0) sb.append(", ");
            int l = CqlTypes.readInt(b, p);
            if (p + 4 + l > end) throw new IllegalArgumentException("truncated");
            sb.append(displayAt(t.elementType(), b, p + 4, l));
            p += 4 + l;
            if (map) {
                l = CqlTypes.readInt(b, p);
                if (p + 4 + l > end) throw new IllegalArgumentException("truncated");
                sb.append(": ").append(displayAt(t.valueType(), b, p + 4, l));
                p += 4 + l;
            }
        }
        if (p != end) throw new IllegalArgumentException("trailing bytes");
        return sb.append(map ? "}" : "]").toString();
    }

    private static String inetText(byte[] b, int off, int len) {
        if (len == 4) {
            return (b[off] & 0xFF) + "." + (b[off + 1] & 0xFF) + "." + (b[off + 2] & 0xFF) + "." + (b[off + 3] & 0xFF);
        }
        if (len != 16) throw new IllegalArgumentException("length " + len);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i > 0) sb.append(':');
            sb.append(Integer.toHexString(((b[off + 2 * i] & 0xFF) << 8) | (b[off + 2 * i + 1] & 0xFF)));
        }
        return sb.toString();
    }
}

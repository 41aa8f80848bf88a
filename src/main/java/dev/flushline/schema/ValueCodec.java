package dev.flushline.schema;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.time.temporal.ChronoField;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Turns parsed JSON values into Cassandra's serialized bytes for a column type, as cassandra-all
 * 5.0.9 does for {@code INSERT ... JSON} ({@code AbstractType.fromJSONObject}), and back into text
 * for messages.
 *
 * <p>Input model (what our JSON reader produces): {@code String}, {@code BigDecimal} for every
 * number, {@code Boolean}, {@code List<Object>}, {@code Map<String, Object>}; and, from
 * {@link JavaValues} only, a {@code Float} or {@code Double} for a float or double column, written
 * with its raw bits. A top-level null is
 * the caller's business (a tombstone); a null inside a collection or vector is refused, as in
 * Cassandra; a null tuple component or UDT field is a null component.
 *
 * <p>Composite values, as {@code INSERT ... JSON} spells them: a tuple is an array of exactly its
 * components; a UDT an object of its field names (a field left out is null; quoted names keep
 * their case, bare ones are lowercased; an unknown field is refused); a vector an array of
 * exactly its dimension's elements; a duration any CQL duration literal as a string ("1h30m",
 * "-3d", "P1DT2H", "P0001-02-03T04:05:06"; "" is the empty value); a map key of a non-native
 * key type is JSON text in the key string ({@code "[1,2]"}). Collections nest as CQL allows.
 *
 * <p>Cassandra parses JSON with Jackson, which yields Integer/Long/BigInteger for numbers written
 * without fraction or exponent and Double for the rest. We see a BigDecimal instead, and treat
 * scale 0 as "written as an integer" and any other scale as "written as a float". That is exact
 * except for exponent forms whose BigDecimal has scale 0 ({@code 1.5e1}, {@code 15e0}): we take
 * them as the integer 15 (an int column accepts them, a decimal gets scale 0) where Cassandra
 * sees the double 15.0 (an int column refuses it, a decimal gets 15.0). Consequences, otherwise
 * all as in Cassandra:
 * <ul>
 *   <li>int/bigint/smallint/tinyint/varint refuse 1.0 and 1e2; int refuses integers beyond 32 bits.
 *   <li>float/double take any number; a float goes through double first, as Jackson's Double does.
 *   <li>A decimal written as a JSON float goes through a double ({@code 1.10} is stored as 1.1,
 *       {@code 1e2} as 100.0). Pass decimals as JSON strings to keep every digit.
 *   <li>Strings are accepted for every non-collection type and parsed as a CQL literal of the type
 *       ({@code "42"} for an int); an empty string is the empty value for the types whose
 *       {@code fromString} says so (numbers but varint, timestamp, uuid, inet; false for boolean). Not for smallint and
 *       tinyint: Cassandra turns "" into an empty value it cannot validate, we refuse it.
 * </ul>
 * Deliberate differences from cassandra-all 5.0.9, for a load tool that must be repeatable and
 * must not touch the network:
 * <ul>
 *   <li>timestamp takes any integral JSON number as millis (Cassandra only takes numbers beyond
 *       32 bits, a Jackson artefact: {@code 0} fails there).
 *   <li>inet takes IPv4 dotted quads and IPv6 literals only, never host names (Cassandra calls
 *       InetAddress.getByName, which would do a DNS lookup); an IPv4-mapped IPv6 address becomes
 *       4 bytes, as Java's InetAddress does.
 *   <li>collections, tuples, UDTs and vectors must be JSON arrays/objects; Cassandra also accepts
 *       a string holding JSON for them.
 * </ul>
 * Timestamps without a zone use the JVM's default zone, as a Cassandra node does.
 *
 * <p>Thread safety: stateless; the formatters are immutable.
 */
public final class ValueCodec {
    private ValueCodec() {}

    private static final byte[] EMPTY = new byte[0];

    /**
     * The serialized value of {@code jsonValue} for any type but counter, a non-frozen collection
     * or UDT meaning its whole value: a collection as int32 count, then each element as int32
     * length + bytes, map keys and values alternating (set elements sorted and deduplicated, map
     * entries sorted by key, in the type's order); a tuple from a JSON array of exactly its
     * components, a UDT from a JSON object of its fields, each component as int32 length (-1 for
     * null) + bytes, every field of the UDT written, trailing nulls included; a duration from
     * its literal; a vector from a JSON array of exactly its dimension's elements (see
     * {@link CqlType} for the layouts). REQUIRES: {@code jsonValue != null}.
     */
    public static byte[] encode(CqlType type, Object jsonValue) {
        if (jsonValue instanceof Serialized) return ((Serialized) jsonValue).checked(type);
        switch (type.kind()) {
            case LIST: {
                List<?> list = asList(type, jsonValue);
                byte[][] out = new byte[list.size()][];
                for (int i = 0; i < out.length; i++) out[i] = encodeElement(type, list.get(i));
                return pack(out, out.length);
            }
            case SET: {
                byte[][] elements = encodeSetElements(type, jsonValue);
                return pack(elements, elements.length);
            }
            case MAP: {
                byte[][] entries = encodeMapEntries(type, jsonValue);
                return pack(entries, entries.length / 2);
            }
            case TUPLE: return tuple(type, jsonValue);
            case UDT: return buildTuple(udtFields(type, jsonValue));
            case VECTOR: return vector(type, jsonValue);
            case DURATION: return duration(type, jsonValue);
            case COUNTER:
                throw new ValueException("a counter is changed by increments, which Flushline does not write (as CQLSSTableWriter does not)");
            default:
                return encodeNative(type, jsonValue);
        }
    }

    /** A list value or set element (the cell value, resp. the cell path, of a non-frozen cell). */
    public static byte[] encodeElement(CqlType collectionType, Object jsonElement) {
        if (jsonElement == null) {
            throw new ValueException("null is not allowed inside a " + collectionType);
        }
        return encode(collectionType.elementType(), jsonElement);
    }

    /**
     * A map key, given as the JSON object's key string. Cassandra parses it as a literal of a
     * native key type, and as JSON text for any other key type (a frozen collection, tuple, UDT
     * or vector: {@code "[1, 2]"}).
     */
    public static byte[] encodeMapKey(CqlType mapType, String jsonKey) {
        if (jsonKey == null) {
            throw new ValueException("null is not allowed as a key of a " + mapType);
        }
        CqlType k = mapType.elementType();
        if (k.isNative()) return encodeNative(k, jsonKey);
        Object decoded = JsonText.parse(jsonKey);
        if (decoded == null) throw new ValueException("null is not allowed as a key of a " + mapType);
        return encode(k, decoded);
    }

    /** A map value (the cell value of a non-frozen map cell). */
    public static byte[] encodeMapValue(CqlType mapType, Object jsonValue) {
        if (jsonValue == null) {
            throw new ValueException("null is not allowed as a value of a " + mapType);
        }
        return encode(mapType.valueType(), jsonValue);
    }

    /**
     * The fields of a UDT value, one slot per field in declaration order, null where the JSON
     * object leaves the field out or gives null. Keys follow Cassandra's JSON rule for names
     * (see {@link #resolveFieldNames}). An unknown field is refused. For a non-frozen UDT these
     * are its cells.
     */
    public static byte[][] udtFields(CqlType udt, Object jsonValue) {
        if (!(jsonValue instanceof Map)) {
            throw new ValueException(ValueText.display(jsonValue) + " is not a " + udt + " (expected a JSON object of its fields)");
        }
        Map<String, Object> m = resolveFieldNames(udt, (Map<?, ?>) jsonValue);
        byte[][] out = new byte[udt.size()][];
        for (Map.Entry<String, Object> e : m.entrySet()) {
            String name = e.getKey();
            int i = udt.fieldIndex(name);
            if (i < 0) {
                throw new ValueException("unknown field " + ValueText.display(name) + " in " + ValueText.display(jsonValue) + " for user-defined type "
                        + udt.typeName());
            }
            Object v = e.getValue();
            if (v == null) continue;
            try {
                out[i] = encode(udt.component(i), v);
            } catch (ValueException x) {
                throw new ValueException("field '" + name + "' (" + udt.component(i) + "): " + x.getMessage());
            }
        }
        return out;
    }

    /**
     * The object's keys as field names, exactly as Cassandra's {@code handleCaseSensitivity}
     * turns them, key by key in input order, into the same map: a key in double quotes
     * ({@code "\"Zip\""}) becomes the name inside them, any other key is lowercased; a key that
     * becomes one already there replaces that entry's value. (So {@code {"zip":1,"ZIP":2}} gives
     * zip = 2, and {@code {"ZIP":1,"zip":2}} gives zip = 1, as in Cassandra.)
     */
    static Map<String, Object> resolveFieldNames(CqlType udt, Map<?, ?> json) {
        LinkedHashMap<String, Object> m = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : json.entrySet()) m.put(String.valueOf(e.getKey()), e.getValue());
        for (String key : new ArrayList<>(m.keySet())) {
            if (key.startsWith("\"") && key.endsWith("\"")) {
                if (key.length() < 2) throw new ValueException("field name " + ValueText.display(key) + " of " + udt.typeName() + " is a lone quote");
                m.put(key.substring(1, key.length() - 1), m.remove(key));
                continue;
            }
            String lowered = key.toLowerCase(Locale.US);
            if (!key.equals(lowered)) m.put(lowered, m.remove(key));
        }
        return m;
    }

    private static byte[] tuple(CqlType t, Object jsonValue) {
        List<?> l = asList(t, jsonValue);
        if (l.size() != t.size()) {
            throw new ValueException(ValueText.display(jsonValue) + " is not a " + t + " (" + (l.size() > t.size() ? "more" : "fewer")
                    + " than its " + t.size() + " components)");
        }
        byte[][] out = new byte[t.size()][];
        for (int i = 0; i < out.length; i++) {
            Object v = l.get(i);
            if (v == null) continue;
            try {
                out[i] = encode(t.component(i), v);
            } catch (ValueException x) {
                throw new ValueException("component " + i + " (" + t.component(i) + "): " + x.getMessage());
            }
        }
        return buildTuple(out);
    }

    /** Per component: int32 length (-1 for null), bytes. */
    static byte[] buildTuple(byte[][] components) {
        int size = 0;
        for (byte[] c : components) size += 4 + (c == null ? 0 : c.length);
        ByteBuffer bb = ByteBuffer.allocate(size);
        for (byte[] c : components) {
            if (c == null) bb.putInt(-1);
            else bb.putInt(c.length).put(c);
        }
        return bb.array();
    }

    /**
     * A vector: exactly its dimension's elements, none null; an empty element only for text,
     * ascii and blob (whose serializers alone do not take empty for null). Fixed-length elements
     * back to back, variable-length ones each behind an unsigned vint length.
     */
    private static byte[] vector(CqlType t, Object jsonValue) {
        List<?> l = asList(t, jsonValue);
        int n = t.dimension();
        if (l.size() != n) {
            throw new ValueException(ValueText.display(jsonValue) + " is not a " + t + " (" + l.size() + " elements, not " + n + ")");
        }
        CqlType e = t.elementType();
        int fixed = e.fixedLength();
        boolean emptyAllowed = e.kind() == CqlType.Kind.TEXT || e.kind() == CqlType.Kind.ASCII || e.kind() == CqlType.Kind.BLOB;
        byte[] fixedOut = fixed > 0 ? new byte[fixed * n] : null;
        java.io.ByteArrayOutputStream varOut = fixed > 0 ? null : new java.io.ByteArrayOutputStream();
        for (int i = 0; i < n; i++) {
            Object v = l.get(i);
            if (v == null) throw new ValueException("null is not allowed inside a " + t + " (element " + i + ")");
            byte[] b;
            try {
                b = encode(e, v);
            } catch (ValueException x) {
                throw new ValueException("element " + i + " of a " + t + ": " + x.getMessage());
            }
            if (b.length == 0 && !emptyAllowed) {
                throw new ValueException("element " + i + " of a " + t + " is empty (" + ValueText.display(v) + "); a vector element may not be");
            }
            if (fixedOut != null) {
                System.arraycopy(b, 0, fixedOut, i * fixed, fixed);
            } else {
                CqlTypes.writeUnsignedVInt(varOut, b.length);
                varOut.write(b, 0, b.length);
            }
        }
        return fixedOut != null ? fixedOut : varOut.toByteArray();
    }

    private static byte[] duration(CqlType t, Object v) {
        if (!(v instanceof String)) throw bad(v, t, "expected a string holding a duration literal, as \"1h30m\" or \"P1DT2H\"");
        String s = (String) v;
        if (s.isEmpty()) return EMPTY;
        return Durations.serialize(Durations.parse(s));
    }

    /**
     * The elements of a set, encoded, sorted in the element type's order and deduplicated
     * (the first of equal elements wins). For a non-frozen set these are the cell paths.
     */
    public static byte[][] encodeSetElements(CqlType setType, Object jsonValue) {
        List<?> list = asList(setType, jsonValue);
        byte[][] out = new byte[list.size()][];
        for (int i = 0; i < out.length; i++) out[i] = encodeElement(setType, list.get(i));
        CqlType e = setType.elementType();
        // stable sort: among equal elements the first one stays first and is kept
        Arrays.sort(out, (x, y) -> e.compare(x, y));
        int n = 0;
        for (int i = 0; i < out.length; i++) {
            if (n == 0 || e.compare(out[n - 1], out[i]) != 0) out[n++] = out[i];
        }
        return n == out.length ? out : Arrays.copyOf(out, n);
    }

    /**
     * The entries of a map, encoded as key0, value0, key1, value1, ... sorted by key in the key
     * type's order; of two keys that are equal in that order, the later entry's value wins.
     */
    public static byte[][] encodeMapEntries(CqlType mapType, Object jsonValue) {
        if (!(jsonValue instanceof Map)) {
            throw new ValueException(ValueText.display(jsonValue) + " is not a " + mapType + " (expected a JSON object)");
        }
        Map<?, ?> map = (Map<?, ?>) jsonValue;
        List<byte[][]> entries = new ArrayList<>(map.size());
        for (Map.Entry<?, ?> en : map.entrySet()) {
            Object k = en.getKey();
            byte[] key;
            if (k instanceof Serialized) {
                key = ((Serialized) k).checked(mapType.elementType()); // from JavaValues: a key serialized by its caller
            } else if (k instanceof String) {
                key = encodeMapKey(mapType, (String) k);
            } else {
                throw new ValueException(ValueText.display(k) + " is not a key of a " + mapType);
            }
            entries.add(new byte[][] {key, encodeMapValue(mapType, en.getValue())});
        }
        CqlType kt = mapType.elementType();
        Comparator<byte[][]> byKey = (x, y) -> kt.compare(x[0], y[0]);
        entries.sort(byKey);
        List<byte[][]> dedup = new ArrayList<>(entries.size());
        for (byte[][] en : entries) {
            int last = dedup.size() - 1;
            if (last >= 0 && kt.compare(dedup.get(last)[0], en[0]) == 0) {
                dedup.get(last)[1] = en[1];
            } else {
                dedup.add(en);
            }
        }
        byte[][] out = new byte[dedup.size() * 2][];
        for (int i = 0; i < dedup.size(); i++) {
            out[2 * i] = dedup.get(i)[0];
            out[2 * i + 1] = dedup.get(i)[1];
        }
        return out;
    }

    private static List<?> asList(CqlType type, Object jsonValue) {
        if (!(jsonValue instanceof List)) {
            throw new ValueException(ValueText.display(jsonValue) + " is not a " + type + " (expected a JSON array)");
        }
        return (List<?>) jsonValue;
    }

    /** Serialized collection: int32 count, then int32 length + bytes per item. */
    private static byte[] pack(byte[][] items, int count) {
        int size = 4;
        for (byte[] it : items) size += 4 + it.length;
        ByteBuffer bb = ByteBuffer.allocate(size);
        bb.putInt(count);
        for (byte[] it : items) bb.putInt(it.length).put(it);
        return bb.array();
    }

    // ---------------------------------------------------------------------------------------
    // Native types

    private static byte[] encodeNative(CqlType t, Object v) {
        if (v instanceof List || v instanceof Map) {
            throw bad(v, t, null);
        }
        switch (t.kind()) {
            case ASCII: return ascii(t, v);
            case TEXT: return string(t, v).getBytes(StandardCharsets.UTF_8);
            case BLOB: return blob(t, v);
            case BOOLEAN: return bool(t, v);
            case TINYINT: {
                // ShortType/ByteType.fromString give "" an empty value, but their validators
                // (and comparators) reject empty values, so such a cell would be unreadable.
                if (isEmptyString(v)) throw bad(v, t, "empty");
                return new byte[] {(byte) integral(t, v, Byte.MIN_VALUE, Byte.MAX_VALUE)};
            }
            case SMALLINT: {
                if (isEmptyString(v)) throw bad(v, t, "empty");
                short s = (short) integral(t, v, Short.MIN_VALUE, Short.MAX_VALUE);
                return new byte[] {(byte) (s >> 8), (byte) s};
            }
            case INT: {
                if (isEmptyString(v)) return EMPTY;
                return int32((int) integral(t, v, Integer.MIN_VALUE, Integer.MAX_VALUE));
            }
            case BIGINT: {
                if (isEmptyString(v)) return EMPTY;
                return int64(integral(t, v, Long.MIN_VALUE, Long.MAX_VALUE));
            }
            case VARINT: return varint(t, v);
            case DECIMAL: return decimal(t, v);
            case FLOAT: return floatValue(t, v);
            case DOUBLE: return doubleValue(t, v);
            case TIMESTAMP: return timestamp(t, v);
            case DATE: return int32(date(t, string(t, v)));
            case TIME: return int64(time(t, string(t, v)));
            case UUID: return uuid(t, string(t, v), false);
            case TIMEUUID: return uuid(t, string(t, v), true);
            case INET: return inet(t, string(t, v));
            case DURATION: return duration(t, v);
            case COUNTER: return encode(t, v); // refused there, by name
            default: throw new AssertionError(t);
        }
    }

    private static ValueException bad(Object v, CqlType t, String why) {
        String name = t.toString();
        // "an int", "an inet", "an ascii", but "a uuid"
        String article = "aeio".indexOf(name.charAt(0)) >= 0 ? "an " : "a ";
        return new ValueException(ValueText.display(v) + " is not " + article + name + (why == null ? "" : " (" + why + ")"));
    }

    private static boolean isEmptyString(Object v) {
        return v instanceof String && ((String) v).isEmpty();
    }

    private static String string(CqlType t, Object v) {
        if (!(v instanceof String)) throw bad(v, t, "expected a string");
        return (String) v;
    }

    private static byte[] ascii(CqlType t, Object v) {
        String s = string(t, v);
        byte[] out = new byte[s.length()];
        for (int i = 0; i < out.length; i++) {
            char c = s.charAt(i);
            if (c > 0x7F) throw bad(v, t, "non-ASCII character at index " + i);
            out[i] = (byte) c;
        }
        return out;
    }

    private static byte[] blob(CqlType t, Object v) {
        String s = string(t, v);
        if (!s.startsWith("0x")) throw bad(v, t, "expected 0x followed by hex digits");
        int n = s.length() - 2;
        if ((n & 1) != 0) throw bad(v, t, "odd number of hex digits");
        byte[] out = new byte[n / 2];
        int written = ValueChars.hex(s.toCharArray(), 2, s.length(), out, 0);
        if (written < 0) throw bad(v, t, "not a hex digit at index " + ~written);
        return out;
    }

    private static byte[] bool(CqlType t, Object v) {
        if (v instanceof Boolean) return new byte[] {(byte) (((Boolean) v) ? 1 : 0)};
        if (v instanceof String) {
            String s = (String) v;
            // as BooleanType.fromString: "" is false
            if (s.isEmpty() || s.equalsIgnoreCase("false")) return new byte[] {0};
            if (s.equalsIgnoreCase("true")) return new byte[] {1};
        }
        throw bad(v, t, null);
    }

    /**
     * An integer-typed value in [min, max]: a JSON number written without fraction or exponent,
     * or a string in Java's parseLong syntax (what Integer.parseInt etc. accept).
     */
    private static long integral(CqlType t, Object v, long min, long max) {
        long x;
        if (v instanceof BigDecimal) {
            BigDecimal d = (BigDecimal) v;
            if (d.scale() != 0) throw bad(v, t, "not an integer");
            BigInteger bi = d.unscaledValue();
            if (bi.bitLength() > 63) throw bad(v, t, "out of range");
            x = bi.longValue();
        } else if (v instanceof String) {
            try {
                x = Long.parseLong((String) v);
            } catch (NumberFormatException e) {
                // distinguish "12345678901234567890" (range) from "abc" (syntax)
                if (isIntegerLiteral((String) v)) throw bad(v, t, "out of range");
                throw bad(v, t, null);
            }
        } else {
            throw bad(v, t, null);
        }
        if (x < min || x > max) throw bad(v, t, "out of range");
        return x;
    }

    /** What new BigInteger(s) accepts, checked in linear time (parsing a million digits is quadratic). */
    private static boolean isIntegerLiteral(String s) {
        int i = !s.isEmpty() && (s.charAt(0) == '-' || s.charAt(0) == '+') ? 1 : 0;
        if (i == s.length()) return false;
        for (; i < s.length(); i++) {
            if (Character.digit(s.charAt(i), 10) < 0) return false;
        }
        return true;
    }

    /**
     * Longest number text taken, in chars: BigInteger and BigDecimal parse in quadratic time, so a
     * million digits would take half a minute (10,000 take a millisecond or two). No real varint
     * or decimal comes near it.
     */
    public static final int MAX_NUMBER_CHARS = 10_000;

    private static byte[] varint(CqlType t, Object v) {
        BigInteger bi;
        if (v instanceof BigDecimal) {
            BigDecimal d = (BigDecimal) v;
            if (d.scale() != 0) throw bad(v, t, "not an integer");
            bi = d.unscaledValue();
        } else if (v instanceof String) {
            String s = (String) v;
            // IntegerType.fromJSONObject bypasses fromString, so "" is refused here, unlike decimal
            if (s.length() > MAX_NUMBER_CHARS) throw bad(v, t, "longer than " + MAX_NUMBER_CHARS + " chars");
            try {
                bi = new BigInteger(s);
            } catch (NumberFormatException e) {
                throw bad(v, t, null);
            }
        } else {
            throw bad(v, t, null);
        }
        return bi.toByteArray();
    }

    private static byte[] decimal(CqlType t, Object v) {
        BigDecimal d;
        if (v instanceof BigDecimal) {
            d = (BigDecimal) v;
            if (d.scale() != 0) {
                // Jackson hands Cassandra a Double, which DecimalType turns back into text.
                double x = d.doubleValue();
                if (Double.isInfinite(x)) throw bad(v, t, "out of double range; pass it as a string");
                d = new BigDecimal(Double.toString(x));
            }
        } else if (v instanceof String) {
            String s = (String) v;
            if (s.isEmpty()) return EMPTY;
            if (s.length() > MAX_NUMBER_CHARS) throw bad(v, t, "longer than " + MAX_NUMBER_CHARS + " chars");
            try {
                d = new BigDecimal(s);
            } catch (NumberFormatException e) {
                throw bad(v, t, null);
            }
        } else {
            throw bad(v, t, null);
        }
        byte[] u = d.unscaledValue().toByteArray();
        return ByteBuffer.allocate(4 + u.length).putInt(d.scale()).put(u).array();
    }

    /**
     * A value that arrives already serialized (the components of a Java driver's UdtValue or
     * TupleValue, or a value its caller serialized, see {@link JavaValues}): taken as it is once
     * {@link ValueValidator} finds it a valid value of the type it is given for, as a value, an
     * element, a map key or a field.
     */
    public static final class Serialized {
        private final byte[] bytes;

        public Serialized(byte[] bytes) {
            this.bytes = bytes;
        }

        byte[] checked(CqlType t) {
            String problem = ValueValidator.problem(t, bytes, 0, bytes.length);
            if (problem != null) throw new ValueException("a serialized " + t + " of " + bytes.length + " bytes is not valid: " + problem);
            return bytes;
        }

        @Override
        public String toString() {
            return "0x" + ValueText.hex(bytes, 0, bytes.length);
        }
    }

    /**
     * A JSON number that was written as a negative zero with a fraction or an exponent
     * ({@code -0.0}, {@code -0e0}): a BigDecimal cannot carry the sign of zero, but float and double
     * columns must keep it, as Cassandra's JSON reader does (it reads such literals as the double
     * -0.0; an integer literal {@code -0} is the integer 0 there too). Every other type sees zero.
     */
    public static final class NegativeZero extends BigDecimal {
        public NegativeZero(int scale) {
            super(java.math.BigInteger.ZERO, scale);
        }
    }

    private static byte[] floatValue(CqlType t, Object v) {
        float f;
        if (v instanceof Float) {
            return int32(Float.floatToRawIntBits((Float) v)); // a Java value (JavaValues): its bits, as the driver writes them
        } else if (v instanceof NegativeZero) {
            f = -0.0f;
        } else if (v instanceof BigDecimal) {
            BigDecimal d = (BigDecimal) v;
            // integer literal: Jackson's Integer/Long/BigInteger.floatValue() round once;
            // otherwise Jackson's Double is rounded to float (twice rounded, as in Cassandra).
            f = d.scale() == 0 ? d.unscaledValue().floatValue() : (float) d.doubleValue();
        } else if (v instanceof String) {
            String s = (String) v;
            if (s.isEmpty()) return EMPTY;
            try {
                f = Float.parseFloat(s);
            } catch (NumberFormatException e) {
                throw bad(v, t, null);
            }
        } else {
            throw bad(v, t, null);
        }
        return int32(Float.floatToRawIntBits(f));
    }

    private static byte[] doubleValue(CqlType t, Object v) {
        double x;
        if (v instanceof Double) {
            return int64(Double.doubleToRawLongBits((Double) v)); // a Java value (JavaValues): its bits
        } else if (v instanceof NegativeZero) {
            x = -0.0;
        } else if (v instanceof BigDecimal) {
            BigDecimal d = (BigDecimal) v;
            x = d.scale() == 0 ? d.unscaledValue().doubleValue() : d.doubleValue();
        } else if (v instanceof String) {
            String s = (String) v;
            if (s.isEmpty()) return EMPTY;
            try {
                x = Double.parseDouble(s);
            } catch (NumberFormatException e) {
                throw bad(v, t, null);
            }
        } else {
            throw bad(v, t, null);
        }
        return int64(Double.doubleToRawLongBits(x));
    }

    // ---------------------------------------------------------------------------------------
    // Temporal types

    private static byte[] timestamp(CqlType t, Object v) {
        if (v instanceof BigDecimal) {
            return int64(integral(t, v, Long.MIN_VALUE, Long.MAX_VALUE));
        }
        String s = string(t, v);
        if (s.isEmpty()) return EMPTY;
        if (s.equalsIgnoreCase("now")) return int64(System.currentTimeMillis());
        if (isSignedDigits(s)) {
            try {
                return int64(Long.parseLong(s));
            } catch (NumberFormatException e) {
                throw bad(v, t, "out of range");
            }
        }
        for (DateTimeFormatter f : TIMESTAMP_FORMATS) {
            try {
                return int64(ZonedDateTime.parse(s, f).toInstant().toEpochMilli());
            } catch (DateTimeParseException | ArithmeticException e) {
                // try the next format
            }
        }
        throw bad(v, t, "expected milliseconds since the epoch or yyyy-mm-dd[(T| )hh:mm[:ss[.fff]]][zone]");
    }

    /** -?\d+ in ASCII digits, as Cassandra's raw-number patterns. */
    private static boolean isSignedDigits(String s) {
        int i = s.startsWith("-") ? 1 : 0;
        if (i == s.length()) return false;
        for (; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') return false;
        }
        return true;
    }

    /**
     * The date-time forms a Cassandra node accepts for a timestamp: date, 'T' or space, H:m[:s]
     * with an optional fraction, then no zone (the JVM's zone), or a zone name or ISO offset;
     * or a date alone, with or without a zone.
     */
    private static final List<DateTimeFormatter> TIMESTAMP_FORMATS = buildTimestampFormats();

    private static List<DateTimeFormatter> buildTimestampFormats() {
        List<DateTimeFormatter> out = new ArrayList<>();
        String[] dateTimes = {"y-M-d'T'H:m[:s]", "y-M-d H:m[:s]"};
        String[] zones = {" z", " zzzz", " X", "X", "XXX"};
        for (String dt : dateTimes) {
            out.add(new DateTimeFormatterBuilder().appendPattern(dt)
                    .appendFraction(ChronoField.MILLI_OF_SECOND, 0, 9, true)
                    .toFormatter().withZone(ZoneId.systemDefault()));
            for (String z : zones) {
                out.add(new DateTimeFormatterBuilder().appendPattern(dt)
                        .appendFraction(ChronoField.MILLI_OF_SECOND, 0, 9, true)
                        .appendPattern(z).toFormatter());
            }
        }
        for (String z : zones) {
            out.add(new DateTimeFormatterBuilder().appendPattern("yyyy-MM-dd").appendPattern(z)
                    .parseDefaulting(ChronoField.NANO_OF_DAY, 0).toFormatter());
        }
        out.add(new DateTimeFormatterBuilder().append(DateTimeFormatter.ISO_DATE)
                .parseDefaulting(ChronoField.NANO_OF_DAY, 0).toFormatter().withZone(ZoneId.systemDefault()));
        return out;
    }

    private static final DateTimeFormatter DATE_FORMAT =
            DateTimeFormatter.ISO_LOCAL_DATE.withZone(ZoneOffset.UTC).withResolverStyle(ResolverStyle.STRICT);

    /** Days since the epoch, shifted by 2^31 so that unsigned byte order is date order. */
    private static int date(CqlType t, String s) {
        if (isSignedDigits(s)) {
            // a raw day number in the unsigned (shifted) form
            long raw;
            try {
                raw = Long.parseLong(s);
            } catch (NumberFormatException e) {
                throw bad(s, t, "out of range");
            }
            if (raw < 0 || raw > 0xFFFF_FFFFL) throw bad(s, t, "out of range");
            return (int) raw;
        }
        LocalDate d;
        try {
            d = DATE_FORMAT.parse(s, LocalDate::from);
        } catch (DateTimeParseException e) {
            throw bad(s, t, "expected yyyy-mm-dd");
        }
        long days = d.toEpochDay();
        if (days < Integer.MIN_VALUE || days > Integer.MAX_VALUE) throw bad(s, t, "out of range");
        return (int) (days - Integer.MIN_VALUE);
    }

    private static final long NANOS_PER_DAY = 86_400_000_000_000L;

    /** Nanoseconds since midnight, from hh:mm:ss[.fffffffff] or a raw number of nanos. */
    private static long time(CqlType t, String s) {
        if (isSignedDigits(s)) {
            long raw;
            try {
                raw = Long.parseLong(s);
            } catch (NumberFormatException e) {
                throw bad(s, t, "out of range");
            }
            if (raw < 0 || raw >= NANOS_PER_DAY) throw bad(s, t, "out of range");
            return raw;
        }
        String x = s.trim();
        int c1 = x.indexOf(':');
        int c2 = c1 < 0 ? -1 : x.indexOf(':', c1 + 1);
        if (c1 <= 0 || c2 <= 0 || c2 >= x.length() - 1) throw bad(s, t, "expected hh:mm:ss[.fffffffff]");
        int dot = x.indexOf('.', c2 + 1);
        if (dot == x.length() - 1) throw bad(s, t, "expected hh:mm:ss[.fffffffff]");
        long hour = timeField(s, t, x.substring(0, c1), 24);
        long minute = timeField(s, t, x.substring(c1 + 1, c2), 60);
        long second = timeField(s, t, x.substring(c2 + 1, dot > 0 ? dot : x.length()), 60);
        long nanos = 0;
        if (dot > 0) {
            String frac = x.substring(dot + 1);
            if (frac.length() > 9 || !Character.isDigit(frac.charAt(0))) {
                throw bad(s, t, "expected hh:mm:ss[.fffffffff]");
            }
            try {
                nanos = Integer.parseInt(frac + "000000000".substring(frac.length()));
            } catch (NumberFormatException e) {
                throw bad(s, t, "expected hh:mm:ss[.fffffffff]");
            }
        }
        return ((hour * 60 + minute) * 60 + second) * 1_000_000_000L + nanos;
    }

    private static long timeField(String s, CqlType t, String field, int limit) {
        int x;
        try {
            x = Integer.parseInt(field); // Cassandra's parser uses parseInt as well (signs allowed)
        } catch (NumberFormatException e) {
            throw bad(s, t, "expected hh:mm:ss[.fffffffff]");
        }
        if (x < 0 || x >= limit) throw bad(s, t, "out of range");
        return x;
    }

    // ---------------------------------------------------------------------------------------
    // uuid, inet

    private static byte[] uuid(CqlType t, String s, boolean timeUuid) {
        if (s.isEmpty()) return EMPTY;
        byte[] out = new byte[16];
        if (ValueChars.uuid(s.toCharArray(), 0, s.length(), out, 0) < 0) throw bad(s, t, "expected the canonical 8-4-4-4-12 hex form");
        int version = ValueChars.uuidVersion(out, 0);
        if (timeUuid && version != 1) throw bad(s, t, "version " + version + ", a timeuuid must be version 1");
        return out;
    }

    private static byte[] inet(CqlType t, String s) {
        if (s.isEmpty()) return EMPTY;
        byte[] out = new byte[16];
        int n = ValueChars.inet(s.toCharArray(), 0, s.length(), out, 0);
        if (n < 0) throw bad(s, t, "expected an IPv4 or IPv6 address literal; host names are not resolved");
        return n == out.length ? out : Arrays.copyOf(out, n);
    }

    /** The serialized form of a CQL int: four bytes, big-endian. */
    public static byte[] int32(int x) {
        byte[] b = new byte[4];
        ValueChars.bigEndian(x, 4, b, 0);
        return b;
    }

    /** The serialized form of a CQL bigint: eight bytes, big-endian. */
    public static byte[] int64(long x) {
        byte[] b = new byte[8];
        ValueChars.bigEndian(x, 8, b, 0);
        return b;
    }
}

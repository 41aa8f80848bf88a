package dev.flushline.schema;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Java objects, as the Apache Cassandra (DataStax) Java driver maps CQL types, turned into the
 * input model of {@link ValueCodec}, so that one encoder serves JSON operations and the Java API
 * alike. Each native value becomes the literal text that {@link ValueCodec} parses back exactly
 * (a raw day number for a date, nanoseconds for a time, milliseconds for a timestamp, {@code 0x}
 * hex for a blob, every digit and the scale of a decimal); a float or double stays a Float or
 * Double (its raw bits are written); a collection becomes a List or a Map with literal keys (a
 * float or double map key goes through its shortest round-trip text, which keeps every value
 * but a NaN's payload).
 *
 * <p>The Java classes accepted per type, strictly (an Integer for a bigint is refused, as the
 * driver refuses it): int Integer, bigint Long, smallint Short, tinyint Byte, float Float,
 * double Double, boolean Boolean, text/ascii/varchar String, uuid/timeuuid UUID, inet
 * InetAddress, decimal BigDecimal, varint BigInteger, blob ByteBuffer (its remaining bytes; the
 * position is not moved), date LocalDate, time LocalTime or Long (nanoseconds since midnight, as
 * CQLSSTableWriter takes it), timestamp Instant or java.util.Date (millisecond precision, as
 * Cassandra stores it), list/set any Collection (a set's duplicates collapse), map Map (its
 * keys of a native type), duration the driver's CqlDuration, tuple its TupleValue, user-defined
 * type its UdtValue (fields matched by name), vector its CqlVector (see {@link DriverValues}: the
 * driver is reached by reflection, never needed on the class path).
 *
 * <p>Any type also takes a {@link ValueCodec.Serialized}: the value as Cassandra serializes it,
 * taken once {@link ValueValidator} finds it a valid value of the type, as a node takes a bound
 * value's bytes. It may stand wherever a value of the type goes: a column, an element, a map key
 * (of any key type), a field. As a node does with a bound value, a set or map given so as a whole
 * column value is put in its type's order (duplicates dropped: the first set element, the last
 * map entry stays), while one inside another value is kept as given; a non-frozen collection or
 * UDT column's value is split into its elements, entries or fields, each then written as a cell.
 * This is the form for callers that serialize values themselves (the Spark writer's structs,
 * tuples and vectors).
 *
 * <p>Thread safety: stateless.
 */
public final class JavaValues {
    private JavaValues() {}

    /**
     * The {@link ValueCodec} input for {@code value} of {@code type}. REQUIRES: value != null.
     * @throws ValueException naming the value, its Java class and the classes the type takes
     */
    public static Object toCodecInput(CqlType type, Object value) {
        if (value instanceof ValueCodec.Serialized) return serialized(type, (ValueCodec.Serialized) value);
        switch (type.kind()) {
            case LIST:
            case SET: {
                if (!(value instanceof Collection)) throw wrongClass(type, value, "a java.util.List or Set");
                Collection<?> c = (Collection<?>) value;
                List<Object> out = new ArrayList<>(c.size());
                for (Object e : c) {
                    if (e == null) throw new ValueException("null is not allowed inside a " + type + " (in " + describe(value) + ")");
                    out.add(element(type.elementType(), e));
                }
                return out;
            }
            case MAP: {
                if (!(value instanceof Map)) throw wrongClass(type, value, "a java.util.Map");
                Map<?, ?> m = (Map<?, ?>) value;
                Map<Object, Object> out = new LinkedHashMap<>();
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    Object k = e.getKey();
                    if (k == null) throw new ValueException("null is not allowed as a key of a " + type);
                    if (e.getValue() == null) throw new ValueException("null is not allowed as a value of a " + type);
                    if (!(k instanceof ValueCodec.Serialized) && !type.elementType().isNative()) throw notYet(type.elementType());
                    // Distinct Java keys have distinct literals for every key type, so no entry is lost here;
                    // a serialized key stays one (ValueCodec checks it; Serialized keys are distinct objects).
                    out.put(k instanceof ValueCodec.Serialized ? k : literal(type.elementType(), k), element(type.valueType(), e.getValue()));
                }
                return out;
            }
            case TUPLE:
            case UDT:
            case VECTOR:
            case DURATION: {
                Object in = DriverValues.toCodecInput(type, value);
                if (in != null) return in;
                throw wrongClass(type, value, DRIVER_CLASSES.get(type.kind()));
            }
            case COUNTER:
                throw notYet(type);
            default:
                return nativeValue(type, value);
        }
    }

    private static final Map<CqlType.Kind, String> DRIVER_CLASSES = Map.of(
            CqlType.Kind.TUPLE, DriverValues.TUPLE_VALUE + " (the Java driver's)",
            CqlType.Kind.UDT, DriverValues.UDT_VALUE + " (the Java driver's)",
            CqlType.Kind.VECTOR, DriverValues.VECTOR + " (the Java driver's)",
            CqlType.Kind.DURATION, DriverValues.DURATION + " (the Java driver's)");

    /** An element, key or value inside a collection or vector: a native value, or a nested one. */
    static Object elementValue(CqlType t, Object v) {
        if (v instanceof ValueCodec.Serialized) return v; // checked against t where ValueCodec encodes it
        return t.isNative() ? nativeValue(t, v) : toCodecInput(t, v);
    }

    /**
     * A serialized value given for a whole column: as it is (ValueCodec checks it when it encodes
     * it); or, for a set, a map, or a non-frozen collection or UDT, once checked whole, its parts in
     * the input model that ValueCodec sorts (sets, maps) and RowBinder splits into cells: the
     * elements of a list or set, a map's entries (serialized keys), a UDT's fields by their quoted
     * names (a field the bytes leave out, or hold null, is null).
     */
    private static Object serialized(CqlType type, ValueCodec.Serialized value) {
        boolean sorted = type.kind() == CqlType.Kind.SET || type.kind() == CqlType.Kind.MAP;
        if (!type.isMultiCell() && !sorted) return value;
        byte[] b = value.checked(type);
        if (b.length == 0) {
            // Cassandra splits an empty UDT value into null fields, and refuses an empty collection value
            if (type.kind() == CqlType.Kind.UDT) return new LinkedHashMap<String, Object>();
            throw new ValueException("an empty serialized value is not a " + type + " (it has no element count)");
        }
        switch (type.kind()) {
            case LIST:
            case SET: {
                int n = CqlTypes.readInt(b, 0);
                List<Object> out = new ArrayList<>(n);
                int p = 4;
                for (int i = 0; i < n; i++) {
                    int length = CqlTypes.readInt(b, p);
                    out.add(new ValueCodec.Serialized(java.util.Arrays.copyOfRange(b, p + 4, p + 4 + length)));
                    p += 4 + length;
                }
                return out;
            }
            case MAP: {
                int n = CqlTypes.readInt(b, 0);
                Map<Object, Object> out = new LinkedHashMap<>();
                int p = 4;
                for (int i = 0; i < n; i++) {
                    int keyLength = CqlTypes.readInt(b, p);
                    ValueCodec.Serialized k = new ValueCodec.Serialized(java.util.Arrays.copyOfRange(b, p + 4, p + 4 + keyLength));
                    p += 4 + keyLength;
                    int valueLength = CqlTypes.readInt(b, p);
                    out.put(k, new ValueCodec.Serialized(java.util.Arrays.copyOfRange(b, p + 4, p + 4 + valueLength)));
                    p += 4 + valueLength;
                }
                return out;
            }
            case UDT: {
                Map<String, Object> out = new LinkedHashMap<>();
                int p = 0;
                for (int i = 0; i < type.size() && p < b.length; i++) {
                    int length = CqlTypes.readInt(b, p);
                    p += 4;
                    if (length < 0) continue; // null field
                    out.put('"' + type.fieldName(i) + '"', new ValueCodec.Serialized(java.util.Arrays.copyOfRange(b, p, p + length)));
                    p += length;
                }
                return out;
            }
            default:
                throw new AssertionError(type);
        }
    }

    private static Object element(CqlType t, Object v) {
        return elementValue(t, v);
    }

    /** Counters are changed by increments, never written; refused by name rather than guessed. */
    private static ValueException notYet(CqlType t) {
        if (t.isCounter()) {
            return new ValueException("counter columns cannot be written: a counter is changed by increments, which a bulk "
                    + "writer does not make (CQLSSTableWriter refuses them too)");
        }
        return new ValueException("values of type " + t + " are not taken from Java objects yet (not done: " + t
                + " as a key of a map); write them through flushline load's JSON");
    }

    /**
     * Appends the serialized value of {@code value} (a native value or a whole, frozen or not,
     * collection) to {@code out}: the same bytes as {@code ValueCodec.encode(type,
     * toCodecInput(type, value))}, and the same refusals. The usual classes of the fixed-width
     * types, text, ascii, uuid, timeuuid, blob, timestamp, date and time are written straight
     * into the arena, without text in between or an array of their own; the rest (and any value
     * the direct route does not take, such as a text holding a surrogate) goes through
     * {@link ValueCodec}. REQUIRES: value != null.
     * @throws ValueException as {@link #toCodecInput}
     */
    public static void write(CqlType type, Object value, ValueBuffer out) {
        if (!writeDirect(type, value, out)) {
            byte[] b = ValueCodec.encode(type, toCodecInput(type, value));
            out.putBytes(b, 0, b.length);
        }
    }

    private static final long NANOS_PER_DAY = 86_400_000_000_000L;

    /** The direct route; false (nothing written) where {@link ValueCodec} decides. */
    private static boolean writeDirect(CqlType t, Object v, ValueBuffer out) {
        switch (t.kind()) {
            case INT:
                if (!(v instanceof Integer)) return false;
                out.putInt((Integer) v);
                return true;
            case BIGINT:
                if (!(v instanceof Long)) return false;
                out.putLong((Long) v);
                return true;
            case SMALLINT:
                if (!(v instanceof Short)) return false;
                out.putShort((Short) v);
                return true;
            case TINYINT:
                if (!(v instanceof Byte)) return false;
                out.putByte((Byte) v);
                return true;
            case FLOAT:
                if (!(v instanceof Float)) return false;
                out.putInt(Float.floatToRawIntBits((Float) v));
                return true;
            case DOUBLE:
                if (!(v instanceof Double)) return false;
                out.putLong(Double.doubleToRawLongBits((Double) v));
                return true;
            case BOOLEAN:
                if (!(v instanceof Boolean)) return false;
                out.putByte(((Boolean) v) ? 1 : 0);
                return true;
            case TEXT:
                return v instanceof String && utf8((String) v, out);
            case ASCII:
                return v instanceof String && ascii((String) v, out);
            case UUID:
            case TIMEUUID: {
                if (!(v instanceof UUID)) return false;
                UUID u = (UUID) v;
                if (t.kind() == CqlType.Kind.TIMEUUID && u.version() != 1) return false;
                out.putLong(u.getMostSignificantBits());
                out.putLong(u.getLeastSignificantBits());
                return true;
            }
            case BLOB: {
                if (!(v instanceof ByteBuffer)) return false;
                ByteBuffer b = (ByteBuffer) v;
                int n = b.remaining();
                out.ensure(n);
                b.get(b.position(), out.array(), out.position(), n); // absolute: the buffer's position stays
                out.advance(n);
                return true;
            }
            case TIMESTAMP: {
                long millis;
                if (v instanceof Instant) {
                    Instant i = (Instant) v;
                    // toEpochMilli throws beyond the long range: leave that to the codec route's message
                    if (i.getEpochSecond() > Long.MAX_VALUE / 1000 - 1 || i.getEpochSecond() < Long.MIN_VALUE / 1000 + 1) return false;
                    millis = i.toEpochMilli();
                } else if (v instanceof Date) {
                    millis = ((Date) v).getTime();
                } else {
                    return false;
                }
                out.putLong(millis);
                return true;
            }
            case DATE: {
                if (!(v instanceof LocalDate)) return false;
                long days = ((LocalDate) v).toEpochDay();
                if (days < Integer.MIN_VALUE || days > Integer.MAX_VALUE) return false;
                out.putInt((int) (days - Integer.MIN_VALUE)); // the unsigned, shifted day number
                return true;
            }
            case TIME: {
                long nanos;
                if (v instanceof LocalTime) {
                    nanos = ((LocalTime) v).toNanoOfDay();
                } else if (v instanceof Long) {
                    nanos = (Long) v;
                    if (nanos < 0 || nanos >= NANOS_PER_DAY) return false;
                } else {
                    return false;
                }
                out.putLong(nanos);
                return true;
            }
            default:
                return false;
        }
    }

    /** UTF-8 of a string without unpaired-surrogate questions: false (nothing written) if it holds any surrogate. */
    private static boolean utf8(String s, ValueBuffer out) {
        int n = s.length();
        out.ensure(3 * n);
        byte[] a = out.array();
        int start = out.position(), p = start;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                a[p++] = (byte) c;
            } else if (c < 0x800) {
                a[p++] = (byte) (0xC0 | (c >> 6));
                a[p++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isSurrogate(c)) {
                return false; // pairs and strays: String.getBytes decides, on the codec route
            } else {
                a[p++] = (byte) (0xE0 | (c >> 12));
                a[p++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                a[p++] = (byte) (0x80 | (c & 0x3F));
            }
        }
        out.advance(p - start);
        return true;
    }

    private static boolean ascii(String s, ValueBuffer out) {
        int n = s.length();
        out.ensure(n);
        byte[] a = out.array();
        int p = out.position();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c > 0x7F) return false; // the codec route names the character
            a[p + i] = (byte) c;
        }
        out.advance(n);
        return true;
    }

    /**
     * A native value for ValueCodec: the literal text, but a float or double stays a Float or
     * Double, whose raw bits ValueCodec writes (a NaN keeps its sign and payload, as the driver
     * writes it; text would turn it into the canonical NaN).
     */
    private static Object nativeValue(CqlType t, Object v) {
        if (t.kind() == CqlType.Kind.FLOAT && v instanceof Float) return v;
        if (t.kind() == CqlType.Kind.DOUBLE && v instanceof Double) return v;
        return literal(t, v);
    }

    /** The literal text of a native value; REQUIRES: value != null. */
    private static String literal(CqlType t, Object v) {
        switch (t.kind()) {
            case ASCII:
            case TEXT:
                if (v instanceof String) return (String) v;
                throw wrongClass(t, v, "java.lang.String");
            case INT:
                if (v instanceof Integer) return v.toString();
                throw wrongClass(t, v, "java.lang.Integer");
            case BIGINT:
                if (v instanceof Long) return v.toString();
                throw wrongClass(t, v, "java.lang.Long");
            case SMALLINT:
                if (v instanceof Short) return v.toString();
                throw wrongClass(t, v, "java.lang.Short");
            case TINYINT:
                if (v instanceof Byte) return v.toString();
                throw wrongClass(t, v, "java.lang.Byte");
            case FLOAT:
                if (v instanceof Float) return Float.toString((Float) v); // NaN, Infinity and -0.0 parse back
                throw wrongClass(t, v, "java.lang.Float");
            case DOUBLE:
                if (v instanceof Double) return Double.toString((Double) v);
                throw wrongClass(t, v, "java.lang.Double");
            case BOOLEAN:
                if (v instanceof Boolean) return v.toString();
                throw wrongClass(t, v, "java.lang.Boolean");
            case VARINT:
                if (v instanceof BigInteger) return v.toString();
                throw wrongClass(t, v, "java.math.BigInteger");
            case DECIMAL:
                if (v instanceof BigDecimal) return v.toString(); // keeps unscaled digits and scale
                throw wrongClass(t, v, "java.math.BigDecimal");
            case UUID:
            case TIMEUUID:
                if (v instanceof UUID) return v.toString();
                throw wrongClass(t, v, "java.util.UUID");
            case INET:
                if (v instanceof InetAddress) {
                    String s = ((InetAddress) v).getHostAddress();
                    int scope = s.indexOf('%'); // an IPv6 scope is not part of the stored 16 bytes
                    return scope < 0 ? s : s.substring(0, scope);
                }
                throw wrongClass(t, v, "java.net.InetAddress");
            case BLOB:
                if (v instanceof ByteBuffer) {
                    ByteBuffer b = (ByteBuffer) v;
                    StringBuilder sb = new StringBuilder(2 + 2 * b.remaining()).append("0x");
                    for (int p = b.position(); p < b.limit(); p++) {
                        int x = b.get(p) & 0xFF;
                        sb.append(HEX[x >>> 4]).append(HEX[x & 0xF]);
                    }
                    return sb.toString();
                }
                throw wrongClass(t, v, "java.nio.ByteBuffer");
            case DATE:
                if (v instanceof LocalDate) {
                    long days = ((LocalDate) v).toEpochDay();
                    if (days < Integer.MIN_VALUE || days > Integer.MAX_VALUE) {
                        throw new ValueException(describe(v) + " is out of the date range");
                    }
                    return Long.toString(days - Integer.MIN_VALUE); // the unsigned, shifted day number
                }
                throw wrongClass(t, v, "java.time.LocalDate");
            case TIME:
                if (v instanceof LocalTime) return Long.toString(((LocalTime) v).toNanoOfDay());
                if (v instanceof Long) return v.toString();
                throw wrongClass(t, v, "java.time.LocalTime or java.lang.Long (nanoseconds since midnight)");
            case TIMESTAMP:
                if (v instanceof Instant) {
                    try {
                        return Long.toString(((Instant) v).toEpochMilli());
                    } catch (ArithmeticException e) {
                        throw new ValueException(describe(v) + " is out of the timestamp range");
                    }
                }
                if (v instanceof Date) return Long.toString(((Date) v).getTime());
                throw wrongClass(t, v, "java.time.Instant or java.util.Date");
            default:
                throw new ValueException("type " + t + " is not supported");
        }
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private static ValueException wrongClass(CqlType t, Object v, String expected) {
        return new ValueException(describe(v) + " is not a " + t + " value: expected " + expected);
    }

    /** The value, cut for a message, and its Java class. */
    public static String describe(Object v) {
        if (v == null) return "null";
        String s = v instanceof ByteBuffer ? "ByteBuffer of " + ((ByteBuffer) v).remaining() + " bytes" : String.valueOf(v);
        if (s.length() > ValueText.MAX_DISPLAY_CHARS) s = s.substring(0, ValueText.MAX_DISPLAY_CHARS) + "...";
        if (v instanceof String) s = "\"" + s + "\"";
        return s + " (" + v.getClass().getName() + ")";
    }
}

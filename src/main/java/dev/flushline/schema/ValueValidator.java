package dev.flushline.schema;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Checks that serialized bytes are a valid value of a CQL type, as Cassandra's type validators
 * do: fixed sizes, UTF-8 and ASCII text, time of day range, version-1 time UUIDs, inet lengths,
 * the length-prefixed layout of frozen collections, tuples and UDTs (recursively; a tuple or UDT
 * may hold fewer components than its type, never more), vectors (exactly their dimension),
 * durations (three vints of one sign) and counter contexts (a header, then whole shards). An
 * empty value is accepted for every type but a vector (Cassandra stores and reads it; its CQL
 * layer decides what it means; VectorType refuses it).
 *
 * <p>For {@code verify --extended}: allocates for text checks; not meant for hot paths.
 * Thread safety: stateless.
 */
public final class ValueValidator {
    private ValueValidator() {}

    private static final long NANOS_PER_DAY = 86_400_000_000_000L;

    /** Null if {@code b[off..off+len)} is a valid {@code type} value, else what is wrong with it. */
    public static String problem(CqlType type, byte[] b, int off, int len) {
        if (len == 0) return type.kind() == CqlType.Kind.VECTOR ? "empty " + type + " (a vector is never empty)" : null;
        switch (type.kind()) {
            case INT:
            case FLOAT: return exact(type, len, 4);
            case BIGINT:
            case TIMESTAMP:
            case DOUBLE: return exact(type, len, 8);
            case BOOLEAN: return exact(type, len, 1);
            case SMALLINT: return exact(type, len, 2);
            case TINYINT: return exact(type, len, 1);
            case DATE: return exact(type, len, 4);
            case UUID: return exact(type, len, 16);
            case TIMEUUID: {
                String p = exact(type, len, 16);
                if (p != null) return p;
                int version = (b[off + 6] >> 4) & 0x0F;
                return version == 1 ? null : "timeuuid of version " + version + " (must be 1)";
            }
            case TIME: {
                String p = exact(type, len, 8);
                if (p != null) return p;
                long nanos = CqlTypes.readLong(b, off);
                return nanos >= 0 && nanos < NANOS_PER_DAY ? null : "time " + nanos + " ns is outside one day";
            }
            case INET: return len == 4 || len == 16 ? null : "inet of " + len + " bytes (must be 4 or 16)";
            case DECIMAL: return len >= 4 ? null : "decimal of " + len + " bytes (needs a 4-byte scale)";
            case VARINT:
            case BLOB: return null;
            case ASCII:
                for (int i = off; i < off + len; i++) {
                    if (b[i] < 0) return "ascii byte 0x" + Integer.toHexString(b[i] & 0xFF) + " at value offset " + (i - off);
                }
                return null;
            case TEXT:
                try {
                    StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                            .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b, off, len));
                    return null;
                } catch (CharacterCodingException e) {
                    return "text that is not valid UTF-8";
                }
            case LIST:
            case SET:
            case MAP: return frozenCollection(type, b, off, len);
            case TUPLE:
            case UDT: return tuple(type, b, off, len);
            case VECTOR: return vector(type, b, off, len);
            case DURATION: return duration(b, off, len);
            case COUNTER: return counterContext(b, off, len);
            default: return "unsupported type " + type;
        }
    }

    private static String exact(CqlType type, int len, int expected) {
        return len == expected ? null : type + " of " + len + " bytes (must be " + expected + ")";
    }

    /** i32 count, then per element (map: key and value) i32 length + bytes; nothing after. */
    private static String frozenCollection(CqlType type, byte[] b, int off, int len) {
        if (len < 4) return type + " of " + len + " bytes has no element count";
        int n = CqlTypes.readInt(b, off);
        if (n < 0) return type + " with negative element count " + n;
        boolean map = type.kind() == CqlType.Kind.MAP;
        int p = off + 4, end = off + len;
        for (int i = 0; i < n; i++) {
            for (int part = 0; part < (map ? 2 : 1); part++) {
                if (end - p < 4) return type + " element " + i + " is truncated";
                int l = CqlTypes.readInt(b, p);
                p += 4;
                if (l < 0 || l > end - p) return type + " element " + i + " has length " + l + " beyond the value";
                String inner = problem(part == 0 ? type.elementType() : type.valueType(), b, p, l);
                if (inner != null) return type + " element " + i + ": " + inner;
                p += l;
            }
        }
        return p == end ? null : type + " has " + (end - p) + " bytes after its last element";
    }

    /** Per component: int32 length (negative = null), bytes; fewer components than the type is fine, more is not. */
    private static String tuple(CqlType type, byte[] b, int off, int len) {
        int p = off, end = off + len;
        String what = type.kind() == CqlType.Kind.UDT ? "field" : "component";
        for (int i = 0; i < type.size() && p < end; i++) {
            String name = type.kind() == CqlType.Kind.UDT ? " '" + type.fieldName(i) + "'" : "";
            if (end - p < 4) return type + " " + what + " " + i + name + " has a truncated length";
            int l = CqlTypes.readInt(b, p);
            p += 4;
            if (l < 0) continue;
            if (l > end - p) return type + " " + what + " " + i + name + " has length " + l + " beyond the value";
            String inner = problem(type.component(i), b, p, l);
            if (inner != null) return type + " " + what + " " + i + name + ": " + inner;
            p += l;
        }
        return p == end ? null : type + " has " + (end - p) + " bytes after its last " + what;
    }

    /** Fixed-length elements back to back, or per element an unsigned vint length and bytes; exactly the dimension. */
    private static String vector(CqlType type, byte[] b, int off, int len) {
        CqlType e = type.elementType();
        int n = type.dimension();
        if (e.fixedLength() > 0) {
            long expected = (long) e.fixedLength() * n;
            if (len != expected) return type + " of " + len + " bytes (must be " + expected + ")";
            for (int i = 0; i < n; i++) {
                String inner = problem(e, b, off + i * e.fixedLength(), e.fixedLength());
                if (inner != null) return type + " element " + i + ": " + inner;
            }
            return null;
        }
        int p = off, end = off + len;
        for (int i = 0; i < n; i++) {
            if (p >= end) return type + " has " + i + " elements, not " + n;
            int size = CqlTypes.sizeOfUnsignedVIntAt(b, p);
            if (size > end - p) return type + " element " + i + " has a truncated length";
            long l = CqlTypes.readUnsignedVInt(b, p);
            p += size;
            if (l > end - p) return type + " element " + i + " has length " + l + " beyond the value";
            String inner = problem(e, b, p, (int) l);
            if (inner != null) return type + " element " + i + ": " + inner;
            p += (int) l;
        }
        return p == end ? null : type + " has " + (end - p) + " bytes after its last element";
    }

    /**
     * DurationSerializer.validate: at least 3 bytes; months and days fit an int; all three of
     * one sign. Like Cassandra, bytes after the third vint are not looked at.
     */
    private static String duration(byte[] b, int off, int len) {
        if (len < 3) return "duration of " + len + " bytes (needs at least 3)";
        long[] v = new long[3];
        int p = off, end = off + len;
        for (int i = 0; i < 3; i++) {
            if (p >= end) return "duration truncated after " + i + " of its 3 numbers";
            int size = CqlTypes.sizeOfUnsignedVIntAt(b, p);
            if (size > end - p) return "duration truncated inside its number " + i;
            v[i] = CqlTypes.zigzagDecode(CqlTypes.readUnsignedVInt(b, p));
            p += size;
        }
        if ((int) v[0] != v[0]) return "duration months " + v[0] + " beyond 32 bits";
        if ((int) v[1] != v[1]) return "duration days " + v[1] + " beyond 32 bits";
        boolean allPositive = v[0] >= 0 && v[1] >= 0 && v[2] >= 0, allNegative = v[0] <= 0 && v[1] <= 0 && v[2] <= 0;
        return allPositive || allNegative ? null
                : "duration months, days and nanoseconds of mixed signs (" + v[0] + ", " + v[1] + ", " + v[2] + ")";
    }

    /** CounterContext.validateContext: after the header (int16 count, then count int16 indexes), whole 32-byte shards. */
    private static String counterContext(byte[] b, int off, int len) {
        if (len < 2) return "counter context of " + len + " bytes has no header";
        int count = Math.abs((short) (((b[off] & 0xFF) << 8) | (b[off + 1] & 0xFF)));
        int header = 2 + 2 * count;
        if (len < header) return "counter context of " + len + " bytes is shorter than its " + header + "-byte header";
        return (len - header) % 32 == 0 ? null
                : "counter context of " + len + " bytes: " + (len - header) + " bytes after the header are not whole 32-byte shards";
    }
}

package dev.flushline.schema;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Checks that serialized bytes are a valid value of a CQL type, as Cassandra's type validators
 * do: fixed sizes, UTF-8 and ASCII text, time of day range, version-1 time UUIDs, inet lengths,
 * and the length-prefixed layout of frozen collections (recursively). An empty value is accepted
 * for every type (Cassandra stores and reads it; its CQL layer decides what it means).
 *
 * <p>For {@code verify --extended}: allocates for text checks; not meant for hot paths.
 * Thread safety: stateless.
 */
public final class ValueValidator {
    private ValueValidator() {}

    private static final long NANOS_PER_DAY = 86_400_000_000_000L;

    /** Null if {@code b[off..off+len)} is a valid {@code type} value, else what is wrong with it. */
    public static String problem(CqlType type, byte[] b, int off, int len) {
        if (len == 0) return null;
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
}

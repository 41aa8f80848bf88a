package dev.flushline.io;

/**
 * Cassandra's variable-length integers, as in every sstable component and our commit log. This
 * is NOT protobuf/LEB128.
 *
 * <p>Unsigned layout of a 64-bit value {@code v} taken as unsigned:
 * <pre>
 *   size n = smallest n in 1..8 with v < 2^(7n), else 9
 *   n == 1      : [0vvvvvvv]
 *   2 <= n <= 8 : v as n big-endian bytes; the first byte's top (n-1) bits are set to 1 and the
 *                 next bit is 0 (so the count of leading 1-bits = number of extra bytes)
 *   n == 9      : [11111111] + v as 8 big-endian bytes
 * </pre>
 * Signed values are zig-zag mapped first: {@code (v << 1) ^ (v >> 63)}.
 *
 * <p>The "uvint32" variants take an {@code int} and widen it WITH sign extension, exactly like
 * Cassandra's {@code writeUnsignedVInt32}: a negative int therefore costs 9 bytes. Serializers that
 * mirror a Cassandra call site using the int variant must use {@link #putUnsignedInt32} and
 * {@link #sizeOfUnsignedInt32} so that both size and bytes agree with Cassandra.
 *
 * <p>Thread safety: stateless static methods.
 */
public final class VInt {
    private VInt() {}

    /** Largest encoded size of any vint, in bytes. */
    public static final int MAX_SIZE_BYTES = 9;
    /** First byte of every 9-byte vint: eight extra bytes follow. */
    private static final int NINE_BYTE_MARKER = 0xFF;
    /** Bits of payload per byte in the size rule {@code v < 2^(7n)}. */
    private static final int PAYLOAD_BITS_PER_BYTE = 7;

    /**
     * Encoded size by {@code Long.numberOfLeadingZeros(value)}: with b = 64 - zeros significant
     * bits, a value needs n bytes iff b <= 7n (n <= 8), else 9; so ceil(b / 7) clamped to 1..9.
     * A table, because this runs several times per cell and per mutation field, and the
     * division it replaces showed up at a third of the mutation serializer's profile.
     */
    private static final byte[] SIZE_BY_LEADING_ZEROS = new byte[65];

    static {
        for (int zeros = 0; zeros <= 64; zeros++) {
            int bits = 64 - zeros;
            int n = (bits + PAYLOAD_BITS_PER_BYTE - 1) / PAYLOAD_BITS_PER_BYTE;
            SIZE_BY_LEADING_ZEROS[zeros] = (byte) Math.max(1, Math.min(n, MAX_SIZE_BYTES));
        }
    }

    /** Bytes needed for {@code value} taken as an unsigned 64-bit number: 1..9. */
    public static int sizeOfUnsigned(long value) {
        return SIZE_BY_LEADING_ZEROS[Long.numberOfLeadingZeros(value)];
    }

    /** Bytes needed for the signed (zig-zag) encoding of {@code value}. */
    public static int sizeOfSigned(long value) {
        return sizeOfUnsigned(zigZag(value));
    }

    /** Size of Cassandra's uvint32: the int is sign-extended, so any negative int takes 9 bytes. */
    public static int sizeOfUnsignedInt32(int value) {
        return sizeOfUnsigned((long) value);
    }

    /** Size of Cassandra's signed vint32 (sign extension, then zig-zag). */
    public static int sizeOfSignedInt32(int value) {
        return sizeOfSigned((long) value);
    }

    public static long zigZag(long value) {
        return (value << 1) ^ (value >> 63);
    }

    public static long unZigZag(long encoded) {
        return (encoded >>> 1) ^ -(encoded & 1L);
    }

    /**
     * Writes {@code value} (unsigned) into {@code dst[offset..]} and returns the offset after it.
     * REQUIRES: {@code dst} has {@link #sizeOfUnsigned(long)} bytes free at {@code offset}; the
     * array bounds check is the only guard (callers such as {@link FixedBuffer} check their limit).
     */
    public static int putUnsigned(byte[] dst, int offset, long value) {
        return putUnsigned(dst, offset, value, sizeOfUnsigned(value));
    }

    /** As {@link #putUnsigned(byte[], int, long)} when the caller already has {@code sizeBytes = sizeOfUnsigned(value)}. */
    public static int putUnsigned(byte[] dst, int offset, long value, int sizeBytes) {
        if (sizeBytes == 1) {
            dst[offset] = (byte) value;
            return offset + 1;
        }
        if (sizeBytes == MAX_SIZE_BYTES) {
            dst[offset] = (byte) NINE_BYTE_MARKER;
            putLongBigEndian(dst, offset + 1, value);
            return offset + MAX_SIZE_BYTES;
        }
        // 2..8 bytes: the low sizeBytes bytes of value, big-endian, then the length prefix OR'ed
        // into the first byte. The size rule guarantees the prefix bits of value are zero.
        int last = offset + sizeBytes - 1;
        long remaining = value;
        for (int i = last; i > offset; i--) {
            dst[i] = (byte) remaining;
            remaining >>>= 8;
        }
        dst[offset] = (byte) (remaining | firstBytePrefix(sizeBytes - 1));
        return offset + sizeBytes;
    }

    public static int putSigned(byte[] dst, int offset, long value) {
        return putUnsigned(dst, offset, zigZag(value));
    }

    /** Cassandra's writeUnsignedVInt32: sign-extends {@code value} first (negative → 9 bytes). */
    public static int putUnsignedInt32(byte[] dst, int offset, int value) {
        return putUnsigned(dst, offset, (long) value);
    }

    /** Cassandra's writeVInt32: sign-extends, then zig-zag. */
    public static int putSignedInt32(byte[] dst, int offset, int value) {
        return putSigned(dst, offset, (long) value);
    }

    /** Number of bytes after the first byte, read from the count of leading 1-bits: 0..8. */
    public static int extraBytes(byte firstByte) {
        return Integer.numberOfLeadingZeros(~firstByte & 0xFF) - 24;
    }

    /** Total encoded size (1..9) of the vint whose first byte is {@code firstByte}. */
    public static int sizeFromFirstByte(byte firstByte) {
        return extraBytes(firstByte) + 1;
    }

    /** Decodes the unsigned vint at {@code src[offset..]}; use {@link #sizeFromFirstByte} to skip it. */
    public static long getUnsigned(byte[] src, int offset) {
        byte first = src[offset];
        int extra = extraBytes(first);
        // Keep only the payload bits of the first byte: below the prefix and its 0 terminator.
        // For extra == 8 the mask is 0 (shift by 9 clears all 8 bits).
        long value = first & (0xFF >>> (extra + 1));
        int end = offset + extra;
        for (int i = offset + 1; i <= end; i++) {
            value = (value << 8) | (src[i] & 0xFFL);
        }
        return value;
    }

    public static long getSigned(byte[] src, int offset) {
        return unZigZag(getUnsigned(src, offset));
    }

    /**
     * Decodes a uvint32 the way Cassandra's readers do: the 64-bit value is narrowed to int, so a
     * 9-byte sign-extended negative int round-trips. Throws if the value does not fit an int even
     * after sign extension (Cassandra throws VIntOutOfRangeException there).
     */
    public static int getUnsignedInt32(byte[] src, int offset) {
        long value = getUnsigned(src, offset);
        int narrowed = (int) value;
        if (narrowed != value) {
            throw new IllegalStateException("uvint32 out of int range: " + value + " at offset " + offset);
        }
        return narrowed;
    }

    /** Prefix of {@code extraBytes} one-bits at the top of the first byte (0x80, 0xC0, ... 0xFE). */
    private static int firstBytePrefix(int extraBytes) {
        return (0xFF << (8 - extraBytes)) & 0xFF;
    }

    private static void putLongBigEndian(byte[] dst, int offset, long value) {
        dst[offset] = (byte) (value >>> 56);
        dst[offset + 1] = (byte) (value >>> 48);
        dst[offset + 2] = (byte) (value >>> 40);
        dst[offset + 3] = (byte) (value >>> 32);
        dst[offset + 4] = (byte) (value >>> 24);
        dst[offset + 5] = (byte) (value >>> 16);
        dst[offset + 6] = (byte) (value >>> 8);
        dst[offset + 7] = (byte) value;
    }
}

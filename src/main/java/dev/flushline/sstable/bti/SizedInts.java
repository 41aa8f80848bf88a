package dev.flushline.sstable.bti;

/**
 * The variable-width integers of trie payloads (Partitions.db positions, Rows.db block offsets):
 * big-endian two's complement in the fewest bytes (1 to 8) that hold the value with its sign, the
 * width kept outside the value (in the node's payload flags).
 *
 * <pre>
 *   value v in n bytes:  the low n bytes of v, most significant first; read back sign-extended
 *   n = nonZeroSize(v) = ceil((significant bits of (v < 0 ? ~v : v) + 1) / 8), at least 1
 * </pre>
 *
 * <p>Thread safety: stateless.
 */
public final class SizedInts {
    private SizedInts() {}

    public static final int MAX_BYTES = 8;

    /** Bytes to hold {@code value} with its sign: 1 to 8 (0 takes one byte). */
    public static int nonZeroSize(long value) {
        long magnitude = value < 0 ? ~value : value;
        int significant = 64 - Long.numberOfLeadingZeros(magnitude);
        return (significant + 1 + 7) / 8;
    }

    /** The {@code width}-byte value at {@code at}, sign-extended. REQUIRES: width in 1..8 and the bytes in the array. */
    public static long read(byte[] b, int at, int width) {
        long v = b[at]; // sign-extends the most significant byte
        for (int i = 1; i < width; i++) v = (v << 8) | (b[at + i] & 0xFF);
        return v;
    }

    /** Writes the low {@code width} bytes of {@code value} at {@code at}, most significant first. */
    public static void write(byte[] b, int at, long value, int width) {
        for (int i = width - 1; i >= 0; i--) {
            b[at + i] = (byte) value;
            value >>= 8;
        }
    }
}

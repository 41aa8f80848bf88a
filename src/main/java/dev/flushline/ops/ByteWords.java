package dev.flushline.ops;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Eight bytes of a line at a time, for the readers' scans (line ends, ASCII runs, the end of a
 * string): a byte array read as little-endian longs, so that the lowest flagged byte of a mask is
 * the first in the line ({@code Long.numberOfTrailingZeros(mask) >>> 3}).
 *
 * <p>The masks set the high bit of each byte that matches. Each is exact for the lowest matching
 * byte: a borrow can mark bytes above a match, never below, and the callers only ever take the
 * lowest one (or whether there is one).
 */
final class ByteWords {
    private ByteWords() {}

    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    static final long LOW_BITS = 0x0101010101010101L, HIGH_BITS = 0x8080808080808080L;
    static final long NEWLINES = 0x0A0A0A0A0A0A0A0AL, CARRIAGE_RETURNS = 0x0D0D0D0D0D0D0D0DL, BACKSLASHES = 0x5C5C5C5C5C5C5C5CL, QUOTES = 0x2222222222222222L;
    /** Each byte 0x20: the bytes below it are JSON's control characters. */
    static final long SPACES = 0x2020202020202020L;

    /** {@code b[at, at + 8)} as a little-endian long. REQUIRES: at + 8 &lt;= b.length. */
    static long word(byte[] b, int at) {
        return (long) LONG_LE.get(b, at);
    }

    /** The bytes of {@code w} equal to the byte repeated in {@code pattern}. */
    static long bytesEqualTo(long w, long pattern) {
        long x = w ^ pattern;
        return (x - LOW_BITS) & ~x & HIGH_BITS;
    }

    /**
     * The bytes of {@code w} below the byte repeated in {@code bound} (at most 0x80): bytes with the
     * high bit set are never marked.
     */
    static long bytesBelow(long w, long bound) {
        return (w - bound) & ~w & HIGH_BITS;
    }

    /** The index within the word of the lowest marked byte of a non-zero mask. */
    static int firstMarked(long mask) {
        return Long.numberOfTrailingZeros(mask) >>> 3;
    }
}

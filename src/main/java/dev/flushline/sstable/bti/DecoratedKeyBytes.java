package dev.flushline.sstable.bti;

/**
 * The byte-comparable form of a partition key (its Murmur3 token, then its bytes), the key of
 * Partitions.db's trie: comparing two of them as unsigned bytes orders them as partitions are
 * ordered (token, then key bytes), and none is a prefix of another.
 *
 * <pre>
 *   NEXT_COMPONENT  token ^ SIGN_BIT: 8 bytes big-endian  NEXT_COMPONENT  escaped(key)  TERMINATOR
 *   0x40            (flipping the sign orders signed       0x40                           0x38
 *                    tokens as unsigned bytes)
 *
 *   escaped(key): each byte as is, except that after a 0x00 byte, the next byte is preceded by
 *                 ESCAPED_0_DONE (0xFF) if it is not 0x00, or replaced by ESCAPED_0_CONT (0xFE)
 *                 if it is; then ESCAPE (0x00) at the end, or ESCAPED_0_CONT if the key ends in 0x00.
 *   e.g. key 41 00 00 42 -> 41 00 FE FF 42 00;  key 41 00 -> 41 00 FE;  empty key -> 00
 * </pre>
 * This is version OSS50 of Cassandra's byte-comparable encoding, the one BTI tries are built with.
 *
 * <p>Thread safety: stateless.
 */
public final class DecoratedKeyBytes {
    private DecoratedKeyBytes() {}

    public static final int NEXT_COMPONENT = 0x40;
    public static final int TERMINATOR = 0x38;
    public static final int ESCAPE = 0x00;
    public static final int ESCAPED_0_CONT = 0xFE;
    public static final int ESCAPED_0_DONE = 0xFF;
    /** The token component: its marker and 8 bytes. */
    public static final int TOKEN_BYTES = 1 + Long.BYTES;

    /** The length of the form of a key of these bytes. */
    public static int length(byte[] key, int offset, int length) {
        int n = TOKEN_BYTES + 1 + length + 1 + 1;
        for (int i = offset + 1; i < offset + length; i++) {
            if (key[i - 1] == 0 && key[i] != 0) n++;
        }
        return n;
    }

    /**
     * Writes the form of the key {@code key[offset, offset + length)} of {@code token} at
     * {@code dst[0]} and returns its length. REQUIRES: {@link #length} bytes of room.
     */
    public static int encode(long token, byte[] key, int offset, int length, byte[] dst) {
        int p = putToken(token, dst);
        dst[p++] = (byte) NEXT_COMPONENT;
        boolean afterZero = false;
        for (int i = offset; i < offset + length; i++) {
            byte v = key[i];
            if (afterZero) {
                if (v == 0) {
                    dst[p++] = (byte) ESCAPED_0_CONT;
                    continue;
                }
                dst[p++] = (byte) ESCAPED_0_DONE;
            }
            dst[p++] = v;
            afterZero = v == 0;
        }
        dst[p++] = (byte) (afterZero ? ESCAPED_0_CONT : ESCAPE);
        dst[p++] = (byte) TERMINATOR;
        return p;
    }

    /**
     * One more than the bytes the forms of two keys of tokens {@code a} and {@code b} share: the
     * marker and the tokens' equal leading bytes. REQUIRES: a != b (the forms then differ within
     * the token component, so this is where the whole forms first differ, plus one).
     */
    public static int tokenDiffPoint(long a, long b) {
        // Flipping both signs leaves a ^ b as it is.
        return 1 + (Long.numberOfLeadingZeros(a ^ b) >>> 3) + 1;
    }

    /** Writes the token component ({@link #TOKEN_BYTES}) at {@code dst[0]}; every key of that token starts with it. */
    public static int putToken(long token, byte[] dst) {
        dst[0] = (byte) NEXT_COMPONENT;
        long v = token ^ Long.MIN_VALUE;
        for (int i = 0; i < Long.BYTES; i++) dst[1 + i] = (byte) (v >>> (56 - 8 * i));
        return TOKEN_BYTES;
    }
}

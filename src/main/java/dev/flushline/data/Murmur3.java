package dev.flushline.data;

/** Placeholder until the Murmur3 implementation lands (owned by the metadata work tree). */
public final class Murmur3 {
    private Murmur3() {}

    public static long token(byte[] key, int offset, int length) {
        throw new UnsupportedOperationException("TODO(meta helper)");
    }
}

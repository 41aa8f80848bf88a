package dev.flushline.data;

/**
 * Cassandra's variants of MurmurHash: the x64_128 hash behind Murmur3Partitioner tokens and the
 * bloom filter, and the 64-bit MurmurHash64A behind the HyperLogLog cardinality estimate.
 *
 * <p>Both differ from the reference algorithms only in the tail: each trailing byte is read as a
 * signed Java byte and sign-extended before it is shifted into place. Keys whose tail bytes are all
 * below 0x80 hash as in the reference. This is on-disk behaviour (tokens order the sstable, the
 * bloom filter indexes come from it), so it must stay bit-for-bit.
 *
 * <p>Stateless and allocation-free; safe from any thread. {@code hash128} writes into a caller's
 * array so the per-key path never allocates.
 */
public final class Murmur3 {
    private static final long C1 = 0x87c37b91114253d5L;
    private static final long C2 = 0x4cf5ad432745937fL;
    private static final long M64 = 0xc6a4a7935bd1e995L;
    private static final int R64 = 47;
    private static final int BLOCK_BYTES = 16;

    private Murmur3() {
    }

    /**
     * Murmur3Partitioner token. An empty key is the partitioner's minimum token (Long.MIN_VALUE);
     * a non-empty key hashing to Long.MIN_VALUE is moved to Long.MAX_VALUE, because MIN_VALUE is
     * reserved for that minimum.
     */
    public static long token(byte[] key, int offset, int length) {
        if (length == 0) {
            return Long.MIN_VALUE;
        }
        return tokenOfHash(hash128H1(key, offset, length), length);
    }

    /**
     * The token of a key whose {@link #hash128} h1 is already known (the flush hashes each key
     * once, for both its token and the bloom filter).
     */
    public static long tokenOfHash(long h1, int keyLength) {
        if (keyLength == 0) {
            return Long.MIN_VALUE;
        }
        return h1 == Long.MIN_VALUE ? Long.MAX_VALUE : h1;
    }

    /** Writes h1 into out[0] and h2 into out[1]; seed 0. */
    public static void hash128(byte[] key, int offset, int length, long[] out) {
        long h1 = 0;
        long h2 = 0;
        int blocks = length >>> 4;
        int p = offset;
        for (int i = 0; i < blocks; i++, p += BLOCK_BYTES) {
            long k1 = readLongLE(key, p);
            long k2 = readLongLE(key, p + 8);
            h1 ^= mixK1(k1);
            h1 = Long.rotateLeft(h1, 27) + h2;
            h1 = h1 * 5 + 0x52dce729;
            h2 ^= mixK2(k2);
            h2 = Long.rotateLeft(h2, 31) + h1;
            h2 = h2 * 5 + 0x38495ab5;
        }
        int tail = length & 15;
        if (tail > 8) {
            long k2 = 0;
            for (int i = tail - 1; i >= 8; i--) {
                k2 ^= ((long) key[p + i]) << ((i - 8) << 3); // sign-extended on purpose
            }
            h2 ^= mixK2(k2);
        }
        if (tail > 0) {
            long k1 = 0;
            for (int i = Math.min(tail, 8) - 1; i >= 0; i--) {
                k1 ^= ((long) key[p + i]) << (i << 3); // sign-extended on purpose
            }
            h1 ^= mixK1(k1);
        }
        h1 ^= length;
        h2 ^= length;
        h1 += h2;
        h2 += h1;
        h1 = fmix(h1);
        h2 = fmix(h2);
        h1 += h2;
        h2 += h1;
        out[0] = h1;
        out[1] = h2;
    }

    /** Cassandra's MurmurHash64A ({@code MurmurHash.hash2_64}); only the low 32 bits of seed count. */
    public static long hash2_64(byte[] key, int offset, int length, long seed) {
        long h = (seed & 0xffffffffL) ^ (M64 * length);
        int words = length >>> 3;
        int p = offset;
        for (int i = 0; i < words; i++, p += 8) {
            long k = readLongLE(key, p);
            k *= M64;
            k ^= k >>> R64;
            k *= M64;
            h ^= k;
            h *= M64;
        }
        int rem = length & 7;
        if (rem != 0) {
            for (int i = rem - 1; i >= 0; i--) {
                h ^= ((long) key[p + i]) << (i << 3); // sign-extended on purpose
            }
            h *= M64;
        }
        h ^= h >>> R64;
        h *= M64;
        h ^= h >>> R64;
        return h;
    }

    // token() needs only h1; duplicating the loop keeps it free of a scratch array.
    private static long hash128H1(byte[] key, int offset, int length) {
        long h1 = 0;
        long h2 = 0;
        int blocks = length >>> 4;
        int p = offset;
        for (int i = 0; i < blocks; i++, p += BLOCK_BYTES) {
            h1 ^= mixK1(readLongLE(key, p));
            h1 = Long.rotateLeft(h1, 27) + h2;
            h1 = h1 * 5 + 0x52dce729;
            h2 ^= mixK2(readLongLE(key, p + 8));
            h2 = Long.rotateLeft(h2, 31) + h1;
            h2 = h2 * 5 + 0x38495ab5;
        }
        int tail = length & 15;
        if (tail > 8) {
            long k2 = 0;
            for (int i = tail - 1; i >= 8; i--) {
                k2 ^= ((long) key[p + i]) << ((i - 8) << 3);
            }
            h2 ^= mixK2(k2);
        }
        if (tail > 0) {
            long k1 = 0;
            for (int i = Math.min(tail, 8) - 1; i >= 0; i--) {
                k1 ^= ((long) key[p + i]) << (i << 3);
            }
            h1 ^= mixK1(k1);
        }
        h1 ^= length;
        h2 ^= length;
        h1 += h2;
        h2 += h1;
        h1 = fmix(h1);
        h2 = fmix(h2);
        return h1 + h2;
    }

    private static long mixK1(long k1) {
        k1 *= C1;
        k1 = Long.rotateLeft(k1, 31);
        return k1 * C2;
    }

    private static long mixK2(long k2) {
        k2 *= C2;
        k2 = Long.rotateLeft(k2, 33);
        return k2 * C1;
    }

    private static long fmix(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        k *= 0xc4ceb9fe1a85ec53L;
        k ^= k >>> 33;
        return k;
    }

    private static long readLongLE(byte[] b, int p) {
        return (b[p] & 0xffL)
                | (b[p + 1] & 0xffL) << 8
                | (b[p + 2] & 0xffL) << 16
                | (b[p + 3] & 0xffL) << 24
                | (b[p + 4] & 0xffL) << 32
                | (b[p + 5] & 0xffL) << 40
                | (b[p + 6] & 0xffL) << 48
                | (b[p + 7] & 0xffL) << 56;
    }
}

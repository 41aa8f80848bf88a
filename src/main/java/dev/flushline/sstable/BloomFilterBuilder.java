package dev.flushline.sstable;

import dev.flushline.io.NativeMemory;

import dev.flushline.data.Murmur3;

import java.io.DataOutput;
import java.io.IOException;

/**
 * Builds Filter.db (oa "new" bloom filter format) bit-for-bit as Cassandra 5.0.9 would for the
 * same fp chance, expected key count and keys. Every sstable format writes the same filter; its
 * layout lives here, for this builder and the verifier's reader.
 *
 * <pre>
 *   hash_count:i32  word_count:i32  word_count x 8 bytes of bitset
 * </pre>
 * Bit b is bit (b &amp; 7) of byte (b &gt;&gt; 3), bytes ascending. Held here as long words with bit b at
 * bit (b &amp; 63) of word b &gt;&gt; 6, so each word is written little-endian.
 *
 * <p>Per key: (h1, h2) = Murmur3.hash128(key); index_i = |(h2 + i * h1) % bitCapacity| for
 * i in [0, hashCount), signed 64-bit wrap-around, where bitCapacity = word_count * 64 (not the
 * requested bit count).
 *
 * <p>The expected key count is the writer's choice (a memtable flush passes its partition count);
 * it fixes the size before any key arrives. Not thread-safe; {@link #add} does not allocate.
 *
 * <p>The bitset lives off heap (as Cassandra keeps its filters): a flush of N keys needs about
 * 1.25 N bytes of bits, which on heap would dominate the flush's allocation. REQUIRES: {@link
 * #close()} once done (idempotent), after which the builder must not be used.
 */
public final class BloomFilterBuilder implements AutoCloseable {
    /** hash_count and word_count: the bits start after them. */
    static final int HEADER_BYTES = 4 + 4;
    static final int WORD_BYTES = 8;

    private final int hashCount;
    /** Native address of wordCount 64-bit words, bit b at bit (b & 63) of word b >> 6; 0 once closed. */
    private long wordsAddress;
    private final int wordCount;
    private final long bitCapacity;
    private final long[] hashScratch = new long[2];

    /** REQUIRES: fpChance in (0, 1); 1.0 means no Filter.db (see {@link #isFilterWritten}). */
    public BloomFilterBuilder(long expectedKeys, double fpChance) {
        if (!isFilterWritten(fpChance)) {
            throw new IllegalArgumentException("fp chance " + fpChance + " writes no bloom filter");
        }
        int[] spec = BloomCalculations.spec(expectedKeys, fpChance);
        long wordCount = BloomCalculations.wordCount(expectedKeys, spec[1]);
        if (wordCount > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("bloom filter too large: " + wordCount + " words");
        }
        this.hashCount = spec[0];
        this.wordCount = (int) wordCount;
        this.wordsAddress = NativeMemory.allocate(wordCount * WORD_BYTES);
        for (long i = 0; i < wordCount; i++) NativeMemory.putLong(wordsAddress + i * WORD_BYTES, 0L);
        this.bitCapacity = wordCount * 64;
    }

    /** Cassandra writes no filter (and uses an always-present one) for fp chance 1.0. */
    public static boolean isFilterWritten(double fpChance) {
        return fpChance < 1.0;
    }

    public void add(byte[] key, int offset, int length) {
        final long[] hash = hashScratch;
        Murmur3.hash128(key, offset, length, hash);
        addHashed(hash[0], hash[1]);
    }

    /** For callers that already hashed the key for its token: h1, h2 as from Murmur3.hash128. */
    public void addHashed(long h1, long h2) {
        final long address = wordsAddress;
        final long capacity = bitCapacity;
        long base = h2;
        for (int i = 0; i < hashCount; i++) {
            long bit = Math.abs(base % capacity); // |x % cap| < cap, never MIN_VALUE
            long word = address + (bit >>> 6) * WORD_BYTES;
            NativeMemory.putLong(word, NativeMemory.getLong(word) | (1L << bit)); // shift uses bit & 63
            base += h1;
        }
    }

    public boolean mightContain(byte[] key, int offset, int length) {
        final long[] hash = hashScratch;
        Murmur3.hash128(key, offset, length, hash);
        long base = hash[1];
        for (int i = 0; i < hashCount; i++) {
            long bit = Math.abs(base % bitCapacity);
            if ((NativeMemory.getLong(wordsAddress + (bit >>> 6) * WORD_BYTES) & (1L << bit)) == 0) {
                return false;
            }
            base += hash[0];
        }
        return true;
    }

    public int hashCount() {
        return hashCount;
    }

    public int wordCount() {
        return wordCount;
    }

    public long serializedSize() {
        return HEADER_BYTES + (long) wordCount * WORD_BYTES;
    }

    public void serialize(DataOutput out) throws IOException {
        out.writeInt(hashCount);
        out.writeInt(wordCount);
        for (long i = 0; i < wordCount; i++) {
            // DataOutput is big-endian; the bitset is LSB-first bytes
            out.writeLong(Long.reverseBytes(NativeMemory.getLong(wordsAddress + i * WORD_BYTES)));
        }
    }

    /** Frees the native bitset. Idempotent. */
    @Override
    public void close() {
        if (wordsAddress != 0) {
            NativeMemory.free(wordsAddress, (long) wordCount * WORD_BYTES);
            wordsAddress = 0;
        }
    }
}

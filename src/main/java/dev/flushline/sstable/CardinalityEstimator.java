package dev.flushline.sstable;

import dev.flushline.data.Murmur3;

import java.io.DataOutput;
import java.io.IOException;
import java.util.Arrays;

/**
 * The partition-key cardinality sketch stored in the COMPACTION component of Statistics.db: a
 * HyperLogLog++ with p=13, sp=25 whose serialized form is byte-identical to stream-lib 2.5.2
 * {@code new HyperLogLogPlus(13, 25)} fed the same {@code offerHashed} sequence and then asked
 * for {@code getBytes()}. Cassandra reads those bytes back with stream-lib, so every quirk of
 * that implementation that shows in the bytes is reproduced on purpose:
 * <ul>
 *   <li>sparse entries first go to a temporary list; once it holds {@link #TMP_CAPACITY} entries it
 *       is sorted (by sparse index, then by encoded run length) and merged into the sparse list;</li>
 *   <li>the merge walks both lists comparing raw encoded ints as SIGNED values when the sparse
 *       indexes differ, so the sparse list is not strictly index-ordered; its order (and thus the
 *       deltas written) depends on the exact merge history;</li>
 *   <li>after a merge leaves more than {@link #SPARSE_THRESHOLD} entries the sketch turns into
 *       5-bit registers packed 6 per int; serialization merges once more but never converts;</li>
 *   <li>a register update compares the unmasked {@code value << shift} (int, widened to long), so
 *       a run length that does not fit 5 bits is handled exactly as stream-lib handles it.</li>
 * </ul>
 *
 * <p>Not thread-safe: one flush writer owns it. All buffers are allocated in the constructor, so
 * {@link #offerHashed} never allocates. Serialization merges pending entries (as stream-lib's
 * getBytes does); serializing twice gives the same bytes, as Cassandra itself calls getBytes twice.
 */
public final class CardinalityEstimator {
    // Layout and parameters, all fixed by stream-lib's HyperLogLogPlus(13, 25).
    private static final int P = 13;
    private static final int SP = 25;
    private static final int REGISTER_COUNT = 1 << P;                     // m = 8192
    private static final int SPARSE_THRESHOLD = REGISTER_COUNT * 3 / 4;   // (int)(m * 0.75) = 6144
    private static final int SORT_THRESHOLD = SPARSE_THRESHOLD / 4;       // 1536
    private static final int TMP_CAPACITY = SORT_THRESHOLD + 1;           // merge when full: 1537
    private static final int MAX_SPARSE_LENGTH = SPARSE_THRESHOLD + TMP_CAPACITY;
    private static final int REGISTER_BITS = 5;
    private static final int REGISTERS_PER_WORD = 6;
    // stream-lib: count / 6, plus one word unless that is a multiple of 32 (1365 -> 1366).
    private static final int REGISTER_WORDS = registerWords(REGISTER_COUNT);
    private static final int REGISTER_MASK = 0x1f;
    private static final int VERSION_MARKER = -2;
    private static final int FORMAT_NORMAL = 0;
    private static final int FORMAT_SPARSE = 1;
    private static final int SPARSE_TAIL_BITS = SP - P;                   // 12
    private static final int INDEX_SHIFT_LONG = 64 - SP;                  // 39
    private static final int ENCODED_HASH_SHIFT = P + (31 - SP);          // 19

    private final int[] tmp = new int[TMP_CAPACITY];
    private final int[] sortScratch = new int[TMP_CAPACITY];
    private final int[] radixCounts = new int[257];
    private int tmpLength;
    // Sparse list double buffer: a merge reads `sparse` and writes `sparseNext`, then they swap.
    private int[] sparse = new int[MAX_SPARSE_LENGTH];
    private int[] sparseNext = new int[MAX_SPARSE_LENGTH];
    private int sparseLength;
    // Allocated up front (as stream-lib does) so the switch to registers never allocates.
    private final int[] registers = new int[REGISTER_WORDS];
    private boolean sparseFormat = true;

    public void offerKey(byte[] key, int offset, int length) {
        offerHashed(Murmur3.hash2_64(key, offset, length, 0));
    }

    public void offerHashed(long hash) {
        if (!sparseFormat) {
            int index = (int) (hash >>> (64 - P));
            updateIfGreater(index, runLength(hash));
            return;
        }
        tmp[tmpLength++] = encodeSparse(hash);
        if (tmpLength == TMP_CAPACITY) {
            mergeTmp();
            if (sparseLength > SPARSE_THRESHOLD) {
                convertToNormal();
            }
        }
    }

    /** Size of {@link #serialize}'s output. Merges pending sparse entries (as serialization does). */
    public int serializedSize() {
        if (!sparseFormat) {
            return 4 + 3 + varIntSize(REGISTER_WORDS * 4) + REGISTER_WORDS * 4;
        }
        mergeTmp();
        int size = 4 + 3 + varIntSize(sparseLength);
        int previous = 0;
        for (int i = 0; i < sparseLength; i++) {
            int k = sparse[i];
            size += varIntSize(k - previous);
            previous = k;
        }
        return size;
    }

    /** stream-lib getBytes() layout: i32 -2, varint p, varint sp, varint format, body. */
    public void serialize(DataOutput out) throws IOException {
        out.writeInt(VERSION_MARKER);
        writeVarInt(out, P);
        writeVarInt(out, SP);
        if (!sparseFormat) {
            writeVarInt(out, FORMAT_NORMAL);
            writeVarInt(out, REGISTER_WORDS * 4);
            for (int i = 0; i < REGISTER_WORDS; i++) {
                out.writeInt(registers[i]);
            }
            return;
        }
        writeVarInt(out, FORMAT_SPARSE);
        mergeTmp();
        writeVarInt(out, sparseLength);
        int previous = 0;
        for (int i = 0; i < sparseLength; i++) {
            int k = sparse[i];
            writeVarInt(out, k - previous);
            previous = k;
        }
    }

    /** COMPACTION component body: i32 length, then the {@link #serialize} bytes. */
    public int compactionComponentSize() {
        return 4 + serializedSize();
    }

    public void serializeCompactionComponent(DataOutput out) throws IOException {
        out.writeInt(serializedSize());
        serialize(out);
    }

    private static int runLength(long hash) {
        return Long.numberOfLeadingZeros((hash << P) | (1 << (P - 1))) + 1;
    }

    // Sparse encoding: 25-bit index; if its last 12 bits are zero the run length is kept too,
    // inverted (^63) in 6 bits, with flag bit 1. Otherwise index << 1 with flag bit 0.
    private static int encodeSparse(long hash) {
        int index = (int) (hash >>> INDEX_SHIFT_LONG);
        if ((index << (32 - SPARSE_TAIL_BITS)) == 0) {
            int inverted = runLength(hash) ^ 63;
            return (((index << 6) | inverted) << 1) | 1;
        }
        return index << 1;
    }

    private static int sparseIndex(int k) {
        return (k & 1) == 1 ? k >>> 7 : k >>> 1;
    }

    private static int decodeRunLength(int k) {
        if ((k & 1) == 1) {
            return ((k >>> 1) & 63) ^ 63;
        }
        return Integer.numberOfLeadingZeros(k << ENCODED_HASH_SHIFT) + 1;
    }

    // stream-lib sorts by (sparse index, k << 19). Entries sharing an index share the flag, and
    // flagged ones then differ only in the run-length bits, so the order equals the unsigned order
    // of `index << 7 | (k & 0x7f when flagged)`; unflagged k maps to k << 6 (index << 7).
    private static int sortKey(int k) {
        return (k & 1) == 1 ? k : k << 6;
    }

    private static int fromSortKey(int key) {
        return (key & 1) == 1 ? key : key >>> 6;
    }

    private void mergeTmp() {
        int tmpCount = tmpLength;
        if (tmpCount == 0) {
            return;
        }
        sortTmp(tmpCount);
        final int[] set = sparse;
        final int[] t = tmp;
        final int[] merged = sparseNext;
        final int setCount = sparseLength;
        int si = 0;
        int ti = 0;
        int n = 0;
        // Mirrors stream-lib's merge(): equal indexes keep the signed min and drop the later tmp
        // duplicates; otherwise the smaller RAW (signed) value goes first.
        while (si < setCount || ti < tmpCount) {
            if (si >= setCount) {
                int tv = t[ti++];
                merged[n++] = tv;
                ti = skipSameIndex(t, tmpCount, sparseIndex(tv), ti);
            } else if (ti >= tmpCount) {
                merged[n++] = set[si++];
            } else {
                int sv = set[si];
                int tv = t[ti];
                if (sparseIndex(sv) == sparseIndex(tv)) {
                    merged[n++] = Math.min(sv, tv);
                    ti = skipSameIndex(t, tmpCount, sparseIndex(tv), ti + 1);
                    si++;
                } else if (sv < tv) {
                    merged[n++] = sv;
                    si++;
                } else {
                    merged[n++] = tv;
                    ti = skipSameIndex(t, tmpCount, sparseIndex(tv), ti + 1);
                }
            }
        }
        sparseNext = set;
        sparse = merged;
        sparseLength = n;
        tmpLength = 0;
    }

    private static int skipSameIndex(int[] t, int count, int index, int from) {
        int i = from;
        while (i < count && sparseIndex(t[i]) == index) {
            i++;
        }
        return i;
    }

    // LSD radix sort of tmp[0..count) by unsigned sortKey, 4 passes of 8 bits; allocation-free.
    private void sortTmp(int count) {
        int[] a = tmp;
        int[] b = sortScratch;
        for (int i = 0; i < count; i++) {
            a[i] = sortKey(a[i]);
        }
        final int[] counts = radixCounts;
        for (int shift = 0; shift < 32; shift += 8) {
            Arrays.fill(counts, 0);
            for (int i = 0; i < count; i++) {
                counts[((a[i] >>> shift) & 0xff) + 1]++;
            }
            for (int d = 0; d < 256; d++) {
                counts[d + 1] += counts[d];
            }
            for (int i = 0; i < count; i++) {
                int v = a[i];
                b[counts[(v >>> shift) & 0xff]++] = v;
            }
            int[] swap = a;
            a = b;
            b = swap;
        }
        // An even number of passes leaves the result back in tmp.
        for (int i = 0; i < count; i++) {
            a[i] = fromSortKey(a[i]);
        }
    }

    private void convertToNormal() {
        final int[] set = sparse;
        for (int i = 0; i < sparseLength; i++) {
            int k = set[i];
            updateIfGreater(sparseIndex(k) >>> SPARSE_TAIL_BITS, decodeRunLength(k));
        }
        sparseFormat = false;
        sparse = null;
        sparseNext = null;
        sparseLength = 0;
    }

    // Same arithmetic as stream-lib RegisterSet.updateIfGreater, overflow behaviour included.
    private void updateIfGreater(int position, int value) {
        int word = position / REGISTERS_PER_WORD;
        int shift = REGISTER_BITS * (position - word * REGISTERS_PER_WORD);
        int mask = REGISTER_MASK << shift;
        long current = registers[word] & mask;
        long candidate = value << shift;
        if (current < candidate) {
            registers[word] = (int) ((registers[word] & ~mask) | candidate);
        }
    }

    private static int registerWords(int count) {
        int words = count / REGISTERS_PER_WORD;
        if (words == 0) {
            return 1;
        }
        return words % Integer.SIZE == 0 ? words : words + 1;
    }

    // stream-lib Varint.writeUnsignedVarInt: 7 bits per byte, low first, high bit = more.
    private static void writeVarInt(DataOutput out, int value) throws IOException {
        while ((value & 0xFFFFFF80) != 0) {
            out.writeByte((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        out.writeByte(value & 0x7F);
    }

    private static int varIntSize(int value) {
        int bits = 32 - Integer.numberOfLeadingZeros(value);
        return bits <= 7 ? 1 : (bits + 6) / 7;
    }
}

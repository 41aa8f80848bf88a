package dev.flushline.memtable;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The partitions of a {@link HashMemtable} in the order they were created, with their tokens
 * beside them, sorted into token order once when a flush first walks them.
 *
 * <p>Why a log: a hash table finds a partition in about one cache miss, but has no order; a
 * flush needs token order. Keeping each partition's token in a dense array means the sort reads
 * contiguous longs instead of chasing every partition's key object, and walking the sorted log
 * reads the partitions through one sequential array.
 *
 * <p>Layout: entry {@code i} lives in chunk {@code i >>> CHUNK_SHIFT} at slot
 * {@code i & CHUNK_MASK}; a chunk is a {@code long[CHUNK]} of tokens and a parallel
 * {@code MemtablePartition[CHUNK]}. The chunk directory grows by doubling.
 *
 * <p>Order: by token as a signed long, then by key bytes unsigned ({@code PartitionKey}'s order,
 * which the skip-list memtables keep and a flush must write). The sort is in place: a log of
 * {@link #RADIX_MIN} entries or more is first split by the top byte of the token (one counting
 * pass, then each entry swapped once into its bucket: an American flag sort), which Murmur3's
 * uniform tokens cut into 256 buckets of about n/256; each bucket, and a short log, is then sorted
 * by introsort (quicksort, heapsort past a depth limit, insertion sort for short runs). The
 * split takes about eight of the eighteen rounds of comparisons an introsort of 260,000 entries
 * makes. Sorting allocates three int[256].
 *
 * <p>Thread safety: {@link #append} may run on any number of threads: each claims its index with
 * one atomic increment and writes its slot with plain stores; a new chunk is installed under the
 * log's monitor. The sort and the readers need those stores visible: REQUIRES that they run
 * after every append has happened-before them (the memtable's seal waits for every writer to
 * leave, which orders them), or on the appending thread itself.
 */
final class TokenLog {
    static final int CHUNK_SHIFT = 10;
    static final int CHUNK = 1 << CHUNK_SHIFT;
    static final int CHUNK_MASK = CHUNK - 1;
    /** Below this many entries a range is insertion-sorted. */
    private static final int INSERTION_SORT_MAX = 16;
    /** Logs at least this long are split by the token's top byte before they are sorted. */
    static final int RADIX_MIN = 4096;

    private static final class Chunk {
        final long[] tokens = new long[CHUNK];
        final MemtablePartition[] partitions = new MemtablePartition[CHUNK];
    }

    private final AtomicInteger size = new AtomicInteger();
    /** Replaced (never changed in place) when it grows, so a reader sees a whole directory. */
    private volatile Chunk[] chunks = new Chunk[4];

    /** Entries appended so far (every append that returned, and any in progress). */
    int size() {
        return size.get();
    }

    /** Appends a partition created with {@code token}. */
    void append(long token, MemtablePartition p) {
        int i = size.getAndIncrement();
        if (i < 0) throw new IllegalStateException("memtable holds more than " + Integer.MAX_VALUE + " partitions");
        Chunk c = chunkFor(i >>> CHUNK_SHIFT);
        c.tokens[i & CHUNK_MASK] = token;
        c.partitions[i & CHUNK_MASK] = p;
    }

    private Chunk chunkFor(int index) {
        Chunk[] cs = chunks;
        if (index < cs.length) {
            Chunk c = cs[index];
            if (c != null) return c;
        }
        synchronized (this) {
            cs = chunks;
            if (index >= cs.length) {
                int length = cs.length;
                while (length <= index) length <<= 1;
                cs = Arrays.copyOf(cs, length);
            }
            Chunk c = cs[index];
            if (c == null) {
                c = new Chunk();
                cs[index] = c;
            }
            chunks = cs; // publishes the directory (and the chunk) to the next reader of the volatile
            return c;
        }
    }

    long token(int i) {
        return chunks[i >>> CHUNK_SHIFT].tokens[i & CHUNK_MASK];
    }

    MemtablePartition partition(int i) {
        return chunks[i >>> CHUNK_SHIFT].partitions[i & CHUNK_MASK];
    }

    /** The first index in [0, n) whose token is at least {@code token}; n if none. REQUIRES: sorted. */
    int lowerBound(long token, int n) {
        int lo = 0, hi = n;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (token(mid) < token) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }

    /** Sorts entries [0, n) into token order, then key order. */
    void sort(int n) {
        if (n < RADIX_MIN) {
            introsort(0, n - 1, depthLimit(n));
            return;
        }
        int[] count = new int[256], next = new int[256], end = new int[256];
        for (int i = 0; i < n; i++) count[bucket(token(i))]++;
        for (int b = 0, at = 0; b < 256; b++) {
            next[b] = at;
            at += count[b];
            end[b] = at;
        }
        // Each swap puts the entry at next[d] into bucket d for good, so there are at most n swaps.
        for (int b = 0; b < 256; b++) {
            while (next[b] < end[b]) {
                int i = next[b];
                int d = bucket(token(i));
                if (d == b) next[b]++;
                else swap(i, next[d]++);
            }
        }
        for (int b = 0, lo = 0; b < 256; b++) {
            int hi = end[b];
            if (hi - lo > 1) introsort(lo, hi - 1, depthLimit(hi - lo));
            lo = hi;
        }
    }

    /** The top byte of a token, in the order of the signed token: bucket 0 holds the most negative. */
    private static int bucket(long token) {
        return (int) (token >>> 56) ^ 0x80;
    }

    private static int depthLimit(int n) {
        return 2 * (32 - Integer.numberOfLeadingZeros(Math.max(n, 1)));
    }

    private int compare(int i, int j) {
        int c = Long.compare(token(i), token(j));
        if (c != 0) return c;
        return Arrays.compareUnsigned(partition(i).key().key(), partition(j).key().key());
    }

    private void swap(int i, int j) {
        Chunk ci = chunks[i >>> CHUNK_SHIFT], cj = chunks[j >>> CHUNK_SHIFT];
        int si = i & CHUNK_MASK, sj = j & CHUNK_MASK;
        long t = ci.tokens[si];
        ci.tokens[si] = cj.tokens[sj];
        cj.tokens[sj] = t;
        MemtablePartition p = ci.partitions[si];
        ci.partitions[si] = cj.partitions[sj];
        cj.partitions[sj] = p;
    }

    /** Sorts [lo, hi] (inclusive). Recurses on the smaller side only, so the stack stays O(log n). */
    private void introsort(int lo, int hi, int depthLimit) {
        while (hi - lo >= INSERTION_SORT_MAX) {
            if (depthLimit-- == 0) {
                heapsort(lo, hi);
                return;
            }
            int p = partition(lo, hi);
            if (p - lo < hi - p) {
                introsort(lo, p - 1, depthLimit);
                lo = p + 1;
            } else {
                introsort(p + 1, hi, depthLimit);
                hi = p - 1;
            }
        }
        insertionSort(lo, hi);
    }

    /** Median-of-three pivot moved to hi; returns the pivot's final place (Lomuto). */
    private int partition(int lo, int hi) {
        int mid = (lo + hi) >>> 1;
        if (compare(mid, lo) < 0) swap(mid, lo);
        if (compare(hi, lo) < 0) swap(hi, lo);
        if (compare(mid, hi) < 0) swap(mid, hi); // the median is now at hi
        int store = lo;
        for (int i = lo; i < hi; i++) {
            if (compare(i, hi) < 0) swap(i, store++);
        }
        swap(store, hi);
        return store;
    }

    private void insertionSort(int lo, int hi) {
        for (int i = lo + 1; i <= hi; i++) {
            for (int j = i; j > lo && compare(j, j - 1) < 0; j--) swap(j, j - 1);
        }
    }

    private void heapsort(int lo, int hi) {
        int n = hi - lo + 1;
        for (int i = n / 2 - 1; i >= 0; i--) siftDown(lo, i, n);
        for (int end = n - 1; end > 0; end--) {
            swap(lo, lo + end);
            siftDown(lo, 0, end);
        }
    }

    private void siftDown(int lo, int i, int n) {
        while (true) {
            int child = 2 * i + 1;
            if (child >= n) return;
            if (child + 1 < n && compare(lo + child + 1, lo + child) > 0) child++;
            if (compare(lo + i, lo + child) >= 0) return;
            swap(lo + i, lo + child);
            i = child;
        }
    }
}

package dev.flushline.data;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.Random;

/**
 * The one home of token-ring arithmetic: contiguous ranges [lo, hi], both inclusive, that cover
 * every token from Long.MIN_VALUE to Long.MAX_VALUE with no gap and no overlap, so no partition
 * can straddle two of them. Range {@code i + 1} starts at split token {@code i}. The flush splits
 * its output by them (as Cassandra's range-aware flush does), the sharded memtable its shards, a
 * compaction its outputs, and a range-aware strategy its buckets; the Spark writer its tasks.
 *
 * <p>Ways to get them: {@link #even} (N equal ranges: range i starts at ceil(i * 2^64 / N) counted
 * from Long.MIN_VALUE, {@link #startToken}), {@link #fromSplits} (explicit starts), and
 * {@link #vnodes} (a node's vnode ranges: N random tokens from a seed, each owning the tokens after
 * the previous one up to itself). A vnode range wraps around the ring (the one after the highest
 * token), and an sstable's span [first, last] cannot wrap, so that range is kept as two pieces, one
 * at each end of the ring: N tokens make N + 1 ranges here.
 *
 * <p>Thread safety: immutable; the static methods are stateless.
 */
public final class TokenRanges {
    /** {@link #rangeOf} for a span that crosses at least one range boundary. */
    public static final int SPANNING = -1;

    private static final BigInteger RING = BigInteger.ONE.shiftLeft(64);

    /** splits[i] is the first token of range i + 1; strictly increasing, none is Long.MIN_VALUE. */
    private final long[] splits;

    private TokenRanges(long[] splits) {
        this.splits = splits;
    }

    /** One range: the whole ring. */
    public static TokenRanges whole() {
        return new TokenRanges(new long[0]);
    }

    /** {@code n} equal ranges (see {@link #startToken}). */
    public static TokenRanges even(int n) {
        if (n < 1 || n > 1 << 20) throw new IllegalArgumentException("range count must be in 1.." + (1 << 20) + ": " + n);
        return new TokenRanges(evenSplits(n));
    }

    /** The smallest token of range {@code i} of {@code n} equal ranges (i in 0..n-1): ceil(i * 2^64 / n) from Long.MIN_VALUE. */
    public static long startToken(int i, int n) {
        if (i == 0) return Long.MIN_VALUE;
        BigInteger offset = RING.multiply(BigInteger.valueOf(i)).add(BigInteger.valueOf(n - 1)).divide(BigInteger.valueOf(n));
        return offset.longValue() ^ Long.MIN_VALUE;
    }

    /** The n - 1 split tokens of {@code n} equal ranges. */
    public static long[] evenSplits(int n) {
        if (n < 1) throw new IllegalArgumentException("need at least one range: " + n);
        long[] starts = new long[n - 1];
        for (int i = 1; i < n; i++) starts[i - 1] = startToken(i, n);
        return starts;
    }

    /** Throws unless the split tokens are strictly increasing and none is Long.MIN_VALUE. */
    public static void checkSplits(long[] splitTokens) {
        for (int i = 0; i < splitTokens.length; i++) {
            if (splitTokens[i] == Long.MIN_VALUE || (i > 0 && splitTokens[i] <= splitTokens[i - 1])) {
                throw new IllegalArgumentException("split tokens must be strictly increasing and above Long.MIN_VALUE: "
                        + Arrays.toString(splitTokens));
            }
        }
    }

    /**
     * The ranges of a node with {@code n} vnode tokens drawn from {@code seed}: the same seed always
     * gives the same tokens ({@link java.util.Random}'s sequence is specified). Each token t owns
     * (previous token, t], so a range ends at its token and the next starts at t + 1. Tokens equal to
     * Long.MIN_VALUE (Murmur3's minimum, which no key has) or Long.MAX_VALUE, and repeats, are drawn
     * again.
     */
    public static TokenRanges vnodes(int n, long seed) {
        if (n < 1 || n > 1 << 16) throw new IllegalArgumentException("vnode count must be in 1.." + (1 << 16) + ": " + n);
        long[] tokens = vnodeTokens(n, seed);
        long[] splits = new long[n];
        for (int i = 0; i < n; i++) splits[i] = tokens[i] + 1;
        return new TokenRanges(splits);
    }

    /** The {@code n} sorted, distinct vnode tokens {@link #vnodes} uses. */
    public static long[] vnodeTokens(int n, long seed) {
        Random random = new Random(seed);
        java.util.HashSet<Long> seen = new java.util.HashSet<>();
        long[] tokens = new long[n];
        int count = 0;
        while (count < n) {
            long t = random.nextLong();
            if (t == Long.MIN_VALUE || t == Long.MAX_VALUE || !seen.add(t)) continue;
            tokens[count++] = t;
        }
        Arrays.sort(tokens);
        return tokens;
    }

    /** Ranges starting at each split token (range 0 starts at Long.MIN_VALUE); see {@link #checkSplits}. */
    public static TokenRanges fromSplits(long[] splitTokens) {
        checkSplits(splitTokens);
        return new TokenRanges(splitTokens.clone());
    }

    public int size() { return splits.length + 1; }

    /** The first token of range {@code i}. */
    public long lo(int i) {
        return i == 0 ? Long.MIN_VALUE : splits[i - 1];
    }

    /** The last token of range {@code i}. */
    public long hi(int i) {
        return i == splits.length ? Long.MAX_VALUE : splits[i] - 1;
    }

    /** The split tokens (a copy): range i + 1 starts at element i. */
    public long[] splitTokens() {
        return splits.clone();
    }

    /** The range holding {@code token}. */
    public int indexOf(long token) {
        // The number of splits <= token is the range index.
        int lo = 0, hi = splits.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (splits[mid] <= token) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }

    /** The range that holds all of [{@code first}, {@code last}], or {@link #SPANNING}. */
    public int rangeOf(long first, long last) {
        int i = indexOf(first);
        return last <= hi(i) ? i : SPANNING;
    }

    /** The number of ranges that [{@code first}, {@code last}] touches. */
    public int rangesTouched(long first, long last) {
        return indexOf(last) - indexOf(first) + 1;
    }

    /**
     * The range starts inside (first, last]: where output covering [first, last] must start a new
     * sstable so that none crosses a range boundary. Empty when the span lies in one range.
     */
    public long[] boundariesWithin(long first, long last) {
        int a = indexOf(first), b = indexOf(last);
        long[] out = new long[b - a];
        for (int i = a; i < b; i++) out[i - a] = splits[i];
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TokenRanges && Arrays.equals(splits, ((TokenRanges) o).splits);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(splits);
    }

    @Override
    public String toString() {
        return size() + " ranges";
    }
}

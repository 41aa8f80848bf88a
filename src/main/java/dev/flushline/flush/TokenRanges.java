package dev.flushline.flush;

import dev.flushline.data.TokenSplits;

import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.MemtablePartition;
import dev.flushline.memtable.ShardedSkipListMemtable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;

/**
 * How a flush splits the token ring into sstables, as Cassandra's range-aware flush does:
 * contiguous ranges [lo, hi], both inclusive, that cover every token from Long.MIN_VALUE to
 * Long.MAX_VALUE with no gap and no overlap, so no partition can straddle two sstables.
 *
 * <p>Thread safety: immutable.
 */
public final class TokenRanges {
    private final long[] lo;
    private final long[] hi;

    private TokenRanges(long[] lo, long[] hi) {
        this.lo = lo;
        this.hi = hi;
    }

    /** {@code n} equal ranges of the ring. */
    public static TokenRanges even(int n) {
        return fromSplits(TokenSplits.even(n));
    }

    /**
     * Ranges that start at each of {@code splitTokens} (the first range starts at Long.MIN_VALUE).
     * REQUIRES: strictly increasing, none equal to Long.MIN_VALUE.
     */
    public static TokenRanges fromSplits(long[] splitTokens) {
        TokenSplits.check(splitTokens);
        int n = splitTokens.length + 1;
        long[] lo = new long[n], hi = new long[n];
        lo[0] = Long.MIN_VALUE;
        for (int i = 0; i < splitTokens.length; i++) {
            hi[i] = splitTokens[i] - 1;
            lo[i + 1] = splitTokens[i];
        }
        hi[n - 1] = Long.MAX_VALUE;
        return new TokenRanges(lo, hi);
    }

    public int size() { return lo.length; }

    public long lo(int i) { return lo[i]; }

    public long hi(int i) { return hi[i]; }

    /** Number of partitions of {@code m} in each range (one pass over the keys). */
    public long[] partitionCounts(Memtable m) {
        long[] counts = new long[lo.length];
        for (int i = 0; i < lo.length; i++) {
            for (Iterator<MemtablePartition> it = m.partitionIterator(lo[i], hi[i]); it.hasNext(); it.next()) {
                counts[i]++;
            }
        }
        return counts;
    }

    /**
     * Merges each range whose estimated sstable would be smaller than {@code minBytes} into its
     * neighbour (the next one; the last merges backwards), so a flush does not write tiny files.
     * The estimate spreads the memtable's owned bytes over ranges by partition count.
     */
    public TokenRanges mergeSmall(long[] partitionCounts, long totalPartitions, long memtableBytes, long minBytes) {
        if (minBytes <= 0 || lo.length == 1 || totalPartitions == 0) return this;
        double bytesPerPartition = (double) memtableBytes / totalPartitions;
        List<long[]> merged = new ArrayList<>();
        long curLo = lo[0], curCount = 0;
        for (int i = 0; i < lo.length; i++) {
            curCount += partitionCounts[i];
            boolean last = i == lo.length - 1;
            if (curCount * bytesPerPartition >= minBytes || last) {
                merged.add(new long[] {curLo, hi[i], curCount});
                if (!last) curLo = lo[i + 1];
                curCount = 0;
            }
        }
        // A small tail merges into the range before it.
        if (merged.size() > 1) {
            long[] tail = merged.get(merged.size() - 1);
            if (tail[2] * bytesPerPartition < minBytes) {
                long[] prev = merged.get(merged.size() - 2);
                merged.set(merged.size() - 2, new long[] {prev[0], tail[1], prev[2] + tail[2]});
                merged.remove(merged.size() - 1);
            }
        }
        long[] nlo = new long[merged.size()], nhi = new long[merged.size()];
        for (int i = 0; i < nlo.length; i++) {
            nlo[i] = merged.get(i)[0];
            nhi[i] = merged.get(i)[1];
        }
        return new TokenRanges(nlo, nhi);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < lo.length; i++) sb.append('[').append(lo[i]).append(", ").append(hi[i]).append(']');
        return sb.toString();
    }
}

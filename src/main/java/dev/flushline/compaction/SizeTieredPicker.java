package dev.flushline.compaction;

import dev.flushline.data.TokenRanges;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;

/**
 * Cassandra's size-tiered strategy as a picker: sort the sstables by size, group similar sizes
 * into buckets, and compact the most interesting bucket that holds at least min_threshold
 * sstables, at most max_threshold of them, into one unsplit L0 sstable.
 *
 * <p>Buckets (Cassandra's {@code getBuckets}): walking the sstables from smallest to largest, an
 * sstable joins a bucket if its size is strictly between bucket_low and bucket_high times the
 * bucket's average, or if both it and the bucket's average are below min_sstable_size (so all
 * small sstables share one bucket); otherwise it starts a new bucket. The average is kept in
 * whole bytes, rounded down, as Cassandra keeps it. Where Cassandra looks buckets up in a hash map,
 * we look in creation order; with sizes in increasing order at most one bucket can match.
 *
 * <p>The most interesting bucket (Cassandra's {@code mostInterestingBucket}): each bucket is
 * trimmed to max_threshold sstables and kept if it still has min_threshold. Cassandra keeps the
 * hottest sstables when trimming and prefers the hottest bucket, by reads per key. We have no read
 * rates, which is Cassandra's case of every hotness being 0.0: trimming keeps the bucket's order
 * (the smallest sstables), and among buckets the comparator's tie-break decides. That tie-break
 * compares average sizes and Cassandra takes the maximum, so the bucket with the largest average
 * size wins (its comment says it meant the smallest; the code, which we follow, does the
 * opposite). Equal averages: the first bucket.
 *
 * <p>Sstables already being compacted are left out before tiering, as in Cassandra.
 *
 * <p>Not done: the single-sstable tombstone compaction Cassandra falls back to when no bucket
 * qualifies (it needs droppable-tombstone estimates the version does not carry).
 *
 * <p>Thread safety: immutable.
 */
public final class SizeTieredPicker implements CompactionPicker {
    public static final String NAME = CompactionStrategyOptions.Kind.SIZE_TIERED.className;

    private final CompactionStrategyOptions options;

    public SizeTieredPicker(CompactionStrategyOptions options) {
        this.options = options;
    }

    @Override
    public CompactionPick pick(Version version, Set<Integer> compacting) {
        return pickFrom(idle(version.sstables(), compacting), version, NAME, TokenRanges.SPANNING, Long.MIN_VALUE, Long.MAX_VALUE,
                VersionEdit.KEEP_CURSOR);
    }

    /**
     * The size-tiered pick among {@code candidates} (a subset of {@code version}: one range's
     * sstables, or L0), or null. The purge bound is taken over the whole version.
     */
    CompactionPick pickFrom(List<SSTableInfo> candidates, Version version, String strategy, int range, long lo, long hi,
                            int nextRangeCursor) {
        List<List<SSTableInfo>> buckets = buckets(candidates, options.bucketHigh(), options.bucketLow(), options.minSSTableSizeBytes());
        List<SSTableInfo> chosen = mostInterestingBucket(buckets, options.minThreshold(), options.maxThreshold());
        if (chosen.isEmpty()) return null;
        return new CompactionPick(strategy, range, lo, hi, chosen, 0, Long.MAX_VALUE, new long[0],
                version.maxPurgeableTimestamp(chosen), false, nextRangeCursor, reason(chosen, buckets, options));
    }

    @Override
    public int estimatedRemainingTasks(Version version) {
        return estimatedTasks(version.sstables(), options);
    }

    /** Cassandra's estimate: for each tier of at least min_threshold, its size over max_threshold, rounded up. */
    static int estimatedTasks(List<SSTableInfo> sstables, CompactionStrategyOptions options) {
        int n = 0;
        for (List<SSTableInfo> tier : buckets(sstables, options.bucketHigh(), options.bucketLow(), options.minSSTableSizeBytes())) {
            if (tier.size() >= options.minThreshold()) n += (tier.size() + options.maxThreshold() - 1) / options.maxThreshold();
        }
        return n;
    }

    /** {@code sstables} without those being compacted. */
    static List<SSTableInfo> idle(List<SSTableInfo> sstables, Set<Integer> compacting) {
        if (compacting.isEmpty()) return sstables;
        List<SSTableInfo> out = new ArrayList<>(sstables.size());
        for (int i = 0; i < sstables.size(); i++) if (!compacting.contains(sstables.get(i).generation())) out.add(sstables.get(i));
        return out;
    }

    static String reason(List<SSTableInfo> chosen, List<List<SSTableInfo>> buckets, CompactionStrategyOptions options) {
        int eligible = 0;
        for (int i = 0; i < buckets.size(); i++) if (buckets.get(i).size() >= options.minThreshold()) eligible++;
        return "size tier of " + chosen.size() + " sstables averaging " + SSTableInfo.formatBytes(averageBytes(chosen))
                + " (" + buckets.size() + " tiers, " + eligible + " with at least min_threshold " + options.minThreshold()
                + ", at most max_threshold " + options.maxThreshold() + " taken)";
    }

    /** Cassandra's size tiers of {@code sstables}, in creation order, each from smallest to largest. */
    public static List<List<SSTableInfo>> buckets(List<SSTableInfo> sstables, double bucketHigh, double bucketLow, long minSSTableSize) {
        List<SSTableInfo> sorted = new ArrayList<>(sstables);
        // By size, then generation, so equal sizes always bucket the same way.
        sorted.sort((a, b) -> {
            int c = Long.compare(a.sizeBytes(), b.sizeBytes());
            return c != 0 ? c : Integer.compare(a.generation(), b.generation());
        });
        List<List<SSTableInfo>> buckets = new ArrayList<>();
        List<Long> averages = new ArrayList<>();
        for (int i = 0; i < sorted.size(); i++) {
            SSTableInfo s = sorted.get(i);
            long size = s.sizeBytes();
            boolean placed = false;
            for (int b = 0; b < buckets.size() && !placed; b++) {
                long average = averages.get(b);
                if ((size > average * bucketLow && size < average * bucketHigh) || (size < minSSTableSize && average < minSSTableSize)) {
                    List<SSTableInfo> bucket = buckets.get(b);
                    long total = bucket.size() * average;
                    averages.set(b, (total + size) / (bucket.size() + 1));
                    bucket.add(s);
                    placed = true;
                }
            }
            if (!placed) {
                List<SSTableInfo> bucket = new ArrayList<>();
                bucket.add(s);
                buckets.add(bucket);
                averages.add(size);
            }
        }
        return buckets;
    }

    /**
     * The bucket to compact: of the buckets with at least {@code minThreshold} sstables, each
     * trimmed to its first {@code maxThreshold}, the one with the largest average size (the first
     * of equals). Empty if none qualifies.
     */
    public static List<SSTableInfo> mostInterestingBucket(List<List<SSTableInfo>> buckets, int minThreshold, int maxThreshold) {
        List<SSTableInfo> best = Collections.emptyList();
        long bestAverage = -1;
        for (int i = 0; i < buckets.size(); i++) {
            List<SSTableInfo> bucket = buckets.get(i);
            List<SSTableInfo> trimmed = bucket.subList(0, Math.min(bucket.size(), maxThreshold));
            if (trimmed.size() < minThreshold) continue;
            long average = averageBytes(trimmed);
            if (average > bestAverage) {
                best = new ArrayList<>(trimmed);
                bestAverage = average;
            }
        }
        return best;
    }

    static long averageBytes(List<SSTableInfo> sstables) {
        long sum = 0;
        for (int i = 0; i < sstables.size(); i++) sum += sstables.get(i).sizeBytes();
        return sum / sstables.size();
    }

    @Override
    public String toString() {
        return NAME + options;
    }
}

package dev.flushline.sstable;

import java.io.DataOutput;
import java.io.IOException;
import java.util.Arrays;

/**
 * The partition-size and cells-per-partition histograms of the STATS component, with Cassandra's
 * bucket layout: offsets 1, then round(last * 1.2) (bumped to last + 1 when rounding does not
 * move), and one bucket per offset plus a final overflow bucket. A value lands in the first bucket
 * whose offset is >= the value; values <= 0 land in bucket 0.
 *
 * <p>Serialized layout (oa, Cassandra's EstimatedHistogramSerializer):
 * <pre>
 *   bucket_count:i32   then bucket_count x (offset:i64, count:i64)
 *   pair 0 carries offsets[0]; pair i >= 1 carries offsets[i - 1]   (so offsets[0] appears twice
 *   and the overflow bucket carries the last offset)
 * </pre>
 *
 * <p>Not thread-safe: one flush writer owns it (Cassandra uses atomics because its collector may be
 * shared; ours is not). {@link #add} does not allocate.
 */
public final class EstimatedHistogram {
    /** Cassandra's MetadataCollector.defaultPartitionSizeHistogram: 155 offsets, 156 buckets. */
    public static final int PARTITION_SIZE_OFFSETS = 155;
    /** Cassandra's MetadataCollector.defaultCellPerPartitionCountHistogram: 118 offsets, 119 buckets. */
    public static final int CELLS_PER_PARTITION_OFFSETS = 118;

    private static final double GROWTH_FACTOR = 1.2;
    private static final int COUNT_BYTES = 4;
    private static final int PAIR_BYTES = 8 + 8;

    private final long[] bucketOffsets;
    private final long[] bucketCounts; // bucketOffsets.length + 1; last = overflow

    public EstimatedHistogram(int offsetCount) {
        if (offsetCount < 1) {
            throw new IllegalArgumentException("offsetCount must be >= 1: " + offsetCount);
        }
        bucketOffsets = newOffsets(offsetCount);
        bucketCounts = new long[offsetCount + 1];
    }

    public static EstimatedHistogram forPartitionSize() {
        return new EstimatedHistogram(PARTITION_SIZE_OFFSETS);
    }

    public static EstimatedHistogram forCellsPerPartition() {
        return new EstimatedHistogram(CELLS_PER_PARTITION_OFFSETS);
    }

    static long[] newOffsets(int count) {
        long[] offsets = new long[count];
        long last = 1;
        offsets[0] = last;
        for (int i = 1; i < count; i++) {
            long next = Math.round(last * GROWTH_FACTOR);
            if (next == last) {
                next++;
            }
            offsets[i] = next;
            last = next;
        }
        return offsets;
    }

    public void add(long value) {
        bucketCounts[bucketIndex(value)]++;
    }

    public void add(long value, long count) {
        bucketCounts[bucketIndex(value)] += count;
    }

    private int bucketIndex(long value) {
        int index = Arrays.binarySearch(bucketOffsets, value);
        return index >= 0 ? index : -index - 1;
    }

    public int bucketCount() {
        return bucketCounts.length;
    }

    public long bucketOffset(int offsetIndex) {
        return bucketOffsets[offsetIndex];
    }

    public long count(int bucket) {
        return bucketCounts[bucket];
    }

    public long overflowCount() {
        return bucketCounts[bucketCounts.length - 1];
    }

    public int serializedSize() {
        return COUNT_BYTES + bucketCounts.length * PAIR_BYTES;
    }

    public void serialize(DataOutput out) throws IOException {
        final long[] offsets = bucketOffsets;
        final long[] counts = bucketCounts;
        out.writeInt(counts.length);
        for (int i = 0; i < counts.length; i++) {
            out.writeLong(offsets[i == 0 ? 0 : i - 1]);
            out.writeLong(counts[i]);
        }
    }
}

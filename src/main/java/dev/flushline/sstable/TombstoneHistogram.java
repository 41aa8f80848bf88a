package dev.flushline.sstable;

import dev.flushline.data.Cell;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Arrays;

/**
 * The tombstone drop-time histogram of the STATS component, reproducing Cassandra 5.0.9's
 * {@code StreamingTombstoneHistogramBuilder(100, 100000, 60)} as MetadataCollector drives it, so
 * the bins (and bytes) match Cassandra's for the same update sequence.
 *
 * <p>How Cassandra's builder behaves, and so how this one must:
 * <ul>
 *   <li>every point is rounded UP to a multiple of {@link #ROUND_SECONDS}, saturating at
 *       {@link #MAX_DELETION_TIME} (which is not a multiple of 60 and stays as is);</li>
 *   <li>points first go to a spool: an open-addressing table of 2^17 cells (2^18 slots), home cell
 *       {@code (int)(point * 948701839) & (2^17 - 1)}, up to 100 linear probes. When an insert fails
 *       (probes exhausted, or more than 2^17 entries) the spool is flushed into the bins in SLOT
 *       order and cleared; the build flushes it once more;</li>
 *   <li>the bins hold at most 100 sorted points; adding a 101st merges the closest adjacent pair
 *       (first such pair wins ties) into their count-weighted mean, rounded up to 60 s and kept
 *       strictly above the left point and at most the right one.</li>
 * </ul>
 * With at most 100 distinct points nothing is ever merged and the spool order does not matter, so
 * until the 101st distinct point arrives we skip the 3 MiB spool and add straight to the bins,
 * remembering first-appearance order. On the 101st we replay those points, in that order, into a
 * fresh spool: that reproduces the exact slots Cassandra's spool would hold, since no spool insert
 * can fail while it holds fewer than 100 points.
 *
 * <p>Not thread-safe: one flush writer owns it. {@link #update} does not allocate (except the
 * one-time spool allocation above). Serialization flushes the spool into the bins first, as
 * Cassandra's {@code build()} does; further updates after that are allowed but no longer match a
 * builder that was built only at the end.
 */
public final class TombstoneHistogram {
    private static final long MAX_DELETION_TIME = Cell.MAX_DELETION_TIME;
    public static final int ROUND_SECONDS = 60;                   // STREAMING_HISTOGRAM_ROUND_SECONDS default
    public static final int MAX_BINS = 100;                       // SSTable.TOMBSTONE_HISTOGRAM_BIN_SIZE
    private static final int SPOOL_REQUESTED_SIZE = 100_000;      // SSTable.TOMBSTONE_HISTOGRAM_SPOOL_SIZE
    private static final int SPOOL_CAPACITY = Integer.highestOneBit(SPOOL_REQUESTED_SIZE - 1) << 1; // 131072
    private static final int SPOOL_SLOTS = SPOOL_CAPACITY * 2;
    private static final int SPOOL_PROBES = 100;
    private static final long SPOOL_HASH_PRIME = 948701839L;
    private static final long SPOOL_EMPTY = -1;
    private static final long BIN_EMPTY = Long.MAX_VALUE;
    // oa HistogramSerializer: i32 "max bin size" (written as the bin count), i32 bin count, then
    // (i64 point, i32 count) per bin.
    private static final int HEADER_BYTES = 4 + 4;
    private static final int BIN_BYTES = 8 + 4;
    /** Cassandra's size function counts 16 bytes per bin but writes 12; STATS is padded by the rest. */
    public static final int STATS_PADDING_BYTES_PER_BIN = 16 - BIN_BYTES;

    // Bins: sorted points, BIN_EMPTY-padded, one spare slot that triggers the merge (as Cassandra).
    private final long[] binPoints = new long[MAX_BINS + 1];
    private final int[] binCounts = new int[MAX_BINS + 1];
    // Distinct points in first-appearance order, used only before the spool exists.
    private final long[] firstSeen = new long[MAX_BINS];
    private int firstSeenCount;
    private long[] spoolPoints; // null until the 101st distinct point
    private int[] spoolCounts;
    private int spoolSize;

    public TombstoneHistogram() {
        Arrays.fill(binPoints, BIN_EMPTY);
    }

    public void update(long localDeletionTime) {
        update(localDeletionTime, 1);
    }

    /** REQUIRES: count >= 0 and the rounded point >= 0 (Cassandra asserts both in its spool). */
    public void update(long localDeletionTime, int count) {
        long point = ceilKey(localDeletionTime);
        if (spoolPoints != null) {
            spoolAdd(point, count);
            return;
        }
        int index = Arrays.binarySearch(binPoints, point);
        if (index >= 0) {
            binCounts[index] = saturatingToInt((long) binCounts[index] + count);
        } else if (firstSeenCount < MAX_BINS) {
            firstSeen[firstSeenCount++] = point;
            binAdd(point, count);
        } else {
            switchToSpool();
            spoolAdd(point, count);
        }
    }

    /** Number of bins that serialization writes (finalizes the histogram, see class comment). */
    public int binCount() {
        flushSpool();
        int n = 0;
        while (n < binPoints.length && binPoints[n] != BIN_EMPTY) {
            n++;
        }
        return n;
    }

    /** Zero bytes Cassandra leaves after the STATS component because of its size mis-estimate. */
    public int statsPaddingBytes() {
        return binCount() * STATS_PADDING_BYTES_PER_BIN;
    }

    public int serializedSize() {
        return HEADER_BYTES + binCount() * BIN_BYTES;
    }

    public void serialize(DataOutput out) throws IOException {
        int bins = binCount();
        out.writeInt(bins);
        out.writeInt(bins);
        for (int i = 0; i < bins; i++) {
            out.writeLong(binPoints[i]);
            out.writeInt(binCounts[i]);
        }
    }

    /**
     * The nb (legacy) form: the same two i32 header words, then (f64 point, i64 count) per bin,
     * which is the 16 bytes per bin Cassandra's size function counts, so STATS has no padding.
     */
    public void serializeLegacy(DataOutput out) throws IOException {
        int bins = binCount();
        out.writeInt(bins);
        out.writeInt(bins);
        for (int i = 0; i < bins; i++) {
            out.writeDouble((double) binPoints[i]);
            out.writeLong(binCounts[i]);
        }
    }

    public long binPoint(int bin) {
        return binPoints[bin];
    }

    public int binValue(int bin) {
        return binCounts[bin];
    }

    private void switchToSpool() {
        spoolPoints = new long[SPOOL_SLOTS];
        spoolCounts = new int[SPOOL_SLOTS];
        Arrays.fill(spoolPoints, SPOOL_EMPTY);
        for (int i = 0; i < firstSeenCount; i++) {
            long point = firstSeen[i];
            int count = binCounts[Arrays.binarySearch(binPoints, point)];
            if (!spoolTryAdd(point, count)) {
                throw new IllegalStateException("spool rejected replayed point " + point);
            }
        }
        Arrays.fill(binPoints, BIN_EMPTY);
        Arrays.fill(binCounts, 0);
        firstSeenCount = 0;
    }

    private void spoolAdd(long point, int count) {
        if (!spoolTryAdd(point, count)) {
            flushSpool();
            if (!spoolTryAdd(point, count)) {
                throw new IllegalStateException("empty spool rejected point " + point);
            }
        }
    }

    private boolean spoolTryAdd(long point, int count) {
        if (spoolSize > SPOOL_CAPACITY) {
            return false;
        }
        final long[] points = spoolPoints;
        int cell = (SPOOL_CAPACITY - 1) & (int) (point * SPOOL_HASH_PRIME);
        for (int attempt = 0; attempt < SPOOL_PROBES; attempt++) {
            int slot = (cell + attempt) % SPOOL_SLOTS;
            long existing = points[slot];
            if (existing == SPOOL_EMPTY) {
                points[slot] = point;
                spoolCounts[slot] = count;
                spoolSize++;
                return true;
            }
            if (existing == point) {
                spoolCounts[slot] = saturatingToInt((long) spoolCounts[slot] + count);
                return true;
            }
        }
        return false;
    }

    // Slot order, as Cassandra's Spool.forEach; this order decides which pairs get merged.
    private void flushSpool() {
        final long[] points = spoolPoints;
        if (points == null || spoolSize == 0) {
            return;
        }
        for (int slot = 0; slot < points.length; slot++) {
            if (points[slot] != SPOOL_EMPTY) {
                binAdd(points[slot], spoolCounts[slot]);
                if (binPoints[MAX_BINS] != BIN_EMPTY) {
                    mergeNearestBins();
                }
            }
        }
        Arrays.fill(points, SPOOL_EMPTY);
        spoolSize = 0;
    }

    private void binAdd(long point, int count) {
        final long[] points = binPoints;
        int index = Arrays.binarySearch(points, point);
        if (index >= 0) {
            binCounts[index] = saturatingToInt((long) binCounts[index] + count);
            return;
        }
        index = -index - 1;
        System.arraycopy(points, index, points, index + 1, points.length - index - 1);
        System.arraycopy(binCounts, index, binCounts, index + 1, binCounts.length - index - 1);
        points[index] = point;
        binCounts[index] = count;
    }

    // REQUIRES: all MAX_BINS + 1 slots in use. Arithmetic mirrors DataHolder.mergeNearestPoints,
    // saturations included.
    private void mergeNearestBins() {
        final long[] points = binPoints;
        final int[] counts = binCounts;
        int index = 0;
        long bestDistance = Long.MAX_VALUE;
        for (int i = 0; i < points.length - 1; i++) {
            long distance = points[i + 1] - points[i];
            if (bestDistance > distance) {
                bestDistance = distance;
                index = i;
            }
        }
        long point1 = points[index];
        long point2 = points[index + 1];
        long count1 = counts[index];
        long count2 = counts[index + 1];
        long weighted1 = saturatingToLong(point1 * count1);
        long weighted2 = saturatingToLong(point2 * count2);
        long sum = saturatingToLong(count1 + count2);
        long merged = saturatingToMaxDeletionTime(saturatingToLong(weighted1 + weighted2) / sum);
        if (merged <= point1) {
            merged = saturatingToMaxDeletionTime(point1 + 1);
        }
        merged = ceilKey(Math.min(merged, point2));
        points[index] = merged;
        counts[index] = saturatingToInt(sum);
        System.arraycopy(points, index + 2, points, index + 1, points.length - index - 2);
        System.arraycopy(counts, index + 2, counts, index + 1, counts.length - index - 2);
        points[points.length - 1] = BIN_EMPTY;
        counts[counts.length - 1] = 0;
    }

    private static long ceilKey(long point) {
        long remainder = point % ROUND_SECONDS;
        if (remainder == 0) {
            return point;
        }
        return saturatingToMaxDeletionTime(point + ROUND_SECONDS - remainder);
    }

    private static int saturatingToInt(long value) {
        return (int) (value > Integer.MAX_VALUE ? Integer.MAX_VALUE : value);
    }

    private static long saturatingToLong(long value) {
        return value < 0L ? Long.MAX_VALUE : value;
    }

    private static long saturatingToMaxDeletionTime(long value) {
        return (value < 0L || value > MAX_DELETION_TIME) ? MAX_DELETION_TIME : value;
    }
}

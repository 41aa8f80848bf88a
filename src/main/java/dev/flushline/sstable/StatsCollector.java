package dev.flushline.sstable;

import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ClusteringBuffer;
import dev.flushline.data.ClusteringComparator;
import dev.flushline.data.DeletionTime;
import dev.flushline.sstable.CardinalityEstimator;
import dev.flushline.sstable.EstimatedHistogram;
import dev.flushline.sstable.TombstoneHistogram;

/**
 * The per-sstable statistics that Statistics.db's STATS and COMPACTION components carry,
 * collected in the order Cassandra 5.0's MetadataCollector sees them (the order matters for the
 * tombstone histogram once it merges bins).
 *
 * <p>Hot methods take primitives only: the row serializer calls them from its per-row-source
 * branches with values it has already read, so no accessor is called twice and no call site here
 * depends on where the row came from.
 *
 * <p>Thread safety: none; owned by one flush writer.
 */
public final class StatsCollector {
    private final ClusteringComparator comparator;

    private boolean timestampSet;
    private long minTimestamp;
    private long maxTimestamp;
    private boolean ldtSet;
    private long minLdt;
    private long maxLdt;
    private boolean ttlSet;
    private int minTtl;
    private int maxTtl;

    private final TombstoneHistogram tombstones = new TombstoneHistogram();
    private final EstimatedHistogram partitionSizes = EstimatedHistogram.forPartitionSize();
    private final EstimatedHistogram cellsPerPartition = EstimatedHistogram.forCellsPerPartition();
    private final CardinalityEstimator cardinality = new CardinalityEstimator();

    private long totalColumnsSet;
    private long totalRows;
    private long partitionCells;
    private long cellsWritten;
    private boolean hasPartitionLevelDeletions;

    // Covered clustering slice: null until a row or bound is seen.
    private byte[][] minClustering;
    private byte minClusteringKind;
    private byte[][] maxClustering;
    private byte maxClusteringKind;

    public StatsCollector(ClusteringComparator comparator) {
        this.comparator = comparator;
    }

    // ---- hot path ------------------------------------------------------------------------------

    void timestamp(long ts) {
        if (!timestampSet) {
            minTimestamp = maxTimestamp = ts;
            timestampSet = true;
        } else if (ts < minTimestamp) {
            minTimestamp = ts;
        } else if (ts > maxTimestamp) {
            maxTimestamp = ts;
        }
    }

    void localDeletionTime(long ldt) {
        if (!ldtSet) {
            minLdt = maxLdt = ldt;
            ldtSet = true;
        } else if (ldt < minLdt) {
            minLdt = ldt;
        } else if (ldt > maxLdt) {
            maxLdt = ldt;
        }
        if (ldt != Cell.NO_DELETION_TIME) {
            tombstones.update(ldt);
        }
    }

    void ttl(int ttl) {
        if (!ttlSet) {
            minTtl = maxTtl = ttl;
            ttlSet = true;
        } else if (ttl < minTtl) {
            minTtl = ttl;
        } else if (ttl > maxTtl) {
            maxTtl = ttl;
        }
    }

    /** A cell of any class, by its fields. */
    void cell(long ts, int ttl, long ldt) {
        partitionCells++;
        cellsWritten++;
        timestamp(ts);
        ttl(ttl);
        localDeletionTime(ldt);
    }

    /**
     * {@code count} cells with no TTL and no local deletion time whose timestamps span
     * [minTimestamp, maxTimestamp]: the same stats as a {@link #cell} call for each (minimum and
     * maximum do not depend on the order, and no deletion time reaches the histogram).
     */
    void plainCells(int count, long minTimestamp, long maxTimestamp) {
        if (count == 0) return;
        partitionCells += count;
        cellsWritten += count;
        timestamp(minTimestamp);
        timestamp(maxTimestamp);
        ttl(Cell.NO_TTL);
        localDeletionTime(Cell.NO_DELETION_TIME);
    }

    /** Non-empty primary-key liveness. */
    void liveness(long ts, int ttl, long expirationTime) {
        timestamp(ts);
        ttl(ttl);
        localDeletionTime(expirationTime);
    }

    /** Row, complex, range and partition deletions; LIVE ones are ignored, as Cassandra does. */
    void deletion(DeletionTime d) {
        deletion(d.markedForDeleteAt(), d.localDeletionTime());
    }

    void deletion(long markedForDeleteAt, long localDeletionTime) {
        if (markedForDeleteAt != Long.MIN_VALUE || localDeletionTime != Long.MAX_VALUE) {
            timestamp(markedForDeleteAt);
            localDeletionTime(localDeletionTime);
        }
    }

    void partitionDeletion(DeletionTime d) {
        partitionDeletion(d.markedForDeleteAt(), d.localDeletionTime());
    }

    void partitionDeletion(long markedForDeleteAt, long localDeletionTime) {
        if (markedForDeleteAt != Long.MIN_VALUE || localDeletionTime != Long.MAX_VALUE) hasPartitionLevelDeletions = true;
        deletion(markedForDeleteAt, localDeletionTime);
    }

    void rowColumns(int columnsWithCells) {
        totalColumnsSet += columnsWithCells;
        totalRows++;
    }

    /** Called for the first and last row of each partition only: rows come in clustering order. */
    public void rowClustering(byte[][] clustering) {
        bound(clustering, ClusteringBound.CLUSTERING);
    }

    /**
     * A flyweight row clustering (first and last row of each partition). Compared in place; copied
     * only when it becomes the new minimum or maximum.
     */
    public void rowClustering(ClusteringBuffer clustering) {
        if (clustering.kind() != ClusteringBound.CLUSTERING) throw new IllegalArgumentException("not a row clustering: " + clustering);
        bound(clustering, ClusteringBound.CLUSTERING);
    }

    void markerBound(ClusteringBuffer b) {
        byte kind = b.kind();
        if (kind != ClusteringBound.EXCL_END_INCL_START_BOUNDARY && kind != ClusteringBound.INCL_END_EXCL_START_BOUNDARY) {
            bound(b, kind);
        }
    }

    /** REQUIRES: {@code values.kind() == kind}. */
    private void bound(ClusteringBuffer values, byte kind) {
        boolean start = kind == ClusteringBound.CLUSTERING || kind == ClusteringBound.INCL_START_BOUND
                || kind == ClusteringBound.EXCL_START_BOUND;
        boolean end = kind == ClusteringBound.CLUSTERING || kind == ClusteringBound.INCL_END_BOUND
                || kind == ClusteringBound.EXCL_END_BOUND;
        if (start && (minClustering == null || comparator.compare(values, minClustering, minClusteringKind) < 0)) {
            minClustering = values.toArrays();
            minClusteringKind = kind;
        }
        if (end && (maxClustering == null || comparator.compare(values, maxClustering, maxClusteringKind) > 0)) {
            maxClustering = values.toArrays();
            maxClusteringKind = kind;
        }
    }

    /** Range-tombstone bounds (boundaries never extend the slice, as in Cassandra). */
    void markerBound(ClusteringBound b) {
        if (!b.isBoundary()) bound(b.values(), b.kind());
    }

    private void bound(byte[][] values, byte kind) {
        boolean start = kind == ClusteringBound.CLUSTERING || kind == ClusteringBound.INCL_START_BOUND
                || kind == ClusteringBound.EXCL_START_BOUND;
        boolean end = kind == ClusteringBound.CLUSTERING || kind == ClusteringBound.INCL_END_BOUND
                || kind == ClusteringBound.EXCL_END_BOUND;
        if (start && (minClustering == null || comparator.compare(values, kind, minClustering, minClusteringKind) < 0)) {
            minClustering = values;
            minClusteringKind = kind;
        }
        if (end && (maxClustering == null || comparator.compare(values, kind, maxClustering, maxClusteringKind) > 0)) {
            maxClustering = values;
            maxClusteringKind = kind;
        }
    }

    public void partitionEnd(byte[] key, long partitionSizeBytes) {
        partitionEnd(key, 0, key.length, partitionSizeBytes);
    }

    public void partitionEnd(byte[] key, int keyOffset, int keyLength, long partitionSizeBytes) {
        partitionSizes.add(partitionSizeBytes);
        cardinality.offerKey(key, keyOffset, keyLength);
        cellsPerPartition.add(partitionCells);
        partitionCells = 0;
    }

    // ---- results -------------------------------------------------------------------------------

    public long minTimestamp() { return timestampSet ? minTimestamp : Long.MIN_VALUE; }

    public long maxTimestamp() { return timestampSet ? maxTimestamp : Long.MAX_VALUE; }

    public long minLocalDeletionTime() { return ldtSet ? minLdt : Cell.NO_DELETION_TIME; }

    public long maxLocalDeletionTime() { return ldtSet ? maxLdt : Cell.NO_DELETION_TIME; }

    public int minTtl() { return ttlSet ? minTtl : Cell.NO_TTL; }

    public int maxTtl() { return ttlSet ? maxTtl : Cell.NO_TTL; }

    public TombstoneHistogram tombstones() { return tombstones; }

    public EstimatedHistogram partitionSizes() { return partitionSizes; }

    public EstimatedHistogram cellsPerPartition() { return cellsPerPartition; }

    public CardinalityEstimator cardinality() { return cardinality; }

    /** Cells the serializer wrote, counted as they were written (for the conservation check). */
    public long cellsWritten() { return cellsWritten; }

    public long totalColumnsSet() { return totalColumnsSet; }

    public long totalRows() { return totalRows; }

    public boolean hasPartitionLevelDeletions() { return hasPartitionLevelDeletions; }

    /** Smallest clustering or start bound seen, or null if none. */
    public byte[][] minClustering() { return minClustering; }

    public byte minClusteringKind() { return minClusteringKind; }

    /** Largest clustering or end bound seen, or null if none. */
    public byte[][] maxClustering() { return maxClustering; }

    public byte maxClusteringKind() { return maxClusteringKind; }
}

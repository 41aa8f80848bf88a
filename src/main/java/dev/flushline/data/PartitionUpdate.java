package dev.flushline.data;

import java.util.List;

/**
 * Everything one mutation does to one partition: a partition deletion (or LIVE), range
 * tombstones, an optional static row and rows. Cells are {@link Cell}s: updates come from
 * parsed operations or commit log replay, and the memtable copies them into its own allocation.
 *
 * <p>Thread safety: immutable once built.
 */
public final class PartitionUpdate {
    private final PartitionKey key;
    private final DeletionTime partitionDeletion;
    private final List<RangeTombstone> rangeTombstones;
    private final Row staticRow;
    private final List<Row> rows;

    public PartitionUpdate(PartitionKey key, DeletionTime partitionDeletion, List<RangeTombstone> rangeTombstones,
                           Row staticRow, List<Row> rows) {
        this.key = key;
        this.partitionDeletion = partitionDeletion;
        this.rangeTombstones = rangeTombstones;
        this.staticRow = staticRow;
        this.rows = rows;
    }

    public PartitionKey key() { return key; }

    public DeletionTime partitionDeletion() { return partitionDeletion; }

    public List<RangeTombstone> rangeTombstones() { return rangeTombstones; }

    /** null when the update does not touch static columns. */
    public Row staticRow() { return staticRow; }

    public List<Row> rows() { return rows; }

    @Override
    public String toString() {
        return "PartitionUpdate{" + key + ", pd=" + partitionDeletion + ", rts=" + rangeTombstones
                + ", static=" + staticRow + ", rows=" + rows + '}';
    }
}

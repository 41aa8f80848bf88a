package dev.flushline.memtable;

import dev.flushline.data.ClusteringComparator;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.InsertBuffer;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.RangeTombstone;
import dev.flushline.data.RangeTombstoneList;
import dev.flushline.data.Row;
import dev.flushline.data.Rows;
import dev.flushline.schema.TableSchema;

import java.util.List;

/**
 * One partition in a memtable: partition deletion, static row, range tombstones and rows.
 *
 * <p>Writes merge with Cassandra's reconciliation and drop whatever a deletion shadows, as
 * Cassandra's flush does when it removes shadowed data, so that a flush writes exactly what is
 * here.
 *
 * <p>Thread safety: every mutation runs under {@code synchronized (this)}, so an update to the
 * partition is applied whole: a reader that takes the same monitor never sees half of it. The flush
 * reads without the monitor, after {@link Memtable#seal()} has waited for every writer to leave.
 */
public final class MemtablePartition extends RowList {
    private final PartitionKey key;
    private DeletionTime partitionDeletion = DeletionTime.LIVE;
    private Row staticRow;
    private RangeTombstoneList rangeTombstones;
    private int cellCount;

    MemtablePartition(PartitionKey key) {
        this.key = key;
    }

    public PartitionKey key() { return key; }

    public DeletionTime partitionDeletion() { return partitionDeletion; }

    /** null when the partition has no static data. */
    public Row staticRow() { return staticRow; }

    /** This partition's rows: a partition is its own row list (one object fewer per partition). */
    public RowList rows() { return this; }

    /** null when the partition has no range tombstones. */
    public RangeTombstoneList rangeTombstones() { return rangeTombstones; }

    public int rowCount() { return size(); }

    /** Cells in the static row and all rows, collection elements counted one by one. */
    public int cellCount() { return cellCount; }

    public boolean hasRangeTombstones() {
        return rangeTombstones != null && !rangeTombstones.isEmpty();
    }

    /** No deletion and no data: Cassandra writes nothing for such a partition. */
    public boolean isEmpty() {
        return partitionDeletion.isLive() && staticRow == null && size() == 0 && !hasRangeTombstones();
    }

    /**
     * Merges an update (Cell rows, as parsed) and stores the results in {@code memtable}'s
     * allocation mode. Returns the change in row count in the high 32 bits and in cell count in the
     * low 32 bits. REQUIRES: the caller holds this partition's monitor.
     */
    long apply(DeletionTime updateDeletion, List<RangeTombstone> updateRanges, Row updateStatic, List<Row> updateRows,
               Memtable memtable) {
        final TableSchema schema = memtable.schema;
        final ClusteringComparator comparator = memtable.comparator;
        int rowsBefore = size();
        int cellsBefore = cellCount;

        if (updateDeletion.supersedes(partitionDeletion)) {
            partitionDeletion = updateDeletion;
            reapply(partitionDeletion, null, memtable);
            if (rangeTombstones != null) rangeTombstones.applyPartitionDeletion(partitionDeletion);
        }
        for (int i = 0; i < updateRanges.size(); i++) {
            RangeTombstone rt = updateRanges.get(i);
            if (!RangeTombstoneList.mayMatter(rt, partitionDeletion)) continue;
            if (rangeTombstones == null) {
                rangeTombstones = new RangeTombstoneList(comparator);
                rangeTombstones.applyPartitionDeletion(partitionDeletion);
            }
            rangeTombstones.add(rt);
            // A range the partition deletion supersedes can shadow rows; one it does not is only
            // stored (it can still win a timestamp tie against a later range).
            if (rt.deletion().supersedes(partitionDeletion)) reapply(rt.deletion(), rt, memtable);
        }
        if (updateStatic != null) {
            Row old = staticRow;
            staticRow = Rows.merge(old, updateStatic, schema.staticColumns(), schema.staticComplexStart(), partitionDeletion);
            if (staticRow != null && staticRow != old) memtable.storedStatic(staticRow);
            cellCount += cells(staticRow) - cells(old);
        }
        final boolean records = memtable.allocationMode() != AllocationMode.UNSLABBED_HEAP;
        for (int i = 0, n = updateRows.size(); i < n; i++) {
            Row u = updateRows.get(i);
            DeletionTime active = partitionDeletion;
            if (rangeTombstones != null) {
                active = DeletionTime.max(active, rangeTombstones.deletionAt(u.clustering()));
            }
            RowList.Lookup lk = RowList.lookup();
            lk.probe(u.clustering());
            if (records && appendsPacked(lk, comparator)) {
                appendPackedMerged(lk, u, active, size() + n - i, memtable);
                continue;
            }
            linkPacked(memtable);
            RowList.Node node = getOrAdd(lk, comparator);
            mergeRow(node, u, active, memtable);
        }
        return ((long) (size() - rowsBefore) << 32) | ((cellCount - cellsBefore) & 0xFFFF_FFFFL);
    }

    /** Merges row {@code u} into {@code node} (just added, or holding a row) under {@code active}. */
    private void mergeRow(RowList.Node node, Row u, DeletionTime active, Memtable memtable) {
        final TableSchema schema = memtable.schema;
        boolean fresh = node.isUnset();
        Row old = fresh ? null : node.row();
        Row merged;
        try {
            merged = Rows.merge(old, u, schema.regularColumns(), schema.regularComplexStart(), active);
            if (merged != null) memtable.store(node, merged, fresh);
        } catch (RuntimeException | Error e) {
            // A node that never got its row must not stay linked: a flush would read nothing there.
            if (fresh) unlink(node, u.clustering(), memtable);
            throw e;
        }
        // A fresh node holds no row to take its clustering from: unlink it by the update's.
        if (merged == null) unlink(node, u.clustering(), memtable);
        cellCount += cells(merged) - cells(old);
    }

    /**
     * Applies a decoded insert without static columns, as {@link #apply} applies its update: a row new
     * to this partition, with nothing deleted over it, is stored as a record written from the buffer
     * (what the merge would keep is the row as it is); otherwise the row is built and merged. Returns
     * the row and cell count changes as {@link #apply} does. REQUIRES: the caller holds this
     * partition's monitor; a slab allocation mode.
     */
    long apply(InsertBuffer insert, Memtable memtable) {
        int rowsBefore = size();
        int cellsBefore = cellCount;
        DeletionTime active = partitionDeletion;
        if (rangeTombstones != null) active = DeletionTime.max(active, rangeTombstones.deletionAt(insert.clustering()));
        // The probe points into the insert's buffer: a row new to the partition copies its
        // clustering only into its record, and nothing per row is allocated on the way.
        RowList.Lookup lk = RowList.lookup();
        insert.clusteringInto(lk.probe);
        if (appendsPacked(lk, memtable.comparator)) {
            if (active.isLive()) {
                storePacked(lk, null, insert, size() + 1, memtable);
                cellCount += insert.regularCellCount();
            } else {
                appendPackedMerged(lk, insert.row(insert.clustering()), active, size() + 1, memtable);
            }
            return ((long) (size() - rowsBefore) << 32) | ((cellCount - cellsBefore) & 0xFFFF_FFFFL);
        }
        linkPacked(memtable);
        RowList.Node node = getOrAdd(lk, memtable.comparator);
        if (!node.isUnset() || !active.isLive()) {
            mergeRow(node, insert.row(insert.clustering()), active, memtable);
        } else {
            try {
                memtable.store(node, insert);
            } catch (RuntimeException | Error e) {
                remove(node, insert.clusteringInto(lk.probe), lk, memtable.comparator);
                throw e;
            }
            cellCount += insert.regularCellCount();
        }
        return ((long) (size() - rowsBefore) << 32) | ((cellCount - cellsBefore) & 0xFFFF_FFFFL);
    }

    /**
     * Row {@code u}, new to the partition and above every row it holds, merged alone under
     * {@code active} (which may drop what it shadows, or all of it) and packed if anything is left.
     */
    private void appendPackedMerged(RowList.Lookup lk, Row u, DeletionTime active, int expected, Memtable memtable) {
        final TableSchema schema = memtable.schema;
        Row merged = Rows.merge(null, u, schema.regularColumns(), schema.regularComplexStart(), active);
        if (merged != null) storePacked(lk, merged, null, expected, memtable);
        cellCount += cells(merged);
    }

    /**
     * Stores a row new to the partition, above every row it holds, as a packed record: {@code row}
     * if not null, else {@code insert}'s row. A record that lands in another heap slab than the
     * packed rows' makes the list linked, and the row its last node. Nothing is added if the store
     * throws. {@code expected}: the rows the list is about to hold. REQUIRES: {@link #appendsPacked}
     * said so for {@code lk.probe}; the caller holds this partition's monitor.
     */
    private void storePacked(RowList.Lookup lk, Row row, InsertBuffer insert, int expected, Memtable memtable) {
        RowList.Node slot = lk.packedSlot();
        if (row != null) memtable.store(slot, row, false);
        else memtable.store(slot, insert, 0);
        if (addPacked(slot, expected)) {
            memtable.chargeHeap(PACKED_ROW_HEAP_BYTES);
            return;
        }
        linkPacked(memtable);
        RowList.Node node = addLast();
        node.slab = slot.slab;
        node.record = slot.record;
        memtable.chargeHeap(NODE_HEAP_BYTES);
    }

    /** {@link RowList#linkPacked}, charging the nodes' heap above what the packed rows were charged. */
    private void linkPacked(Memtable memtable) {
        int linked = linkPacked();
        if (linked > 0) memtable.chargeHeap(linked * (NODE_HEAP_BYTES - PACKED_ROW_HEAP_BYTES));
    }

    /**
     * Drops what a new deletion shadows: the partition deletion everywhere, or a new range inside
     * its bounds only. Inside a range each row is merged under the deletion that now covers it,
     * which is the stored range's (the new one did not win where a stored range has its
     * timestamp) or the partition deletion if that is larger.
     */
    private void reapply(DeletionTime deletion, RangeTombstone range, Memtable memtable) {
        final TableSchema schema = memtable.schema;
        final ClusteringComparator comparator = memtable.comparator;
        linkPacked(memtable);
        if (range == null && staticRow != null) {
            Row old = staticRow;
            staticRow = Rows.merge(old, null, schema.staticColumns(), schema.staticComplexStart(), deletion);
            if (staticRow != null && staticRow != old) memtable.storedStatic(staticRow);
            cellCount += cells(staticRow) - cells(old);
        }
        RowList.Lookup lk = RowList.lookup();
        for (RowList.Node n = first(); n != null; ) {
            RowList.Node next = n.next();
            if (range == null || (comparator.compare(lk.view(n), range.start().values(), range.start().kind()) > 0
                    && comparator.compare(lk.view(n), range.end().values(), range.end().kind()) < 0)) {
                Row old = n.row();
                DeletionTime active = range == null ? deletion
                        : DeletionTime.max(partitionDeletion, rangeTombstones.deletionAt(old.clustering()));
                // A new row without what the deletion shadows, or null (removed) if nothing is left.
                Row kept = Rows.merge(old, null, schema.regularColumns(), schema.regularComplexStart(), active);
                if (kept == null) {
                    remove(n, comparator);
                } else if (kept != old) {
                    memtable.store(n, kept, false);
                }
                cellCount += cells(kept) - cells(old);
            }
            n = next;
        }
    }

    /** Unlinks {@code node}, whose clustering is {@code clustering} (it may hold no row yet). */
    private void unlink(RowList.Node node, byte[][] clustering, Memtable memtable) {
        RowList.Lookup lk = RowList.lookup();
        remove(node, lk.probe(clustering), lk, memtable.comparator);
    }

    // Touch-ahead for a walk in token order (see HashMemtable's iterator): each reads one more link
    // of the chain the flush follows (partition, key and first node, first record) and returns a value
    // that depends on the load, so that it is not optimised away. REQUIRES: sealed, or the monitor held.

    int touchObject() {
        return cellCount;
    }

    int touchKeyAndFirstRow() {
        if (isPacked()) return key.key().length + (int) packedRecord(0);
        RowList.Node f = first();
        return key.key().length + (f == null ? 0 : (int) f.record);
    }

    int touchFirstRecord() {
        if (isPacked()) return touchRecord(packedSlab(), packedRecord(0));
        RowList.Node f = first();
        if (f == null || f.row != null) return 0;
        return touchRecord(f.slab, f.record);
    }

    private static int touchRecord(byte[] slab, long record) {
        return slab != null ? slab[(int) record] : dev.flushline.io.NativeMemory.getByte(record);
    }

    private static int cells(Row r) {
        return r == null ? 0 : r.cellCount();
    }
}

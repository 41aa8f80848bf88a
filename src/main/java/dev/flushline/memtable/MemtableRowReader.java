package dev.flushline.memtable;

import dev.flushline.data.RowRecord;
import dev.flushline.io.NativeMemory;

/**
 * The flush's view of record rows ({@link RowList.Node#isRecord}): one reusable {@link RowRecord}
 * flyweight re-wrapped per row, so reading a row allocates nothing. A heap record is read where it
 * lies in its slab; a native record is first copied, in one block, into a scratch array that grows
 * to the largest record seen.
 *
 * <p>Thread safety: none; one reader per flushing thread. The flyweight returned by {@link #read}
 * is valid until the next call. REQUIRES: the memtable is sealed and not discarded.
 */
public final class MemtableRowReader {
    private final RowRecord row = new RowRecord();
    private byte[] scratch = new byte[256];

    /** The row of a record node. REQUIRES: {@code node.isRecord()}. */
    public RowRecord read(RowList.Node node) {
        return read(node.slab, node.record);
    }

    /**
     * The record at {@code record} in {@code slab}, or at native address {@code record} when
     * {@code slab} is null: a packed row ({@link RowList#packedRecord}).
     */
    public RowRecord read(byte[] slab, long record) {
        if (slab != null) return row.wrap(slab, (int) record);
        int length = RowRecord.nativeLength(record);
        if (length > scratch.length) scratch = new byte[Math.max(length, scratch.length * 2)];
        NativeMemory.copyToArray(record, scratch, 0, length);
        return row.wrap(scratch, 0);
    }
}

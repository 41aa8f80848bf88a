package dev.flushline.memtable;

import dev.flushline.data.RowBuffer;
import dev.flushline.io.NativeMemory;
import dev.flushline.schema.TableSchema;

/**
 * The flush's view of record rows ({@link RowList.Node#isRecord}): one reusable {@link RowBuffer}
 * re-filled per row, whose values and paths point into the record, so reading a row allocates
 * nothing. A heap record is read where it lies in its slab; a native record is first copied, in one
 * block, into a scratch array that grows to the largest record seen.
 *
 * <p>Thread safety: none; one reader per flushing thread. The RowBuffer returned by {@link #read}
 * is valid until the next call. REQUIRES: the memtable is sealed and not discarded.
 */
public final class MemtableRowReader {
    private final RowBuffer row;
    private byte[] scratch = new byte[256];

    public MemtableRowReader(TableSchema schema) {
        this.row = new RowBuffer(schema.clusteringColumns().length,
                Math.max(schema.regularColumns().length, schema.staticColumns().length));
    }

    /** The row of a record node. REQUIRES: {@code node.isRecord()}. */
    public RowBuffer read(RowList.Node node) {
        if (node.slab != null) {
            RowRecord.decode(node.slab, (int) node.record, node.clustering(), row);
            return row;
        }
        int length = RowRecord.nativeLength(node.record);
        if (length > scratch.length) scratch = new byte[Math.max(length, scratch.length * 2)];
        NativeMemory.copyToArray(node.record, scratch, 0, length);
        RowRecord.decode(scratch, 0, node.clustering(), row);
        return row;
    }
}

package dev.flushline.jmh;

import dev.flushline.data.Cell;
import dev.flushline.jmh.ExperimentCells.ArrayXCell;
import dev.flushline.jmh.ExperimentCells.BufferXCell;
import dev.flushline.jmh.ExperimentCells.NativeXCell;
import dev.flushline.jmh.ExperimentCells.XCell;
import dev.flushline.jmh.ExperimentCells.XRow;
import dev.flushline.io.FixedBuffer;
import dev.flushline.io.NativeMemory;
import dev.flushline.io.VInt;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.sstable.ClusteringLayout;
import dev.flushline.sstable.DataLayout;
import dev.flushline.sstable.EncodingStats;
import dev.flushline.sstable.SerializationHeader;

/**
 * The split side of {@link CellSerializationBench}: the same bytes as
 * {@link SharedCallSiteRowSerializer}, with every per-cell site split by concrete class
 * ({@link NativeXCell}, then {@link ArrayXCell}, then {@link BufferXCell}), each branch calling only
 * final methods of its class, as Cassandra's flush clean-up (CASSANDRA-21083) split them and as
 * Flushline's serializer splits its row sources. The row framing is written again here on purpose.
 *
 * <p>Thread safety: none.
 */
final class SplitCallSiteRowSerializer {
    private final EncodingStats stats;
    private final ClusteringLayout clusteringLayout;
    private final int[] fixedLength;
    private final int headerColumns;

    private long rowTimestamp;

    // Stand-in for StatsCollector.cell(): same comparisons, kept here.
    long minTimestamp = Long.MAX_VALUE, maxTimestamp = Long.MIN_VALUE;
    long minLdt = Long.MAX_VALUE, maxLdt = Long.MIN_VALUE;
    int minTtl = Integer.MAX_VALUE, maxTtl = Integer.MIN_VALUE;
    long cells;

    SplitCallSiteRowSerializer(SerializationHeader header) {
        this.stats = header.stats();
        this.clusteringLayout = new ClusteringLayout(header.schema());
        ColumnMetadata[] cols = header.schema().regularColumns();
        this.fixedLength = new int[cols.length];
        for (int i = 0; i < cols.length; i++) fixedLength[i] = cols[i].type().fixedLength();
        this.headerColumns = header.regularColumns().length;
    }

    int rowSize(XRow row, long prevSize) {
        rowTimestamp = row.livenessTimestamp;
        int body = rowBodySize(row, prevSize);
        return 1 + VInt.sizeOfUnsigned(body) + body + clusteringLayout.valuesSize(row.clustering);
    }

    private int rowBodySize(XRow row, long prevSize) {
        int size = VInt.sizeOfUnsigned(prevSize) + stats.timestampSize(rowTimestamp);
        final XCell[] cells = row.cells;
        final int[] fixed = fixedLength;
        for (int i = 0; i < cells.length; i++) {
            XCell c = cells[i];
            if (c != null) size += cellSize(c, fixed[i]);
        }
        return size;
    }

    void writeRow(FixedBuffer out, XRow row, long prevSize, int expectedSize) {
        final int start = out.position();
        rowTimestamp = row.livenessTimestamp;
        if (row.cells.length != headerColumns) throw new IllegalArgumentException("the experiment writes full rows only");
        out.putByte(DataLayout.HAS_TIMESTAMP | DataLayout.HAS_ALL_COLUMNS);
        clusteringLayout.putValues(out, row.clustering);
        out.putUnsignedVInt(rowBodySize(row, prevSize));
        out.putUnsignedVInt(prevSize);
        stats.putTimestamp(out, rowTimestamp);
        minTimestamp = Math.min(minTimestamp, rowTimestamp);
        maxTimestamp = Math.max(maxTimestamp, rowTimestamp);
        final XCell[] cells = row.cells;
        final int[] fixed = fixedLength;
        for (int i = 0; i < cells.length; i++) {
            XCell c = cells[i];
            if (c != null) writeCell(out, c, fixed[i]);
        }
        FixedBuffer.checkWritten("baseline row", expectedSize, out.position() - start);
    }

    // ---- the split call sites: one branch per concrete class, each inlined ----------------

    private int flags(long ts, int ttl, long ldt, int valueLength) {
        boolean expiring = ttl != Cell.NO_TTL;
        boolean deleted = !expiring && ldt != Cell.NO_DELETION_TIME;
        int flags = 0;
        if (valueLength == 0) flags |= DataLayout.CELL_HAS_EMPTY_VALUE;
        if (deleted) flags |= DataLayout.CELL_IS_DELETED;
        else if (expiring) flags |= DataLayout.CELL_IS_EXPIRING;
        if (ts == rowTimestamp) flags |= DataLayout.CELL_USE_ROW_TIMESTAMP;
        return flags; // rows here never expire, so USE_ROW_TTL never applies
    }

    private int cellSize(XCell c, int fixed) {
        long ts, ldt;
        int ttl, valueLength;
        if (c instanceof NativeXCell) {
            NativeXCell n = (NativeXCell) c;
            ts = n.timestamp();
            ttl = n.ttl();
            ldt = n.localDeletionTime();
            valueLength = n.valueLength();
        } else if (c instanceof ArrayXCell) {
            ArrayXCell a = (ArrayXCell) c;
            ts = a.timestamp;
            ttl = a.ttl;
            ldt = a.localDeletionTime;
            valueLength = a.value.length;
        } else {
            BufferXCell b = (BufferXCell) c;
            ts = b.timestamp;
            ttl = b.ttl;
            ldt = b.localDeletionTime;
            valueLength = b.value.remaining();
        }
        int flags = flags(ts, ttl, ldt, valueLength);
        int size = 1;
        if ((flags & DataLayout.CELL_USE_ROW_TIMESTAMP) == 0) size += stats.timestampSize(ts);
        if ((flags & (DataLayout.CELL_IS_DELETED | DataLayout.CELL_IS_EXPIRING)) != 0) size += stats.localDeletionTimeSize(ldt);
        if ((flags & DataLayout.CELL_IS_EXPIRING) != 0) size += stats.ttlSize(ttl);
        if (valueLength > 0) size += (fixed >= 0 ? 0 : VInt.sizeOfUnsigned(valueLength)) + valueLength;
        return size;
    }

    private void writeCell(FixedBuffer out, XCell c, int fixed) {
        if (c instanceof NativeXCell) {
            NativeXCell n = (NativeXCell) c;
            int valueLength = n.valueLength();
            writeHeader(out, n.timestamp(), n.ttl(), n.localDeletionTime(), valueLength, fixed);
            if (valueLength > 0) {
                int pos = out.position();
                out.ensureRemaining(valueLength);
                NativeMemory.copyToArray(n.address + NativeXCell.VALUE_OFFSET, out.array(), pos, valueLength);
                out.position(pos + valueLength);
            }
        } else if (c instanceof ArrayXCell) {
            ArrayXCell a = (ArrayXCell) c;
            writeHeader(out, a.timestamp, a.ttl, a.localDeletionTime, a.value.length, fixed);
            if (a.value.length > 0) out.putBytes(a.value, 0, a.value.length);
        } else {
            BufferXCell b = (BufferXCell) c;
            int valueLength = b.value.remaining();
            writeHeader(out, b.timestamp, b.ttl, b.localDeletionTime, valueLength, fixed);
            if (valueLength > 0) {
                int pos = out.position();
                out.ensureRemaining(valueLength);
                b.value.get(b.value.position(), out.array(), pos, valueLength);
                out.position(pos + valueLength);
            }
        }
    }

    private void writeHeader(FixedBuffer out, long ts, int ttl, long ldt, int valueLength, int fixed) {
        int flags = flags(ts, ttl, ldt, valueLength);
        out.putByte(flags);
        if ((flags & DataLayout.CELL_USE_ROW_TIMESTAMP) == 0) stats.putTimestamp(out, ts);
        if ((flags & (DataLayout.CELL_IS_DELETED | DataLayout.CELL_IS_EXPIRING)) != 0) stats.putLocalDeletionTime(out, ldt);
        if ((flags & DataLayout.CELL_IS_EXPIRING) != 0) stats.putTtl(out, ttl);
        noteCell(ts, ttl, ldt);
        if (valueLength > 0 && fixed < 0) out.putUnsignedVInt(valueLength);
    }

    private void noteCell(long ts, int ttl, long ldt) {
        cells++;
        if (ts < minTimestamp) minTimestamp = ts;
        if (ts > maxTimestamp) maxTimestamp = ts;
        if (ttl < minTtl) minTtl = ttl;
        if (ttl > maxTtl) maxTtl = ttl;
        if (ldt < minLdt) minLdt = ldt;
        if (ldt > maxLdt) maxLdt = ldt;
    }
}

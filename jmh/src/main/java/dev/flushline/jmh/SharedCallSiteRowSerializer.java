package dev.flushline.jmh;

import dev.flushline.data.Cell;
import dev.flushline.jmh.ExperimentCells.XCell;
import dev.flushline.jmh.ExperimentCells.XRow;
import dev.flushline.io.FixedBuffer;
import dev.flushline.io.VInt;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.sstable.ClusteringLayout;
import dev.flushline.sstable.DataLayout;
import dev.flushline.sstable.EncodingStats;
import dev.flushline.sstable.SerializationHeader;

/**
 * The baseline for {@link CellSerializationBench}: oa row bytes (the same as Flushline's
 * {@code sstable.RowSerializer} writes for the same row), written the way Cassandra's
 * {@code Cell.Serializer} does it, with one virtual call per {@link XCell} accessor on a single
 * shared call site and the value copied through {@link XCell#copyValueTo}. When all three cell
 * classes are live, every accessor site here is megamorphic (a vtable call, no inlining).
 * {@link SplitCallSiteRowSerializer} is the same code with the cell sites split by class; the row
 * framing is deliberately written in each, since the shape of these call sites is what is measured.
 *
 * <p>Scope: exactly what the benchmark's rows hold, namely regular rows with primary-key liveness
 * (no TTL), no row deletion, every header column present, simple cells (live, expiring or
 * tombstone). It keeps the same per-cell statistics as {@code StatsCollector} (min/max timestamp,
 * ttl, local deletion time) in its own fields, since the collector's hot methods are
 * package-private. {@link CellSerializationBench} checks in its setup that this writes
 * byte-for-byte what {@code RowSerializer} writes, so both do the same work.
 *
 * <p>Thread safety: none.
 */
final class SharedCallSiteRowSerializer {
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

    SharedCallSiteRowSerializer(SerializationHeader header) {
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

    // ---- the shared call sites: every accessor below is a virtual call on XCell ----------------

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
        long ts = c.timestamp();
        int ttl = c.ttl();
        long ldt = c.localDeletionTime();
        int valueLength = c.valueLength();
        int flags = flags(ts, ttl, ldt, valueLength);
        int size = 1;
        if ((flags & DataLayout.CELL_USE_ROW_TIMESTAMP) == 0) size += stats.timestampSize(ts);
        if ((flags & (DataLayout.CELL_IS_DELETED | DataLayout.CELL_IS_EXPIRING)) != 0) size += stats.localDeletionTimeSize(ldt);
        if ((flags & DataLayout.CELL_IS_EXPIRING) != 0) size += stats.ttlSize(ttl);
        if (valueLength > 0) size += (fixed >= 0 ? 0 : VInt.sizeOfUnsigned(valueLength)) + valueLength;
        return size;
    }

    private void writeCell(FixedBuffer out, XCell c, int fixed) {
        long ts = c.timestamp();
        int ttl = c.ttl();
        long ldt = c.localDeletionTime();
        int valueLength = c.valueLength();
        int flags = flags(ts, ttl, ldt, valueLength);
        out.putByte(flags);
        if ((flags & DataLayout.CELL_USE_ROW_TIMESTAMP) == 0) stats.putTimestamp(out, ts);
        if ((flags & (DataLayout.CELL_IS_DELETED | DataLayout.CELL_IS_EXPIRING)) != 0) stats.putLocalDeletionTime(out, ldt);
        if ((flags & DataLayout.CELL_IS_EXPIRING) != 0) stats.putTtl(out, ttl);
        noteCell(ts, ttl, ldt);
        if (valueLength > 0) {
            if (fixed < 0) out.putUnsignedVInt(valueLength);
            int pos = out.position();
            out.ensureRemaining(valueLength);
            c.copyValueTo(out.array(), pos);
            out.position(pos + valueLength);
        }
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

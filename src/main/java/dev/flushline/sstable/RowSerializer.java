package dev.flushline.sstable;

import dev.flushline.data.ArrayCell;
import dev.flushline.data.BufferCell;
import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.NativeCell;
import dev.flushline.data.Row;
import dev.flushline.io.FixedBuffer;
import dev.flushline.io.VInt;
import dev.flushline.sstable.ClusteringLayout;
import dev.flushline.sstable.DataLayout;
import dev.flushline.sstable.DeletionTimeLayout;
import dev.flushline.sstable.EncodingStats;
import dev.flushline.sstable.SerializationHeader;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.TableSchema;

import java.nio.ByteBuffer;

/**
 * Serializes rows and range-tombstone markers into Data.db's oa layout (see {@link DataLayout}),
 * in two passes over the same layout rules: {@code ...Size} computes the exact byte count, the
 * caller reserves exactly that much in its output block, and {@code write...} fills it and checks
 * that it wrote exactly that much. There is no scratch buffer and no copy per row.
 *
 * <p>Hot path. Every per-cell site is split by concrete class: {@link NativeCell} first, then
 * {@link ArrayCell}, then the generic fallback (in practice {@link BufferCell}), and each branch
 * calls only final methods of its class. The write pass also feeds the {@link StatsCollector}
 * with primitives it already holds. Nothing here allocates.
 *
 * <p>Thread safety: none. One instance per flush writer; the current row's liveness is kept in
 * fields between {@link #beginRow} and the end of the row's write.
 */
public final class RowSerializer {
    private final EncodingStats stats;
    private final ClusteringLayout clusteringLayout;
    private final SerializationHeader header;
    private final StatsCollector collector;

    // Per kind (static / regular): table columns, header membership, value layout.
    private final int staticHeaderCount;
    private final int regularHeaderCount;
    private final int staticComplexStart;
    private final int regularComplexStart;
    private final int[] staticFixedLength;
    private final int[] regularFixedLength;
    private final int[] staticHeaderIndex;
    private final int[] regularHeaderIndex;

    // The last row sized by rowSize(), so that writeRow() of the same row reuses its body size
    // instead of walking every cell a third time.
    private Row sizedRow;
    private long sizedPrevSize;
    private int sizedBodyBytes;

    // The row being sized or written: what cells compare against for USE_ROW_TIMESTAMP/TTL.
    private boolean rowHasLiveness;
    private long rowTimestamp;
    private boolean rowExpiring;
    private int rowTtl;
    private long rowExpiration;

    public RowSerializer(SerializationHeader header, StatsCollector collector) {
        TableSchema schema = header.schema();
        this.header = header;
        this.stats = header.stats();
        this.collector = collector;
        this.clusteringLayout = new ClusteringLayout(schema);
        this.staticHeaderCount = header.staticColumns().length;
        this.regularHeaderCount = header.regularColumns().length;
        this.staticComplexStart = schema.staticComplexStart();
        this.regularComplexStart = schema.regularComplexStart();
        this.staticFixedLength = fixedLengths(schema.staticColumns());
        this.regularFixedLength = fixedLengths(schema.regularColumns());
        this.staticHeaderIndex = new int[schema.staticColumns().length];
        for (int i = 0; i < staticHeaderIndex.length; i++) staticHeaderIndex[i] = header.staticIndex(i);
        this.regularHeaderIndex = new int[schema.regularColumns().length];
        for (int i = 0; i < regularHeaderIndex.length; i++) regularHeaderIndex[i] = header.regularIndex(i);
    }

    private static int[] fixedLengths(ColumnMetadata[] cols) {
        int[] out = new int[cols.length];
        for (int i = 0; i < cols.length; i++) {
            out[i] = cols[i].isComplex() ? -1 : cols[i].type().fixedLength();
        }
        return out;
    }

    public ClusteringLayout clusteringLayout() {
        return clusteringLayout;
    }

    // ---- rows ------------------------------------------------------------------------------------

    private void beginRow(Row row) {
        rowHasLiveness = row.hasLiveness();
        rowTimestamp = row.livenessTimestamp();
        rowExpiring = row.isLivenessExpiring();
        rowTtl = row.livenessTtl();
        rowExpiration = row.livenessExpirationTime();
    }

    private int flags(Row row, int presentColumns) {
        int flags = 0;
        if (row.hasLiveness()) {
            flags |= DataLayout.HAS_TIMESTAMP;
            if (row.isLivenessExpiring()) flags |= DataLayout.HAS_TTL;
        }
        if (!row.deletion().isLive()) flags |= DataLayout.HAS_DELETION;
        if (presentColumns == (row.isStatic() ? staticHeaderCount : regularHeaderCount)) flags |= DataLayout.HAS_ALL_COLUMNS;
        if (row.hasComplexDeletion()) flags |= DataLayout.HAS_COMPLEX_DELETION;
        if (row.isStatic()) flags |= DataLayout.EXTENSION_FLAG;
        return flags;
    }

    /** Exact bytes of {@code row} with this previous-unfiltered size, flags byte included. */
    public int rowSize(Row row, long prevSize) {
        beginRow(row);
        int present = row.columnCount();
        int flags = flags(row, present);
        int body = rowBodySize(row, flags, present, prevSize);
        sizedRow = row;
        sizedPrevSize = prevSize;
        sizedBodyBytes = body;
        int size = 1 + (row.isStatic() ? 1 : 0) + VInt.sizeOfUnsigned(body) + body;
        if (!row.isStatic()) size += clusteringLayout.valuesSize(row.clustering());
        return size;
    }

    /** Bytes after the row_size vint: prev_size vint, liveness, deletion, bitmap, column data. */
    private int rowBodySize(Row row, int flags, int present, long prevSize) {
        int size = VInt.sizeOfUnsigned(prevSize);
        if ((flags & DataLayout.HAS_TIMESTAMP) != 0) {
            size += stats.timestampSize(rowTimestamp);
            if ((flags & DataLayout.HAS_TTL) != 0) {
                size += stats.ttlSize(rowTtl) + stats.localDeletionTimeSize(rowExpiration);
            }
        }
        if ((flags & DataLayout.HAS_DELETION) != 0) size += stats.deletionTimeSize(row.deletion());
        if ((flags & DataLayout.HAS_ALL_COLUMNS) == 0) size += bitmapSize(row, present);
        boolean writeComplexDeletion = (flags & DataLayout.HAS_COMPLEX_DELETION) != 0;
        final boolean isStatic = row.isStatic();
        final int[] fixed = isStatic ? staticFixedLength : regularFixedLength;
        final Cell[] cells = row.cells();
        for (int i = 0; i < cells.length; i++) {
            Cell c = cells[i];
            if (c == null) continue;
            size += cellSize(c, fixed[i], false);
        }
        final ComplexColumn[] complex = row.complex();
        for (int i = 0; i < complex.length; i++) {
            ComplexColumn cx = complex[i];
            if (cx == null) continue;
            if (writeComplexDeletion) size += stats.deletionTimeSize(cx.complexDeletion());
            Cell[] cc = cx.cells();
            size += VInt.sizeOfUnsigned(cc.length);
            for (int j = 0; j < cc.length; j++) {
                size += cellSize(cc[j], -1, true);
            }
        }
        return size;
    }

    /**
     * Writes {@code row} and feeds the stats collector. REQUIRES: {@code expectedSize} came from
     * {@link #rowSize} for the same row and prevSize, and {@code out} has that much room.
     */
    public void writeRow(FixedBuffer out, Row row, long prevSize, int expectedSize) {
        final int start = out.position();
        beginRow(row);
        int present = row.columnCount();
        int flags = flags(row, present);
        out.putByte(flags);
        if (row.isStatic()) {
            out.putByte(DataLayout.IS_STATIC);
        } else {
            clusteringLayout.putValues(out, row.clustering());
        }
        int body = (row == sizedRow && prevSize == sizedPrevSize) ? sizedBodyBytes : rowBodySize(row, flags, present, prevSize);
        out.putUnsignedVInt(body);
        out.putUnsignedVInt(prevSize);
        if ((flags & DataLayout.HAS_TIMESTAMP) != 0) {
            stats.putTimestamp(out, rowTimestamp);
            if ((flags & DataLayout.HAS_TTL) != 0) {
                stats.putTtl(out, rowTtl);
                stats.putLocalDeletionTime(out, rowExpiration);
            }
            collector.liveness(rowTimestamp, rowTtl, rowExpiration);
        }
        if ((flags & DataLayout.HAS_DELETION) != 0) {
            stats.putDeletionTime(out, row.deletion());
            collector.deletion(row.deletion());
        }
        if ((flags & DataLayout.HAS_ALL_COLUMNS) == 0) putBitmap(out, row, present);

        boolean writeComplexDeletion = (flags & DataLayout.HAS_COMPLEX_DELETION) != 0;
        final int[] fixed = row.isStatic() ? staticFixedLength : regularFixedLength;
        final Cell[] cells = row.cells();
        int columnsWithCells = 0;
        for (int i = 0; i < cells.length; i++) {
            Cell c = cells[i];
            if (c == null) continue;
            writeCell(out, c, fixed[i], false);
            columnsWithCells++;
        }
        final ComplexColumn[] complex = row.complex();
        for (int i = 0; i < complex.length; i++) {
            ComplexColumn cx = complex[i];
            if (cx == null) continue;
            if (writeComplexDeletion) stats.putDeletionTime(out, cx.complexDeletion());
            collector.deletion(cx.complexDeletion());
            Cell[] cc = cx.cells();
            out.putUnsignedVInt(cc.length);
            for (int j = 0; j < cc.length; j++) {
                writeCell(out, cc[j], -1, true);
            }
            if (cc.length > 0) columnsWithCells++;
        }
        if (!row.isEmpty()) collector.rowColumns(columnsWithCells); // Cassandra skips stats for an empty static row
        FixedBuffer.checkWritten(row.isStatic() ? "static row" : "row", expectedSize, out.position() - start);
    }

    // ---- column subset bitmap (layout: DataLayout) -------------------------------------------

    private boolean isPresent(Row row, int position, int complexStart) {
        return position < complexStart ? row.cells()[position] != null : row.complex()[position - complexStart] != null;
    }

    private int bitmapSize(Row row, int present) {
        final boolean isStatic = row.isStatic();
        final int n = isStatic ? staticHeaderCount : regularHeaderCount;
        if (n < DataLayout.LARGE_SUBSET_THRESHOLD) {
            return VInt.sizeOfUnsigned(missingBits(row));
        }
        int size = VInt.sizeOfUnsignedInt32(n - present);
        boolean writePresent = present < n / 2;
        final int[] headerIndex = isStatic ? staticHeaderIndex : regularHeaderIndex;
        final int complexStart = isStatic ? staticComplexStart : regularComplexStart;
        for (int p = 0; p < headerIndex.length; p++) {
            int h = headerIndex[p];
            if (h < 0) continue;
            if (isPresent(row, p, complexStart) == writePresent) size += VInt.sizeOfUnsignedInt32(h);
        }
        return size;
    }

    private void putBitmap(FixedBuffer out, Row row, int present) {
        final boolean isStatic = row.isStatic();
        final int n = isStatic ? staticHeaderCount : regularHeaderCount;
        if (n < DataLayout.LARGE_SUBSET_THRESHOLD) {
            out.putUnsignedVInt(missingBits(row));
            return;
        }
        out.putUnsignedVInt32(n - present);
        boolean writePresent = present < n / 2;
        final int[] headerIndex = isStatic ? staticHeaderIndex : regularHeaderIndex;
        final int complexStart = isStatic ? staticComplexStart : regularComplexStart;
        for (int p = 0; p < headerIndex.length; p++) {
            int h = headerIndex[p];
            if (h < 0) continue;
            if (isPresent(row, p, complexStart) == writePresent) out.putUnsignedVInt32(h);
        }
    }

    /** Bit i set when the header's i-th column is missing from the row (fewer than 64 columns). */
    private long missingBits(Row row) {
        final boolean isStatic = row.isStatic();
        final int[] headerIndex = isStatic ? staticHeaderIndex : regularHeaderIndex;
        final int complexStart = isStatic ? staticComplexStart : regularComplexStart;
        long bits = 0;
        for (int p = 0; p < headerIndex.length; p++) {
            int h = headerIndex[p];
            if (h >= 0 && !isPresent(row, p, complexStart)) bits |= 1L << h;
        }
        return bits;
    }

    // ---- cells: call sites split by concrete class ----------------------------------------------

    private int cellFlags(long ts, int ttl, long ldt, int valueLength) {
        boolean isExpiring = ttl != Cell.NO_TTL;
        boolean isDeleted = !isExpiring && ldt != Cell.NO_DELETION_TIME;
        int flags = 0;
        if (valueLength == 0) flags |= DataLayout.CELL_HAS_EMPTY_VALUE;
        if (isDeleted) flags |= DataLayout.CELL_IS_DELETED;
        else if (isExpiring) flags |= DataLayout.CELL_IS_EXPIRING;
        if (rowHasLiveness && ts == rowTimestamp) flags |= DataLayout.CELL_USE_ROW_TIMESTAMP;
        if (isExpiring && rowExpiring && ttl == rowTtl && ldt == rowExpiration) flags |= DataLayout.CELL_USE_ROW_TTL;
        return flags;
    }

    /** Bytes of the flags and time deltas; the path and value are added by the caller. */
    private int cellHeaderSize(int flags, long ts, int ttl, long ldt) {
        int size = 1;
        if ((flags & DataLayout.CELL_USE_ROW_TIMESTAMP) == 0) size += stats.timestampSize(ts);
        if ((flags & DataLayout.CELL_USE_ROW_TTL) == 0) {
            if ((flags & (DataLayout.CELL_IS_DELETED | DataLayout.CELL_IS_EXPIRING)) != 0) size += stats.localDeletionTimeSize(ldt);
            if ((flags & DataLayout.CELL_IS_EXPIRING) != 0) size += stats.ttlSize(ttl);
        }
        return size;
    }

    private void putCellHeader(FixedBuffer out, int flags, long ts, int ttl, long ldt) {
        out.putByte(flags);
        if ((flags & DataLayout.CELL_USE_ROW_TIMESTAMP) == 0) stats.putTimestamp(out, ts);
        if ((flags & DataLayout.CELL_USE_ROW_TTL) == 0) {
            if ((flags & (DataLayout.CELL_IS_DELETED | DataLayout.CELL_IS_EXPIRING)) != 0) stats.putLocalDeletionTime(out, ldt);
            if ((flags & DataLayout.CELL_IS_EXPIRING) != 0) stats.putTtl(out, ttl);
        }
    }

    /** Path and value bytes: path as bytes_v when complex; value raw when fixed, else bytes_v; empty skipped. */
    private static int pathAndValueSize(int pathLength, int valueLength, int fixedLength, boolean complex) {
        int size = complex ? VInt.sizeOfUnsigned(pathLength) + pathLength : 0;
        if (valueLength > 0) {
            if (fixedLength >= 0) {
                if (valueLength != fixedLength) {
                    throw new IllegalArgumentException("cell value has " + valueLength + " bytes; its type needs exactly " + fixedLength);
                }
                size += valueLength;
            } else {
                size += VInt.sizeOfUnsigned(valueLength) + valueLength;
            }
        }
        return size;
    }

    private int cellSize(Cell c, int fixedLength, boolean complex) {
        if (c instanceof NativeCell) {
            NativeCell n = (NativeCell) c;
            long ts = n.timestamp(), ldt = n.localDeletionTime();
            int ttl = n.ttl(), valueLength = n.valueLength();
            return cellHeaderSize(cellFlags(ts, ttl, ldt, valueLength), ts, ttl, ldt)
                    + pathAndValueSize(n.pathLength(), valueLength, fixedLength, complex);
        }
        if (c instanceof ArrayCell) {
            ArrayCell a = (ArrayCell) c;
            long ts = a.timestamp(), ldt = a.localDeletionTime();
            int ttl = a.ttl(), valueLength = a.valueLength();
            return cellHeaderSize(cellFlags(ts, ttl, ldt, valueLength), ts, ttl, ldt)
                    + pathAndValueSize(a.pathLength(), valueLength, fixedLength, complex);
        }
        return genericCellSize(c, fixedLength, complex);
    }

    /**
     * The third branch. Cell has exactly three subclasses (its constructor is package-private), so
     * what is neither native nor array is a BufferCell: cast first, then every call is to a final
     * method of one class.
     */
    private int genericCellSize(Cell c, int fixedLength, boolean complex) {
        BufferCell b = asBufferCell(c);
        long ts = b.timestamp(), ldt = b.localDeletionTime();
        int ttl = b.ttl(), valueLength = b.valueLength();
        return cellHeaderSize(cellFlags(ts, ttl, ldt, valueLength), ts, ttl, ldt)
                + pathAndValueSize(b.pathLength(), valueLength, fixedLength, complex);
    }

    private static BufferCell asBufferCell(Cell c) {
        if (!(c instanceof BufferCell)) {
            throw new IllegalStateException("unknown cell class " + c.getClass().getName());
        }
        return (BufferCell) c;
    }

    private void writeCell(FixedBuffer out, Cell c, int fixedLength, boolean complex) {
        if (c instanceof NativeCell) {
            writeNativeCell(out, (NativeCell) c, fixedLength, complex);
        } else if (c instanceof ArrayCell) {
            writeArrayCell(out, (ArrayCell) c, fixedLength, complex);
        } else {
            writeGenericCell(out, c, fixedLength, complex);
        }
    }

    private void writeNativeCell(FixedBuffer out, NativeCell n, int fixedLength, boolean complex) {
        long ts = n.timestamp(), ldt = n.localDeletionTime();
        int ttl = n.ttl(), valueLength = n.valueLength();
        putCellHeader(out, cellFlags(ts, ttl, ldt, valueLength), ts, ttl, ldt);
        collector.cell(ts, ttl, ldt);
        if (complex) {
            int pathLength = n.pathLength();
            out.putUnsignedVInt(pathLength);
            out.putNative(n.pathAddress(), pathLength);
        }
        writeNativeValueSkipNullAndEmpty(out, n.valueAddress(), valueLength, fixedLength);
    }

    private void writeArrayCell(FixedBuffer out, ArrayCell a, int fixedLength, boolean complex) {
        long ts = a.timestamp(), ldt = a.localDeletionTime();
        int ttl = a.ttl();
        byte[] value = a.value();
        putCellHeader(out, cellFlags(ts, ttl, ldt, value.length), ts, ttl, ldt);
        collector.cell(ts, ttl, ldt);
        if (complex) {
            byte[] path = a.path();
            out.putUnsignedVInt(path.length);
            out.putBytes(path, 0, path.length);
        }
        writeArrayValueSkipNullAndEmpty(out, value, fixedLength);
    }

    private void writeGenericCell(FixedBuffer out, Cell c, int fixedLength, boolean complex) {
        BufferCell b = asBufferCell(c); // before anything is written
        long ts = b.timestamp(), ldt = b.localDeletionTime();
        int ttl = b.ttl(), valueLength = b.valueLength();
        putCellHeader(out, cellFlags(ts, ttl, ldt, valueLength), ts, ttl, ldt);
        collector.cell(ts, ttl, ldt);
        if (complex) {
            ByteBuffer path = b.path();
            int pathLength = b.pathLength();
            out.putUnsignedVInt(pathLength);
            if (pathLength > 0) out.putBuffer(path, path.position(), pathLength);
        }
        writeBufferValueSkipNullAndEmpty(out, b.value(), valueLength, fixedLength);
    }

    // Value writers. Empty values are not written: the cell's HAS_EMPTY_VALUE flag records them.

    private static void writeNativeValueSkipNullAndEmpty(FixedBuffer out, long address, int length, int fixedLength) {
        if (length == 0) return;
        if (fixedLength < 0) out.putUnsignedVInt(length);
        out.putNative(address, length);
    }

    private static void writeArrayValueSkipNullAndEmpty(FixedBuffer out, byte[] value, int fixedLength) {
        if (value == null || value.length == 0) return;
        if (fixedLength < 0) out.putUnsignedVInt(value.length);
        out.putBytes(value, 0, value.length);
    }

    private static void writeBufferValueSkipNullAndEmpty(FixedBuffer out, ByteBuffer value, int length, int fixedLength) {
        if (value == null || length == 0) return;
        if (fixedLength < 0) out.putUnsignedVInt(length);
        out.putBuffer(value, value.position(), length);
    }

    // ---- range tombstone markers (layout: DataLayout) -------------------------------------------

    private int markerBodySize(ClusteringBound bound, DeletionTime endDeletion, DeletionTime startDeletion, long prevSize) {
        int size = VInt.sizeOfUnsigned(prevSize);
        if (bound.isBoundary()) {
            size += stats.deletionTimeSize(endDeletion) + stats.deletionTimeSize(startDeletion);
        } else {
            size += stats.deletionTimeSize(bound.isStart() ? startDeletion : endDeletion);
        }
        return size;
    }

    /** Exact bytes of a marker. For a start bound pass LIVE as endDeletion, and vice versa. */
    public int markerSize(ClusteringBound bound, DeletionTime endDeletion, DeletionTime startDeletion, long prevSize) {
        int body = markerBodySize(bound, endDeletion, startDeletion, prevSize);
        return 1 + clusteringLayout.boundSize(bound.values()) + VInt.sizeOfUnsigned(body) + body;
    }

    public void writeMarker(FixedBuffer out, ClusteringBound bound, DeletionTime endDeletion, DeletionTime startDeletion,
                            long prevSize, int expectedSize) {
        final int start = out.position();
        out.putByte(DataLayout.IS_MARKER);
        clusteringLayout.putBound(out, bound.kind(), bound.values());
        out.putUnsignedVInt(markerBodySize(bound, endDeletion, startDeletion, prevSize));
        out.putUnsignedVInt(prevSize);
        if (bound.isBoundary()) {
            stats.putDeletionTime(out, endDeletion);
            stats.putDeletionTime(out, startDeletion);
            collector.deletion(endDeletion);
            collector.deletion(startDeletion);
        } else {
            DeletionTime d = bound.isStart() ? startDeletion : endDeletion;
            stats.putDeletionTime(out, d);
            collector.deletion(d);
        }
        collector.markerBound(bound);
        FixedBuffer.checkWritten("range tombstone marker", expectedSize, out.position() - start);
    }

    // ---- partition header (key + oa partition deletion, DeletionTimeLayout) ---------------------

    public static int partitionHeaderSize(byte[] key, DeletionTime d) {
        return 2 + key.length + DeletionTimeLayout.size(d);
    }

    public void writePartitionHeader(FixedBuffer out, byte[] key, DeletionTime d, int expectedSize) {
        final int start = out.position();
        if (key.length > DataLayout.MAX_KEY_LENGTH) {
            throw new IllegalArgumentException("partition key of " + key.length + " bytes exceeds " + DataLayout.MAX_KEY_LENGTH);
        }
        out.putShort(key.length);
        out.putBytes(key, 0, key.length);
        DeletionTimeLayout.put(out, d);
        collector.partitionDeletion(d);
        FixedBuffer.checkWritten("partition header", expectedSize, out.position() - start);
    }

    public SerializationHeader header() {
        return header;
    }
}

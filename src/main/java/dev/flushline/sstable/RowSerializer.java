package dev.flushline.sstable;

import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ClusteringBuffer;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.Row;
import dev.flushline.data.RowBuffer;
import dev.flushline.data.RowRecord;
import dev.flushline.io.FixedBuffer;
import dev.flushline.io.VInt;
import dev.flushline.sstable.ClusteringLayout;
import dev.flushline.sstable.DataLayout;
import dev.flushline.sstable.DeletionTimeLayout;
import dev.flushline.sstable.EncodingStats;
import dev.flushline.sstable.SerializationHeader;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.TableSchema;


/**
 * Serializes rows and range-tombstone markers into Data.db's oa layout (see {@link DataLayout}),
 * in two passes over the same layout rules: {@code ...Size} computes the exact byte count, the
 * caller reserves exactly that much in its output block, and {@code write...} fills it and checks
 * that it wrote exactly that much. There is no scratch buffer and no copy per row.
 *
 * <p>Hot path. The one polymorphic site is the row source (below), split once per row by its
 * concrete class; inside each branch every call is to a final method of one final class ({@link Cell}
 * is final). The write pass also feeds the {@link StatsCollector} with primitives it already
 * holds. Nothing here allocates.
 *
 * <p>Three sources, one encoding: {@link Row} (an unslabbed memtable's rows and the bulk writers'),
 * {@link RowRecord} (a flyweight over a slab memtable's row record, for the flush) and
 * {@link RowBuffer} (a reusable flyweight of primitives and byte ranges, for the compaction's merged
 * rows). Each field of the format (flags, clustering, liveness, deletions, column subset, complex
 * heads, cell headers, values, markers) is encoded by one method from primitives, which every walk
 * calls; only the walk over a source's columns is written per source class, so no call site is
 * polymorphic.
 *
 * <p>Thread safety: none. One instance per writer; the current row's liveness is kept in
 * fields between {@link #beginRow} and the end of the row's write.
 */
public final class RowSerializer {
    private final EncodingStats stats;
    private final ClusteringLayout clusteringLayout;
    private final SerializationHeader header;
    private final StatsCollector collector;
    private final SSTableVersion version;

    // Per kind (static / regular): table columns, header membership, value layout.
    private final int staticHeaderCount;
    private final int regularHeaderCount;
    private final int staticComplexStart;
    private final int regularComplexStart;
    private final int[] staticFixedLength;
    private final int[] regularFixedLength;
    private final int[] staticHeaderIndex;
    private final int[] regularHeaderIndex;
    // Positions of the fixed-length simple columns: the only cells a plain row's size pass reads,
    // since their values are written without the length prefix Row's summary counts.
    private final int[] staticFixedSimplePositions;
    private final int[] regularFixedSimplePositions;

    // The last row sized by rowSize(), so that writeRow() of the same row reuses its body size
    // instead of walking every cell a third time.
    private Row sizedRow;
    private long sizedPrevSize;
    private int sizedBodyBytes;

    // The same for a RowBuffer, which is reused: identified by the buffer and its generation.
    private RowBuffer sizedBuffer;
    private long sizedBufferGeneration;
    private long sizedBufferPrevSize;
    private int sizedBufferBodyBytes;

    // The same for a RowRecord flyweight, identified by the flyweight and its generation.
    private RowRecord sizedRecord;
    private long sizedRecordGeneration;
    private long sizedRecordPrevSize;
    private int sizedRecordBodyBytes;

    // By header index (static / regular): value layout and complexity, for rows copied from an input
    // whose header has these columns (its cursor gives header indices, not table positions).
    private final int[] staticFixedByHeader;
    private final int[] regularFixedByHeader;
    private final boolean[] staticComplexByHeader;
    private final boolean[] regularComplexByHeader;

    // The input row prepareCopy accepted (identified by the flyweight and its offset) and what it found.
    private SSTableCursor.Row copySource;
    private long copySourceOffset;
    /** Input header index → this header's, for the row's kind; null when the input has this header's columns. */
    private int[] copyColumnMap;
    private int copyFlags;
    private int copyFieldsBytes;
    private boolean copyVerbatim;
    private boolean copyPlain;
    /**
     * Bytes of the row's cells when each is plain (the row's timestamp and a short value, as
     * prepareCopy's plain sizing found), which then end the input row as this serializer would
     * write them under any bases; -1 otherwise.
     */
    private int copyPlainCellBytes;
    private long copyMinTimestamp, copyMaxTimestamp;
    private int copyColumnsWithCells;

    // Header indices of the columns present in the row being sized or written, in order: what the
    // column subset encodes, filled by each source's own walk (Row or RowBuffer).
    private final int[] presentHeader;
    private int presentCount;

    // The row being sized or written: what cells compare against for USE_ROW_TIMESTAMP/TTL.
    private boolean rowHasLiveness;
    private long rowTimestamp;
    private boolean rowExpiring;
    private int rowTtl;
    private long rowExpiration;

    /** An oa serializer. */
    public RowSerializer(SerializationHeader header, StatsCollector collector) {
        this(header, collector, SSTableVersion.OA);
    }

    /**
     * {@code version} changes only the partition header's deletion time (see {@link SSTableVersion}):
     * rows, cells and markers are written the same for every version.
     */
    public RowSerializer(SerializationHeader header, StatsCollector collector, SSTableVersion version) {
        TableSchema schema = header.schema();
        this.version = version;
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
        this.staticFixedSimplePositions = fixedSimplePositions(staticFixedLength, staticComplexStart);
        this.regularFixedSimplePositions = fixedSimplePositions(regularFixedLength, regularComplexStart);
        this.staticHeaderIndex = new int[schema.staticColumns().length];
        for (int i = 0; i < staticHeaderIndex.length; i++) staticHeaderIndex[i] = header.staticIndex(i);
        this.regularHeaderIndex = new int[schema.regularColumns().length];
        for (int i = 0; i < regularHeaderIndex.length; i++) regularHeaderIndex[i] = header.regularIndex(i);
        this.presentHeader = new int[Math.max(1, Math.max(staticHeaderIndex.length, regularHeaderIndex.length))];
        this.staticFixedByHeader = fixedLengths(header.staticColumns());
        this.regularFixedByHeader = fixedLengths(header.regularColumns());
        this.staticComplexByHeader = complexFlags(header.staticColumns());
        this.regularComplexByHeader = complexFlags(header.regularColumns());
    }

    private static boolean[] complexFlags(ColumnMetadata[] cols) {
        boolean[] out = new boolean[cols.length];
        for (int i = 0; i < cols.length; i++) out[i] = cols[i].isComplex();
        return out;
    }

    private static int[] fixedLengths(ColumnMetadata[] cols) {
        int[] out = new int[cols.length];
        for (int i = 0; i < cols.length; i++) {
            out[i] = cols[i].isComplex() ? -1 : cols[i].type().fixedLength();
        }
        return out;
    }

    private static int[] fixedSimplePositions(int[] fixedLength, int complexStart) {
        int n = 0;
        for (int i = 0; i < complexStart; i++) if (fixedLength[i] >= 0) n++;
        int[] out = new int[n];
        n = 0;
        for (int i = 0; i < complexStart; i++) if (fixedLength[i] >= 0) out[n++] = i;
        return out;
    }

    public ClusteringLayout clusteringLayout() {
        return clusteringLayout;
    }

    // ---- rows: the encoding shared by every source ------------------------------------------------
    //
    // A row is flags, [extended flags | clustering], row_size, prev_size, liveness, deletion, column
    // subset, column data. Every field is encoded by exactly one method below, from primitives; the
    // walk over a source's columns and cells is written once per source class ({@link Row} from an
    // unslabbed memtable or a bulk writer, {@link RowRecord} from a slab memtable's record,
    // {@link RowBuffer} from a compaction merge) so each call site sees one class.

    private void beginRow(boolean hasLiveness, long timestamp, boolean expiring, int ttl, long expiration) {
        rowHasLiveness = hasLiveness;
        rowTimestamp = timestamp;
        rowExpiring = expiring;
        rowTtl = ttl;
        rowExpiration = expiration;
    }

    private int rowFlags(boolean isStatic, boolean deleted, boolean hasComplexDeletion, int presentColumns) {
        int flags = 0;
        if (rowHasLiveness) {
            flags |= DataLayout.HAS_TIMESTAMP;
            if (rowExpiring) flags |= DataLayout.HAS_TTL;
        }
        if (deleted) flags |= DataLayout.HAS_DELETION;
        if (presentColumns == (isStatic ? staticHeaderCount : regularHeaderCount)) flags |= DataLayout.HAS_ALL_COLUMNS;
        if (hasComplexDeletion) flags |= DataLayout.HAS_COMPLEX_DELETION;
        if (isStatic) flags |= DataLayout.EXTENSION_FLAG;
        return flags;
    }

    /** Whole row from its body size: flags, extended flags or clustering, row_size vint, body. */
    private static int rowSizeFromBody(boolean isStatic, int clusteringBytes, int body) {
        return 1 + (isStatic ? 1 : 0) + clusteringBytes + VInt.sizeOfUnsigned(body) + body;
    }

    private void putRowStart(FixedBuffer out, int flags, boolean isStatic) {
        out.putByte(flags);
        if (isStatic) out.putByte(DataLayout.IS_STATIC);
    }

    /** prev_size, liveness and deletion, and the column subset unless every column is present. */
    private int rowHeadSize(int flags, boolean isStatic, long prevSize, long deletionTs, long deletionLdt) {
        return VInt.sizeOfUnsigned(prevSize) + rowFieldsHeadSize(flags, isStatic, deletionTs, deletionLdt);
    }

    /** Liveness and deletion, and the column subset unless every column is present: the head after prev_size. */
    private int rowFieldsHeadSize(int flags, boolean isStatic, long deletionTs, long deletionLdt) {
        int size = 0;
        if ((flags & DataLayout.HAS_TIMESTAMP) != 0) {
            size += stats.timestampSize(rowTimestamp);
            if ((flags & DataLayout.HAS_TTL) != 0) {
                size += stats.ttlSize(rowTtl) + stats.localDeletionTimeSize(rowExpiration);
            }
        }
        if ((flags & DataLayout.HAS_DELETION) != 0) size += stats.deletionTimeSize(deletionTs, deletionLdt);
        if ((flags & DataLayout.HAS_ALL_COLUMNS) == 0) size += bitmapSize(isStatic);
        return size;
    }

    private void putRowHead(FixedBuffer out, int flags, boolean isStatic, int body, long prevSize, long deletionTs, long deletionLdt) {
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
            stats.putDeletionTime(out, deletionTs, deletionLdt);
            collector.deletion(deletionTs, deletionLdt);
        }
        if ((flags & DataLayout.HAS_ALL_COLUMNS) == 0) putBitmap(out, isStatic);
    }

    /** A complex column's head: its deletion (when the row has complex deletions) and cell count. */
    private int complexHeadSize(boolean writeComplexDeletion, long deletionTs, long deletionLdt, int cellCount) {
        return (writeComplexDeletion ? stats.deletionTimeSize(deletionTs, deletionLdt) : 0) + VInt.sizeOfUnsigned(cellCount);
    }

    private void putComplexHead(FixedBuffer out, boolean writeComplexDeletion, long deletionTs, long deletionLdt, int cellCount) {
        if (writeComplexDeletion) stats.putDeletionTime(out, deletionTs, deletionLdt);
        collector.deletion(deletionTs, deletionLdt);
        out.putUnsignedVInt(cellCount);
    }

    private void rowWritten(boolean empty, int columnsWithCells) {
        if (!empty) collector.rowColumns(columnsWithCells); // Cassandra skips stats for an empty static row
    }

    // ---- rows from a memtable (Row) -------------------------------------------------------------

    private void beginRow(Row row) {
        beginRow(row.hasLiveness(), row.livenessTimestamp(), row.isLivenessExpiring(), row.livenessTtl(), row.livenessExpirationTime());
    }

    private int flags(Row row, int presentColumns) {
        return rowFlags(row.isStatic(), !row.deletion().isLive(), row.hasComplexDeletion(), presentColumns);
    }

    /** Exact bytes of {@code row} with this previous-unfiltered size, flags byte included. */
    public int rowSize(Row row, long prevSize) {
        beginRow(row);
        int present = row.columnCount();
        int flags = flags(row, present);
        int body = rowBodySize(row, flags, prevSize);
        sizedRow = row;
        sizedPrevSize = prevSize;
        sizedBodyBytes = body;
        return rowSizeFromBody(row.isStatic(), row.isStatic() ? 0 : clusteringLayout.valuesSize(row.clustering()), body);
    }

    /** Bytes after the row_size vint: prev_size vint, liveness, deletion, bitmap, column data. */
    private int rowBodySize(Row row, int flags, long prevSize) {
        final boolean isStatic = row.isStatic();
        if ((flags & DataLayout.HAS_ALL_COLUMNS) == 0) collectPresent(row);
        DeletionTime d = row.deletion();
        int size = rowHeadSize(flags, isStatic, prevSize, d.markedForDeleteAt(), d.localDeletionTime());
        boolean writeComplexDeletion = (flags & DataLayout.HAS_COMPLEX_DELETION) != 0;
        final int[] fixed = isStatic ? staticFixedLength : regularFixedLength;
        final Cell[] cells = row.cells();
        if (row.simpleCellsShareLiveness()) {
            size += sharedLivenessSimpleCellsSize(row, cells, fixed, isStatic ? staticFixedSimplePositions : regularFixedSimplePositions);
        } else {
            for (int i = 0; i < cells.length; i++) {
                Cell c = cells[i];
                if (c == null) continue;
                size += cellSize(c, fixed[i], false);
            }
        }
        final ComplexColumn[] complex = row.complex();
        for (int i = 0; i < complex.length; i++) {
            ComplexColumn cx = complex[i];
            if (cx == null) continue;
            DeletionTime cd = cx.complexDeletion();
            Cell[] cc = cx.cells();
            size += complexHeadSize(writeComplexDeletion, cd.markedForDeleteAt(), cd.localDeletionTime(), cc.length);
            for (int j = 0; j < cc.length; j++) {
                size += cellSize(cc[j], -1, true);
            }
        }
        return size;
    }

    /**
     * The simple cells of a row whose cells all share its liveness ({@link Row#simpleCellsShareLiveness}):
     * each is its flags byte (USE_ROW_TIMESTAMP, and USE_ROW_TTL if it expires, so no time fields)
     * plus its value, which {@link #pathAndValueSize} sizes as a length vint and the bytes, minus the
     * vint for a fixed-length column. Row has summed the lengths and their vints, so only the cells
     * of fixed-length columns are read here, to drop their vint and check their length.
     */
    private static int sharedLivenessSimpleCellsSize(Row row, Cell[] cells, int[] fixed, int[] fixedPositions) {
        int size = row.simpleCellCount() + row.simpleValueLengthBytes() + row.simpleValueBytes();
        for (int k = 0; k < fixedPositions.length; k++) {
            int p = fixedPositions[k];
            if (p >= cells.length) break;
            Cell c = cells[p];
            if (c == null) continue;
            int valueLength = c.valueLength();
            if (valueLength == 0) continue;
            checkFixedLength(valueLength, fixed[p]);
            size -= VInt.sizeOfUnsigned(valueLength);
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
        final boolean isStatic = row.isStatic();
        putRowStart(out, flags, isStatic);
        if (!isStatic) clusteringLayout.putValues(out, row.clustering());
        int body = (row == sizedRow && prevSize == sizedPrevSize) ? sizedBodyBytes : rowBodySize(row, flags, prevSize);
        if ((flags & DataLayout.HAS_ALL_COLUMNS) == 0) collectPresent(row); // the size pass of another row may have reused it
        DeletionTime d = row.deletion();
        putRowHead(out, flags, isStatic, body, prevSize, d.markedForDeleteAt(), d.localDeletionTime());

        boolean writeComplexDeletion = (flags & DataLayout.HAS_COMPLEX_DELETION) != 0;
        final int[] fixed = isStatic ? staticFixedLength : regularFixedLength;
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
            DeletionTime cd = cx.complexDeletion();
            Cell[] cc = cx.cells();
            putComplexHead(out, writeComplexDeletion, cd.markedForDeleteAt(), cd.localDeletionTime(), cc.length);
            for (int j = 0; j < cc.length; j++) {
                writeCell(out, cc[j], -1, true);
            }
            if (cc.length > 0) columnsWithCells++;
        }
        rowWritten(row.isEmpty(), columnsWithCells);
        FixedBuffer.checkWritten(isStatic ? "static row" : "row", expectedSize, out.position() - start);
    }

    /** Fills the present-column list from a Row's cells and complex columns (table position order). */
    private void collectPresent(Row row) {
        final boolean isStatic = row.isStatic();
        final int[] headerIndex = isStatic ? staticHeaderIndex : regularHeaderIndex;
        final int complexStart = isStatic ? staticComplexStart : regularComplexStart;
        final Cell[] cells = row.cells();
        final ComplexColumn[] complex = row.complex();
        int n = 0;
        for (int p = 0; p < headerIndex.length; p++) {
            boolean present = p < complexStart ? cells[p] != null : complex[p - complexStart] != null;
            if (present) n = addPresent(n, headerIndex[p], p);
        }
        presentCount = n;
    }

    private int addPresent(int n, int headerIndex, int position) {
        if (headerIndex < 0) {
            throw new IllegalArgumentException("column at position " + position + " has data but is not in the serialization header");
        }
        presentHeader[n] = headerIndex;
        return n + 1;
    }

    // ---- rows from a merge (RowBuffer) ----------------------------------------------------------

    private int flags(RowBuffer row) {
        return rowFlags(row.isStatic(), row.isDeleted(), row.hasComplexDeletion(), row.columnCount());
    }

    private void beginRow(RowBuffer row) {
        beginRow(row.hasLiveness(), row.livenessTimestamp(), row.isLivenessExpiring(), row.livenessTtl(), row.livenessExpirationTime());
    }

    /** Exact bytes of a merged row with this previous-unfiltered size. */
    public int rowSize(RowBuffer row, long prevSize) {
        beginRow(row);
        int body = rowBodySize(row, flags(row), prevSize);
        sizedBuffer = row;
        sizedBufferGeneration = row.generation();
        sizedBufferPrevSize = prevSize;
        sizedBufferBodyBytes = body;
        return rowSizeFromBody(row.isStatic(), row.isStatic() ? 0 : clusteringLayout.valuesSize(row.clustering()), body);
    }

    private int rowBodySize(RowBuffer row, int flags, long prevSize) {
        final boolean isStatic = row.isStatic();
        if ((flags & DataLayout.HAS_ALL_COLUMNS) == 0) collectPresent(row);
        int size = rowHeadSize(flags, isStatic, prevSize, row.deletionTimestamp(), row.deletionLocalTime());
        boolean writeComplexDeletion = (flags & DataLayout.HAS_COMPLEX_DELETION) != 0;
        final int[] fixed = isStatic ? staticFixedLength : regularFixedLength;
        final int columns = row.columnCount();
        for (int j = 0; j < columns; j++) {
            int first = row.firstCell(j), count = row.cellCount(j);
            if (!row.isComplex(j)) {
                size += bufferCellSize(row, first, fixed[row.columnPosition(j)], false);
                continue;
            }
            size += complexHeadSize(writeComplexDeletion, row.complexDeletionTimestamp(j), row.complexDeletionLocalTime(j), count);
            for (int k = first; k < first + count; k++) size += bufferCellSize(row, k, -1, true);
        }
        return size;
    }

    /**
     * Writes a merged row and feeds the stats collector. REQUIRES: {@code expectedSize} came from
     * {@link #rowSize(RowBuffer, long)} for the same row and prevSize.
     */
    public void writeRow(FixedBuffer out, RowBuffer row, long prevSize, int expectedSize) {
        final int start = out.position();
        beginRow(row);
        int flags = flags(row);
        final boolean isStatic = row.isStatic();
        putRowStart(out, flags, isStatic);
        if (!isStatic) clusteringLayout.putValues(out, row.clustering());
        int body = row == sizedBuffer && row.generation() == sizedBufferGeneration && prevSize == sizedBufferPrevSize
                ? sizedBufferBodyBytes : rowBodySize(row, flags, prevSize);
        if ((flags & DataLayout.HAS_ALL_COLUMNS) == 0) collectPresent(row);
        putRowHead(out, flags, isStatic, body, prevSize, row.deletionTimestamp(), row.deletionLocalTime());
        boolean writeComplexDeletion = (flags & DataLayout.HAS_COMPLEX_DELETION) != 0;
        final int[] fixed = isStatic ? staticFixedLength : regularFixedLength;
        final int columns = row.columnCount();
        int columnsWithCells = 0;
        for (int j = 0; j < columns; j++) {
            int first = row.firstCell(j), count = row.cellCount(j);
            if (!row.isComplex(j)) {
                writeBufferCell(out, row, first, fixed[row.columnPosition(j)], false);
                columnsWithCells++;
                continue;
            }
            putComplexHead(out, writeComplexDeletion, row.complexDeletionTimestamp(j), row.complexDeletionLocalTime(j), count);
            for (int k = first; k < first + count; k++) writeBufferCell(out, row, k, -1, true);
            if (count > 0) columnsWithCells++;
        }
        rowWritten(row.isEmpty(), columnsWithCells);
        FixedBuffer.checkWritten(isStatic ? "static row" : "row", expectedSize, out.position() - start);
    }

    private void collectPresent(RowBuffer row) {
        final int[] headerIndex = row.isStatic() ? staticHeaderIndex : regularHeaderIndex;
        final int columns = row.columnCount();
        int n = 0;
        for (int j = 0; j < columns; j++) {
            int p = row.columnPosition(j);
            n = addPresent(n, headerIndex[p], p);
        }
        presentCount = n;
    }

    // ---- rows from a memtable record (RowRecord) ------------------------------------------------

    private int flags(RowRecord row) {
        return rowFlags(row.isStatic(), row.isDeleted(), row.hasComplexDeletion(), row.columnCount());
    }

    private void beginRow(RowRecord row) {
        beginRow(row.hasLiveness(), row.livenessTimestamp(), row.isLivenessExpiring(), row.livenessTtl(), row.livenessExpirationTime());
    }

    /** Exact bytes of a record row with this previous-unfiltered size. */
    public int rowSize(RowRecord row, long prevSize) {
        beginRow(row);
        int body = rowBodySize(row, flags(row), prevSize);
        sizedRecord = row;
        sizedRecordGeneration = row.generation();
        sizedRecordPrevSize = prevSize;
        sizedRecordBodyBytes = body;
        return rowSizeFromBody(row.isStatic(), row.isStatic() ? 0 : clusteringLayout.valuesSize(row.clustering()), body);
    }

    /**
     * As for a Row: when every simple cell shares the row's liveness, the record's summary sizes the
     * simple cells, and only the cells of fixed-length columns are read (to drop their length vint
     * and check their length). Every other cell is read once.
     */
    private int rowBodySize(RowRecord row, int flags, long prevSize) {
        final boolean isStatic = row.isStatic();
        if ((flags & DataLayout.HAS_ALL_COLUMNS) == 0) collectPresent(row);
        int size = rowHeadSize(flags, isStatic, prevSize, row.deletionTimestamp(), row.deletionLocalTime());
        boolean writeComplexDeletion = (flags & DataLayout.HAS_COMPLEX_DELETION) != 0;
        final int[] fixed = isStatic ? staticFixedLength : regularFixedLength;
        final boolean summarised = row.simpleCellsShareLiveness();
        final boolean readSimple = !summarised || (isStatic ? staticFixedSimplePositions : regularFixedSimplePositions).length > 0;
        if (summarised) size += row.simpleCellCount() + row.simpleValueLengthBytes() + row.simpleValueBytes();
        if (readSimple || row.columnCount() > row.simpleCellCount()) {
            row.rewind();
            while (row.nextColumn()) {
                if (!row.isComplex()) {
                    if (!readSimple) continue;
                    row.nextCell();
                    int fixedLength = fixed[row.columnPosition()];
                    if (!summarised) {
                        size += recordCellSize(row, fixedLength, false);
                    } else if (fixedLength >= 0 && row.cellValueLength() > 0) {
                        // the summary counted a length vint that a fixed-length value does not have
                        checkFixedLength(row.cellValueLength(), fixedLength);
                        size -= VInt.sizeOfUnsigned(row.cellValueLength());
                    }
                    continue;
                }
                int count = row.columnCellCount();
                size += complexHeadSize(writeComplexDeletion, row.complexDeletionTimestamp(), row.complexDeletionLocalTime(), count);
                for (int k = 0; k < count; k++) {
                    row.nextCell();
                    size += recordCellSize(row, -1, true);
                }
            }
        }
        return size;
    }

    /**
     * Writes a record row and feeds the stats collector. REQUIRES: {@code expectedSize} came from
     * {@link #rowSize(RowRecord, long)} for the same row and prevSize.
     */
    public void writeRow(FixedBuffer out, RowRecord row, long prevSize, int expectedSize) {
        final int start = out.position();
        beginRow(row);
        int flags = flags(row);
        final boolean isStatic = row.isStatic();
        putRowStart(out, flags, isStatic);
        if (!isStatic) clusteringLayout.putValues(out, row.clustering());
        int body = row == sizedRecord && row.generation() == sizedRecordGeneration && prevSize == sizedRecordPrevSize
                ? sizedRecordBodyBytes : rowBodySize(row, flags, prevSize);
        if ((flags & DataLayout.HAS_ALL_COLUMNS) == 0) collectPresent(row);
        putRowHead(out, flags, isStatic, body, prevSize, row.deletionTimestamp(), row.deletionLocalTime());
        boolean writeComplexDeletion = (flags & DataLayout.HAS_COMPLEX_DELETION) != 0;
        final int[] fixed = isStatic ? staticFixedLength : regularFixedLength;
        int columnsWithCells = 0;
        row.rewind();
        if (row.simpleCellsShareLiveness() && !rowExpiring && row.columnCount() == row.simpleCellCount()) {
            writePlainRecordCells(out, row, fixed);
            rowWritten(false, row.simpleCellCount());
            FixedBuffer.checkWritten(isStatic ? "static row" : "row", expectedSize, out.position() - start);
            return;
        }
        while (row.nextColumn()) {
            if (!row.isComplex()) {
                row.nextCell();
                writeRecordCell(out, row, fixed[row.columnPosition()], false);
                columnsWithCells++;
                continue;
            }
            int count = row.columnCellCount();
            putComplexHead(out, writeComplexDeletion, row.complexDeletionTimestamp(), row.complexDeletionLocalTime(), count);
            for (int k = 0; k < count; k++) {
                row.nextCell();
                writeRecordCell(out, row, -1, true);
            }
            if (count > 0) columnsWithCells++;
        }
        rowWritten(row.isEmpty(), columnsWithCells);
        FixedBuffer.checkWritten(isStatic ? "static row" : "row", expectedSize, out.position() - start);
    }

    /**
     * The cells of a plain INSERT's record row: simple only, each with the row's timestamp and no
     * TTL or deletion time. Each is then its flags byte (the row's timestamp, maybe an empty value)
     * and its value, so the general path's per-cell flag, TTL and deletion work and its per-cell
     * stats calls reduce to one flags byte per cell and one stats call per row; the bytes are those
     * the general path writes for the same cells.
     *
     * <p>The row's room was reserved for its exact size, so the cells go straight into the
     * buffer's array with a local position, without a capacity check and a position update per
     * put (they were a fifth of this loop). An overrun is still loud: past the array the JVM's
     * bounds check throws, past the limit {@link FixedBuffer#position(int)} does, and the caller
     * compares the bytes written with the size.
     */
    private void writePlainRecordCells(FixedBuffer out, RowRecord row, int[] fixed) {
        final int n = row.simpleCellCount();
        final byte plain = (byte) cellFlags(rowTimestamp, Cell.NO_TTL, Cell.NO_DELETION_TIME, 1);
        final byte empty = (byte) cellFlags(rowTimestamp, Cell.NO_TTL, Cell.NO_DELETION_TIME, 0);
        final byte[] source = row.source();
        final byte[] dst = out.array();
        int q = out.position();
        for (int i = 0; i < n; i++) {
            int length = row.nextPlainSimpleCell();
            dst[q++] = length == 0 ? empty : plain;
            q = putArrayValueSkipNullAndEmpty(dst, q, source, row.cellValueOffset(), length, fixed[row.columnPosition()]);
        }
        out.position(q);
        collector.plainCells(n, rowTimestamp, rowTimestamp);
    }

    private void collectPresent(RowRecord row) {
        final int[] headerIndex = row.isStatic() ? staticHeaderIndex : regularHeaderIndex;
        int n = 0;
        row.rewind();
        while (row.nextColumn()) {
            int p = row.columnPosition();
            n = addPresent(n, headerIndex[p], p);
        }
        presentCount = n;
    }

    // ---- rows copied from an input sstable (SSTableCursor.Row) ----------------------------------
    //
    // Compaction copies a row it would write back unchanged (one version, nothing covering it,
    // nothing to purge) from the input cursor's window instead of rebuilding it. Of a row's bytes,
    // only row_size and prev_size depend on where the row lies (prev_size is the size of the
    // unfiltered before it, and row_size counts prev_size's vint), and only the delta-encoded
    // fields (timestamps, TTLs, local deletion times) depend on the header's EncodingStats; flags,
    // clustering, column subset, cell counts, paths and values depend on neither. So the flags
    // byte and the clustering are written as for any row, row_size and prev_size for the row's new
    // place, and the rest is either the input's bytes as they are (same EncodingStats) or
    // transcoded: the fields re-encoded from what the cursor decoded, paths and values copied as
    // bytes (other EncodingStats).
    //
    // An input whose header has fewer columns than this one has other column indices, so another
    // column subset and HAS_ALL_COLUMNS: its rows are transcoded, with the subset re-encoded.
    //
    // Either way the bytes must be the ones writeRow writes for the same fields, and prepareCopy
    // makes sure of it before anything is written:
    // - The row's flags and every cell's flags must be the ones this serializer derives from the
    //   decoded fields (another writer could have stored a cell timestamp equal to the row's
    //   instead of flagging USE_ROW_TIMESTAMP, say), and every complex column must hold a cell or
    //   a deletion (a rebuild drops an empty one). Otherwise the row is refused and the caller
    //   rebuilds it.
    // - The input's bytes are taken as they are only if they are this serializer's encoding of the
    //   decoded fields: the same bases; no local deletion time that the reader replaced (INVALID,
    //   or a complex deletion's time next to a LIVE timestamp), since every other decoding is
    //   undone exactly by the encoding (timestamps and TTLs by the same base; local deletion times
    //   keep their low 32 bits, the only ones a delta holds); and every vint minimal. The sizes
    //   prove the last: no field can be shorter than its minimal encoding, so the minimal sizes
    //   summed equal the input's bytes only if every field is minimal. Otherwise the row is
    //   transcoded, which is exact for any input.

    /**
     * As {@link #prepareCopy(SSTableCursor.Row, EncodingStats, int[], int[])} for a row whose body
     * is still pending and whose cells {@link SSTableCursor#plainBodyBytes} found plain, in
     * {@code plainCellBytes} bytes: nothing per cell is read. The input must have this header's
     * columns; a row that is not plain (no liveness, a TTL, a deletion) is refused.
     */
    public boolean prepareCopyPlain(SSTableCursor.Row r, EncodingStats inputStats, int plainCellBytes) {
        if (plainCellBytes < 0) throw new IllegalArgumentException("plain cell bytes " + plainCellBytes);
        copySource = null;
        // prepareCopy's checks where little is left to check: the row must be plain (a liveness
        // without TTL, no deletion; its cells simple and plain, as plainBodyBytes found them),
        // so its flags are HAS_TIMESTAMP and HAS_ALL_COLUMNS when all are present, its fields the
        // liveness timestamp, the column subset if not all are present, and the cells' bytes.
        final long lts = r.livenessTimestamp;
        if (lts == Cell.NO_TIMESTAMP || r.livenessTtl != Cell.NO_TTL || r.isDeleted()) return false;
        final boolean isStatic = r.isStatic;
        final int columns = r.columnCount;
        final boolean all = columns == (isStatic ? staticHeaderCount : regularHeaderCount);
        final int flags = DataLayout.HAS_TIMESTAMP | (all ? DataLayout.HAS_ALL_COLUMNS : 0) | (isStatic ? DataLayout.EXTENSION_FLAG : 0);
        if (flags != r.flags) return false;
        beginRow(true, lts, false, Cell.NO_TTL, r.livenessExpiration);
        int size = stats.timestampSize(lts) + plainCellBytes;
        if (!all) {
            final int[] columnIndex = r.columnIndex, present = presentHeader;
            for (int j = 0; j < columns; j++) present[j] = columnIndex[j];
            presentCount = columns;
            size += bitmapSize(isStatic);
        }
        copySource = r;
        copySourceOffset = r.offset;
        copyColumnMap = null;
        copyFlags = flags;
        copyFieldsBytes = size;
        // Only the timestamp base matters to a plain row's bytes (see prepareCopy).
        copyVerbatim = stats.minTimestamp() == inputStats.minTimestamp() && r.livenessExpiration != Cell.INVALID_DELETION_TIME
                && size == r.fieldsLength;
        copyPlain = true;
        copyPlainCellBytes = plainCellBytes;
        copyMinTimestamp = lts;
        copyMaxTimestamp = lts;
        copyColumnsWithCells = columns;
        return true;
    }

    /**
     * Checks the cursor's current row for {@link #writeCopiedRow} and sizes it in this serializer's
     * encoding (see above); false if it must be rebuilt instead. {@code inputStats}: the bases the
     * input's deltas were taken from (its header's). {@code staticMap}, {@code regularMap}: the
     * input header's column indices among this header's ({@link SerializationHeader#indicesOf}),
     * null where the input has this header's columns.
     */
    public boolean prepareCopy(SSTableCursor.Row r, EncodingStats inputStats, int[] staticMap, int[] regularMap) {
        copySource = null;
        final boolean isStatic = r.isStatic;
        final int[] map = isStatic ? staticMap : regularMap;
        final long lts = r.livenessTimestamp, lexp = r.livenessExpiration;
        final int lttl = r.livenessTtl;
        final boolean hasLiveness = lts != Cell.NO_TIMESTAMP;
        beginRow(hasLiveness, lts, lttl != Cell.NO_TTL, lttl, lexp);
        final long dts = r.deletionTimestamp, dldt = r.deletionLdt;
        final boolean deleted = dts != Cell.NO_TIMESTAMP || dldt != Cell.NO_DELETION_TIME;
        final int columns = r.columnCount;
        final int[] columnIndex = r.columnIndex, firstCell = r.columnFirstCell, cellCount = r.columnCellCount;
        final long[] cdTs = r.columnDeletionTimestamp, cdLdt = r.columnDeletionLdt;
        final boolean[] complex = isStatic ? staticComplexByHeader : regularComplexByHeader;
        final int[] fixed = isStatic ? staticFixedByHeader : regularFixedByHeader;
        // This header's index of each present column: the subset this serializer encodes.
        final int[] present = presentHeader;
        for (int j = 0; j < columns; j++) present[j] = map == null ? columnIndex[j] : map[columnIndex[j]];
        presentCount = columns;
        // The cursor reads a complex deletion whose timestamp is LIVE's as LIVE, so a set timestamp is a deletion.
        boolean hasComplexDeletion = false;
        for (int j = 0; j < columns; j++) {
            if (complex[present[j]] && cdTs[j] != Cell.NO_TIMESTAMP) hasComplexDeletion = true;
        }
        final int flags = rowFlags(isStatic, deleted, hasComplexDeletion, columns);
        // The input's HAS_ALL_COLUMNS is about its own header's columns.
        final int inputColumns = map != null ? map.length : isStatic ? staticHeaderCount : regularHeaderCount;
        final int inputFlags = (flags & ~DataLayout.HAS_ALL_COLUMNS) | (columns == inputColumns ? DataLayout.HAS_ALL_COLUMNS : 0);
        if (inputFlags != r.flags) return false;

        boolean exact = !r.complexDeletionTimeDropped
                && !(deleted && dldt == Cell.INVALID_DELETION_TIME) && !(hasLiveness && lexp == Cell.INVALID_DELETION_TIME);
        boolean plain = !deleted && !hasComplexDeletion && lttl == Cell.NO_TTL;
        int size = rowFieldsHeadSize(flags, isStatic, dts, dldt);
        final int[] cellFlags = r.cellFlags, ttls = r.cellTtl, pathLength = r.cellPathLength, valueLength = r.cellValueLength;
        final long[] timestamps = r.cellTimestamp, ldts = r.cellLdt;
        long minTs = Long.MAX_VALUE, maxTs = Long.MIN_VALUE;
        int withCells = 0;
        int columnsDone = 0;
        int plainBytes = hasLiveness && r.cellsPlain ? plainCellsSize(present, valueLength, columns, fixed) : -1;
        if (plainBytes >= 0) {
            // Each cell is the row's timestamp and a value, with no TTL or deletion time: its flags
            // are cellFlags' for it, and its bytes are its flags, its one-byte length unless fixed,
            // and its value, which is also how the input held it.
            size += plainBytes;
            minTs = maxTs = lts;
            withCells = columns;
            columnsDone = columns;
        }
        for (int j = columnsDone; j < columns; j++) {
            final int h = present[j];
            final boolean isComplex = complex[h];
            int k = firstCell[j];
            final int end = k + cellCount[j];
            if (isComplex) {
                if (k == end && cdTs[j] == Cell.NO_TIMESTAMP) return false; // nothing in it: a rebuild drops the column
                if (cdLdt[j] == Cell.INVALID_DELETION_TIME) exact = false;
                size += complexHeadSize(hasComplexDeletion, cdTs[j], cdLdt[j], end - k);
            }
            if (k < end) withCells++;
            final int fixedLength = isComplex ? -1 : fixed[h];
            for (; k < end; k++) {
                final long ts = timestamps[k], ldt = ldts[k];
                final int ttl = ttls[k], length = valueLength[k];
                final int f = cellFlags(ts, ttl, ldt, length);
                if (f != cellFlags[k]) return false;
                if (ldt != Cell.NO_DELETION_TIME || ttl != Cell.NO_TTL) {
                    plain = false;
                    if (ldt == Cell.INVALID_DELETION_TIME) exact = false;
                }
                if (ts < minTs) minTs = ts;
                if (ts > maxTs) maxTs = ts;
                size += cellHeaderSize(f, ts, ttl, ldt) + pathAndValueSize(isComplex ? pathLength[k] : 0, length, fixedLength, isComplex);
            }
        }
        copySource = r;
        copySourceOffset = r.offset;
        copyColumnMap = map;
        copyFlags = flags;
        copyFieldsBytes = size;
        // A plain row has no TTL or local deletion time field, so only the timestamp base matters
        // (a flush with no deletion writes its local deletion time base at the epoch, while a
        // compaction takes the inputs' smallest recorded time, which is then "none").
        boolean sameBases = plain ? stats.minTimestamp() == inputStats.minTimestamp() : stats.sameBases(inputStats);
        copyVerbatim = map == null && sameBases && exact && size == r.fieldsLength;
        copyPlain = plain;
        copyPlainCellBytes = plainBytes;
        copyMinTimestamp = minTs;
        copyMaxTimestamp = maxTs;
        copyColumnsWithCells = withCells;
        return true;
    }

    /**
     * Bytes of a row's cells that the cursor read as plain ({@code SSTableCursor.Row#cellsPlain}: the j-th
     * column's one cell is slot j), or -1 if one of them has an empty value, which the general check
     * refuses (this serializer flags it HAS_EMPTY_VALUE; the input did not).
     */
    private static int plainCellsSize(int[] present, int[] valueLength, int columns, int[] fixed) {
        int size = 0;
        for (int j = 0; j < columns; j++) {
            int length = valueLength[j];
            if (length == 0) return -1;
            size += fixed[present[j]] < 0 ? 2 + length : 1 + length;
        }
        return size;
    }

    /** Whether the row {@link #prepareCopy} accepted is taken as the input's bytes, not transcoded. */
    public boolean copyVerbatim() {
        return copyVerbatim;
    }

    /** Exact bytes of the row {@link #prepareCopy} accepted, at this previous-unfiltered size. */
    public int copiedRowSize(ClusteringBuffer clustering, long prevSize) {
        final boolean isStatic = copySource.isStatic;
        return rowSizeFromBody(isStatic, isStatic ? 0 : clusteringLayout.valuesSize(clustering),
                VInt.sizeOfUnsigned(prevSize) + copyFieldsBytes);
    }

    /**
     * Writes the row {@link #prepareCopy} accepted, and feeds the stats collector with what
     * {@code writeRow} would feed it for the same fields, in the same order. {@code buf} is the
     * cursor's buffer, {@code clustering} the row's (not read for the static row). REQUIRES: the
     * cursor has not moved since prepareCopy, and {@code expectedSize} came from copiedRowSize.
     */
    public void writeCopiedRow(FixedBuffer out, SSTableCursor.Row r, byte[] buf, ClusteringBuffer clustering, long prevSize,
                               int expectedSize) {
        if (r != copySource || r.offset != copySourceOffset) {
            throw new IllegalStateException("the row at stream offset " + r.offset + " was not prepared for copying");
        }
        copySource = null;
        final int start = out.position();
        final boolean isStatic = r.isStatic;
        final int flags = copyFlags;
        if (copyVerbatim && prevSize == r.prevSize && expectedSize == r.length() && r.extFlags == (isStatic ? DataLayout.IS_STATIC : 0)) {
            // The fields are the input's bytes, and so is everything before them: the flags were
            // checked equal (the extended flags just now), the clustering holds the same values, and
            // row_size and prev_size the same numbers (prev_size checked, row_size counting the same
            // fields). No field is shorter than its minimal encoding and this serializer writes only
            // minimal ones, so a row of this serializer's size holds each of them minimally, as this
            // serializer would write it: the whole row is taken as it is.
            out.putBytes(buf, r.base(), expectedSize);
            collectVerbatim(r);
        } else {
            putRowStart(out, flags, isStatic);
            if (!isStatic) clusteringLayout.putValues(out, clustering);
            final int body = VInt.sizeOfUnsigned(prevSize) + copyFieldsBytes;
            if (copyVerbatim) {
                out.putUnsignedVInt(body);
                out.putUnsignedVInt(prevSize);
                out.putBytes(buf, r.fieldsOffset(), r.fieldsLength);
                collectVerbatim(r);
            } else {
                writeTranscoded(out, r, buf, flags, body, prevSize);
            }
        }
        rowWritten(r.livenessTimestamp == Cell.NO_TIMESTAMP && !r.isDeleted() && r.columnCount == 0, copyColumnsWithCells);
        FixedBuffer.checkWritten(isStatic ? "copied static row" : "copied row", expectedSize, out.position() - start);
    }

    /** The stats of a row whose fields were copied as the input's bytes. */
    private void collectVerbatim(SSTableCursor.Row r) {
        if (copyPlain) {
            // No TTL and no local deletion time: every cell adds its timestamp, TTL 0 and no
            // deletion time, whose effect on the stats does not depend on their order.
            if (r.livenessTimestamp != Cell.NO_TIMESTAMP) collector.liveness(r.livenessTimestamp, r.livenessTtl, r.livenessExpiration);
            collector.plainCells(r.cellCount, copyMinTimestamp, copyMaxTimestamp);
        } else {
            collectCopied(r);
        }
    }

    /**
     * The stats of a row whose bytes were copied, in writeRow's order: liveness, deletion, then per
     * column. REQUIRES: the input has this header's columns (rows of another column set are transcoded).
     */
    private void collectCopied(SSTableCursor.Row r) {
        if (r.livenessTimestamp != Cell.NO_TIMESTAMP) collector.liveness(r.livenessTimestamp, r.livenessTtl, r.livenessExpiration);
        if (r.isDeleted()) collector.deletion(r.deletionTimestamp, r.deletionLdt);
        final boolean[] complex = r.isStatic ? staticComplexByHeader : regularComplexByHeader;
        final int columns = r.columnCount;
        final int[] columnIndex = r.columnIndex, firstCell = r.columnFirstCell, cellCount = r.columnCellCount;
        final int[] ttls = r.cellTtl;
        final long[] timestamps = r.cellTimestamp, ldts = r.cellLdt;
        for (int j = 0; j < columns; j++) {
            if (complex[columnIndex[j]]) collector.deletion(r.columnDeletionTimestamp[j], r.columnDeletionLdt[j]);
            final int end = firstCell[j] + cellCount[j];
            for (int k = firstCell[j]; k < end; k++) collector.cell(timestamps[k], ttls[k], ldts[k]);
        }
    }

    /** Everything after row_size's place re-encoded in this header's EncodingStats; paths and values copied. */
    private void writeTranscoded(FixedBuffer out, SSTableCursor.Row r, byte[] buf, int flags, int body, long prevSize) {
        final boolean isStatic = r.isStatic;
        beginRow(r.livenessTimestamp != Cell.NO_TIMESTAMP, r.livenessTimestamp, r.livenessTtl != Cell.NO_TTL, r.livenessTtl,
                r.livenessExpiration);
        final int columns = r.columnCount;
        final int[] columnIndex = r.columnIndex, firstCell = r.columnFirstCell, cellCount = r.columnCellCount;
        final int[] map = copyColumnMap;
        final int[] present = presentHeader;
        for (int j = 0; j < columns; j++) present[j] = map == null ? columnIndex[j] : map[columnIndex[j]];
        presentCount = columns;
        putRowHead(out, flags, isStatic, body, prevSize, r.deletionTimestamp, r.deletionLdt);
        if (copyPlainCellBytes >= 0 && map == null) {
            // A plain cell holds no timestamp, TTL or deletion time of its own, so no base changes
            // its bytes: flags, a one-byte length unless fixed, the value. They end the input row.
            out.putBytes(buf, r.fieldsOffset() + r.fieldsLength - copyPlainCellBytes, copyPlainCellBytes);
            collector.plainCells(r.cellCount, copyMinTimestamp, copyMaxTimestamp);
            return;
        }
        final boolean writeComplexDeletion = (flags & DataLayout.HAS_COMPLEX_DELETION) != 0;
        final boolean[] complex = isStatic ? staticComplexByHeader : regularComplexByHeader;
        final int[] fixed = isStatic ? staticFixedByHeader : regularFixedByHeader;
        final int[] cellFlags = r.cellFlags, ttls = r.cellTtl;
        final int[] pathOffset = r.cellPathOffset, pathLength = r.cellPathLength, valueOffset = r.cellValueOffset, valueLength = r.cellValueLength;
        final long[] timestamps = r.cellTimestamp, ldts = r.cellLdt;
        final int base = r.base();
        for (int j = 0; j < columns; j++) {
            final int h = present[j];
            final boolean isComplex = complex[h];
            int k = firstCell[j];
            final int end = k + cellCount[j];
            if (isComplex) putComplexHead(out, writeComplexDeletion, r.columnDeletionTimestamp[j], r.columnDeletionLdt[j], end - k);
            final int fixedLength = isComplex ? -1 : fixed[h];
            for (; k < end; k++) {
                final long ts = timestamps[k], ldt = ldts[k];
                final int ttl = ttls[k];
                putCellHeader(out, cellFlags[k], ts, ttl, ldt);
                collector.cell(ts, ttl, ldt);
                if (isComplex) {
                    final int length = pathLength[k];
                    out.putUnsignedVInt(length);
                    out.putBytes(buf, base + pathOffset[k], length);
                }
                writeArrayValueSkipNullAndEmpty(out, buf, base + valueOffset[k], valueLength[k], fixedLength);
            }
        }
    }


    // ---- column subset (layout: DataLayout), from the present-column list ------------------------

    private int bitmapSize(boolean isStatic) {
        final int n = isStatic ? staticHeaderCount : regularHeaderCount;
        final int present = presentCount;
        final int[] list = presentHeader;
        if (n < DataLayout.LARGE_SUBSET_THRESHOLD) {
            return VInt.sizeOfUnsigned(missingBits(n));
        }
        int size = VInt.sizeOfUnsignedInt32(n - present);
        if (present < n / 2) {
            for (int i = 0; i < present; i++) size += VInt.sizeOfUnsignedInt32(list[i]);
        } else {
            int next = 0;
            for (int h = 0; h < n; h++) {
                if (next < present && list[next] == h) next++;
                else size += VInt.sizeOfUnsignedInt32(h);
            }
        }
        return size;
    }

    private void putBitmap(FixedBuffer out, boolean isStatic) {
        final int n = isStatic ? staticHeaderCount : regularHeaderCount;
        final int present = presentCount;
        final int[] list = presentHeader;
        if (n < DataLayout.LARGE_SUBSET_THRESHOLD) {
            out.putUnsignedVInt(missingBits(n));
            return;
        }
        out.putUnsignedVInt32(n - present);
        if (present < n / 2) {
            for (int i = 0; i < present; i++) out.putUnsignedVInt32(list[i]);
        } else {
            int next = 0;
            for (int h = 0; h < n; h++) {
                if (next < present && list[next] == h) next++;
                else out.putUnsignedVInt32(h);
            }
        }
    }

    /** Bit i set when the header's i-th column is missing from the row (fewer than 64 columns). */
    private long missingBits(int n) {
        long bits = n == 64 ? -1L : (1L << n) - 1;
        for (int i = 0; i < presentCount; i++) bits &= ~(1L << presentHeader[i]);
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
                checkFixedLength(valueLength, fixedLength);
                size += valueLength;
            } else {
                size += VInt.sizeOfUnsigned(valueLength) + valueLength;
            }
        }
        return size;
    }

    /** A non-empty value of a fixed-length type must have exactly that length. */
    private static void checkFixedLength(int valueLength, int fixedLength) {
        if (valueLength != fixedLength) {
            throw new IllegalArgumentException("cell value has " + valueLength + " bytes; its type needs exactly " + fixedLength);
        }
    }

    private int cellSize(Cell c, int fixedLength, boolean complex) {
        long ts = c.timestamp(), ldt = c.localDeletionTime();
        int ttl = c.ttl(), valueLength = c.valueLength();
        return cellHeaderSize(cellFlags(ts, ttl, ldt, valueLength), ts, ttl, ldt)
                + pathAndValueSize(c.pathLength(), valueLength, fixedLength, complex);
    }

    private void writeCell(FixedBuffer out, Cell c, int fixedLength, boolean complex) {
        long ts = c.timestamp(), ldt = c.localDeletionTime();
        int ttl = c.ttl();
        byte[] value = c.value();
        putCellHeader(out, cellFlags(ts, ttl, ldt, value.length), ts, ttl, ldt);
        collector.cell(ts, ttl, ldt);
        if (complex) {
            byte[] path = c.path();
            out.putUnsignedVInt(path.length);
            out.putBytes(path, 0, path.length);
        }
        writeArrayValueSkipNullAndEmpty(out, value, 0, value.length, fixedLength);
    }

    // The merged-row branch: a RowBuffer cell is primitives plus byte ranges.

    private int bufferCellSize(RowBuffer r, int k, int fixedLength, boolean complex) {
        long ts = r.cellTimestamp(k), ldt = r.cellLocalDeletionTime(k);
        int ttl = r.cellTtl(k), valueLength = r.cellValueLength(k);
        return cellHeaderSize(cellFlags(ts, ttl, ldt, valueLength), ts, ttl, ldt)
                + pathAndValueSize(r.cellPathLength(k), valueLength, fixedLength, complex);
    }

    private void writeBufferCell(FixedBuffer out, RowBuffer r, int k, int fixedLength, boolean complex) {
        long ts = r.cellTimestamp(k), ldt = r.cellLocalDeletionTime(k);
        int ttl = r.cellTtl(k), valueLength = r.cellValueLength(k);
        putCellHeader(out, cellFlags(ts, ttl, ldt, valueLength), ts, ttl, ldt);
        collector.cell(ts, ttl, ldt);
        if (complex) {
            int pathLength = r.cellPathLength(k);
            out.putUnsignedVInt(pathLength);
            out.putBytes(r.cellPathSource(k), r.cellPathOffset(k), pathLength);
        }
        writeArrayValueSkipNullAndEmpty(out, r.cellValueSource(k), r.cellValueOffset(k), valueLength, fixedLength);
    }

    // The record branch: the flyweight's current cell, primitives plus ranges of its source array.

    private int recordCellSize(RowRecord r, int fixedLength, boolean complex) {
        long ts = r.cellTimestamp(), ldt = r.cellLocalDeletionTime();
        int ttl = r.cellTtl(), valueLength = r.cellValueLength();
        return cellHeaderSize(cellFlags(ts, ttl, ldt, valueLength), ts, ttl, ldt)
                + pathAndValueSize(r.cellPathLength(), valueLength, fixedLength, complex);
    }

    private void writeRecordCell(FixedBuffer out, RowRecord r, int fixedLength, boolean complex) {
        long ts = r.cellTimestamp(), ldt = r.cellLocalDeletionTime();
        int ttl = r.cellTtl(), valueLength = r.cellValueLength();
        putCellHeader(out, cellFlags(ts, ttl, ldt, valueLength), ts, ttl, ldt);
        collector.cell(ts, ttl, ldt);
        final byte[] source = r.source();
        if (complex) {
            int pathLength = r.cellPathLength();
            out.putUnsignedVInt(pathLength);
            out.putBytes(source, r.cellPathOffset(), pathLength);
        }
        writeArrayValueSkipNullAndEmpty(out, source, r.cellValueOffset(), valueLength, fixedLength);
    }

    // Value writers. Empty values are not written: the cell's HAS_EMPTY_VALUE flag records them.

    private static void writeArrayValueSkipNullAndEmpty(FixedBuffer out, byte[] value, int offset, int length, int fixedLength) {
        if (value == null || length == 0) return;
        out.ensureRemaining((fixedLength < 0 ? VInt.sizeOfUnsigned(length) : 0) + length);
        out.position(putArrayValueSkipNullAndEmpty(out.array(), out.position(), value, offset, length, fixedLength));
    }

    /**
     * A cell value's bytes (its length first unless the type has a fixed length) into {@code dst}
     * at {@code q}; returns the position after it. The one encoding of a value, which
     * {@link #writeArrayValueSkipNullAndEmpty} puts through a buffer. REQUIRES: room for it (the
     * caller reserved the row's exact size).
     */
    private static int putArrayValueSkipNullAndEmpty(byte[] dst, int q, byte[] value, int offset, int length, int fixedLength) {
        if (value == null || length == 0) return q;
        if (fixedLength < 0) q = VInt.putUnsigned(dst, q, length, VInt.sizeOfUnsigned(length));
        FixedBuffer.copySmallOrBulk(value, offset, dst, q, length);
        return q + length;
    }

    // ---- range tombstone markers (layout: DataLayout) -------------------------------------------
    //
    // marker := IS_MARKER kind size [clustering] marker_size prev_size deletion [deletion]; a bound
    // carries its one deletion, a boundary its ending then its starting deletion. One encoding from
    // primitives; the bound's clustering comes as a ClusteringBound (flush) or a ClusteringBuffer
    // (compaction).

    private static boolean isBoundary(byte kind) {
        return kind == ClusteringBound.EXCL_END_INCL_START_BOUNDARY || kind == ClusteringBound.INCL_END_EXCL_START_BOUNDARY;
    }

    private static boolean isStartBound(byte kind) {
        return kind == ClusteringBound.INCL_START_BOUND || kind == ClusteringBound.EXCL_START_BOUND;
    }

    private int markerBodySize(byte kind, long endTs, long endLdt, long startTs, long startLdt, long prevSize) {
        int size = VInt.sizeOfUnsigned(prevSize);
        if (isBoundary(kind)) {
            size += stats.deletionTimeSize(endTs, endLdt) + stats.deletionTimeSize(startTs, startLdt);
        } else if (isStartBound(kind)) {
            size += stats.deletionTimeSize(startTs, startLdt);
        } else {
            size += stats.deletionTimeSize(endTs, endLdt);
        }
        return size;
    }

    private void putMarkerBody(FixedBuffer out, byte kind, long endTs, long endLdt, long startTs, long startLdt, long prevSize) {
        out.putUnsignedVInt(markerBodySize(kind, endTs, endLdt, startTs, startLdt, prevSize));
        out.putUnsignedVInt(prevSize);
        if (isBoundary(kind)) {
            stats.putDeletionTime(out, endTs, endLdt);
            stats.putDeletionTime(out, startTs, startLdt);
            collector.deletion(endTs, endLdt);
            collector.deletion(startTs, startLdt);
        } else if (isStartBound(kind)) {
            stats.putDeletionTime(out, startTs, startLdt);
            collector.deletion(startTs, startLdt);
        } else {
            stats.putDeletionTime(out, endTs, endLdt);
            collector.deletion(endTs, endLdt);
        }
    }

    /** Exact bytes of a marker. For a start bound pass LIVE as endDeletion, and vice versa. */
    public int markerSize(ClusteringBound bound, DeletionTime endDeletion, DeletionTime startDeletion, long prevSize) {
        int body = markerBodySize(bound.kind(), endDeletion.markedForDeleteAt(), endDeletion.localDeletionTime(),
                startDeletion.markedForDeleteAt(), startDeletion.localDeletionTime(), prevSize);
        return 1 + clusteringLayout.boundSize(bound.values()) + VInt.sizeOfUnsigned(body) + body;
    }

    public void writeMarker(FixedBuffer out, ClusteringBound bound, DeletionTime endDeletion, DeletionTime startDeletion,
                            long prevSize, int expectedSize) {
        final int start = out.position();
        out.putByte(DataLayout.IS_MARKER);
        clusteringLayout.putBound(out, bound.kind(), bound.values());
        putMarkerBody(out, bound.kind(), endDeletion.markedForDeleteAt(), endDeletion.localDeletionTime(),
                startDeletion.markedForDeleteAt(), startDeletion.localDeletionTime(), prevSize);
        collector.markerBound(bound);
        FixedBuffer.checkWritten("range tombstone marker", expectedSize, out.position() - start);
    }

    /** A marker whose bound is a flyweight ({@code bound.kind()} is the marker kind); unused deletions are ignored. */
    public int markerSize(ClusteringBuffer bound, long endTs, long endLdt, long startTs, long startLdt, long prevSize) {
        int body = markerBodySize(bound.kind(), endTs, endLdt, startTs, startLdt, prevSize);
        return 1 + clusteringLayout.boundSize(bound) + VInt.sizeOfUnsigned(body) + body;
    }

    public void writeMarker(FixedBuffer out, ClusteringBuffer bound, long endTs, long endLdt, long startTs, long startLdt,
                            long prevSize, int expectedSize) {
        final int start = out.position();
        out.putByte(DataLayout.IS_MARKER);
        clusteringLayout.putBound(out, bound);
        putMarkerBody(out, bound.kind(), endTs, endLdt, startTs, startLdt, prevSize);
        collector.markerBound(bound);
        FixedBuffer.checkWritten("range tombstone marker", expectedSize, out.position() - start);
    }

    // ---- partition header (key + partition deletion in this version's DeletionTimeLayout) ---------

    public int partitionHeaderSize(byte[] key, DeletionTime d) {
        return partitionHeaderSize(key.length, d);
    }

    public int partitionHeaderSize(int keyLength, DeletionTime d) {
        return partitionHeaderSize(keyLength, d.markedForDeleteAt(), d.localDeletionTime());
    }

    /** The header of a partition whose deletion is (markedForDeleteAt, localDeletionTime): LIVE is (Long.MIN_VALUE, Long.MAX_VALUE). */
    public int partitionHeaderSize(int keyLength, long markedForDeleteAt, long localDeletionTime) {
        return 2 + keyLength + DeletionTimeLayout.size(version, markedForDeleteAt, localDeletionTime);
    }

    public SSTableVersion version() {
        return version;
    }

    public void writePartitionHeader(FixedBuffer out, byte[] key, DeletionTime d, int expectedSize) {
        writePartitionHeader(out, key, 0, key.length, d, expectedSize);
    }

    public void writePartitionHeader(FixedBuffer out, byte[] key, int keyOffset, int keyLength, DeletionTime d, int expectedSize) {
        writePartitionHeader(out, key, keyOffset, keyLength, d.markedForDeleteAt(), d.localDeletionTime(), expectedSize);
    }

    /** As above, the deletion given as (markedForDeleteAt, localDeletionTime). */
    public void writePartitionHeader(FixedBuffer out, byte[] key, int keyOffset, int keyLength, long markedForDeleteAt,
                                     long localDeletionTime, int expectedSize) {
        final int start = out.position();
        if (keyLength > DataLayout.MAX_KEY_LENGTH) {
            throw new IllegalArgumentException("partition key of " + keyLength + " bytes exceeds " + DataLayout.MAX_KEY_LENGTH);
        }
        out.putShort(keyLength);
        out.putBytes(key, keyOffset, keyLength);
        DeletionTimeLayout.put(version, out, markedForDeleteAt, localDeletionTime);
        collector.partitionDeletion(markedForDeleteAt, localDeletionTime);
        FixedBuffer.checkWritten("partition header", expectedSize, out.position() - start);
    }

    public SerializationHeader header() {
        return header;
    }
}

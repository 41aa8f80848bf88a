package dev.flushline.sstable;

import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ClusteringBuffer;
import dev.flushline.data.ClusteringComparator;
import dev.flushline.data.CommitLogPosition;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.Row;
import dev.flushline.data.RowBuffer;
import dev.flushline.data.RowRecord;
import dev.flushline.io.FixedBuffer;
import dev.flushline.schema.TableSchema;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The one partition writer: one sstable written partition by partition, by the flush (memtable
 * rows: {@link RowRecord} flyweights or {@link Row} objects, markers as {@link ClusteringBound}s),
 * by compaction and by the sorted bulk writer (both {@link RowBuffer} flyweights and
 * {@link ClusteringBuffer} bounds; compaction also copies rows straight from an input's
 * {@link SSTableCursor}, see {@link #copyRow}). It owns the shared {@link SSTableWriter} (staging, fsync,
 * TOC.txt last), the shared {@link RowSerializer} and {@link StatsCollector}, and the partition
 * bookkeeping every caller needs (previous-unfiltered sizes, row index blocks, the open range
 * deletion, first/last row clustering, counts).
 *
 * <p>Hot path: one method per concrete row source ({@code row(RowRecord)}, {@code row(Row)},
 * {@code row(RowBuffer)}), each calling the serializer's method for that class, so the caller's
 * per-row branch on the source (where it has more than one) is the only split and no call per row
 * or cell is virtual. The format's partition index hears of each partition once, at its end.
 *
 * <p>REQUIRES: partitions in token order, and within one the rows and markers in clustering
 * order; the caller checks it (this class trusts its input, as the serializer does). A
 * partition's rows and markers come from one family: objects ({@code Row} rows and
 * {@code ClusteringBound} markers) or flyweights ({@code RowRecord} or {@code RowBuffer} rows and
 * {@code ClusteringBuffer} markers); the row index keeps references to an object's clustering and
 * copies a flyweight's. The partition's begin and end may be either kind's: they carry no clustering.
 *
 * <p>Life cycle: {@code beginPartition}, {@code row} / {@code marker}, {@code endPartition},
 * repeated; then {@link #seal} (ends Data.db and the partition index's per-partition file) and
 * {@link #finish} (publishes), or {@link #close} at any point to remove everything of this sstable.
 *
 * <p>Thread safety: none; owned by one writer thread.
 */
public final class SSTableOutput implements AutoCloseable {
    /** The open range deletion when none is open: a LIVE deletion's (timestamp, local deletion time). */
    private static final long LIVE_TS = Long.MIN_VALUE, LIVE_LDT = Long.MAX_VALUE;

    private final TableSchema schema;
    private final int level;
    private final SerializationHeader header;
    private final Descriptor descriptor;
    private final SSTableWriter sst;
    private final StatsCollector collector;
    private final RowSerializer rs;
    private final RowIndexBlocks rowIndex;
    private final ClusteringBuffer lastRow;
    /** The empty static row an object-row partition without one writes; made on first use. */
    private Row emptyStaticRow;

    private long partitionStart;
    private long headerLength;
    private long previousStart;
    /** The current partition's deletion, as two longs (LIVE: Long.MIN_VALUE, Long.MAX_VALUE). */
    private long partitionDeletionTimestamp, partitionDeletionLocalTime;
    // Flyweight sources: whether the partition has a row yet (the first is recorded at once), whether
    // the last item written is a row (then the row index's copy of it is the last row's clustering,
    // and nothing else is copied per row), the last row's clustering once a marker follows it, and
    // the open range deletion as primitives.
    private boolean hasRow;
    private boolean lastItemIsRow;
    private long openTs = LIVE_TS, openLdt = LIVE_LDT;
    // Object sources: the first and last row clusterings (references, valid until the partition
    // ends) and the open range deletion.
    private byte[][] firstRowClustering, lastRowClustering;
    private DeletionTime open = DeletionTime.LIVE;

    private long partitions, rows, markers;
    private long copiedRows, verbatimRows;
    private CommitLogPosition commitLogLower = CommitLogPosition.NONE, commitLogUpper = CommitLogPosition.NONE;

    /**
     * Reserves the next generation in {@code dir} and opens its writer. {@code expectedKeys} sizes
     * the bloom filter; {@link SSTableWriter#KEYS_UNKNOWN} sizes it from the real count at
     * {@link #seal}. {@code level} goes into Statistics.db (0 outside leveled compaction).
     * Failures are {@link SSTableWriteException}s of the RESERVE or CREATE phase.
     */
    public SSTableOutput(TableSchema schema, SerializationHeader header, TableDirectory dir, long expectedKeys, boolean pipelined,
                         SSTableVersion version, int level) throws IOException {
        this.schema = schema;
        this.level = level;
        this.header = header;
        try {
            this.descriptor = dir.reserveNext(version);
        } catch (IOException e) {
            throw new SSTableWriteException(dir.path(), SSTableWriteException.Phase.RESERVE, e);
        }
        try {
            this.sst = new SSTableWriter(schema, descriptor,
                    expectedKeys == SSTableWriter.KEYS_UNKNOWN ? expectedKeys : Math.max(1, expectedKeys), pipelined);
        } catch (IOException e) {
            throw new SSTableWriteException(descriptor.path(Component.DATA), SSTableWriteException.Phase.CREATE, e);
        }
        this.collector = new StatsCollector(new ClusteringComparator(schema));
        this.rs = new RowSerializer(header, collector, version);
        this.rowIndex = new RowIndexBlocks(version.format().rowIndexBlockBytes());
        this.lastRow = new ClusteringBuffer(schema.clusteringColumns().length);
    }

    public Descriptor descriptor() { return descriptor; }

    public long dataPosition() { return sst.dataPosition(); }

    public long cellsWritten() { return collector.cellsWritten(); }

    /** {@code e} as an {@link SSTableWriteException} naming this sstable's Data.db and the phase it failed in. */
    public IOException wrap(IOException e) {
        return e instanceof SSTableWriteException ? e : new SSTableWriteException(descriptor.path(Component.DATA), sst.phase(), e);
    }

    // ---- partitions of flyweight rows (compaction, the sorted writer) ----------------------------

    /**
     * Writes the partition header and, when the header has static columns, the static row
     * ({@code emptyStatic} if {@code staticRow} is null). {@code key[0, keyLength)} may be a
     * reusable buffer: end the partition with {@link #endPartition(byte[], int)}.
     */
    public void beginPartition(byte[] key, int keyLength, DeletionTime pd, RowBuffer staticRow, RowBuffer emptyStatic) throws IOException {
        beginPartition(key, keyLength, pd.markedForDeleteAt(), pd.localDeletionTime(), staticRow, emptyStatic);
    }

    /**
     * As above, the partition deletion given as two longs (LIVE: Long.MIN_VALUE, Long.MAX_VALUE):
     * compaction's merge keeps deletions so and makes no object per partition.
     */
    public void beginPartition(byte[] key, int keyLength, long pdTimestamp, long pdLocalTime, RowBuffer staticRow, RowBuffer emptyStatic)
            throws IOException {
        flyweightPartitionHeader(key, keyLength, pdTimestamp, pdLocalTime);
        if (header.hasStatics()) {
            RowBuffer st = staticRow != null ? staticRow : emptyStatic;
            int size = rs.rowSize(st, 0);
            rs.writeRow(sst.reserve(size), st, 0, size);
        }
        startRows();
    }

    private void flyweightPartitionHeader(byte[] key, int keyLength, long pdTimestamp, long pdLocalTime) throws IOException {
        partitionStart = sst.dataPosition();
        partitionDeletionTimestamp = pdTimestamp;
        partitionDeletionLocalTime = pdLocalTime;
        int size = rs.partitionHeaderSize(keyLength, pdTimestamp, pdLocalTime);
        rs.writePartitionHeader(sst.reserve(size), key, 0, keyLength, pdTimestamp, pdLocalTime, size);
    }

    public void row(RowBuffer row) throws IOException {
        long start = sst.dataPosition() - partitionStart;
        long prevSize = start - previousStart;
        int size = rs.rowSize(row, prevSize);
        rs.writeRow(sst.reserve(size), row, prevSize, size);
        flyweightRowWritten(row.clustering(), false, start, size);
    }

    /** {@code held}: see {@link RowIndexBlocks#added(ClusteringBuffer, boolean, long, long, long, long)}. */
    private void flyweightRowWritten(ClusteringBuffer clustering, boolean held, long start, int size) {
        if (!hasRow) {
            collector.rowClustering(clustering); // rows come in clustering order: first and last bound the slice
            hasRow = true;
        }
        lastItemIsRow = true;
        rowIndex.added(clustering, held, start, start + size, openTs, openLdt);
        previousStart = start;
        rows++;
    }

    // ---- rows copied from an input sstable (compaction) -------------------------------------------
    //
    // A row compaction would write back unchanged goes from the input cursor's window to this
    // sstable without being rebuilt (see RowSerializer's copy section for what is copied and what
    // is re-encoded); for the partition bookkeeping it is a flyweight row like any other.

    /**
     * Checks the cursor's current row for copying into this sstable ({@link RowSerializer#prepareCopy});
     * if true, {@link #copyRow} or {@link #beginPartition(byte[], int, long, long, SSTableCursor)}
     * writes it before the cursor moves. {@code inputStats}: the bases of the input's deltas (its
     * header's); {@code staticMap}, {@code regularMap}: its header's columns among this header's
     * ({@link SerializationHeader#indicesOf}), null where they are the same.
     */
    public boolean prepareCopy(SSTableCursor.Row row, EncodingStats inputStats, int[] staticMap, int[] regularMap) {
        return rs.prepareCopy(row, inputStats, staticMap, regularMap);
    }

    /** As {@link RowSerializer#prepareCopyPlain}: a row with this header's columns whose pending body holds plain cells only. */
    public boolean prepareCopyPlain(SSTableCursor.Row row, EncodingStats inputStats, int plainCellBytes) {
        return rs.prepareCopyPlain(row, inputStats, plainCellBytes);
    }

    /**
     * As {@link #beginPartition(byte[], int, long, long, RowBuffer, RowBuffer)}, the static row
     * copied: {@code source}'s current row, accepted by {@link #prepareCopy}. REQUIRES: the header
     * has static columns.
     */
    public void beginPartition(byte[] key, int keyLength, long pdTimestamp, long pdLocalTime, SSTableCursor source) throws IOException {
        if (!header.hasStatics()) throw new IllegalStateException("a static row copied into " + descriptor + ", whose header has no static columns");
        flyweightPartitionHeader(key, keyLength, pdTimestamp, pdLocalTime);
        SSTableCursor.Row st = source.row();
        boolean verbatim = rs.copyVerbatim();
        int size = rs.copiedRowSize(null, 0);
        rs.writeCopiedRow(sst.reserve(size), st, source.buffer(), null, 0, size);
        copied(verbatim);
        startRows();
    }

    /** Writes {@code source}'s current row, accepted by {@link #prepareCopy}; {@code clustering} is its clustering. */
    public void copyRow(SSTableCursor source, ClusteringBuffer clustering) throws IOException {
        long start = sst.dataPosition() - partitionStart;
        long prevSize = start - previousStart;
        boolean verbatim = rs.copyVerbatim();
        int size = rs.copiedRowSize(clustering, prevSize);
        rs.writeCopiedRow(sst.reserve(size), source.row(), source.buffer(), clustering, prevSize, size);
        copied(verbatim);
        flyweightRowWritten(clustering, false, start, size); // the cursor's window moves on
    }

    private void copied(boolean verbatim) {
        copiedRows++;
        if (verbatim) verbatimRows++;
    }

    /** Rows (static rows included) copied from inputs rather than rebuilt. */
    public long copiedRows() { return copiedRows; }

    /** Of {@link #copiedRows}, those whose fields were the input's bytes as they are (the rest were transcoded). */
    public long verbatimRows() { return verbatimRows; }

    /** {@code bound.kind()} is the marker's kind; a bound uses the deletion of its side only. */
    public void marker(ClusteringBuffer bound, long endTs, long endLdt, long startTs, long startLdt) throws IOException {
        long start = sst.dataPosition() - partitionStart;
        long prevSize = start - previousStart;
        int size = rs.markerSize(bound, endTs, endLdt, startTs, startLdt, prevSize);
        rs.writeMarker(sst.reserve(size), bound, endTs, endLdt, startTs, startLdt, prevSize, size);
        if (lastItemIsRow) {
            lastRow.copyFrom(rowIndex.lastAdded()); // the row before this marker: its only copy from now on
            lastItemIsRow = false;
        }
        byte kind = bound.kind();
        if (kind == ClusteringBound.EXCL_END_BOUND || kind == ClusteringBound.INCL_END_BOUND) {
            openTs = LIVE_TS;
            openLdt = LIVE_LDT;
        } else {
            openTs = startTs;
            openLdt = startLdt;
        }
        rowIndex.added(bound, false, start, start + size, openTs, openLdt); // the marker's buffer is reused
        previousStart = start;
        markers++;
    }

    /** Ends a partition begun with a key in a reusable buffer: the key is copied where it is kept. */
    public void endPartition(byte[] key, int keyLength) throws IOException {
        if (hasRow) collector.rowClustering(lastRowClustering());
        long partitionBytes = writeEndOfPartition();
        collector.partitionEnd(key, 0, keyLength, partitionBytes);
        sst.partitionWritten(key, keyLength, partitionStart, headerLength, partitionDeletionTimestamp, partitionDeletionLocalTime,
                rowIndex);
        partitions++;
    }

    // ---- partitions of memtable rows (the flush) ------------------------------------------------

    /**
     * Writes the partition header and, when the header has static columns, the static row (an
     * empty one if {@code staticRow} is null). REQUIRES: {@code key} is not modified until this
     * sstable is finished (the first and last keys are kept by reference, as memtable keys can be).
     */
    public void beginPartition(byte[] key, DeletionTime pd, Row staticRow) throws IOException {
        partitionStart = sst.dataPosition();
        partitionDeletionTimestamp = pd.markedForDeleteAt();
        partitionDeletionLocalTime = pd.localDeletionTime();
        int size = rs.partitionHeaderSize(key, pd);
        rs.writePartitionHeader(sst.reserve(size), key, pd, size);
        if (header.hasStatics()) {
            Row st = staticRow != null ? staticRow : emptyStaticRow();
            size = rs.rowSize(st, 0);
            rs.writeRow(sst.reserve(size), st, 0, size);
        }
        startRows();
    }

    /**
     * A memtable record row (the slab allocation modes). {@code held}: {@code row} stays wrapped
     * around this row until the next row or {@link #endPartition(byte[])}, with no marker between (a
     * partition without range tombstones, whose rows the flush reads one after the other); the
     * bookkeeping then keeps its clustering by reference instead of copying it for every row.
     * Otherwise it is copied, as for any flyweight row: the next row's wrap replaces it, and a
     * marker needs the row before it.
     */
    public void row(RowRecord row, boolean held) throws IOException {
        long start = sst.dataPosition() - partitionStart;
        long prevSize = start - previousStart;
        int size = rs.rowSize(row, prevSize);
        rs.writeRow(sst.reserve(size), row, prevSize, size);
        flyweightRowWritten(row.clustering(), held, start, size);
    }

    /** A memtable Row object (unslabbed_heap). */
    public void row(Row row) throws IOException {
        long start = sst.dataPosition() - partitionStart;
        long prevSize = start - previousStart;
        int size = rs.rowSize(row, prevSize);
        rs.writeRow(sst.reserve(size), row, prevSize, size);
        objectRowWritten(row.clustering(), start, size);
    }

    private void objectRowWritten(byte[][] clustering, long start, int size) {
        if (firstRowClustering == null) firstRowClustering = clustering;
        lastRowClustering = clustering;
        rowIndex.added(ClusteringBound.CLUSTERING, clustering, start, start + size, open);
        previousStart = start;
        rows++;
    }

    /**
     * A marker from a range tombstone list: {@code endDeletion} is LIVE for a start bound and
     * {@code startDeletion} LIVE for an end bound.
     */
    public void marker(ClusteringBound bound, DeletionTime endDeletion, DeletionTime startDeletion) throws IOException {
        long start = sst.dataPosition() - partitionStart;
        long prevSize = start - previousStart;
        int size = rs.markerSize(bound, endDeletion, startDeletion, prevSize);
        rs.writeMarker(sst.reserve(size), bound, endDeletion, startDeletion, prevSize, size);
        open = bound.isEnd() ? DeletionTime.LIVE : startDeletion;
        rowIndex.added(bound.kind(), bound.values(), start, start + size, open);
        previousStart = start;
        markers++;
    }

    /** Ends a partition begun with {@link #beginPartition(byte[], DeletionTime, Row)}. */
    public void endPartition(byte[] key) throws IOException {
        // Rows come in clustering order: the first and last bound the covered slice.
        if (firstRowClustering != null) {
            collector.rowClustering(firstRowClustering);
            if (lastRowClustering != firstRowClustering) collector.rowClustering(lastRowClustering);
        } else if (hasRow) {
            collector.rowClustering(lastRowClustering()); // record rows: the first was recorded as it was written
        }
        long partitionBytes = writeEndOfPartition();
        collector.partitionEnd(key, partitionBytes);
        sst.partitionWritten(key, partitionStart, headerLength, partitionDeletionTimestamp, partitionDeletionLocalTime, rowIndex);
        partitions++;
    }

    private Row emptyStaticRow() {
        if (emptyStaticRow == null) {
            emptyStaticRow = new Row(true, null, Cell.NO_TIMESTAMP, Cell.NO_TTL, Cell.NO_DELETION_TIME, DeletionTime.LIVE,
                    new Cell[schema.staticComplexStart()], new ComplexColumn[schema.staticColumns().length - schema.staticComplexStart()]);
        }
        return emptyStaticRow;
    }

    // ---- shared by both ---------------------------------------------------------------------------

    /** After the partition header and static row. */
    private void startRows() {
        headerLength = sst.dataPosition() - partitionStart;
        rowIndex.reset();
        previousStart = 0;
        hasRow = false;
        lastItemIsRow = false;
        openTs = LIVE_TS;
        openLdt = LIVE_LDT;
        firstRowClustering = null;
        lastRowClustering = null;
        open = DeletionTime.LIVE;
    }

    /** A flyweight partition's last row clustering. REQUIRES: it has a row; before the row index is finished. */
    private ClusteringBuffer lastRowClustering() {
        return lastItemIsRow ? rowIndex.lastAdded() : lastRow;
    }

    /** Writes the end-of-partition byte and closes the row index; returns the partition's bytes. */
    private long writeEndOfPartition() throws IOException {
        FixedBuffer out = sst.reserve(1);
        out.putByte(DataLayout.END_OF_PARTITION);
        long partitionBytes = sst.dataPosition() - partitionStart;
        rowIndex.finish(partitionBytes);
        return partitionBytes;
    }

    /**
     * The commit log interval this sstable covers, as a node's flush records it in Statistics.db.
     * REQUIRES: before {@link #seal}. Nothing is recorded if {@code upper} is NONE.
     */
    public void coversCommitLog(CommitLogPosition lower, CommitLogPosition upper) {
        this.commitLogLower = lower;
        this.commitLogUpper = upper;
    }

    private byte[] statistics;
    private boolean sealed;

    /**
     * Ends Data.db and the partition index's per-partition file (stopping the I/O thread) and
     * prepares Statistics.db; publishes nothing yet.
     */
    public void seal() throws IOException {
        if (sealed) return;
        sealed = true;
        if (partitions == 0) return;
        try {
            uncompressedBytes = sst.dataPosition();
            sst.finishData();
            StatisticsWriter.Stats s = sst.statistics(collector);
            s.sstableLevel = level;
            if (!commitLogUpper.equals(CommitLogPosition.NONE)) {
                CommitLogPosition lower = commitLogLower, upper = commitLogUpper;
                s.commitLogLowerSegmentId = lower.segmentId();
                s.commitLogLowerPosition = lower.position();
                s.commitLogUpperSegmentId = upper.segmentId();
                s.commitLogUpperPosition = upper.position();
                s.commitLogIntervals = new long[] {lower.segmentId(), lower.position(), upper.segmentId(), upper.position()};
            }
            statistics = StatisticsWriter.serialize(s, header, descriptor.version());
            fileBytes = sst.dataFileBytes();
        } catch (IOException e) {
            throw wrap(e);
        }
    }

    /**
     * Seals if needed and publishes; returns the Data.db path, or null (nothing published) if no
     * partition was written. A failure is an {@link SSTableWriteException} naming the file and phase.
     */
    public Path finish() throws IOException {
        seal();
        if (partitions == 0) {
            sst.close();
            return null;
        }
        try {
            return sst.finish(statistics);
        } catch (IOException e) {
            throw wrap(e);
        }
    }

    /** True once Data.db reached {@code maxBytes} (0: no limit): the next partition goes to a new sstable. */
    public boolean isFull(long maxBytes) {
        return maxBytes > 0 && sst.dataPosition() >= maxBytes;
    }

    private long uncompressedBytes, fileBytes;

    public long partitions() { return partitions; }

    public long rows() { return rows; }

    public long markers() { return markers; }

    /** Logical Data.db bytes. Valid after {@link #seal}. */
    public long uncompressedBytes() { return uncompressedBytes; }

    /** Physical Data.db bytes. Valid after {@link #seal}. */
    public long fileBytes() { return fileBytes; }

    public long ioCpuNanos() { return sst.ioCpuNanos(); }

    public long ioAllocatedBytes() { return sst.ioAllocatedBytes(); }

    /** Aborts unless published: nothing of this sstable stays visible. */
    @Override
    public void close() {
        sst.close();
    }

    public TableSchema schema() { return schema; }
}

package dev.flushline.flush;

import dev.flushline.sstable.RowSerializer;
import dev.flushline.sstable.StatsCollector;

import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ClusteringComparator;
import dev.flushline.data.CommitLogPosition;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.Cell;
import dev.flushline.data.RangeTombstoneList;
import dev.flushline.data.Row;
import dev.flushline.data.RowRecord;
import dev.flushline.io.FixedBuffer;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.MemtablePartition;
import dev.flushline.memtable.MemtableRowReader;
import dev.flushline.memtable.RowList;
import dev.flushline.schema.CompressionParams;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.DataLayout;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.Descriptor;
import dev.flushline.sstable.SSTableWriteException;
import dev.flushline.sstable.TableDirectory;
import dev.flushline.sstable.EncodingStats;
import dev.flushline.sstable.RowIndexBuilder;
import dev.flushline.sstable.SSTableWriter;
import dev.flushline.sstable.SerializationHeader;
import dev.flushline.sstable.SSTableVersion;
import dev.flushline.sstable.StatisticsWriter;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Iterator;

/**
 * Writes the partitions of a sealed memtable (all of them, or one token range) into one oa
 * sstable: for each partition its header, static row, rows and range-tombstone markers merged in
 * clustering order, and the end-of-partition byte; then Index.db, Summary.db, Filter.db and
 * Statistics.db; then publishes atomically.
 *
 * <p>Conservation (after RocksDB's flush checks): the partitions, rows, cells and markers the
 * memtable holds for the flushed partitions are counted independently of what the serializer
 * writes; any difference aborts the sstable with {@link FlushConservationException}.
 *
 * <p>Thread safety: one instance per flushing thread. The memtable must be sealed.
 */
public final class FlushWriter {
    private final Memtable memtable;
    private final TableSchema schema;
    private final SerializationHeader header;
    private final ClusteringComparator comparator;
    private final Row emptyStaticRow;
    private final SSTableVersion version;
    /** The schema the sstable writer gets: the table's, with the compression {@link FlushCompression} picks. */
    private final TableSchema writeSchema;

    /** Writes oa sstables. */
    public FlushWriter(Memtable memtable) {
        this(memtable, SSTableVersion.OA);
    }

    /**
     * Writes sstables of {@code version}. Throws IllegalArgumentException if the memtable holds a
     * local deletion time (an expiry or a tombstone's) that {@code version} cannot store: callers
     * refuse such values at the input (the load names the line), so this is the last line of defence.
     */
    public FlushWriter(Memtable memtable, SSTableVersion version) {
        this(memtable, version, FlushCompression.TABLE);
    }

    /** As above, compressing as {@code flushCompression} says for the table's compression. */
    public FlushWriter(Memtable memtable, SSTableVersion version, FlushCompression flushCompression) {
        if (!memtable.isSealed()) {
            throw new IllegalStateException("flushing a memtable that still takes writes");
        }
        long maxLdt = memtable.maxLocalDeletionTime();
        if (maxLdt != Cell.NO_DELETION_TIME && maxLdt > version.maxLocalDeletionTime()) {
            throw new IllegalArgumentException("the memtable holds local deletion time " + maxLdt + ", after the latest an "
                    + version + " sstable stores (" + version.maxLocalDeletionTime() + ", " + version.maxLocalDeletionTimeText() + ")");
        }
        this.version = version;
        this.memtable = memtable;
        this.schema = memtable.schema();
        CompressionParams compression = flushCompression.apply(schema.compressionParams());
        this.writeSchema = compression.equals(schema.compressionParams()) ? schema : schema.withCompression(compression);
        this.comparator = memtable.comparator();
        this.header = headerFor(memtable);
        this.emptyStaticRow = new Row(true, null, Cell.NO_TIMESTAMP, Cell.NO_TTL, Cell.NO_DELETION_TIME, DeletionTime.LIVE,
                new Cell[schema.staticComplexStart()], new ComplexColumn[schema.staticColumns().length - schema.staticComplexStart()]);
    }

    /** The header a flush of this memtable uses: the columns written to it and bases that fit its values. */
    public static SerializationHeader headerFor(Memtable m) {
        TableSchema schema = m.schema();
        boolean[] statics = new boolean[schema.staticColumns().length];
        for (int i = 0; i < statics.length; i++) statics[i] = m.staticColumnWritten(i);
        boolean[] regulars = new boolean[schema.regularColumns().length];
        for (int i = 0; i < regulars.length; i++) regulars[i] = m.regularColumnWritten(i);
        EncodingStats stats = EncodingStats.forFlush(m.minTimestamp(), m.minLocalDeletionTime(), m.maxLocalDeletionTime(), m.minTtl());
        return new SerializationHeader(schema, stats, statics, regulars);
    }

    public SerializationHeader header() {
        return header;
    }

    /**
     * Writes the partitions of {@code partitions} (in token order) to a new sstable in
     * {@code tableDir}. Returns null, and publishes nothing, if they are all empty.
     * {@code expectedKeys} sizes the bloom filter, as a node uses its memtable's partition count.
     */
    /**
     * Opens {@code tableDir} for this one sstable (a listing of the directory) and writes into it:
     * for tests and one-off writers. Repeated flushes open a {@link TableDirectory} once.
     */
    public FlushResult write(Iterator<MemtablePartition> partitions, long expectedKeys, Path tableDir) throws IOException {
        return write(partitions, expectedKeys, TableDirectory.open(tableDir), true);
    }

    public FlushResult write(Iterator<MemtablePartition> partitions, long expectedKeys, TableDirectory tableDir) throws IOException {
        return write(partitions, expectedKeys, tableDir, true);
    }

    /** {@code pipelined}: serialize on this thread while an I/O thread compresses and writes. */
    public FlushResult write(Iterator<MemtablePartition> partitions, long expectedKeys, TableDirectory tableDir, boolean pipelined)
            throws IOException {
        return write(partitions, expectedKeys, tableDir, pipelined, null);
    }

    /**
     * As above, reporting progress to {@code progress} (may be null) every few thousand partitions.
     * An I/O failure comes out as an {@link SSTableWriteException} naming the sstable and the phase;
     * nothing of that sstable is left visible.
     */
    public FlushResult write(Iterator<MemtablePartition> partitions, long expectedKeys, TableDirectory tableDir, boolean pipelined,
                             FlushProgress progress) throws IOException {
        return write(partitions, expectedKeys, tableDir, pipelined, progress, 0);
    }

    /**
     * As above, but with {@code maxDataBytes > 0} the sstable is finished after the first partition
     * that brings Data.db (uncompressed) to that size; the partitions after it stay in
     * {@code partitions} for the next sstable. With 0 every partition is written, as above.
     */
    public FlushResult write(Iterator<MemtablePartition> partitions, long expectedKeys, TableDirectory tableDir, boolean pipelined,
                             FlushProgress progress, long maxDataBytes) throws IOException {
        Descriptor descriptor;
        try {
            descriptor = tableDir.reserveNext(version);
        } catch (IOException e) {
            throw new SSTableWriteException(tableDir.path(), SSTableWriteException.Phase.RESERVE, e);
        }
        SSTableWriter sst;
        try {
            sst = new SSTableWriter(writeSchema, descriptor, expectedKeys, pipelined);
        } catch (IOException e) {
            throw new SSTableWriteException(descriptor.path(Component.DATA), SSTableWriteException.Phase.CREATE, e);
        }
        try {
            return write(partitions, sst, descriptor, progress, maxDataBytes);
        } catch (SSTableWriteException e) {
            throw e;
        } catch (IOException e) {
            throw new SSTableWriteException(descriptor.path(Component.DATA), sst.phase(), e);
        } finally {
            sst.close(); // aborts (removes the staging directory) unless published
        }
    }

    private FlushResult write(Iterator<MemtablePartition> partitions, SSTableWriter sst, Descriptor descriptor,
                              FlushProgress progress, long maxDataBytes) throws IOException {
        StatsCollector collector = new StatsCollector(comparator);
        RowSerializer rs = new RowSerializer(header, collector, version);
        MemtableRowReader records = new MemtableRowReader();
        RowIndexBuilder rowIndex = new RowIndexBuilder(rs.clusteringLayout(), RowIndexBuilder.DEFAULT_COLUMN_INDEX_SIZE_BYTES, version);
        final boolean hasStatics = header.hasStatics();

        long expectPartitions = 0, expectRows = 0, expectCells = 0, expectMarkers = 0;
        long wrotePartitions = 0, wroteRows = 0, wroteMarkers = 0;
        long reportedBytes = 0, visited = 0;

        while (partitions.hasNext()) {
            MemtablePartition p = partitions.next();
            visited++;
            if (progress != null && (visited & (FlushProgress.UPDATE_EVERY_PARTITIONS - 1)) == 0) {
                long position = sst.dataPosition();
                progress.add(FlushProgress.UPDATE_EVERY_PARTITIONS, position - reportedBytes);
                reportedBytes = position;
            }
            if (p.isEmpty()) continue; // Cassandra writes nothing for a partition with no data
            expectPartitions++;
            expectRows += p.rowCount();
            expectCells += p.cellCount();
            RangeTombstoneList rts = p.rangeTombstones();
            int markerCount = rts == null ? 0 : rts.markerCount();
            expectMarkers += markerCount;

            final byte[] key = p.key().key();
            final DeletionTime pd = p.partitionDeletion();
            final long partitionStart = sst.dataPosition();

            int size = rs.partitionHeaderSize(key, pd);
            rs.writePartitionHeader(sst.reserve(size), key, pd, size);
            if (hasStatics) {
                Row st = p.staticRow() != null ? p.staticRow() : emptyStaticRow;
                size = rs.rowSize(st, 0);
                rs.writeRow(sst.reserve(size), st, 0, size);
            }
            final long headerLength = sst.dataPosition() - partitionStart;

            rowIndex.reset();
            long previousStart = 0;
            DeletionTime open = DeletionTime.LIVE;
            RowList.Node firstRow = null, lastRow = null;
            RowList.Node node = p.rows().first();
            int mi = 0;
            while (node != null || mi < markerCount) {
                long start = sst.dataPosition() - partitionStart;
                long prevSize = start - previousStart;
                if (node == null || (mi < markerCount && comparator.compare(node.clustering(), rts.markerBound(mi)) > 0)) {
                    ClusteringBound bound = rts.markerBound(mi);
                    DeletionTime endDel = rts.markerEndDeletion(mi), startDel = rts.markerStartDeletion(mi);
                    size = rs.markerSize(bound, endDel, startDel, prevSize);
                    rs.writeMarker(sst.reserve(size), bound, endDel, startDel, prevSize, size);
                    open = bound.isEnd() ? DeletionTime.LIVE : startDel;
                    rowIndex.added(bound.kind(), bound.values(), start, start + size, open);
                    wroteMarkers++;
                    mi++;
                } else {
                    // One branch per row, the same way for every row of a memtable: a record
                    // (the slab modes) or a Row object (unslabbed_heap).
                    if (node.isRecord()) {
                        RowRecord row = records.read(node);
                        size = rs.rowSize(row, prevSize);
                        rs.writeRow(sst.reserve(size), row, prevSize, size);
                    } else {
                        Row row = node.row();
                        size = rs.rowSize(row, prevSize);
                        rs.writeRow(sst.reserve(size), row, prevSize, size);
                    }
                    if (firstRow == null) firstRow = node;
                    lastRow = node;
                    rowIndex.added(ClusteringBound.CLUSTERING, node.clustering(), start, start + size, open);
                    wroteRows++;
                    node = node.next();
                }
                previousStart = start;
            }
            // Rows come in clustering order: the first and last bound the covered slice.
            if (firstRow != null) {
                collector.rowClustering(firstRow.clustering());
                if (lastRow != firstRow) collector.rowClustering(lastRow.clustering());
            }
            FixedBuffer out = sst.reserve(1);
            out.putByte(DataLayout.END_OF_PARTITION);
            long partitionBytes = sst.dataPosition() - partitionStart;
            rowIndex.finish(partitionBytes);
            collector.partitionEnd(key, partitionBytes);
            sst.partitionWritten(key, partitionStart, headerLength, pd, rowIndex);
            wrotePartitions++;
            if (maxDataBytes > 0 && sst.dataPosition() >= maxDataBytes) break; // the rest goes to the next sstable
        }
        if (progress != null) {
            progress.add(visited & (FlushProgress.UPDATE_EVERY_PARTITIONS - 1), sst.dataPosition() - reportedBytes);
        }
        long wroteCells = collector.cellsWritten();
        if (wrotePartitions != expectPartitions || wroteRows != expectRows || wroteCells != expectCells
                || wroteMarkers != expectMarkers) {
            throw new FlushConservationException("flush of " + schema + " into " + descriptor + " wrote partitions/rows/cells/markers "
                    + wrotePartitions + "/" + wroteRows + "/" + wroteCells + "/" + wroteMarkers + " but the memtable holds "
                    + expectPartitions + "/" + expectRows + "/" + expectCells + "/" + expectMarkers);
        }
        if (wrotePartitions == 0) {
            return null; // nothing to publish; closing the writer removes the staging directory
        }
        long uncompressed = sst.dataPosition();
        sst.finishData();
        StatisticsWriter.Stats s = sst.statistics(collector);
        CommitLogPosition lower = memtable.commitLogLowerBound(), upper = memtable.commitLogUpperBound();
        if (!upper.equals(CommitLogPosition.NONE)) {
            // The commit log interval this sstable covers, as Cassandra's flush records it.
            s.commitLogLowerSegmentId = lower.segmentId();
            s.commitLogLowerPosition = lower.position();
            s.commitLogUpperSegmentId = upper.segmentId();
            s.commitLogUpperPosition = upper.position();
            s.commitLogIntervals = new long[] {lower.segmentId(), lower.position(), upper.segmentId(), upper.position()};
        }
        long fileBytes = sst.dataFileBytes();
        Path published = sst.finish(StatisticsWriter.serialize(s, header, version));
        return new FlushResult(published, uncompressed, fileBytes, wrotePartitions, wroteRows, wroteCells, wroteMarkers,
                sst.ioCpuNanos(), sst.ioAllocatedBytes());
    }

    public Memtable memtable() {
        return memtable;
    }
}

package dev.flushline.flush;

import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ClusteringBuffer;
import dev.flushline.data.ClusteringComparator;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.RowRecord;
import dev.flushline.data.RangeTombstoneList;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.MemtablePartition;
import dev.flushline.memtable.MemtableRowReader;
import dev.flushline.memtable.RowList;
import dev.flushline.schema.CompressionParams;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.EncodingStats;
import dev.flushline.sstable.SSTableOutput;
import dev.flushline.sstable.SSTableWriteException;
import dev.flushline.sstable.SSTableVersion;
import dev.flushline.sstable.SerializationHeader;
import dev.flushline.sstable.TableDirectory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Iterator;

/**
 * Writes the partitions of a sealed memtable (all of them, or one token range) into one oa
 * sstable through the one partition writer, {@link SSTableOutput}: for each partition its header
 * and static row, its rows and range-tombstone markers merged in clustering order, and the end of
 * the partition; then the index, filter and statistics components; then publishes atomically.
 * What is memtable-specific stays here: the walk over the memtable's partitions, the merge of
 * its row list with its range tombstone markers, and the per-row split by row source (a record
 * in the slab modes, a {@code Row} object in unslabbed_heap), each branch calling the writer's
 * method for that class.
 *
 * <p>Conservation (after RocksDB's flush checks): the partitions, rows, cells and markers the
 * memtable holds for the flushed partitions are counted independently of what the serializer
 * writes; any difference aborts the sstable with {@link FlushConservationException}.
 *
 * <p>Thread safety: {@link #write} may run on several threads at once (one per token range): its
 * scratch (the record reader, the marker flyweight) is local to each call. The memtable must be sealed.
 */
public final class FlushWriter {
    private final Memtable memtable;
    private final TableSchema schema;
    private final SerializationHeader header;
    private final ClusteringComparator comparator;
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
        this.version = java.util.Objects.requireNonNull(version, "sstable version");
        this.memtable = memtable;
        this.schema = memtable.schema();
        CompressionParams compression = flushCompression.apply(schema.compressionParams());
        this.writeSchema = compression.equals(schema.compressionParams()) ? schema : schema.withCompression(compression);
        this.comparator = memtable.comparator();
        this.header = headerFor(memtable);
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
     * A partition's record rows and its markers, merged in clustering order. The rows are packed
     * ({@link RowList#packedRecord}, read by index) or linked nodes from {@code rows.first()}.
     */
    private void writeRecordRows(SSTableOutput out, RowList rows, RangeTombstoneList rts, int markerCount,
                                 MemtableRowReader records, ClusteringBuffer markerBuffer) throws IOException {
        final ClusteringComparator comparator = this.comparator;
        final boolean packed = rows.isPacked();
        final byte[] slab = packed ? rows.packedSlab() : null;
        final int rowCount = rows.size();
        RowList.Node node = packed ? null : rows.first();
        int ri = 0;
        RowRecord row = rowCount == 0 ? null : packed ? records.read(slab, rows.packedRecord(0)) : records.read(node);
        int mi = 0;
        while (row != null || mi < markerCount) {
            ClusteringBound bound = mi < markerCount ? rts.markerBound(mi) : null;
            if (row == null || (bound != null && comparator.compare(row.clustering(), bound.values(), bound.kind()) > 0)) {
                DeletionTime end = rts.markerEndDeletion(mi), start = rts.markerStartDeletion(mi);
                out.marker(markerBuffer.wrap(bound.kind(), bound.values()),
                        end.markedForDeleteAt(), end.localDeletionTime(), start.markedForDeleteAt(), start.localDeletionTime());
                mi++;
            } else {
                // Without markers the record is read again only for the next row (or, after the
                // last, not until endPartition), so the row index may keep its clustering by reference.
                out.row(row, markerCount == 0);
                if (++ri == rowCount) {
                    row = null;
                } else if (packed) {
                    row = records.read(slab, rows.packedRecord(ri));
                } else {
                    node = node.next();
                    row = records.read(node);
                }
            }
        }
    }

    /** A partition's Row objects and its markers, merged in clustering order. */
    private void writeObjectRows(SSTableOutput out, RowList.Node node, RangeTombstoneList rts, int markerCount) throws IOException {
        final ClusteringComparator comparator = this.comparator;
        int mi = 0;
        while (node != null || mi < markerCount) {
            if (node == null || (mi < markerCount && comparator.compare(node.row().clustering(), rts.markerBound(mi)) > 0)) {
                out.marker(rts.markerBound(mi), rts.markerEndDeletion(mi), rts.markerStartDeletion(mi));
                mi++;
            } else {
                out.row(node.row());
                node = node.next();
            }
        }
    }

    /**
     * Writes the partitions of {@code partitions} (in token order) to a new sstable in
     * {@code tableDir}; returns null, and publishes nothing, if they are all empty.
     * {@code expectedKeys} sizes the bloom filter, as a node uses its memtable's partition count.
     * {@code pipelined}: serialize on this thread while an I/O thread compresses and writes.
     * {@code progress} (may be null) hears every few thousand partitions. With
     * {@code maxDataBytes > 0} the sstable is finished after the first partition that brings
     * Data.db (uncompressed) to that size, and the partitions after it stay in {@code partitions}
     * for the next sstable; with 0 every partition is written.
     *
     * <p>An I/O failure comes out as an {@link SSTableWriteException} naming the sstable and the
     * phase; nothing of that sstable is left visible.
     */
    public FlushResult write(Iterator<MemtablePartition> partitions, long expectedKeys, TableDirectory tableDir, boolean pipelined,
                             FlushProgress progress, long maxDataBytes) throws IOException {
        SSTableOutput out = new SSTableOutput(writeSchema, header, tableDir, expectedKeys, pipelined, version, 0);
        try {
            return write(partitions, out, progress, maxDataBytes);
        } catch (IOException e) {
            throw out.wrap(e);
        } finally {
            out.close(); // aborts (removes the staging directory) unless published
        }
    }

    private FlushResult write(Iterator<MemtablePartition> partitions, SSTableOutput out, FlushProgress progress,
                              long maxDataBytes) throws IOException {
        final ClusteringComparator comparator = this.comparator;
        final MemtableRowReader records = new MemtableRowReader();
        // A record partition's current marker bound, as the flyweight its rows' family takes.
        final ClusteringBuffer markerBuffer = new ClusteringBuffer(comparator.size());

        long expectPartitions = 0, expectRows = 0, expectCells = 0, expectMarkers = 0;
        long reportedBytes = 0, visited = 0;

        while (partitions.hasNext()) {
            MemtablePartition p = partitions.next();
            visited++;
            if (progress != null && (visited & (FlushProgress.UPDATE_EVERY_PARTITIONS - 1)) == 0) {
                long position = out.dataPosition();
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
            out.beginPartition(key, p.partitionDeletion(), p.staticRow());
            // One family per partition, the same for every partition of a memtable: records (the
            // slab modes), whose clustering lies in the record, with markers as flyweights too; or
            // Row objects (unslabbed_heap) with markers as bounds.
            RowList rows = p.rows();
            RowList.Node first = rows.isPacked() ? null : rows.first();
            if (rows.isPacked() || (first != null && first.isRecord())) {
                writeRecordRows(out, rows, rts, markerCount, records, markerBuffer);
            } else {
                writeObjectRows(out, first, rts, markerCount);
            }
            out.endPartition(key);
            if (out.isFull(maxDataBytes)) break; // the rest goes to the next sstable
        }
        if (progress != null) {
            progress.add(visited & (FlushProgress.UPDATE_EVERY_PARTITIONS - 1), out.dataPosition() - reportedBytes);
        }
        long wrotePartitions = out.partitions(), wroteRows = out.rows(), wroteCells = out.cellsWritten(), wroteMarkers = out.markers();
        if (wrotePartitions != expectPartitions || wroteRows != expectRows || wroteCells != expectCells
                || wroteMarkers != expectMarkers) {
            throw new FlushConservationException("flush of " + schema + " into " + out.descriptor() + " wrote partitions/rows/cells/markers "
                    + wrotePartitions + "/" + wroteRows + "/" + wroteCells + "/" + wroteMarkers + " but the memtable holds "
                    + expectPartitions + "/" + expectRows + "/" + expectCells + "/" + expectMarkers);
        }
        if (wrotePartitions == 0) {
            return null; // nothing to publish; closing the output removes the staging directory
        }
        out.coversCommitLog(memtable.commitLogLowerBound(), memtable.commitLogUpperBound());
        Path published = out.finish();
        return new FlushResult(published, out.uncompressedBytes(), out.fileBytes(), wrotePartitions, wroteRows, wroteCells,
                wroteMarkers, out.ioCpuNanos(), out.ioAllocatedBytes());
    }

    public Memtable memtable() {
        return memtable;
    }
}

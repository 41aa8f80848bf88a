package dev.flushline.sstable;

import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ClusteringBuffer;
import dev.flushline.data.ClusteringComparator;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.RowBuffer;
import dev.flushline.io.FixedBuffer;
import dev.flushline.schema.TableSchema;

import java.io.IOException;
import java.nio.file.Path;

/**
 * One sstable written partition by partition from {@link RowBuffer} flyweights, by compaction and
 * by the sorted bulk writer: the shared {@link SSTableWriter} (staging, fsync, TOC.txt last), the
 * shared {@link RowSerializer} and {@link StatsCollector}, and the partition bookkeeping the flush
 * does (previous-unfiltered sizes, row index blocks, open range deletion, first/last row
 * clustering).
 *
 * <p>REQUIRES: partitions in token order, and within one the rows and markers in clustering
 * order; the caller checks it (this class trusts its input, as the serializer does).
 *
 * <p>Life cycle: {@link #beginPartition}, {@link #row} / {@link #marker}, {@link #endPartition},
 * repeated; then {@link #seal} (ends Data.db and Index.db) and {@link #finish} (publishes), or
 * {@link #close} at any point to remove everything of this sstable.
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
    private final RowIndexBuilder rowIndex;
    private final ClusteringBuffer lastRow;

    private long partitionStart;
    private long headerLength;
    private long previousStart;
    private DeletionTime partitionDeletion;
    private boolean hasRow;
    private long openTs = LIVE_TS, openLdt = LIVE_LDT;

    private long partitions, rows, markers;

    /**
     * Reserves the next generation in {@code dir} and opens its writer. {@code expectedKeys} sizes
     * the bloom filter; {@link SSTableWriter#KEYS_UNKNOWN} sizes it from the real count at
     * {@link #seal}. {@code level} goes into Statistics.db (0 outside leveled compaction).
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
        this.rowIndex = new RowIndexBuilder(rs.clusteringLayout(), RowIndexBuilder.DEFAULT_COLUMN_INDEX_SIZE_BYTES, version);
        this.lastRow = new ClusteringBuffer(schema.clusteringColumns().length);
    }

    public Descriptor descriptor() { return descriptor; }

    public long dataPosition() { return sst.dataPosition(); }

    public long cellsWritten() { return collector.cellsWritten(); }

    public IOException wrap(IOException e) {
        return e instanceof SSTableWriteException ? e : new SSTableWriteException(descriptor.path(Component.DATA), sst.phase(), e);
    }

    /** Writes the partition header and, when the header has static columns, the static row (empty if null). */
    public void beginPartition(byte[] key, int keyLength, DeletionTime pd, RowBuffer staticRow, RowBuffer emptyStatic) throws IOException {
        partitionStart = sst.dataPosition();
        partitionDeletion = pd;
        int size = rs.partitionHeaderSize(keyLength, pd);
        rs.writePartitionHeader(sst.reserve(size), key, 0, keyLength, pd, size);
        if (header.hasStatics()) {
            RowBuffer st = staticRow != null ? staticRow : emptyStatic;
            size = rs.rowSize(st, 0);
            rs.writeRow(sst.reserve(size), st, 0, size);
        }
        headerLength = sst.dataPosition() - partitionStart;
        rowIndex.reset();
        previousStart = 0;
        hasRow = false;
        openTs = LIVE_TS;
        openLdt = LIVE_LDT;
    }

    public void row(RowBuffer row) throws IOException {
        long start = sst.dataPosition() - partitionStart;
        long prevSize = start - previousStart;
        int size = rs.rowSize(row, prevSize);
        rs.writeRow(sst.reserve(size), row, prevSize, size);
        if (!hasRow) {
            collector.rowClustering(row.clustering()); // rows come in clustering order: first and last bound the slice
            hasRow = true;
        }
        lastRow.copyFrom(row.clustering());
        rowIndex.added(row.clustering(), start, start + size, openTs, openLdt);
        previousStart = start;
        rows++;
    }

    /** {@code bound.kind()} is the marker's kind; a bound uses the deletion of its side only. */
    public void marker(ClusteringBuffer bound, long endTs, long endLdt, long startTs, long startLdt) throws IOException {
        long start = sst.dataPosition() - partitionStart;
        long prevSize = start - previousStart;
        int size = rs.markerSize(bound, endTs, endLdt, startTs, startLdt, prevSize);
        rs.writeMarker(sst.reserve(size), bound, endTs, endLdt, startTs, startLdt, prevSize, size);
        byte kind = bound.kind();
        if (kind == ClusteringBound.EXCL_END_BOUND || kind == ClusteringBound.INCL_END_BOUND) {
            openTs = LIVE_TS;
            openLdt = LIVE_LDT;
        } else {
            openTs = startTs;
            openLdt = startLdt;
        }
        rowIndex.added(bound, start, start + size, openTs, openLdt);
        previousStart = start;
        markers++;
    }

    public void endPartition(byte[] key, int keyLength) throws IOException {
        if (hasRow) collector.rowClustering(lastRow);
        FixedBuffer out = sst.reserve(1);
        out.putByte(DataLayout.END_OF_PARTITION);
        long partitionBytes = sst.dataPosition() - partitionStart;
        rowIndex.finish(partitionBytes);
        collector.partitionEnd(key, 0, keyLength, partitionBytes);
        sst.partitionWritten(key, keyLength, partitionStart, headerLength, partitionDeletion, rowIndex);
        partitions++;
    }

    private byte[] statistics;
    private boolean sealed;

    /** Ends Data.db and Index.db (stopping the I/O thread) and prepares Statistics.db; publishes nothing yet. */
    public void seal() throws IOException {
        if (sealed) return;
        sealed = true;
        if (partitions == 0) return;
        try {
            uncompressedBytes = sst.dataPosition();
            sst.finishData();
            StatisticsWriter.Stats s = sst.statistics(collector);
            s.sstableLevel = level;
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

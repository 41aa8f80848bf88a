package dev.flushline.oracle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.apache.cassandra.config.Config;
import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.db.Clustering;
import org.apache.cassandra.db.ClusteringBound;
import org.apache.cassandra.db.ClusteringPrefix;
import org.apache.cassandra.db.DecoratedKey;
import org.apache.cassandra.db.DeletionTime;
import org.apache.cassandra.db.LivenessInfo;
import org.apache.cassandra.db.RangeTombstone;
import org.apache.cassandra.db.RegularAndStaticColumns;
import org.apache.cassandra.db.SerializationHeader;
import org.apache.cassandra.db.Slice;
import org.apache.cassandra.db.partitions.AbstractBTreePartition;
import org.apache.cassandra.db.partitions.PartitionUpdate;
import org.apache.cassandra.db.rows.BTreeRow;
import org.apache.cassandra.db.rows.BufferCell;
import org.apache.cassandra.db.rows.CellPath;
import org.apache.cassandra.db.rows.EncodingStats;
import org.apache.cassandra.db.rows.UnfilteredRowIterator;
import org.apache.cassandra.cql3.ColumnIdentifier;
import org.apache.cassandra.db.compaction.OperationType;
import org.apache.cassandra.db.lifecycle.LifecycleTransaction;
import org.apache.cassandra.io.sstable.Descriptor;
import org.apache.cassandra.io.sstable.SSTableMultiWriter;
import org.apache.cassandra.io.sstable.SimpleSSTableMultiWriter;
import org.apache.cassandra.io.sstable.SSTableTxnWriter;
import org.apache.cassandra.io.sstable.SequenceBasedSSTableId;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.io.sstable.format.big.BigFormat;
import org.apache.cassandra.io.util.File;
import org.apache.cassandra.schema.ColumnMetadata;
import org.apache.cassandra.schema.CompressionParams;
import org.apache.cassandra.schema.TableMetadata;
import org.apache.cassandra.schema.TableMetadataRef;
import org.apache.cassandra.utils.ByteBufferUtil;

/**
 * Writes reference sstables with Cassandra's own writer from the neutral model, the way a memtable flush does:
 * PartitionUpdates (the memtable's representation) appended in token order, in a FLUSH transaction (so
 * Cassandra's flush_compression applies, as on a node), to an SSTableTxnWriter whose
 * SerializationHeader carries the caller's EncodingStats and the flushed column set, with a bloom filter
 * sized for {@code keyCount}. Flushline's output for the same model can then be compared byte for byte.
 *
 * <p>Header column choice: a node's flush uses {@code memtable.columns()}, the union of
 * {@code PartitionUpdate.columns()} of every update applied to the memtable (AbstractMemtable.ColumnsCollector).
 * An update's columns are the columns its statement wrote, so after a flush they are exactly the columns that
 * have data in some row (a cell or a complex deletion) — except when a write's data was later fully shadowed
 * inside the memtable, which the model cannot express. We therefore use the union of the columns present in
 * any row or static row of the model, ordered by Cassandra (simple before complex, then name bytes).
 */
public final class CassandraReferenceWriter {
    private static final Pattern GENERATION = Pattern.compile("^[a-z]{2}-(\\d+)-[a-z]+-.+");

    private CassandraReferenceWriter() {
    }

    /**
     * @param lz4 true: table compression LZ4 with 16 KiB chunks (the 5.0 table default, min_compress_ratio 0);
     *            false: compression disabled (CRC.db instead of CompressionInfo.db). Overrides the CQL's options.
     * @return the Data.db path written
     */
    public static Path write(Path dir, String createTableCql, List<Partition> partitions,
                             long minTimestamp, long minLocalDeletionTime, int minTtl,
                             long keyCount, boolean lz4) {
        return write(dir, createTableCql, partitions, minTimestamp, minLocalDeletionTime, minTtl, keyCount, lz4, null);
    }

    /**
     * As above, in version {@code version} ("oa", "nb" of BIG, "da" of BTI; null = BIG's latest, oa in a client JVM).
     * Cassandra's writer follows the Descriptor's version everywhere (deletion times, STATS), which is what a
     * node in storage_compatibility_mode CASSANDRA_4 does when its latest version is nb.
     */
    public static Path write(Path dir, String createTableCql, List<Partition> partitions,
                             long minTimestamp, long minLocalDeletionTime, int minTtl,
                             long keyCount, boolean lz4, String version) {
        TableMetadata table = withCompression(CassandraOracle.parseTable(createTableCql), lz4);
        return write(dir, table, partitions, minTimestamp, minLocalDeletionTime, minTtl, keyCount, version, null);
    }

    /**
     * As a node's flush of the table as {@code createTableCql} declares it, compression included, under
     * {@code flush_compression: flushCompression} (see {@link #writeFlush(Path, TableMetadata, List,
     * RegularAndStaticColumns, EncodingStats, long, String, Config.FlushCompression)}).
     */
    public static Path writeAsFlush(Path dir, String createTableCql, List<Partition> partitions,
                                    long minTimestamp, long minLocalDeletionTime, int minTtl,
                                    long keyCount, String version, Config.FlushCompression flushCompression) {
        return write(dir, CassandraOracle.parseTable(createTableCql), partitions, minTimestamp, minLocalDeletionTime, minTtl,
                     keyCount, version, flushCompression);
    }

    private static Path write(Path dir, TableMetadata table, List<Partition> partitions,
                              long minTimestamp, long minLocalDeletionTime, int minTtl,
                              long keyCount, String version, Config.FlushCompression flushCompression) {
        RegularAndStaticColumns columns = headerColumns(table, partitions);
        List<PartitionUpdate> updates = new ArrayList<>();
        for (Partition p : partitions) {
            updates.add(toUpdate(table, columns, p));
        }
        return writeFlush(dir, table, updates, columns, new EncodingStats(minTimestamp, minLocalDeletionTime, minTtl), keyCount,
                          version, flushCompression);
    }

    /**
     * The table with the compression a reference write uses: LZ4 with 16 KiB chunks (the 5.0 table default,
     * min_compress_ratio 0), or none (CRC.db instead of CompressionInfo.db).
     */
    public static TableMetadata withCompression(TableMetadata table, boolean lz4) {
        CompressionParams compression = lz4
                ? CompressionParams.fromMap(Map.of("class", "org.apache.cassandra.io.compress.LZ4Compressor",
                                                   "chunk_length_in_kb", "16"))
                : CompressionParams.noCompression();
        return table.unbuild().compression(compression).build();
    }

    /**
     * What a node's memtable flush does with its partitions: each one's {@code unfilteredIterator()}, in token
     * order, appended to an SSTableTxnWriter whose header has the given columns and EncodingStats and whose bloom
     * filter is sized for {@code keyCount}. {@code partitions} may be PartitionUpdates or a memtable's own
     * partitions; empty ones are skipped, as Flushing does.
     *
     * @return the Data.db path written
     */
    public static Path writeFlush(Path dir, TableMetadata table, List<? extends AbstractBTreePartition> partitions,
                                  RegularAndStaticColumns columns, EncodingStats stats, long keyCount) {
        return writeFlush(dir, table, partitions, columns, stats, keyCount, null);
    }

    /** As above, in version {@code version} ("oa", "nb", "da"; null = BIG's latest). */
    public static Path writeFlush(Path dir, TableMetadata table, List<? extends AbstractBTreePartition> partitions,
                                  RegularAndStaticColumns columns, EncodingStats stats, long keyCount, String version) {
        return writeFlush(dir, table, partitions, columns, stats, keyCount, version, null);
    }

    /**
     * As above, with the node's {@code flush_compression} set to {@code flushCompression} for this write (null:
     * leave it, client mode's default is {@code fast}). The writer runs in a FLUSH transaction, so Cassandra's own
     * DataComponent decides the compression as a node's flush does: the table's, LZ4 in its place, or Noop.
     */
    public static synchronized Path writeFlush(Path dir, TableMetadata table, List<? extends AbstractBTreePartition> partitions,
                                               RegularAndStaticColumns columns, EncodingStats stats, long keyCount, String version,
                                               Config.FlushCompression flushCompression) {
        Config.FlushCompression before = DatabaseDescriptor.getFlushCompression();
        if (flushCompression != null) DatabaseDescriptor.setFlushCompression(flushCompression);
        try {
            return writeFlushAsNode(dir, table, partitions, columns, stats, keyCount, version);
        } finally {
            DatabaseDescriptor.setFlushCompression(before);
        }
    }

    private static Path writeFlushAsNode(Path dir, TableMetadata table, List<? extends AbstractBTreePartition> partitions,
                                         RegularAndStaticColumns columns, EncodingStats stats, long keyCount, String version) {
        List<AbstractBTreePartition> sorted = new ArrayList<>(partitions);
        sorted.sort(Comparator.comparing(AbstractBTreePartition::partitionKey));
        for (int i = 1; i < sorted.size(); i++) {
            if (sorted.get(i - 1).partitionKey().equals(sorted.get(i).partitionKey())) {
                throw new IllegalArgumentException("duplicate partition key " + sorted.get(i).partitionKey());
            }
        }
        TableMetadataRef ref = TableMetadataRef.forOfflineTools(table);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        SequenceBasedSSTableId id = new SequenceBasedSSTableId(nextGeneration(dir));
        Descriptor descriptor = version == null
                ? new Descriptor(new File(dir.toAbsolutePath()), table.keyspace, table.name, id, BigFormat.getInstance())
                : new Descriptor(version, new File(dir.toAbsolutePath()), table.keyspace, table.name, id, formatOf(version));
        SerializationHeader header = new SerializationHeader(true, table, columns, stats);
        // What SSTableTxnWriter.create does, in a FLUSH transaction instead of a WRITE one.
        LifecycleTransaction txn = LifecycleTransaction.offline(OperationType.FLUSH);
        SSTableMultiWriter multi = SimpleSSTableMultiWriter.create(descriptor, keyCount, 0, null, false, ref, null, 0, header,
                                                                   Collections.emptyList(), txn, null);
        try (SSTableTxnWriter writer = new SSTableTxnWriter(txn, multi)) {
            for (AbstractBTreePartition partition : sorted) {
                if (partition.isEmpty()) {
                    continue;
                }
                try (UnfilteredRowIterator iterator = partition.unfilteredIterator()) {
                    writer.append(iterator);
                }
            }
            // finish(false) does not open readers (the collection holds nulls); release any that were opened anyway.
            Collection<SSTableReader> finished = writer.finish(false);
            for (SSTableReader reader : finished) {
                if (reader != null) {
                    reader.selfRef().release();
                }
            }
        }
        return Path.of(descriptor.fileFor(org.apache.cassandra.io.sstable.format.SSTableFormat.Components.DATA).absolutePath());
    }

    /** The format of sstable version {@code version}: BTI for "da", BIG for "oa" and "nb". */
    public static org.apache.cassandra.io.sstable.format.SSTableFormat<?, ?> formatOf(String version) {
        return version.startsWith("d") ? DatabaseDescriptor.getSSTableFormats().get("bti") : BigFormat.getInstance();
    }

    /** Next free sequence generation in the folder (1 for an empty folder), like CQLSSTableWriter picks. */
    static int nextGeneration(Path dir) {
        int max = 0;
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Matcher m = GENERATION.matcher(p.getFileName().toString());
                if (m.matches()) {
                    max = Math.max(max, Integer.parseInt(m.group(1)));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return max + 1;
    }

    static RegularAndStaticColumns headerColumns(TableMetadata table, List<Partition> partitions) {
        RegularAndStaticColumns.Builder builder = RegularAndStaticColumns.builder();
        for (Partition p : partitions) {
            for (ColumnData cd : p.staticRow().columns()) {
                builder.add(column(table, cd.column()));
            }
            for (Row row : p.rows()) {
                for (ColumnData cd : row.columns()) {
                    builder.add(column(table, cd.column()));
                }
            }
        }
        return builder.build();
    }

    private static ColumnMetadata column(TableMetadata table, String name) {
        ColumnMetadata column = table.getColumn(new ColumnIdentifier(name, true));
        if (column == null) {
            throw new IllegalArgumentException("table " + table + " has no column " + name);
        }
        return column;
    }

    static PartitionUpdate toUpdate(TableMetadata table, RegularAndStaticColumns columns, Partition p) {
        DecoratedKey key = table.partitioner.decorateKey(p.key().toBuffer());
        PartitionUpdate.Builder builder = new PartitionUpdate.Builder(table, key, columns, p.unfiltereds().size());
        if (!p.deletion().isLive()) {
            builder.addPartitionDeletion(deletionTime(p.deletion()));
        }
        if (!p.staticRow().isEmpty()) {
            builder.add(toRow(table, Clustering.STATIC_CLUSTERING, p.staticRow()));
        }
        ClusteringBound<?> openStart = null;
        Deletion openDeletion = null;
        for (Unfiltered u : p.unfiltereds()) {
            if (u instanceof Row row) {
                builder.add(toRow(table, Clustering.make(buffers(row.clustering())), row));
                continue;
            }
            // The memtable holds range tombstones, not markers; the iterator regenerates bound/boundary markers.
            Marker m = (Marker) u;
            ByteBuffer[] values = buffers(m.clustering());
            if (m.isBoundary() || m.kind().endsWith("END_BOUND")) {
                if (openStart == null || !openDeletion.equals(m.deletions().get(0))) {
                    throw new IllegalArgumentException("marker " + m + " closes a range that is not open with that deletion");
                }
                ClusteringPrefix.Kind endKind = m.kind().startsWith("EXCL_END") ? ClusteringPrefix.Kind.EXCL_END_BOUND
                                                                                : ClusteringPrefix.Kind.INCL_END_BOUND;
                ClusteringBound<?> end = ClusteringBound.create(endKind, Clustering.make(values));
                builder.add(new RangeTombstone(Slice.make(openStart, end), deletionTime(openDeletion)));
                openStart = null;
                openDeletion = null;
            }
            if (m.isBoundary() || m.kind().endsWith("START_BOUND")) {
                if (openStart != null) {
                    throw new IllegalArgumentException("marker " + m + " opens a range while another is open");
                }
                ClusteringPrefix.Kind startKind = m.kind().contains("INCL_START") ? ClusteringPrefix.Kind.INCL_START_BOUND
                                                                                  : ClusteringPrefix.Kind.EXCL_START_BOUND;
                openStart = ClusteringBound.create(startKind, Clustering.make(values));
                openDeletion = m.deletions().get(m.deletions().size() - 1);
            }
        }
        if (openStart != null) {
            throw new IllegalArgumentException("range tombstone opened at " + openStart + " is never closed in " + p.key());
        }
        return builder.build();
    }

    private static org.apache.cassandra.db.rows.Row toRow(TableMetadata table, Clustering<?> clustering, Row row) {
        org.apache.cassandra.db.rows.Row.Builder builder = BTreeRow.unsortedBuilder();
        builder.newRow(clustering);
        if (!row.liveness().isEmpty()) {
            Liveness l = row.liveness();
            builder.addPrimaryKeyLivenessInfo(LivenessInfo.withExpirationTime(l.timestamp(), l.ttl(), l.localExpirationTime()));
        }
        if (!row.deletion().isLive()) {
            builder.addRowDeletion(org.apache.cassandra.db.rows.Row.Deletion.regular(deletionTime(row.deletion())));
        }
        for (ColumnData cd : row.columns()) {
            ColumnMetadata column = column(table, cd.column());
            if (cd instanceof Cell cell) {
                builder.addCell(toCell(column, cell));
            } else {
                ComplexColumn complex = (ComplexColumn) cd;
                if (!complex.complexDeletion().isLive()) {
                    builder.addComplexDeletion(column, deletionTime(complex.complexDeletion()));
                }
                for (Cell cell : complex.cells()) {
                    builder.addCell(toCell(column, cell));
                }
            }
        }
        return builder.build();
    }

    private static BufferCell toCell(ColumnMetadata column, Cell cell) {
        CellPath path = cell.path() == null ? null : CellPath.create(cell.path().toBuffer());
        ByteBuffer value = cell.value().length() == 0 ? ByteBufferUtil.EMPTY_BYTE_BUFFER : cell.value().toBuffer();
        return new BufferCell(column, cell.timestamp(), cell.ttl(), cell.localDeletionTime(), value, path);
    }

    private static DeletionTime deletionTime(Deletion d) {
        return d.isLive() ? DeletionTime.LIVE : DeletionTime.build(d.markedForDeleteAt(), d.localDeletionTime());
    }

    private static ByteBuffer[] buffers(List<Bytes> values) {
        return values.stream().map(Bytes::toBuffer).toArray(ByteBuffer[]::new);
    }
}

package dev.flushline.oracle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.apache.cassandra.db.Clustering;
import org.apache.cassandra.db.ClusteringBound;
import org.apache.cassandra.db.ClusteringPrefix;
import org.apache.cassandra.db.DecoratedKey;
import org.apache.cassandra.db.DeletionTime;
import org.apache.cassandra.db.LivenessInfo;
import org.apache.cassandra.db.Slice;
import org.apache.cassandra.db.Slices;
import org.apache.cassandra.db.filter.ColumnFilter;
import org.apache.cassandra.db.rows.ComplexColumnData;
import org.apache.cassandra.db.rows.EncodingStats;
import org.apache.cassandra.db.rows.RangeTombstoneBoundMarker;
import org.apache.cassandra.db.rows.RangeTombstoneBoundaryMarker;
import org.apache.cassandra.db.rows.RangeTombstoneMarker;
import org.apache.cassandra.db.rows.UnfilteredRowIterator;
import org.apache.cassandra.io.sstable.Descriptor;
import org.apache.cassandra.io.sstable.ISSTableScanner;
import org.apache.cassandra.io.sstable.format.FilterComponent;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.io.sstable.SSTableReadsListener;
import org.apache.cassandra.io.sstable.format.big.BigTableReader;
import org.apache.cassandra.io.sstable.format.big.RowIndexEntry;
import org.apache.cassandra.io.sstable.metadata.StatsMetadata;
import org.apache.cassandra.io.util.File;
import org.apache.cassandra.schema.TableMetadata;
import org.apache.cassandra.schema.TableMetadataRef;
import org.apache.cassandra.utils.BloomFilter;
import org.apache.cassandra.utils.IFilter;

/**
 * Reads sstables with cassandra-all 5.0.9 and converts what it sees into the neutral model.
 * Open with {@link #open}, use {@link #sstables()} and close it (try-with-resources) so every
 * SSTableReader reference is released; {@link #readAll(Path, String)} does all of that in one call.
 */
public final class CassandraReader implements AutoCloseable {
    /** A directory named like a node's table folder: {@code <table>-<32 hex table id>}. */
    private static final Pattern TABLE_DIR = Pattern.compile(".+-[0-9a-f]{32}");

    private final TableMetadata table;
    private final List<SSTable> sstables = new ArrayList<>();

    private CassandraReader(TableMetadata table) {
        this.table = table;
    }

    /** Opens and fully scans every sstable in the folder (or the one Data.db given), in generation order, then releases them. */
    public static List<Partition> readAll(Path sstableDirOrDataFile, String createTableCql) {
        try (CassandraReader reader = open(sstableDirOrDataFile, createTableCql)) {
            List<Partition> all = new ArrayList<>();
            for (SSTable sstable : reader.sstables()) {
                all.addAll(sstable.readAll());
            }
            return all;
        }
    }

    public static CassandraReader open(Path sstableDirOrDataFile, String createTableCql) {
        TableMetadata table = CassandraOracle.parseTable(createTableCql);
        TableMetadataRef ref = TableMetadataRef.forOfflineTools(table);
        CassandraReader result = new CassandraReader(table);
        try {
            for (Path dataFile : dataFiles(sstableDirOrDataFile)) {
                Descriptor descriptor = descriptorFor(dataFile, table);
                // openForBatch = openNoValidation plus the reader's own consistency checks (first <= last key).
                SSTableReader reader = SSTableReader.openForBatch(null, descriptor, null, ref);
                result.sstables.add(result.new SSTable(dataFile, descriptor, reader));
            }
        } catch (RuntimeException | Error e) {
            result.close();
            throw e;
        }
        return result;
    }

    /** Every {@code *-Data.db} of the folder sorted by generation, or the single Data.db passed in. */
    static List<Path> dataFiles(Path sstableDirOrDataFile) {
        if (!Files.isDirectory(sstableDirOrDataFile)) {
            return List.of(sstableDirOrDataFile);
        }
        try (Stream<Path> files = Files.list(sstableDirOrDataFile)) {
            List<Path> result = new ArrayList<>(files.filter(p -> p.getFileName().toString().endsWith("-Data.db")).toList());
            result.sort((a, b) -> compareGenerations(a.getFileName().toString(), b.getFileName().toString()));
            return result;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int compareGenerations(String a, String b) {
        // oa-<gen>-big-Data.db: numeric generations sort numerically, anything else by name.
        String ga = a.split("-")[1];
        String gb = b.split("-")[1];
        if (ga.chars().allMatch(Character::isDigit) && gb.chars().allMatch(Character::isDigit)) {
            return Long.compare(Long.parseLong(ga), Long.parseLong(gb));
        }
        return a.compareTo(b);
    }

    /**
     * Uses Cassandra's own directory parsing when the file sits in a {@code <ks>/<table>-<id>/} folder, so that
     * layout is exercised too; any other folder goes through fromFileWithComponent with the CQL's names.
     */
    static Descriptor descriptorFor(Path dataFile, TableMetadata table) {
        Path abs = dataFile.toAbsolutePath();
        Path parent = abs.getParent();
        File file = new File(abs);
        if (parent != null && parent.getParent() != null
                && TABLE_DIR.matcher(parent.getFileName().toString()).matches()
                && parent.getFileName().toString().startsWith(table.name + "-")
                && parent.getParent().getFileName().toString().equals(table.keyspace)) {
            return Descriptor.fromFile(file);
        }
        return Descriptor.fromFileWithComponent(file, table.keyspace, table.name).left;
    }

    public TableMetadata table() {
        return table;
    }

    public List<SSTable> sstables() {
        return Collections.unmodifiableList(sstables);
    }

    /** The single sstable of the folder; fails if there are zero or several. */
    public SSTable only() {
        if (sstables.size() != 1) {
            throw new IllegalStateException("expected exactly one sstable, found " + sstables.size());
        }
        return sstables.get(0);
    }

    @Override
    public void close() {
        for (SSTable sstable : sstables) {
            sstable.reader.selfRef().release();
        }
        sstables.clear();
    }

    /** Bloom filter check exactly as a node would do it: loads Filter.db (offline readers never load it). */
    public static boolean bloomFilterMayContain(Descriptor descriptor, TableMetadata table, Bytes key) {
        try (IFilter filter = FilterComponent.load(descriptor)) {
            if (filter == null) {
                throw new IllegalStateException("no Filter.db for " + descriptor);
            }
            return filter.isPresent(table.partitioner.decorateKey(key.toBuffer()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One opened sstable. */
    public final class SSTable {
        private final Path dataFile;
        private final Descriptor descriptor;
        private final SSTableReader reader;

        private SSTable(Path dataFile, Descriptor descriptor, SSTableReader reader) {
            this.dataFile = dataFile;
            this.descriptor = descriptor;
            this.reader = reader;
        }

        public Path dataFile() {
            return dataFile;
        }

        public Descriptor descriptor() {
            return descriptor;
        }

        /** Escape hatch for assertions on Cassandra objects; do not release it, {@link CassandraReader#close()} does. */
        public SSTableReader cassandraReader() {
            return reader;
        }

        /** Sequential scan of Data.db (getScanner), every partition in file order. */
        public List<Partition> readAll() {
            List<Partition> result = new ArrayList<>();
            try (ISSTableScanner scanner = reader.getScanner()) {
                while (scanner.hasNext()) {
                    try (UnfilteredRowIterator partition = scanner.next()) {
                        result.add(convert(partition));
                    }
                }
            }
            return result;
        }

        /** Point read of a whole partition through Index.db; empty if Index.db does not hold the key. */
        public Optional<Partition> read(Bytes key) {
            return read(key, ClusteringSlice.ALL, false);
        }

        /**
         * Slice read through Index.db and, for big partitions, the promoted row index (BigTableReader.rowIterator).
         * A reversed read returns rows and markers in reverse clustering order, as Cassandra yields them.
         */
        public Optional<Partition> read(Bytes key, ClusteringSlice slice, boolean reversed) {
            DecoratedKey dk = reader.decorateKey(key.toBuffer());
            // Presence comes from Index.db: a present partition may well have nothing inside the slice.
            if (((BigTableReader) reader).getRowIndexEntry(dk, SSTableReader.Operator.EQ) == null) {
                return Optional.empty();
            }
            Slices slices = Slices.with(table.comparator, toSlice(slice));
            try (UnfilteredRowIterator partition = ((BigTableReader) reader).rowIterator(
                    dk, slices, ColumnFilter.all(table), reversed, SSTableReadsListener.NOOP_LISTENER)) {
                return Optional.of(convert(partition));
            }
        }

        /**
         * Number of promoted index blocks Index.db holds for the key: 0 when the partition has no promoted
         * index (one block), -1 when the key is not in the index.
         */
        public int indexBlockCount(Bytes key) {
            RowIndexEntry entry = ((BigTableReader) reader).getRowIndexEntry(
                    reader.decorateKey(key.toBuffer()), SSTableReader.Operator.EQ);
            if (entry == null) {
                return -1;
            }
            return entry.isIndexed() ? entry.blockCount() : 0;
        }

        public boolean bloomFilterMayContain(Bytes key) {
            return CassandraReader.bloomFilterMayContain(descriptor, table, key);
        }

        /** True if Filter.db deserializes into a real bloom filter (not the always-present stand-in). */
        public boolean hasRealBloomFilter() {
            try (IFilter filter = FilterComponent.load(descriptor)) {
                return filter instanceof BloomFilter;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        public StatsMetadata rawStats() {
            return reader.getSSTableMetadata();
        }

        public SSTableStats stats() {
            StatsMetadata s = reader.getSSTableMetadata();
            EncodingStats enc = reader.header.stats();
            return new SSTableStats(s.minTimestamp, s.maxTimestamp,
                                    s.minLocalDeletionTime, s.maxLocalDeletionTime,
                                    s.minTTL, s.maxTTL,
                                    bound(s.coveredClustering.start()), bound(s.coveredClustering.end()),
                                    s.estimatedPartitionSize.count(), reader.estimatedKeys(),
                                    s.firstKey == null ? null : Bytes.of(s.firstKey),
                                    s.lastKey == null ? null : Bytes.of(s.lastKey),
                                    s.totalRows, s.totalColumnsSet,
                                    s.hasPartitionLevelDeletions,
                                    s.repairedAt, s.sstableLevel, s.compressionRatio,
                                    enc.minTimestamp, enc.minLocalDeletionTime, enc.minTTL);
        }
    }

    private static Slice toSlice(ClusteringSlice slice) {
        ByteBuffer[] start = slice.start().stream().map(Bytes::toBuffer).toArray(ByteBuffer[]::new);
        ByteBuffer[] end = slice.end().stream().map(Bytes::toBuffer).toArray(ByteBuffer[]::new);
        ClusteringBound<?> startBound = start.length == 0 ? ClusteringBound.BOTTOM
                : ClusteringBound.create(slice.startInclusive() ? ClusteringPrefix.Kind.INCL_START_BOUND
                                                                : ClusteringPrefix.Kind.EXCL_START_BOUND, Clustering.make(start));
        ClusteringBound<?> endBound = end.length == 0 ? ClusteringBound.TOP
                : ClusteringBound.create(slice.endInclusive() ? ClusteringPrefix.Kind.INCL_END_BOUND
                                                              : ClusteringPrefix.Kind.EXCL_END_BOUND, Clustering.make(end));
        return Slice.make(startBound, endBound);
    }

    private static SSTableStats.Bound bound(ClusteringBound<?> bound) {
        return new SSTableStats.Bound(bound.kind().name(), values(bound));
    }

    // ---- Cassandra -> model conversion; shared with the tests' Cassandra-object assertions ----

    static Partition convert(UnfilteredRowIterator partition) {
        Row staticRow = convertRow(partition.staticRow());
        List<Unfiltered> items = new ArrayList<>();
        while (partition.hasNext()) {
            org.apache.cassandra.db.rows.Unfiltered u = partition.next();
            if (u.isRow()) {
                items.add(convertRow((org.apache.cassandra.db.rows.Row) u));
            } else {
                items.add(convertMarker((RangeTombstoneMarker) u));
            }
        }
        return new Partition(Bytes.of(partition.partitionKey().getKey()),
                             deletion(partition.partitionLevelDeletion()),
                             staticRow, items);
    }

    static Row convertRow(org.apache.cassandra.db.rows.Row row) {
        if (row.deletion().isShadowable()) {
            // Only materialized views write shadowable deletions; the model has no field for the flag.
            throw new UnsupportedOperationException("shadowable row deletion is not modelled: " + row);
        }
        List<ColumnData> columns = new ArrayList<>();
        for (org.apache.cassandra.db.rows.ColumnData cd : row) {
            if (cd.column().isSimple()) {
                columns.add(convertCell((org.apache.cassandra.db.rows.Cell<?>) cd));
            } else {
                ComplexColumnData complex = (ComplexColumnData) cd;
                List<Cell> cells = new ArrayList<>();
                for (org.apache.cassandra.db.rows.Cell<?> c : complex) {
                    cells.add(convertCell(c));
                }
                columns.add(new ComplexColumn(cd.column().name.toString(), deletion(complex.complexDeletion()), cells));
            }
        }
        return new Row(values(row.clustering()), liveness(row.primaryKeyLivenessInfo()),
                       deletion(row.deletion().time()), columns);
    }

    private static Cell convertCell(org.apache.cassandra.db.rows.Cell<?> cell) {
        Bytes path = cell.path() == null ? null : Bytes.of(cell.path().get(0));
        return new Cell(cell.column().name.toString(), path, cell.timestamp(), cell.ttl(),
                        cell.localDeletionTime(), Bytes.of(cell.buffer()));
    }

    private static Marker convertMarker(RangeTombstoneMarker marker) {
        String kind = marker.clustering().kind().name();
        List<Bytes> clustering = values(marker.clustering());
        if (marker.isBoundary()) {
            RangeTombstoneBoundaryMarker boundary = (RangeTombstoneBoundaryMarker) marker;
            return new Marker(kind, clustering,
                              List.of(deletion(boundary.endDeletionTime()), deletion(boundary.startDeletionTime())));
        }
        return new Marker(kind, clustering, List.of(deletion(((RangeTombstoneBoundMarker) marker).deletionTime())));
    }

    private static List<Bytes> values(ClusteringPrefix<?> prefix) {
        List<Bytes> values = new ArrayList<>(prefix.size());
        for (int i = 0; i < prefix.size(); i++) {
            values.add(Bytes.of(prefix.bufferAt(i)));
        }
        return values;
    }

    private static Deletion deletion(DeletionTime dt) {
        return dt.isLive() ? Deletion.LIVE : new Deletion(dt.markedForDeleteAt(), dt.localDeletionTime());
    }

    private static Liveness liveness(LivenessInfo info) {
        return info.isEmpty() ? Liveness.EMPTY : new Liveness(info.timestamp(), info.ttl(), info.localExpirationTime());
    }
}

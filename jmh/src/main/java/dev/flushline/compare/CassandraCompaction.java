package dev.flushline.compare;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.cql3.statements.schema.CreateTableStatement;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.Directories;
import org.apache.cassandra.db.Keyspace;
import org.apache.cassandra.db.SerializationHeader;
import org.apache.cassandra.db.compaction.CompactionController;
import org.apache.cassandra.db.compaction.CompactionIterator;
import org.apache.cassandra.db.compaction.OperationType;
import org.apache.cassandra.db.rows.UnfilteredRowIterator;
import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.io.sstable.Descriptor;
import org.apache.cassandra.io.sstable.ISSTableScanner;
import org.apache.cassandra.io.sstable.SSTableTxnWriter;
import org.apache.cassandra.io.sstable.SequenceBasedSSTableId;
import org.apache.cassandra.io.sstable.format.SSTableFormat;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.io.sstable.format.big.BigFormat;
import org.apache.cassandra.io.util.File;
import org.apache.cassandra.schema.KeyspaceMetadata;
import org.apache.cassandra.schema.KeyspaceParams;
import org.apache.cassandra.schema.Schema;
import org.apache.cassandra.schema.SchemaTransformations;
import org.apache.cassandra.schema.TableMetadata;
import org.apache.cassandra.schema.TableMetadataRef;
import org.apache.cassandra.utils.TimeUUID;

/**
 * Cassandra 5.0.5's major compaction, in this JVM, offline, over sstables already on disk: what
 * CompactionTask does per partition, without its lifecycle bookkeeping.
 *
 * <p>The inputs are opened once as SSTableReaders of an offline ColumnFamilyStore (client mode, as
 * {@link CassandraPeer}) before anything is measured: on a node they are open long before a
 * compaction starts. A run then does what the compaction thread does: a scanner per input
 * ({@code SSTableReader.getScanner}, the BigTableScanner STCS uses), a {@code CompactionController}
 * over exactly those readers with the given gcBefore (no other sstable overlaps and no memtable
 * holds data, so every tombstone older than gcBefore may go, as in a major compaction),
 * {@code CompactionIterator} (merge, reconcile, purge), and {@code SSTableTxnWriter} (BigTableWriter:
 * Data, Index, Summary, Filter, Statistics, CompressionInfo or CRC, Digest, TOC; fsynced) with the
 * header a compaction makes ({@code SerializationHeader.make} over the inputs). Compaction
 * throughput is set to 0 (unthrottled), although the offline iterator has no limiter anyway.
 *
 * <p>Left out: the LifecycleTransaction of the inputs, SSTableRewriter's early open, the tracker
 * and strategy notifications, the active-compactions registry. These cost little per row; leaving
 * them out only makes Cassandra's side cheaper.
 *
 * <p>Not thread-safe; one compaction at a time.
 */
final class CassandraCompaction implements AutoCloseable {
    private final ColumnFamilyStore cfs;
    private final Set<SSTableReader> readers = new LinkedHashSet<>();
    private final long estimatedKeys;
    private static int keyspaces;
    private static final Map<String, ColumnFamilyStore> STORES = new HashMap<>();

    /** Opens {@code dataFiles} (Data.db paths) as readers of a store for {@code cql} (keyspace replaced). */
    CassandraCompaction(String cql, List<Path> dataFiles, Path root) throws IOException {
        CassandraPeer.init(root.resolve("node"));
        DatabaseDescriptor.setCompactionThroughputMebibytesPerSec(0);
        this.cfs = store(cql, root);
        TableMetadata table = cfs.metadata();
        long keys = 0;
        for (Path dataFile : dataFiles) {
            Descriptor d = Descriptor.fromFileWithComponent(new File(dataFile.toAbsolutePath()), table.keyspace, table.name).left;
            SSTableReader r = SSTableReader.openNoValidation(d, d.discoverComponents(), cfs);
            readers.add(r);
            keys += r.estimatedKeys();
        }
        this.estimatedKeys = Math.max(1, keys);
    }

    private static synchronized ColumnFamilyStore store(String cql, Path root) throws IOException {
        ColumnFamilyStore cached = STORES.get(cql);
        if (cached != null) return cached;
        String keyspace = "compact_" + (++keyspaces);
        TableMetadata table = CreateTableStatement.parse(cql, keyspace).partitioner(Murmur3Partitioner.instance).build();
        Schema.instance.transform(SchemaTransformations.addKeyspace(KeyspaceMetadata.create(keyspace, KeyspaceParams.simple(1)), true));
        Keyspace ks = Keyspace.openWithoutSSTables(keyspace);
        Path dir = Files.createDirectories(root.resolve("store").resolve(keyspace));
        Directories directories = new Directories(table, Collections.singleton(new Directories.DataDirectory(new File(dir))));
        for (File d : directories.getCFDirectories()) Files.createDirectories(d.toPath());
        ColumnFamilyStore cfs = ColumnFamilyStore.createColumnFamilyStore(ks, table.name, TableMetadataRef.forOfflineTools(table),
                directories, false, false, true);
        STORES.put(cql, cfs);
        return cfs;
    }

    /** The compaction into {@code outDir} (created); returns the output's Data.db, or null when nothing was left. */
    Path compact(Path outDir, long nowSeconds, long gcBefore) throws IOException {
        TableMetadata table = cfs.metadata();
        Files.createDirectories(outDir);
        Descriptor out = new Descriptor(new File(outDir.toAbsolutePath()), table.keyspace, table.name,
                new SequenceBasedSSTableId(1), BigFormat.getInstance());
        SerializationHeader header = SerializationHeader.make(table, readers);
        List<ISSTableScanner> scanners = new ArrayList<>();
        for (SSTableReader r : readers) scanners.add(r.getScanner());
        boolean any = false;
        try (CompactionController controller = new CompactionController(cfs, readers, gcBefore);
             CompactionIterator ci = new CompactionIterator(OperationType.COMPACTION, scanners, controller, nowSeconds,
                     TimeUUID.Generator.nextTimeUUID());
             SSTableTxnWriter writer = SSTableTxnWriter.create(cfs.metadata, out, estimatedKeys, 0, null, false, header,
                     Collections.emptyList(), null)) {
            while (ci.hasNext()) {
                try (UnfilteredRowIterator partition = ci.next()) {
                    writer.append(partition);
                    any = true;
                }
            }
            if (!any) {
                writer.abort();
                return null;
            }
            Collection<SSTableReader> finished = writer.finish(false);
            for (SSTableReader reader : finished) {
                if (reader != null) reader.selfRef().release();
            }
        }
        return Path.of(out.fileFor(SSTableFormat.Components.DATA).absolutePath());
    }

    /** The disk access mode client mode left (how the scanners read: mmap or standard). */
    static String diskAccessMode() {
        return String.valueOf(DatabaseDescriptor.getDiskAccessMode());
    }

    static double throughput() {
        return DatabaseDescriptor.getCompactionThroughputMebibytesPerSec();
    }

    @Override
    public void close() {
        for (SSTableReader r : readers) r.selfRef().release();
        readers.clear();
    }
}

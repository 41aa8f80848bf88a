package dev.flushline.compare;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;

import org.apache.cassandra.cql3.statements.schema.CreateTableStatement;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.DecoratedKey;
import org.apache.cassandra.db.Directories;
import org.apache.cassandra.db.Keyspace;
import org.apache.cassandra.db.Slices;
import org.apache.cassandra.db.filter.ColumnFilter;
import org.apache.cassandra.db.rows.Cell;
import org.apache.cassandra.db.rows.Row;
import org.apache.cassandra.db.rows.Unfiltered;
import org.apache.cassandra.db.rows.UnfilteredRowIterator;
import org.apache.cassandra.dht.IPartitioner;
import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.io.sstable.Descriptor;
import org.apache.cassandra.io.sstable.SSTableReadsListener;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.io.util.File;
import org.apache.cassandra.schema.KeyspaceMetadata;
import org.apache.cassandra.schema.KeyspaceParams;
import org.apache.cassandra.schema.Schema;
import org.apache.cassandra.schema.SchemaTransformations;
import org.apache.cassandra.schema.TableMetadata;
import org.apache.cassandra.schema.TableMetadataRef;

/**
 * Cassandra 5.0.5's point lookup of one sstable, in this JVM, offline: the closest equivalent of what
 * {@code dump -k} does (find the partition, read it whole) is a single-partition read of one sstable,
 * {@code SSTableReader.rowIterator(key, Slices.ALL, ColumnFilter.all(table), false, NOOP_LISTENER)}, iterated to
 * its end. For BTI that is {@code BtiTableReader.getExactPosition} (the first/last key bounds, the bloom filter,
 * the Partitions.db trie, the key read back from Rows.db or Data.db) and then an {@code SSTableIterator} over the
 * partition; for BIG the same through Summary.db and Index.db. {@code getPosition(key, EQ)} alone would only find
 * the partition, and our side reads it too.
 *
 * <p>The reader is opened once, before anything is measured ({@code SSTableReader.openNoValidation}, as the
 * offline tools and {@link CassandraCompaction} open sstables), on a store of the bench table in client mode
 * ({@link CassandraPeer#init}). Offline there is no key cache (BIG's reader gets one only when opened online)
 * and, unless file_cache_enabled, no chunk cache: every lookup reads its chunk from the page cache and
 * decompresses it, as ours does. The key is decorated (its Murmur3 token computed) inside the measured loop,
 * because our index computes the token inside its lookup too.
 *
 * <p>Every cell's timestamp and value size are summed, as {@link FlushlineLookup} sums them, so the two can be
 * checked to have read the same partitions, rows and cells. Not thread-safe.
 */
final class CassandraLookup implements AutoCloseable {
    private static int keyspaces;

    private final SSTableReader reader;
    private final ColumnFilter columns;
    private final IPartitioner partitioner;
    long partitions, rows, cells, checksum;
    /** CPU of this thread opening the reader (not the client-mode start or the table's creation before it). */
    final long openCpuNanos;

    /** Opens {@code dataFile} (a Data.db of any version 5.0.5 reads) as a sstable of a table made by {@code cql}. */
    CassandraLookup(String cql, Path dataFile, Path root) throws IOException {
        CassandraPeer.init(root.resolve("node"));
        ColumnFamilyStore cfs = store(cql, root);
        TableMetadata table = cfs.metadata();
        Descriptor d = Descriptor.fromFileWithComponent(new File(dataFile.toAbsolutePath()), table.keyspace, table.name).left;
        long cpu0 = Costs.THREADS.getCurrentThreadCpuTime();
        this.reader = SSTableReader.openNoValidation(d, d.discoverComponents(), cfs);
        this.openCpuNanos = Costs.THREADS.getCurrentThreadCpuTime() - cpu0;
        this.columns = ColumnFilter.all(table);
        this.partitioner = table.partitioner;
    }

    private static synchronized ColumnFamilyStore store(String cql, Path root) throws IOException {
        String keyspace = "lookup_" + (++keyspaces);
        TableMetadata table = CreateTableStatement.parse(cql, keyspace).partitioner(Murmur3Partitioner.instance).build();
        Schema.instance.transform(SchemaTransformations.addKeyspace(KeyspaceMetadata.create(keyspace, KeyspaceParams.simple(1)), true));
        Keyspace ks = Keyspace.openWithoutSSTables(keyspace);
        Path dir = Files.createDirectories(root.resolve("lookup-store").resolve(keyspace));
        Directories directories = new Directories(table, Collections.singleton(new Directories.DataDirectory(new File(dir))));
        for (File f : directories.getCFDirectories()) Files.createDirectories(f.toPath());
        return ColumnFamilyStore.createColumnFamilyStore(ks, table.name, TableMetadataRef.forOfflineTools(table), directories,
                false, false, true);
    }

    /** The reader's class, such as BtiTableReader, for the output. */
    String readerName() {
        return reader.getClass().getSimpleName();
    }

    /** Looks each key up and reads its partition whole; returns how many were found. */
    int lookUp(ByteBuffer[] keys) {
        final SSTableReader reader = this.reader;
        final ColumnFilter columns = this.columns;
        final IPartitioner partitioner = this.partitioner;
        int found = 0;
        long rows = 0, cells = 0, sum = 0;
        for (int i = 0; i < keys.length; i++) {
            DecoratedKey key = partitioner.decorateKey(keys[i].duplicate());
            try (UnfilteredRowIterator partition = reader.rowIterator(key, Slices.ALL, columns, false, SSTableReadsListener.NOOP_LISTENER)) {
                boolean any = false;
                while (partition.hasNext()) {
                    Unfiltered u = partition.next();
                    any = true;
                    if (!u.isRow()) continue;
                    Row row = (Row) u;
                    for (Cell<?> cell : row.cells()) {
                        sum += cell.timestamp() + cell.valueSize();
                        cells++;
                    }
                    rows++;
                }
                // a partition of this workload always has rows; an empty iterator is an absent key
                if (any) found++;
            }
        }
        this.partitions += found;
        this.rows += rows;
        this.cells += cells;
        this.checksum += sum;
        return found;
    }

    @Override
    public void close() {
        reader.selfRef().release();
    }
}

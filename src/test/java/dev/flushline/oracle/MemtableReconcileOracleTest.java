package dev.flushline.oracle;

import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.RangeTombstone;
import dev.flushline.data.Row;
import dev.flushline.data.Rows;
import dev.flushline.flush.FlushResult;
import dev.flushline.flush.FlushWriter;
import dev.flushline.sstable.TableDirectory;
import dev.flushline.flush.MemtableModel;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.MemtablePartition;
import dev.flushline.table.TableOptions.MemtableKind;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.CqlType;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Descriptor;
import dev.flushline.testing.RandomUpdates;
import org.apache.cassandra.db.Clustering;
import org.apache.cassandra.db.ClusteringPrefix;
import org.apache.cassandra.db.DecoratedKey;
import org.apache.cassandra.db.LivenessInfo;
import org.apache.cassandra.db.RegularAndStaticColumns;
import org.apache.cassandra.db.Slice;
import org.apache.cassandra.db.partitions.AtomicBTreePartition;
import org.apache.cassandra.db.rows.BTreeRow;
import org.apache.cassandra.db.rows.BufferCell;
import org.apache.cassandra.db.rows.CellPath;
import org.apache.cassandra.db.rows.EncodingStats;
import org.apache.cassandra.db.rows.UnfilteredRowIterator;
import org.apache.cassandra.index.transactions.UpdateTransaction;
import org.apache.cassandra.schema.TableMetadata;
import org.apache.cassandra.schema.TableMetadataRef;
import org.apache.cassandra.utils.ByteBufferUtil;
import org.apache.cassandra.utils.concurrent.ImmediateFuture;
import org.apache.cassandra.utils.concurrent.OpOrder;
import org.apache.cassandra.utils.memory.HeapPool;
import org.apache.cassandra.utils.memory.MemtableAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Our memtable's reconciliation checked against Cassandra's own memtable, not against a model of
 * ours. The same random, heavily overlapping operations go to a Flushline memtable and, converted
 * one by one from our {@link PartitionUpdate}s, to cassandra-all 5.0.9's in-memory partition
 * ({@code AtomicBTreePartition.addAll}, the call its SkipListMemtable makes per write). At
 * checkpoints every partition is compared: Cassandra's side is the partition's
 * {@code unfilteredIterator()}, exactly what its flush hands to the sstable writer (which resolves
 * shadowing through Cassandra's own row filter); our side is what our flush writes. At the end
 * both memtables are flushed, ours by our FlushWriter and Cassandra's partitions by its own sstable
 * writer with the header its flush would use (the columns of every update, their merged
 * EncodingStats), and every component must be byte for byte the same.
 *
 * <p>The operations draw timestamps and local deletion times from narrow windows so that ties are
 * everywhere: equal-timestamp cells with different values, cells against deletions at the same
 * timestamp, deletions of every kind (partition, range with prefix and slice bounds, row, cell,
 * collection, collection element) against each other, expiring cells whose expiry equals a
 * tombstone's deletion time, and TTLs of which some are past the clock and some not. Batches
 * combine several of them in one update, as a CQL batch on one partition does.
 *
 * <p>A failure names the schema and seed, and shows a shrunk list of updates to the partition
 * that still diverges, with both results.
 */
class MemtableReconcileOracleTest {
    /**
     * The node clock of every write (local deletion times; expiry = clock + TTL, so TTLs of 1 to 3
     * seconds are past it for some writes and not for others). Neither memtable reads a clock when
     * merging; it is also Cassandra's frozen test clock, so anything that did would see this time.
     */
    static final long NOW = FixedClock.FIXED_MILLIS / 1000;
    static final int OPS_PER_SEED = 5000;
    static final int CHECK_EVERY = 500;
    static final int SEEDS_PER_SCHEMA = 16;

    static final String[] SCHEMAS = {
            // Two clustering columns (one DESC), statics incl. a collection, every collection kind, frozen too.
            "CREATE TABLE ks.rc_wide (pk int, c1 text, c2 int, s1 int static, s2 set<text> static, "
                    + "s3 frozen<list<int>> static, v1 int, v2 text, fl frozen<list<int>>, fm frozen<map<int, text>>, "
                    + "l list<int>, st set<int>, m map<text, int>, PRIMARY KEY (pk, c1, c2)) "
                    + "WITH CLUSTERING ORDER BY (c1 DESC, c2 ASC)",
            // Composite partition key, three clustering columns for prefix deletes of every length.
            "CREATE TABLE ks.rc_deep (p1 bigint, p2 text, a int, b text, c timeuuid, s map<int, int> static, "
                    + "v blob, w bigint, l list<text>, m map<int, text>, PRIMARY KEY ((p1, p2), a, b, c)) "
                    + "WITH CLUSTERING ORDER BY (a ASC, b DESC, c DESC)",
            // No clustering: one row per partition, so row and partition deletions meet on the same row.
            "CREATE TABLE ks.rc_flat (pk text PRIMARY KEY, a int, b text, st set<text>, m map<int, int>, "
                    + "fs frozen<set<int>>)",
    };

    static HeapPool pool;
    static MemtableAllocator allocator;
    static final OpOrder ORDER = new OpOrder();

    @BeforeAll
    static void startCassandra() {
        FixedClock.installIfPossible();
        CassandraOracle.init();
        // A heap pool as a node's memtables use, with room that is never exhausted and a cleaner
        // that never has to run (nothing here is ever flushed through Cassandra).
        pool = new HeapPool(1L << 40, 1.0f, () -> ImmediateFuture.success(Boolean.TRUE));
        allocator = pool.newAllocator("reconcile");
    }

    @AfterAll
    static void stopCassandra() throws Exception {
        if (pool != null) pool.shutdownAndWait(10, TimeUnit.SECONDS);
    }

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (int s = 0; s < SCHEMAS.length; s++) {
            for (long seed = 1; seed <= SEEDS_PER_SCHEMA; seed++) out.add(Arguments.of(s, seed));
        }
        return out.stream();
    }

    @TempDir
    Path tmp;

    /** Table CQL with the compression the case wants (our flush reads it from the schema). */
    static String withCompression(String cql, boolean lz4) {
        return cql + (cql.contains(" WITH ") ? " AND " : " WITH ")
                + (lz4 ? "compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': 16}" : "compression = {'enabled': 'false'}");
    }

    @ParameterizedTest(name = "schema {0} seed {1}")
    @MethodSource("cases")
    void memtableMergesAsCassandrasMemtable(int schemaIndex, long seed) throws IOException {
        boolean lz4 = seed % 3 != 0;
        String cql = withCompression(SCHEMAS[schemaIndex], lz4);
        TableSchema schema = CqlParser.parse(cql);
        TableMetadata table = CassandraOracle.parseTable(cql);
        AllocationMode mode = AllocationMode.values()[(int) ((seed + schemaIndex) % AllocationMode.values().length)];
        MemtableKind kind = MemtableKind.values()[(int) (seed % MemtableKind.values().length)];
        Generator gen = new Generator(schema, seed * 31 + schemaIndex);
        Replica replica = new Replica(schema, table, mode, kind);
        Map<PartitionKey, List<PartitionUpdate>> history = new HashMap<>();
        String where = "schema " + schemaIndex + " (" + table.name + ") seed " + seed + " " + mode + " " + kind;
        int compared = 0;
        Coverage coverage = new Coverage();
        try {
            for (int op = 1; op <= OPS_PER_SEED; op++) {
                PartitionUpdate u = gen.next();
                history.computeIfAbsent(u.key(), k -> new ArrayList<>()).add(u);
                replica.apply(u);
                if (op % CHECK_EVERY == 0) {
                    for (PartitionKey key : gen.keys) {
                        String diff = replica.diff(key);
                        coverage.add(replica.cassandraPartition(key));
                        if (diff != null) {
                            fail(where + ", after op " + op + ": " + shrink(schema, table, mode, kind, history.get(key)));
                        }
                        compared++;
                    }
                }
            }
            replica.compareFlushes(tmp, where, lz4);
        } finally {
            replica.close();
        }
        assertTrue(compared >= gen.keys.length, where);
        // What Cassandra's side flushed must hold every kind of thing the test is about.
        coverage.check(where, schema);
        assertTrue(gen.ties > OPS_PER_SEED / 10, where + ": the generator should produce many timestamp ties, got " + gen.ties);
    }

    /** Counts what the compared partitions (Cassandra's side) hold, so a generator change cannot quietly drop a case. */
    static final class Coverage {
        int partitionDeletions, bounds, boundaries, rowDeletions, complexDeletions, tombstones, expired, expiring,
                staticRows, liveRows;

        void add(Partition p) {
            if (p == null) return;
            if (!p.deletion().isLive()) partitionDeletions++;
            if (!p.staticRow().isEmpty()) {
                staticRows++;
                count(p.staticRow());
            }
            for (Unfiltered u : p.unfiltereds()) {
                if (u instanceof Marker m) {
                    if (m.isBoundary()) boundaries++;
                    else bounds++;
                } else {
                    dev.flushline.oracle.Row r = (dev.flushline.oracle.Row) u;
                    if (!r.deletion().isLive()) rowDeletions++;
                    if (!r.liveness().isEmpty()) liveRows++;
                    count(r);
                }
            }
        }

        private void count(dev.flushline.oracle.Row r) {
            for (ColumnData cd : r.columns()) {
                if (cd instanceof dev.flushline.oracle.ComplexColumn cx) {
                    if (!cx.complexDeletion().isLive()) complexDeletions++;
                    for (dev.flushline.oracle.Cell c : cx.cells()) count(c);
                } else {
                    count((dev.flushline.oracle.Cell) cd);
                }
            }
        }

        private void count(dev.flushline.oracle.Cell c) {
            if (c.isTombstone()) tombstones++;
            else if (c.isExpiring()) {
                if (c.localDeletionTime() <= NOW) expired++;
                else expiring++;
            }
        }

        void check(String where, TableSchema schema) {
            String counts = where + ": " + this;
            assertTrue(partitionDeletions > 0 && rowDeletions > 0 && complexDeletions > 0 && tombstones > 0
                    && expired > 0 && expiring > 0 && liveRows > 0, counts);
            if (schema.clusteringColumns().length > 0) assertTrue(bounds > 0 && boundaries > 0, counts);
            if (schema.staticColumns().length > 0) assertTrue(staticRows > 0, counts);
        }

        @Override
        public String toString() {
            return "partitionDeletions=" + partitionDeletions + " bounds=" + bounds + " boundaries=" + boundaries
                    + " rowDeletions=" + rowDeletions + " complexDeletions=" + complexDeletions + " tombstones=" + tombstones
                    + " expired=" + expired + " expiring=" + expiring + " staticRows=" + staticRows + " liveRows=" + liveRows;
        }
    }

    // ---- the two sides ---------------------------------------------------------------------

    /** One Flushline memtable and one set of Cassandra memtable partitions fed the same updates. */
    static final class Replica implements AutoCloseable {
        final TableSchema schema;
        final TableMetadata table;
        final TableMetadataRef ref;
        final Memtable ours;
        final Map<PartitionKey, AtomicBTreePartition> theirs = new HashMap<>();
        /** What Cassandra's memtable collects for its flush header: every update's columns and stats. */
        RegularAndStaticColumns theirColumns = RegularAndStaticColumns.NONE;
        EncodingStats theirStats = EncodingStats.NO_STATS;

        Replica(TableSchema schema, TableMetadata table, AllocationMode mode, MemtableKind kind) {
            this.schema = schema;
            this.table = table;
            this.ref = TableMetadataRef.forOfflineTools(table);
            this.ours = kind.create(schema, mode, 4);
        }

        void apply(PartitionUpdate u) {
            if (!ours.apply(u)) throw new AssertionError("memtable refused a write");
            org.apache.cassandra.db.partitions.PartitionUpdate cu = toCassandra(schema, table, u);
            AtomicBTreePartition p = theirs.get(u.key());
            if (p == null) {
                p = new AtomicBTreePartition(ref, cu.partitionKey(), allocator);
                theirs.put(u.key(), p);
            }
            try (OpOrder.Group group = ORDER.start()) {
                p.addAll(cu, allocator.cloner(group), group, UpdateTransaction.NO_OP);
            }
            theirColumns = cu.columns().mergeTo(theirColumns);
            theirStats = theirStats.mergeWith(cu.stats());
        }

        /**
         * Seals ours and flushes both: ours with FlushWriter, Cassandra's partitions with its sstable
         * writer and the header and bloom filter size its memtable flush would use; the files must match.
         */
        void compareFlushes(Path dir, String where, boolean lz4) throws IOException {
            ours.seal();
            assertEquals(theirs.size(), ours.partitionCount(), where + ": partitions");
            FlushWriter writer = new FlushWriter(ours);
            Path ourDir = Descriptor.tableDir(dir.resolve("ours"), schema.keyspace(), schema.name(), schema.idHex());
            FlushResult result = writer.write(ours.partitionIterator(), ours.partitionCount(), TableDirectory.open(ourDir), true, null, 0);
            assertNotNull(result, where + ": a memtable with data publishes an sstable");
            Path theirDir = dir.resolve("theirs");
            Path theirData = CassandraReferenceWriter.writeFlush(theirDir, CassandraReferenceWriter.withCompression(table, lz4),
                    new ArrayList<>(theirs.values()), theirColumns, theirStats, theirs.size());
            String ourPrefix = result.dataPath.getFileName().toString().replace("Data.db", "");
            String theirPrefix = theirData.getFileName().toString().replace("Data.db", "");
            for (String component : new String[] {"Data.db", "Index.db", "Summary.db", "Filter.db", "Statistics.db",
                    lz4 ? "CompressionInfo.db" : "CRC.db", "Digest.crc32", "TOC.txt"}) {
                assertArrayEquals(Files.readAllBytes(theirDir.resolve(theirPrefix + component)),
                        Files.readAllBytes(ourDir.resolve(ourPrefix + component)),
                        where + ": " + component + " differs from Cassandra's flush of its own memtable (header stats "
                                + theirStats + ", ours " + writer.header().stats().minTimestamp() + "/"
                                + writer.header().stats().minLocalDeletionTime() + "/" + writer.header().stats().minTtl() + ")");
            }
        }

        /** Null when both sides flush the same content for the key, else both contents. */
        String diff(PartitionKey key) {
            Partition expected = cassandraPartition(key);
            Partition actual = ourPartition(key);
            if (expected == null ? actual == null : expected.equals(actual)) return null;
            return "\nCassandra's memtable flushes " + expected + "\nours flushes " + actual;
        }

        /** What Cassandra's flush writes for the key (it skips an empty partition), or null. */
        Partition cassandraPartition(PartitionKey key) {
            AtomicBTreePartition p = theirs.get(key);
            if (p == null || p.isEmpty()) return null;
            try (UnfilteredRowIterator it = p.unfilteredIterator()) {
                return CassandraReader.convert(it);
            }
        }

        /** What our flush writes for the key (it skips an empty partition), or null. */
        Partition ourPartition(PartitionKey key) {
            MemtablePartition p = ours.get(key);
            if (p == null || p.isEmpty()) return null;
            return MemtableModel.partition(schema, p);
        }

        @Override
        public void close() {
            ours.seal();
            ours.discard();
        }
    }

    /** Replays {@code updates} on fresh replicas and removes chunks of them while the divergence stays. */
    static String shrink(TableSchema schema, TableMetadata table, AllocationMode mode, MemtableKind kind,
                         List<PartitionUpdate> updates) {
        List<PartitionUpdate> current = new ArrayList<>(updates);
        int chunk = Math.max(1, current.size() / 2);
        while (chunk >= 1) {
            boolean removed = false;
            for (int start = 0; start + chunk <= current.size(); ) {
                List<PartitionUpdate> candidate = new ArrayList<>(current.subList(0, start));
                candidate.addAll(current.subList(start + chunk, current.size()));
                if (!candidate.isEmpty() && replay(schema, table, mode, kind, candidate) != null) {
                    current = candidate;
                    removed = true;
                } else {
                    start += chunk;
                }
            }
            chunk = removed ? Math.min(chunk, current.size() / 2) : chunk / 2;
        }
        StringBuilder sb = new StringBuilder(current.size() + " of " + updates.size() + " updates to the partition still diverge:");
        for (PartitionUpdate u : current) sb.append("\n  ").append(u);
        String diff = replay(schema, table, mode, kind, current);
        return sb.append(diff == null ? "\n(the full history diverges, no subset of it reproduces alone)" : diff).toString();
    }

    static String replay(TableSchema schema, TableMetadata table, AllocationMode mode, MemtableKind kind,
                         List<PartitionUpdate> updates) {
        try (Replica r = new Replica(schema, table, mode, kind)) {
            for (PartitionUpdate u : updates) r.apply(u);
            return r.diff(updates.get(0).key());
        }
    }

    // ---- our update -> Cassandra's update, directly (not through anything our memtable did) --

    static org.apache.cassandra.db.partitions.PartitionUpdate toCassandra(TableSchema schema, TableMetadata table,
                                                                          PartitionUpdate u) {
        DecoratedKey key = table.partitioner.decorateKey(ByteBuffer.wrap(u.key().key()));
        RegularAndStaticColumns.Builder columns = RegularAndStaticColumns.builder();
        if (u.staticRow() != null) addColumns(table, schema.staticColumns(), u.staticRow(), columns);
        for (Row r : u.rows()) addColumns(table, schema.regularColumns(), r, columns);
        org.apache.cassandra.db.partitions.PartitionUpdate.Builder b =
                new org.apache.cassandra.db.partitions.PartitionUpdate.Builder(table, key, columns.build(), u.rows().size());
        if (!u.partitionDeletion().isLive()) b.addPartitionDeletion(deletion(u.partitionDeletion()));
        for (RangeTombstone rt : u.rangeTombstones()) {
            b.add(new org.apache.cassandra.db.RangeTombstone(Slice.make(bound(rt.start()), bound(rt.end())),
                    deletion(rt.deletion())));
        }
        if (u.staticRow() != null) {
            b.add(row(table, schema.staticColumns(), schema.staticComplexStart(), Clustering.STATIC_CLUSTERING, u.staticRow()));
        }
        for (Row r : u.rows()) {
            b.add(row(table, schema.regularColumns(), schema.regularComplexStart(), Clustering.make(buffers(r.clustering())), r));
        }
        return b.build();
    }

    private static void addColumns(TableMetadata table, ColumnMetadata[] cols, Row r, RegularAndStaticColumns.Builder out) {
        int cs = r.cells().length;
        for (int i = 0; i < cs; i++) if (r.cells()[i] != null) out.add(column(table, cols[i]));
        for (int i = 0; i < r.complex().length; i++) if (r.complex()[i] != null) out.add(column(table, cols[cs + i]));
    }

    private static org.apache.cassandra.schema.ColumnMetadata column(TableMetadata table, ColumnMetadata c) {
        return table.getColumn(ByteBufferUtil.bytes(c.name()));
    }

    private static org.apache.cassandra.db.ClusteringBound<?> bound(ClusteringBound b) {
        // Our kind constants are Cassandra's ClusteringPrefix.Kind ordinals (the on-disk values).
        return org.apache.cassandra.db.ClusteringBound.create(ClusteringPrefix.Kind.values()[b.kind()],
                Clustering.make(buffers(b.values())));
    }

    private static org.apache.cassandra.db.rows.Row row(TableMetadata table, ColumnMetadata[] cols, int complexStart,
                                                        Clustering<?> clustering, Row r) {
        org.apache.cassandra.db.rows.Row.Builder b = BTreeRow.unsortedBuilder();
        b.newRow(clustering);
        if (r.hasLiveness()) {
            b.addPrimaryKeyLivenessInfo(LivenessInfo.withExpirationTime(r.livenessTimestamp(), r.livenessTtl(),
                    r.livenessExpirationTime()));
        }
        if (!r.deletion().isLive()) {
            b.addRowDeletion(org.apache.cassandra.db.rows.Row.Deletion.regular(deletion(r.deletion())));
        }
        for (int i = 0; i < complexStart; i++) {
            if (r.cells()[i] != null) b.addCell(cell(column(table, cols[i]), r.cells()[i], false));
        }
        for (int i = 0; i < r.complex().length; i++) {
            ComplexColumn cx = r.complex()[i];
            if (cx == null) continue;
            org.apache.cassandra.schema.ColumnMetadata column = column(table, cols[complexStart + i]);
            if (!cx.complexDeletion().isLive()) b.addComplexDeletion(column, deletion(cx.complexDeletion()));
            for (Cell c : cx.cells()) b.addCell(cell(column, c, true));
        }
        return b.build();
    }

    /** An element of a collection always has a path, even an empty one (an empty text set element). */
    private static BufferCell cell(org.apache.cassandra.schema.ColumnMetadata column, Cell c, boolean element) {
        CellPath path = element ? CellPath.create(ByteBuffer.wrap(c.pathBytes())) : null;
        ByteBuffer value = c.valueLength() == 0 ? ByteBufferUtil.EMPTY_BYTE_BUFFER : ByteBuffer.wrap(c.valueBytes());
        return new BufferCell(column, c.timestamp(), c.ttl(), c.localDeletionTime(), value, path);
    }

    private static org.apache.cassandra.db.DeletionTime deletion(DeletionTime d) {
        return org.apache.cassandra.db.DeletionTime.build(d.markedForDeleteAt(), d.localDeletionTime());
    }

    private static ByteBuffer[] buffers(byte[][] values) {
        ByteBuffer[] out = new ByteBuffer[values.length];
        for (int i = 0; i < values.length; i++) out[i] = ByteBuffer.wrap(values[i]);
        return out;
    }

    // ---- operations ----------------------------------------------------------------------------

    /**
     * Random CQL-shaped writes on a few partitions and clusterings, each one PartitionUpdate as the
     * statement (or single-partition batch) would produce it. Values come from pools of three per
     * column so that equal-timestamp cells tie on value too.
     */
    static final class Generator {
        static final int[] TTLS = {1, 2, 3, 5, 3600};

        final TableSchema schema;
        final Random r;
        final PartitionKey[] keys;
        final byte[][][] clusteringValues;
        final byte[][][] staticValues, regularValues;
        final byte[][][] staticPaths, regularPaths;
        /** Ops per timestamp step and the width of the jitter: vary by seed, from very dense ties to looser ones. */
        final int drift, jitter;
        int op;
        int ties;
        /** (partition, timestamp) pairs written so far, to count ties. */
        private final java.util.Set<Long> timestampsSeen = new java.util.HashSet<>();

        Generator(TableSchema schema, long seed) {
            this.schema = schema;
            this.r = new Random(seed);
            RandomUpdates values = new RandomUpdates(schema, seed, NOW, 1, 1);
            boolean flat = schema.clusteringColumns().length == 0;
            drift = 8 << r.nextInt(4);
            jitter = 2 + r.nextInt(5);
            ColumnMetadata[] pk = schema.partitionKeyColumns();
            List<byte[]> keyBytes = distinct(values, flat ? 20 : 3 + r.nextInt(4), () -> {
                byte[][] v = new byte[pk.length][];
                for (int i = 0; i < pk.length; i++) v[i] = values.value(pk[i].type());
                return RandomUpdates.partitionKeyBytes(schema, v);
            });
            keys = new PartitionKey[keyBytes.size()];
            for (int i = 0; i < keys.length; i++) keys[i] = PartitionKey.of(keyBytes.get(i));
            ColumnMetadata[] ck = schema.clusteringColumns();
            clusteringValues = new byte[ck.length][][];
            for (int i = 0; i < ck.length; i++) {
                CqlType t = ck[i].type();
                clusteringValues[i] = distinct(values, 2 + (i % 3), () -> values.value(t)).toArray(new byte[0][]);
            }
            staticValues = valuePools(values, schema.staticColumns(), schema.staticComplexStart());
            regularValues = valuePools(values, schema.regularColumns(), schema.regularComplexStart());
            staticPaths = pathPools(values, schema.staticColumns(), schema.staticComplexStart());
            regularPaths = pathPools(values, schema.regularColumns(), schema.regularComplexStart());
        }

        private static List<byte[]> distinct(RandomUpdates values, int n, java.util.function.Supplier<byte[]> make) {
            List<byte[]> out = new ArrayList<>();
            for (int tries = 0; out.size() < n && tries < 50; tries++) {
                byte[] v = make.get();
                boolean seen = false;
                for (byte[] o : out) seen |= Arrays.equals(o, v);
                if (!seen) out.add(v);
            }
            return out;
        }

        /** Simple columns: three values each. Collections: three element values (map values, list elements). */
        private static byte[][][] valuePools(RandomUpdates values, ColumnMetadata[] cols, int complexStart) {
            byte[][][] out = new byte[cols.length][][];
            for (int i = 0; i < cols.length; i++) {
                CqlType t = cols[i].type();
                CqlType vt = i < complexStart ? t : t.kind() == CqlType.Kind.MAP ? t.valueType()
                        : t.kind() == CqlType.Kind.LIST ? t.elementType() : null;
                out[i] = new byte[3][];
                for (int k = 0; k < 3; k++) out[i][k] = vt == null ? new byte[0] : values.value(vt);
            }
            return out;
        }

        /** Collections: four cell paths each (set elements, map keys, list time-UUIDs), sorted as stored. */
        private static byte[][][] pathPools(RandomUpdates values, ColumnMetadata[] cols, int complexStart) {
            byte[][][] out = new byte[cols.length][][];
            for (int i = complexStart; i < cols.length; i++) {
                CqlType pt = Rows.pathType(cols[i]);
                List<byte[]> paths = distinct(values, 4, () -> values.value(pt));
                paths.sort(pt::compare);
                out[i] = paths.toArray(new byte[0][]);
            }
            return out;
        }

        /** Parts of one update being built; a batch adds several statements to the same parts. */
        final class Parts {
            final PartitionKey key;
            DeletionTime pd = DeletionTime.LIVE;
            final List<RangeTombstone> ranges = new ArrayList<>();
            Row staticRow;
            final List<Row> rows = new ArrayList<>();

            Parts(PartitionKey key) {
                this.key = key;
            }

            boolean isEmpty() {
                return pd.isLive() && ranges.isEmpty() && staticRow == null && rows.isEmpty();
            }

            void addRow(Row row) {
                if (row == null) return;
                for (Row o : rows) if (schema.compareClustering(o.clustering(), row.clustering()) == 0) return;
                rows.add(row);
            }

            void setStatic(Row row) {
                if (row != null && staticRow == null) staticRow = row;
            }
        }

        PartitionUpdate next() {
            op++;
            while (true) {
                // A slowly rising timestamp with a narrow jitter: most writes to a row tie with some other.
                long ts = 1_000 + op / drift + r.nextInt(jitter);
                Parts parts = new Parts(keys[r.nextInt(keys.length)]);
                if (r.nextInt(100) < 8) {
                    int n = 2 + r.nextInt(3);
                    boolean sameTs = r.nextBoolean(); // a batch's statements share its timestamp unless they say otherwise
                    for (int i = 0; i < n; i++) statement(parts, sameTs ? ts : ts - 2 + r.nextInt(5));
                } else {
                    statement(parts, ts);
                }
                if (parts.isEmpty()) continue;
                if (!timestampsSeen.add(parts.key.token() * 31 + ts)) ties++;
                return new PartitionUpdate(parts.key, parts.pd, List.copyOf(parts.ranges), parts.staticRow,
                        List.copyOf(parts.rows));
            }
        }

        /** The node's clock for this write: a few seconds around NOW, so deletion times tie too. */
        private long now() {
            return NOW - 3 + r.nextInt(4);
        }

        private void statement(Parts parts, long ts) {
            long now = now();
            boolean hasClustering = schema.clusteringColumns().length > 0;
            boolean hasStatics = schema.staticColumns().length > 0;
            int kind = r.nextInt(100);
            if (kind < 2) {
                parts.pd = DeletionTime.max(parts.pd, DeletionTime.of(ts, now));
            } else if (kind < 9 && hasClustering) {
                parts.ranges.add(range(ts, now));
            } else if (kind < 16) {
                parts.addRow(new Row(false, clustering(), Cell.NO_TIMESTAMP, 0, Cell.NO_DELETION_TIME, DeletionTime.of(ts, now),
                        new Cell[schema.regularComplexStart()],
                        new ComplexColumn[schema.regularColumns().length - schema.regularComplexStart()]));
            } else if (kind < 26) {
                // DELETE a, m, m[k] FROM ...: cell tombstones, collection deletions, element tombstones.
                if (!hasStatics || r.nextInt(3) > 0) parts.addRow(deleteColumns(false, clustering(), ts, now));
                if (hasStatics && r.nextInt(3) == 0) parts.setStatic(deleteColumns(true, null, ts, now));
            } else if (kind < 90 || !hasStatics) {
                boolean insert = kind < 55;
                int ttl = r.nextInt(4) == 0 ? TTLS[r.nextInt(TTLS.length)] : 0;
                parts.addRow(write(false, clustering(), ts, now, ttl, insert));
                if (hasStatics && r.nextInt(4) == 0) parts.setStatic(write(true, null, ts, now, ttl, false));
            } else {
                int ttl = r.nextInt(4) == 0 ? TTLS[r.nextInt(TTLS.length)] : 0;
                parts.setStatic(write(true, null, ts, now, ttl, false));
            }
        }

        private byte[][] clustering() {
            byte[][] ck = new byte[clusteringValues.length][];
            for (int i = 0; i < ck.length; i++) ck[i] = pick(clusteringValues[i]);
            return ck;
        }

        private byte[] pick(byte[][] pool) {
            return pool[r.nextInt(pool.length)];
        }

        /**
         * A range deletion as CQL makes one: equality on a prefix of p columns, then either equality
         * on one more column (a prefix delete) or a slice on it with either side open, inclusive or
         * exclusive; bounds of every length from 0 (BOTTOM/TOP) to the full clustering.
         */
        private RangeTombstone range(long ts, long now) {
            int n = clusteringValues.length;
            int p = r.nextInt(n);
            byte[][] prefix = new byte[p][];
            for (int i = 0; i < p; i++) prefix[i] = pick(clusteringValues[i]);
            DeletionTime d = DeletionTime.of(ts, now);
            if (r.nextInt(3) == 0) {
                byte[][] eq = Arrays.copyOf(prefix, p + 1);
                eq[p] = pick(clusteringValues[p]);
                return new RangeTombstone(ClusteringBound.start(true, eq), ClusteringBound.end(true, eq), d);
            }
            byte[] x = pick(clusteringValues[p]), y = pick(clusteringValues[p]);
            if (schema.clusteringColumns()[p].compareClustering(x, y) > 0) {
                byte[] t = x; x = y; y = t;
            }
            int shape = p == 0 ? 1 + r.nextInt(3) : r.nextInt(4); // 0: both open (only after a prefix)
            boolean lower = (shape & 1) != 0, upper = (shape & 2) != 0;
            boolean lowIncl = r.nextBoolean(), highIncl = r.nextBoolean();
            if (lower && upper && Arrays.equals(x, y)) lowIncl = highIncl = true; // never empty
            ClusteringBound start = lower ? ClusteringBound.start(lowIncl, append(prefix, x)) : ClusteringBound.start(true, prefix);
            ClusteringBound end = upper ? ClusteringBound.end(highIncl, append(prefix, y)) : ClusteringBound.end(true, prefix);
            return new RangeTombstone(start, end, d);
        }

        private static byte[][] append(byte[][] prefix, byte[] v) {
            byte[][] out = Arrays.copyOf(prefix, prefix.length + 1);
            out[prefix.length] = v;
            return out;
        }

        /** INSERT (liveness, collections assigned) or UPDATE (no liveness; assign, add, remove elements). */
        private Row write(boolean isStatic, byte[][] clustering, long ts, long now, int ttl, boolean insert) {
            ColumnMetadata[] cols = isStatic ? schema.staticColumns() : schema.regularColumns();
            int cs = isStatic ? schema.staticComplexStart() : schema.regularComplexStart();
            byte[][][] values = isStatic ? staticValues : regularValues;
            byte[][][] paths = isStatic ? staticPaths : regularPaths;
            long exp = ttl == 0 ? Cell.NO_DELETION_TIME : now + ttl;
            Cell[] cells = new Cell[cs];
            ComplexColumn[] complex = new ComplexColumn[cols.length - cs];
            int written = 0;
            for (int i = 0; i < cols.length; i++) {
                if (r.nextInt(100) < 45) continue;
                written++;
                if (i < cs) {
                    cells[i] = r.nextInt(8) == 0 ? Cell.tombstone(ts, now, null) : valueCell(ts, ttl, exp, pick(values[i]), null);
                    continue;
                }
                int how = insert ? 0 : r.nextInt(100);
                DeletionTime cd = DeletionTime.LIVE;
                List<Cell> elements = new ArrayList<>();
                if (how < 35) { // assignment (an insert always assigns): clears what came before, at ts - 1
                    cd = DeletionTime.of(ts - 1, now);
                    addElements(elements, paths[i], values[i], ts, ttl, exp, false);
                } else if (how < 70) { // m = m + {...}, l = l + [...], m[k] = v
                    addElements(elements, paths[i], values[i], ts, ttl, exp, false);
                } else if (how < 85) { // m = m - {k}, DELETE m[k]
                    addElements(elements, paths[i], values[i], ts, ttl, now, true);
                } else { // m = null
                    cd = DeletionTime.of(ts - r.nextInt(2), now);
                }
                if (elements.isEmpty() && cd.isLive()) {
                    written--;
                    continue;
                }
                complex[i - cs] = new ComplexColumn(cd, elements.toArray(new Cell[0]));
            }
            if (written == 0 && (isStatic || !insert)) return null;
            return new Row(isStatic, clustering, insert ? ts : Cell.NO_TIMESTAMP, insert ? ttl : 0,
                    insert ? exp : Cell.NO_DELETION_TIME, DeletionTime.LIVE, cells, complex);
        }

        private Cell valueCell(long ts, int ttl, long exp, byte[] value, byte[] path) {
            return ttl == 0 ? Cell.live(ts, value, path) : Cell.expiring(ts, ttl, exp, value, path);
        }

        /** 0..3 distinct elements in path order: values, or element tombstones (then {@code expOrNow} is the clock). */
        private void addElements(List<Cell> out, byte[][] paths, byte[][] values, long ts, int ttl, long expOrNow,
                                 boolean tombstones) {
            int n = tombstones ? 1 + r.nextInt(2) : r.nextInt(4);
            boolean[] used = new boolean[paths.length];
            for (int k = 0; k < n; k++) used[r.nextInt(paths.length)] = true;
            for (int k = 0; k < paths.length; k++) {
                if (!used[k]) continue;
                out.add(tombstones ? Cell.tombstone(ts, expOrNow, paths[k]) : valueCell(ts, ttl, expOrNow, pick(values), paths[k]));
            }
        }

        /** DELETE of some columns: simple cell tombstones, collection deletions at ts, element tombstones. */
        private Row deleteColumns(boolean isStatic, byte[][] clustering, long ts, long now) {
            ColumnMetadata[] cols = isStatic ? schema.staticColumns() : schema.regularColumns();
            int cs = isStatic ? schema.staticComplexStart() : schema.regularComplexStart();
            byte[][][] paths = isStatic ? staticPaths : regularPaths;
            Cell[] cells = new Cell[cs];
            ComplexColumn[] complex = new ComplexColumn[cols.length - cs];
            int first = r.nextInt(cols.length);
            for (int i = 0; i < cols.length; i++) {
                if (i != first && r.nextInt(100) < 60) continue;
                if (i < cs) {
                    cells[i] = Cell.tombstone(ts, now, null);
                } else if (r.nextBoolean()) {
                    complex[i - cs] = new ComplexColumn(DeletionTime.of(ts, now), new Cell[0]);
                } else {
                    List<Cell> elements = new ArrayList<>();
                    addElements(elements, paths[i], null, ts, 0, now, true);
                    complex[i - cs] = new ComplexColumn(DeletionTime.LIVE, elements.toArray(new Cell[0]));
                }
            }
            return new Row(isStatic, clustering, Cell.NO_TIMESTAMP, 0, Cell.NO_DELETION_TIME, DeletionTime.LIVE, cells, complex);
        }
    }
}

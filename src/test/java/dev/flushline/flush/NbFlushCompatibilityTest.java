package dev.flushline.flush;

import dev.flushline.Main;
import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringBound;
import dev.flushline.data.RangeTombstone;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.Row;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.big.IndexReader;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.SSTableVersion;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * nb output (Cassandra 4.x, and 5.0 in storage_compatibility_mode CASSANDRA_4): for the same
 * memtable, cassandra-all 5.0.9 reads back exactly what it holds, its verifier passes, and
 * Cassandra's own writer creating an nb Descriptor writes the same Data, Index, Summary, Filter,
 * Statistics, CRC/CompressionInfo, Digest and TOC bytes. Our reader (dump, verify) reads nb, both
 * ours and Cassandra's, as it reads the oa flush of the same data (apart from Data.db positions).
 */
class NbFlushCompatibilityTest {
    static final long NOW = 1_750_000_000L;

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        long seed = 101;
        for (String cql : FlushCompatibilityTest.SCHEMAS) {
            for (boolean lz4 : new boolean[] {false, true}) {
                out.add(Arguments.of(cql, lz4 ? AllocationMode.OFFHEAP_OBJECTS : AllocationMode.HEAP_BUFFERS, lz4, seed++));
            }
        }
        return out.stream();
    }

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "[{index}] {1} lz4={2} seed={3}")
    @MethodSource("cases")
    void nbBytesAreCassandrasAndReadBack(String cql, AllocationMode mode, boolean lz4, long seed) throws Exception {
        CassandraOracle.init();
        String tableCql = FlushChecks.withCompression(cql, lz4);
        TableSchema schema = CqlParser.parse(tableCql);
        Memtable nb = new SkipListMemtable(schema, mode), oa = new SkipListMemtable(schema, mode);
        // Every update kind (partition, row, range, cell and complex deletions, TTLs) at a 2025 clock.
        for (PartitionUpdate u : new RandomUpdates(schema, seed, NOW, 40, 25).next(3000)) nb.apply(u);
        for (PartitionUpdate u : new RandomUpdates(schema, seed, NOW, 40, 25).next(3000)) oa.apply(u);
        nb.seal();
        oa.seal();
        try {
            FlushChecks.Flushed n = FlushChecks.flushAndCheck(tmp.resolve("nb"), tableCql, nb, lz4, true, SSTableVersion.NB);
            FlushChecks.Flushed o = FlushChecks.flushAndCheck(tmp.resolve("oa"), tableCql, oa, lz4, false, SSTableVersion.OA);
            assertReadersAgree(tableCql, n.tableDir(), o.tableDir(), tmp.resolve("nb").resolve("reference"));
        } finally {
            nb.discard();
            oa.discard();
        }
    }

    /**
     * Partitions wide enough for a promoted row index (blocks of 64 KiB), with range tombstones so
     * that blocks end inside an open range: the index's deletion times (partition and end-open
     * markers) take nb's 12-byte form.
     */
    @Test
    void promotedIndexWithOpenMarkers() throws Exception {
        CassandraOracle.init();
        String tableCql = "CREATE TABLE ks.wide2 (pk int, ck int, v text, PRIMARY KEY (pk, ck)) WITH compression = {'enabled': 'false'}";
        TableSchema schema = CqlParser.parse(tableCql);
        Memtable nb = new SkipListMemtable(schema, AllocationMode.HEAP_BUFFERS);
        Memtable oa = new SkipListMemtable(schema, AllocationMode.HEAP_BUFFERS);
        for (Memtable m : new Memtable[] {nb, oa}) {
            for (int pk = 1; pk <= 2; pk++) {
                List<Row> rows = new ArrayList<>();
                for (int ck = 0; ck < 300; ck++) {
                    byte[] v = ("row" + ck + "-").repeat(200).substring(0, 1000).getBytes(StandardCharsets.UTF_8);
                    rows.add(new Row(false, new byte[][] {int32(ck)}, 10, 0, Cell.NO_DELETION_TIME, DeletionTime.LIVE,
                            new Cell[] {Cell.live(10, v, null)}, new ComplexColumn[0]));
                }
                // Older deletions than the rows: the rows stay, the markers around them stay too.
                List<RangeTombstone> rts = List.of(new RangeTombstone(ClusteringBound.start(true, new byte[][] {int32(20)}),
                        ClusteringBound.end(true, new byte[][] {int32(280)}), DeletionTime.of(5, NOW)));
                DeletionTime pd = pk == 1 ? DeletionTime.of(2, NOW - 10) : DeletionTime.LIVE;
                m.apply(new PartitionUpdate(key(schema, pk), pd, rts, null, rows));
            }
            m.seal();
        }
        try {
            FlushChecks.Flushed n = FlushChecks.flushAndCheck(tmp.resolve("nb"), tableCql, nb, false, true, SSTableVersion.NB);
            FlushChecks.Flushed o = FlushChecks.flushAndCheck(tmp.resolve("oa"), tableCql, oa, false, false, SSTableVersion.OA);
            assertReadersAgree(tableCql, n.tableDir(), o.tableDir(), tmp.resolve("nb").resolve("reference"));
            // What the case is for: promoted entries, and index blocks that end inside a range.
            int promoted = 0, openMarkers = 0;
            for (SSTableFiles f : SSTableFiles.inDirectory(n.tableDir())) {
                try (IndexReader r = IndexReader.open(f, schema.clusteringColumns())) {
                    while (r.hasNext()) {
                        r.next();
                        if (r.blockCount() > 0) promoted++;
                        openMarkers += r.openMarkerCount();
                    }
                }
            }
            assertTrue(promoted >= 2 && openMarkers >= 1, "promoted entries " + promoted + ", open markers " + openMarkers);
        } finally {
            nb.discard();
            oa.discard();
        }
    }

    /** The latest expiry nb stores, 2038-01-19T03:14:06Z, is written and read back as is. */
    @Test
    void latestStorableExpiryAndDeletionTime() throws Exception {
        CassandraOracle.init();
        String tableCql = "CREATE TABLE ks.edge (pk int, ck int, v int, PRIMARY KEY (pk, ck)) WITH compression = {'enabled': 'false'}";
        TableSchema schema = CqlParser.parse(tableCql);
        long max = SSTableVersion.NB.maxLocalDeletionTime();
        Memtable m = new SkipListMemtable(schema, AllocationMode.HEAP_BUFFERS);
        int ttl = 1000;
        m.apply(new PartitionUpdate(key(schema, 1), DeletionTime.LIVE, List.of(), null, List.of(
                row(schema, 1, Cell.expiring(10, ttl, max, int32(5), null), 10, ttl, max))));
        m.apply(new PartitionUpdate(key(schema, 2), DeletionTime.of(20, max), List.of(), null, List.of()));
        m.seal();
        try {
            FlushChecks.flushAndCheck(tmp, tableCql, m, false, true, SSTableVersion.NB);
        } finally {
            m.discard();
        }
    }

    /** A memtable holding a later local deletion time cannot be flushed to nb (the input checks refuse it first). */
    @Test
    void aLaterDeletionTimeIsRefusedBeforeAnythingIsWritten() {
        String tableCql = "CREATE TABLE ks.edge (pk int, ck int, v int, PRIMARY KEY (pk, ck))";
        TableSchema schema = CqlParser.parse(tableCql);
        Memtable m = new SkipListMemtable(schema, AllocationMode.HEAP_BUFFERS);
        m.apply(new PartitionUpdate(key(schema, 1), DeletionTime.of(5, SSTableVersion.NB.maxLocalDeletionTime() + 1),
                List.of(), null, List.of()));
        m.seal();
        try {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new FlushWriter(m, SSTableVersion.NB));
            assertTrue(e.getMessage().contains("2147483647") && e.getMessage().contains("2038-01-19T03:14:06Z"), e.getMessage());
            new FlushWriter(m, SSTableVersion.OA); // oa stores it
        } finally {
            m.discard();
        }
    }

    static PartitionKey key(TableSchema schema, int pk) {
        return PartitionKey.of(int32(pk));
    }

    static byte[] int32(int v) {
        return java.nio.ByteBuffer.allocate(4).putInt(v).array();
    }

    static Row row(TableSchema schema, int ck, Cell v, long ts, int ttl, long expiry) {
        return new Row(false, new byte[][] {int32(ck)}, ts, ttl, expiry, DeletionTime.LIVE, new Cell[] {v}, new ComplexColumn[0]);
    }

    /**
     * flushline verify passes on our nb files and Cassandra's, and flushline dump prints the same
     * JSON for our nb files, Cassandra's nb files and our oa files of the same data.
     */
    static void assertReadersAgree(String tableCql, Path ourNb, Path ourOa, Path cassandraNb) throws Exception {
        Path schemaFile = ourNb.getParent().getParent().getParent().resolve("t.cql");
        java.nio.file.Files.writeString(schemaFile, tableCql);
        for (Path dir : new Path[] {ourNb, cassandraNb, ourOa}) {
            String[] v = run("verify", "--schema", schemaFile.toString(), "--extended", dir.toString());
            assertEquals("0", v[0], dir + ": " + v[1] + v[2]);
        }
        String nbDump = run("dump", "--schema", schemaFile.toString(), ourNb.toString())[1];
        String refDump = run("dump", "--schema", schemaFile.toString(), cassandraNb.toString())[1];
        String oaDump = run("dump", "--schema", schemaFile.toString(), ourOa.toString())[1];
        assertTrue(nbDump.length() > 100, nbDump);
        assertEquals(refDump, nbDump, "dump of Cassandra's nb files");
        // Positions differ by the partition deletion's size (12 bytes in nb, 1 or 12 in oa); all else is equal.
        assertEquals(oaDump.replaceAll("\"position\" : \\d+", "\"position\" : _"),
                nbDump.replaceAll("\"position\" : \\d+", "\"position\" : _"), "dump of the oa flush of the same data");
    }

    static String[] run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int status = Main.run(args, new ByteArrayInputStream(new byte[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new String[] {Integer.toString(status), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8)};
    }
}

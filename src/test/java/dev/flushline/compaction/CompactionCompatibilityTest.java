package dev.flushline.compaction;

import dev.flushline.data.PartitionUpdate;
import dev.flushline.flush.FlushWriter;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.oracle.CassandraCompactor;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.CassandraReferenceWriter;
import dev.flushline.oracle.CassandraVerifier;
import dev.flushline.oracle.Partition;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.EncodingStats;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.SSTableVerifier;
import dev.flushline.sstable.TableDirectory;
import dev.flushline.testing.Compressions;
import dev.flushline.testing.RandomSchemas;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Our major compaction against Cassandra 5.0.9's (CompactionIterator + SSTableTxnWriter over the
 * same input sstables, see {@link CassandraCompactor}). Inputs: random schemas and random
 * overlapping operations flushed three times at three clocks, by our writer (even seeds) or by
 * Cassandra's writer from what our flush holds (odd seeds, other EncodingStats and column sets).
 * Each input set is compacted at three compaction clocks: nothing expired or purgeable; some TTLs
 * expired and the tombstones of the first flushes past gc grace; everything dead purgeable.
 *
 * <p>Checks: cassandra-all reads the same partitions, rows, cells, timestamps, TTLs, local deletion
 * times, deletions and markers from both outputs (so the same purge decisions were made); Data.db,
 * Index.db, Summary.db, Statistics.db, CompressionInfo.db or CRC.db, Digest.crc32 and TOC.txt are
 * byte-identical, with no compression and with every codec (the header is
 * chosen the same way; only Filter.db differs, sized here from the real key count and there from
 * an estimate); our verifier and Cassandra's pass on our output; the cell counts balance.
 */
class CompactionCompatibilityTest {
    static final long BASE_NOW = 1_750_000_000L;
    static final long FLUSH_INTERVAL = 50_000;

    @TempDir
    Path tmp;

    static LongStream seeds() {
        return LongStream.rangeClosed(1, 30);
    }

    static String withCompression(String cql, boolean lz4) {
        return cql + (cql.contains(" WITH ") ? " AND " : " WITH ")
                + (lz4 ? "compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': 16}" : "compression = {'enabled': 'false'}");
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void compactsAsCassandraDoes(long seed) throws Exception {
        CassandraOracle.init();
        String compression = Compressions.ALL[(int) (seed % Compressions.ALL.length)];
        String cql = Compressions.with(RandomSchemas.randomTable(seed), compression);
        TableSchema schema = CqlParser.parse(cql);
        Path inputs = Files.createDirectories(tmp.resolve("in"));
        writeInputs(seed, cql, schema, inputs, seed % 2 == 1);

        long[][] clocks = {
                {BASE_NOW, 864_000},                              // nothing expired, nothing purgeable
                {BASE_NOW + 2 * FLUSH_INTERVAL + 20_000, 40_000}, // some TTLs expired, the first flushes' tombstones purgeable
                {BASE_NOW + 10_000_000, 0},                       // everything dead is purgeable
        };
        for (int c = 0; c < clocks.length; c++) {
            long now = clocks[c][0], gcBefore = now - clocks[c][1];
            String what = "seed " + seed + " clock " + c;
            Path ours = tmp.resolve("ours-" + c), ref = tmp.resolve("ref-" + c);

            List<SSTableFiles> in = SSTableFiles.inDirectory(inputs);
            Compactor.Options o = Compactor.Options.builder(now, gcBefore).build();
            Compactor.Result r = new Compactor(schema, in, o).run(TableDirectory.open(ours));
            assertEquals(r.cellsRead, r.cellsWritten + r.cellsMergedAway + r.cellsPurged, what);
            if (c == 2) assertTrue(r.cellsPurged > 0, what + ": the last clock purges the tombstones and expired cells");

            List<Path> dataFiles = new ArrayList<>();
            for (SSTableFiles f : in) dataFiles.add(f.path(Component.DATA));
            Path refData = CassandraCompactor.compact(dataFiles, cql, ref, now, gcBefore);
            if (refData == null) {
                assertTrue(r.published.isEmpty(), what + ": Cassandra's compaction left nothing, ours published " + r.published);
                continue;
            }
            assertEquals(1, r.published.size(), what);
            System.out.println(what + ": inputs " + in.size() + ", partitions " + r.inputPartitions + " -> " + r.outputPartitions
                    + ", cells read " + r.cellsRead + " written " + r.cellsWritten + " merged away " + r.cellsMergedAway
                    + " purged " + r.cellsPurged + ", markers " + r.outputMarkers + ", Data.db " + Files.size(refData) + " bytes");
            List<Partition> expected = CassandraReader.readAll(refData, cql);
            List<Partition> actual = CassandraReader.readAll(ours, cql);
            assertEquals(expected.size(), actual.size(), what + ": partitions");
            for (int i = 0; i < expected.size(); i++) {
                assertEquals(expected.get(i), actual.get(i), what + ": partition " + i);
            }
            assertEquals(expected.size(), r.outputPartitions, what);
            if (c == 0) assertEquals(0, r.cellsPurged, what + ": nothing is purgeable at the first clock");
            assertArrayEquals(Files.readAllBytes(refData), Files.readAllBytes(r.published.get(0)), what + ": Data.db bytes");
            assertArrayEquals(Files.readAllBytes(sibling(refData, "Index.db")), Files.readAllBytes(sibling(r.published.get(0), "Index.db")),
                    what + ": Index.db bytes");
            // Every component but Filter.db: Cassandra sizes its filter from an estimate, we from the real key count.
            for (String comp : new String[] {"Summary.db", "Statistics.db", "Digest.crc32", "TOC.txt",
                    schema.compressionParams().isEnabled() ? "CompressionInfo.db" : "CRC.db"}) {
                assertArrayEquals(Files.readAllBytes(sibling(refData, comp)), Files.readAllBytes(sibling(r.published.get(0), comp)),
                        what + ": " + comp + " bytes");
            }
            SSTableVerifier.verify(SSTableFiles.of(r.published.get(0)), schema, true);
            assertEquals(List.of(), CassandraVerifier.verify(ours, cql), what + ": Cassandra's verifier");
        }
    }

    static Path sibling(Path dataFile, String component) {
        String name = dataFile.getFileName().toString();
        return dataFile.resolveSibling(name.substring(0, name.length() - "Data.db".length()) + component);
    }

    /**
     * Partitions above 64 KiB: the outputs' promoted row indexes (Index.db) and Data.db match
     * Cassandra's too. Each input is several times the cursor's initial window, so windows refill
     * and move while merged rows and static rows point into them.
     */
    @org.junit.jupiter.api.Test
    void largePartitions() throws Exception {
        CassandraOracle.init();
        for (boolean lz4 : new boolean[] {false, true}) {
            String cql = "CREATE TABLE ks.wide" + (lz4 ? "z" : "u") + " (pk int, ck int, s text static, a text, b blob, "
                    + "t set<text>, PRIMARY KEY (pk, ck)) WITH CLUSTERING ORDER BY (ck DESC) AND "
                    + (lz4 ? "compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': 16}" : "compression = {'enabled': 'false'}");
            TableSchema schema = CqlParser.parse(cql);
            Path inputs = Files.createDirectories(tmp.resolve("wide-in-" + lz4));
            TableDirectory table = TableDirectory.open(inputs);
            RandomUpdates gen = new RandomUpdates(schema, lz4 ? 5 : 6, BASE_NOW, 6, 8000);
            gen.partitionDeleteChance = 0;
            gen.rangeDeleteChance = 0.0005;
            gen.rowDeleteChance = 0.01;
            for (int i = 0; i < 3; i++) {
                gen.setNowSeconds(BASE_NOW + i * FLUSH_INTERVAL);
                Memtable m = new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP);
                for (PartitionUpdate u : gen.next(20000)) m.apply(u);
                m.seal();
                try {
                    new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), table, true, null, 0);
                } finally {
                    m.discard();
                }
            }
            long now = BASE_NOW + 2 * FLUSH_INTERVAL + 20_000, gcBefore = now - 40_000;
            List<SSTableFiles> in = SSTableFiles.inDirectory(inputs);
            for (SSTableFiles f : in) {
                assertTrue(Files.size(f.path(Component.DATA)) > 2 * 128 * 1024 || lz4, "input " + f + " spans several windows: " + Files.size(f.path(Component.DATA)));
            }
            Compactor.Options o = Compactor.Options.builder(now, gcBefore).build();
            Path ours = tmp.resolve("wide-ours-" + lz4);
            Compactor.Result r = new Compactor(schema, in, o).run(TableDirectory.open(ours));
            List<Path> dataFiles = new ArrayList<>();
            for (SSTableFiles f : in) dataFiles.add(f.path(Component.DATA));
            Path refData = CassandraCompactor.compact(dataFiles, cql, tmp.resolve("wide-ref-" + lz4), now, gcBefore);
            assertEquals(1, r.published.size());
            Path ourData = r.published.get(0);
            assertTrue(Files.size(sibling(ourData, "Index.db")) > 40 * r.outputPartitions, "promoted indexes were written: Index.db "
                    + Files.size(sibling(ourData, "Index.db")) + " bytes, Data.db " + Files.size(ourData) + ", partitions " + r.outputPartitions);
            assertEquals(CassandraReader.readAll(refData, cql), CassandraReader.readAll(ours, cql), "lz4=" + lz4);
            assertArrayEquals(Files.readAllBytes(refData), Files.readAllBytes(ourData), "Data.db bytes, lz4=" + lz4);
            assertArrayEquals(Files.readAllBytes(sibling(refData, "Index.db")), Files.readAllBytes(sibling(ourData, "Index.db")),
                    "Index.db bytes, lz4=" + lz4);
            SSTableVerifier.verify(SSTableFiles.of(ourData), schema, true);
            assertEquals(List.of(), CassandraVerifier.verify(ours, cql));
        }
    }

    /**
     * Thousands of small partitions with static rows, in inputs several windows long: the cursors'
     * windows refill and move between a partition's static row and its first row, which must not
     * disturb the merged static row (it points into them until it is written).
     */
    @org.junit.jupiter.api.Test
    void manyPartitionsAcrossWindowRefills() throws Exception {
        CassandraOracle.init();
        for (boolean lz4 : new boolean[] {false, true}) {
            String cql = "CREATE TABLE ks.many" + (lz4 ? "z" : "u") + " (pk bigint, ck int, s1 text static, s2 int static, a text, "
                    + "t set<int>, PRIMARY KEY (pk, ck)) WITH "
                    + (lz4 ? "compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': 4}" : "compression = {'enabled': 'false'}");
            TableSchema schema = CqlParser.parse(cql);
            Path inputs = Files.createDirectories(tmp.resolve("many-in-" + lz4));
            TableDirectory table = TableDirectory.open(inputs);
            RandomUpdates gen = new RandomUpdates(schema, lz4 ? 7 : 8, BASE_NOW, 3000, 4);
            gen.staticChance = 0.6;
            for (int i = 0; i < 3; i++) {
                gen.setNowSeconds(BASE_NOW + i * FLUSH_INTERVAL);
                Memtable m = new SkipListMemtable(schema, AllocationMode.HEAP_BUFFERS);
                for (PartitionUpdate u : gen.next(8000)) m.apply(u);
                m.seal();
                try {
                    new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), table, true, null, 0);
                } finally {
                    m.discard();
                }
            }
            List<SSTableFiles> in = SSTableFiles.inDirectory(inputs);
            long now = BASE_NOW + 2 * FLUSH_INTERVAL, gcBefore = now - 864_000;
            Compactor.Options o = Compactor.Options.builder(now, gcBefore).build();
            Path ours = tmp.resolve("many-ours-" + lz4);
            Compactor.Result r = new Compactor(schema, in, o).run(TableDirectory.open(ours));
            List<Path> dataFiles = new ArrayList<>();
            for (SSTableFiles f : in) dataFiles.add(f.path(Component.DATA));
            Path refData = CassandraCompactor.compact(dataFiles, cql, tmp.resolve("many-ref-" + lz4), now, gcBefore);
            assertTrue(r.inputRows > 10_000, "rows " + r.inputRows);
            assertEquals(CassandraReader.readAll(refData, cql), CassandraReader.readAll(ours, cql), "lz4=" + lz4);
            assertArrayEquals(Files.readAllBytes(refData), Files.readAllBytes(r.published.get(0)), "Data.db bytes, lz4=" + lz4);
        }
    }

    /**
     * Eleven inputs, each holding some of the same partitions and rows (and statics, collections,
     * deletions), merge as Cassandra merges them: the merge takes its next partition and its next
     * row from heaps of the inputs, and with eleven both heaps sift through several levels.
     */
    @Test
    void elevenOverlappingInputsMergeAsCassandraMerges() throws Exception {
        CassandraOracle.init();
        String cql = "CREATE TABLE ks.eleven (pk bigint, ck int, s1 text static, a text, t set<int>, PRIMARY KEY (pk, ck)) "
                + "WITH compression = {'enabled': 'false'}";
        TableSchema schema = CqlParser.parse(cql);
        Path inputs = Files.createDirectories(tmp.resolve("eleven-in"));
        TableDirectory table = TableDirectory.open(inputs);
        // 40 keys of 6 clusterings: most partitions, and many rows, are in several inputs at once.
        RandomUpdates gen = new RandomUpdates(schema, 11, BASE_NOW, 40, 6);
        gen.staticChance = 0.3;
        for (int i = 0; i < 11; i++) {
            gen.setNowSeconds(BASE_NOW + i * FLUSH_INTERVAL / 11);
            Memtable m = new SkipListMemtable(schema, AllocationMode.values()[i % AllocationMode.values().length]);
            for (PartitionUpdate u : gen.next(120)) m.apply(u);
            m.seal();
            try {
                new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), table, true, null, 0);
            } finally {
                m.discard();
            }
        }
        List<SSTableFiles> in = SSTableFiles.inDirectory(inputs);
        assertEquals(11, in.size());
        long now = BASE_NOW + FLUSH_INTERVAL, gcBefore = now - 864_000;
        Compactor.Result r = new Compactor(schema, in, Compactor.Options.builder(now, gcBefore).build()).run(TableDirectory.open(tmp.resolve("eleven-ours")));
        long[] merged = r.mergeCounts;
        long severalInputs = 0;
        for (int k = 3; k < merged.length; k++) severalInputs += merged[k];
        assertTrue(severalInputs > 0, "partitions held by three inputs or more: " + java.util.Arrays.toString(merged));
        List<Path> dataFiles = new ArrayList<>();
        for (SSTableFiles f : in) dataFiles.add(f.path(Component.DATA));
        Path refData = CassandraCompactor.compact(dataFiles, cql, tmp.resolve("eleven-ref"), now, gcBefore);
        assertEquals(CassandraReader.readAll(refData, cql), CassandraReader.readAll(tmp.resolve("eleven-ours"), cql));
        assertArrayEquals(Files.readAllBytes(refData), Files.readAllBytes(r.published.get(0)), "Data.db bytes");
    }

    /** Three flushes at three clocks of overlapping random operations. */
    static void writeInputs(long seed, String cql, TableSchema schema, Path dir, boolean byCassandra) throws Exception {
        // Few keys: every partition in every input; many keys: partitions that only one or two inputs hold.
        RandomUpdates gen = new RandomUpdates(schema, seed, BASE_NOW, seed % 3 == 0 ? 80 : 12, 10);
        TableDirectory table = TableDirectory.open(dir);
        Path scratch = Files.createTempDirectory(dir.getParent(), "flush-");
        for (int i = 0; i < 3; i++) {
            gen.setNowSeconds(BASE_NOW + i * FLUSH_INTERVAL);
            Memtable m = new SkipListMemtable(schema, AllocationMode.values()[(int) ((seed + i) % AllocationMode.values().length)]);
            for (PartitionUpdate u : gen.next(150)) m.apply(u);
            m.seal();
            try {
                if (!byCassandra) {
                    new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), table, true, null, 0);
                } else {
                    Path one = Files.createDirectories(scratch.resolve("f" + i));
                    new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), TableDirectory.open(one), true, null, 0);
                    List<Partition> model = CassandraReader.readAll(one, cql);
                    if (!model.isEmpty()) {
                        CassandraReferenceWriter.writeAsFlush(dir, cql, model, EncodingStats.TIMESTAMP_EPOCH,
                                EncodingStats.DELETION_TIME_EPOCH, 0, model.size(), null, org.apache.cassandra.config.Config.FlushCompression.table);
                    }
                }
            } finally {
                m.discard();
            }
        }
        assertTrue(SSTableFiles.inDirectory(dir).size() >= 2, "inputs " + Arrays.toString(dir.toFile().list()));
    }
}

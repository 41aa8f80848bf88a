package dev.flushline.compaction;

import dev.flushline.data.PartitionUpdate;
import dev.flushline.flush.FlushWriter;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.Bytes;
import dev.flushline.oracle.CassandraReferenceWriter;
import dev.flushline.oracle.Cell;
import dev.flushline.oracle.ComplexColumn;
import dev.flushline.oracle.Deletion;
import dev.flushline.oracle.Liveness;
import dev.flushline.oracle.Marker;
import dev.flushline.oracle.Partition;
import dev.flushline.oracle.Row;
import dev.flushline.oracle.Unfiltered;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.EncodingStats;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.SSTableVerifier;
import dev.flushline.sstable.TableDirectory;
import dev.flushline.testing.Compressions;
import dev.flushline.testing.RandomSchemas;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Copy-through ({@link Compactor.Options#copyThrough}) changes no byte of a compaction's output: for
 * random schemas and operations, the same inputs compacted with it and without it give the same
 * files, every component byte for byte. Inputs in three shapes: disjoint (each flush writes its own
 * keys, so most partitions are held by one input), overlapping (three flushes over one small key
 * pool) and mixed (two flushes share keys, the third has its own). Written by our flush (whose
 * bases are the output's where an input holds the smallest times) or, for half of the seeds, by
 * Cassandra's writer with every base at its epoch (so no row is taken as its bytes). Each set is
 * compacted at three clocks: nothing expired or purgeable; some TTLs expired and the first flushes'
 * tombstones past gc grace; everything dead purgeable. Every codec, by seed. For even seeds the
 * last flush is a handful of writes, whose header lacks some of the output's columns.
 *
 * <p>The counters show copy-through happened: rows were copied at the first clock in the disjoint
 * and mixed shapes, whole partitions too in the disjoint one, and none with it off.
 */
class CompactionCopyThroughTest {
    static final long BASE_NOW = CompactionCompatibilityTest.BASE_NOW;
    static final long FLUSH_INTERVAL = CompactionCompatibilityTest.FLUSH_INTERVAL;
    static final String[] SHAPES = {"disjoint", "overlapping", "mixed"};

    @TempDir
    Path tmp;

    static Stream<Long> seeds() {
        return LongStream.rangeClosed(1, 36).boxed();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void copyThroughWritesWhatTheMergeWrites(long seed) throws Exception {
        // Every shape with both writers (seeds 1..6 already), and every shape with every codec (1..24).
        String shape = SHAPES[(int) (seed % SHAPES.length)];
        boolean byCassandra = (seed / SHAPES.length) % 2 == 1;
        String compression = Compressions.ALL[(int) (seed % Compressions.ALL.length)];
        String cql = Compressions.with(RandomSchemas.randomTable(seed), compression);
        TableSchema schema = CqlParser.parse(cql);
        Path inputs = Files.createDirectories(tmp.resolve("in"));
        if (byCassandra) CassandraOracle.init();
        writeInputs(seed, shape, cql, schema, inputs, byCassandra);

        long[][] clocks = {
                {BASE_NOW, 864_000},
                {BASE_NOW + 2 * FLUSH_INTERVAL + 20_000, 40_000},
                {BASE_NOW + 10_000_000, 0},
        };
        for (int c = 0; c < clocks.length; c++) {
            long now = clocks[c][0], gcBefore = now - clocks[c][1];
            String what = "seed " + seed + " (" + shape + (byCassandra ? ", Cassandra's writer" : "") + ", " + compression + ") clock " + c;
            Compactor.Result on = compact(schema, inputs, tmp.resolve("on-" + c), now, gcBefore, true);
            Compactor.Result off = compact(schema, inputs, tmp.resolve("off-" + c), now, gcBefore, false);
            System.out.println(what + ": partitions " + on.inputPartitions + " -> " + on.outputPartitions + ", merge counts "
                    + java.util.Arrays.toString(on.mergeCounts) + ", rows in " + on.inputRows + ", copied " + on.rowsCopied
                    + " (" + on.rowsCopiedVerbatim + " as they were), partitions copied " + on.partitionsCopied);
            assertSameFiles(tmp.resolve("off-" + c), tmp.resolve("on-" + c), what);
            assertEquals(0, off.rowsCopied + off.rowsCopiedVerbatim + off.partitionsCopied, what + ": nothing is copied with copy-through off");
            assertEquals(off.cellsRead, on.cellsRead, what);
            assertEquals(off.cellsWritten, on.cellsWritten, what);
            assertEquals(off.cellsPurged, on.cellsPurged, what);
            assertEquals(off.cellsMergedAway, on.cellsMergedAway, what);
            assertEquals(off.outputRows, on.outputRows, what);
            assertTrue(on.rowsCopiedVerbatim <= on.rowsCopied && on.rowsCopied <= on.outputRows + on.outputPartitions, what);
            if (byCassandra) {
                // Every base at its epoch, while the output's are the inputs' smallest times: transcoded.
                assertEquals(0, on.rowsCopiedVerbatim, what + ": rows whose timestamps need another base are transcoded");
            }
            if (c == 0 && !shape.equals("overlapping")) {
                assertTrue(on.rowsCopied > 0, what + ": rows held by one input, nothing purgeable, are copied");
            }
            if (c == 0 && shape.equals("disjoint")) {
                assertTrue(on.partitionsCopied > 0, what + ": partitions held by one input are copied whole");
            }
            for (Path p : on.published) SSTableVerifier.verify(SSTableFiles.of(p), schema, true);
        }
    }

    // ---- which rows are copied: hand-made inputs, one rule per partition --------------------------

    static final String EDGE = CompactionEdgeCaseTest.CQL;
    static final long N = CompactionEdgeCaseTest.N;

    private static List<Bytes> ck(int c) {
        return List.of(Bytes.int32(c));
    }

    private static Partition part(int pk, Deletion d, Row staticRow, Unfiltered... items) {
        return new Partition(Bytes.int32(pk), d, staticRow, List.of(items));
    }

    private static Partition part(int pk, Unfiltered... items) {
        return part(pk, Deletion.LIVE, Row.EMPTY_STATIC, items);
    }

    /** A partition using every column (static, simple and complex), so that each input's header has them all. */
    private static Partition everyColumn(int pk, long ts) {
        return part(pk, Deletion.LIVE, Row.staticRow(Cell.live("s", ts, Bytes.int32(pk))),
                Row.of(ck(1), Liveness.of(ts), Cell.live("v", ts, Bytes.utf8("x" + pk)), Cell.live("w", ts, Bytes.int32(pk)),
                        ComplexColumn.of("tags", Deletion.LIVE, Cell.live("tags", ts, Bytes.EMPTY).withPath(Bytes.int32(pk)))));
    }

    /**
     * Exactly the rows a merge would write back unchanged are copied: at a clock where some
     * tombstones are past gc grace, and at one where none is. Four inputs written by Cassandra's
     * writer (bases at the epoch, so every copied row is transcoded); the third holds only live
     * data, so its Statistics.db alone rules out any purge; the fourth's header has one column of
     * the output's four. The outputs equal those without copy-through, and Cassandra's
     * compaction's Data.db.
     */
    @org.junit.jupiter.api.Test
    void copiesExactlyTheRowsAMergeWouldKeepUnchanged() throws Exception {
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse(EDGE);
        Bytes a = Bytes.utf8("abc");
        List<Partition> sa = new ArrayList<>(), sb = new ArrayList<>(), sc = new ArrayList<>();
        // Copied at both clocks: plain rows (2 rows, the partition).
        sa.add(part(1, Row.of(ck(2), Liveness.of(100), Cell.live("v", 100, a), Cell.live("w", 100, Bytes.int32(1))),
                Row.of(ck(1), Liveness.of(100), Cell.live("v", 100, a))));
        // A cell tombstone past gc grace at the first clock: that row is merged (purged), the other copied.
        sa.add(part(2, Row.of(ck(2), Liveness.EMPTY, Cell.tombstone("w", 100, N - 1000)), Row.of(ck(1), Liveness.of(100), Cell.live("v", 100, a))));
        // A partition deletion covers every row: merged.
        sa.add(part(3, Deletion.of(300, N), Row.EMPTY_STATIC, Row.of(ck(5), Liveness.of(400), Cell.live("v", 400, a))));
        // A range deletion covers ck 5, newer than it: merged (a covered row is never taken as it is),
        // though nothing of it goes; ck 9 lies outside the range: copied.
        sa.add(part(4, Row.of(ck(9), Liveness.of(600), Cell.live("v", 600, a)),
                Marker.bound("INCL_START_BOUND", Deletion.of(500, N), Bytes.int32(6)), Row.of(ck(5), Liveness.of(600), Cell.live("v", 600, a)),
                Marker.bound("INCL_END_BOUND", Deletion.of(500, N), Bytes.int32(4))));
        // An expired TTL cell becomes a tombstone or goes: merged.
        sa.add(part(5, Row.of(ck(1), Liveness.EMPTY, Cell.expiring("v", 100, 10, N - 500, a))));
        // An unexpired TTL cell: copied.
        sa.add(part(6, Row.of(ck(1), Liveness.EMPTY, Cell.expiring("v", 100, 2000, N + 1000, a))));
        // A tombstone within gc grace: copied.
        sa.add(part(7, Row.of(ck(1), Liveness.of(100), Cell.tombstone("v", 100, N))));
        // A static row and a row: both copied.
        sa.add(part(8, Deletion.LIVE, Row.staticRow(Cell.live("s", 100, Bytes.int32(8))), Row.of(ck(1), Liveness.of(100), Cell.live("w", 100, Bytes.int32(8)))));
        // A static tombstone past gc grace at the first clock: the static row is merged, the row copied.
        sa.add(part(9, Deletion.LIVE, Row.staticRow(Cell.tombstone("s", 100, N - 1000)), Row.of(ck(1), Liveness.of(100), Cell.live("v", 100, a))));
        // A complex deletion within gc grace, with a newer element: copied.
        sa.add(part(10, Row.of(ck(1), Liveness.EMPTY, ComplexColumn.of("tags", Deletion.of(150, N),
                Cell.live("tags", 200, Bytes.EMPTY).withPath(Bytes.int32(3))))));
        // A row deletion past gc grace at the first clock.
        sa.add(part(11, new Row(ck(1), Liveness.EMPTY, Deletion.of(200, N - 1000), List.of())));
        // Held by two inputs, a different row in each: both copied (but the partition was merged).
        sa.add(part(12, Row.of(ck(2), Liveness.of(100), Cell.live("v", 100, a))));
        sb.add(part(12, Row.of(ck(1), Liveness.of(110), Cell.live("v", 110, a))));
        // The same row in two inputs: merged.
        sa.add(part(13, Row.of(ck(1), Liveness.of(100), Cell.live("v", 100, a))));
        sb.add(part(13, Row.of(ck(1), Liveness.of(120), Cell.live("v", 120, a))));
        // An expired liveness past gc grace at the first clock goes (merged); within it, it stays as it is (copied).
        sa.add(part(14, Row.of(ck(1), Liveness.expiring(100, 10, N - 500), Cell.live("v", 100, a))));
        // An expired TTL cell whose tombstone would be kept: merged at both clocks.
        sa.add(part(15, Row.of(ck(1), Liveness.EMPTY, Cell.expiring("v", 100, 10, N - 50, a))));
        sc.add(part(16, Row.of(ck(1), Liveness.of(100), Cell.live("v", 100, a), Cell.live("w", 100, Bytes.int32(16)))));
        sa.add(everyColumn(100, 100));
        sb.add(everyColumn(101, 100));
        sc.add(everyColumn(102, 100));
        // A fourth input whose header has v alone: its row is transcoded, column subset included.
        List<Partition> sd = List.of(part(17, Row.of(ck(1), Liveness.of(100), Cell.live("v", 100, a))));

        Path in = Files.createDirectories(tmp.resolve("edge-in"));
        for (List<Partition> s : List.of(sa, sb, sc, sd)) {
            CassandraReferenceWriter.write(in, EDGE, s, EncodingStats.TIMESTAMP_EPOCH, EncodingStats.DELETION_TIME_EPOCH, 0, s.size(), false);
        }
        // {gcBefore, rows copied, partitions copied}
        long[][] clocks = {
                {N - 100, 20, 10},
                // Nothing past gc grace: also the rows of 2, 9, 11 and 14, and those partitions.
                {N - 864_000, 24, 14},
        };
        for (int c = 0; c < clocks.length; c++) {
            long gcBefore = clocks[c][0];
            String what = "gcBefore " + gcBefore;
            Compactor.Result on = compact(schema, in, tmp.resolve("edge-on-" + c), N, gcBefore, true);
            Compactor.Result off = compact(schema, in, tmp.resolve("edge-off-" + c), N, gcBefore, false);
            assertSameFiles(tmp.resolve("edge-off-" + c), tmp.resolve("edge-on-" + c), what);
            assertEquals(clocks[c][1], on.rowsCopied, what + ": rows copied");
            assertEquals(clocks[c][2], on.partitionsCopied, what + ": partitions copied");
            assertEquals(0, on.rowsCopiedVerbatim, what + ": every base at the epoch, so every copied row is transcoded");
            assertEquals(0, off.rowsCopied + off.partitionsCopied, what);
            List<Path> data = new ArrayList<>();
            for (SSTableFiles f : SSTableFiles.inDirectory(in)) data.add(f.path(dev.flushline.sstable.Component.DATA));
            Path ref = dev.flushline.oracle.CassandraCompactor.compact(data, EDGE, tmp.resolve("edge-ref-" + c), N, gcBefore);
            assertEquals(CassandraReader.readAll(ref, EDGE), CassandraReader.readAll(tmp.resolve("edge-on-" + c), EDGE), what);
            assertArrayEquals(Files.readAllBytes(ref), Files.readAllBytes(on.published.get(0)), what + ": Data.db bytes, Cassandra's");
        }
    }

    // ---- as their bytes, or transcoded --------------------------------------------------------------

    static final String PLAIN = "CREATE TABLE ks.plain (pk bigint, ck int, st text static, a text, b int, c blob, tags set<int>, "
            + "PRIMARY KEY (pk, ck)) WITH compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': 16}";

    /**
     * {@code inputs} flushes of disjoint partitions, each with a static row and rows of live cells
     * (no TTL, no deletion); input i's timestamps start at {@code baseTimestamps[i]}.
     */
    static Path disjointInputs(Path dir, TableSchema schema, int partitionsEach, int rowsEach, long[] baseTimestamps) throws IOException {
        Files.createDirectories(dir);
        TableDirectory table = TableDirectory.open(dir);
        java.util.Random random = new java.util.Random(7);
        for (int i = 0; i < baseTimestamps.length; i++) {
            Memtable m = new SkipListMemtable(schema, AllocationMode.values()[i % AllocationMode.values().length]);
            long ts = baseTimestamps[i];
            for (int p = 0; p < partitionsEach; p++) {
                long pk = (long) i * partitionsEach + p;
                List<dev.flushline.data.Row> rows = new ArrayList<>();
                for (int r = 0; r < rowsEach; r++) {
                    byte[] text = new byte[1 + random.nextInt(30)];
                    for (int k = 0; k < text.length; k++) text[k] = (byte) ('a' + random.nextInt(26));
                    byte[] blob = new byte[random.nextInt(3) == 0 ? 0 : random.nextInt(20)];
                    random.nextBytes(blob);
                    dev.flushline.data.Cell[] simple = {dev.flushline.data.Cell.live(ts, text, null),
                            dev.flushline.data.Cell.live(ts, int32(random.nextInt()), null), dev.flushline.data.Cell.live(ts, blob, null)};
                    dev.flushline.data.ComplexColumn[] complex = {random.nextBoolean() ? null : new dev.flushline.data.ComplexColumn(
                            dev.flushline.data.DeletionTime.LIVE, new dev.flushline.data.Cell[] {
                                    dev.flushline.data.Cell.live(ts + 1, new byte[0], int32(r))})};
                    rows.add(new dev.flushline.data.Row(false, new byte[][] {int32(r)}, ts, dev.flushline.data.Cell.NO_TTL,
                            dev.flushline.data.Cell.NO_DELETION_TIME, dev.flushline.data.DeletionTime.LIVE, simple, complex));
                    ts += 2;
                }
                dev.flushline.data.Row st = new dev.flushline.data.Row(true, null, dev.flushline.data.Cell.NO_TIMESTAMP,
                        dev.flushline.data.Cell.NO_TTL, dev.flushline.data.Cell.NO_DELETION_TIME, dev.flushline.data.DeletionTime.LIVE,
                        new dev.flushline.data.Cell[] {dev.flushline.data.Cell.live(ts, ("s" + pk).getBytes(), null)},
                        new dev.flushline.data.ComplexColumn[0]);
                m.apply(new PartitionUpdate(dev.flushline.data.PartitionKey.of(int64(pk)), dev.flushline.data.DeletionTime.LIVE,
                        List.of(), st, rows));
            }
            m.seal();
            try {
                new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), table, true, null, 0);
            } finally {
                m.discard();
            }
        }
        return dir;
    }

    static byte[] int32(int x) {
        return java.nio.ByteBuffer.allocate(4).putInt(x).array();
    }

    static byte[] int64(long x) {
        return java.nio.ByteBuffer.allocate(8).putLong(x).array();
    }

    /**
     * Disjoint inputs of plain rows, as the disjoint benchmark writes them: every row and static
     * row, and every partition, is copied; as their bytes when every input's timestamps start at the
     * same base (the output's), and, when they start at three bases, only the first input's (the
     * others' timestamps are transcoded). The same files either way as without copy-through.
     */
    @org.junit.jupiter.api.Test
    void disjointRowsAreTheirBytesWhenTheBasesMatchAndTranscodedOtherwise() throws Exception {
        TableSchema schema = CqlParser.parse(PLAIN);
        long base = 1_700_000_000_000_000L;
        int partitions = 150, rows = 6;
        long[][] bases = {{base, base, base}, {base, base + 5_000_000_000L, base + 9_000_000_000L}};
        for (int b = 0; b < bases.length; b++) {
            String what = "bases " + java.util.Arrays.toString(bases[b]);
            Path in = disjointInputs(tmp.resolve("plain-in-" + b), schema, partitions, rows, bases[b]);
            Compactor.Result on = compact(schema, in, tmp.resolve("plain-on-" + b), BASE_NOW, BASE_NOW - 864_000, true);
            Compactor.Result off = compact(schema, in, tmp.resolve("plain-off-" + b), BASE_NOW, BASE_NOW - 864_000, false);
            assertSameFiles(tmp.resolve("plain-off-" + b), tmp.resolve("plain-on-" + b), what);
            long inputRows = 3L * partitions * (rows + 1);
            assertEquals(inputRows, on.inputRows, what);
            assertEquals(inputRows, on.rowsCopied, what + ": every row and static row");
            assertEquals(3L * partitions, on.partitionsCopied, what + ": every partition");
            assertEquals(b == 0 ? inputRows : inputRows / 3, on.rowsCopiedVerbatim, what + ": rows taken as their bytes");
            assertEquals(0, off.rowsCopied, what);
        }
    }

    /**
     * A table with no complex column: rows whose cells are all plain (the row's timestamp, a value
     * of 1 to 127 bytes), every column present or not, are copied without decoding their cells,
     * as their bytes or with their head transcoded (the third input's timestamps start at another
     * base); a row with a deletion of its own, a cell of another timestamp, a value of 128 bytes
     * or an empty value is decoded first; so is a row with a TTL, which the first sstable holds
     * (expired), so that this sstable cannot rule out a purge for its other rows. Every row but the
     * expired one is copied, and the files are those without copy-through.
     */
    @org.junit.jupiter.api.Test
    void plainRowsAreCopiedWithoutDecodingTheirCells() throws Exception {
        TableSchema schema = CqlParser.parse("CREATE TABLE ks.simple (pk bigint, ck int, a text, b int, PRIMARY KEY (pk, ck)) "
                + "WITH compression = {'enabled': 'false'}");
        long base = 1_700_000_000_000_000L;
        long[] bases = {base, base, base + 5_000_000_000L};
        int partitions = 40;
        Path in = Files.createDirectories(tmp.resolve("simple-in"));
        TableDirectory table = TableDirectory.open(in);
        for (int i = 0; i < bases.length; i++) {
            Memtable m = new SkipListMemtable(schema, AllocationMode.values()[i % AllocationMode.values().length]);
            long ts = bases[i];
            for (int p = 0; p < partitions; p++) {
                long pk = (long) i * partitions + p;
                byte[] text = ("v" + pk).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                List<dev.flushline.data.Row> rows = List.of(
                        simpleRow(0, ts, dev.flushline.data.DeletionTime.LIVE, dev.flushline.data.Cell.live(ts, text, null),
                                dev.flushline.data.Cell.live(ts, int32(p), null)),
                        simpleRow(1, ts, dev.flushline.data.DeletionTime.of(ts - 1, BASE_NOW - 10),
                                dev.flushline.data.Cell.live(ts, text, null), dev.flushline.data.Cell.live(ts, int32(p), null)),
                        simpleRow(2, ts, dev.flushline.data.DeletionTime.LIVE, dev.flushline.data.Cell.live(ts + 1, text, null),
                                dev.flushline.data.Cell.live(ts, int32(p), null)),
                        simpleRow(3, ts, dev.flushline.data.DeletionTime.LIVE, dev.flushline.data.Cell.live(ts, new byte[128], null),
                                dev.flushline.data.Cell.live(ts, int32(p), null)),
                        simpleRow(4, ts, dev.flushline.data.DeletionTime.LIVE, dev.flushline.data.Cell.live(ts, new byte[0], null),
                                dev.flushline.data.Cell.live(ts, int32(p), null)),
                        simpleRow(5, ts, dev.flushline.data.DeletionTime.LIVE, dev.flushline.data.Cell.live(ts, text, null), null));
                m.apply(new PartitionUpdate(dev.flushline.data.PartitionKey.of(int64(pk)), dev.flushline.data.DeletionTime.LIVE,
                        List.of(), null, rows));
                ts += 10;
            }
            if (i == 0) {
                // An expired row: this sstable no longer rules out a purge, but its plain rows are still
                // copied undecoded, and the expired one is merged (purged).
                dev.flushline.data.Row expired = new dev.flushline.data.Row(false, new byte[][] {int32(0)}, ts, 60,
                        BASE_NOW - 100, dev.flushline.data.DeletionTime.LIVE, new dev.flushline.data.Cell[] {
                                dev.flushline.data.Cell.expiring(ts, 60, BASE_NOW - 100, int32(1), null), null},
                        new dev.flushline.data.ComplexColumn[0]);
                m.apply(new PartitionUpdate(dev.flushline.data.PartitionKey.of(int64(1_000_000)), dev.flushline.data.DeletionTime.LIVE,
                        List.of(), null, List.of(expired)));
                // A partition whose one row is a liveness alone, expired past gc grace: no cell, so nothing
                // refuses it as plain but its own TTL, and the merge leaves nothing of the partition.
                dev.flushline.data.Row gone = new dev.flushline.data.Row(false, new byte[][] {int32(0)}, ts, 60,
                        BASE_NOW - 900_000, dev.flushline.data.DeletionTime.LIVE, new dev.flushline.data.Cell[2],
                        new dev.flushline.data.ComplexColumn[0]);
                m.apply(new PartitionUpdate(dev.flushline.data.PartitionKey.of(int64(1_000_001)), dev.flushline.data.DeletionTime.LIVE,
                        List.of(), null, List.of(gone)));
            }
            m.seal();
            try {
                new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), table, true, null, 0);
            } finally {
                m.discard();
            }
        }
        Compactor.Result on = compact(schema, in, tmp.resolve("simple-on"), BASE_NOW, BASE_NOW - 864_000, true);
        Compactor.Result off = compact(schema, in, tmp.resolve("simple-off"), BASE_NOW, BASE_NOW - 864_000, false);
        assertSameFiles(tmp.resolve("simple-off"), tmp.resolve("simple-on"), "plain rows");
        long rowsIn = 3L * partitions * 6;
        assertEquals(rowsIn + 2, on.inputRows, "the rows and the expired ones");
        assertEquals(rowsIn, on.rowsCopied, "every row is copied but the expired ones");
        assertEquals(3L * partitions + 1, on.outputPartitions, "the partition of the expired liveness is gone");
        assertEquals(3L * partitions * 2, on.rowsCopiedUndecoded, "rows 0 and 5 (all plain) undecoded, no other");
        // As their bytes: the first input's rows (it holds every minimum, so its bases are the output's),
        // and the second's but for rows 1 and 2, which need the local deletion time and TTL bases too
        // (a deletion, a cell of its own timestamp), and those the expired row moved.
        assertEquals(partitions * 6L + partitions * 4L, on.rowsCopiedVerbatim, "rows as their bytes");
        assertEquals(off.cellsRead, on.cellsRead, "cells read");
        assertEquals(0, off.rowsCopiedUndecoded, "nothing copied without copy-through");
    }

    private static dev.flushline.data.Row simpleRow(int ck, long ts, dev.flushline.data.DeletionTime deletion,
                                                    dev.flushline.data.Cell a, dev.flushline.data.Cell b) {
        return new dev.flushline.data.Row(false, new byte[][] {int32(ck)}, ts, dev.flushline.data.Cell.NO_TTL,
                dev.flushline.data.Cell.NO_DELETION_TIME, deletion, new dev.flushline.data.Cell[] {a, b},
                new dev.flushline.data.ComplexColumn[0]);
    }

    // ---- bytes another writer could have written: rebuilt, or transcoded ----------------------------

    /**
     * Inputs whose rows decode to the same fields as our flush's but are encoded otherwise, which
     * Cassandra's reader reads the same: a cell storing its own timestamp, equal to the row's,
     * instead of flagging USE_ROW_TIMESTAMP (its flags are not ours: the row is merged); a
     * timestamp delta as a two-byte vint (the sizes show it: transcoded, not taken as it is); a
     * prev_size as a two-byte vint (the fields taken as they are, but not the whole row); a
     * complex column's LIVE deletion with another local deletion time, which the reader drops
     * (transcoded). Each patched sstable compacts into exactly the files the unpatched one does.
     */
    @org.junit.jupiter.api.Test
    void bytesAnotherWriterEncodedOtherwiseAreRebuiltOrTranscoded() throws Exception {
        String simpleCql = "CREATE TABLE ks.craft (pk int, ck int, v int, PRIMARY KEY (pk, ck)) WITH compression = {'enabled': 'false'}";
        TableSchema simple = CqlParser.parse(simpleCql);
        long ts = 1_700_000_000_000_000L;
        dev.flushline.data.Row r1 = oneCellRow(1, ts, int32(11));
        dev.flushline.data.Row r2 = oneCellRow(2, ts + 5, int32(22));
        Path original = flushedAndCopiedVerbatim("craft", simple, List.of(r1, r2));

        // The last row: 24 00 <ck:4> <row_size> <prev_size> <ts delta 05> 08 <v:4>
        for (String patch : new String[] {"own timestamp", "long vint", "long prev_size"}) {
            Patchable p = patchable(original, tmp.resolve("craft-" + patch.replace(' ', '-')), simple);
            Path dir = p.dir();
            SSTableFiles f = p.files();
            byte[] data = p.data();
            int row = p.lastRow();
            assertEquals(0x24, data[row] & 0xFF, patch);
            int tsAt = row + 8;
            assertEquals(5, data[tsAt], patch + ": the last row's timestamp delta");
            assertEquals(0x08, data[tsAt + 1], patch + ": USE_ROW_TIMESTAMP");
            byte[] patched;
            if (patch.equals("own timestamp")) {
                patched = splice(data, tsAt + 1, 1, new byte[] {0x00, 0x05}); // no USE_ROW_TIMESTAMP, then the cell's own delta
            } else if (patch.equals("long vint")) {
                patched = splice(data, tsAt, 1, new byte[] {(byte) 0x80, 0x05}); // 5 in two bytes
            } else {
                assertTrue(data[row + 7] > 0 && data[row + 7] < 64, patch + ": the first row's size fits a two-byte vint's low byte");
                patched = splice(data, row + 7, 1, new byte[] {(byte) 0x80, data[row + 7]}); // the same size in two bytes
            }
            patched[row + 6]++; // row_size: one byte more
            rewriteData(f, patched);
            String what = patch;
            assertEquals(2, cursorRows(f, simple), what + ": the patched sstable reads");
            Compactor.Result on = compact(simple, dir, tmp.resolve("craft-on-" + patch.replace(' ', '-')), BASE_NOW, BASE_NOW - 864_000, true);
            Compactor.Result off = compact(simple, dir, tmp.resolve("craft-off-" + patch.replace(' ', '-')), BASE_NOW, BASE_NOW - 864_000, false);
            assertSameFiles(tmp.resolve("craft-orig-out"), tmp.resolve("craft-on-" + patch.replace(' ', '-')), what + ": copy-through");
            assertSameFiles(tmp.resolve("craft-orig-out"), tmp.resolve("craft-off-" + patch.replace(' ', '-')), what + ": merge");
            if (patch.equals("own timestamp")) {
                assertEquals(1, on.rowsCopied, what + ": the row whose flags are not ours is merged");
                assertEquals(0, on.partitionsCopied, what);
            } else if (patch.equals("long vint")) {
                assertEquals(2, on.rowsCopied, what);
                assertEquals(1, on.rowsCopiedVerbatim, what + ": the row with a long vint is transcoded");
            } else {
                assertEquals(2, on.rowsCopied, what);
                assertEquals(2, on.rowsCopiedVerbatim, what + ": the fields taken as they are, the row's head written anew");
            }
        }

        String complexCql = "CREATE TABLE ks.craftc (pk int, ck int, t set<int>, u set<int>, PRIMARY KEY (pk, ck)) "
                + "WITH compression = {'enabled': 'false'}";
        TableSchema complex = CqlParser.parse(complexCql);
        long now = BASE_NOW;
        dev.flushline.data.Row c1 = new dev.flushline.data.Row(false, new byte[][] {int32(1)}, ts, 0, dev.flushline.data.Cell.NO_DELETION_TIME,
                dev.flushline.data.DeletionTime.LIVE, new dev.flushline.data.Cell[0], new dev.flushline.data.ComplexColumn[] {
                        new dev.flushline.data.ComplexColumn(dev.flushline.data.DeletionTime.LIVE,
                                new dev.flushline.data.Cell[] {dev.flushline.data.Cell.live(ts, new byte[0], int32(1))}), null});
        // t assigned (a complex deletion) and u appended to (LIVE, written because the row has a complex deletion).
        dev.flushline.data.Row c2 = new dev.flushline.data.Row(false, new byte[][] {int32(2)}, dev.flushline.data.Cell.NO_TIMESTAMP, 0,
                dev.flushline.data.Cell.NO_DELETION_TIME, dev.flushline.data.DeletionTime.LIVE, new dev.flushline.data.Cell[0],
                new dev.flushline.data.ComplexColumn[] {
                        new dev.flushline.data.ComplexColumn(dev.flushline.data.DeletionTime.of(ts + 4, now),
                                new dev.flushline.data.Cell[] {dev.flushline.data.Cell.live(ts + 5, new byte[0], int32(1))}),
                        new dev.flushline.data.ComplexColumn(dev.flushline.data.DeletionTime.LIVE,
                                new dev.flushline.data.Cell[] {dev.flushline.data.Cell.live(ts + 5, new byte[0], int32(2))})});
        Path originalC = flushedAndCopiedVerbatim("craftc", complex, List.of(c1, c2));
        Patchable pc = patchable(originalC, tmp.resolve("craftc-live"), complex);
        Path dirC = pc.dir();
        SSTableFiles fc = pc.files();
        byte[] data = pc.data();
        int row = pc.lastRow();
        // u's LIVE deletion: its timestamp delta is the only nine-byte vint (first byte 0xFF) in the row,
        // its local deletion time delta follows; flip the last bit of the latter.
        int at = row;
        while ((data[at] & 0xFF) != 0xFF) at++;
        int ldtAt = at + 9;
        int ldtLast = ldtAt + dev.flushline.io.VInt.sizeFromFirstByte(data[ldtAt]) - 1;
        data[ldtLast] ^= 1;
        rewriteData(fc, data);
        Compactor.Result onC = compact(complex, dirC, tmp.resolve("craftc-on"), now, now - 864_000, true);
        assertSameFiles(tmp.resolve("craftc-orig-out"), tmp.resolve("craftc-on"), "a LIVE complex deletion with another time");
        assertEquals(2, onC.rowsCopied);
        assertEquals(1, onC.rowsCopiedVerbatim, "the row whose LIVE deletion held another time is transcoded");
    }

    /**
     * A cell that holds an empty text value after a zero length, with USE_ROW_TIMESTAMP as its only
     * flag, where every writer flags HAS_EMPTY_VALUE and writes no length: the reader takes it as
     * the same empty value, and the cursor's plain path reads it as a plain cell, but its bytes are
     * not ours, so the row is merged, not copied, and the output is what the unpatched input gives.
     */
    @org.junit.jupiter.api.Test
    void anEmptyValueWithALengthInsteadOfItsFlagIsRebuilt() throws Exception {
        String cql = "CREATE TABLE ks.crafte (pk int, ck int, v text, PRIMARY KEY (pk, ck)) WITH compression = {'enabled': 'false'}";
        TableSchema schema = CqlParser.parse(cql);
        long ts = 1_700_000_000_000_000L;
        dev.flushline.data.Row r1 = oneCellRow(1, ts, new byte[] {'x'});
        dev.flushline.data.Row r2 = oneCellRow(2, ts + 5, new byte[0]);
        Path original = flushedAndCopiedVerbatim("crafte", schema, List.of(r1, r2));

        // The last row: 24 00 <ck:4> <row_size> <prev_size> <ts delta 05> 0c (USE_ROW_TIMESTAMP | HAS_EMPTY_VALUE)
        Patchable p = patchable(original, tmp.resolve("crafte-patched"), schema);
        byte[] data = p.data();
        int row = p.lastRow();
        assertEquals(0x24, data[row] & 0xFF);
        assertEquals(5, data[row + 8], "the last row's timestamp delta");
        assertEquals(0x0C, data[row + 9], "USE_ROW_TIMESTAMP | HAS_EMPTY_VALUE");
        byte[] patched = splice(data, row + 9, 1, new byte[] {0x08, 0x00}); // USE_ROW_TIMESTAMP, then a zero length
        patched[row + 6]++; // row_size: one byte more
        Compactor.Result on = compactsAsTheOriginal("crafte", schema, p, patched, "an empty value after a zero length");
        assertEquals(1, on.rowsCopied, "the row whose flags are not ours is merged");
    }

    /**
     * A static row whose extended flags carry a bit besides IS_STATIC that no writer sets (the
     * reader, like Cassandra's, ignores it): the row's fields are this serializer's, so they are
     * taken as they are, but its first two bytes are not, so the row is not copied whole, and the
     * output is what the unpatched input gives.
     */
    @org.junit.jupiter.api.Test
    void aStaticRowWithAnExtendedFlagWeDoNotWriteIsNotCopiedWhole() throws Exception {
        String cql = "CREATE TABLE ks.crafts (pk int, ck int, s int static, v int, PRIMARY KEY (pk, ck)) WITH compression = {'enabled': 'false'}";
        TableSchema schema = CqlParser.parse(cql);
        long ts = 1_700_000_000_000_000L;
        dev.flushline.data.Row st = new dev.flushline.data.Row(true, null, ts, 0, dev.flushline.data.Cell.NO_DELETION_TIME,
                dev.flushline.data.DeletionTime.LIVE, new dev.flushline.data.Cell[] {dev.flushline.data.Cell.live(ts, int32(7), null)},
                new dev.flushline.data.ComplexColumn[0]);
        Path original = flushedAndCopiedVerbatim("crafts", schema, st, List.of(oneCellRow(1, ts, int32(11))));

        Patchable p = patchable(original, tmp.resolve("crafts-patched"), schema);
        byte[] data = p.data();
        int at;
        try (dev.flushline.sstable.SSTableCursor c = dev.flushline.sstable.SSTableCursor.open(p.files(), schema)) {
            c.advance(); // the partition
            assertEquals(dev.flushline.sstable.SSTableCursor.ROW, c.advance());
            assertTrue(c.row().isStatic());
            at = (int) c.row().offset();
        }
        assertEquals(dev.flushline.sstable.DataLayout.IS_STATIC, data[at + 1], "the static row's extended flags");
        data[at + 1] |= 0x40;
        Compactor.Result on = compactsAsTheOriginal("crafts", schema, p, data, "a static row with an unknown extended flag");
        assertEquals(2, on.rowsCopiedVerbatim, "its fields are still taken as they are");
    }

    /** A live row of clustering {@code ck} whose one simple cell holds {@code value}, both at {@code ts}. */
    private static dev.flushline.data.Row oneCellRow(int ck, long ts, byte[] value) {
        return new dev.flushline.data.Row(false, new byte[][] {int32(ck)}, ts, 0, dev.flushline.data.Cell.NO_DELETION_TIME,
                dev.flushline.data.DeletionTime.LIVE, new dev.flushline.data.Cell[] {dev.flushline.data.Cell.live(ts, value, null)},
                new dev.flushline.data.ComplexColumn[0]);
    }

    /**
     * Two rows flushed as one partition into {@code name}-orig and compacted into {@code name}-orig-out (at
     * BASE_NOW), where both are copied as their bytes: the output every patched copy must compact into.
     */
    private Path flushedAndCopiedVerbatim(String name, TableSchema schema, List<dev.flushline.data.Row> rows) throws Exception {
        return flushedAndCopiedVerbatim(name, schema, null, rows);
    }

    /** As above, the partition with a static row (or null): with it, one row and the static row. */
    private Path flushedAndCopiedVerbatim(String name, TableSchema schema, dev.flushline.data.Row staticRow,
                                          List<dev.flushline.data.Row> rows) throws Exception {
        Path original = onePartition(tmp.resolve(name + "-orig"), schema, staticRow, rows);
        Compactor.Result expected = compact(schema, original, tmp.resolve(name + "-orig-out"), BASE_NOW, BASE_NOW - 864_000, true);
        assertEquals(2, expected.rowsCopied);
        assertEquals(2, expected.rowsCopiedVerbatim, "our flush's bytes, the output's bases: taken as they are");
        return original;
    }

    /**
     * Writes {@code patched} as the copy's Data.db, checks that it reads, and compacts it into
     * {@code name}-on, which must hold exactly the files of {@code name}-orig-out.
     */
    private Compactor.Result compactsAsTheOriginal(String name, TableSchema schema, Patchable p, byte[] patched, String what) throws Exception {
        rewriteData(p.files(), patched);
        assertEquals(2, cursorRows(p.files(), schema), what + ": the patched sstable reads");
        Compactor.Result on = compact(schema, p.dir(), tmp.resolve(name + "-on"), BASE_NOW, BASE_NOW - 864_000, true);
        assertSameFiles(tmp.resolve(name + "-orig-out"), tmp.resolve(name + "-on"), what);
        return on;
    }

    /** A copy of a one-partition sstable to patch: its directory, files, Data.db bytes and the stream offset of its last row. */
    record Patchable(Path dir, SSTableFiles files, byte[] data, int lastRow) {}

    static Patchable patchable(Path original, Path copy, TableSchema schema) throws IOException {
        Path dir = copyOf(original, copy);
        SSTableFiles f = SSTableFiles.inDirectory(dir).get(0);
        return new Patchable(dir, f, Files.readAllBytes(f.path(dev.flushline.sstable.Component.DATA)), (int) lastRowOffset(f, schema));
    }

    /** One partition of {@code rows}, flushed uncompressed into {@code dir}. */
    static Path onePartition(Path dir, TableSchema schema, List<dev.flushline.data.Row> rows) throws IOException {
        return onePartition(dir, schema, null, rows);
    }

    /** As {@link #onePartition(Path, TableSchema, List)}, with a static row (or null). */
    static Path onePartition(Path dir, TableSchema schema, dev.flushline.data.Row staticRow, List<dev.flushline.data.Row> rows) throws IOException {
        Files.createDirectories(dir);
        Memtable m = new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP);
        m.apply(new PartitionUpdate(dev.flushline.data.PartitionKey.of(int32(1)), dev.flushline.data.DeletionTime.LIVE, List.of(), staticRow, rows));
        m.seal();
        try {
            new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), TableDirectory.open(dir), true, null, 0);
        } finally {
            m.discard();
        }
        return dir;
    }

    static Path copyOf(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        for (String name : fileNames(from)) Files.copy(from.resolve(name), to.resolve(name));
        return to;
    }

    /** Stream offset of the first partition's last row. */
    static long lastRowOffset(SSTableFiles f, TableSchema schema) throws IOException {
        try (dev.flushline.sstable.SSTableCursor c = dev.flushline.sstable.SSTableCursor.open(f, schema)) {
            long last = -1;
            int s;
            while ((s = c.advance()) != dev.flushline.sstable.SSTableCursor.PARTITION_END) {
                if (s == dev.flushline.sstable.SSTableCursor.ROW) last = c.row().offset();
            }
            return last;
        }
    }

    static byte[] splice(byte[] data, int at, int remove, byte[] insert) {
        byte[] out = new byte[data.length - remove + insert.length];
        System.arraycopy(data, 0, out, 0, at);
        System.arraycopy(insert, 0, out, at, insert.length);
        System.arraycopy(data, at + remove, out, at + insert.length, data.length - at - remove);
        return out;
    }

    /** Replaces Data.db and the CRC.db and Digest.crc32 that check it (one partition: Index.db still points at 0). */
    static void rewriteData(SSTableFiles f, byte[] data) throws IOException {
        Files.write(f.path(dev.flushline.sstable.Component.DATA), data);
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(data, 0, data.length);
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(8).putInt(dev.flushline.io.DataFileLayout.CRC_CHUNK_BYTES).putInt((int) crc.getValue());
        assertTrue(data.length < dev.flushline.io.DataFileLayout.CRC_CHUNK_BYTES);
        Files.write(f.path(dev.flushline.sstable.Component.CRC), b.array());
        Files.writeString(f.path(dev.flushline.sstable.Component.DIGEST), Long.toString(crc.getValue()));
    }

    /** The rows our cursor reads from {@code f}. */
    static int cursorRows(SSTableFiles f, TableSchema schema) throws IOException {
        int n = 0;
        try (dev.flushline.sstable.SSTableCursor c = dev.flushline.sstable.SSTableCursor.open(f, schema)) {
            int s;
            while ((s = c.advance()) != dev.flushline.sstable.SSTableCursor.END) {
                if (s == dev.flushline.sstable.SSTableCursor.ROW) n++;
            }
        }
        return n;
    }

    static Compactor.Result compact(TableSchema schema, Path inputs, Path out, long now, long gcBefore, boolean copyThrough)
            throws IOException {
        Compactor.Options o = Compactor.Options.builder(now, gcBefore).copyThrough(copyThrough).build();
        return new Compactor(schema, SSTableFiles.inDirectory(inputs), o).run(TableDirectory.open(out));
    }

    /** Both directories hold the same files, byte for byte. */
    static void assertSameFiles(Path expectedDir, Path actualDir, String what) throws IOException {
        List<String> expected = fileNames(expectedDir), actual = fileNames(actualDir);
        assertEquals(expected, actual, what + ": files");
        for (String name : expected) {
            assertArrayEquals(Files.readAllBytes(expectedDir.resolve(name)), Files.readAllBytes(actualDir.resolve(name)),
                    what + ": " + name + " bytes");
        }
    }

    static List<String> fileNames(Path dir) throws IOException {
        List<String> names = new ArrayList<>();
        if (!Files.isDirectory(dir)) return names;
        try (Stream<Path> s = Files.list(dir)) {
            s.filter(Files::isRegularFile).forEach(p -> names.add(p.getFileName().toString()));
        }
        names.sort(null);
        return names;
    }

    /**
     * Three flushes at three clocks. Disjoint: each flush draws from its own key pool; overlapping:
     * one pool of few keys; mixed: the first two share a pool, the third has its own. For even
     * seeds the third is a handful of writes, so its header has fewer columns than the output's.
     */
    static void writeInputs(long seed, String shape, String cql, TableSchema schema, Path dir, boolean byCassandra) throws Exception {
        TableDirectory table = TableDirectory.open(dir);
        Path scratch = Files.createTempDirectory(dir.getParent(), "flush-");
        RandomUpdates shared = new RandomUpdates(schema, seed, BASE_NOW, shape.equals("overlapping") ? 12 : 60, 10);
        for (int i = 0; i < 3; i++) {
            RandomUpdates gen;
            if (shape.equals("overlapping") || (shape.equals("mixed") && i < 2)) {
                gen = shared;
            } else {
                gen = new RandomUpdates(schema, seed * 1_000 + i, BASE_NOW, 60, 10);
            }
            gen.setNowSeconds(BASE_NOW + i * FLUSH_INTERVAL);
            Memtable m = new SkipListMemtable(schema, AllocationMode.values()[(int) ((seed + i) % AllocationMode.values().length)]);
            // For even seeds the last flush is a handful of writes: its header has only the columns they touch.
            for (PartitionUpdate u : gen.next(i == 2 && seed % 2 == 0 ? 6 : 150)) m.apply(u);
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
        assertTrue(SSTableFiles.inDirectory(dir).size() >= 2, "inputs in " + dir);
    }
}

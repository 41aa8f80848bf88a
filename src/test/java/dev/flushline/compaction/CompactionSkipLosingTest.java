package dev.flushline.compaction;

import dev.flushline.data.PartitionUpdate;
import dev.flushline.flush.FlushWriter;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.oracle.Bytes;
import dev.flushline.oracle.CassandraCompactor;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
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
import dev.flushline.sstable.Component;
import dev.flushline.sstable.EncodingStats;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.SSTableVerifier;
import dev.flushline.sstable.StatisticsReader;
import dev.flushline.sstable.TableDirectory;
import dev.flushline.testing.Compressions;
import dev.flushline.testing.RandomSchemas;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;

import static dev.flushline.compaction.CompactionCopyThroughTest.assertSameFiles;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Stepping over losing row versions ({@link Compactor.Options#skipLosingVersions}) changes no byte
 * of a compaction's output and no count it reports: the same inputs compacted with it and without
 * it give the same files, every component byte for byte, and the same cells read, written, merged
 * away and purged; with it, Data.db and Statistics.db are still Cassandra's compaction's.
 *
 * <p>Hand-made inputs pin each rule of {@link RowMerger#losesEverything}, one partition each, with
 * the exact number of versions skipped: the cases a looser rule (timestamps alone, or the inputs'
 * order) gets wrong are there, and so would change the output. Random inputs cover the rest:
 * random schemas (collections, statics, UDTs) and two fixed ones, every codec, our writer and
 * Cassandra's, timestamps of consecutive inputs apart, touching (the next input starts at or next to
 * the last one's largest timestamp) or interleaved, at clocks with nothing, some and everything
 * purgeable, and a minor compaction.
 */
class CompactionSkipLosingTest {
    static final long BASE_NOW = CompactionCompatibilityTest.BASE_NOW;
    static final long FLUSH_INTERVAL = CompactionCompatibilityTest.FLUSH_INTERVAL;
    static final String EDGE = CompactionEdgeCaseTest.CQL;
    static final long N = CompactionEdgeCaseTest.N;

    @TempDir
    Path tmp;

    // ---- hand-made: one rule per partition ------------------------------------------------------

    private static List<Bytes> ck(int c) {
        return List.of(Bytes.int32(c));
    }

    private static Partition part(int pk, Unfiltered... items) {
        return new Partition(Bytes.int32(pk), Deletion.LIVE, Row.EMPTY_STATIC, List.of(items));
    }

    private static Partition part(int pk, Deletion d, Row staticRow, Unfiltered... items) {
        return new Partition(Bytes.int32(pk), d, staticRow, List.of(items));
    }

    private static Row row(int c, Liveness l, dev.flushline.oracle.ColumnData... columns) {
        return Row.of(ck(c), l, columns);
    }

    private static Row deleted(int c, Deletion d, Cell... cells) {
        return new Row(ck(c), Liveness.EMPTY, d, List.of(cells));
    }

    private static Cell v(long ts, String text) {
        return Cell.live("v", ts, Bytes.utf8(text));
    }

    private static Cell w(long ts, int x) {
        return Cell.live("w", ts, Bytes.int32(x));
    }

    private static ComplexColumn tags(long ts, int... elements) {
        Cell[] cells = new Cell[elements.length];
        for (int i = 0; i < elements.length; i++) cells[i] = Cell.live("tags", ts, Bytes.EMPTY).withPath(Bytes.int32(elements[i]));
        return ComplexColumn.of("tags", Deletion.LIVE, cells);
    }

    /** A partition of its own using every column at {@code ts}: every input's header holds them all, and its timestamp bounds are pinned. */
    private static Partition everyColumn(int pk, long ts) {
        return part(pk, Deletion.LIVE, Row.staticRow(Cell.live("s", ts, Bytes.int32(pk))),
                Row.of(ck(1), Liveness.of(ts), v(ts, "x" + pk), w(ts, pk), tags(ts, pk)));
    }

    /**
     * Three inputs by Cassandra's writer: A's timestamps in [100, 150], B's in [200, 250], C's in
     * [250, 300] (B's largest is C's smallest). The versions skipped are exactly those the rules
     * allow, at a clock with nothing purgeable and at one where some tombstones are past gc grace
     * (purging acts on the winners only, so it changes no skip), and the outputs are the same files
     * as without skipping, and Cassandra's compaction's.
     */
    @Test
    void skipsExactlyTheVersionsThatLoseEverything() throws Exception {
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse(EDGE);
        List<Partition> a = new ArrayList<>(), b = new ArrayList<>(), c = new ArrayList<>();
        int skips = 0;
        // 1. Newer version with every column, liveness: the older is skipped.
        a.add(part(1, row(1, Liveness.of(100), v(100, "old"), w(100, 1))));
        b.add(part(1, row(1, Liveness.of(200), v(200, "new"), w(200, 2))));
        skips++;
        // 2. A column only the older holds (w): it would win; not skipped (timestamps alone would).
        a.add(part(2, row(1, Liveness.of(100), v(100, "old"), w(100, 1))));
        b.add(part(2, row(1, Liveness.of(200), v(200, "new"))));
        // 3. Liveness only in the older (the newer is an update): it is the row's; not skipped.
        a.add(part(3, row(1, Liveness.of(100), v(100, "old"))));
        b.add(part(3, row(1, Liveness.EMPTY, v(200, "new"))));
        // 4. A row deletion only in the older: it is the merged row's; not skipped.
        a.add(part(4, deleted(1, Deletion.of(120, N), v(130, "old"))));
        b.add(part(4, row(1, Liveness.of(200), v(200, "new"), w(200, 4))));
        // 5. Both deleted, the newer later: skipped.
        a.add(part(5, deleted(1, Deletion.of(110, N), w(130, 5))));
        b.add(part(5, deleted(1, Deletion.of(210, N), v(220, "new"), w(220, 5))));
        skips++;
        // 6. A collection in the older: its elements merge by path (2 survives); not skipped.
        a.add(part(6, row(1, Liveness.of(100), tags(100, 2))));
        b.add(part(6, row(1, Liveness.of(200), tags(200, 3))));
        // 7. A collection only in the newer: skipped.
        a.add(part(7, row(1, Liveness.of(100), v(100, "old"))));
        b.add(part(7, row(1, Liveness.of(200), v(200, "new"), tags(200, 7))));
        skips++;
        // 8. Equal timestamps at the B/C boundary: the bigger value wins, here the older input's; not skipped.
        b.add(part(8, row(1, Liveness.EMPTY, v(250, "zzz"))));
        c.add(part(8, row(1, Liveness.EMPTY, v(250, "aaa"))));
        // 9. Equal timestamps: the tombstone wins over the newer input's live cell; not skipped.
        b.add(part(9, row(1, Liveness.EMPTY, Cell.tombstone("w", 250, N))));
        c.add(part(9, row(1, Liveness.EMPTY, w(250, 9))));
        // 22. Equal timestamps with liveness too: not skipped.
        b.add(part(22, row(1, Liveness.of(250), v(250, "zzz"))));
        c.add(part(22, row(1, Liveness.of(250), v(250, "aaa"))));
        // 10. The newer cell expired (a tombstone or purged): the older still loses; skipped.
        a.add(part(10, row(1, Liveness.of(100), v(100, "old"))));
        b.add(part(10, row(1, Liveness.of(200), Cell.expiring("v", 200, 10, N - 500, Bytes.utf8("new")))));
        skips++;
        // 11. The newer holds a tombstone past gc grace at the second clock: purged after it won; skipped.
        a.add(part(11, row(1, Liveness.of(100), v(100, "old"))));
        b.add(part(11, row(1, Liveness.of(200), Cell.tombstone("v", 200, N - 1000))));
        skips++;
        // 12. A partition deletion in the newer covers both versions: skipped, the deletion written.
        a.add(part(12, row(1, Liveness.of(100), v(100, "old"))));
        b.add(part(12, Deletion.of(205, N), Row.EMPTY_STATIC, row(1, Liveness.of(210), v(210, "new"))));
        skips++;
        // 13. A partition deletion and a range deletion in the older: they stay; its row is skipped.
        a.add(part(13, Deletion.of(105, N), Row.EMPTY_STATIC,
                Marker.bound("INCL_START_BOUND", Deletion.of(140, N), Bytes.int32(2)),
                row(2, Liveness.of(141), v(141, "old")),
                Marker.bound("INCL_END_BOUND", Deletion.of(140, N), Bytes.int32(2))));
        b.add(part(13, row(2, Liveness.of(200), v(200, "new"))));
        skips++;
        // 14. A range deletion in the newer covering the older version, not the newer: the older is skipped.
        a.add(part(14, row(3, Liveness.of(100), v(100, "old"))));
        b.add(part(14, Marker.bound("INCL_START_BOUND", Deletion.of(205, N), Bytes.int32(3)),
                row(3, Liveness.of(210), v(210, "new")),
                Marker.bound("INCL_END_BOUND", Deletion.of(205, N), Bytes.int32(3))));
        skips++;
        // 15. Static rows: the newer has the column, skipped; 16: the newer's static row is empty, not skipped.
        a.add(part(15, Deletion.LIVE, Row.staticRow(Cell.live("s", 100, Bytes.int32(1))), row(1, Liveness.of(100))));
        b.add(part(15, Deletion.LIVE, Row.staticRow(Cell.live("s", 200, Bytes.int32(2))), row(2, Liveness.of(200))));
        skips++;
        a.add(part(16, Deletion.LIVE, Row.staticRow(Cell.live("s", 100, Bytes.int32(1))), row(1, Liveness.of(100))));
        b.add(part(16, row(2, Liveness.of(200))));
        // 17. Three versions: A loses to B and to C; B ties C at 250 (B's largest, C's smallest), so B is kept.
        a.add(part(17, row(1, Liveness.of(100), v(100, "a"), w(100, 1))));
        b.add(part(17, row(1, Liveness.of(220), v(220, "b"), w(220, 2))));
        c.add(part(17, row(1, Liveness.of(260), v(260, "c"), w(260, 3))));
        skips++;
        // 18. The older's columns are a subset of the newer's: skipped; 19: liveness alone in the older, skipped.
        a.add(part(18, row(1, Liveness.EMPTY, v(100, "old"))));
        b.add(part(18, row(1, Liveness.EMPTY, v(200, "new"), w(200, 18))));
        skips++;
        a.add(part(19, row(1, Liveness.of(100))));
        b.add(part(19, row(1, Liveness.of(200), v(200, "new"))));
        skips++;
        // 20. The newer is a deletion with no column: the older's cell is shadowed, but it has a column the newer lacks; not skipped.
        a.add(part(20, row(1, Liveness.EMPTY, v(100, "old"))));
        b.add(part(20, deleted(1, Deletion.of(200, N))));
        // 21. A row deletion in the older, none in the newer, though the newer's cells are later: not skipped.
        a.add(part(21, deleted(1, Deletion.of(150, N))));
        b.add(part(21, row(1, Liveness.of(200), v(200, "new"))));
        // 23. The newer has a row deletion of its own: the older is skipped, and the newer is left to
        // the merge, which applies that deletion to the row's cells (a writer that reconciles, as
        // Cassandra's does, leaves nothing for it to shadow, as here; another might not).
        a.add(part(23, row(1, Liveness.EMPTY, v(100, "old"))));
        b.add(part(23, deleted(1, Deletion.of(205, N), v(210, "new"), w(220, 23))));
        skips++;
        // 24. A row only the oldest holds, under a partition deletion the newest holds that is newer
        // than anything in the oldest: skipped with no other version of it, merged to nothing.
        a.add(part(24, row(1, Liveness.of(100), v(100, "gone"), w(100, 24)), row(2, Liveness.of(110), v(110, "gone too"))));
        c.add(part(24, Deletion.of(260, N), Row.EMPTY_STATIC));
        skips += 2;
        a.add(everyColumn(100, 150));
        b.add(everyColumn(101, 250));
        c.add(everyColumn(102, 300));
        c.add(part(103, row(1, Liveness.of(250), v(250, "c"))));
        // Every input's header has the static column, so each holds a static row in each partition,
        // empty if it wrote none: an empty one loses to any version of an input with later timestamps.
        for (Partition p : a) {
            boolean shared = false;
            for (Partition q : b) shared |= q.key().equals(p.key());
            for (Partition q : c) shared |= q.key().equals(p.key());
            if (shared && p.staticRow().isEmpty()) skips++;
        }

        Path in = Files.createDirectories(tmp.resolve("edge-in"));
        for (List<Partition> s : List.of(a, b, c)) {
            CassandraReferenceWriter.write(in, EDGE, s, EncodingStats.TIMESTAMP_EPOCH, EncodingStats.DELETION_TIME_EPOCH, 0, s.size(), false);
        }
        List<SSTableFiles> files = SSTableFiles.inDirectory(in);
        long[][] bounds = {{100, 150}, {200, 250}, {250, 300}};
        for (int i = 0; i < 3; i++) {
            StatisticsReader.Metadata m = StatisticsReader.read(files.get(i), schema, false);
            assertEquals(bounds[i][0], m.minTimestamp, "input " + i + " smallest timestamp");
            assertEquals(bounds[i][1], m.maxTimestamp, "input " + i + " largest timestamp");
        }
        long[] gcBefores = {N - 864_000, N - 100};
        // The one version left of a row, copied: 1, 7 (a collection, no deletion of it), 18 and 19,
        // and 11 while its tombstone is within gc grace; not 5 (a row deletion of its own, which the
        // merge applies to it, and 23), 10 (expired), 12, 13 and 14 (a covering deletion), 17 (two left).
        long[] survivors = {5, 4};
        for (int k = 0; k < gcBefores.length; k++) {
            long gcBefore = gcBefores[k];
            String what = "gcBefore " + gcBefore;
            Compactor.Result on = compact(schema, in, tmp.resolve("edge-on-" + k), Compactor.Options.builder(N, gcBefore), true);
            Compactor.Result off = compact(schema, in, tmp.resolve("edge-off-" + k), Compactor.Options.builder(N, gcBefore), false);
            assertSameFiles(tmp.resolve("edge-off-" + k), tmp.resolve("edge-on-" + k), what);
            assertSameCounts(off, on, what);
            assertEquals(skips, on.rowVersionsSkipped, what + ": row versions skipped");
            assertEquals(survivors[k], on.survivorsCopied, what + ": rows copied once their other versions were skipped");
            assertEquals(0, off.rowVersionsSkipped, what);
            if (k == 1) assertTrue(on.cellsPurged > 0, what + ": something was purged");
            List<Path> data = new ArrayList<>();
            for (SSTableFiles f : files) data.add(f.path(Component.DATA));
            Path ref = CassandraCompactor.compact(data, EDGE, tmp.resolve("edge-ref-" + k), N, gcBefore);
            assertEquals(CassandraReader.readAll(ref, EDGE), CassandraReader.readAll(tmp.resolve("edge-on-" + k), EDGE), what);
            assertEquals(1, on.published.size(), what);
            assertArrayEquals(Files.readAllBytes(ref), Files.readAllBytes(on.published.get(0)), what + ": Data.db bytes, Cassandra's");
            assertArrayEquals(Files.readAllBytes(CompactionCompatibilityTest.sibling(ref, "Statistics.db")),
                    Files.readAllBytes(CompactionCompatibilityTest.sibling(on.published.get(0), "Statistics.db")),
                    what + ": Statistics.db bytes, Cassandra's");
        }
    }

    /**
     * Equal clusterings need not be equal bytes (decimal 1.0 and 1.00 compare equal): the merged row
     * takes the first version's bytes whether or not that version is the one skipped.
     */
    @Test
    void theMergedRowKeepsTheFirstVersionsClusteringBytes() throws Exception {
        String cql = "CREATE TABLE ks.dec (pk int, ck decimal, v int, PRIMARY KEY (pk, ck)) WITH compression = {'enabled': 'false'}";
        TableSchema schema = CqlParser.parse(cql);
        Bytes oneTenths = Bytes.hex("000000010a"), oneHundredths = Bytes.hex("0000000264"); // 1.0 and 1.00
        Path in = Files.createDirectories(tmp.resolve("dec-in"));
        CassandraOracle.init();
        CassandraReferenceWriter.write(in, cql, List.of(new Partition(Bytes.int32(1), Deletion.LIVE, Row.EMPTY_STATIC,
                List.of(Row.of(List.of(oneTenths), Liveness.of(100), Cell.live("v", 100, Bytes.int32(1)))))),
                EncodingStats.TIMESTAMP_EPOCH, EncodingStats.DELETION_TIME_EPOCH, 0, 1, false);
        CassandraReferenceWriter.write(in, cql, List.of(new Partition(Bytes.int32(1), Deletion.LIVE, Row.EMPTY_STATIC,
                List.of(Row.of(List.of(oneHundredths), Liveness.of(200), Cell.live("v", 200, Bytes.int32(2)))))),
                EncodingStats.TIMESTAMP_EPOCH, EncodingStats.DELETION_TIME_EPOCH, 0, 1, false);
        Compactor.Result on = compact(schema, in, tmp.resolve("dec-on"), Compactor.Options.builder(N, N - 864_000), true);
        Compactor.Result off = compact(schema, in, tmp.resolve("dec-off"), Compactor.Options.builder(N, N - 864_000), false);
        assertEquals(1, on.rowVersionsSkipped, "the older version is skipped");
        assertEquals(1, on.outputRows, "one row: the clusterings are equal");
        assertEquals(0, on.survivorsCopied, "the newer version is merged: its clustering bytes are not the first version's");
        assertSameFiles(tmp.resolve("dec-off"), tmp.resolve("dec-on"), "decimal clustering");
        assertSameCounts(off, on, "decimal clustering");
        List<Partition> out = CassandraReader.readAll(tmp.resolve("dec-on"), cql);
        Row merged = (Row) out.get(0).unfiltereds().get(0);
        assertEquals(oneTenths, merged.clustering().get(0), "the first version's clustering bytes");
    }

    /**
     * A partition deletion newer than everything in the first sstable covers its whole partition:
     * where the deleting sstable holds no row there, the first one's rows are stepped over before
     * the row merge; where it holds a row at an equal clustering (decimal 1.00 against 1.0), they are
     * not, since the merged row takes the first version's clustering bytes, the covered one's.
     */
    @Test
    void aWhollyCoveredPartitionIsSteppedOverOnlyWhereTheOthersHoldNoRow() throws Exception {
        String cql = "CREATE TABLE ks.deccov (pk int, ck decimal, v int, PRIMARY KEY (pk, ck)) WITH compression = {'enabled': 'false'}";
        TableSchema schema = CqlParser.parse(cql);
        Bytes oneTenths = Bytes.hex("000000010a"), oneHundredths = Bytes.hex("0000000264"), two = Bytes.hex("0000000002");
        Path in = Files.createDirectories(tmp.resolve("deccov-in"));
        CassandraOracle.init();
        List<Partition> older = new ArrayList<>(), newer = new ArrayList<>();
        for (int pk = 1; pk <= 2; pk++) {
            older.add(new Partition(Bytes.int32(pk), Deletion.LIVE, Row.EMPTY_STATIC, List.of(
                    Row.of(List.of(oneTenths), Liveness.of(100), Cell.live("v", 100, Bytes.int32(1))),
                    Row.of(List.of(two), Liveness.of(100), Cell.live("v", 100, Bytes.int32(3))))));
        }
        // pk 1: the deletion and a newer row at the equal clustering; pk 2: the deletion alone.
        newer.add(new Partition(Bytes.int32(1), Deletion.of(150, N), Row.EMPTY_STATIC,
                List.of(Row.of(List.of(oneHundredths), Liveness.of(200), Cell.live("v", 200, Bytes.int32(2))))));
        newer.add(new Partition(Bytes.int32(2), Deletion.of(150, N), Row.EMPTY_STATIC, List.of()));
        CassandraReferenceWriter.write(in, cql, older, EncodingStats.TIMESTAMP_EPOCH, EncodingStats.DELETION_TIME_EPOCH, 0, 1, false);
        CassandraReferenceWriter.write(in, cql, newer, EncodingStats.TIMESTAMP_EPOCH, EncodingStats.DELETION_TIME_EPOCH, 0, 1, false);
        Compactor.Result on = compact(schema, in, tmp.resolve("deccov-on"), Compactor.Options.builder(N, N - 864_000), true);
        Compactor.Result off = compact(schema, in, tmp.resolve("deccov-off"), Compactor.Options.builder(N, N - 864_000), false);
        assertEquals(4, on.rowVersionsSkipped, "every row of the first sstable lies under the deletion");
        assertEquals(1, on.outputRows, "the newer row alone is left");
        assertSameFiles(tmp.resolve("deccov-off"), tmp.resolve("deccov-on"), "covered decimal clustering");
        assertSameCounts(off, on, "covered decimal clustering");
        List<Partition> out = CassandraReader.readAll(tmp.resolve("deccov-on"), cql);
        Partition p1 = out.get(0).key().equals(Bytes.int32(1)) ? out.get(0) : out.get(1);
        Row merged = (Row) p1.unfiltereds().get(0);
        assertEquals(oneTenths, merged.clustering().get(0), "the first version's clustering bytes, though it lies under the deletion");
    }

    /**
     * A newer version with every column of its sstable's header beats an older one only if that
     * header holds every column the older one's can: here the newer sstable never wrote w, so the
     * older version keeps its w and is merged, not stepped over.
     */
    @Test
    void allOfAHeadersColumnsAreNotAllOfTheTables() throws Exception {
        Path in = Files.createDirectories(tmp.resolve("narrow-in"));
        CassandraOracle.init();
        CassandraReferenceWriter.write(in, EDGE, List.of(part(1, row(1, Liveness.of(100), v(100, "old"), w(100, 7)))),
                EncodingStats.TIMESTAMP_EPOCH, EncodingStats.DELETION_TIME_EPOCH, 0, 1, false);
        CassandraReferenceWriter.write(in, EDGE, List.of(part(1, row(1, Liveness.of(200), v(200, "new")))),
                EncodingStats.TIMESTAMP_EPOCH, EncodingStats.DELETION_TIME_EPOCH, 0, 1, false);
        TableSchema schema = CqlParser.parse(EDGE);
        Compactor.Result on = compact(schema, in, tmp.resolve("narrow-on"), Compactor.Options.builder(N, N - 864_000), true);
        Compactor.Result off = compact(schema, in, tmp.resolve("narrow-off"), Compactor.Options.builder(N, N - 864_000), false);
        assertEquals(0, on.rowVersionsSkipped, "the older version holds a column the newer sstable lacks");
        assertSameFiles(tmp.resolve("narrow-off"), tmp.resolve("narrow-on"), "narrower header");
        assertSameCounts(off, on, "narrower header");
        Row merged = (Row) CassandraReader.readAll(tmp.resolve("narrow-on"), EDGE).get(0).unfiltereds().get(0);
        assertEquals(List.of(v(200, "new"), w(100, 7)), merged.columns(), "the older version's w is kept");
    }

    // ---- random inputs --------------------------------------------------------------------------

    static final String PLAIN = "CREATE TABLE ks.plain (pk int, ck int, s int static, a text, b int, c blob, PRIMARY KEY (pk, ck))";
    static final String WITH_SET = "CREATE TABLE ks.withset (pk int, ck int, s int static, a text, b int, t set<int>, "
            + "PRIMARY KEY (pk, ck)) WITH CLUSTERING ORDER BY (ck DESC)";
    static final String[] MODES = {"apart", "touching", "interleaved"};

    static LongStream seeds() {
        return LongStream.rangeClosed(1, 27);
    }

    /**
     * Random operations over few keys and clusterings (so most rows have a version in several
     * inputs), four flushes; the timestamps of consecutive flushes apart (the skip's case), touching
     * (no write out of order, and the next flush starting 1 to 3 above, or just below, the last
     * one's largest timestamp: equal bounds now and then) or interleaved (writes out of order across
     * flushes). Compacted at three clocks, major (against Cassandra's compaction) and minor.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void skippingWritesWhatTheFullMergeWrites(long seed) throws Exception {
        CassandraOracle.init();
        String base = seed % 3 == 0 ? PLAIN : seed % 3 == 1 ? WITH_SET : RandomSchemas.randomTable(seed);
        String compression = Compressions.ALL[(int) (seed % Compressions.ALL.length)];
        String cql = Compressions.with(base, compression);
        TableSchema schema = CqlParser.parse(cql);
        String mode = MODES[(int) ((seed / 3) % MODES.length)];
        boolean byCassandra = seed % 2 == 0;
        Path inputs = Files.createDirectories(tmp.resolve("in"));
        writeInputs(seed, mode, cql, schema, inputs, byCassandra);
        List<SSTableFiles> in = SSTableFiles.inDirectory(inputs);

        long[][] clocks = {
                {BASE_NOW, 864_000},
                {BASE_NOW + 2 * FLUSH_INTERVAL + 20_000, 40_000},
                {BASE_NOW + 10_000_000, 0},
        };
        long skipped = 0;
        for (int c = 0; c < clocks.length; c++) {
            long now = clocks[c][0], gcBefore = now - clocks[c][1];
            String what = "seed " + seed + " (" + mode + (byCassandra ? ", Cassandra's writer" : "") + ", " + compression + ") clock " + c;
            Compactor.Result on = compact(schema, inputs, tmp.resolve("on-" + c), Compactor.Options.builder(now, gcBefore), true);
            Compactor.Result off = compact(schema, inputs, tmp.resolve("off-" + c), Compactor.Options.builder(now, gcBefore), false);
            System.out.println(what + ": rows in " + on.inputRows + ", out " + on.outputRows + ", skipped " + on.rowVersionsSkipped
                    + ", cells read " + on.cellsRead + " merged away " + on.cellsMergedAway + " purged " + on.cellsPurged);
            assertSameFiles(tmp.resolve("off-" + c), tmp.resolve("on-" + c), what);
            assertSameCounts(off, on, what);
            assertEquals(0, off.rowVersionsSkipped, what);
            if (c > 0) assertEquals(skipped, on.rowVersionsSkipped, what + ": the clock changes no skip");
            skipped = on.rowVersionsSkipped;

            List<Path> data = new ArrayList<>();
            for (SSTableFiles f : in) data.add(f.path(Component.DATA));
            Path ref = CassandraCompactor.compact(data, cql, tmp.resolve("ref-" + c), now, gcBefore);
            if (ref == null) {
                assertTrue(on.published.isEmpty(), what + ": Cassandra's compaction left nothing");
                continue;
            }
            assertEquals(1, on.published.size(), what);
            for (String comp : new String[] {"Data.db", "Statistics.db"}) {
                assertArrayEquals(Files.readAllBytes(CompactionCompatibilityTest.sibling(ref, comp)),
                        Files.readAllBytes(CompactionCompatibilityTest.sibling(on.published.get(0), comp)), what + ": " + comp + " bytes, Cassandra's");
            }
            SSTableVerifier.verify(SSTableFiles.of(on.published.get(0)), schema, true);
        }
        // A minor compaction: tombstones at or above the max purgeable timestamp stay.
        long now = BASE_NOW + 10_000_000;
        long maxPurgeable = StatisticsReader.read(in.get(1), schema, false).minTimestamp + 1;
        String what = "seed " + seed + " minor";
        Compactor.Result on = compact(schema, inputs, tmp.resolve("minor-on"),
                Compactor.Options.builder(now, now).maxPurgeableTimestamp(maxPurgeable), true);
        Compactor.Result off = compact(schema, inputs, tmp.resolve("minor-off"),
                Compactor.Options.builder(now, now).maxPurgeableTimestamp(maxPurgeable), false);
        assertSameFiles(tmp.resolve("minor-off"), tmp.resolve("minor-on"), what);
        assertSameCounts(off, on, what);
        assertEquals(skipped, on.rowVersionsSkipped, what);
        if (mode.equals("apart") && seed % 3 != 2) { // the fixed schemas
            assertTrue(skipped > 0, "seed " + seed + ": with the inputs' timestamps apart, older versions are skipped");
        }
    }

    static void writeInputs(long seed, String mode, String cql, TableSchema schema, Path dir, boolean byCassandra) throws Exception {
        RandomUpdates gen = new RandomUpdates(schema, seed, BASE_NOW, 8, 4);
        gen.outOfOrderWrites = !mode.equals("touching");
        TableDirectory table = TableDirectory.open(dir);
        Path scratch = Files.createTempDirectory(dir.getParent(), "flush-");
        java.util.Random r = new java.util.Random(seed);
        for (int i = 0; i < 4; i++) {
            if (i > 0 && mode.equals("apart")) gen.setTimestamp(gen.timestamp() + 1000);
            if (i > 0 && mode.equals("touching")) gen.setTimestamp(gen.timestamp() - r.nextInt(3));
            if (i > 0 && mode.equals("interleaved")) gen.setTimestamp(gen.timestamp() - 20);
            gen.setNowSeconds(BASE_NOW + i * FLUSH_INTERVAL);
            Memtable m = new SkipListMemtable(schema, AllocationMode.values()[(int) ((seed + i) % AllocationMode.values().length)]);
            for (PartitionUpdate u : gen.next(60)) m.apply(u);
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
        assertEquals(4, SSTableFiles.inDirectory(dir).size());
    }

    static Compactor.Result compact(TableSchema schema, Path inputs, Path out, Compactor.Options.Builder options, boolean skip)
            throws IOException {
        Compactor.Options o = options.skipLosingVersions(skip).build();
        return new Compactor(schema, SSTableFiles.inDirectory(inputs), o).run(TableDirectory.open(out));
    }

    static void assertSameCounts(Compactor.Result expected, Compactor.Result actual, String what) {
        assertEquals(expected.inputRows, actual.inputRows, what + ": input rows");
        assertEquals(expected.inputPartitions, actual.inputPartitions, what + ": input partitions");
        assertEquals(expected.outputRows, actual.outputRows, what + ": output rows");
        assertEquals(expected.outputPartitions, actual.outputPartitions, what + ": output partitions");
        assertEquals(expected.cellsRead, actual.cellsRead, what + ": cells read");
        assertEquals(expected.cellsWritten, actual.cellsWritten, what + ": cells written");
        assertEquals(expected.cellsMergedAway, actual.cellsMergedAway, what + ": cells merged away");
        assertEquals(expected.cellsPurged, actual.cellsPurged, what + ": cells purged");
        // A row whose other versions were all stepped over is copied, which only skipping allows.
        assertEquals(0, expected.survivorsCopied, what + ": survivors copied without skipping");
        assertTrue(actual.survivorsCopied <= actual.rowVersionsSkipped, what + ": each survivor copied stepped over a version");
        assertEquals(expected.rowsCopied, actual.rowsCopied - actual.survivorsCopied, what + ": rows copied, survivors aside");
        assertEquals(expected.partitionsCopied, actual.partitionsCopied, what + ": partitions copied");
    }
}

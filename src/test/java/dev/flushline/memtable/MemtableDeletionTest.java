package dev.flushline.memtable;

import dev.flushline.table.TableOptions.MemtableKind;
import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.RangeTombstone;
import dev.flushline.data.Row;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.TableSchema;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hand-written shadowing scenarios in the memtable: partition, range, row and complex deletions
 * drop older data (timestamp at or below the deletion), keep newer data, and a write that arrives
 * after a deletion is kept or dropped by its timestamp, not its arrival.
 */
class MemtableDeletionTest {
    static final long NOW = 1_750_000_000L;
    static TableSchema schema;
    static PartitionKey key = PartitionKey.of(ByteBuffer.allocate(4).putInt(1).array());

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (MemtableKind kind : MemtableKind.values()) {
            for (AllocationMode mode : AllocationMode.values()) out.add(Arguments.of(kind, mode));
        }
        return out.stream();
    }

    static Memtable fresh(MemtableKind kind, AllocationMode mode) {
        CassandraOracle.init();
        schema = MemtableFixtures.schema(MemtableFixtures.WIDE);
        return MemtableFixtures.create(kind, schema, mode);
    }

    static int pos(String name) {
        ColumnMetadata[] cols = schema.regularColumns();
        for (int i = 0; i < cols.length; i++) if (cols[i].name().equals(name)) return i;
        throw new AssertionError(name);
    }

    static byte[][] ck(String c, int c2) {
        return new byte[][] {c.getBytes(StandardCharsets.UTF_8), ByteBuffer.allocate(4).putInt(c2).array()};
    }

    /** An INSERT-like row: liveness at ts and v1 = value at ts. */
    static Row insert(byte[][] ck, long ts, int value) {
        Cell[] cells = new Cell[schema.regularComplexStart()];
        cells[pos("v1")] = Cell.live(ts, ByteBuffer.allocate(4).putInt(value).array(), null);
        return new Row(false, ck, ts, 0, Cell.NO_DELETION_TIME, DeletionTime.LIVE, cells, noComplex());
    }

    static ComplexColumn[] noComplex() {
        return new ComplexColumn[schema.regularColumns().length - schema.regularComplexStart()];
    }

    static Row staticRow(long ts) {
        Cell[] cells = new Cell[schema.staticComplexStart()];
        cells[0] = Cell.live(ts, "s".getBytes(StandardCharsets.UTF_8), null);
        return new Row(true, null, Cell.NO_TIMESTAMP, 0, Cell.NO_DELETION_TIME, DeletionTime.LIVE, cells,
                new ComplexColumn[schema.staticColumns().length - schema.staticComplexStart()]);
    }

    static PartitionUpdate rows(Row... rows) {
        return new PartitionUpdate(key, DeletionTime.LIVE, List.of(), null, List.of(rows));
    }

    static Row row(Memtable m, byte[][] ck) {
        MemtablePartition p = m.get(key);
        RowList.Node n = p.rows().find(ck, m.comparator());
        return n == null ? null : n.row();
    }

    @ParameterizedTest(name = "[{index}] kind={0} {1}")
    @MethodSource("cases")
    void partitionDeletionShadowsOlderDataAndKeepsNewer(MemtableKind kind, AllocationMode mode) {
        Memtable m = fresh(kind, mode);
        m.apply(new PartitionUpdate(key, DeletionTime.LIVE, List.of(), staticRow(9),
                List.of(insert(ck("a", 1), 5, 1), insert(ck("b", 1), 10, 2), insert(ck("c", 1), 11, 3))));
        m.apply(new PartitionUpdate(key, DeletionTime.of(10, NOW), List.of(), null, List.of()));
        MemtablePartition p = m.get(key);
        assertEquals(DeletionTime.of(10, NOW), p.partitionDeletion());
        assertNull(p.staticRow(), "static cell at ts 9 is shadowed");
        assertNull(row(m, ck("a", 1)), "ts 5 <= 10");
        assertNull(row(m, ck("b", 1)), "ts 10 <= 10: a deletion wins a timestamp tie");
        assertNotNull(row(m, ck("c", 1)));
        // Writes arriving after the deletion: kept or dropped by their timestamp.
        m.apply(rows(insert(ck("d", 1), 8, 4), insert(ck("e", 1), 12, 5)));
        m.apply(new PartitionUpdate(key, DeletionTime.LIVE, List.of(), staticRow(13), List.of()));
        assertNull(row(m, ck("d", 1)));
        assertEquals(12, row(m, ck("e", 1)).livenessTimestamp());
        assertNotNull(m.get(key).staticRow());
        // An older partition deletion changes nothing.
        m.apply(new PartitionUpdate(key, DeletionTime.of(3, NOW), List.of(), null, List.of()));
        assertEquals(DeletionTime.of(10, NOW), m.get(key).partitionDeletion());
        assertEquals(2, m.get(key).rowCount());
        assertEquals(2, m.rowCount());
        assertEquals(3, m.get(key).cellCount(), "v1 of c and e, static s");
        finish(m);
    }

    @ParameterizedTest(name = "[{index}] kind={0} {1}")
    @MethodSource("cases")
    void rangeDeletionShadowsRowsInsideOnly(MemtableKind kind, AllocationMode mode) {
        Memtable m = fresh(kind, mode);
        for (String c : new String[] {"a", "b", "c", "d", "e"}) m.apply(rows(insert(ck(c, 1), 15, 1)));
        m.apply(rows(insert(ck("c", 2), 25, 2)));
        // ck in ['b', 'd'] (prefix bounds on the first, DESC, clustering column), at ts 20.
        RangeTombstone rt = new RangeTombstone(ClusteringBound.start(true, new byte[][] {"b".getBytes(StandardCharsets.UTF_8)}),
                ClusteringBound.end(true, new byte[][] {"d".getBytes(StandardCharsets.UTF_8)}), DeletionTime.of(20, NOW));
        // With ck DESC, 'd' sorts before 'b': a start of 'b' would be after the end. Use the real order.
        RangeTombstone ordered = m.comparator().compare(rt.start(), rt.end()) < 0 ? rt
                : new RangeTombstone(ClusteringBound.start(true, rt.end().values()), ClusteringBound.end(true, rt.start().values()), rt.deletion());
        m.apply(new PartitionUpdate(key, DeletionTime.LIVE, List.of(ordered), null, List.of()));
        assertNotNull(row(m, ck("a", 1)));
        assertNull(row(m, ck("b", 1)));
        assertNull(row(m, ck("c", 1)));
        assertNull(row(m, ck("d", 1)));
        assertNotNull(row(m, ck("e", 1)));
        assertEquals(25, row(m, ck("c", 2)).livenessTimestamp(), "newer than the range deletion");
        m.apply(rows(insert(ck("c", 3), 19, 3), insert(ck("c", 4), 21, 4), insert(ck("f", 1), 1, 5)));
        assertNull(row(m, ck("c", 3)), "later write, older timestamp, inside the range");
        assertNotNull(row(m, ck("c", 4)));
        assertNotNull(row(m, ck("f", 1)), "outside the range, any timestamp");
        assertEquals(1, m.get(key).rangeTombstones().rangeCount());
        assertEquals(m.get(key).rowCount(), m.rowCount());
        finish(m);
    }

    @ParameterizedTest(name = "[{index}] kind={0} {1}")
    @MethodSource("cases")
    void rowDeletionShadowsOlderCellsOfThatRow(MemtableKind kind, AllocationMode mode) {
        Memtable m = fresh(kind, mode);
        m.apply(rows(insert(ck("x", 1), 29, 1), insert(ck("y", 1), 29, 1)));
        Row del = new Row(false, ck("x", 1), Cell.NO_TIMESTAMP, 0, Cell.NO_DELETION_TIME, DeletionTime.of(30, NOW),
                new Cell[schema.regularComplexStart()], noComplex());
        m.apply(rows(del));
        Row x = row(m, ck("x", 1));
        assertEquals(DeletionTime.of(30, NOW), x.deletion());
        assertTrue(!x.hasLiveness() && x.columnCount() == 0, "only the deletion is left: " + x);
        assertEquals(29, row(m, ck("y", 1)).livenessTimestamp(), "other rows untouched");
        m.apply(rows(insert(ck("x", 1), 31, 7)));
        x = row(m, ck("x", 1));
        assertEquals(DeletionTime.of(30, NOW), x.deletion(), "the deletion stays");
        assertEquals(31, x.livenessTimestamp());
        assertEquals(31, x.cells()[pos("v1")].timestamp());
        // A write older than the row deletion arriving later is dropped.
        Cell[] old = new Cell[schema.regularComplexStart()];
        old[pos("v2")] = Cell.live(28, "old".getBytes(StandardCharsets.UTF_8), null);
        m.apply(rows(new Row(false, ck("x", 1), Cell.NO_TIMESTAMP, 0, Cell.NO_DELETION_TIME, DeletionTime.LIVE, old, noComplex())));
        assertNull(row(m, ck("x", 1)).cells()[pos("v2")]);
        assertEquals(2, m.cellCount(), "v1 of x at 31 and v1 of y");
        finish(m);
    }

    static ComplexColumn tags(DeletionTime cd, long ts, String... elements) {
        Cell[] cells = new Cell[elements.length];
        for (int i = 0; i < elements.length; i++) cells[i] = Cell.live(ts, null, elements[i].getBytes(StandardCharsets.UTF_8));
        return new ComplexColumn(cd, cells);
    }

    static Row withTags(long ts, ComplexColumn tags) {
        ComplexColumn[] complex = noComplex();
        complex[pos("tags") - schema.regularComplexStart()] = tags;
        return new Row(false, ck("k", 1), Cell.NO_TIMESTAMP, 0, Cell.NO_DELETION_TIME, DeletionTime.LIVE,
                new Cell[schema.regularComplexStart()], complex);
    }

    static List<String> tagsOf(Memtable m) {
        ComplexColumn cx = row(m, ck("k", 1)).complex()[pos("tags") - schema.regularComplexStart()];
        List<String> out = new ArrayList<>();
        for (Cell c : cx.cells()) out.add(new String(c.pathBytes(), StandardCharsets.UTF_8) + "@" + c.timestamp());
        return out;
    }

    @ParameterizedTest(name = "[{index}] kind={0} {1}")
    @MethodSource("cases")
    void complexDeletionClearsOlderElements(MemtableKind kind, AllocationMode mode) {
        Memtable m = fresh(kind, mode);
        m.apply(rows(withTags(40, tags(DeletionTime.LIVE, 40, "a", "b"))));
        // tags = {'c'} at ts 42: complex deletion at 41, then the element.
        m.apply(rows(withTags(42, tags(DeletionTime.of(41, NOW), 42, "c"))));
        assertEquals(List.of("c@42"), tagsOf(m));
        // Late append with an old timestamp: shadowed by the complex deletion. A newer one is kept.
        m.apply(rows(withTags(40, tags(DeletionTime.LIVE, 40, "d"))));
        m.apply(rows(withTags(43, tags(DeletionTime.LIVE, 43, "e"))));
        assertEquals(List.of("c@42", "e@43"), tagsOf(m));
        ComplexColumn cx = row(m, ck("k", 1)).complex()[pos("tags") - schema.regularComplexStart()];
        assertEquals(DeletionTime.of(41, NOW), cx.complexDeletion());
        // A row deletion above the complex deletion replaces it and clears the elements it covers.
        m.apply(rows(new Row(false, ck("k", 1), Cell.NO_TIMESTAMP, 0, Cell.NO_DELETION_TIME, DeletionTime.of(42, NOW),
                new Cell[schema.regularComplexStart()], noComplex())));
        assertEquals(List.of("e@43"), tagsOf(m));
        cx = row(m, ck("k", 1)).complex()[pos("tags") - schema.regularComplexStart()];
        assertTrue(cx.complexDeletion().isLive(), "the complex deletion is superseded by the row deletion");
        assertEquals(1, m.cellCount());
        finish(m);
    }

    static Row rowDeletion(byte[][] ck, DeletionTime d) {
        return new Row(false, ck, Cell.NO_TIMESTAMP, 0, Cell.NO_DELETION_TIME, d, new Cell[schema.regularComplexStart()], noComplex());
    }

    static ComplexColumn tagsAt(Memtable m, byte[][] ck) {
        return row(m, ck).complex()[pos("tags") - schema.regularComplexStart()];
    }

    /**
     * A complex deletion equal to the row, range or partition deletion above it means nothing more,
     * but Cassandra's memtable keeps it (it drops one only when superseded) and so writes it to
     * Data.db; ours used to drop it, which made the flushed row differ from Cassandra's.
     */
    @ParameterizedTest(name = "[{index}] kind={0} {1}")
    @MethodSource("cases")
    void complexDeletionEqualToTheCoveringDeletionStays(MemtableKind kind, AllocationMode mode) {
        Memtable m = fresh(kind, mode);
        m.apply(rows(withTags(42, tags(DeletionTime.of(41, NOW), 42, "c"))));
        m.apply(rows(rowDeletion(ck("k", 1), DeletionTime.of(41, NOW))));
        assertEquals(DeletionTime.of(41, NOW), row(m, ck("k", 1)).deletion());
        assertEquals(DeletionTime.of(41, NOW), tagsAt(m, ck("k", 1)).complexDeletion(), "equal to the row deletion: kept");
        m.apply(new PartitionUpdate(key, DeletionTime.of(41, NOW), List.of(), null, List.of()));
        assertTrue(row(m, ck("k", 1)).deletion().isLive(), "a row deletion equal to the partition deletion is dropped, as Cassandra's flush does");
        assertEquals(DeletionTime.of(41, NOW), tagsAt(m, ck("k", 1)).complexDeletion(), "equal to the partition deletion: kept");
        assertEquals(List.of("c@42"), tagsOf(m));
        // tags = {} at 51 (a complex deletion at 50 alone), then a range deletion at 50 over it: the
        // row holds nothing but that complex deletion, and stays.
        ComplexColumn[] complex = noComplex();
        complex[pos("tags") - schema.regularComplexStart()] = new ComplexColumn(DeletionTime.of(50, NOW), new Cell[0]);
        m.apply(rows(new Row(false, ck("j", 1), Cell.NO_TIMESTAMP, 0, Cell.NO_DELETION_TIME, DeletionTime.LIVE,
                new Cell[schema.regularComplexStart()], complex)));
        m.apply(new PartitionUpdate(key, DeletionTime.LIVE, List.of(range("j", "j", DeletionTime.of(50, NOW))), null, List.of()));
        assertEquals(DeletionTime.of(50, NOW), tagsAt(m, ck("j", 1)).complexDeletion());
        // One the covering deletion supersedes, by local deletion time alone, goes.
        m.apply(new PartitionUpdate(key, DeletionTime.LIVE, List.of(range("j", "j", DeletionTime.of(51, NOW))), null, List.of()));
        assertNull(row(m, ck("j", 1)));
        finish(m);
    }

    /** A range over ck values {@code a} and {@code b} (both inclusive), bounds in clustering order. */
    static RangeTombstone range(String a, String b, DeletionTime d) {
        ClusteringBound lo = ClusteringBound.start(true, new byte[][] {a.getBytes(StandardCharsets.UTF_8)});
        ClusteringBound hi = ClusteringBound.end(true, new byte[][] {b.getBytes(StandardCharsets.UTF_8)});
        ClusteringBound hiAsStart = ClusteringBound.start(true, hi.values());
        if (new dev.flushline.data.ClusteringComparator(schema).compare(lo, hiAsStart) > 0) {
            return new RangeTombstone(hiAsStart, ClusteringBound.end(true, lo.values()), d);
        }
        return new RangeTombstone(lo, hi, d);
    }

    /**
     * Cassandra's range tombstone list lets a new range win an overlap only with a strictly higher
     * timestamp: with equal timestamps the stored range stays even when the new one has the later
     * local deletion time (which DeletionTime.supersedes would prefer). Rows inside keep what the
     * stored range does not supersede.
     */
    @ParameterizedTest(name = "[{index}] kind={0} {1}")
    @MethodSource("cases")
    void anOverlappingRangeWithTheSameTimestampLeavesTheStoredOne(MemtableKind kind, AllocationMode mode) {
        Memtable m = fresh(kind, mode);
        m.apply(new PartitionUpdate(key, DeletionTime.LIVE, List.of(range("b", "d", DeletionTime.of(20, NOW))), null, List.of()));
        // Same timestamp, later clock: supersedes the range, so it stays.
        m.apply(rows(rowDeletion(ck("c", 1), DeletionTime.of(20, NOW + 2))));
        m.apply(new PartitionUpdate(key, DeletionTime.LIVE, List.of(range("c", "e", DeletionTime.of(20, NOW + 5))), null, List.of()));
        dev.flushline.data.RangeTombstoneList rts = m.get(key).rangeTombstones();
        // ck is DESC: e, d, c, b. [e, d) is the new range's own part; [d, b] keeps the stored deletion.
        assertEquals(3, rts.markerCount(), rts.toString());
        assertEquals(DeletionTime.of(20, NOW + 5), rts.markerStartDeletion(0));
        assertEquals(ClusteringBound.EXCL_END_INCL_START_BOUNDARY, rts.markerBound(1).kind());
        assertEquals(DeletionTime.of(20, NOW), rts.markerStartDeletion(1));
        assertEquals(DeletionTime.of(20, NOW), rts.markerEndDeletion(2));
        assertEquals(DeletionTime.of(20, NOW + 2), row(m, ck("c", 1)).deletion(), "still above the range that covers it");
        // A strictly newer range does take the overlap.
        m.apply(new PartitionUpdate(key, DeletionTime.LIVE, List.of(range("b", "d", DeletionTime.of(21, NOW - 5))), null, List.of()));
        assertEquals(3, rts.markerCount(), rts.toString());
        assertEquals(DeletionTime.of(21, NOW - 5), rts.markerStartDeletion(1));
        assertEquals(DeletionTime.of(21, NOW - 5), rts.markerEndDeletion(2));
        assertNull(row(m, ck("c", 1)));
        finish(m);
    }

    /**
     * A range the partition deletion supersedes only by local deletion time is not flushed, but
     * Cassandra still holds it, and on a timestamp tie it keeps a later range out.
     */
    @ParameterizedTest(name = "[{index}] kind={0} {1}")
    @MethodSource("cases")
    void aRangeHiddenByThePartitionDeletionStillWinsATie(MemtableKind kind, AllocationMode mode) {
        Memtable m = fresh(kind, mode);
        m.apply(new PartitionUpdate(key, DeletionTime.LIVE, List.of(range("b", "d", DeletionTime.of(30, NOW))), null, List.of()));
        m.apply(new PartitionUpdate(key, DeletionTime.of(30, NOW + 1), List.of(), null, List.of()));
        MemtablePartition p = m.get(key);
        assertEquals(0, p.rangeTombstones().markerCount());
        assertTrue(!p.hasRangeTombstones());
        m.apply(new PartitionUpdate(key, DeletionTime.LIVE, List.of(range("b", "d", DeletionTime.of(30, NOW + 3))), null, List.of()));
        assertEquals(0, p.rangeTombstones().markerCount(), "the hidden range keeps the tie");
        m.apply(new PartitionUpdate(key, DeletionTime.LIVE, List.of(range("f", "f", DeletionTime.of(30, NOW + 3))), null, List.of()));
        assertEquals(2, p.rangeTombstones().markerCount(), "where nothing was stored, the range shows");
        // An older range than the partition deletion is not kept at all.
        m.apply(new PartitionUpdate(key, DeletionTime.LIVE, List.of(range("g", "g", DeletionTime.of(29, NOW + 9))), null, List.of()));
        assertEquals(2, p.rangeTombstones().rangeCount());
        finish(m);
    }

    static void finish(Memtable m) {
        m.seal();
        m.discard();
    }
}

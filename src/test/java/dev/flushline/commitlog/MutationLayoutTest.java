package dev.flushline.commitlog;

import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.Mutation;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.RangeTombstone;
import dev.flushline.data.Row;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * serializedSize equals the bytes written, and bytes read back give the same update field by
 * field (as ArrayCells), over random updates of several schemas and hand-picked edge cases.
 */
class MutationLayoutTest {
    static final long NOW = 1_750_000_000L;

    static String wideTable(int columns) {
        StringBuilder sb = new StringBuilder("CREATE TABLE ks.wide (pk int, ck int");
        for (int i = 0; i < columns; i++) sb.append(", v").append(i).append(i % 3 == 0 ? " text" : " int");
        sb.append(", s1 int static, tags set<text>, PRIMARY KEY (pk, ck))");
        return sb.toString();
    }

    static final String[] SCHEMAS = {
            "CREATE TABLE ks.a (pk int, ck text, v text, n bigint, s text static, tags set<text>, m map<int, text>, "
                    + "l list<int>, PRIMARY KEY (pk, ck))",
            "CREATE TABLE ks.b (k1 text, k2 int, c1 int, c2 text, v blob, d double, PRIMARY KEY ((k1, k2), c1, c2)) "
                    + "WITH CLUSTERING ORDER BY (c1 DESC)",
            "CREATE TABLE ks.c (pk bigint PRIMARY KEY)",
            "CREATE TABLE ks.d (pk uuid PRIMARY KEY, v text, tags list<text>)",
            wideTable(70),
    };

    static Mutation roundTrip(Mutation m) {
        int size = MutationLayout.serializedSize(m);
        byte[] b = MutationLayout.serialize(m);
        assertEquals(size, b.length, "serializedSize == bytes written");
        Mutation back = MutationLayout.deserialize(b, 0, b.length, m.table());
        assertEquals(Updates.describe(m.update()), Updates.describe(back.update()));
        assertEquals(size, MutationLayout.serializedSize(back), "the replayed mutation has the same size");
        assertArrayEquals(b, MutationLayout.serialize(back), "and the same bytes");
        for (Row r : back.update().rows()) {
            for (Cell c : r.cells()) if (c != null) assertSame(Cell.class, c.getClass());
        }
        return back;
    }

    @Test
    void randomUpdatesOfSeveralSchemasRoundTrip() {
        int total = 0;
        for (int s = 0; s < SCHEMAS.length; s++) {
            TableSchema schema = CqlParser.parse(SCHEMAS[s]);
            RandomUpdates gen = new RandomUpdates(schema, 100 + s, NOW, 40, 10);
            for (PartitionUpdate u : gen.next(1500)) {
                roundTrip(new Mutation(schema, u));
                total++;
            }
        }
        assertEquals(1500 * SCHEMAS.length, total);
    }

    @Test
    void bytesAreCachedOnTheMutation() {
        TableSchema schema = CqlParser.parse(SCHEMAS[0]);
        Mutation m = new Mutation(schema, new RandomUpdates(schema, 1, NOW, 5, 5).next());
        byte[] first = MutationLayout.bytes(m);
        assertSame(first, MutationLayout.bytes(m), "the second call reuses the cached array");
        assertSame(first, m.cachedSerialization());
    }

    static Row row(TableSchema schema, byte[][] clustering, long lts, int lttl, long lexp, DeletionTime del, Cell[] cells, ComplexColumn[] complex) {
        return new Row(false, clustering, lts, lttl, lexp, del, cells, complex);
    }

    @Test
    void edgeCases() {
        TableSchema schema = CqlParser.parse(SCHEMAS[0]);
        int simple = schema.regularComplexStart(), complex = schema.regularColumns().length - simple;
        PartitionKey key = PartitionKey.of(new byte[] {0, 0, 0, 7});
        long capped = Cell.MAX_DELETION_TIME, invalid = Cell.INVALID_DELETION_TIME;
        List<Cell[]> cellSets = new ArrayList<>();
        cellSets.add(new Cell[] {
                Cell.expiring(Long.MAX_VALUE, Cell.MAX_TTL, capped, new byte[0], null),
                Cell.tombstone(Long.MIN_VALUE + 1, invalid, null)});
        cellSets.add(new Cell[] {
                Cell.expiring(0, Integer.MAX_VALUE, capped, "x".getBytes(), null),
                new Cell(-1, -5, 0, new byte[0], null)});            // negative TTL, ldt 0: still round-trips
        cellSets.add(new Cell[] {
                Cell.live(5, "buffer".getBytes(), null),
                Cell.tombstone(5, NOW, null)});
        for (Cell[] two : cellSets) {
            Cell[] cells = new Cell[simple];
            cells[0] = two[0];
            cells[simple - 1] = two[1];
            ComplexColumn[] cx = new ComplexColumn[complex];
            cx[0] = new ComplexColumn(DeletionTime.of(Long.MIN_VALUE + 1, invalid), new Cell[] {
                    Cell.expiring(9, 1, capped, new byte[0], new byte[] {1}),
                    Cell.tombstone(9, capped, new byte[] {2}),
                    Cell.live(9, new byte[300], new byte[0])});
            cx[complex - 1] = new ComplexColumn(DeletionTime.of(3, capped), new Cell[0]);
            List<RangeTombstone> rts = List.of(
                    new RangeTombstone(ClusteringBound.BOTTOM, ClusteringBound.end(false, new byte[][] {new byte[0]}), DeletionTime.of(1, capped)),
                    new RangeTombstone(ClusteringBound.start(false, new byte[][] {"m".getBytes()}), ClusteringBound.TOP, DeletionTime.of(Long.MAX_VALUE, invalid)));
            Row r1 = row(schema, new byte[][] {new byte[0]}, Long.MAX_VALUE, Cell.MAX_TTL, capped, DeletionTime.of(Long.MIN_VALUE + 1, capped), cells, cx);
            Row r2 = row(schema, new byte[][] {"z".getBytes()}, Cell.NO_TIMESTAMP, 0, Cell.NO_DELETION_TIME, DeletionTime.LIVE,
                    new Cell[simple], new ComplexColumn[complex]);
            Row stat = new Row(true, null, Cell.NO_TIMESTAMP, 0, Cell.NO_DELETION_TIME, DeletionTime.of(0, 0),
                    new Cell[schema.staticComplexStart()], new ComplexColumn[schema.staticColumns().length - schema.staticComplexStart()]);
            roundTrip(new Mutation(schema, new PartitionUpdate(key, DeletionTime.of(Long.MAX_VALUE, capped), rts, stat, List.of(r1, r2))));
            roundTrip(new Mutation(schema, new PartitionUpdate(key, DeletionTime.of(0, invalid), List.of(), null, List.of(r1))));
        }
        // An empty partition key and a key-only table (0 columns).
        TableSchema keyOnly = CqlParser.parse(SCHEMAS[2]);
        roundTrip(new Mutation(keyOnly, new PartitionUpdate(PartitionKey.of(new byte[0]), DeletionTime.LIVE, List.of(), null,
                List.of(new Row(false, new byte[0][], 42, 0, Cell.NO_DELETION_TIME, DeletionTime.LIVE, new Cell[0], new ComplexColumn[0])))));
        roundTrip(new Mutation(keyOnly, new PartitionUpdate(PartitionKey.of(new byte[8]), DeletionTime.LIVE, List.of(), null, List.of())));
    }

    @Test
    void seventyColumnRowWithEveryColumnAndWithOnlyTheLast() {
        TableSchema schema = CqlParser.parse(wideTable(70));
        int simple = schema.regularComplexStart();
        assertTrue(simple >= 70);
        Cell[] all = new Cell[simple];
        for (int i = 0; i < simple; i++) all[i] = Cell.live(1_700_000_000_000_000L + i, new byte[] {(byte) i}, null);
        Cell[] last = new Cell[simple];
        last[simple - 1] = Cell.expiring(1, 10, NOW + 10, new byte[0], null);
        for (Cell[] cells : List.of(all, last)) {
            Row r = new Row(false, new byte[][] {new byte[] {0, 0, 0, 1}}, 1, 0, Cell.NO_DELETION_TIME, DeletionTime.LIVE, cells,
                    new ComplexColumn[schema.regularColumns().length - simple]);
            roundTrip(new Mutation(schema, new PartitionUpdate(PartitionKey.of(new byte[] {0, 0, 0, 1}), DeletionTime.LIVE,
                    List.of(), null, List.of(r))));
        }
    }

    @Test
    void damagedBytesAreRefusedNotMisread() {
        TableSchema schema = CqlParser.parse(SCHEMAS[0]);
        Mutation m = new Mutation(schema, new RandomUpdates(schema, 3, NOW, 5, 5).next());
        byte[] b = MutationLayout.serialize(m);
        assertThrows(MutationLayout.MalformedMutationException.class, () -> MutationLayout.deserialize(b, 0, b.length - 1, schema));
        byte[] wrongId = b.clone();
        wrongId[MutationLayout.TABLE_ID_OFFSET] ^= 1;
        MutationLayout.MalformedMutationException e = assertThrows(MutationLayout.MalformedMutationException.class,
                () -> MutationLayout.deserialize(wrongId, 0, wrongId.length, schema));
        assertTrue(e.getMessage().contains("table id"), e.getMessage());
        assertEquals(schema.id(), MutationLayout.tableId(b, 0, b.length));
    }

    /**
     * Found by SegmentFuzzTest: bytes with matching CRCs that decoded into mutations the memtable
     * then failed on (IndexOutOfBounds, NullPointerException, IllegalArgumentException). Each is
     * refused as malformed, so replay reports it as corruption naming file and offset.
     */
    @Test
    void mutationsTheMemtableCannotTakeAreRefusedAsMalformed() {
        TableSchema schema = CqlParser.parse(SCHEMAS[0]);
        int simple = schema.regularComplexStart(), complex = schema.regularColumns().length - simple;
        PartitionKey key = PartitionKey.of(new byte[] {0, 0, 0, 7});
        Row row = row(schema, new byte[][] {"c".getBytes()}, 5, 0, Cell.NO_DELETION_TIME, DeletionTime.LIVE,
                new Cell[simple], new ComplexColumn[complex]);
        byte[] one = MutationLayout.serialize(new Mutation(schema, new PartitionUpdate(key, DeletionTime.LIVE, List.of(), null, List.of(row))));
        // The same table name (so the same id) and column counts, but a second clustering column:
        // the table was changed between the run that wrote the log and the one that replays it.
        TableSchema twoClustering = CqlParser.parse("CREATE TABLE ks.a (pk int, ck text, ck2 int, v text, n bigint, s text static, "
                + "tags set<text>, m map<int, text>, l list<int>, PRIMARY KEY (pk, ck, ck2))");
        assertEquals(schema.id(), twoClustering.id());
        assertMalformed("row has 1 clustering values, the table 2", one, twoClustering);
        Row nullClustering = row(schema, new byte[][] {null}, 5, 0, Cell.NO_DELETION_TIME, DeletionTime.LIVE,
                new Cell[simple], new ComplexColumn[complex]);
        assertMalformed("null clustering value 0", MutationLayout.serialize(
                new Mutation(schema, new PartitionUpdate(key, DeletionTime.LIVE, List.of(), null, List.of(nullClustering)))), schema);
        RangeTombstone wide = new RangeTombstone(ClusteringBound.start(true, new byte[][] {"a".getBytes(), "b".getBytes()}),
                ClusteringBound.TOP, DeletionTime.of(1, NOW));
        assertMalformed("bound has 2 clustering values, the table 1", MutationLayout.serialize(
                new Mutation(schema, new PartitionUpdate(key, DeletionTime.LIVE, List.of(wide), null, List.of()))), schema);
        assertMalformed("partition deletion with negative timestamp -5", MutationLayout.serialize(
                new Mutation(schema, new PartitionUpdate(key, DeletionTime.of(-5, NOW), List.of(), null, List.of()))), schema);
        Row longClustering = row(schema, new byte[][] {new byte[0x10000]}, 5, 0, Cell.NO_DELETION_TIME, DeletionTime.LIVE,
                new Cell[simple], new ComplexColumn[complex]);
        assertMalformed("clustering value of 65536 bytes", MutationLayout.serialize(
                new Mutation(schema, new PartitionUpdate(key, DeletionTime.LIVE, List.of(), null, List.of(longClustering)))), schema);
        assertMalformed("partition key of 65536 bytes", MutationLayout.serialize(new Mutation(schema,
                new PartitionUpdate(PartitionKey.of(new byte[0x10000]), DeletionTime.of(1, NOW), List.of(), null, List.of()))), schema);
        // the limits themselves are fine
        roundTrip(new Mutation(schema, new PartitionUpdate(PartitionKey.of(new byte[0xFFFF]), DeletionTime.of(0, NOW), List.of(), null,
                List.of(row(schema, new byte[][] {new byte[0xFFFF]}, 5, 0, Cell.NO_DELETION_TIME, DeletionTime.LIVE,
                        new Cell[simple], new ComplexColumn[complex])))));
    }

    private static void assertMalformed(String what, byte[] b, TableSchema table) {
        MutationLayout.MalformedMutationException e = assertThrows(MutationLayout.MalformedMutationException.class,
                () -> MutationLayout.deserialize(b, 0, b.length, table));
        assertTrue(e.getMessage().startsWith("malformed mutation at byte ") && e.getMessage().endsWith(": " + what), e.getMessage());
    }
}

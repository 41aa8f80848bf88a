package dev.flushline.data;

import dev.flushline.oracle.CassandraOracle;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.CqlType;
import dev.flushline.schema.TableSchema;
import org.apache.cassandra.db.Clustering;
import org.apache.cassandra.db.LivenessInfo;
import org.apache.cassandra.db.rows.BTreeRow;
import org.apache.cassandra.db.rows.Cells;
import org.apache.cassandra.db.rows.CellPath;
import org.apache.cassandra.db.rows.ColumnData;
import org.apache.cassandra.db.rows.ComplexColumnData;
import org.apache.cassandra.schema.TableMetadata;
import org.apache.cassandra.utils.ByteBufferUtil;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * Our reconciliation rules (Reconcile: Cell.reconcile, livenessSupersedes, DeletionTime.supersedes,
 * Rows.merge) against cassandra-all 5.0.9 itself, on random inputs drawn from small ranges so that
 * ties (equal timestamps, equal local deletion times, equal TTLs, equal values) are common: ties are
 * where the rules differ.
 */
class ReconcileOracleTest {
    static final String CQL = "CREATE TABLE ks.r (pk int, ck int, a int, b text, c blob, "
            + "s set<int>, m map<int, text>, PRIMARY KEY (pk, ck))";

    static TableSchema schema;
    static TableMetadata table;

    @BeforeAll
    static void init() {
        CassandraOracle.init();
        schema = CqlParser.parse(CQL);
        table = CassandraOracle.parseTable(CQL);
    }

    static org.apache.cassandra.schema.ColumnMetadata theirColumn(String name) {
        return table.getColumn(ByteBufferUtil.bytes(name));
    }

    // ---- cells -------------------------------------------------------------------------------

    /** A random cell of column b (text: any value length, incl. empty). ts/ldt/ttl from tiny sets. */
    static Cell randomCell(Random r) {
        long ts = r.nextInt(4);
        byte[] value = new byte[r.nextInt(3)];
        for (int i = 0; i < value.length; i++) value[i] = (byte) (r.nextInt(3) == 0 ? 0x80 : r.nextInt(2));
        long ldt = r.nextInt(5) == 0 ? Cell.MAX_DELETION_TIME : 100 + r.nextInt(3);
        switch (r.nextInt(3)) {
            case 0: return Cell.live(ts, value, null);
            case 1: return Cell.expiring(ts, r.nextBoolean() ? 1 + r.nextInt(2) : Cell.MAX_TTL, ldt, value, null);
            default: return Cell.tombstone(ts, ldt, null);
        }
    }

    static org.apache.cassandra.db.rows.Cell<?> theirs(Cell c, boolean asArray, org.apache.cassandra.schema.ColumnMetadata column) {
        CellPath path = c.pathLength() == 0 ? null : CellPath.create(ByteBuffer.wrap(c.pathBytes()));
        if (asArray) {
            return new org.apache.cassandra.db.rows.ArrayCell(column, c.timestamp(), c.ttl(), c.localDeletionTime(), c.valueBytes(), path);
        }
        return new org.apache.cassandra.db.rows.BufferCell(column, c.timestamp(), c.ttl(), c.localDeletionTime(),
                ByteBuffer.wrap(c.valueBytes()), path);
    }

    @Test
    void cellReconcileMatchesCassandra() {
        Random r = new Random(42);
        org.apache.cassandra.schema.ColumnMetadata b = theirColumn("b");
        int ties = 0;
        for (int i = 0; i < 50_000; i++) {
            Cell x = randomCell(r), y = randomCell(r);
            boolean array = r.nextBoolean();
            org.apache.cassandra.db.rows.Cell<?> tx = theirs(x, array, b), ty = theirs(y, !array, b);
            org.apache.cassandra.db.rows.Cell<?> twin = Cells.reconcile(tx, ty);
            Cell win = Cell.reconcile(x, y);
            String what = x + " vs " + y;
            // Which object wins matters only when the two differ; on identical content either is fine.
            if (sameContent(x, y)) {
                ties++;
                assertSame(x, win, "complete tie returns left: " + what);
                continue;
            }
            assertSame(twin == tx ? x : y, win, what);
            assertSame(Cell.reconcile(y, x), win, "reconcile must be symmetric: " + what);
        }
        assertEquals(true, ties > 0, "the generator should produce complete ties too");
    }

    static boolean sameContent(Cell x, Cell y) {
        return x.timestamp() == y.timestamp() && x.ttl() == y.ttl() && x.localDeletionTime() == y.localDeletionTime()
                && Arrays.equals(x.valueBytes(), y.valueBytes());
    }

    // ---- liveness and deletion times ---------------------------------------------------------

    @Test
    void livenessSupersedesMatchesCassandra() {
        Random r = new Random(7);
        for (int i = 0; i < 50_000; i++) {
            long[] a = randomLiveness(r), b = randomLiveness(r);
            LivenessInfo la = theirLiveness(a), lb = theirLiveness(b);
            assertEquals(la.supersedes(lb), Reconcile.livenessSupersedes(a[0], (int) a[1], a[2], b[0], (int) b[1], b[2]),
                    Arrays.toString(a) + " vs " + Arrays.toString(b));
        }
    }

    /** {ts, ttl, expiration}; ts NO_TIMESTAMP sometimes (an empty liveness). */
    static long[] randomLiveness(Random r) {
        long ts = r.nextInt(6) == 0 ? Cell.NO_TIMESTAMP : r.nextInt(3);
        if (ts == Cell.NO_TIMESTAMP || r.nextBoolean()) return new long[] {ts, 0, Cell.NO_DELETION_TIME};
        long exp = r.nextInt(5) == 0 ? Cell.MAX_DELETION_TIME : 100 + r.nextInt(3);
        // an expired liveness (a view's shadowable row) now and then: one reconcile rule for memtable and compaction
        if (r.nextInt(6) == 0) return new long[] {ts, Reconcile.EXPIRED_LIVENESS_TTL, exp};
        return new long[] {ts, r.nextBoolean() ? 1 : 1 + r.nextInt(3), exp};
    }

    static LivenessInfo theirLiveness(long[] l) {
        if (l[0] == Cell.NO_TIMESTAMP) return LivenessInfo.EMPTY;
        return LivenessInfo.withExpirationTime(l[0], (int) l[1], l[2]);
    }

    @Test
    void deletionTimeSupersedesAndDeletesMatchCassandra() {
        Random r = new Random(11);
        for (int i = 0; i < 50_000; i++) {
            DeletionTime a = randomDeletion(r), b = randomDeletion(r);
            org.apache.cassandra.db.DeletionTime ta = theirDeletion(a), tb = theirDeletion(b);
            assertEquals(ta.supersedes(tb), a.supersedes(b), a + " vs " + b);
            assertEquals(ta.isLive(), a.isLive(), a.toString());
            long ts = r.nextInt(5) - 1;
            assertEquals(ta.deletes(ts), a.deletes(ts), a + " deletes " + ts);
            assertSame(b.supersedes(a) ? b : a, DeletionTime.max(a, b));
        }
        assertSame(DeletionTime.LIVE, DeletionTime.of(Long.MIN_VALUE, Long.MAX_VALUE), "LIVE values must give the LIVE singleton");
    }

    static DeletionTime randomDeletion(Random r) {
        if (r.nextInt(5) == 0) return DeletionTime.LIVE;
        return DeletionTime.of(r.nextInt(3), r.nextInt(4) == 0 ? Cell.MAX_DELETION_TIME : 100 + r.nextInt(2));
    }

    static org.apache.cassandra.db.DeletionTime theirDeletion(DeletionTime d) {
        return d.isLive() ? org.apache.cassandra.db.DeletionTime.LIVE
                : org.apache.cassandra.db.DeletionTime.build(d.markedForDeleteAt(), d.localDeletionTime());
    }

    // ---- rows --------------------------------------------------------------------------------

    /**
     * Random rows as a memtable holds them (self-consistent: nothing in a row is shadowed by that
     * row's own deletions), so that both merges start from the same canonical state. Timestamps
     * come from a small range so the other row's deletions often shadow this row's data, and ties
     * are frequent.
     */
    static Row randomRow(Random r, byte[][] clustering) {
        ColumnMetadata[] cols = schema.regularColumns();
        int cs = schema.regularComplexStart();
        DeletionTime del = r.nextInt(3) == 0 ? DeletionTime.of(r.nextInt(6), 100 + r.nextInt(2)) : DeletionTime.LIVE;
        long floor = del.isLive() ? -1 : del.markedForDeleteAt();
        long lts = Cell.NO_TIMESTAMP, lexp = Cell.NO_DELETION_TIME;
        int lttl = 0;
        if (r.nextBoolean()) {
            lts = floor + 1 + r.nextInt(4);
            if (r.nextInt(3) == 0) {
                lttl = 1 + r.nextInt(2);
                lexp = 100 + r.nextInt(2);
            }
        }
        Cell[] cells = new Cell[cs];
        for (int i = 0; i < cs; i++) {
            if (r.nextBoolean()) cells[i] = randomCellAbove(r, floor, cols[i].type(), null);
        }
        ComplexColumn[] complex = new ComplexColumn[cols.length - cs];
        for (int i = 0; i < complex.length; i++) {
            if (r.nextBoolean()) continue;
            DeletionTime cd = DeletionTime.LIVE;
            long cellFloor = floor;
            if (r.nextBoolean()) {
                cd = DeletionTime.of(floor + 1 + r.nextInt(3), 100 + r.nextInt(2));
                cellFloor = cd.markedForDeleteAt();
            }
            CqlType pathType = Rows.pathType(cols[cs + i]);
            TreeMap<Integer, Cell> byPath = new TreeMap<>();
            int n = r.nextInt(4);
            for (int k = 0; k < n; k++) {
                int key = r.nextInt(4);
                byte[] path = ByteBuffer.allocate(4).putInt(key).array();
                byPath.put(key, randomCellAbove(r, cellFloor, cols[cs + i].type().kind() == CqlType.Kind.SET
                        ? null : cols[cs + i].type().valueType(), path));
            }
            if (cd.isLive() && byPath.isEmpty()) continue;
            List<Cell> sorted = new ArrayList<>(byPath.values());
            sorted.sort((x, y) -> pathType.compare(x.pathBytes(), y.pathBytes()));
            complex[i] = new ComplexColumn(cd, sorted.toArray(new Cell[0]));
        }
        return new Row(false, clustering, lts, lttl, lexp, del, cells, complex);
    }

    static Cell randomCellAbove(Random r, long floor, CqlType valueType, byte[] path) {
        long ts = floor + 1 + r.nextInt(4);
        byte[] value;
        if (valueType == null) {
            value = new byte[0]; // set element: the path is the value
        } else if (valueType.fixedLength() == 4) {
            value = ByteBuffer.allocate(4).putInt(r.nextInt(3)).array();
        } else {
            value = new byte[r.nextInt(3)];
            for (int i = 0; i < value.length; i++) value[i] = (byte) ('a' + r.nextInt(2));
        }
        switch (r.nextInt(4)) {
            case 0: return Cell.expiring(ts, 1 + r.nextInt(2), 100 + r.nextInt(2), value, path);
            case 1: return Cell.tombstone(ts, 100 + r.nextInt(2), path);
            default: return Cell.live(ts, value, path);
        }
    }

    static org.apache.cassandra.db.rows.Row theirRow(Row row) {
        org.apache.cassandra.db.rows.Row.Builder b = BTreeRow.unsortedBuilder();
        ByteBuffer[] ck = new ByteBuffer[row.clustering().length];
        for (int i = 0; i < ck.length; i++) ck[i] = ByteBuffer.wrap(row.clustering()[i]);
        b.newRow(Clustering.make(ck));
        if (row.hasLiveness()) {
            b.addPrimaryKeyLivenessInfo(LivenessInfo.withExpirationTime(row.livenessTimestamp(), row.livenessTtl(),
                    row.livenessExpirationTime()));
        }
        if (!row.deletion().isLive()) {
            b.addRowDeletion(org.apache.cassandra.db.rows.Row.Deletion.regular(theirDeletion(row.deletion())));
        }
        ColumnMetadata[] cols = schema.regularColumns();
        int cs = schema.regularComplexStart();
        for (int i = 0; i < cs; i++) {
            if (row.cells()[i] != null) b.addCell(theirs(row.cells()[i], i % 2 == 0, theirColumn(cols[i].name())));
        }
        for (int i = 0; i < row.complex().length; i++) {
            ComplexColumn cx = row.complex()[i];
            if (cx == null) continue;
            org.apache.cassandra.schema.ColumnMetadata column = theirColumn(cols[cs + i].name());
            if (!cx.complexDeletion().isLive()) b.addComplexDeletion(column, theirDeletion(cx.complexDeletion()));
            for (Cell c : cx.cells()) b.addCell(theirs(c, false, column));
        }
        return b.build();
    }

    /** A neutral text form of a row's content; "null" for no row or an empty one. */
    static String describe(Row row) {
        if (row == null || row.isEmpty()) return "null";
        StringBuilder sb = new StringBuilder();
        sb.append("liveness=").append(row.hasLiveness() ? row.livenessTimestamp() + "/" + row.livenessTtl() + "/"
                + (row.isLivenessExpiring() ? row.livenessExpirationTime() : -1) : "none");
        sb.append(" del=").append(describe(row.deletion()));
        ColumnMetadata[] cols = schema.regularColumns();
        int cs = schema.regularComplexStart();
        for (int i = 0; i < cs; i++) {
            if (row.cells()[i] != null) sb.append(' ').append(cols[i].name()).append('=').append(describe(row.cells()[i]));
        }
        for (int i = 0; i < row.complex().length; i++) {
            ComplexColumn cx = row.complex()[i];
            if (cx == null) continue;
            sb.append(' ').append(cols[cs + i].name()).append("={cd=").append(describe(cx.complexDeletion()));
            for (Cell c : cx.cells()) sb.append(' ').append(describe(c));
            sb.append('}');
        }
        return sb.toString();
    }

    static String describe(DeletionTime d) {
        return d.isLive() ? "LIVE" : d.markedForDeleteAt() + "@" + d.localDeletionTime();
    }

    static String describe(Cell c) {
        return (c.pathLength() > 0 ? Hex.of(c.pathBytes()) + ":" : "") + c.timestamp() + "/" + c.ttl() + "/"
                + (c.localDeletionTime() == Cell.NO_DELETION_TIME ? -1 : c.localDeletionTime()) + "/" + Hex.of(c.valueBytes());
    }

    static String describeTheirs(org.apache.cassandra.db.rows.Row row) {
        if (row == null || row.isEmpty()) return "null";
        LivenessInfo l = row.primaryKeyLivenessInfo();
        org.apache.cassandra.db.DeletionTime rowDel = row.deletion().time();
        StringBuilder sb = new StringBuilder();
        sb.append("liveness=").append(l.isEmpty() ? "none" : l.timestamp() + "/" + l.ttl() + "/"
                + (l.isExpiring() ? l.localExpirationTime() : -1));
        sb.append(" del=").append(describeTheirs(rowDel));
        List<String> simple = new ArrayList<>(), complex = new ArrayList<>();
        for (ColumnData cd : row) {
            String name = cd.column().name.toString();
            if (cd instanceof ComplexColumnData) {
                ComplexColumnData cx = (ComplexColumnData) cd;
                // Compared as is: a complex deletion equal to the row deletion stays on both sides.
                org.apache.cassandra.db.DeletionTime cdel = cx.complexDeletion();
                StringBuilder c = new StringBuilder(" " + name + "={cd=" + describeTheirs(cdel));
                int n = 0;
                for (org.apache.cassandra.db.rows.Cell<?> cell : cx) {
                    c.append(' ').append(describeTheirs(cell));
                    n++;
                }
                if (n == 0 && cdel.isLive()) continue;
                complex.add(c.append('}').toString());
            } else {
                simple.add(" " + name + "=" + describeTheirs((org.apache.cassandra.db.rows.Cell<?>) cd));
            }
        }
        // Our header order: simple columns first, then complex (Cassandra's ColumnData order is the same).
        for (String s : simple) sb.append(s);
        for (String s : complex) sb.append(s);
        return sb.toString();
    }

    static String describeTheirs(org.apache.cassandra.db.DeletionTime d) {
        return d.isLive() ? "LIVE" : d.markedForDeleteAt() + "@" + d.localDeletionTime();
    }

    static String describeTheirs(org.apache.cassandra.db.rows.Cell<?> c) {
        String path = c.path() == null ? "" : Hex.of(ByteBufferUtil.getArray(c.path().get(0))) + ":";
        return path + c.timestamp() + "/" + c.ttl() + "/"
                + (c.localDeletionTime() == Cell.NO_DELETION_TIME ? -1 : c.localDeletionTime()) + "/"
                + Hex.of(ByteBufferUtil.getArray(c.buffer()));
    }

    @Test
    void rowMergeMatchesCassandra() {
        Random r = new Random(3);
        byte[][] ck = {ByteBuffer.allocate(4).putInt(1).array()};
        int nonTrivial = 0;
        for (int i = 0; i < 20_000; i++) {
            Row a = randomRow(r, ck), b = randomRow(r, ck);
            String expected = describeTheirs(org.apache.cassandra.db.rows.Rows.merge(theirRow(a), theirRow(b)));
            Row ours = Rows.merge(a, b, schema.regularColumns(), schema.regularComplexStart(), DeletionTime.LIVE);
            assertEquals(expected, describe(ours), "merge of\n  " + a + "\n  " + b);
            // Merge order must not matter for the content.
            Row swapped = Rows.merge(b, a, schema.regularColumns(), schema.regularComplexStart(), DeletionTime.LIVE);
            assertEquals(describe(ours), describe(swapped), "merge order of\n  " + a + "\n  " + b);
            if (!expected.equals("null") && !expected.equals(describe(a)) && !expected.equals(describe(b))) nonTrivial++;
        }
        assertEquals(true, nonTrivial > 1000, "most merges should combine both rows: " + nonTrivial);
    }

    @Test
    void rowMergeWithCoveringDeletionDropsWhatItShadows() {
        Random r = new Random(5);
        byte[][] ck = {ByteBuffer.allocate(4).putInt(1).array()};
        for (int i = 0; i < 5_000; i++) {
            Row a = randomRow(r, ck), b = randomRow(r, ck);
            DeletionTime active = DeletionTime.of(r.nextInt(5), 100 + r.nextInt(2));
            // Cassandra has no "merge under a covering deletion"; emulate it by adding the covering
            // deletion as a third row holding only a row deletion, then dropping that deletion if it
            // is the covering one (a memtable row does not repeat its partition/range deletion).
            Row cover = new Row(false, ck, Cell.NO_TIMESTAMP, 0, Cell.NO_DELETION_TIME, active,
                    new Cell[schema.regularComplexStart()], new ComplexColumn[a.complex().length]);
            org.apache.cassandra.db.rows.Row theirs = org.apache.cassandra.db.rows.Rows.merge(
                    org.apache.cassandra.db.rows.Rows.merge(theirRow(a), theirRow(b)), theirRow(cover));
            String expected = describeTheirs(theirs);
            String activeText = "del=" + describe(active);
            if (expected.contains(activeText)) expected = expected.replace(activeText, "del=LIVE");
            String ours = describe(Rows.merge(a, b, schema.regularColumns(), schema.regularComplexStart(), active));
            if (expected.equals("liveness=none del=LIVE")) expected = "null";
            assertEquals(expected, ours, "merge under " + active + " of\n  " + a + "\n  " + b);
        }
    }
}

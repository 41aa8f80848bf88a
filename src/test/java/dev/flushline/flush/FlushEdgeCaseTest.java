package dev.flushline.flush;

import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.RangeTombstone;
import dev.flushline.data.Row;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.ShardedSkipListMemtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.oracle.Bytes;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.ClusteringSlice;
import dev.flushline.oracle.ColumnData;
import dev.flushline.oracle.Deletion;
import dev.flushline.oracle.Marker;
import dev.flushline.oracle.Partition;
import dev.flushline.oracle.SSTableStats;
import dev.flushline.oracle.Unfiltered;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Compatibility beyond the random mix of {@link FlushCompatibilityTest}: partitions big enough for a
 * promoted row index (with range tombstones open across block boundaries), a 70-column table (the
 * large-subset column encoding), and local deletion times at the edges of the unsigned 32-bit range.
 */
class FlushEdgeCaseTest {
    static final long NOW = 1_750_000_000L;
    static final long T0 = 1_700_000_000_000_000L;

    @TempDir
    Path tmp;

    // ---- promoted row index -----------------------------------------------------------------

    static final int BIG_PARTITIONS = 4;
    static final int BIG_ROWS = 2000;

    static byte[] int32(int v) {
        return ByteBuffer.allocate(4).putInt(v).array();
    }

    static String text100(int ck) {
        return ("r" + ck + "-").repeat(40).substring(0, 100);
    }

    static byte[][] ck(int v) {
        return new byte[][] {int32(v)};
    }

    /** A range tombstone over [lo, hi] (ck values), given in the table's clustering order. */
    static RangeTombstone range(boolean desc, int lo, boolean loIncl, int hi, boolean hiIncl, DeletionTime d) {
        if (!desc) return new RangeTombstone(ClusteringBound.start(loIncl, ck(lo)), ClusteringBound.end(hiIncl, ck(hi)), d);
        return new RangeTombstone(ClusteringBound.start(hiIncl, ck(hi)), ClusteringBound.end(loIncl, ck(lo)), d);
    }

    @ParameterizedTest(name = "lz4={0} desc={1}")
    @CsvSource({"false,false", "true,false", "false,true", "true,true"})
    void bigPartitionsUseThePromotedIndex(boolean lz4, boolean desc) throws Exception {
        CassandraOracle.init();
        String cql = FlushChecks.withCompression("CREATE TABLE ks.bigpart (pk int, ck int, s text static, v text, n int, "
                + "PRIMARY KEY (pk, ck))" + (desc ? " WITH CLUSTERING ORDER BY (ck DESC)" : ""), lz4);
        TableSchema schema = CqlParser.parse(cql);
        int vPos = position(schema, "v"), nPos = position(schema, "n");
        Memtable m = new SkipListMemtable(schema, lz4 ? AllocationMode.OFFHEAP_OBJECTS : AllocationMode.HEAP_BUFFERS);
        // Deletions are older than the rows, so the rows survive and the markers sit between them.
        DeletionTime old = DeletionTime.of(T0 - 10, NOW), older = DeletionTime.of(T0 - 20, NOW), newer = DeletionTime.of(T0 - 5, NOW);
        for (int pk = 1; pk <= BIG_PARTITIONS; pk++) {
            int rows = BIG_ROWS + 100 * pk; // ~115 bytes a row: > 230 KB, 4+ blocks of 64 KiB
            List<Row> rs = new ArrayList<>();
            for (int c = 0; c < rows; c++) {
                Cell[] cells = new Cell[2];
                cells[vPos] = Cell.live(T0 + c, text100(c).getBytes(StandardCharsets.UTF_8), null);
                cells[nPos] = Cell.live(T0 + c, int32(c * pk), null);
                rs.add(new Row(false, ck(c), T0 + c, 0, Cell.NO_DELETION_TIME, DeletionTime.LIVE, cells, new ComplexColumn[0]));
            }
            List<RangeTombstone> rts = new ArrayList<>();
            switch (pk) {
                case 1: rts.add(range(desc, 200, true, 1800, true, old)); break; // open across several blocks
                case 2: // overlapping ranges: boundaries, and a newer range nested inside an older one
                    rts.add(range(desc, 100, true, 1900, false, old));
                    rts.add(range(desc, 700, false, 900, true, newer));
                    rts.add(range(desc, 1500, true, 2100, true, older));
                    break;
                case 3: rts.add(new RangeTombstone(desc ? ClusteringBound.BOTTOM : ClusteringBound.start(true, ck(1000)),
                        desc ? ClusteringBound.end(true, ck(1000)) : ClusteringBound.TOP, old)); break; // to the partition's end
                default: break;
            }
            Row st = pk % 2 == 1 ? new Row(true, null, Cell.NO_TIMESTAMP, 0, Cell.NO_DELETION_TIME, DeletionTime.LIVE,
                    new Cell[] {Cell.live(T0, ("static" + pk).getBytes(StandardCharsets.UTF_8), null)}, new ComplexColumn[0]) : null;
            DeletionTime pd = pk == 4 ? DeletionTime.of(T0 - 100, NOW) : DeletionTime.LIVE;
            assertTrue(m.apply(new PartitionUpdate(PartitionKey.of(int32(pk)), pd, rts, st, rs)));
        }
        for (int pk = 100; pk < 120; pk++) { // small partitions: no promoted index
            Cell[] cells = new Cell[2];
            cells[vPos] = Cell.live(T0, "small".getBytes(StandardCharsets.UTF_8), null);
            m.apply(new PartitionUpdate(PartitionKey.of(int32(pk)), DeletionTime.LIVE, List.of(), null,
                    List.of(new Row(false, ck(pk), T0, 0, Cell.NO_DELETION_TIME, DeletionTime.LIVE, cells, new ComplexColumn[0]))));
        }
        m.seal();
        try {
            FlushChecks.Flushed f = FlushChecks.flushAndCheck(tmp, cql, m, lz4, true);
            try (CassandraReader reader = CassandraReader.open(f.tableDir(), cql)) {
                CassandraReader.SSTable sst = reader.only();
                for (Partition p : f.expected()) {
                    int pk = ByteBuffer.wrap(p.key().toBuffer().array()).getInt();
                    if (pk >= 100) {
                        assertEquals(0, sst.indexBlockCount(p.key()), "small partition " + pk + " has no promoted index");
                        continue;
                    }
                    int blocks = sst.indexBlockCount(p.key());
                    assertTrue(blocks >= 4, "partition " + pk + " of > 230 KB spans at least 4 index blocks, got " + blocks);
                    int last = BIG_ROWS + 100 * pk - 1;
                    assertEquals(p, sst.read(p.key()).orElseThrow(), "point read of partition " + pk);
                    int[][] slices = {{0, 10}, {540, 620}, {1100, 1200}, {560, 1700}, {last - 20, last}, {last + 1, last + 100}, {1150, 1150}};
                    for (int[] s : slices) {
                        for (boolean reversed : new boolean[] {false, true}) {
                            checkSlice(sst, p, desc, s[0], s[1], reversed);
                        }
                    }
                    if (pk == 1) {
                        // A slice starting in the middle of a range tombstone and a later block: the
                        // reader learns the open deletion from the previous block's end-open marker.
                        List<Unfiltered> got = sst.read(p.key(), slice(desc, 1100, 1200), false).orElseThrow().unfiltereds();
                        Marker open = assertInstanceOf(Marker.class, got.get(0), "slice inside a range tombstone opens with its marker");
                        assertEquals(List.of(new Deletion(old.markedForDeleteAt(), old.localDeletionTime())), open.deletions());
                    }
                }
            }
        } finally {
            m.discard();
        }
    }

    static ClusteringSlice slice(boolean desc, int lo, int hi) {
        List<Bytes> a = List.of(Bytes.int32(lo)), b = List.of(Bytes.int32(hi));
        return desc ? ClusteringSlice.closed(b, a) : ClusteringSlice.closed(a, b);
    }

    private static void checkSlice(CassandraReader.SSTable sst, Partition whole, boolean desc, int lo, int hi, boolean reversed) {
        List<dev.flushline.oracle.Row> expected = new ArrayList<>();
        for (dev.flushline.oracle.Row r : whole.rows()) {
            int c = ByteBuffer.wrap(r.clustering().get(0).toBuffer().array()).getInt();
            if (c >= lo && c <= hi) expected.add(r);
        }
        if (reversed) Collections.reverse(expected);
        Partition got = sst.read(whole.key(), slice(desc, lo, hi), reversed).orElseThrow();
        String what = "slice [" + lo + ", " + hi + "] reversed=" + reversed + " of " + whole.key();
        assertEquals(expected, got.rows(), what);
        assertEquals(whole.staticRow(), got.staticRow(), what + ": static row");
        assertEquals(whole.deletion(), got.deletion(), what + ": partition deletion");
        // Markers may be clipped to the slice, but each must carry deletions the partition has.
        Set<Deletion> known = new HashSet<>();
        for (Unfiltered u : whole.unfiltereds()) if (u instanceof Marker mk) known.addAll(mk.deletions());
        for (Unfiltered u : got.unfiltereds()) {
            if (u instanceof Marker mk) assertTrue(known.containsAll(mk.deletions()), what + ": unknown deletion in " + mk);
        }
    }

    static int position(TableSchema schema, String column) {
        ColumnMetadata[] cols = schema.regularColumns();
        for (int i = 0; i < cols.length; i++) if (cols[i].name().equals(column)) return i;
        cols = schema.staticColumns();
        for (int i = 0; i < cols.length; i++) if (cols[i].name().equals(column)) return i;
        throw new IllegalArgumentException(column);
    }

    // ---- 70 regular columns: large-subset bitmaps ------------------------------------------------

    static final String[] TYPES70 = {"int", "text", "bigint", "blob", "double", "boolean"};

    static String cql70() {
        StringBuilder sb = new StringBuilder("CREATE TABLE ks.cols70 (pk int, ck int");
        for (int i = 0; i < 68; i++) sb.append(String.format(", c%02d %s", i, TYPES70[i % TYPES70.length]));
        sb.append(", tags set<text>, m map<text, int>, PRIMARY KEY (pk, ck))");
        return sb.toString();
    }

    @ParameterizedTest(name = "lz4={0}")
    @CsvSource({"false", "true"})
    void seventyColumns(boolean lz4) throws Exception {
        CassandraOracle.init();
        String cql = FlushChecks.withCompression(cql70(), lz4);
        TableSchema schema = CqlParser.parse(cql);
        assertEquals(70, schema.regularColumns().length);
        RandomUpdates values = new RandomUpdates(schema, 70, NOW, 1, 1);
        Random random = new Random(7);
        // Column counts around the encoding's switch points: < 64 of them (never here, n = 70),
        // |P| < n/2 (present indices), |P| >= n/2 (missing indices), all (no bitmap), none.
        int[] counts = {0, 1, 2, 3, 34, 35, 36, 60, 69, 70};
        Memtable m = new ShardedSkipListMemtable(schema, lz4 ? AllocationMode.UNSLABBED_HEAP : AllocationMode.OFFHEAP_OBJECTS, 3);
        int complexStart = schema.regularComplexStart();
        long ts = T0;
        for (int pk = 0; pk < 20; pk++) {
            List<Row> rows = new ArrayList<>();
            for (int c = 0; c < 30; c++) {
                int k = counts[(pk * 30 + c) % counts.length];
                List<Integer> order = new ArrayList<>();
                for (int i = 0; i < 70; i++) order.add(i);
                Collections.shuffle(order, random);
                Cell[] cells = new Cell[complexStart];
                ComplexColumn[] complex = new ComplexColumn[70 - complexStart];
                ts++;
                for (int j = 0; j < k; j++) {
                    int i = order.get(j);
                    ColumnMetadata col = schema.regularColumns()[i];
                    if (i < complexStart) {
                        cells[i] = random.nextInt(10) == 0 ? Cell.tombstone(ts, NOW, null)
                                : Cell.live(ts, values.value(col.type()), null);
                    } else {
                        byte[] path = values.value(col.type().elementType());
                        byte[] v = col.type().kind() == dev.flushline.schema.CqlType.Kind.SET ? new byte[0] : values.value(col.type().valueType());
                        complex[i - complexStart] = new ComplexColumn(DeletionTime.of(ts - 1, NOW), new Cell[] {Cell.live(ts, v, path)});
                    }
                }
                rows.add(new Row(false, ck(c), ts, 0, Cell.NO_DELETION_TIME, DeletionTime.LIVE, cells, complex));
            }
            assertTrue(m.apply(new PartitionUpdate(PartitionKey.of(int32(pk)), DeletionTime.LIVE, List.of(), null, rows)));
        }
        m.seal();
        try {
            for (int i = 0; i < 70; i++) assertTrue(m.regularColumnWritten(i), "every column is in the header");
            FlushChecks.flushAndCheck(tmp, cql, m, lz4, true);
        } finally {
            m.discard();
        }
    }

    // ---- local deletion time edges ---------------------------------------------------------------

    static final String LDT_CQL = "CREATE TABLE ks.ldt (pk int, ck text, s text static, v1 int, v2 text, tags set<text>, "
            + "m map<text, int>, PRIMARY KEY (pk, ck)) WITH CLUSTERING ORDER BY (ck DESC)";

    /**
     * Capped expirations (Cell.MAX_DELETION_TIME) mixed with deletions at {@code now}. At now=1.75e9
     * the local deletion times span more than 2^31, so no base is the minimum and still fits the
     * maximum: EncodingStats.forFlush must move the base up and write the small values as negative
     * int deltas. At now=3.6e9 the minimum's own delta from the epoch no longer fits an int (the
     * HEADER's size function and writer then disagree, see EncodingStats), so the base is capped at
     * epoch + 2^31-1.
     *
     * <p>Byte identity: with our bases every delta fits in an int, so Cassandra's size functions
     * (which use the long delta) agree with what its serializers write, and its writer given the
     * same EncodingStats produces the same bytes. A node choosing the raw minimum as the base would
     * hit those disagreements (a padded HEADER, a wrong marker size); we never write that.
     */
    @ParameterizedTest(name = "now={0} lz4={1}")
    @CsvSource({"1750000000,false", "1750000000,true", "3600000000,false", "3600000000,true"})
    void localDeletionTimeEdges(long now, boolean lz4) throws Exception {
        CassandraOracle.init();
        String cql = FlushChecks.withCompression(LDT_CQL, lz4);
        TableSchema schema = CqlParser.parse(cql);
        Memtable m = new SkipListMemtable(schema, AllocationMode.OFFHEAP_OBJECTS);
        RandomUpdates gen = new RandomUpdates(schema, now + (lz4 ? 1 : 0), now, 30, 20);
        gen.ttlChance = 0.3;
        gen.rowDeleteChance = 0.08;
        gen.rangeDeleteChance = 0.08;
        for (PartitionUpdate u : gen.next(1500)) m.apply(u);

        final long cap = Cell.MAX_DELETION_TIME;
        int v1 = position(schema, "v1"), v2 = position(schema, "v2"), complexStart = schema.regularComplexStart();
        long ts = T0 + 10_000;
        for (int pk = 1000; pk < 1010; pk++) {
            ts++;
            Cell[] cells = new Cell[complexStart];
            // row TTL shared by v1 (USE_ROW_TTL); v2 expires at the cap with a different TTL.
            cells[v1] = Cell.expiring(ts, Cell.MAX_TTL, cap, int32(pk), null);
            cells[v2] = Cell.expiring(ts, 7, cap, "capped".getBytes(StandardCharsets.UTF_8), null);
            ComplexColumn[] cx = new ComplexColumn[schema.regularColumns().length - complexStart];
            cx[position(schema, "tags") - complexStart] = new ComplexColumn(DeletionTime.of(ts - 1, now),
                    new Cell[] {Cell.expiring(ts, Cell.MAX_TTL, cap, new byte[0], "t".getBytes(StandardCharsets.UTF_8))});
            Row capped = new Row(false, new byte[][] {("cap" + pk).getBytes(StandardCharsets.UTF_8)}, ts, Cell.MAX_TTL, cap,
                    DeletionTime.LIVE, cells, cx);
            // A row deletion at the very top of the range: its delta from the base is exactly 2^31-1 at now=1.75e9.
            Row deletedAtCap = new Row(false, new byte[][] {("del" + pk).getBytes(StandardCharsets.UTF_8)}, Cell.NO_TIMESTAMP, 0,
                    Cell.NO_DELETION_TIME, DeletionTime.of(ts, cap), new Cell[complexStart], new ComplexColumn[cx.length]);
            Row st = new Row(true, null, Cell.NO_TIMESTAMP, 0, Cell.NO_DELETION_TIME, DeletionTime.LIVE,
                    new Cell[] {Cell.expiring(ts, Cell.MAX_TTL, cap, "st".getBytes(StandardCharsets.UTF_8), null)}, new ComplexColumn[0]);
            List<RangeTombstone> rts = List.of(new RangeTombstone(ClusteringBound.start(true, new byte[][] {"zz".getBytes(StandardCharsets.UTF_8)}),
                    ClusteringBound.end(false, new byte[][] {"zy".getBytes(StandardCharsets.UTF_8)}), DeletionTime.of(ts, now)));
            assertTrue(m.apply(new PartitionUpdate(PartitionKey.of(int32(pk)), DeletionTime.of(ts - 1000, now), rts, st,
                    List.of(capped, deletedAtCap))));
        }
        m.seal();
        try {
            assertEquals(cap, m.maxLocalDeletionTime());
            assertEquals(now, m.minLocalDeletionTime());
            FlushChecks.Flushed f = FlushChecks.flushAndCheck(tmp, cql, m, lz4, true);

            // The claim behind forFlush: every local deletion time of the flush is base + an int.
            long min = Long.MAX_VALUE, max = Long.MIN_VALUE;
            for (long ldt : ldts(f.expected())) {
                // Long.MAX_VALUE = "never" (live cells, plain liveness) is not written as a delta.
                if (ldt != Cell.NO_DELETION_TIME) {
                    assertTrue(f.stats().localDeletionTimeRoundTrips(ldt), "ldt " + ldt + " vs base " + f.stats().minLocalDeletionTime());
                }
                min = Math.min(min, ldt);
                max = Math.max(max, ldt);
            }
            if (now == NOW) {
                assertTrue(cap - now > Integer.MAX_VALUE, "the span needs a base above the minimum");
                assertEquals(cap - Integer.MAX_VALUE, f.stats().minLocalDeletionTime());
            } else {
                // Regression: the base used to be capped at epoch + 2^31-1 = 3590363647, which Cassandra
                // reads back as 3590363647 - 2^32 (int epoch arithmetic), so every row, range and
                // complex deletion at now=3.6e9 read back as INVALID_DELETION_TIME.
                assertEquals(Integer.MAX_VALUE, f.stats().minLocalDeletionTime());
            }
            try (CassandraReader reader = CassandraReader.open(f.tableDir(), cql)) {
                SSTableStats s = reader.only().stats();
                assertEquals(min, s.minLocalDeletionTime(), "STATS min ldt");
                assertEquals(max, s.maxLocalDeletionTime(), "STATS max ldt");
                assertEquals(f.stats().minLocalDeletionTime(), s.encodingMinLocalDeletionTime(), "HEADER ldt base as Cassandra reads it");
            }
        } finally {
            m.discard();
        }
    }

    /**
     * Every local deletion time Cassandra's stats collector sees: deletions, tombstone and expiring
     * cells, expiring liveness; live cells and non-expiring liveness count as "never" (Long.MAX_VALUE).
     */
    static List<Long> ldts(List<Partition> partitions) {
        List<Long> out = new ArrayList<>();
        for (Partition p : partitions) {
            addDeletion(out, p.deletion());
            addRow(out, p.staticRow());
            for (Unfiltered u : p.unfiltereds()) {
                if (u instanceof dev.flushline.oracle.Row r) addRow(out, r);
                else for (Deletion d : ((Marker) u).deletions()) addDeletion(out, d);
            }
        }
        return out;
    }

    private static void addDeletion(List<Long> out, Deletion d) {
        if (!d.isLive()) out.add(d.localDeletionTime());
    }

    private static void addRow(List<Long> out, dev.flushline.oracle.Row r) {
        if (!r.liveness().isEmpty()) out.add(r.liveness().localExpirationTime());
        addDeletion(out, r.deletion());
        for (ColumnData cd : r.columns()) {
            if (cd instanceof dev.flushline.oracle.Cell c) {
                out.add(c.localDeletionTime());
            } else {
                dev.flushline.oracle.ComplexColumn cx = (dev.flushline.oracle.ComplexColumn) cd;
                addDeletion(out, cx.complexDeletion());
                for (dev.flushline.oracle.Cell c : cx.cells()) out.add(c.localDeletionTime());
            }
        }
    }
}

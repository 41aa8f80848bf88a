package dev.flushline.sstable;

import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ClusteringComparator;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.Row;
import dev.flushline.data.Rows;
import dev.flushline.io.FixedBuffer;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.CqlType;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.EncodingStats;
import dev.flushline.sstable.SerializationHeader;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Property test of the serializer's two passes: {@code rowSize}/{@code markerSize} must equal the
 * bytes {@code writeRow}/{@code writeMarker} write (they throw on a mismatch), and both must equal
 * an independent recomputation of the delta encodings and the row, cell, complex and marker
 * layouts (DataLayout, ClusteringLayout, EncodingStats) written here from the format,
 * not from the serializer. Inputs stress the edges: LIVE deletions (incl. LIVE complex deletions
 * written because another column has one), capped local deletion times and deltas past 2^31 from
 * the EncodingStats base, TTL 1 and 630720000, timestamps below the base, empty values, static rows,
 * rows with no columns, 64+ column tables in both large-bitmap encodings, header subsets, and all
 * three cell classes.
 */
class RowSerializerSizeTest {
    static final long NOW = 1_750_000_000L;

    static final String WIDE = "CREATE TABLE ks.w (pk int, ck text, ck2 int, ck3 blob, s text static, s2 int static, "
            + "ss set<int> static, v1 int, v2 text, b blob, bi bigint, tags set<text>, m map<text, int>, l list<int>, "
            + "PRIMARY KEY (pk, ck, ck2, ck3)) WITH CLUSTERING ORDER BY (ck DESC, ck2 ASC, ck3 DESC)";

    static String bigTable() {
        StringBuilder sb = new StringBuilder("CREATE TABLE ks.big (pk int, ck int, st text static, ");
        for (int i = 0; i < 70; i++) sb.append(String.format("c%02d %s, ", i, i % 3 == 0 ? "int" : i % 3 == 1 ? "text" : "bigint"));
        sb.append("xs set<int>, xm map<int, text>, PRIMARY KEY (pk, ck))");
        return sb.toString();
    }

    // ---- independent size arithmetic (vints, deltas from the EncodingStats bases) ---------------

    /** Cassandra unsigned vint: n bytes hold 7n bits for n <= 8, the 9-byte form holds 64. */
    static int vsize(long v) {
        int bits = 64 - Long.numberOfLeadingZeros(v);
        if (bits > 56) return 9;
        return Math.max(1, (bits + 6) / 7);
    }

    /** "uvint32": the int sign-extended to 64 bits, so a negative int takes 9 bytes. */
    static int vsize32(int v) {
        return vsize(v);
    }

    static int tsSize(EncodingStats s, long ts) { return vsize(ts - s.minTimestamp()); }

    static int ldtSize(EncodingStats s, long ldt) { return vsize32((int) (ldt - s.minLocalDeletionTime())); }

    static int ttlSize(EncodingStats s, int ttl) { return vsize32(ttl - s.minTtl()); }

    static int delSize(EncodingStats s, DeletionTime d) { return tsSize(s, d.markedForDeleteAt()) + ldtSize(s, d.localDeletionTime()); }

    /** Row clustering: blocks of 32, header bits 2j for empty values, then the non-empty values. */
    static int clusteringSize(ColumnMetadata[] cols, byte[][] values) {
        int size = 0;
        for (int start = 0; start < values.length; start += 32) {
            long header = 0;
            int end = Math.min(values.length, start + 32);
            for (int i = start; i < end; i++) {
                if (values[i].length == 0) header |= 1L << (2 * (i - start));
            }
            size += vsize(header);
            for (int i = start; i < end; i++) {
                int len = values[i].length;
                if (len == 0) continue;
                size += cols[i].type().fixedLength() >= 0 ? len : vsize(len) + len;
            }
        }
        return size;
    }

    static int expectedRowSize(TableSchema schema, SerializationHeader header, Row row, long prevSize) {
        EncodingStats s = header.stats();
        boolean isStatic = row.isStatic();
        ColumnMetadata[] cols = isStatic ? schema.staticColumns() : schema.regularColumns();
        int complexStart = isStatic ? schema.staticComplexStart() : schema.regularComplexStart();
        int n = isStatic ? header.staticColumns().length : header.regularColumns().length;
        List<Integer> presentIdx = new ArrayList<>(), missingIdx = new ArrayList<>();
        for (int p = 0; p < cols.length; p++) {
            int h = isStatic ? header.staticIndex(p) : header.regularIndex(p);
            boolean present = p < complexStart ? row.cells()[p] != null : row.complex()[p - complexStart] != null;
            if (h < 0) {
                assertTrue(!present, "generator bug: column outside the header");
                continue;
            }
            (present ? presentIdx : missingIdx).add(h);
        }
        int body = vsize(prevSize);
        if (row.hasLiveness()) {
            body += tsSize(s, row.livenessTimestamp());
            if (row.isLivenessExpiring()) body += ttlSize(s, row.livenessTtl()) + ldtSize(s, row.livenessExpirationTime());
        }
        if (!row.deletion().isLive()) body += delSize(s, row.deletion());
        if (presentIdx.size() != n) {
            if (n < 64) {
                long missing = 0;
                for (int h : missingIdx) missing |= 1L << h;
                body += vsize(missing);
            } else {
                body += vsize(n - presentIdx.size());
                for (int h : presentIdx.size() < n / 2 ? presentIdx : missingIdx) body += vsize(h);
            }
        }
        for (int p = 0; p < complexStart; p++) {
            Cell c = row.cells()[p];
            if (c != null) body += expectedCellSize(s, row, c, cols[p].type().fixedLength(), false);
        }
        boolean anyComplexDeletion = false;
        for (ComplexColumn cx : row.complex()) anyComplexDeletion |= cx != null && !cx.complexDeletion().isLive();
        for (ComplexColumn cx : row.complex()) {
            if (cx == null) continue;
            if (anyComplexDeletion) {
                // A LIVE complex deletion is written from MIN_VALUE / MAX_VALUE (DataLayout).
                DeletionTime d = cx.complexDeletion();
                body += tsSize(s, d.markedForDeleteAt()) + ldtSize(s, d.localDeletionTime());
            }
            body += vsize(cx.cells().length);
            for (Cell c : cx.cells()) body += expectedCellSize(s, row, c, -1, true);
        }
        int size = 1 + (isStatic ? 1 : 0) + vsize(body) + body;
        if (!isStatic) size += clusteringSize(schema.clusteringColumns(), row.clustering());
        return size;
    }

    static int expectedCellSize(EncodingStats s, Row row, Cell c, int fixedLength, boolean complex) {
        boolean expiring = c.ttl() != Cell.NO_TTL;
        boolean deleted = !expiring && c.localDeletionTime() != Cell.NO_DELETION_TIME;
        boolean useRowTs = row.hasLiveness() && c.timestamp() == row.livenessTimestamp();
        boolean useRowTtl = expiring && row.isLivenessExpiring() && c.ttl() == row.livenessTtl()
                && c.localDeletionTime() == row.livenessExpirationTime();
        int size = 1;
        if (!useRowTs) size += tsSize(s, c.timestamp());
        if (!useRowTtl) {
            if (deleted || expiring) size += ldtSize(s, c.localDeletionTime());
            if (expiring) size += ttlSize(s, c.ttl());
        }
        if (complex) size += vsize(c.pathLength()) + c.pathLength();
        int len = c.valueLength();
        if (len > 0) size += fixedLength >= 0 ? len : vsize(len) + len;
        return size;
    }

    static int expectedMarkerSize(TableSchema schema, EncodingStats s, ClusteringBound b, DeletionTime end, DeletionTime start, long prev) {
        int size = 1 + 1 + 2;
        if (b.size() > 0) size += clusteringSize(schema.clusteringColumns(), b.values());
        int body = vsize(prev);
        if (b.isBoundary()) body += delSize(s, end) + delSize(s, start);
        else body += delSize(s, b.isStart() ? start : end);
        return size + vsize(body) + body;
    }

    // ---- random inputs -----------------------------------------------------------------------

    static final long[] LDTS = {NOW, NOW + 1, 0, 1, Cell.MAX_DELETION_TIME, Cell.MAX_DELETION_TIME - 1, EncodingStats.DELETION_TIME_EPOCH,
            3_590_363_648L /* first ldt whose delta from the epoch passes 2^31 */};
    static final int[] TTLS = {1, 2, 3600, Cell.MAX_TTL};

    /** The row's liveness, so that cells can share its timestamp/TTL (USE_ROW_TIMESTAMP / USE_ROW_TTL). */
    static final class Hint {
        final long ts;
        final int ttl;
        final long exp;

        Hint(long ts, int ttl, long exp) {
            this.ts = ts;
            this.ttl = ttl;
            this.exp = exp;
        }
    }

    final class Gen {
        final Random r;
        final TableSchema schema;
        final long baseTs = 1_700_000_000_000_000L;

        Gen(TableSchema schema, long seed) {
            this.schema = schema;
            this.r = new Random(seed);
        }

        long ts() {
            switch (r.nextInt(6)) {
                case 0: return baseTs - r.nextInt(1000);            // below a forFlush minimum
                case 1: return r.nextInt(100);                       // far below: 9-byte deltas
                default: return baseTs + r.nextInt(1_000_000);
            }
        }

        long ldt() { return LDTS[r.nextInt(LDTS.length)]; }

        int ttl() { return TTLS[r.nextInt(TTLS.length)]; }

        DeletionTime deletion() { return DeletionTime.of(ts(), ldt()); }

        byte[] value(CqlType t) {
            int fixed = t.fixedLength();
            if (fixed >= 0) {
                byte[] b = new byte[fixed];
                r.nextBytes(b);
                return b;
            }
            byte[] b = new byte[r.nextInt(4) == 0 ? 0 : r.nextInt(r.nextInt(8) == 0 ? 300 : 12)];
            r.nextBytes(b);
            return b;
        }

        Cell cell(CqlType valueType, byte[] path, Hint hint) {
            long ts = hint != null && r.nextBoolean() ? hint.ts : ts();
            Cell a;
            switch (r.nextInt(4)) {
                case 0: a = Cell.tombstone(ts, ldt(), path); break;
                case 1: {
                    boolean shareRowTtl = hint != null && hint.ttl != 0 && r.nextBoolean();
                    int ttl = shareRowTtl ? hint.ttl : ttl();
                    long exp = shareRowTtl && r.nextInt(4) != 0 ? hint.exp : ldt();
                    a = Cell.expiring(ts, ttl, exp, valueType == null ? new byte[0] : value(valueType), path);
                    break;
                }
                default: a = Cell.live(ts, valueType == null ? new byte[0] : value(valueType), path);
            }
            return a;
        }

        Row row(boolean isStatic, SerializationHeader header, int density) {
            ColumnMetadata[] cols = isStatic ? schema.staticColumns() : schema.regularColumns();
            int cs = isStatic ? schema.staticComplexStart() : schema.regularComplexStart();
            long lts = Cell.NO_TIMESTAMP, lexp = Cell.NO_DELETION_TIME;
            int lttl = 0;
            if (!isStatic && r.nextBoolean()) {
                lts = ts();
                if (r.nextInt(3) == 0) {
                    lttl = ttl();
                    lexp = ldt();
                }
            }
            Hint hint = lts == Cell.NO_TIMESTAMP ? null : new Hint(lts, lttl, lexp);
            DeletionTime del = r.nextInt(4) == 0 ? deletion() : DeletionTime.LIVE;
            Cell[] cells = new Cell[cs];
            ComplexColumn[] complex = new ComplexColumn[cols.length - cs];
            for (int p = 0; p < cols.length; p++) {
                int h = isStatic ? header.staticIndex(p) : header.regularIndex(p);
                if (h < 0 || r.nextInt(100) >= density) continue;
                if (p < cs) {
                    cells[p] = cell(cols[p].type(), null, hint);
                } else {
                    CqlType t = cols[p].type();
                    CqlType pathType = Rows.pathType(cols[p]);
                    TreeMap<String, Cell> byPath = new TreeMap<>();
                    int n = r.nextInt(4);
                    for (int k = 0; k < n; k++) {
                        byte[] path = t.kind() == CqlType.Kind.LIST ? timeUuid(k) : value(t.elementType());
                        Cell c = cell(t.kind() == CqlType.Kind.SET ? null : t.valueType(), path, hint);
                        byPath.put(dev.flushline.data.Hex.of(path), c);
                    }
                    List<Cell> sorted = new ArrayList<>(byPath.values());
                    sorted.sort((x, y) -> pathType.compare(x.pathBytes(), y.pathBytes()));
                    complex[p - cs] = new ComplexColumn(r.nextInt(3) == 0 ? deletion() : DeletionTime.LIVE, sorted.toArray(new Cell[0]));
                }
            }
            byte[][] ck = null;
            if (!isStatic) {
                ColumnMetadata[] cc = schema.clusteringColumns();
                ck = new byte[cc.length][];
                for (int i = 0; i < cc.length; i++) ck[i] = value(cc[i].type());
            }
            return new Row(isStatic, ck, lts, lttl, lexp, del, cells, complex);
        }

        byte[] timeUuid(int k) {
            return ByteBuffer.allocate(16).putLong(0x1000L | ((long) k << 32)).putLong(0x8000000000000000L | r.nextLong() >>> 2).array();
        }

        ClusteringBound bound() {
            ColumnMetadata[] cc = schema.clusteringColumns();
            int size = r.nextInt(cc.length + 1);
            byte[][] v = new byte[size][];
            for (int i = 0; i < size; i++) v[i] = value(cc[i].type());
            byte[] kinds = {ClusteringBound.EXCL_END_BOUND, ClusteringBound.INCL_START_BOUND, ClusteringBound.EXCL_END_INCL_START_BOUNDARY,
                    ClusteringBound.INCL_END_EXCL_START_BOUNDARY, ClusteringBound.INCL_END_BOUND, ClusteringBound.EXCL_START_BOUND};
            byte kind = kinds[r.nextInt(kinds.length)];
            if (size == 0 && (kind == ClusteringBound.EXCL_END_INCL_START_BOUNDARY || kind == ClusteringBound.INCL_END_EXCL_START_BOUNDARY)) {
                kind = ClusteringBound.INCL_START_BOUND;
            }
            return new ClusteringBound(kind, v);
        }
    }

    // ---- the properties ----------------------------------------------------------------------

    static boolean[] subset(Random r, int n, boolean all) {
        boolean[] b = new boolean[n];
        for (int i = 0; i < n; i++) b[i] = all || r.nextInt(4) != 0;
        return b;
    }

    static List<EncodingStats> statsChoices(Random r) {
        List<EncodingStats> out = new ArrayList<>();
        out.add(EncodingStats.NO_STATS);
        out.add(EncodingStats.forFlush(1_700_000_000_000_000L - 1000, 0, Cell.MAX_DELETION_TIME, 1));
        out.add(EncodingStats.forFlush(0, NOW, Cell.MAX_DELETION_TIME, Cell.MAX_TTL));
        out.add(EncodingStats.forFlush(Cell.NO_TIMESTAMP, Cell.NO_DELETION_TIME, Cell.NO_DELETION_TIME, 0));
        // Raw values, incl. bases that make capped ldts wrap past 2^31 and TTL deltas negative.
        out.add(new EncodingStats(1_700_000_000_000_000L, NOW, 3600));
        out.add(new EncodingStats(Long.MAX_VALUE / 2, 0, Cell.MAX_TTL));
        out.add(new EncodingStats(r.nextLong(), r.nextInt() & 0xFFFFFFFFL, r.nextInt(Cell.MAX_TTL)));
        return out;
    }

    void checkRow(TableSchema schema, SerializationHeader header, RowSerializer ser, StatsCollector collector, Row row, long prev) {
        int size = ser.rowSize(row, prev);
        assertEquals(expectedRowSize(schema, header, row, prev), size, () -> "rowSize of " + row + " with " + header.stats());
        FixedBuffer out = new FixedBuffer(size + 16);
        out.position(5); // not at offset 0, as inside a partition block
        long cellsBefore = collector.cellsWritten();
        assertDoesNotThrow(() -> ser.writeRow(out, row, prev, size), () -> row + " with " + header.stats());
        assertEquals(5 + size, out.position());
        assertEquals(row.cellCount(), collector.cellsWritten() - cellsBefore, "every written cell feeds the stats");
    }

    void run(String cql, long seed, int iterations) {
        dev.flushline.oracle.CassandraOracle.init();
        TableSchema schema = CqlParser.parse(cql);
        Random r = new Random(seed);
        int[] densities = {0, 3, 30, 50, 70, 97, 100};
        for (EncodingStats stats : statsChoices(r)) {
            for (int h = 0; h < 4; h++) {
                boolean all = h < 2;
                SerializationHeader header = new SerializationHeader(schema, stats,
                        subset(r, schema.staticColumns().length, all), subset(r, schema.regularColumns().length, all));
                StatsCollector collector = new StatsCollector(new ClusteringComparator(schema));
                RowSerializer ser = new RowSerializer(header, collector);
                Gen gen = new Gen(schema, r.nextLong());
                for (int i = 0; i < iterations; i++) {
                    long prev = r.nextInt(3) == 0 ? 0 : r.nextInt(r.nextBoolean() ? 200 : Integer.MAX_VALUE);
                    int density = densities[r.nextInt(densities.length)];
                    checkRow(schema, header, ser, collector, gen.row(false, header, density), prev);
                    if (header.hasStatics()) checkRow(schema, header, ser, collector, gen.row(true, header, density), 0);

                    ClusteringBound b = gen.bound();
                    DeletionTime end = b.isStart() && !b.isBoundary() ? DeletionTime.LIVE : gen.deletion();
                    DeletionTime start = b.isEnd() && !b.isBoundary() ? DeletionTime.LIVE : gen.deletion();
                    int msize = ser.markerSize(b, end, start, prev);
                    assertEquals(expectedMarkerSize(schema, stats, b, end, start, prev), msize, () -> "markerSize " + b);
                    FixedBuffer out = new FixedBuffer(msize);
                    assertDoesNotThrow(() -> ser.writeMarker(out, b, end, start, prev, msize));
                    assertEquals(msize, out.position());
                }
            }
        }
    }

    /**
     * Rows as a plain INSERT writes them (every simple cell shares the row's timestamp, and its TTL if
     * any): the size pass sizes their simple cells from the Row's summary instead of reading them. The
     * sizes must still equal the independent recomputation and the bytes written, for fixed- and
     * variable-length columns, empty values, values past one vint byte, header subsets and all three
     * cell classes; one cell that does not share the liveness turns the summary off.
     */
    @Test
    void rowsWhoseCellsShareTheRowLivenessAreSizedExactly() {
        dev.flushline.oracle.CassandraOracle.init();
        for (String cql : new String[] {WIDE, bigTable()}) {
            TableSchema schema = CqlParser.parse(cql);
            Random r = new Random(31);
            ColumnMetadata[] cols = schema.regularColumns();
            int cs = schema.regularComplexStart();
            int plain = 0;
            for (EncodingStats stats : statsChoices(r)) {
                for (int h = 0; h < 3; h++) {
                    SerializationHeader header = new SerializationHeader(schema, stats,
                            subset(r, schema.staticColumns().length, h < 2), subset(r, cols.length, h < 2));
                    StatsCollector collector = new StatsCollector(new ClusteringComparator(schema));
                    RowSerializer ser = new RowSerializer(header, collector);
                    Gen gen = new Gen(schema, r.nextLong());
                    for (int i = 0; i < 200; i++) {
                        long ts = gen.ts();
                        boolean expiring = r.nextInt(3) == 0;
                        int ttl = expiring ? gen.ttl() : Cell.NO_TTL;
                        long exp = expiring ? gen.ldt() : Cell.NO_DELETION_TIME;
                        Cell[] cells = new Cell[cs];
                        int odd = r.nextInt(4) == 0 ? r.nextInt(Math.max(1, cs)) : -1; // one cell that does not share
                        for (int p = 0; p < cs; p++) {
                            if (header.regularIndex(p) < 0 || r.nextInt(3) == 0) {
                                if (p == odd) odd = -1;
                                continue;
                            }
                            CqlType t = cols[p].type();
                            byte[] v = t.fixedLength() >= 0 ? (r.nextInt(5) == 0 ? new byte[0] : gen.value(t))
                                    : new byte[r.nextInt(4) == 0 ? 0 : r.nextInt(r.nextBoolean() ? 200 : 10)];
                            Cell a;
                            if (p == odd) {
                                a = r.nextBoolean() ? Cell.live(ts + 1, v, null) : Cell.tombstone(ts, gen.ldt(), null);
                            } else {
                                a = expiring ? Cell.expiring(ts, ttl, exp, v, null) : Cell.live(ts, v, null);
                            }
                            cells[p] = a;
                        }
                        ColumnMetadata[] cc = schema.clusteringColumns();
                        byte[][] ck = new byte[cc.length][];
                        for (int k = 0; k < cc.length; k++) ck[k] = gen.value(cc[k].type());
                        Row row = new Row(false, ck, ts, ttl, exp, DeletionTime.LIVE, cells, new ComplexColumn[cols.length - cs]);
                        assertEquals(odd < 0, row.simpleCellsShareLiveness(), () -> "summary flag of " + row);
                        if (row.simpleCellsShareLiveness()) plain++;
                        checkRow(schema, header, ser, collector, row, r.nextInt(3) == 0 ? 0 : r.nextInt(500));
                    }
                }
            }
            assertTrue(plain > 1000, "plain rows exercised: " + plain);
        }
    }

    /** A fixed-length column's value of the wrong length is refused by the summarised size pass too. */
    @Test
    void sharedLivenessRowWithAWrongFixedLengthIsRefused() {
        dev.flushline.oracle.CassandraOracle.init();
        TableSchema schema = CqlParser.parse("CREATE TABLE ks.f (pk int, ck int, a int, b text, PRIMARY KEY (pk, ck))");
        SerializationHeader header = new SerializationHeader(schema, EncodingStats.NO_STATS, new boolean[0], new boolean[] {true, true});
        RowSerializer ser = new RowSerializer(header, new StatsCollector(new ClusteringComparator(schema)));
        Row row = new Row(false, new byte[][] {new byte[4]}, 5, Cell.NO_TTL, Cell.NO_DELETION_TIME, DeletionTime.LIVE,
                new Cell[] {Cell.live(5, new byte[3], null), Cell.live(5, new byte[2], null)}, new ComplexColumn[0]);
        assertTrue(row.simpleCellsShareLiveness());
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> ser.rowSize(row, 0));
        assertEquals("cell value has 3 bytes; its type needs exactly 4", e.getMessage());
    }

    /** The test's own vint arithmetic, pinned to spec values so the oracle itself is trustworthy. */
    @Test
    void independentVIntSizesMatchTheSpec() {
        assertEquals(1, vsize(0));
        assertEquals(1, vsize(127));
        assertEquals(2, vsize(128));
        assertEquals(8, vsize((1L << 56) - 1));
        assertEquals(9, vsize(1L << 56));
        assertEquals(9, vsize(-1));
        assertEquals(9, vsize32(-1), "a negative int delta is sign-extended: 9 bytes");
        assertEquals(5, vsize32(Integer.MAX_VALUE));
        // min 1800000000, ldt 0xFFFFFFFD wraps the int delta (sign-extended) -> 9 bytes.
        assertEquals(9, ldtSize(new EncodingStats(0, 1_800_000_000L, 0), Cell.MAX_DELETION_TIME));
        assertEquals(dev.flushline.io.VInt.sizeOfUnsigned(1L << 56), vsize(1L << 56));
    }

    @Test
    void wideTableWithStaticsCollectionsAndThreeClusteringColumns() {
        run(WIDE, 1, 300);
    }

    @Test
    void tableWith64PlusRegularColumnsUsesBothLargeBitmapEncodings() {
        run(bigTable(), 2, 150);
    }

    @Test
    void handPickedEdgeRows() {
        dev.flushline.oracle.CassandraOracle.init();
        TableSchema schema = CqlParser.parse(bigTable());
        int n = schema.regularColumns().length;
        boolean[] all = subset(new Random(0), n, true);
        boolean[] statics = subset(new Random(0), schema.staticColumns().length, true);
        for (EncodingStats stats : statsChoices(new Random(9))) {
            SerializationHeader header = new SerializationHeader(schema, stats, statics, all);
            StatsCollector collector = new StatsCollector(new ClusteringComparator(schema));
            RowSerializer ser = new RowSerializer(header, collector);
            int cs = schema.regularComplexStart();
            byte[][] ck = {ByteBuffer.allocate(4).putInt(7).array()};
            // 0 columns: liveness only (INSERT of just a key), deletion only, and an empty static row.
            Row keyOnly = new Row(false, ck, 5, 0, Cell.NO_DELETION_TIME, DeletionTime.LIVE, new Cell[cs], new ComplexColumn[n - cs]);
            checkRow(schema, header, ser, collector, keyOnly, 0);
            Row deleted = new Row(false, ck, Cell.NO_TIMESTAMP, 0, Cell.NO_DELETION_TIME, DeletionTime.of(5, Cell.MAX_DELETION_TIME),
                    new Cell[cs], new ComplexColumn[n - cs]);
            checkRow(schema, header, ser, collector, deleted, 17);
            Row emptyStatic = new Row(true, null, Cell.NO_TIMESTAMP, 0, Cell.NO_DELETION_TIME, DeletionTime.LIVE,
                    new Cell[schema.staticComplexStart()], new ComplexColumn[schema.staticColumns().length - schema.staticComplexStart()]);
            checkRow(schema, header, ser, collector, emptyStatic, 0);
            // Exactly n/2 and n/2 - 1 present: the two sides of the present/missing switch.
            for (int present : new int[] {n / 2 - 1, n / 2, n / 2 + 1, n - 1, 1}) {
                Cell[] cells = new Cell[cs];
                ComplexColumn[] complex = new ComplexColumn[n - cs];
                for (int p = 0; p < present; p++) {
                    if (p < cs) {
                        byte[] v = new byte[Math.max(0, schema.regularColumns()[p].type().fixedLength())];
                        cells[p] = Cell.expiring(6, p % 2 == 0 ? 1 : Cell.MAX_TTL, Cell.MAX_DELETION_TIME, v, null);
                    } else {
                        complex[p - cs] = new ComplexColumn(DeletionTime.LIVE, new Cell[0]);
                    }
                }
                checkRow(schema, header, ser, collector,
                        new Row(false, ck, 6, Cell.MAX_TTL, Cell.MAX_DELETION_TIME, DeletionTime.LIVE, cells, complex), 3);
            }
        }
    }
}

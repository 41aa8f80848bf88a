package dev.flushline.ops;

import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.Mutation;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.RangeTombstone;
import dev.flushline.data.Row;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.CqlType;
import dev.flushline.schema.TableSchema;
import dev.flushline.schema.ValueCodec;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each operation kind becomes exactly the PartitionUpdate CQL would make; each bad input is named. */
class OperationReaderTest {
    static final long NOW = 1_750_000_000L;
    static final String CQL = "CREATE TABLE ks.t (pk int, ck text, ck2 int, s text static, ss set<int> static, v1 int, v2 text, "
            + "tags set<text>, l list<int>, m map<text, int>, fr frozen<list<int>>, PRIMARY KEY (pk, ck, ck2)) "
            + "WITH CLUSTERING ORDER BY (ck ASC, ck2 DESC)";
    static final TableSchema T = CqlParser.parse(CQL);

    // ---- helpers ----

    static List<Mutation> readAll(TableSchema schema, long now, String text) throws Exception {
        OperationReader r = OperationReader.ofString(schema, text, "ops.jsonl", now);
        List<Mutation> out = new ArrayList<>();
        for (Mutation m; (m = r.next()) != null; ) out.add(m);
        return out;
    }

    static PartitionUpdate one(String line) throws Exception {
        return one(T, line);
    }

    static PartitionUpdate one(TableSchema schema, String line) throws Exception {
        List<Mutation> ms = readAll(schema, NOW, line);
        assertEquals(1, ms.size());
        return ms.get(0).update();
    }

    static String error(String text) {
        return error(T, NOW, text);
    }

    static String error(TableSchema schema, long now, String text) {
        BadInputException e = assertThrows(BadInputException.class, () -> readAll(schema, now, text));
        return e.getMessage();
    }

    static byte[] i32(int x) {
        return new byte[] {(byte) (x >> 24), (byte) (x >> 16), (byte) (x >> 8), (byte) x};
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static Cell cell(Row r, String column) {
        ColumnMetadata c = T.column(column);
        return r.cells()[c.position()];
    }

    static ComplexColumn complex(Row r, String column) {
        ColumnMetadata c = T.column(column);
        int start = c.isStatic() ? T.staticComplexStart() : T.regularComplexStart();
        return r.complex()[c.position() - start];
    }

    // ---- inserts ----

    @Test
    void escapedSurrogatePairsAndNegativeZeroKeepTheirMeaning() throws Exception {
        TableSchema schema = CqlParser.parse("CREATE TABLE ks.j (pk int PRIMARY KEY, t text, d double, f float, i int)");
        // U+1D11E (musical G clef) as an escaped surrogate pair; -0.0 keeps its sign for double/float
        // (Cassandra reads it as the double -0.0); -0 for an int is 0, and -0 as an integer literal
        // for a double is +0.0, as Cassandra's JSON reader (an integer node) makes it.
        PartitionUpdate u = one(schema, "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":1,"
                + "\"t\":\"a\\ud834\\udd1eb\",\"d\":-0.0,\"f\":-0e0,\"i\":-0}}");
        Row r = u.rows().get(0);
        assertArrayEquals("a\uD834\uDD1Eb".getBytes(java.nio.charset.StandardCharsets.UTF_8), cell(schema, r, "t").valueBytes());
        assertArrayEquals(java.nio.ByteBuffer.allocate(8).putDouble(-0.0).array(), cell(schema, r, "d").valueBytes());
        assertArrayEquals(java.nio.ByteBuffer.allocate(4).putFloat(-0.0f).array(), cell(schema, r, "f").valueBytes());
        assertArrayEquals(i32(0), cell(schema, r, "i").valueBytes());
        PartitionUpdate plus = one(schema, "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":1,\"d\":-0}}");
        assertArrayEquals(new byte[8], cell(schema, plus.rows().get(0), "d").valueBytes());
    }

    static Cell cell(TableSchema schema, Row r, String column) {
        return r.cells()[schema.column(column).position()];
    }

    @Test
    void insertSetsLivenessCellsAndNullTombstones() throws Exception {
        PartitionUpdate u = one("{\"op\":\"insert\",\"timestamp\":100,\"values\":{\"pk\":1,\"ck\":\"a\",\"ck2\":2,\"v1\":5,\"v2\":null}}");
        assertArrayEquals(i32(1), u.key().key());
        assertSame(DeletionTime.LIVE, u.partitionDeletion());
        assertTrue(u.rangeTombstones().isEmpty());
        assertNull(u.staticRow());
        assertEquals(1, u.rows().size());
        Row r = u.rows().get(0);
        assertArrayEquals(new byte[][] {utf8("a"), i32(2)}, r.clustering());
        assertEquals(100, r.livenessTimestamp());
        assertFalse(r.isLivenessExpiring());
        assertTrue(r.deletion().isLive());
        Cell v1 = cell(r, "v1");
        assertArrayEquals(i32(5), v1.valueBytes());
        assertEquals(100, v1.timestamp());
        assertFalse(v1.isTombstone());
        Cell v2 = cell(r, "v2");
        assertTrue(v2.isTombstone());
        assertEquals(NOW, v2.localDeletionTime());
        assertEquals(100, v2.timestamp());
        assertNull(complex(r, "tags"), "absent column stays untouched");
        assertNull(cell(r, "fr"));
        assertEquals(2, r.columnCount());
    }

    @Test
    void insertWithTtlExpiresLivenessAndCells() throws Exception {
        PartitionUpdate u = one("{\"op\":\"insert\",\"timestamp\":7,\"ttl\":3600,\"values\":{\"pk\":1,\"ck\":\"a\",\"ck2\":2,\"v1\":5,\"tags\":[\"x\"]}}");
        Row r = u.rows().get(0);
        assertEquals(3600, r.livenessTtl());
        assertEquals(NOW + 3600, r.livenessExpirationTime());
        Cell v1 = cell(r, "v1");
        assertEquals(3600, v1.ttl());
        assertEquals(NOW + 3600, v1.localDeletionTime());
        ComplexColumn tags = complex(r, "tags");
        assertEquals(DeletionTime.of(6, NOW), tags.complexDeletion(), "a collection insert overwrites at ts - 1");
        assertEquals(3600, tags.cells()[0].ttl());
        assertEquals(NOW + 3600, tags.cells()[0].localDeletionTime());
    }

    @Test
    void tableDefaultTtlAppliesUnlessTheOperationGivesOne() throws Exception {
        TableSchema d = CqlParser.parse("CREATE TABLE ks.d (pk int PRIMARY KEY, v int) WITH default_time_to_live = 100");
        Row r = one(d, "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":1,\"v\":2}}").rows().get(0);
        assertEquals(100, r.livenessTtl());
        assertEquals(100, r.cells()[0].ttl());
        assertEquals(NOW + 100, r.cells()[0].localDeletionTime());
        Row zero = one(d, "{\"op\":\"insert\",\"timestamp\":1,\"ttl\":0,\"values\":{\"pk\":1,\"v\":2}}").rows().get(0);
        assertFalse(zero.isLivenessExpiring(), "USING TTL 0 overrides the default");
        assertEquals(Cell.NO_TTL, zero.cells()[0].ttl());
        assertEquals(Cell.NO_DELETION_TIME, zero.cells()[0].localDeletionTime());
    }

    @Test
    void insertOfStaticColumnsOnlyWritesTheStaticRowWithoutLiveness() throws Exception {
        PartitionUpdate u = one("{\"op\":\"insert\",\"timestamp\":5,\"values\":{\"pk\":3,\"s\":\"hello\"}}");
        assertTrue(u.rows().isEmpty());
        Row st = u.staticRow();
        assertNotNull(st);
        assertTrue(st.isStatic());
        assertFalse(st.hasLiveness());
        assertArrayEquals(utf8("hello"), cell(st, "s").valueBytes());
    }

    @Test
    void frozenCollectionIsOneSimpleCell() throws Exception {
        Row r = one("{\"op\":\"insert\",\"timestamp\":5,\"values\":{\"pk\":1,\"ck\":\"a\",\"ck2\":2,\"fr\":[3,1]}}").rows().get(0);
        CqlType fr = T.column("fr").type();
        assertArrayEquals(ValueCodec.encode(fr, List.of(new BigDecimal(3), new BigDecimal(1))), cell(r, "fr").valueBytes());
    }

    @Test
    void compositePartitionKeyIsCompositeTypeBytes() throws Exception {
        TableSchema c = CqlParser.parse("CREATE TABLE ks.c (a int, b text, v int, PRIMARY KEY ((a, b)))");
        PartitionUpdate u = one(c, "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"b\":\"xy\",\"a\":258,\"v\":1}}");
        assertArrayEquals(new byte[] {0, 4, 0, 0, 1, 2, 0, 0, 2, 'x', 'y', 0}, u.key().key());
        assertEquals(0, u.rows().get(0).clustering().length);
    }

    // ---- updates ----

    @Test
    void updateSetHasNoLivenessAndReplacesCollections() throws Exception {
        PartitionUpdate u = one("{\"op\":\"update\",\"timestamp\":50,\"key\":{\"pk\":1,\"ck\":\"a\",\"ck2\":2},"
                + "\"set\":{\"v1\":9,\"l\":[10,20,30],\"m\":{\"b\":2,\"a\":1},\"tags\":[]}}");
        Row r = u.rows().get(0);
        assertFalse(r.hasLiveness());
        assertArrayEquals(i32(9), cell(r, "v1").valueBytes());
        ComplexColumn l = complex(r, "l");
        assertEquals(DeletionTime.of(49, NOW), l.complexDeletion());
        assertEquals(3, l.cells().length);
        long previous = Long.MIN_VALUE;
        for (int i = 0; i < 3; i++) {
            byte[] path = l.cells()[i].pathBytes();
            assertEquals(16, path.length);
            assertEquals(1, (path[6] >> 4) & 0xF, "version 1");
            long ticks = TimeUuids.ticksOf(path);
            assertTrue(ticks > previous, "list paths strictly increase in apply order");
            previous = ticks;
            assertArrayEquals(i32(10 * (i + 1)), l.cells()[i].valueBytes());
            assertEquals(50, l.cells()[i].timestamp());
        }
        assertEquals(TimeUuids.firstTicks(NOW), TimeUuids.ticksOf(l.cells()[0].pathBytes()));
        ComplexColumn m = complex(r, "m");
        assertEquals(DeletionTime.of(49, NOW), m.complexDeletion());
        assertArrayEquals(utf8("a"), m.cells()[0].pathBytes(), "map cells sorted by key");
        assertArrayEquals(i32(1), m.cells()[0].valueBytes());
        assertArrayEquals(utf8("b"), m.cells()[1].pathBytes());
        ComplexColumn tags = complex(r, "tags");
        assertEquals(DeletionTime.of(49, NOW), tags.complexDeletion(), "an empty collection clears it");
        assertEquals(0, tags.cells().length);
    }

    @Test
    void updateAddAppendsWithoutDeletionAndListPathsKeepIncreasingAcrossOperations() throws Exception {
        List<Mutation> ms = readAll(T, NOW,
                "{\"op\":\"update\",\"timestamp\":9,\"key\":{\"pk\":1,\"ck\":\"a\",\"ck2\":2},\"add\":{\"l\":[1,2]}}\n"
              + "{\"op\":\"update\",\"timestamp\":1,\"key\":{\"pk\":1,\"ck\":\"a\",\"ck2\":2},\"add\":{\"l\":[3],\"tags\":[\"z\",\"y\",\"z\"],\"m\":{\"k\":7}}}\n");
        Row r1 = ms.get(0).update().rows().get(0);
        Row r2 = ms.get(1).update().rows().get(0);
        ComplexColumn l1 = complex(r1, "l"), l2 = complex(r2, "l");
        assertSame(DeletionTime.LIVE, l1.complexDeletion());
        assertSame(DeletionTime.LIVE, l2.complexDeletion());
        long t0 = TimeUuids.ticksOf(l1.cells()[0].pathBytes());
        assertEquals(t0 + 1, TimeUuids.ticksOf(l1.cells()[1].pathBytes()));
        assertEquals(t0 + 2, TimeUuids.ticksOf(l2.cells()[0].pathBytes()),
                "the later operation's element sorts last although its timestamp is lower");
        ComplexColumn tags = complex(r2, "tags");
        assertEquals(2, tags.cells().length, "set elements deduplicated");
        assertArrayEquals(utf8("y"), tags.cells()[0].pathBytes());
        assertArrayEquals(utf8("z"), tags.cells()[1].pathBytes());
        assertEquals(0, tags.cells()[0].valueLength());
        ComplexColumn m = complex(r2, "m");
        assertArrayEquals(utf8("k"), m.cells()[0].pathBytes());
        assertArrayEquals(i32(7), m.cells()[0].valueBytes());
    }

    /** The second list element path of {@code op}, decoded at {@code now}, with {@code seed} unless it is null. */
    static byte[] secondListPath(String op, long now, Long seed) throws Exception {
        OperationDecoder d = new OperationDecoder(T, now);
        if (seed != null) d.seedListPaths(seed);
        OperationReader r = new OperationReader(T, new java.io.ByteArrayInputStream(utf8(op)), "ops.jsonl", d);
        return complex(r.next().update().rows().get(0), "l").cells()[1].pathBytes();
    }

    @Test
    void listPathsAreRepeatableForTheSameInputNowAndSeed() throws Exception {
        String op = "{\"op\":\"update\",\"timestamp\":9,\"key\":{\"pk\":1,\"ck\":\"a\",\"ck2\":2},\"set\":{\"l\":[1,2]}}";
        byte[] a = secondListPath(op, NOW, 7L);
        assertArrayEquals(a, secondListPath(op, NOW, 7L));
        assertFalse(Arrays.equals(a, secondListPath(op, NOW + 1, 7L)), "another clock");
        assertFalse(Arrays.equals(a, secondListPath(op, NOW, 8L)), "another seed");
    }

    /** Two runs in the same second (or with the same --now) must not make the same paths: one append would replace the other. */
    @Test
    void listPathsOfUnseededDecodersNeverRepeat() throws Exception {
        String op = "{\"op\":\"update\",\"timestamp\":9,\"key\":{\"pk\":1,\"ck\":\"a\",\"ck2\":2},\"add\":{\"l\":[1,2]}}";
        java.util.Set<java.nio.ByteBuffer> seen = new java.util.HashSet<>();
        for (int i = 0; i < 1000; i++) {
            byte[] p = secondListPath(op, NOW, null);
            assertEquals(TimeUuids.firstTicks(NOW) + 1, TimeUuids.ticksOf(p), "the time part is the clock's");
            assertEquals(1, (p[6] & 0xF0) >> 4, "version 1");
            assertEquals(0x80, p[8] & 0xC0, "variant 10");
            assertEquals(1, p[10] & 1, "multicast bit: not a MAC address");
            assertTrue(seen.add(java.nio.ByteBuffer.wrap(p)), "path repeated after " + i + " decoders");
        }
    }

    @Test
    void staticOnlyUpdateAndCellDeleteTakeThePartitionKeyOnly() throws Exception {
        PartitionUpdate u = one("{\"op\":\"update\",\"timestamp\":4,\"key\":{\"pk\":1},\"set\":{\"s\":\"x\"},\"add\":{\"ss\":[2]}}");
        assertTrue(u.rows().isEmpty());
        assertArrayEquals(utf8("x"), cell(u.staticRow(), "s").valueBytes());
        assertArrayEquals(i32(2), complex(u.staticRow(), "ss").cells()[0].pathBytes());
        PartitionUpdate d = one("{\"op\":\"delete\",\"timestamp\":4,\"key\":{\"pk\":1},\"columns\":[\"s\",\"ss\"]}");
        assertTrue(d.rows().isEmpty());
        assertTrue(cell(d.staticRow(), "s").isTombstone());
        assertEquals(DeletionTime.of(4, NOW), complex(d.staticRow(), "ss").complexDeletion());
    }

    // ---- deletes ----

    @Test
    void deletePartitionRowAndPrefix() throws Exception {
        PartitionUpdate p = one("{\"op\":\"delete\",\"timestamp\":30,\"key\":{\"pk\":1}}");
        assertEquals(DeletionTime.of(30, NOW), p.partitionDeletion());
        assertTrue(p.rows().isEmpty());

        PartitionUpdate r = one("{\"op\":\"delete\",\"timestamp\":31,\"key\":{\"pk\":1,\"ck\":\"a\",\"ck2\":2}}");
        assertSame(DeletionTime.LIVE, r.partitionDeletion());
        Row row = r.rows().get(0);
        assertEquals(DeletionTime.of(31, NOW), row.deletion());
        assertFalse(row.hasLiveness());
        assertEquals(0, row.columnCount());

        PartitionUpdate pre = one("{\"op\":\"delete\",\"timestamp\":32,\"key\":{\"pk\":1,\"ck\":\"a\"}}");
        RangeTombstone rt = pre.rangeTombstones().get(0);
        assertEquals(ClusteringBound.INCL_START_BOUND, rt.start().kind());
        assertEquals(ClusteringBound.INCL_END_BOUND, rt.end().kind());
        assertArrayEquals(new byte[][] {utf8("a")}, rt.start().values());
        assertArrayEquals(new byte[][] {utf8("a")}, rt.end().values());
        assertEquals(DeletionTime.of(32, NOW), rt.deletion());
    }

    @Test
    void deleteRangeBoundsAreInclusiveOrExclusiveAndFollowDescOrder() throws Exception {
        RangeTombstone asc = one("{\"op\":\"delete\",\"timestamp\":1,\"key\":{\"pk\":1},\"range\":{\"ck\":{\">\":\"b\",\"<=\":\"d\"}}}")
                .rangeTombstones().get(0);
        assertEquals(ClusteringBound.EXCL_START_BOUND, asc.start().kind());
        assertArrayEquals(new byte[][] {utf8("b")}, asc.start().values());
        assertEquals(ClusteringBound.INCL_END_BOUND, asc.end().kind());
        assertArrayEquals(new byte[][] {utf8("d")}, asc.end().values());

        RangeTombstone open = one("{\"op\":\"delete\",\"timestamp\":1,\"key\":{\"pk\":1},\"range\":{\"ck\":{\">=\":\"b\"}}}")
                .rangeTombstones().get(0);
        assertEquals(ClusteringBound.INCL_START_BOUND, open.start().kind());
        assertEquals(ClusteringBound.INCL_END_BOUND, open.end().kind());
        assertEquals(0, open.end().size(), "no upper bound: to the end of the partition");

        // ck2 is DESC: in clustering order 5 comes before 2, so "< 5" starts the slice and ">= 2" ends it
        RangeTombstone desc = one("{\"op\":\"delete\",\"timestamp\":1,\"key\":{\"pk\":1,\"ck\":\"a\"},\"range\":{\"ck2\":{\">=\":2,\"<\":5}}}")
                .rangeTombstones().get(0);
        assertEquals(ClusteringBound.EXCL_START_BOUND, desc.start().kind());
        assertArrayEquals(new byte[][] {utf8("a"), i32(5)}, desc.start().values());
        assertEquals(ClusteringBound.INCL_END_BOUND, desc.end().kind());
        assertArrayEquals(new byte[][] {utf8("a"), i32(2)}, desc.end().values());
    }

    @Test
    void deleteColumnsWritesCellTombstonesAndComplexDeletionAtTheTimestamp() throws Exception {
        Row r = one("{\"op\":\"delete\",\"timestamp\":40,\"key\":{\"pk\":1,\"ck\":\"a\",\"ck2\":2},\"columns\":[\"v1\",\"tags\"]}").rows().get(0);
        assertFalse(r.hasLiveness());
        assertTrue(r.deletion().isLive());
        Cell v1 = cell(r, "v1");
        assertTrue(v1.isTombstone());
        assertEquals(40, v1.timestamp());
        assertEquals(NOW, v1.localDeletionTime());
        assertEquals(DeletionTime.of(40, NOW), complex(r, "tags").complexDeletion());
        assertEquals(0, complex(r, "tags").cells().length);
    }

    @Test
    void skipsBlankAndCommentLinesAndNoOps() throws Exception {
        OperationReader r = OperationReader.ofString(T, (
                "\n   \n// a comment\n  // another\n"
              + "{\"op\":\"update\",\"timestamp\":1,\"key\":{\"pk\":1,\"ck\":\"a\",\"ck2\":2},\"add\":{\"l\":[]}}\n"
              + "{\"op\":\"delete\",\"timestamp\":1,\"key\":{\"pk\":9}}\n"), "ops.jsonl", NOW);
        Mutation m = r.next();
        assertEquals(6, r.lineNumber());
        assertEquals(DeletionTime.of(1, NOW), m.update().partitionDeletion());
        assertEquals(1, r.noOps());
        assertNull(r.next());
    }

    @Test
    void aBadLineCanBeSkippedAndLeavesTheListClockUnchanged() throws Exception {
        OperationReader r = OperationReader.ofString(T, (
                "{\"op\":\"update\",\"timestamp\":1,\"key\":{\"pk\":1,\"ck\":\"a\",\"ck2\":2},\"set\":{\"l\":[1,2,3],\"v1\":\"x\"}}\n"
              + "{\"op\":\"update\",\"timestamp\":1,\"key\":{\"pk\":1,\"ck\":\"a\",\"ck2\":2},\"set\":{\"l\":[1]}}\n"), "ops.jsonl", NOW);
        BadInputException e = assertThrows(BadInputException.class, r::next);
        assertEquals(1, e.lineNumber());
        Mutation m = r.next();
        assertEquals(TimeUuids.firstTicks(NOW), TimeUuids.ticksOf(complex(m.update().rows().get(0), "l").cells()[0].pathBytes()));
    }

    // ---- bad input: every message names file:line, and the column and value ----

    @Test
    void wrongTypeNamesColumnTypeAndValue() {
        assertEquals("ops.jsonl:1: column 'v1' (int): \"abc\" is not an int",
                error("{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":1,\"ck\":\"a\",\"ck2\":2,\"v1\":\"abc\"}}"));
        assertEquals("ops.jsonl:1: column 'ck2' (int): 1.5 is not an int (not an integer)",
                error("{\"op\":\"delete\",\"timestamp\":1,\"key\":{\"pk\":1,\"ck\":\"a\",\"ck2\":1.5}}"));
        assertEquals("ops.jsonl:1: column 'l' (list<int>): \"x\" is not a list<int> (expected a JSON array)",
                error("{\"op\":\"update\",\"timestamp\":1,\"key\":{\"pk\":1,\"ck\":\"a\",\"ck2\":2},\"add\":{\"l\":\"x\"}}"));
    }

    @Test
    void malformedJsonNamesLineAndColumn() {
        assertEquals("ops.jsonl:3: malformed JSON at column 16: unexpected end of line, expected a string key",
                error("// c\n\n{\"op\":\"insert\",\n"));
        assertEquals("ops.jsonl:1: malformed JSON at column 14: unexpected ''', expected a value",
                error("{\"timestamp\":'1'}"));
        assertEquals("ops.jsonl:1: malformed JSON at column 16: duplicate key \"op\"",
                error("{\"op\":\"insert\",\"op\":\"delete\"}"));
        assertEquals("ops.jsonl:1: malformed JSON at column 14: leading zero in a number",
                error("{\"timestamp\":01}"));
        assertEquals("ops.jsonl:1: malformed JSON at column 4: unexpected 'x' after the end of the JSON value",
                error("{} x"));
    }

    /** jackson parses the lines; these are the rules the reader adds on top, each with the column it names. */
    @Test
    void oneValuePerLineNoLoneSurrogatesAndBoundedNesting() {
        assertEquals("ops.jsonl:1: malformed JSON at column 46: unexpected '{' after the end of the JSON value",
                error("{\"op\":\"delete\",\"timestamp\":1,\"key\":{\"pk\":1}} {}"));
        assertEquals("ops.jsonl:1: malformed JSON at column 3: unexpected '2' after the end of the JSON value",
                error("1 2"));
        assertEquals("ops.jsonl:1: malformed JSON at column 8: lone surrogate \\uD800",
                error("{\"op\":\"\\ud800\"}"));
        assertEquals("ops.jsonl:1: malformed JSON at column 3: lone surrogate \\uDC00",
                error("{\"\\udc00\":1}"));
        assertEquals("ops.jsonl:1: malformed JSON at column 9: \\uD834 is not followed by a low surrogate",
                error("[\"\\ud834\\u0041\"]"));
        assertEquals("ops.jsonl:1: malformed JSON at column 65: nested deeper than 64 levels", error("[".repeat(100) + "]".repeat(100)));
        assertEquals("ops.jsonl:1: malformed JSON at column 3: unexpected 'x', expected a string key", error("{ x"));
        assertEquals("ops.jsonl:1: malformed JSON at column 6: unexpected 't', expected a value", error("{\"a\":tru}"));
    }

    @Test
    void aByteOrderMarkIsSkippedOnTheFirstLineOnly() throws Exception {
        String op = "{\"op\":\"delete\",\"timestamp\":1,\"key\":{\"pk\":1}}";
        assertEquals(1, readAll(T, NOW, "\uFEFF" + op).size());
        assertEquals(1, readAll(T, NOW, "\uFEFF// a comment\n" + op).size());
        assertEquals("ops.jsonl:2: malformed JSON at column 1: unexpected '\uFEFF', expected a value",
                error(op + "\n\uFEFF" + op));
    }

    /**
     * Map keys are data: nearly every line brings new names, so the reader's shared names table
     * is started afresh now and then. Every key must still come out as written, and columns of
     * non-ASCII lines are counted in chars, not bytes.
     */
    @Test
    void newMapKeysOnEveryLineDecodeAsWritten() throws Exception {
        StringBuilder sb = new StringBuilder();
        int n = 2000;
        for (int i = 0; i < n; i++) {
            sb.append("{\"op\":\"update\",\"timestamp\":1,\"key\":{\"pk\":").append(i).append(",\"ck\":\"a\",\"ck2\":2},")
                    .append("\"add\":{\"m\":{\"k").append(i).append("\":").append(i).append(",\"\u00e9").append(i * 7).append("\":1}}}\n");
        }
        List<Mutation> ms = readAll(T, NOW, sb.toString());
        assertEquals(n, ms.size());
        for (int i = 0; i < n; i++) {
            ComplexColumn m = complex(ms.get(i).update().rows().get(0), "m");
            assertEquals(2, m.cells().length);
            List<String> keys = List.of(new String(m.cells()[0].pathBytes(), StandardCharsets.UTF_8),
                    new String(m.cells()[1].pathBytes(), StandardCharsets.UTF_8));
            assertTrue(keys.contains("k" + i) && keys.contains("\u00e9" + (i * 7)), i + ": " + keys);
        }
        assertEquals("ops.jsonl:1: malformed JSON at column 9: unexpected '}', expected a value",
                error("{\"\u00e9\u4e2d\ud834\udd1e\":}"));
    }

    @Test
    void unknownOpFieldOrColumn() {
        assertEquals("ops.jsonl:1: unknown op \"upsert\" (expected insert, update or delete)",
                error("{\"op\":\"upsert\",\"timestamp\":1}"));
        assertEquals("ops.jsonl:1: missing \"op\" (insert, update or delete)", error("{\"timestamp\":1}"));
        assertEquals("ops.jsonl:1: unknown column 'v9' in \"values\" (value \"q\"); table ks.t has no such column",
                error("{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":1,\"ck\":\"a\",\"ck2\":2,\"v9\":\"q\"}}"));
        assertEquals("ops.jsonl:1: unknown field \"vals\" for insert (value {}); expected op, timestamp, ttl, values",
                error("{\"op\":\"insert\",\"timestamp\":1,\"vals\":{}}"));
        assertEquals("ops.jsonl:1: unknown column 'nope' in \"columns\"; table ks.t has no such column",
                error("{\"op\":\"delete\",\"timestamp\":1,\"key\":{\"pk\":1,\"ck\":\"a\",\"ck2\":2},\"columns\":[\"nope\"]}"));
    }

    @Test
    void timestampAndTtlRules() {
        assertEquals("ops.jsonl:1: missing \"timestamp\" (microseconds, as USING TIMESTAMP)",
                error("{\"op\":\"delete\",\"key\":{\"pk\":1}}"));
        assertEquals("ops.jsonl:1: \"timestamp\": \"12\" is not an integer",
                error("{\"op\":\"delete\",\"timestamp\":\"12\",\"key\":{\"pk\":1}}"));
        assertEquals("ops.jsonl:1: \"ttl\": 630720001 is out of range (0..630720000 seconds)",
                error("{\"op\":\"insert\",\"timestamp\":1,\"ttl\":630720001,\"values\":{\"pk\":1,\"ck\":\"a\",\"ck2\":2}}"));
        assertEquals("ops.jsonl:1: \"ttl\": -1 is out of range (0..630720000 seconds)",
                error("{\"op\":\"insert\",\"timestamp\":1,\"ttl\":-1,\"values\":{\"pk\":1,\"ck\":\"a\",\"ck2\":2}}"));
        assertTrue(error(T, Cell.MAX_DELETION_TIME - 10, "{\"op\":\"insert\",\"timestamp\":1,\"ttl\":11,\"values\":{\"pk\":1,\"ck\":\"a\",\"ck2\":2}}")
                .startsWith("ops.jsonl:1: \"ttl\": 11 seconds from now (4294967283) expires after the latest expiration"));
        assertEquals("ops.jsonl:1: \"timestamp\": -5 is negative; a partition deletion needs a timestamp >= 0 "
                        + "(Cassandra 5.0.9 writes a negative one but reads it back as no deletion)",
                error("{\"op\":\"delete\",\"timestamp\":-5,\"key\":{\"pk\":1}}"));
        assertEquals("ops.jsonl:1: \"ttl\" is not allowed on a delete (ttl 5)",
                error("{\"op\":\"delete\",\"timestamp\":1,\"ttl\":5,\"key\":{\"pk\":1}}"));
    }

    @Test
    void keyRules() {
        assertEquals("ops.jsonl:1: missing clustering column 'ck2' (int) in \"values\"",
                error("{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":1,\"ck\":\"a\",\"v1\":1}}"));
        assertEquals("ops.jsonl:1: missing partition key column 'pk' (int) in \"key\"",
                error("{\"op\":\"delete\",\"timestamp\":1,\"key\":{\"ck\":\"a\"}}"));
        assertEquals("ops.jsonl:1: missing clustering column 'ck2' (int) in \"key\"",
                error("{\"op\":\"update\",\"timestamp\":1,\"key\":{\"pk\":1,\"ck\":\"a\"},\"set\":{\"v1\":1}}"));
        assertEquals("ops.jsonl:1: column 'ck' (text): a update of static columns only takes the partition key; "
                        + "clustering value \"a\" is not allowed (CQL refuses it too)",
                error("{\"op\":\"update\",\"timestamp\":1,\"key\":{\"pk\":1,\"ck\":\"a\"},\"set\":{\"s\":\"x\"}}"));
        assertEquals("ops.jsonl:1: clustering column 'ck2' is in \"key\" but 'ck' (text) before it is not",
                error("{\"op\":\"delete\",\"timestamp\":1,\"key\":{\"pk\":1,\"ck2\":3}}"));
        assertEquals("ops.jsonl:1: column 'pk' (int): null is not allowed in a primary key column",
                error("{\"op\":\"delete\",\"timestamp\":1,\"key\":{\"pk\":null}}"));
        assertEquals("ops.jsonl:1: column 'v1' (int) in \"key\" is not a primary key column (value 3)",
                error("{\"op\":\"delete\",\"timestamp\":1,\"key\":{\"pk\":1,\"v1\":3}}"));
        assertEquals("ops.jsonl:1: column 'ck' (text) is part of the primary key; it belongs in \"key\", not in \"set\"",
                error("{\"op\":\"update\",\"timestamp\":1,\"key\":{\"pk\":1,\"ck\":\"a\",\"ck2\":2},\"set\":{\"ck\":\"b\"}}"));
    }

    @Test
    void keysLongerThan64KiBAreRefused() {
        TableSchema b = CqlParser.parse("CREATE TABLE ks.b (pk blob, ck blob, v int, PRIMARY KEY (pk, ck))");
        String big = "0x" + "ab".repeat(65536);
        String pk = error(b, NOW, "{\"op\":\"delete\",\"timestamp\":1,\"key\":{\"pk\":\"" + big + "\"}}");
        assertTrue(pk.startsWith("ops.jsonl:1: column 'pk' (blob): \"0xabab"), pk);
        assertTrue(pk.endsWith(" is 65536 bytes, longer than the maximum of 65535 for a partition key"), pk);
        String ck = error(b, NOW, "{\"op\":\"delete\",\"timestamp\":1,\"key\":{\"pk\":\"0x01\",\"ck\":\"" + big + "\"}}");
        assertTrue(ck.startsWith("ops.jsonl:1: column 'ck' (blob): \"0xabab"), ck);
        assertTrue(ck.endsWith(" is 65536 bytes, longer than the maximum of 65535 for a clustering value"), ck);
        // just at the limit is fine
        assertEquals(1, assertDoesNotThrowCount(b, "{\"op\":\"delete\",\"timestamp\":1,\"key\":{\"pk\":\"0x" + "ab".repeat(65535) + "\"}}"));
        TableSchema c = CqlParser.parse("CREATE TABLE ks.c (a blob, b blob, v int, PRIMARY KEY ((a, b)))");
        String half = "0x" + "ab".repeat(40000);
        assertEquals("ops.jsonl:1: partition key (a, b) is 80006 bytes, longer than the maximum of 65535",
                error(c, NOW, "{\"op\":\"delete\",\"timestamp\":1,\"key\":{\"a\":\"" + half + "\",\"b\":\"" + half + "\"}}"));
    }

    /** Found by OpsFuzzTest: these messages used to repeat the whole value or name, thousands of chars. */
    @Test
    void longValuesAndNamesAreCutInMessages() {
        String digits = "1" + "0".repeat(5000);
        String cutDigits = digits.substring(0, 80) + "... (5001 chars)";
        assertEquals("ops.jsonl:1: column 'v1' (int): " + cutDigits + " is not an int (out of range)",
                error("{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":1,\"ck\":\"a\",\"ck2\":2,\"v1\":" + digits + "}}"));
        String text = "x".repeat(70_000);
        assertEquals("ops.jsonl:1: column 'v1' (int): \"" + "x".repeat(79) + "... (70002 chars) is not an int",
                error("{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":1,\"ck\":\"a\",\"ck2\":2,\"v1\":\"" + text + "\"}}"));
        String name = "k".repeat(5000);
        String cutName = "k".repeat(80) + "... (5000 chars)";
        assertEquals("ops.jsonl:1: unknown column '" + cutName + "' in \"values\" (value 1); table ks.t has no such column",
                error("{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"" + name + "\":1}}"));
        assertEquals("ops.jsonl:1: unknown field \"" + "k".repeat(79) + "... (5002 chars) for delete (value 1); "
                + "expected op, timestamp, key, range, columns", error("{\"op\":\"delete\",\"" + name + "\":1}"));
        assertEquals("ops.jsonl:1: malformed JSON at column 5007: duplicate key \"" + "k".repeat(79) + "... (5002 chars)",
                error("{\"" + name + "\":1,\"" + name + "\":2}"));
        assertEquals("ops.jsonl:1: malformed JSON at column 14: number out of range: 1e" + "9".repeat(78) + "... (5002 chars)",
                error("{\"timestamp\":1e" + "9".repeat(5000) + "}"));
        assertEquals("ops.jsonl:1: \"range\" of 'ck': unknown operator \"" + "=".repeat(79) + "... (5002 chars) (expected >, >=, < or <=)",
                error("{\"op\":\"delete\",\"timestamp\":1,\"key\":{\"pk\":1},\"range\":{\"ck\":{\"" + "=".repeat(5000) + "\":1}}}"));
    }

    /**
     * Found by OpsFuzzTest: BigDecimal and BigInteger parse in quadratic time, so a line holding a
     * number of a million digits took half a minute. Number text is refused past 10,000 chars.
     */
    @Test
    void numbersOfMoreThanTenThousandCharsAreRefused() throws Exception {
        TableSchema v = CqlParser.parse("CREATE TABLE ks.v (pk int PRIMARY KEY, vi varint, de decimal, n int)");
        String million = "7".repeat(1_000_000);
        assertEquals("ops.jsonl:1: malformed JSON at column 52: number of 1000000 chars, longer than the 10000 this reader takes",
                error(v, NOW, "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":1,\"vi\":" + million + "}}"));
        String shown = "\"" + "7".repeat(79) + "... (1000002 chars)";
        assertEquals("ops.jsonl:1: column 'vi' (varint): " + shown + " is not a varint (longer than 10000 chars)",
                error(v, NOW, "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":1,\"vi\":\"" + million + "\"}}"));
        assertEquals("ops.jsonl:1: column 'de' (decimal): " + shown + " is not a decimal (longer than 10000 chars)",
                error(v, NOW, "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":1,\"de\":\"" + million + "\"}}"));
        // an int column tells a number that is too large from one that is not a number, without parsing it whole
        assertEquals("ops.jsonl:1: column 'n' (int): " + shown + " is not an int (out of range)",
                error(v, NOW, "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":1,\"n\":\"" + million + "\"}}"));
        // 10,000 chars are taken
        String tenThousand = "7".repeat(10_000);
        assertEquals(1, readAll(v, NOW, "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":1,\"vi\":" + tenThousand
                + ",\"de\":\"" + tenThousand + "\"}}").size());
    }

    private static int assertDoesNotThrowCount(TableSchema s, String text) {
        try {
            return readAll(s, NOW, text).size();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void rangeAndColumnRules() {
        assertEquals("ops.jsonl:1: \"range\" column 'ck2' must be the next clustering column after the key, 'ck' (text)",
                error("{\"op\":\"delete\",\"timestamp\":1,\"key\":{\"pk\":1},\"range\":{\"ck2\":{\">\":1}}}"));
        assertEquals("ops.jsonl:1: \"range\" of 'ck' {\">\":\"d\",\"<\":\"b\"} selects nothing",
                error("{\"op\":\"delete\",\"timestamp\":1,\"key\":{\"pk\":1},\"range\":{\"ck\":{\">\":\"d\",\"<\":\"b\"}}}"));
        assertEquals("ops.jsonl:1: \"range\" of 'ck': unknown operator \"=\" (expected >, >=, < or <=)",
                error("{\"op\":\"delete\",\"timestamp\":1,\"key\":{\"pk\":1},\"range\":{\"ck\":{\"=\":\"d\"}}}"));
        assertEquals("ops.jsonl:1: \"range\" of 'ck' has two lower bounds",
                error("{\"op\":\"delete\",\"timestamp\":1,\"key\":{\"pk\":1},\"range\":{\"ck\":{\">\":\"d\",\">=\":\"e\"}}}"));
        assertEquals("ops.jsonl:1: a delete takes \"range\" or \"columns\", not both (CQL has no range deletion of columns)",
                error("{\"op\":\"delete\",\"timestamp\":1,\"key\":{\"pk\":1},\"range\":{\"ck\":{\">\":\"d\"}},\"columns\":[\"v1\"]}"));
        assertEquals("ops.jsonl:1: column 'v1' (int): \"add\" needs a non-frozen list, set or map column, cannot add 3",
                error("{\"op\":\"update\",\"timestamp\":1,\"key\":{\"pk\":1,\"ck\":\"a\",\"ck2\":2},\"add\":{\"v1\":3}}"));
        assertEquals("ops.jsonl:1: column 'fr' (frozen<list<int>>): \"add\" needs a non-frozen list, set or map column, cannot add [3]",
                error("{\"op\":\"update\",\"timestamp\":1,\"key\":{\"pk\":1,\"ck\":\"a\",\"ck2\":2},\"add\":{\"fr\":[3]}}"));
        assertEquals("ops.jsonl:1: column 'tags' (set<text>): null is not allowed inside a set<text>",
                error("{\"op\":\"update\",\"timestamp\":1,\"key\":{\"pk\":1,\"ck\":\"a\",\"ck2\":2},\"set\":{\"tags\":[null]}}"));
        assertEquals("ops.jsonl:1: update needs at least one column in \"set\", \"add\" or \"remove\"",
                error("{\"op\":\"update\",\"timestamp\":1,\"key\":{\"pk\":1,\"ck\":\"a\",\"ck2\":2},\"set\":{}}"));
        assertEquals("ops.jsonl:1: an operation must be a JSON object, not [1]", error("[1]"));
    }

    @Test
    void invalidUtf8IsBadInputOnItsLineAndTheNextLineStillReads() throws Exception {
        byte[] bytes = "// ok\r\n{\"op\":\"\u00e9\"}\r\n{\"op\":\"delete\",\"timestamp\":1,\"key\":{\"pk\":1}}"
                .getBytes(StandardCharsets.ISO_8859_1);
        try (OperationReader r = OperationReader.open(T, "-", new java.io.ByteArrayInputStream(bytes), NOW)) {
            BadInputException e = assertThrows(BadInputException.class, r::next);
            assertEquals("<stdin>:2: not valid UTF-8 at byte 8 of the line", e.getMessage());
            Mutation m = r.next();
            assertEquals(3, r.lineNumber());
            assertEquals(DeletionTime.of(1, NOW), m.update().partitionDeletion());
            assertNull(r.next());
        }
    }

    /**
     * The reader scans lines and checks UTF-8 eight bytes at a time: a bad byte, a line end and a
     * surrogate escape are found wherever they fall against those words.
     */
    @Test
    void badBytesLineEndsAndEscapesAreFoundAtEveryOffsetOfAWord() throws Exception {
        byte[][] bad = {{(byte) 0xFF}, {(byte) 0xC0, (byte) 0x80}, {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, {(byte) 0x80}};
        for (int k = 0; k < 20; k++) {
            for (byte[] b : bad) {
                java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();
                line.writeBytes(("{\"op\":\"" + "\u00e9".repeat(k % 3) + "a".repeat(k)).getBytes(StandardCharsets.UTF_8));
                int at = line.size() + 1;
                line.writeBytes(b);
                line.writeBytes("\"}\n{\"op\":\"delete\",\"timestamp\":1,\"key\":{\"pk\":1}}\n".getBytes(StandardCharsets.UTF_8));
                try (OperationReader r = OperationReader.open(T, "-", new java.io.ByteArrayInputStream(line.toByteArray()), NOW)) {
                    BadInputException e = assertThrows(BadInputException.class, r::next);
                    assertEquals("<stdin>:1: not valid UTF-8 at byte " + at + " of the line", e.getMessage(), "k=" + k);
                    assertEquals(DeletionTime.of(1, NOW), r.next().update().partitionDeletion());
                    assertNull(r.next());
                }
            }
            // A lone surrogate escape after k ASCII bytes: the value model refuses it (the fast path must see it).
            String text = "a".repeat(k) + "\\ud800";
            String op = "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":1,\"ck\":\"" + text + "\",\"ck2\":1}}\n";
            try (OperationReader r = OperationReader.open(T, "-", new java.io.ByteArrayInputStream(op.getBytes(StandardCharsets.UTF_8)), NOW)) {
                BadInputException e = assertThrows(BadInputException.class, r::next, "k=" + k);
                assertTrue(e.getMessage().endsWith("lone surrogate \\uD800"), e.getMessage());
            }
        }
        // Lines of every length from 0 to 40 bytes (blank lines are skipped), each found whole.
        StringBuilder many = new StringBuilder();
        String del = "{\"op\":\"delete\",\"timestamp\":1,\"key\":{\"pk\":1}}";
        int ops = 0;
        for (int len = 0; len <= 40; len++) {
            many.append(" ".repeat(len)).append('\n');
            many.append(del).append(" ".repeat(len % 9)).append('\n');
            ops++;
        }
        try (OperationReader r = OperationReader.open(T, "-", new java.io.ByteArrayInputStream(many.toString().getBytes(StandardCharsets.UTF_8)), NOW)) {
            int read = 0;
            while (r.next() != null) read++;
            assertEquals(ops, read);
            assertEquals(2 * ops, r.lineNumber());
        }
    }

    @Test
    void aLineOverTheLimitIsRefusedByNumberAndTheNextLineStillReads() throws Exception {
        String ok = "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":1,\"ck\":\"a\",\"ck2\":1,\"v1\":7}}";
        int limit = ok.length();
        String tooLong = "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":2,\"ck\":\"" + "x".repeat(200_000)
                + "\",\"ck2\":1,\"v1\":8}}";
        // The first line is exactly at the limit, with a CRLF end (the CR does not count).
        String text = ok + "\r\n" + tooLong + "\n" + ok + "\n";
        OperationReader r = new OperationReader(new java.io.ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)),
                "big.jsonl", new OperationDecoder(T, NOW), limit);
        assertNotNull(r.next());
        BadInputException e = assertThrows(BadInputException.class, r::next);
        assertTrue(e.getMessage().startsWith("big.jsonl:2:"), e.getMessage());
        // Refused when its length passes the limit, not at its end (which input without line ends never
        // reaches): so the message gives the limit, not the line's whole length.
        assertTrue(e.getMessage().contains("line is longer than the limit of " + limit + " bytes"), e.getMessage());
        assertNotNull(r.next(), "the line after the refused one is read");
        assertEquals(3, r.lineNumber());
        assertNull(r.next());
    }
}

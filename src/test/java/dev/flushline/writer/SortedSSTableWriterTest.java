package dev.flushline.writer;

import dev.flushline.data.Murmur3;
import dev.flushline.oracle.Bytes;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.FixedClock;
import dev.flushline.oracle.Partition;
import dev.flushline.ops.TimeUuids;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.CqlType;
import dev.flushline.schema.JavaValues;
import dev.flushline.schema.TableSchema;
import dev.flushline.schema.ValueCodec;
import org.apache.cassandra.utils.FilterFactory;
import org.apache.cassandra.utils.IFilter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The low-level sorted writer against cassandra-all 5.0.9: the same rows, inserted through
 * CQLSSTableWriter (which buffers and sorts them) and fed in token and clustering order to
 * {@link SortedSSTableWriter} as serialized bytes, must read back equal with cassandra-all's reader
 * (every native type, collections frozen or not, statics, TTLs, timestamps, nulls); without list
 * columns (whose cell paths are each writer's time-UUIDs) Data.db must be the same bytes. Then the
 * refusals (partitions or rows out of order, a key twice), splitting at the maximum size, the
 * bloom filter's size against Cassandra's own for the real key count, and abort.
 */
class SortedSSTableWriterTest {
    static final String NO_LISTS = "CREATE TABLE ks.nolists (pk int, ck text, ck2 int, s text static,"
            + " c_int int, c_text text, c_double double, c_blob blob, c_uuid uuid, c_decimal decimal, c_timestamp timestamp,"
            + " st set<text>, m map<text, timestamp>, sd set<date>, fl frozen<list<decimal>>, fm frozen<map<uuid, blob>>,"
            + " PRIMARY KEY (pk, ck, ck2)) WITH CLUSTERING ORDER BY (ck ASC, ck2 DESC)";
    static final String[] NO_LISTS_TYPED = {"c_int", "c_text", "c_double", "c_blob", "c_uuid", "c_decimal", "c_timestamp",
            "st", "m", "sd", "fl", "fm"};

    @TempDir
    Path tmp;

    private int runs;

    /** One INSERT: key values, write timestamp, TTL (0: none), the static value, and one value per typed column. */
    static final class Insert {
        int pk;
        String ck;
        int ck2;
        long timestamp;
        int ttl;
        Object s;
        Object[] values;
        byte[] key;
        byte[][] clustering;
    }

    static List<Insert> inserts(Random r, String[] typed, int n, int partitions) {
        List<Insert> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < n; i++) {
            Insert in = new Insert();
            in.pk = r.nextInt(partitions);
            in.ck = "c" + r.nextInt(5);
            in.ck2 = r.nextInt(6) - 3;
            if (!seen.add(in.pk + "/" + in.ck + "/" + in.ck2)) continue; // one insert per row: no reconciliation of cells
            in.timestamp = 1_000_000L + i; // unique: the static row's winner is clear
            in.ttl = WriterOracleTest.pick(r, 0, 0, 3600, 86400 * 365);
            in.s = WriterOracleTest.valueOrNullOrUnset("c_text", r);
            in.values = new Object[typed.length];
            for (int c = 0; c < typed.length; c++) in.values[c] = WriterOracleTest.valueOrNullOrUnset(typed[c], r);
            out.add(in);
        }
        return out;
    }

    static String insertStatement(String table, String[] typed) {
        StringBuilder cols = new StringBuilder("pk, ck, ck2, s");
        StringBuilder marks = new StringBuilder("?, ?, ?, ?");
        for (String c : typed) {
            cols.append(", ").append(c);
            marks.append(", ?");
        }
        return "INSERT INTO ks." + table + " (" + cols + ") VALUES (" + marks + ") USING TIMESTAMP ? AND TTL ?";
    }

    static byte[] encode(CqlType type, Object v) {
        return ValueCodec.encode(type, JavaValues.toCodecInput(type, v));
    }

    /** Sorts the inserts as an sstable holds them: partitions by token then key bytes, rows by clustering. */
    static List<Insert> sorted(TableSchema schema, List<Insert> inserts) {
        CqlType intType = CqlType.of(CqlType.Kind.INT);
        ColumnMetadata[] ck = schema.clusteringColumns();
        for (Insert in : inserts) {
            in.key = encode(intType, in.pk);
            in.clustering = new byte[][] {encode(ck[0].type(), in.ck), encode(ck[1].type(), in.ck2)};
        }
        List<Insert> out = new ArrayList<>(inserts);
        out.sort((a, b) -> {
            int c = Long.compare(Murmur3.token(a.key, 0, a.key.length), Murmur3.token(b.key, 0, b.key.length));
            if (c == 0) c = Arrays.compareUnsigned(a.key, b.key);
            if (c == 0) c = schema.compareClustering(a.clustering, b.clustering);
            return c;
        });
        return out;
    }

    /** The value of one column into the writer, as serialized bytes (or the primitive setter for some types). */
    static void set(SortedSSTableWriter w, ColumnMetadata c, Object v, long[] listTicks) {
        int i = c.position();
        if (v == FlushlineSSTableWriter.UNSET_VALUE) return;
        if (v == null) {
            w.setNull(i);
            return;
        }
        CqlType t = c.type();
        if (!t.isMultiCell()) {
            switch (t.kind()) {
                case INT: w.setInt(i, (Integer) v); return;
                case DOUBLE: w.setDouble(i, (Double) v); return;
                default: byte[] b = encode(t, v); w.set(i, b, 0, b.length); return;
            }
        }
        w.replaceCollection(i); // an INSERT replaces the collection
        Object in = JavaValues.toCodecInput(t, v);
        switch (t.kind()) {
            case SET: {
                for (byte[] e : ValueCodec.encodeSetElements(t, in)) w.addCollectionCell(i, e, 0, e.length, null, 0, 0);
                return;
            }
            case MAP: {
                byte[][] kv = ValueCodec.encodeMapEntries(t, in);
                for (int k = 0; k < kv.length; k += 2) w.addCollectionCell(i, kv[k], 0, kv[k].length, kv[k + 1], 0, kv[k + 1].length);
                return;
            }
            case LIST: {
                for (Object e : (List<?>) in) {
                    byte[] path = TimeUuids.bytes(listTicks[0]++, TimeUuids.seededNode(0));
                    byte[] b = ValueCodec.encodeElement(t, e);
                    w.addCollectionCell(i, path, 0, path.length, b, 0, b.length);
                }
                return;
            }
            default: throw new AssertionError(t);
        }
    }

    /** Feeds the sorted inserts; the static row of a partition is the one of its latest insert that sets s. */
    static void feed(SortedSSTableWriter w, TableSchema schema, String[] typed, List<Insert> sorted, long nowSeconds) throws Exception {
        long[] ticks = {TimeUuids.firstTicks(nowSeconds)};
        ColumnMetadata s = schema.column("s");
        ColumnMetadata[] cols = new ColumnMetadata[typed.length];
        for (int c = 0; c < typed.length; c++) cols[c] = schema.column(typed[c]);
        int ck2 = 1;
        for (int start = 0; start < sorted.size(); ) {
            int end = start;
            while (end < sorted.size() && sorted.get(end).pk == sorted.get(start).pk) end++;
            Insert first = sorted.get(start);
            w.startPartition(first.key, 0, first.key.length, Murmur3.token(first.key, 0, first.key.length));
            Insert st = null;
            for (int k = start; k < end; k++) {
                Insert in = sorted.get(k);
                if (in.s != FlushlineSSTableWriter.UNSET_VALUE && (st == null || in.timestamp > st.timestamp)) st = in;
            }
            if (st != null) {
                w.startStaticRow(st.timestamp, st.ttl);
                set(w, s, st.s, ticks);
                w.endRow();
            }
            for (int k = start; k < end; k++) {
                Insert in = sorted.get(k);
                w.startRow(in.timestamp, in.ttl, true);
                w.clustering(0, in.clustering[0], 0, in.clustering[0].length);
                w.clusteringInt(ck2, in.ck2);
                for (int c = cols.length - 1; c >= 0; c--) set(w, cols[c], in.values[c], ticks); // any column order
                w.endRow();
            }
            w.endPartition();
            start = end;
        }
    }

    /** Writes with both, returns {theirs, ours}. */
    Path[] writeBoth(String table, String name, String[] typed, List<Insert> inserts, long maxBytes) throws Exception {
        boolean frozen = FixedClock.installIfPossible();
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse(table);
        List<Insert> sorted = sorted(schema, inserts);
        String statement = insertStatement(name, typed);
        for (int attempt = 0; ; attempt++) {
            int run = runs++;
            Path theirs = Files.createDirectories(tmp.resolve("c" + run));
            Path ours = Files.createDirectories(tmp.resolve("f" + run));
            List<Object[]> rows = new ArrayList<>();
            for (Insert in : inserts) {
                Object[] row = new Object[typed.length + 6];
                row[0] = in.pk;
                row[1] = in.ck;
                row[2] = in.ck2;
                row[3] = in.s;
                System.arraycopy(in.values, 0, row, 4, typed.length);
                row[4 + typed.length] = in.timestamp;
                row[5 + typed.length] = in.ttl;
                rows.add(row);
            }
            long beforeMillis = WriterOracleTest.writeWithCassandra(theirs, table, statement, rows, null);
            if (beforeMillis < 0 && attempt < 5) continue; // the tombstones' "now" must be one second for both
            beforeMillis = Math.abs(beforeMillis);
            long before = beforeMillis / 1000;
            long now = frozen ? beforeMillis : before * 1000;
            try (SortedSSTableWriter w = SortedSSTableWriter.builder(schema, ours).nowMillis(now).maxSSTableSizeBytes(maxBytes).build()) {
                feed(w, schema, typed, sorted, now / 1000);
            }
            return new Path[] {theirs, ours};
        }
    }

    static void assertSameContent(String table, Path theirs, Path ours) {
        List<Partition> expected = WriterOracleTest.normalize(CassandraReader.readAll(theirs, table));
        List<Partition> actual = WriterOracleTest.normalize(CassandraReader.readAll(ours, table));
        assertFalse(expected.isEmpty(), "the test wrote nothing");
        assertEquals(expected.size(), actual.size(), "partition count");
        for (int i = 0; i < expected.size(); i++) assertEquals(expected.get(i), actual.get(i), "partition " + i);
    }

    static List<Path> files(Path dir, String suffix) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(suffix)).sorted().toList();
        }
    }

    @Test
    void everyTypeReadsBackAsCassandraWroteIt() throws Exception {
        long seed = 1201;
        List<Insert> inserts = inserts(new Random(seed), WriterOracleTest.TYPED, 400, 40);
        Path[] dirs = writeBoth(WriterOracleTest.TABLE, "all_types", WriterOracleTest.TYPED, inserts, 0);
        WriterOracleTest.assertLayout(dirs[1]);
        assertSameContent(WriterOracleTest.TABLE, dirs[0], dirs[1]);
    }

    @Test
    void withoutListsDataDbIsCassandrasBytes() throws Exception {
        for (long seed = 1; seed <= 3; seed++) {
            List<Insert> inserts = inserts(new Random(seed), NO_LISTS_TYPED, 300, 30);
            Path[] dirs = writeBoth(NO_LISTS, "nolists", NO_LISTS_TYPED, inserts, 0);
            assertSameContent(NO_LISTS, dirs[0], dirs[1]);
            List<Path> theirs = files(dirs[0], "-Data.db"), ours = files(dirs[1], "-Data.db");
            assertEquals(1, theirs.size());
            assertEquals(1, ours.size());
            // both LZ4-compressed with the same chunks: equal chunks mean equal uncompressed bytes
            assertArrayEquals(Files.readAllBytes(theirs.get(0)), Files.readAllBytes(ours.get(0)), "Data.db, seed " + seed);
        }
    }

    @Test
    void splitsAtTheMaximumSizeOnPartitionBoundariesWithFiltersSizedForTheirKeys() throws Exception {
        List<Insert> inserts = inserts(new Random(77), NO_LISTS_TYPED, 600, 120);
        Path[] dirs = writeBoth(NO_LISTS, "nolists", NO_LISTS_TYPED, inserts, 8 * 1024);
        List<Path> data = files(dirs[1], "-Data.db");
        assertTrue(data.size() >= 3, "expected several sstables, got " + data);
        assertSameContent(NO_LISTS, dirs[0], dirs[1]); // generation order is token order: no partition in two files
        try (CassandraReader reader = CassandraReader.open(dirs[1], NO_LISTS)) {
            long total = 0;
            for (CassandraReader.SSTable sst : reader.sstables()) {
                List<Partition> ps = sst.readAll();
                total += ps.size();
                // Cassandra's filter for exactly this many keys, at the table's default fp chance
                try (IFilter expected = FilterFactory.getFilter(ps.size(), 0.01)) {
                    Path filter = sst.dataFile().resolveSibling(sst.dataFile().getFileName().toString().replace("Data.db", "Filter.db"));
                    assertEquals(expected.serializedSize(false), Files.size(filter), "Filter.db of " + ps.size() + " keys: " + filter);
                }
                for (Partition p : ps) assertTrue(sst.bloomFilterMayContain(p.key()), "filter must hold " + p.key());
            }
            assertEquals(CassandraReader.readAll(dirs[0], NO_LISTS).size(), total);
        }
    }

    // ---- refusals and abort

    static byte[] intKey(int v) {
        return Bytes.int32(v).toBuffer().array();
    }

    SortedSSTableWriter simple(Path dir) throws Exception {
        return SortedSSTableWriter.builder("CREATE TABLE ks.t (pk int, ck int, v bigint, PRIMARY KEY (pk, ck))", dir)
                .nowMillis(1_700_000_000_000L).build();
    }

    /** Keys 0..n-1 in token order. */
    static byte[][] keysInTokenOrder(int n) {
        byte[][] keys = new byte[n][];
        for (int i = 0; i < n; i++) keys[i] = intKey(i);
        Arrays.sort(keys, (a, b) -> Long.compare(Murmur3.token(a, 0, a.length), Murmur3.token(b, 0, b.length)));
        return keys;
    }

    @Test
    void partitionsOutOfTokenOrderOrTwiceAreRefusedNamingTheKeys() throws Exception {
        byte[][] keys = keysInTokenOrder(2);
        Path dir = Files.createDirectories(tmp.resolve("order"));
        try (SortedSSTableWriter w = simple(dir)) {
            w.startPartition(keys[1], 0, 4);
            w.endPartition();
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> w.startPartition(keys[0], 0, 4));
            String pk0 = "pk=" + ByteBufferInt(keys[0]), pk1 = "pk=" + ByteBufferInt(keys[1]);
            assertTrue(e.getMessage().contains(pk0) && e.getMessage().contains(pk1) && e.getMessage().contains("sorts before"), e.getMessage());
            IllegalStateException again = assertThrows(IllegalStateException.class, () -> w.startPartition(keys[1], 0, 4));
            assertTrue(again.getMessage().contains(pk1) && again.getMessage().contains("already written"), again.getMessage());
            IllegalArgumentException token = assertThrows(IllegalArgumentException.class,
                    () -> w.startPartition(intKey(99), 0, 4, 12345L));
            assertTrue(token.getMessage().contains("pk=99") && token.getMessage().contains("12345"), token.getMessage());
            w.abort();
        }
    }

    static int ByteBufferInt(byte[] b) {
        return java.nio.ByteBuffer.wrap(b).getInt();
    }

    @Test
    void rowsOutOfClusteringOrderOrTwiceAreRefusedNamingTheRow() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("rows"));
        try (SortedSSTableWriter w = simple(dir)) {
            int v = w.column("v");
            w.startPartition(intKey(7), 0, 4);
            w.startRow(10, 0, true);
            w.clusteringInt(0, 5);
            w.setLong(v, 1L);
            w.endRow();
            w.startRow(10, 0, true);
            w.clusteringInt(0, 3);
            IllegalStateException e = assertThrows(IllegalStateException.class, w::endRow);
            assertTrue(e.getMessage().contains("(ck=3)") && e.getMessage().contains("(ck=5)") && e.getMessage().contains("pk=7"),
                    e.getMessage());
            w.startRow(10, 0, true);
            w.clusteringInt(0, 5);
            e = assertThrows(IllegalStateException.class, w::endRow);
            assertTrue(e.getMessage().contains("(ck=5)") && e.getMessage().contains("already written"), e.getMessage());
            w.startRow(10, 0, true);
            IllegalStateException missing = assertThrows(IllegalStateException.class, w::endRow);
            assertTrue(missing.getMessage().contains("'ck'"), missing.getMessage());
            w.startRow(10, 0, true);
            w.clusteringInt(0, 6);
            assertThrows(IllegalArgumentException.class, () -> w.setInt(v, 1)); // v is a bigint
            assertThrows(IllegalArgumentException.class, () -> w.set(v, new byte[3], 0, 3));
            w.setLong(v, 2L);
            assertThrows(IllegalStateException.class, () -> w.setLong(v, 3L));
            w.endRow();
            w.endPartition();
        }
        List<Partition> ps = CassandraReader.readAll(dir, "CREATE TABLE ks.t (pk int, ck int, v bigint, PRIMARY KEY (pk, ck))");
        assertEquals(1, ps.size());
        assertEquals(2, ps.get(0).unfiltereds().size(), "the refused rows are not written: " + ps);
    }

    @Test
    void abortRemovesEverySSTableAndNothingIsVisibleBeforeClose() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("abort"));
        byte[][] keys = keysInTokenOrder(300);
        SortedSSTableWriter w = SortedSSTableWriter.builder("CREATE TABLE ks.t (pk int, ck int, v bigint, PRIMARY KEY (pk, ck))", dir)
                .maxSSTableSizeBytes(1024).build();
        int v = w.column("v");
        for (byte[] k : keys) {
            w.startPartition(k, 0, 4);
            for (int c = 0; c < 5; c++) {
                w.startRow(1, 0, true);
                w.clusteringInt(0, c);
                w.setLong(v, c);
                w.endRow();
            }
            w.endPartition();
        }
        assertTrue(files(dir, "-TOC.txt").isEmpty(), "nothing is published before close");
        w.abort();
        try (Stream<Path> s = Files.list(dir)) {
            assertEquals(List.of(), s.toList());
        }
        assertThrows(IllegalStateException.class, () -> w.startPartition(keys[0], 0, 4));
    }

    @Test
    void closeWithARowOpenPublishesNothing() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("open"));
        SortedSSTableWriter w = simple(dir);
        w.startPartition(intKey(1), 0, 4);
        w.startRow(1, 0, true);
        w.clusteringInt(0, 1);
        assertThrows(IllegalStateException.class, w::close);
        try (Stream<Path> s = Files.list(dir)) {
            assertEquals(List.of(), s.toList());
        }
    }
}

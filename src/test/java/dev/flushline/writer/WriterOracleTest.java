package dev.flushline.writer;

import dev.flushline.oracle.Bytes;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.Cell;
import dev.flushline.oracle.ColumnData;
import dev.flushline.oracle.ComplexColumn;
import dev.flushline.oracle.FixedClock;
import dev.flushline.oracle.Partition;
import dev.flushline.oracle.Row;
import dev.flushline.oracle.Unfiltered;
import org.apache.cassandra.io.sstable.CQLSSTableWriter;
import org.apache.cassandra.utils.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The same statement and the same Java values, written once through cassandra-all 5.0.9's
 * CQLSSTableWriter and once through FlushlineSSTableWriter, read back with cassandra-all's sstable
 * reader: the content must be equal partition by partition (keys, deletions, rows, liveness,
 * cells, timestamps, TTLs, local deletion times, range markers). One table holds every native type
 * and non-frozen and frozen collections; each statement kind gets random rows (fixed seeds).
 *
 * <p>The one thing compared loosely: non-frozen list cell paths are time-UUIDs that each writer
 * makes from its own clock, so a list's cells are compared by value in path order, and the paths
 * are checked to increase.
 */
class WriterOracleTest {
    static final String TABLE = "CREATE TABLE ks.all_types ("
            + " pk int, ck text, ck2 int, s text static,"
            + " c_ascii ascii, c_bigint bigint, c_blob blob, c_boolean boolean, c_date date, c_decimal decimal,"
            + " c_double double, c_float float, c_inet inet, c_int int, c_smallint smallint, c_text text, c_time time,"
            + " c_timestamp timestamp, c_timeuuid timeuuid, c_tinyint tinyint, c_uuid uuid, c_varint varint,"
            + " l list<int>, st set<text>, m map<text, timestamp>, sd set<date>, fl frozen<list<decimal>>,"
            + " fm frozen<map<uuid, blob>>, lt list<time>,"
            + " PRIMARY KEY (pk, ck, ck2)) WITH CLUSTERING ORDER BY (ck ASC, ck2 DESC)";

    static final String[] TYPED = {"c_ascii", "c_bigint", "c_blob", "c_boolean", "c_date", "c_decimal", "c_double", "c_float",
            "c_inet", "c_int", "c_smallint", "c_text", "c_time", "c_timestamp", "c_timeuuid", "c_tinyint", "c_uuid", "c_varint",
            "l", "st", "m", "sd", "fl", "fm", "lt"};
    static final Set<String> LISTS = Set.of("l", "lt");

    @TempDir
    Path tmp;

    private int runs;

    /** The sstable format both writers are told to write, by Cassandra's name for it; null: each writer's default (big). */
    String format() {
        return null;
    }

    // ---- values

    /** A random value of the column's type, as the Java driver maps it; edge values included. */
    static Object value(String column, Random r) {
        switch (column) {
            case "c_ascii": return r.nextInt(8) == 0 ? "" : "asc" + r.nextInt(1000);
            case "c_bigint": return pick(r, Long.MIN_VALUE, Long.MAX_VALUE, 0L, r.nextLong());
            case "c_blob": return ByteBuffer.wrap(bytes(r, r.nextInt(4) == 0 ? 0 : 1 + r.nextInt(40)));
            case "c_boolean": return r.nextBoolean();
            case "c_date": return LocalDate.ofEpochDay(r.nextInt(200_000) - 100_000);
            case "c_decimal": return pick(r, new BigDecimal("1.10"), new BigDecimal("-0.000"), new BigDecimal("1E+30"),
                    new BigDecimal(new BigInteger(100, r), r.nextInt(20) - 10));
            case "c_double": return pick(r, Double.NaN, Double.longBitsToDouble(0xFFF0_0000_0000_0123L), -0.0, Double.NEGATIVE_INFINITY, Double.MIN_VALUE, r.nextDouble() * 1e10);
            case "c_float": return pick(r, Float.NaN, Float.intBitsToFloat(0xFFC0_0001), -0.0f, Float.POSITIVE_INFINITY, Float.MAX_VALUE, r.nextFloat());
            case "c_inet": return inet(r);
            case "c_int": return pick(r, Integer.MIN_VALUE, Integer.MAX_VALUE, 0, r.nextInt());
            case "c_smallint": return (short) r.nextInt();
            case "c_text": return pick(r, "", "h\u00e9llo \u2603 \ud83d\ude00", "t" + r.nextInt());
            case "c_time": return LocalTime.ofNanoOfDay(Math.floorMod(r.nextLong(), 86_400_000_000_000L));
            case "c_timestamp": return Instant.ofEpochMilli(r.nextLong() % 4_000_000_000_000L);
            case "c_timeuuid": return new UUID((r.nextLong() & ~0xF000L) | 0x1000L, (r.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L);
            case "c_tinyint": return (byte) r.nextInt();
            case "c_uuid": return new UUID(r.nextLong(), r.nextLong());
            case "c_varint": return pick(r, BigInteger.ZERO, new BigInteger(200, r).negate(), BigInteger.valueOf(r.nextInt()));
            case "l": { List<Integer> l = new ArrayList<>(); for (int i = r.nextInt(4); i > 0; i--) l.add(r.nextInt(100)); return l; }
            case "st": { Set<String> s = new LinkedHashSet<>(); for (int i = r.nextInt(4); i > 0; i--) s.add("e" + r.nextInt(10)); return s; }
            case "m": { Map<String, Instant> m = new LinkedHashMap<>(); for (int i = r.nextInt(4); i > 0; i--) m.put("k" + r.nextInt(10), Instant.ofEpochMilli(r.nextInt())); return m; }
            case "sd": { Set<LocalDate> s = new LinkedHashSet<>(); for (int i = r.nextInt(3); i > 0; i--) s.add(LocalDate.ofEpochDay(r.nextInt(40_000) - 20_000)); return s; }
            case "fl": { List<BigDecimal> l = new ArrayList<>(); for (int i = r.nextInt(3); i > 0; i--) l.add(BigDecimal.valueOf(r.nextInt(), 3)); return l; }
            case "fm": { Map<UUID, ByteBuffer> m = new HashMap<>(); for (int i = r.nextInt(3); i > 0; i--) m.put(new UUID(r.nextLong(), r.nextLong()), ByteBuffer.wrap(bytes(r, r.nextInt(5)))); return m; }
            case "lt": { List<LocalTime> l = new ArrayList<>(); for (int i = r.nextInt(3); i > 0; i--) l.add(LocalTime.ofSecondOfDay(r.nextInt(86_400))); return l; }
            default: throw new AssertionError(column);
        }
    }

    @SafeVarargs
    static <T> T pick(Random r, T... choices) {
        return choices[r.nextInt(choices.length)];
    }

    static byte[] bytes(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    static InetAddress inet(Random r) {
        try {
            return InetAddress.getByAddress(bytes(r, r.nextBoolean() ? 4 : 16));
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /** CQLSSTableWriter's codecs (its bundled driver 3 types): date a Cassandra LocalDate, time a Long, timestamp a Date. */
    static Object forCassandra(Object v) {
        if (v == FlushlineSSTableWriter.UNSET_VALUE) return CQLSSTableWriter.UNSET_VALUE;
        if (v instanceof LocalDate) {
            return org.apache.cassandra.cql3.functions.types.LocalDate.fromDaysSinceEpoch((int) ((LocalDate) v).toEpochDay());
        }
        if (v instanceof LocalTime) return ((LocalTime) v).toNanoOfDay();
        if (v instanceof Instant) return Date.from((Instant) v);
        if (v instanceof ByteBuffer) return ((ByteBuffer) v).duplicate();
        if (v instanceof List) { List<Object> out = new ArrayList<>(); for (Object e : (List<?>) v) out.add(forCassandra(e)); return out; }
        if (v instanceof Set) { Set<Object> out = new LinkedHashSet<>(); for (Object e : (Set<?>) v) out.add(forCassandra(e)); return out; }
        if (v instanceof Map) {
            Map<Object, Object> out = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) out.put(forCassandra(e.getKey()), forCassandra(e.getValue()));
            return out;
        }
        return v;
    }

    // ---- the comparison

    /** Rows of values for one statement, in our Java mapping. */
    interface Rows {
        List<Object[]> make(Random r);
    }

    /**
     * Writes the rows with both writers (positional addRow, or addRow(Map) with {@code names}),
     * reads both with cassandra-all, and compares.
     */
    void compare(String statement, List<Object[]> rows, List<String> names) throws Exception {
        compare(TABLE, statement, rows, names);
    }

    void compare(String table, String statement, List<Object[]> rows, List<String> names) throws Exception {
        compare(table, statement, rows, names, false);
    }

    /** As above; {@code sorted}: ours is built with sorted() (the rows must be in sstable order). */
    void compare(String table, String statement, List<Object[]> rows, List<String> names, boolean sorted) throws Exception {
        boolean frozen = FixedClock.installIfPossible();
        CassandraOracle.init();
        for (int attempt = 0; ; attempt++) {
            // fresh directories for every attempt of every comparison: a retried attempt leaves files behind
            int run = runs++;
            Path theirs = Files.createDirectories(tmp.resolve("c" + run));
            Path ours = Files.createDirectories(tmp.resolve("f" + run));
            long beforeMillis = writeWithCassandra(theirs, table, statement, rows, names, format());
            if (beforeMillis < 0 && attempt < 5) continue; // the tombstones' "now" must be one second for both
            beforeMillis = Math.abs(beforeMillis);
            long before = beforeMillis / 1000;
            FlushlineSSTableWriter.Builder builder = FlushlineSSTableWriter.builder().inDirectory(ours).forTable(table).using(statement)
                    .withNowMillis(frozen ? beforeMillis : before * 1000);
            if (sorted) builder.sorted();
            if (format() != null) builder.withFormat(format());
            try (FlushlineSSTableWriter w = builder.build()) {
                for (Object[] row : rows) {
                    if (names == null) w.addRow(row);
                    else w.addRow(asMap(names, row));
                }
            }
            String files = "bti".equals(format()) ? "da-\\d+-bti-" : "oa-\\d+-big-";
            assertLayout(ours, files);
            assertLayout(theirs, files);
            List<Partition> expected = normalize(CassandraReader.readAll(theirs, table));
            List<Partition> actual = normalize(CassandraReader.readAll(ours, table));
            assertFalse(expected.isEmpty(), "the test wrote nothing");
            assertEquals(expected.size(), actual.size(), statement + ": partition count");
            for (int i = 0; i < expected.size(); i++) {
                assertEquals(expected.get(i), actual.get(i), statement + ": partition " + i);
            }
            return;
        }
    }

    /**
     * Writes the rows (our Java mapping) with CQLSSTableWriter into {@code dir}; returns Cassandra's
     * clock in millis when it started, negated if the clock's second changed before it finished
     * (its tombstones' "now" is then not one second).
     */
    static long writeWithCassandra(Path dir, String table, String statement, List<Object[]> rows, List<String> names) throws Exception {
        return writeWithCassandra(dir, table, statement, rows, names, null);
    }

    /** As above, CQLSSTableWriter told to write the format named {@code format} (null: its default). */
    static long writeWithCassandra(Path dir, String table, String statement, List<Object[]> rows, List<String> names, String format)
            throws Exception {
        long beforeMillis = Clock.Global.currentTimeMillis();
        CQLSSTableWriter.Builder b = CQLSSTableWriter.builder().inDirectory(dir.toString()).forTable(table).using(statement);
        if (format != null) b.withFormat(org.apache.cassandra.config.DatabaseDescriptor.getSSTableFormats().get(format));
        try (CQLSSTableWriter w = b.build()) {
            for (Object[] row : rows) {
                Object[] c = new Object[row.length];
                for (int i = 0; i < row.length; i++) c[i] = forCassandra(row[i]);
                if (names == null) w.addRow(c);
                else w.addRow(asMap(names, c));
            }
        }
        long after = Clock.Global.currentTimeMillis() / 1000;
        return after == beforeMillis / 1000 ? beforeMillis : -beforeMillis;
    }

    static Map<String, Object> asMap(List<String> names, Object[] values) {
        Map<String, Object> m = new HashMap<>();
        for (int i = 0; i < names.size(); i++) m.put(names.get(i), values[i]);
        return m;
    }

    /** Files straight in the directory, named as CQLSSTableWriter names them; no subdirectory. */
    static void assertLayout(Path dir) throws Exception {
        assertLayout(dir, "oa-\\d+-big-");
    }

    /** As above, every file name starting with {@code prefixPattern} (a regular expression). */
    static void assertLayout(Path dir, String prefixPattern) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.toList()) {
                assertFalse(Files.isDirectory(p), "unexpected directory " + p);
                assertTrue(p.getFileName().toString().matches(prefixPattern + "[A-Za-z0-9.]+"), "unexpected file " + p);
            }
        }
    }

    /** List paths are time-UUIDs of each writer's clock: check they increase, then number them. */
    static List<Partition> normalize(List<Partition> partitions) {
        List<Partition> out = new ArrayList<>();
        for (Partition p : partitions) {
            List<Unfiltered> us = new ArrayList<>();
            for (Unfiltered u : p.unfiltereds()) us.add(u instanceof Row ? normalize((Row) u) : u);
            out.add(new Partition(p.key(), p.deletion(), normalize(p.staticRow()), us));
        }
        return out;
    }

    static Row normalize(Row row) {
        List<ColumnData> cols = new ArrayList<>();
        for (ColumnData cd : row.columns()) {
            if (cd instanceof ComplexColumn && LISTS.contains(((ComplexColumn) cd).column())) {
                ComplexColumn cc = (ComplexColumn) cd;
                List<Cell> cells = new ArrayList<>();
                for (int i = 0; i < cc.cells().size(); i++) {
                    Cell c = cc.cells().get(i);
                    if (i > 0) {
                        UUID prev = uuid(cc.cells().get(i - 1).path());
                        assertTrue(prev.timestamp() <= uuid(c.path()).timestamp(), "list paths must not go back: " + cc);
                    }
                    cells.add(c.withPath(Bytes.int32(i)));
                }
                cols.add(new ComplexColumn(cc.column(), cc.complexDeletion(), cells));
            } else {
                cols.add(cd);
            }
        }
        return new Row(row.clustering(), row.liveness(), row.deletion(), cols);
    }

    static UUID uuid(Bytes b) {
        ByteBuffer bb = b.toBuffer();
        return new UUID(bb.getLong(0), bb.getLong(8));
    }

    static Object valueOrNullOrUnset(String column, Random r) {
        int k = r.nextInt(12);
        if (k == 0) return null;
        if (k == 1) return FlushlineSSTableWriter.UNSET_VALUE;
        return value(column, r);
    }

    /**
     * Cassandra 5.0.9's list append ({@code l = l + ?}) throws a ClassCastException for an unset
     * value (Lists.Appender does not check for it), so list appends get values or null only.
     */
    static Object valueOrNull(String column, Random r) {
        return r.nextInt(12) == 0 ? null : value(column, r);
    }

    // ---- the statements

    /** INSERT of the key, (the static s,) every typed column, USING TIMESTAMP ? AND TTL ?. */
    static String everyTypeInsert(boolean withStatic) {
        StringBuilder cols = new StringBuilder(withStatic ? "pk, ck, ck2, s" : "pk, ck, ck2");
        StringBuilder marks = new StringBuilder(withStatic ? "?, ?, ?, ?" : "?, ?, ?");
        for (String c : TYPED) {
            cols.append(", ").append(c);
            marks.append(", ?");
        }
        return "INSERT INTO ks.all_types (" + cols + ") VALUES (" + marks + ") USING TIMESTAMP ? AND TTL ?";
    }

    /** 300 rows for {@link #everyTypeInsert}: values, nulls and unsets of every type, timestamps and TTLs. */
    static List<Object[]> everyTypeRows(Random r, boolean withStatic) {
        List<Object[]> rows = new ArrayList<>();
        for (int n = 0; n < 300; n++) {
            List<Object> row = new ArrayList<>();
            row.add(r.nextInt(40));
            row.add("c" + r.nextInt(5));
            row.add(r.nextInt(5));
            if (withStatic) row.add(valueOrNullOrUnset("c_text", r));
            for (String c : TYPED) row.add(valueOrNullOrUnset(c, r));
            row.add(1_000_000L + r.nextInt(50));
            row.add(pick(r, 0, 0, 3600, 86400 * 365));
            rows.add(row.toArray());
        }
        return rows;
    }

    @Test
    void insertEveryTypeWithTimestampAndTtlMarkers() throws Exception {
        compare(everyTypeInsert(true), everyTypeRows(new Random(101), true), null);
    }

    static final String NAMED_INSERT = "INSERT INTO ks.all_types (pk, ck, ck2, c_int, c_text, m, sd)"
            + " VALUES (:k, :c, :c2, :i, :t, :m, :sd) USING TTL 600 AND TIMESTAMP 42";

    /** 200 rows for {@link #NAMED_INSERT}, in marker order. */
    static List<Object[]> namedRows(Random r) {
        List<Object[]> rows = new ArrayList<>();
        for (int n = 0; n < 200; n++) {
            rows.add(new Object[]{r.nextInt(30), "x" + r.nextInt(3), r.nextInt(3), valueOrNullOrUnset("c_int", r),
                    valueOrNullOrUnset("c_text", r), valueOrNullOrUnset("m", r), valueOrNullOrUnset("sd", r)});
        }
        return rows;
    }

    @Test
    void insertNamedMarkersByMapWithLiteralTimestampAndTtl() throws Exception {
        String st = NAMED_INSERT;
        List<Object[]> rows = namedRows(new Random(202));
        // a name missing from the map binds null (a tombstone) in both writers
        List<Object[]> withMissing = new ArrayList<>(rows);
        compare(st, withMissing, List.of("k", "c", "c2", "i", "t", "m", "sd"));
    }

    @Test
    void insertStaticOnlyAndLiteralValues() throws Exception {
        Random r = new Random(303);
        List<Object[]> rows = new ArrayList<>();
        for (int n = 0; n < 50; n++) rows.add(new Object[]{r.nextInt(20), valueOrNullOrUnset("c_text", r), 100L + n});
        compare("INSERT INTO ks.all_types (pk, s) VALUES (?, ?) USING TIMESTAMP ?", rows, null);
        List<Object[]> rows2 = new ArrayList<>();
        for (int n = 0; n < 50; n++) rows2.add(new Object[]{r.nextInt(20), r.nextInt(3)});
        compare("INSERT INTO ks.all_types (pk, ck, ck2, c_text, c_int, c_blob, c_boolean, c_uuid, c_double)"
                + " VALUES (?, 'lit', ?, 'it''s', -7, 0xcafe, true, 123e4567-e89b-12d3-a456-426614174000, 1.5) USING TIMESTAMP 7", rows2, null);
    }

    @Test
    void updateSetAndAppendEveryCollection() throws Exception {
        Random r = new Random(404);
        String st = "UPDATE ks.all_types USING TIMESTAMP ? AND TTL ? SET c_bigint = ?, c_date = ?, l = l + ?, st += ?, m = m + ?,"
                + " sd = ?, fl = ?, fm = ?, lt = lt + ?, s = ? WHERE pk = ? AND ck = ? AND ck2 = ?";
        List<Object[]> rows = new ArrayList<>();
        for (int n = 0; n < 300; n++) {
            rows.add(new Object[]{2_000_000L + r.nextInt(30), pick(r, 0, 60, 7200), valueOrNullOrUnset("c_bigint", r),
                    valueOrNullOrUnset("c_date", r), valueOrNull("l", r), valueOrNullOrUnset("st", r),
                    valueOrNullOrUnset("m", r), valueOrNullOrUnset("sd", r), valueOrNullOrUnset("fl", r),
                    valueOrNullOrUnset("fm", r), valueOrNull("lt", r), valueOrNullOrUnset("c_text", r),
                    r.nextInt(30), "u" + r.nextInt(3), r.nextInt(3)});
        }
        compare(st, rows, null);
    }

    @Test
    void updateStaticColumnByPartitionKeyOnly() throws Exception {
        Random r = new Random(505);
        List<Object[]> rows = new ArrayList<>();
        for (int n = 0; n < 60; n++) rows.add(new Object[]{300L + r.nextInt(5), "st" + r.nextInt(4), r.nextInt(15)});
        compare("UPDATE ks.all_types USING TIMESTAMP ? SET s = ? WHERE pk = ?", rows, null);
    }

    @Test
    void deletePartitionRowPrefixRangeAndColumns() throws Exception {
        Random r = new Random(606);
        List<Object[]> partitions = new ArrayList<>();
        for (int n = 0; n < 40; n++) partitions.add(new Object[]{10L + r.nextInt(100), r.nextInt(50)});
        compare("DELETE FROM ks.all_types USING TIMESTAMP ? WHERE pk = ?", partitions, null);

        List<Object[]> rows = new ArrayList<>();
        for (int n = 0; n < 80; n++) rows.add(new Object[]{10L + r.nextInt(100), r.nextInt(20), "d" + r.nextInt(3), r.nextInt(4)});
        compare("DELETE FROM ks.all_types USING TIMESTAMP ? WHERE pk = ? AND ck = ? AND ck2 = ?", rows, null);

        List<Object[]> prefixes = new ArrayList<>();
        for (int n = 0; n < 60; n++) prefixes.add(new Object[]{10L + r.nextInt(100), r.nextInt(20), "d" + r.nextInt(4)});
        compare("DELETE FROM ks.all_types USING TIMESTAMP ? WHERE pk = ? AND ck = ?", prefixes, null);

        List<Object[]> ranges = new ArrayList<>();
        for (int n = 0; n < 60; n++) {
            int lo = r.nextInt(50);
            ranges.add(new Object[]{10L + r.nextInt(100), r.nextInt(20), "d" + r.nextInt(2), lo, lo + 1 + r.nextInt(10)});
        }
        // ck2 is DESC: the bounds keep their value meaning
        compare("DELETE FROM ks.all_types USING TIMESTAMP ? WHERE pk = ? AND ck = ? AND ck2 > ? AND ck2 <= ?", ranges, null);
        List<Object[]> open = new ArrayList<>();
        for (int n = 0; n < 30; n++) open.add(new Object[]{10L + r.nextInt(100), r.nextInt(20), "e" + r.nextInt(3)});
        compare("DELETE FROM ks.all_types USING TIMESTAMP ? WHERE pk = ? AND ck >= ?", open, null);

        List<Object[]> cols = new ArrayList<>();
        for (int n = 0; n < 60; n++) cols.add(new Object[]{10L + r.nextInt(100), r.nextInt(20), "d" + r.nextInt(3), r.nextInt(3)});
        compare("DELETE c_int, st, fm, l FROM ks.all_types USING TIMESTAMP ? WHERE pk = ? AND ck = ? AND ck2 = ?", cols, null);
        List<Object[]> statics = new ArrayList<>();
        for (int n = 0; n < 20; n++) statics.add(new Object[]{1L + n, r.nextInt(20)});
        compare("DELETE s FROM ks.all_types USING TIMESTAMP ? WHERE pk = ?", statics, null);
    }

    /**
     * Without USING TIMESTAMP both writers stamp the clock at each row, which can only match when
     * Cassandra's clock is frozen (it is not if another test loaded it first in this JVM).
     */
    @Test
    void defaultTimestampsAreTheClockInMicroseconds() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(FixedClock.installIfPossible(), "Cassandra's clock is not frozen in this JVM");
        Random r = new Random(909);
        List<Object[]> rows = new ArrayList<>();
        for (int n = 0; n < 20; n++) rows.add(new Object[]{r.nextInt(20), "c", 1, valueOrNullOrUnset("c_int", r)});
        compare("INSERT INTO ks.all_types (pk, ck, ck2, c_int) VALUES (?, ?, ?, ?)", rows, null);
        List<Object[]> statics = new ArrayList<>();
        for (int n = 0; n < 20; n++) statics.add(new Object[]{r.nextInt(20)});
        compare("DELETE s FROM ks.all_types WHERE pk = ?", statics, null);
    }

    @Test
    void ttlMarkersNullUnsetAndZeroAgainstATableDefault() throws Exception {
        // A null TTL is none, an unset one the table's default, 0 is none even with a default.
        String table = "CREATE TABLE ks.ttl_default (pk int, ck int, v text, l list<int>, PRIMARY KEY (pk, ck))"
                + " WITH default_time_to_live = 5000";
        Random r = new Random(808);
        List<Object[]> rows = new ArrayList<>();
        for (int n = 0; n < 100; n++) {
            rows.add(new Object[]{r.nextInt(20), r.nextInt(3), "v" + n, List.of(n), 9_000L + n,
                    pick(r, null, FlushlineSSTableWriter.UNSET_VALUE, 0, 100)});
        }
        compare(table, "INSERT INTO ks.ttl_default (pk, ck, v, l) VALUES (?, ?, ?, ?) USING TIMESTAMP ? AND TTL ?", rows, null);
        List<Object[]> plain = new ArrayList<>();
        for (int n = 0; n < 50; n++) plain.add(new Object[]{r.nextInt(20), r.nextInt(3), "w" + n});
        compare(table, "UPDATE ks.ttl_default USING TIMESTAMP 77 SET v = ? WHERE pk = ? AND ck = ?",
                plain.stream().map(a -> new Object[]{a[2], a[0], a[1]}).toList(), null);
    }

    @Test
    void mixedInsertsOverwriteInOnePartitionReconcileAsCassandra() throws Exception {
        // Many writes to few rows at tied and distinct timestamps: the memtable reconciles them as
        // Cassandra's writer buffer does.
        Random r = new Random(707);
        List<Object[]> rows = new ArrayList<>();
        for (int n = 0; n < 400; n++) {
            rows.add(new Object[]{r.nextInt(3), "k" + r.nextInt(2), r.nextInt(2), valueOrNullOrUnset("c_int", r),
                    valueOrNullOrUnset("st", r), valueOrNullOrUnset("l", r), 5_000L + r.nextInt(10)});
        }
        compare("INSERT INTO ks.all_types (pk, ck, ck2, c_int, st, l) VALUES (?, ?, ?, ?, ?, ?) USING TIMESTAMP ?", rows, null);
    }

    // ---- sorted mode: the same statements, rows fed in sstable order

    /**
     * The rows in the order a sorted writer takes them: partitions by Murmur3 token then key
     * bytes, rows by clustering (ck ASC, ck2 DESC), one row per primary key (the first; a sorted
     * writer takes each row once). {@code pk}, {@code ck}, {@code ck2}: the positions of the key
     * values in a row of values (-1: not bound).
     */
    static List<Object[]> inSSTableOrder(List<Object[]> rows, int pk, int ck, int ck2) {
        dev.flushline.schema.TableSchema schema = dev.flushline.schema.CqlParser.parse(TABLE);
        dev.flushline.schema.CqlType text = schema.column("ck").type(), integer = schema.column("pk").type();
        Map<String, Object[]> unique = new LinkedHashMap<>();
        for (Object[] row : rows) unique.putIfAbsent(row[pk] + "/" + (ck < 0 ? "" : row[ck]) + "/" + (ck2 < 0 ? "" : row[ck2]), row);
        List<Object[]> out = new ArrayList<>(unique.values());
        out.sort((a, b) -> {
            byte[] ka = encode(integer, a[pk]), kb = encode(integer, b[pk]);
            int c = Long.compare(dev.flushline.data.Murmur3.token(ka, 0, 4), dev.flushline.data.Murmur3.token(kb, 0, 4));
            if (c == 0) c = java.util.Arrays.compareUnsigned(ka, kb);
            if (c == 0 && ck >= 0) c = schema.column("ck").compareClustering(encode(text, a[ck]), encode(text, b[ck]));
            if (c == 0 && ck2 >= 0) c = schema.column("ck2").compareClustering(encode(integer, a[ck2]), encode(integer, b[ck2]));
            return c;
        });
        return out;
    }

    static byte[] encode(dev.flushline.schema.CqlType t, Object v) {
        dev.flushline.schema.ValueBuffer b = new dev.flushline.schema.ValueBuffer(16);
        dev.flushline.schema.JavaValues.write(t, v, b);
        return java.util.Arrays.copyOf(b.array(), b.position());
    }

    @Test
    void sortedInsertEveryTypeWithTimestampAndTtl() throws Exception {
        compare(TABLE, everyTypeInsert(false), inSSTableOrder(everyTypeRows(new Random(1101), false), 0, 1, 2), null, true);
    }

    @Test
    void sortedStaticOnlyUpdatesAndDeletes() throws Exception {
        Random r = new Random(1102);
        List<Object[]> statics = new ArrayList<>();
        for (int n = 0; n < 50; n++) statics.add(new Object[]{r.nextInt(30), valueOrNullOrUnset("c_text", r), 100L + n});
        compare(TABLE, "INSERT INTO ks.all_types (pk, s) VALUES (?, ?) USING TIMESTAMP ?", inSSTableOrder(statics, 0, -1, -1), null, true);

        String update = "UPDATE ks.all_types USING TIMESTAMP ? AND TTL ? SET c_bigint = ?, c_date = ?, l = l + ?, st += ?, m = m + ?,"
                + " sd = ?, fl = ?, fm = ?, lt = lt + ? WHERE pk = ? AND ck = ? AND ck2 = ?";
        List<Object[]> updates = new ArrayList<>();
        for (int n = 0; n < 300; n++) {
            updates.add(new Object[]{2_000_000L + r.nextInt(30), pick(r, 0, 60, 7200), valueOrNullOrUnset("c_bigint", r),
                    valueOrNullOrUnset("c_date", r), valueOrNull("l", r), valueOrNullOrUnset("st", r),
                    valueOrNullOrUnset("m", r), valueOrNullOrUnset("sd", r), valueOrNullOrUnset("fl", r),
                    valueOrNullOrUnset("fm", r), valueOrNull("lt", r), r.nextInt(30), "u" + r.nextInt(3), r.nextInt(3)});
        }
        compare(TABLE, update, inSSTableOrder(updates, 11, 12, 13), null, true);

        List<Object[]> staticUpdates = new ArrayList<>();
        for (int n = 0; n < 40; n++) staticUpdates.add(new Object[]{300L + n, "st" + r.nextInt(4), r.nextInt(40)});
        compare(TABLE, "UPDATE ks.all_types USING TIMESTAMP ? SET s = ? WHERE pk = ?", inSSTableOrder(staticUpdates, 2, -1, -1), null, true);

        List<Object[]> partitions = new ArrayList<>();
        for (int n = 0; n < 40; n++) partitions.add(new Object[]{10L + r.nextInt(100), r.nextInt(50)});
        compare(TABLE, "DELETE FROM ks.all_types USING TIMESTAMP ? WHERE pk = ?", inSSTableOrder(partitions, 1, -1, -1), null, true);

        List<Object[]> deletedRows = new ArrayList<>();
        for (int n = 0; n < 80; n++) deletedRows.add(new Object[]{10L + r.nextInt(100), r.nextInt(20), "d" + r.nextInt(3), r.nextInt(4)});
        compare(TABLE, "DELETE FROM ks.all_types USING TIMESTAMP ? WHERE pk = ? AND ck = ? AND ck2 = ?",
                inSSTableOrder(deletedRows, 1, 2, 3), null, true);

        List<Object[]> cols = new ArrayList<>();
        for (int n = 0; n < 60; n++) cols.add(new Object[]{10L + r.nextInt(100), r.nextInt(20), "d" + r.nextInt(3), r.nextInt(3)});
        compare(TABLE, "DELETE c_int, st, fm, l FROM ks.all_types USING TIMESTAMP ? WHERE pk = ? AND ck = ? AND ck2 = ?",
                inSSTableOrder(cols, 1, 2, 3), null, true);
        List<Object[]> staticDeletes = new ArrayList<>();
        for (int n = 0; n < 20; n++) staticDeletes.add(new Object[]{1L + n, r.nextInt(20)});
        compare(TABLE, "DELETE s FROM ks.all_types USING TIMESTAMP ? WHERE pk = ?", inSSTableOrder(staticDeletes, 1, -1, -1), null, true);
    }

    @Test
    void sortedNamedMarkersByMapWithLiteralTimestampAndTtl() throws Exception {
        String st = NAMED_INSERT;
        List<Object[]> rows = namedRows(new Random(1103));
        compare(TABLE, st, inSSTableOrder(rows, 0, 1, 2), List.of("k", "c", "c2", "i", "t", "m", "sd"), true);
    }
}

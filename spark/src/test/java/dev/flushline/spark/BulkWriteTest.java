package dev.flushline.spark;

import dev.flushline.oracle.Bytes;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.Cell;
import dev.flushline.oracle.ColumnData;
import dev.flushline.oracle.ComplexColumn;
import dev.flushline.oracle.FixedClock;
import dev.flushline.oracle.Partition;
import dev.flushline.oracle.Unfiltered;

import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.io.sstable.CQLSSTableWriter;
import org.apache.spark.SparkException;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bulk writer in Spark local mode ({@code local[2,2]}: two cores, a failed task is retried
 * once), its output read back with cassandra-all 5.0.9.
 */
class BulkWriteTest {
    static final String TABLE = "CREATE TABLE ks.all_types ("
            + " pk int, ck text, s text static,"
            + " c_ascii ascii, c_bigint bigint, c_blob blob, c_boolean boolean, c_date date, c_decimal decimal,"
            + " c_double double, c_float float, c_inet inet, c_int int, c_smallint smallint, c_text text, c_time time,"
            + " c_timestamp timestamp, c_timeuuid timeuuid, c_tinyint tinyint, c_uuid uuid, c_varint varint,"
            + " l list<int>, st set<text>, m map<text, timestamp>, fl frozen<list<decimal>>, fm frozen<map<uuid, blob>>,"
            + " PRIMARY KEY (pk, ck))";
    static final String[] COLUMNS = {"pk", "ck", "s", "c_ascii", "c_bigint", "c_blob", "c_boolean", "c_date", "c_decimal", "c_double",
            "c_float", "c_inet", "c_int", "c_smallint", "c_text", "c_time", "c_timestamp", "c_timeuuid", "c_tinyint", "c_uuid", "c_varint",
            "l", "st", "m", "fl", "fm"};
    static final StructType SCHEMA = new StructType(new StructField[] {
            field("pk", DataTypes.IntegerType), field("ck", DataTypes.StringType), field("s", DataTypes.StringType),
            field("c_ascii", DataTypes.StringType), field("c_bigint", DataTypes.LongType), field("c_blob", DataTypes.BinaryType),
            field("c_boolean", DataTypes.BooleanType), field("c_date", DataTypes.DateType), field("c_decimal", DataTypes.createDecimalType(38, 10)),
            field("c_double", DataTypes.DoubleType), field("c_float", DataTypes.FloatType), field("c_inet", DataTypes.StringType),
            field("c_int", DataTypes.IntegerType), field("c_smallint", DataTypes.ShortType), field("c_text", DataTypes.StringType),
            field("c_time", DataTypes.LongType), field("c_timestamp", DataTypes.TimestampType), field("c_timeuuid", DataTypes.StringType),
            field("c_tinyint", DataTypes.ByteType), field("c_uuid", DataTypes.StringType), field("c_varint", DataTypes.createDecimalType(38, 0)),
            field("l", DataTypes.createArrayType(DataTypes.IntegerType)), field("st", DataTypes.createArrayType(DataTypes.StringType)),
            field("m", DataTypes.createMapType(DataTypes.StringType, DataTypes.TimestampType)),
            field("fl", DataTypes.createArrayType(DataTypes.createDecimalType(20, 3))),
            field("fm", DataTypes.createMapType(DataTypes.StringType, DataTypes.BinaryType)),
            field("timestamp", DataTypes.LongType), field("ttl", DataTypes.IntegerType)});

    static SparkSession spark;

    @TempDir
    Path tmp;

    @BeforeAll
    static void start() {
        // Frozen before cassandra-all's clock first loads, so CQLSSTableWriter's "now" is the one given to ours.
        FixedClock.installIfPossible();
        CassandraOracle.init();
        spark = SparkSession.builder().master("local[2,2]").appName("flushline-bulk-write-test")
                .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4")
                .config("spark.driver.host", "127.0.0.1").getOrCreate();
    }

    @AfterAll
    static void stop() {
        if (spark != null) spark.stop();
    }

    static StructField field(String name, org.apache.spark.sql.types.DataType type) {
        return DataTypes.createStructField(name, type, true);
    }

    // ---- data

    /** Rows of the all-types table in Spark's external form; about one value in eight is null. */
    static List<Row> rows(long seed, int partitions, int rowsPerPartition) {
        Random r = new Random(seed);
        List<Row> out = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            int pk = r.nextInt();
            String s = r.nextInt(4) == 0 ? null : "static" + r.nextInt(100);
            for (int c = 0; c < rowsPerPartition; c++) {
                Object[] v = new Object[SCHEMA.size()];
                v[0] = pk;
                v[1] = "ck" + c;
                v[2] = s;
                for (int i = 3; i < COLUMNS.length; i++) v[i] = r.nextInt(8) == 0 ? null : value(COLUMNS[i], r);
                v[COLUMNS.length] = 1_600_000_000_000_000L + r.nextInt(1_000_000_000);
                v[COLUMNS.length + 1] = r.nextInt(3) == 0 ? null : 1 + r.nextInt(100_000);
                out.add(RowFactory.create(v));
            }
        }
        return out;
    }

    static Object value(String column, Random r) {
        switch (column) {
            case "c_ascii": return r.nextInt(8) == 0 ? "" : "asc" + r.nextInt(1000);
            case "c_bigint": return r.nextBoolean() ? r.nextLong() : Long.MIN_VALUE;
            case "c_blob": return bytes(r, r.nextInt(4) == 0 ? 0 : 1 + r.nextInt(40));
            case "c_boolean": return r.nextBoolean();
            case "c_date": return LocalDate.ofEpochDay(r.nextInt(200_000) - 100_000);
            case "c_decimal": return new BigDecimal(new BigInteger(90, r), 10).multiply(BigDecimal.valueOf(r.nextBoolean() ? 1 : -1));
            case "c_double": return r.nextInt(5) == 0 ? Double.NaN : r.nextDouble() * 1e10;
            case "c_float": return r.nextInt(5) == 0 ? -0.0f : r.nextFloat();
            case "c_inet": return r.nextBoolean() ? (r.nextInt(256) + "." + r.nextInt(256) + ".0." + r.nextInt(256)) : "2001:db8::" + Integer.toHexString(r.nextInt(65536));
            case "c_int": return r.nextInt();
            case "c_smallint": return (short) r.nextInt();
            case "c_text": return r.nextBoolean() ? "h\u00e9llo \u2603 \ud83d\ude00" : "t" + r.nextInt();
            case "c_time": return Math.floorMod(r.nextLong(), 86_400_000_000_000L);
            case "c_timestamp": return Instant.ofEpochMilli(r.nextLong() % 4_000_000_000_000L);
            case "c_timeuuid": return new UUID((r.nextLong() & ~0xF000L) | 0x1000L, (r.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L).toString();
            case "c_tinyint": return (byte) r.nextInt();
            case "c_uuid": return new UUID(r.nextLong(), r.nextLong()).toString();
            case "c_varint": return new BigDecimal(new BigInteger(120, r).negate());
            case "l": { List<Integer> l = new ArrayList<>(); for (int i = r.nextInt(4); i > 0; i--) l.add(r.nextInt(100)); return l; }
            case "st": { Set<String> s = new LinkedHashSet<>(); for (int i = r.nextInt(4); i > 0; i--) s.add("e" + r.nextInt(10)); return new ArrayList<>(s); }
            case "m": { Map<String, Instant> m = new LinkedHashMap<>(); for (int i = r.nextInt(4); i > 0; i--) m.put("k" + r.nextInt(10), Instant.ofEpochMilli(r.nextInt())); return m; }
            case "fl": { List<BigDecimal> l = new ArrayList<>(); for (int i = r.nextInt(3); i > 0; i--) l.add(BigDecimal.valueOf(r.nextInt(), 3)); return l; }
            case "fm": { Map<String, byte[]> m = new LinkedHashMap<>(); for (int i = r.nextInt(3); i > 0; i--) m.put(new UUID(r.nextLong(), r.nextLong()).toString(), bytes(r, r.nextInt(5))); return m; }
            default: throw new AssertionError(column);
        }
    }

    static byte[] bytes(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    /** A Spark value as CQLSSTableWriter takes it (its bundled driver 3 codecs). */
    static Object forCassandra(String column, Object v) throws Exception {
        if (v == null) return null;
        switch (column) {
            case "c_blob": return ByteBuffer.wrap((byte[]) v);
            case "c_date": return org.apache.cassandra.cql3.functions.types.LocalDate.fromDaysSinceEpoch((int) ((LocalDate) v).toEpochDay());
            case "c_inet": return InetAddress.getByName((String) v);
            case "c_timestamp": return Date.from((Instant) v);
            case "c_timeuuid": case "c_uuid": return UUID.fromString((String) v);
            case "c_varint": return ((BigDecimal) v).toBigIntegerExact();
            case "st": return new LinkedHashSet<>((List<?>) v);
            case "m": {
                Map<Object, Object> out = new LinkedHashMap<>();
                for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) out.put(e.getKey(), Date.from((Instant) e.getValue()));
                return out;
            }
            case "fm": {
                Map<Object, Object> out = new LinkedHashMap<>();
                for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) out.put(UUID.fromString((String) e.getKey()), ByteBuffer.wrap((byte[]) e.getValue()));
                return out;
            }
            default: return v;
        }
    }

    Dataset<Row> frame(List<Row> rows, int partitions) {
        return spark.createDataFrame(rows, SCHEMA).repartition(partitions);
    }

    static Map<String, String> options(Path out, int ranges) {
        Map<String, String> o = new HashMap<>();
        o.put("table", TABLE);
        o.put("path", out.toString());
        o.put("ranges", Integer.toString(ranges));
        o.put("now_millis", Long.toString(FixedClock.FIXED_MILLIS));
        return o;
    }

    // ---- reading the output

    /** The published range directories, in order. */
    static List<Path> rangeDirs(Path out) throws Exception {
        try (Stream<Path> s = Files.list(out)) {
            return s.filter(p -> p.getFileName().toString().startsWith("range-")).sorted().toList();
        }
    }

    /** The one table folder of a range directory: {@code <ks>/<table>-<32 hex id>}. */
    static Path tableDir(Path range) throws Exception {
        try (Stream<Path> s = Files.list(range.resolve("ks"))) {
            List<Path> dirs = s.toList();
            assertEquals(1, dirs.size(), "table folders in " + range);
            assertTrue(dirs.get(0).getFileName().toString().matches("all_types-[0-9a-f]{32}"), dirs.get(0).toString());
            return dirs.get(0);
        }
    }

    static List<Partition> readAll(Path out) throws Exception {
        List<Partition> all = new ArrayList<>();
        for (Path range : rangeDirs(out)) all.addAll(CassandraReader.readAll(tableDir(range), TABLE));
        return all;
    }

    /** The manifest's lines, without comments: directory, first token, last token, rows, sstables. */
    static List<String[]> manifest(Path out) throws Exception {
        List<String[]> lines = new ArrayList<>();
        for (String l : Files.readAllLines(out.resolve(FlushlineBatchWrite.MANIFEST))) {
            if (!l.startsWith("#")) lines.add(l.split("\t"));
        }
        return lines;
    }

    static void assertNoStaging(Path out) throws Exception {
        try (Stream<Path> s = Files.list(out)) {
            for (Path p : s.toList()) assertFalse(p.getFileName().toString().startsWith("_flushline_staging"), "left behind: " + p);
        }
    }

    static long token(Bytes key) {
        return (Long) Murmur3Partitioner.instance.getToken(key.toBuffer()).getTokenValue();
    }

    /** List cell paths are time-UUIDs of each writer's clock: number them instead. */
    static List<Partition> normalize(List<Partition> partitions) {
        List<Partition> out = new ArrayList<>();
        for (Partition p : partitions) {
            List<Unfiltered> us = new ArrayList<>();
            for (Unfiltered u : p.unfiltereds()) us.add(u instanceof dev.flushline.oracle.Row ? normalize((dev.flushline.oracle.Row) u) : u);
            out.add(new Partition(p.key(), p.deletion(), normalize(p.staticRow()), us));
        }
        return out;
    }

    static dev.flushline.oracle.Row normalize(dev.flushline.oracle.Row row) {
        List<ColumnData> cols = new ArrayList<>();
        for (ColumnData cd : row.columns()) {
            if (cd instanceof ComplexColumn cc && cc.column().equals("l")) {
                List<Cell> cells = new ArrayList<>();
                for (int i = 0; i < cc.cells().size(); i++) cells.add(cc.cells().get(i).withPath(Bytes.int32(i)));
                cols.add(new ComplexColumn(cc.column(), cc.complexDeletion(), cells));
            } else {
                cols.add(cd);
            }
        }
        return new dev.flushline.oracle.Row(row.clustering(), row.liveness(), row.deletion(), cols);
    }

    // ---- tests

    /**
     * Writes {@code rows} (the columns, then the timestamp and TTL) through Cassandra's own
     * CQLSSTableWriter and asserts that cassandra-all reads back, partition by partition (list
     * cell paths numbered), what it read from ours, and that every row is there.
     */
    void assertReadsBackAsCassandrasWriter(List<Row> rows, String table, String name, String[] columns, List<Partition> ours, long seed,
            int partitions) throws Exception {
        Path theirs = Files.createDirectories(tmp.resolve("reference"));
        String insert = "INSERT INTO " + name + " (" + String.join(", ", columns) + ") VALUES ("
                + "?, ".repeat(columns.length - 1) + "?) USING TIMESTAMP ? AND TTL ?";
        try (CQLSSTableWriter w = CQLSSTableWriter.builder().inDirectory(theirs.toString()).forTable(table).using(insert).build()) {
            for (Row row : rows) {
                Object[] c = new Object[columns.length + 2];
                for (int i = 0; i < columns.length; i++) c[i] = forCassandra(columns[i], row.get(i));
                c[columns.length] = row.get(columns.length);
                c[columns.length + 1] = row.get(columns.length + 1) == null ? 0 : row.get(columns.length + 1);
                w.addRow(c);
            }
        }
        List<Partition> expected = normalize(CassandraReader.readAll(theirs, table));
        List<Partition> actual = normalize(ours);
        assertEquals(partitions, expected.size(), "seed " + seed + ": reference partitions");
        assertEquals(expected.size(), actual.size(), "seed " + seed + ": partitions");
        for (int i = 0; i < expected.size(); i++) assertEquals(expected.get(i), actual.get(i), "seed " + seed + ": partition " + i);
        int rowCount = 0;
        for (Partition p : actual) rowCount += p.rows().size();
        assertEquals(rows.size(), rowCount, "seed " + seed + ": rows");
    }


    /**
     * Every supported type, nulls (tombstones), collections, per-row TTLs and write timestamps:
     * what cassandra-all reads from the ranges is, partition by partition, what it reads from
     * Cassandra's own CQLSSTableWriter given the same rows.
     */
    @Test
    void everyTypeReadsBackAsCassandrasOwnWriterWritesIt() throws Exception {
        long seed = 16_001L;
        List<Row> rows = rows(seed, 60, 5);
        Path out = tmp.resolve("out");
        FlushlineSpark.write(frame(rows, 3), options(out, 4));

        assertReadsBackAsCassandrasWriter(rows, TABLE, "ks.all_types", COLUMNS, readAll(out), seed, 60);
        assertNoStaging(out);
    }

    /** A table the sorted path writes (its own name: cassandra-all keeps one schema per table in a JVM): no static column, no non-frozen collection, clustering Spark sorts as Cassandra. */
    static final String SORTED_TABLE = "CREATE TABLE ks.sorted_types ("
            + " pk int, pk2 text, c1 bigint, c2 text,"
            + " c_ascii ascii, c_bigint bigint, c_blob blob, c_boolean boolean, c_date date, c_decimal decimal,"
            + " c_double double, c_float float, c_inet inet, c_int int, c_smallint smallint, c_text text, c_time time,"
            + " c_timestamp timestamp, c_timeuuid timeuuid, c_tinyint tinyint, c_uuid uuid, c_varint varint,"
            + " fl frozen<list<decimal>>, fm frozen<map<uuid, blob>>,"
            + " PRIMARY KEY ((pk, pk2), c1, c2)) WITH CLUSTERING ORDER BY (c1 DESC, c2 ASC)";
    static final String[] SORTED_COLUMNS = {"pk", "pk2", "c1", "c2", "c_ascii", "c_bigint", "c_blob", "c_boolean", "c_date", "c_decimal",
            "c_double", "c_float", "c_inet", "c_int", "c_smallint", "c_text", "c_time", "c_timestamp", "c_timeuuid", "c_tinyint", "c_uuid",
            "c_varint", "fl", "fm"};

    /**
     * The sorted path (no memtable): a composite key, a DESC and an ASC clustering column, every
     * scalar type and frozen collections, nulls, TTLs and timestamps, rows given in random order:
     * cassandra-all reads back what Cassandra's own CQLSSTableWriter writes from the same rows.
     */
    @Test
    void sortedPathReadsBackAsCassandrasOwnWriterWritesIt() throws Exception {
        long seed = 16_007L;
        List<StructField> fields = new ArrayList<>();
        for (String c : SORTED_COLUMNS) {
            fields.add(c.equals("pk2") || c.equals("c2") ? field(c, DataTypes.StringType)
                    : c.equals("c1") ? field(c, DataTypes.LongType) : SCHEMA.apply(c));
        }
        fields.add(field("timestamp", DataTypes.LongType));
        fields.add(field("ttl", DataTypes.IntegerType));
        StructType schema = new StructType(fields.toArray(new StructField[0]));
        Random r = new Random(seed);
        List<Row> rows = new ArrayList<>();
        int partitions = 50;
        for (int p = 0; p < partitions; p++) {
            int pk = r.nextInt(20) - 10; // small, negative too: several keys share pk, differ in pk2
            String pk2 = "k" + p;
            Set<String> clusterings = new HashSet<>();
            for (int c = 0; c < 6; c++) {
                long c1 = r.nextInt(3) == 0 ? Long.MIN_VALUE + r.nextInt(3) : r.nextInt(7) - 3;
                String c2 = r.nextInt(5) == 0 ? "" : "\u00e9" + r.nextInt(4);
                if (!clusterings.add(c1 + "/" + c2)) continue;
                Object[] v = new Object[schema.size()];
                v[0] = pk;
                v[1] = pk2;
                v[2] = c1;
                v[3] = c2;
                for (int i = 4; i < SORTED_COLUMNS.length; i++) v[i] = r.nextInt(8) == 0 ? null : value(SORTED_COLUMNS[i], r);
                v[SORTED_COLUMNS.length] = 1_600_000_000_000_000L + r.nextInt(1_000_000_000);
                v[SORTED_COLUMNS.length + 1] = r.nextInt(3) == 0 ? null : 1 + r.nextInt(100_000);
                rows.add(RowFactory.create(v));
            }
        }
        java.util.Collections.shuffle(rows, r);
        Path out = tmp.resolve("out");
        Map<String, String> o = options(out, 4);
        o.put("table", SORTED_TABLE);
        Dataset<Row> df = spark.createDataFrame(rows, schema).repartition(3);
        assertTrue(new WritePlan(WriteOptions.parse(o), FlushlineSpark.partitionByTokenRange(df, SORTED_TABLE, 4).schema(), "q").writesSorted(),
                "the table is one the sorted path writes");
        FlushlineSpark.write(df, o);

        List<Partition> actual = new ArrayList<>();
        for (Path range : rangeDirs(out)) {
            try (Stream<Path> dirs = Files.list(range.resolve("ks"))) {
                for (Path d : dirs.toList()) actual.addAll(CassandraReader.readAll(d, SORTED_TABLE));
            }
        }
        assertReadsBackAsCassandrasWriter(rows, SORTED_TABLE, "ks.sorted_types", SORTED_COLUMNS, actual, seed, partitions);
        assertNoStaging(out);
    }

    /**
     * The sorted path takes each primary key once: a repeated one fails the task with the
     * writer's error naming the partition, and the aborted attempts leave nothing behind.
     */
    @Test
    void sortedPathRefusesARepeatedPrimaryKeyAndPublishesNothing() throws Exception {
        StructType schema = new StructType(new StructField[] {field("pk", DataTypes.IntegerType), field("pk2", DataTypes.StringType),
                field("c1", DataTypes.LongType), field("c2", DataTypes.StringType), field("c_int", DataTypes.IntegerType)});
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < 100; i++) rows.add(RowFactory.create(i, "k", (long) i, "a", i));
        rows.add(RowFactory.create(7, "k", 7L, "a", -1)); // the primary key of row 7 again
        Path out = tmp.resolve("out");
        Map<String, String> o = options(out, 2);
        o.put("table", SORTED_TABLE);
        Dataset<Row> df = spark.createDataFrame(rows, schema);
        String msg = rootMessage(assertThrows(SparkException.class, () -> FlushlineSpark.write(df, o)));
        assertTrue(msg.contains("flushline: Spark partition") && msg.contains("(c1=7, c2=\"a\")") && msg.contains("already written"), msg);
        assertNoStaging(out);
        if (Files.exists(out)) {
            try (Stream<Path> s = Files.list(out)) {
                assertEquals(List.of(), s.toList(), "nothing published");
            }
        }
    }

    /**
     * The ranges tile the ring: range i holds only tokens of [first_i, last_i], consecutive ranges
     * meet, and every input partition is in exactly one range.
     */
    @Test
    void rangesCoverTheRingWithoutOverlap() throws Exception {
        int ranges = 8;
        List<Row> rows = rows(16_002L, 400, 2);
        Path out = tmp.resolve("out");
        FlushlineSpark.write(frame(rows, 5), options(out, ranges));

        List<String[]> m = manifest(out);
        assertEquals(ranges, m.size(), "manifest lines");
        assertEquals(Long.MIN_VALUE, Long.parseLong(m.get(0)[1]));
        assertEquals(Long.MAX_VALUE, Long.parseLong(m.get(ranges - 1)[2]));
        Map<Bytes, Integer> rangeOfKey = new HashMap<>();
        long totalRows = 0;
        for (int i = 0; i < ranges; i++) {
            String[] line = m.get(i);
            assertEquals(String.format("range-%05d", i), line[0], "every range has rows here");
            long first = Long.parseLong(line[1]);
            long last = Long.parseLong(line[2]);
            if (i > 0) assertEquals(Long.parseLong(m.get(i - 1)[2]) + 1, first, "range " + i + " starts where " + (i - 1) + " ends");
            List<Partition> ps = CassandraReader.readAll(tableDir(out.resolve(line[0])), TABLE);
            long rowsHere = 0;
            for (Partition p : ps) {
                long t = token(p.key());
                assertTrue(t >= first && t <= last, "token " + t + " in range " + i + " [" + first + ", " + last + "]");
                Integer before = rangeOfKey.put(p.key(), i);
                assertEquals(null, before, "partition " + p.key() + " in ranges " + before + " and " + i);
                rowsHere += p.rows().size();
            }
            assertEquals(Long.parseLong(line[3]), rowsHere, "range " + i + " rows against the manifest");
            totalRows += rowsHere;
        }
        Set<Integer> inputKeys = new HashSet<>();
        for (Row r : rows) inputKeys.add(r.getInt(0));
        Set<Integer> outputKeys = new HashSet<>();
        for (Bytes k : rangeOfKey.keySet()) outputKeys.add(k.toBuffer().getInt(0));
        assertEquals(inputKeys, outputKeys, "partitions written");
        assertEquals(rows.size(), totalRows, "rows written");
        assertNoStaging(out);
    }

    /**
     * The first attempt of one task fails after its sstables are on disk; the retry's output is
     * published, complete, and nothing of the failed attempt (or any staging) is left.
     */
    @Test
    void aFailedFirstAttemptLeavesNothingAndTheRetryIsComplete() throws Exception {
        List<Row> rows = rows(16_003L, 100, 3);
        Path out = tmp.resolve("out");
        AtomicInteger failedTasks = new AtomicInteger();
        SparkListener listener = new SparkListener() {
            @Override
            public void onTaskEnd(SparkListenerTaskEnd e) {
                if (!e.taskInfo().successful()) failedTasks.incrementAndGet();
            }
        };
        spark.sparkContext().addSparkListener(listener);
        try {
            Map<String, String> o = options(out, 4);
            o.put(WriteOptions.FAIL_FIRST_ATTEMPT_OF_PARTITION, "2");
            FlushlineSpark.write(frame(rows, 2), o);
        } finally {
            spark.sparkContext().listenerBus().waitUntilEmpty();
            spark.sparkContext().removeSparkListener(listener);
        }
        assertEquals(1, failedTasks.get(), "failed task attempts");
        assertNoStaging(out);
        List<Path> dirs = rangeDirs(out);
        assertEquals(4, dirs.size(), "range directories");
        List<Partition> all = readAll(out);
        int rowCount = 0;
        for (Partition p : all) rowCount += p.rows().size();
        assertEquals(100, all.size(), "partitions");
        assertEquals(rows.size(), rowCount, "rows");
        // Only the sstables of one attempt per range: generation 1 is the only generation.
        for (Path range : dirs) {
            try (Stream<Path> s = Files.list(tableDir(range))) {
                for (Path f : s.toList()) assertTrue(f.getFileName().toString().startsWith("oa-1-big-"), "unexpected " + f);
            }
        }
    }

    /**
     * With a ring, the write is split at the ring's token ranges and each range is placed into the
     * directory of each of its replicas: every node directory holds exactly the partitions whose
     * replicas (by the ring, which TokenRingTest checks against cassandra-all's strategies) include
     * it, each once with all its rows; the manifest names each range's replicas. The first attempt
     * of one task fails after writing, and nothing of it shows.
     */
    @Test
    void aRingSplitsAtItsRangesAndPlacesEachRangeOnItsReplicas() throws Exception {
        Random r = new Random(16_009L);
        StringBuilder ringText = new StringBuilder("replication NetworkTopologyStrategy dc1=2 dc2=1\n");
        String[][] nodes = {{"10.1.0.1", "dc1", "r1"}, {"10.1.0.2", "dc1", "r2"}, {"10.1.0.3", "dc1", "r1"}, {"10.1.0.4", "dc2", "r1"}};
        for (String[] n : nodes) {
            ringText.append("node ").append(String.join(" ", n));
            for (int k = 0; k < 6; k++) ringText.append(' ').append(r.nextLong());
            ringText.append('\n');
        }
        Path ringFile = tmp.resolve("ring.txt");
        Files.writeString(ringFile, ringText);
        dev.flushline.data.TokenRing ring = dev.flushline.data.RingFile.parse(ringText.toString(), "ring.txt");

        List<Row> rows = rows(16_010L, 300, 2);
        Path out = tmp.resolve("out");
        Map<String, String> o = options(out, 1);
        o.remove("ranges");
        o.put("ring", ringFile.toString());
        o.put(WriteOptions.FAIL_FIRST_ATTEMPT_OF_PARTITION, "1");
        FlushlineSpark.write(frame(rows, 3), o);

        List<String[]> m = manifest(out);
        assertEquals(ring.segmentCount(), m.size(), "one manifest line per ring range");
        for (int i = 0; i < m.size(); i++) {
            String[] line = m.get(i);
            assertEquals(ring.segmentFirst(i), Long.parseLong(line[1]), "range " + i);
            assertEquals(ring.segmentLast(i), Long.parseLong(line[2]), "range " + i);
            StringBuilder replicas = new StringBuilder();
            for (int node : ring.segmentReplicas(i)) replicas.append(replicas.length() == 0 ? "" : ",").append(ring.node(node).address());
            assertEquals(replicas.toString(), line[5], "replicas of range " + i);
        }
        assertNoStaging(out);
        Map<Integer, Integer> rowsOfKey = new HashMap<>();
        for (Row row : rows) rowsOfKey.merge(row.getInt(0), 1, Integer::sum);
        for (int node = 0; node < ring.nodeCount(); node++) {
            Path dir = out.resolve(ring.node(node).address());
            Map<Integer, Integer> held = new HashMap<>();
            for (Partition p : CassandraReader.readAll(tableDir(dir), TABLE)) {
                long t = token(p.key());
                assertTrue(java.util.Arrays.binarySearch(ring.replicasOf(t), node) >= 0, dir + " holds token " + t + ", not its own");
                assertEquals(null, held.put(p.key().toBuffer().getInt(0), p.rows().size()), dir + ": partition " + p.key() + " twice");
            }
            Map<Integer, Integer> want = new HashMap<>();
            for (Map.Entry<Integer, Integer> e : rowsOfKey.entrySet()) {
                long t = token(Bytes.int32(e.getKey()));
                if (java.util.Arrays.binarySearch(ring.replicasOf(t), node) >= 0) want.put(e.getKey(), e.getValue());
            }
            assertEquals(want, held, dir + ": partitions and their rows");
            assertTrue(!want.isEmpty(), dir + " replicates none of the keys");
        }
        try (Stream<Path> s = Files.list(out)) {
            Set<String> names = new HashSet<>();
            for (Path p : s.toList()) names.add(p.getFileName().toString());
            Set<String> expected = new HashSet<>(Set.of(FlushlineBatchWrite.MANIFEST));
            for (String[] n : nodes) expected.add(n[0]);
            assertEquals(expected, names, "what the write left in " + out);
        }

        // The ring needs the token columns FlushlineSpark adds, and its own count of ranges.
        Map<String, String> plain = options(tmp.resolve("plain"), 1);
        plain.remove("ranges");
        plain.put("ring", ringFile.toString());
        Exception e = assertThrows(Exception.class, () -> frame(rows, 2).write().format("flushline").mode("append").options(plain).save());
        assertTrue(String.valueOf(e.getMessage()).contains("option 'ring' splits the write at the ring's token ranges, which takes FlushlineSpark.write"),
                String.valueOf(e));
        Map<String, String> both = options(tmp.resolve("both"), 3);
        both.put("ring", ringFile.toString());
        e = assertThrows(IllegalArgumentException.class, () -> FlushlineSpark.write(frame(rows, 2), both));
        assertEquals("flushline: option 'ranges' is 3, but the ring " + ringFile + " splits into " + ring.segmentCount()
                + " token ranges; drop 'ranges'", e.getMessage());
    }

    /** A value the column's CQL type cannot take fails the write, naming column, both types and value; nothing is published. */
    @Test
    void aTypeMismatchNamesColumnTypesAndValueAndPublishesNothing() throws Exception {
        StructType schema = new StructType(new StructField[] {field("pk", DataTypes.IntegerType), field("ck", DataTypes.StringType),
                field("c_int", DataTypes.StringType)});
        List<Row> rows = List.of(RowFactory.create(1, "a", "forty-two"), RowFactory.create(2, "b", "x"));
        Path out = tmp.resolve("out");
        Dataset<Row> df = spark.createDataFrame(rows, schema);
        SparkException e = assertThrows(SparkException.class, () -> FlushlineSpark.write(df, options(out, 2)));
        String msg = rootMessage(e);
        assertTrue(msg.contains("'c_int'") && msg.contains("CQL int") && msg.contains("Spark string"), msg);
        assertTrue(msg.contains("forty-two") || msg.contains("x"), msg);
        assertNoStaging(out);
        try (Stream<Path> s = Files.list(out)) {
            assertEquals(List.of(), s.toList(), "nothing published");
        }

        StructType badUuid = new StructType(new StructField[] {field("pk", DataTypes.IntegerType), field("ck", DataTypes.StringType),
                field("c_uuid", DataTypes.StringType)});
        Path out2 = tmp.resolve("out2");
        Dataset<Row> df2 = spark.createDataFrame(List.of(RowFactory.create(1, "a", "not-a-uuid")), badUuid);
        String msg2 = rootMessage(assertThrows(SparkException.class, () -> FlushlineSpark.write(df2, options(out2, 1))));
        assertTrue(msg2.contains("'c_uuid'") && msg2.contains("CQL uuid") && msg2.contains("not-a-uuid"), msg2);

        StructType withList = new StructType(new StructField[] {field("pk", DataTypes.IntegerType), field("ck", DataTypes.StringType),
                field("l", DataTypes.createArrayType(DataTypes.IntegerType, true))});
        Path out4 = tmp.resolve("out4");
        Dataset<Row> df4 = spark.createDataFrame(List.of(RowFactory.create(1, "a", java.util.Arrays.asList(5, null, 7))), withList);
        String msg4 = rootMessage(assertThrows(SparkException.class, () -> FlushlineSpark.write(df4, options(out4, 1))));
        assertTrue(msg4.contains("'l'") && msg4.contains("[5, null, 7]") && msg4.contains("holds a null"), msg4);

        StructType badKey = new StructType(new StructField[] {field("pk", DataTypes.LongType), field("ck", DataTypes.StringType)});
        Path out3 = tmp.resolve("out3");
        Dataset<Row> df3 = spark.createDataFrame(List.of(RowFactory.create(77L, "a")), badKey);
        String msg3 = rootMessage(assertThrows(SparkException.class, () -> FlushlineSpark.write(df3, options(out3, 1))));
        assertTrue(msg3.contains("'pk'") && msg3.contains("CQL int") && msg3.contains("Spark bigint") && msg3.contains("first value: 77"), msg3);
        if (Files.exists(out3)) { // a local relation's key tokens may be computed while planning, before the output exists
            try (Stream<Path> s = Files.list(out3)) {
                assertEquals(List.of(), s.toList(), "nothing published");
            }
        }
    }

    /** Without the token columns, df.write.format("flushline") still writes everything, each task's output spanning the ring. */
    @Test
    void plainFormatWriteWritesEveryRow() throws Exception {
        List<Row> rows = rows(16_004L, 50, 2);
        Path out = tmp.resolve("out");
        spark.createDataFrame(rows, SCHEMA).write().format("flushline").mode("append")
                .option("table", TABLE).option("path", out.toString()).option("ranges", "3").option("compression", "none").save();
        List<Partition> all = new ArrayList<>();
        try (Stream<Path> s = Files.list(out)) {
            for (Path p : s.filter(p -> p.getFileName().toString().startsWith("part-")).sorted().toList()) {
                all.addAll(CassandraReader.readAll(tableDir(p), TABLE));
                try (Stream<Path> files = Files.list(tableDir(p))) {
                    assertTrue(files.noneMatch(f -> f.getFileName().toString().endsWith("CompressionInfo.db")), "compression none");
                }
            }
        }
        Set<Bytes> keys = new HashSet<>();
        int rowCount = 0;
        for (Partition p : all) {
            assertTrue(keys.add(p.key()), "partition " + p.key() + " written by two tasks");
            rowCount += p.rows().size();
        }
        assertEquals(50, keys.size(), "partitions");
        assertEquals(rows.size(), rowCount, "rows");
        assertNoStaging(out);
    }

    /**
     * sstable_version nb and ignore_nulls: nb files that cassandra-all reads, every row, and no
     * tombstone cell for the nulls (an empty collection still deletes, as in CQL).
     */
    @Test
    void nbOutputWithNullsLeftUnset() throws Exception {
        List<Row> rows = rows(16_005L, 80, 3);
        int nulls = 0;
        for (Row r : rows) for (int i = 3; i < COLUMNS.length; i++) if (r.isNullAt(i)) nulls++;
        assertTrue(nulls > 0, "the input has nulls");
        Path out = tmp.resolve("out");
        Map<String, String> o = options(out, 2);
        o.put("sstable_version", "nb");
        o.put("ignore_nulls", "true");
        FlushlineSpark.write(frame(rows, 2), o);
        int rowCount = 0;
        for (Path range : rangeDirs(out)) {
            try (Stream<Path> s = Files.list(tableDir(range))) {
                for (Path f : s.toList()) assertTrue(f.getFileName().toString().startsWith("nb-"), "not nb: " + f);
            }
        }
        for (Partition p : readAll(out)) {
            for (dev.flushline.oracle.Row row : p.rows()) {
                rowCount++;
                for (ColumnData cd : row.columns()) {
                    if (cd instanceof Cell c) assertFalse(c.isTombstone(), "tombstone for a null: " + c);
                }
            }
        }
        assertEquals(rows.size(), rowCount, "rows");
    }

    /**
     * sstable_version da: BTI files (da-N-bti-...) in every range directory, which cassandra-all reads
     * back equal, partition for partition, to the same rows written as oa.
     */
    @Test
    void daOutputReadsBackAsOa() throws Exception {
        List<Row> rows = rows(16_077L, 120, 3);
        Map<String, List<Partition>> read = new java.util.HashMap<>();
        for (String version : List.of("oa", "da")) {
            Path out = tmp.resolve("out-" + version);
            Map<String, String> o = options(out, 2);
            o.put("sstable_version", version);
            FlushlineSpark.write(frame(rows, 2), o);
            for (Path range : rangeDirs(out)) {
                try (Stream<Path> s = Files.list(tableDir(range))) {
                    for (Path f : s.toList()) assertTrue(f.getFileName().toString().startsWith(version + "-"), "not " + version + ": " + f);
                }
            }
            read.put(version, readAll(out));
        }
        assertFalse(read.get("da").isEmpty());
        // List cell paths are time-UUIDs from the writer's clock, so two writes agree only once numbered.
        assertEquals(normalize(read.get("oa")), normalize(read.get("da")));
    }

    static String rootMessage(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) sb.append(c.getMessage()).append(" | ");
        return sb.toString();
    }

    static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}

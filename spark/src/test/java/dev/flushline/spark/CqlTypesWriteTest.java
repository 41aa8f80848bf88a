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
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.CqlType;
import dev.flushline.schema.TableSchema;

import org.apache.cassandra.cql3.ColumnIdentifier;
import org.apache.cassandra.cql3.QueryOptions;
import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.io.sstable.CQLSSTableWriter;
import org.apache.cassandra.schema.TableMetadata;
import org.apache.cassandra.utils.JsonUtils;
import org.apache.spark.SparkException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * User-defined types (frozen and not), tuples, durations, vectors and collections nested with
 * them, written through Spark as the Spark Cassandra Connector maps them (a UDT from a struct of
 * its fields by name, a tuple from a struct by position, a vector from an array, a duration from
 * a literal string or bigint nanoseconds), on both write paths; cassandra-all 5.0.9 reads back
 * from the ranges, partition by partition, what it reads from its own CQLSSTableWriter given the
 * same values (as Cassandra serializes their JSON). And the refusals: a struct that does not fit
 * its column at plan time, a value that does not fit per row, each naming the column.
 */
class CqlTypesWriteTest {
    static final String ADDR = "CREATE TYPE ks.addr (street text, \"Zip\" int, tags frozen<set<text>>, loc frozen<tuple<double, double>>)";
    static final String PERSON = "CREATE TYPE ks.person (name text, home frozen<addr>, nick frozen<list<text>>)";
    static final String TYPES = ADDR + ";\n" + PERSON + ";\n";

    /** Written through the memtable: a non-frozen UDT, non-frozen collections of composites, a tuple clustering column. */
    static final String MEMTABLE_TABLE = "CREATE TABLE ks.composite_m (pk frozen<addr>, ck frozen<tuple<int, text>>,"
            + " a addr, fa frozen<addr>, t tuple<int, text, duration>, d duration, dn duration, v vector<float, 3>, vt vector<text, 2>,"
            + " people list<frozen<person>>, byloc map<frozen<tuple<double, double>>, frozen<addr>>, pairs set<frozen<tuple<int, text>>>,"
            + " fm frozen<map<frozen<tuple<int, int>>, frozen<list<frozen<addr>>>>>, PRIMARY KEY (pk, ck))";
    /** Written through the sorted writer: frozen values only, a tuple in the partition key, a clustering column Spark sorts. */
    static final String SORTED_TABLE = "CREATE TABLE ks.composite_s (pk int, pk2 frozen<tuple<int, text>>, c bigint,"
            + " fa frozen<addr>, t tuple<int, text, duration>, d duration, dn duration, v vector<float, 3>, vt vector<text, 2>,"
            + " fl frozen<list<frozen<person>>>, fm frozen<map<frozen<tuple<int, int>>, text>>, PRIMARY KEY ((pk, pk2), c))"
            + " WITH CLUSTERING ORDER BY (c DESC)";

    static final StructType LOC = struct(field("_1", DataTypes.DoubleType), field("_2", DataTypes.DoubleType));
    static final StructType ADDR_STRUCT = struct(field("street", DataTypes.StringType), field("Zip", DataTypes.IntegerType),
            field("tags", DataTypes.createArrayType(DataTypes.StringType)), field("loc", LOC));
    /** The same UDT, its struct fields in another order: matched by name. */
    static final StructType ADDR_REORDERED = struct(field("loc", LOC), field("tags", DataTypes.createArrayType(DataTypes.StringType)),
            field("Zip", DataTypes.IntegerType), field("street", DataTypes.StringType));
    static final StructType PERSON_STRUCT = struct(field("name", DataTypes.StringType), field("home", ADDR_STRUCT),
            field("nick", DataTypes.createArrayType(DataTypes.StringType)));
    /** A tuple as the connector reads one (fields 0, 1, ...); Scala tuples are _1, _2, ...: either is taken by position. */
    static final StructType TUPLE_ITD = struct(field("0", DataTypes.IntegerType), field("1", DataTypes.StringType), field("2", DataTypes.StringType));
    static final StructType TUPLE_IT = struct(field("_1", DataTypes.IntegerType), field("_2", DataTypes.StringType));
    static final StructType TUPLE_II = struct(field("_1", DataTypes.IntegerType), field("_2", DataTypes.IntegerType));

    static final StructType MEMTABLE_SCHEMA = struct(field("pk", ADDR_STRUCT), field("ck", TUPLE_IT), field("a", ADDR_STRUCT),
            field("fa", ADDR_REORDERED), field("t", TUPLE_ITD), field("d", DataTypes.StringType), field("dn", DataTypes.LongType),
            field("v", DataTypes.createArrayType(DataTypes.FloatType)), field("vt", DataTypes.createArrayType(DataTypes.StringType)),
            field("people", DataTypes.createArrayType(PERSON_STRUCT)), field("byloc", DataTypes.createMapType(LOC, ADDR_STRUCT)),
            field("pairs", DataTypes.createArrayType(TUPLE_IT)),
            field("fm", DataTypes.createMapType(TUPLE_II, DataTypes.createArrayType(ADDR_STRUCT))),
            field("timestamp", DataTypes.LongType), field("ttl", DataTypes.IntegerType));
    static final StructType SORTED_SCHEMA = struct(field("pk", DataTypes.IntegerType), field("pk2", TUPLE_IT), field("c", DataTypes.LongType),
            field("fa", ADDR_STRUCT), field("t", TUPLE_ITD), field("d", DataTypes.StringType), field("dn", DataTypes.LongType),
            field("v", DataTypes.createArrayType(DataTypes.FloatType)), field("vt", DataTypes.createArrayType(DataTypes.StringType)),
            field("fl", DataTypes.createArrayType(PERSON_STRUCT)), field("fm", DataTypes.createMapType(TUPLE_II, DataTypes.StringType)),
            field("timestamp", DataTypes.LongType), field("ttl", DataTypes.IntegerType));

    static final String[] DURATIONS = {"1h30m", "P1DT2H", "-3d", "P0001-02-03T04:05:06", "2mo3w", "1y2mo3w4d5h6m7s8ms9us10ns", "0s", "-7ns"};

    static SparkSession spark;

    @TempDir
    Path tmp;

    @BeforeAll
    static void start() {
        FixedClock.installIfPossible(); // before cassandra-all's clock loads: CQLSSTableWriter's "now" is ours
        CassandraOracle.init();
        spark = SparkSession.builder().master("local[2,2]").appName("flushline-cql-types-test")
                .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4")
                .config("spark.driver.host", "127.0.0.1").getOrCreate();
    }

    @AfterAll
    static void stop() {
        if (spark != null) spark.stop();
    }

    static StructField field(String name, DataType type) {
        return DataTypes.createStructField(name, type, true);
    }

    static StructType struct(StructField... fields) {
        return new StructType(fields);
    }

    // ---- data: random values of a CQL type in the Spark external form of the given Spark type

    static Object value(CqlType t, DataType s, Random r) {
        switch (t.kind()) {
            case UDT: {
                StructType st = (StructType) s;
                Object[] v = new Object[st.size()];
                for (int i = 0; i < v.length; i++) {
                    StructField f = st.fields()[i];
                    v[i] = r.nextInt(6) == 0 ? null : value(t.component(t.fieldIndex(f.name())), f.dataType(), r);
                }
                return RowFactory.create(v);
            }
            case TUPLE: {
                StructType st = (StructType) s;
                Object[] v = new Object[st.size()];
                for (int i = 0; i < v.length; i++) v[i] = r.nextInt(6) == 0 ? null : value(t.component(i), st.fields()[i].dataType(), r);
                return RowFactory.create(v);
            }
            case VECTOR: {
                List<Object> l = new ArrayList<>();
                for (int i = 0; i < t.dimension(); i++) l.add(value(t.elementType(), ((ArrayType) s).elementType(), r));
                return l;
            }
            case LIST:
            case SET: {
                List<Object> l = new ArrayList<>();
                for (int i = r.nextInt(4); i > 0; i--) l.add(value(t.elementType(), ((ArrayType) s).elementType(), r));
                return l;
            }
            case MAP: {
                Map<Object, Object> m = new LinkedHashMap<>();
                for (int i = r.nextInt(4); i > 0; i--) {
                    m.put(value(t.elementType(), ((MapType) s).keyType(), r), value(t.valueType(), ((MapType) s).valueType(), r));
                }
                return m;
            }
            case DURATION:
                if (s instanceof LongType) return r.nextInt(4) == 0 ? -(long) r.nextInt(1_000_000) : r.nextLong() >>> 1;
                return DURATIONS[r.nextInt(DURATIONS.length)];
            case TEXT:
                switch (r.nextInt(5)) {
                    case 0: return "";
                    case 1: return "h\u00e9llo \u2603 \ud83d\ude00 \"q\" \\";
                    default: return "t" + r.nextInt(6); // repeats: sets and map keys see duplicates
                }
            case INT: return r.nextInt(4) == 0 ? r.nextInt() : r.nextInt(5) - 2;
            case BIGINT: return r.nextLong();
            case FLOAT: return r.nextBoolean() ? (r.nextInt(64) - 32) * 0.25f : r.nextFloat() * 1e6f;
            case DOUBLE: return r.nextBoolean() ? -0.0 : r.nextDouble() * 1e12;
            default: throw new AssertionError(t);
        }
    }

    /** The value as INSERT ... JSON spells it (UDT fields by their quoted names, so the case is kept). */
    static String json(CqlType t, DataType s, Object v) {
        if (v == null) return "null";
        StringBuilder sb = new StringBuilder();
        switch (t.kind()) {
            case UDT: {
                Row row = (Row) v;
                StructType st = (StructType) s;
                sb.append('{');
                for (int k = 0; k < t.size(); k++) {
                    int i = st.fieldIndex(t.fieldName(k));
                    sb.append(k == 0 ? "" : ",").append(quote('"' + t.fieldName(k) + '"')).append(':')
                            .append(json(t.component(k), st.fields()[i].dataType(), row.get(i)));
                }
                return sb.append('}').toString();
            }
            case TUPLE: {
                Row row = (Row) v;
                sb.append('[');
                for (int k = 0; k < t.size(); k++) sb.append(k == 0 ? "" : ",").append(json(t.component(k), ((StructType) s).fields()[k].dataType(), row.get(k)));
                return sb.append(']').toString();
            }
            case VECTOR:
            case LIST:
            case SET: {
                sb.append('[');
                List<?> l = (List<?>) v;
                for (int k = 0; k < l.size(); k++) sb.append(k == 0 ? "" : ",").append(json(t.elementType(), ((ArrayType) s).elementType(), l.get(k)));
                return sb.append(']').toString();
            }
            case MAP: {
                sb.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                    String key = json(t.elementType(), ((MapType) s).keyType(), e.getKey());
                    // a map key is a JSON string: a native key's literal, any other key's JSON text
                    sb.append(first ? "" : ",").append(t.elementType().isNative() && key.startsWith("\"") ? key : quote(key)).append(':')
                            .append(json(t.valueType(), ((MapType) s).valueType(), e.getValue()));
                    first = false;
                }
                return sb.append('}').toString();
            }
            case DURATION:
                return quote(v instanceof Long ? v + "ns" : (String) v);
            case TEXT:
                return quote((String) v);
            default:
                return String.valueOf(v);
        }
    }

    static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') sb.append('\\').append(c);
            else if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
            else sb.append(c);
        }
        return sb.append('"').toString();
    }

    /** Rows of {@code partitions} partitions, {@code rowsPerPartition} each; key columns made unique by the partition and row numbers. */
    static List<Row> rows(TableSchema table, StructType schema, long seed, int partitions, int rowsPerPartition, boolean sorted) {
        Random r = new Random(seed);
        List<Row> out = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            Object[] key = new Object[sorted ? 2 : 1];
            if (sorted) {
                key[0] = r.nextInt(4);
                key[1] = RowFactory.create(p, "k" + (p % 3));
            } else {
                key[0] = RowFactory.create("street " + p, r.nextBoolean() ? null : r.nextInt(100), List.of("b", "a", "b"),
                        r.nextBoolean() ? null : RowFactory.create(r.nextDouble(), null));
            }
            for (int c = 0; c < rowsPerPartition; c++) {
                Object[] v = new Object[schema.size()];
                System.arraycopy(key, 0, v, 0, key.length);
                int clustering = key.length;
                v[clustering] = sorted ? (Object) (long) (c * 7 - 10) : RowFactory.create(c, "\u00e9" + c);
                for (int i = clustering + 1; i < schema.size() - 2; i++) {
                    StructField f = schema.fields()[i];
                    v[i] = r.nextInt(8) == 0 ? null : value(table.column(f.name()).type(), f.dataType(), r);
                }
                v[schema.size() - 2] = 1_600_000_000_000_000L + r.nextInt(1_000_000_000);
                v[schema.size() - 1] = r.nextInt(3) == 0 ? null : 1 + r.nextInt(100_000);
                out.add(RowFactory.create(v));
            }
        }
        return out;
    }

    // ---- the reference and the comparison

    /** CQLSSTableWriter given each row's values as Cassandra serializes their JSON, with the row's timestamp and TTL. */
    List<Partition> cassandrasOwn(String tableCql, StructType schema, List<Row> rows) throws Exception {
        return cassandrasOwn(List.of(ADDR, PERSON), tableCql, schema, rows);
    }

    List<Partition> cassandrasOwn(List<String> types, String tableCql, StructType schema, List<Row> rows) throws Exception {
        String typeText = types.isEmpty() ? "" : String.join(";\n", types) + ";\n";
        TableSchema ours = CqlParser.parse(typeText + tableCql);
        TableMetadata table = CassandraOracle.parseTable(typeText + tableCql);
        Path dir = Files.createDirectories(tmp.resolve("reference-" + ours.name()));
        int columns = schema.size() - 2;
        String[] names = Arrays.copyOf(schema.fieldNames(), columns);
        String insert = "INSERT INTO ks." + ours.name() + " (" + String.join(", ", names) + ") VALUES (" + "?, ".repeat(columns - 1)
                + "?) USING TIMESTAMP ? AND TTL ?";
        CQLSSTableWriter.Builder b = CQLSSTableWriter.builder().inDirectory(dir.toString());
        for (String type : types) b.withType(type);
        try (CQLSSTableWriter w = b.forTable(tableCql).using(insert).build()) {
            for (Row row : rows) {
                List<ByteBuffer> raw = new ArrayList<>();
                for (int i = 0; i < columns; i++) {
                    String json = json(ours.column(names[i]).type(), schema.fields()[i].dataType(), row.get(i));
                    raw.add(json.equals("null") ? null : table.getColumn(ColumnIdentifier.getInterned(names[i], true)).type
                            .fromJSONObject(JsonUtils.decodeJson(json)).bindAndGet(QueryOptions.DEFAULT));
                }
                raw.add(ByteBuffer.allocate(8).putLong(0, row.getLong(columns)));
                raw.add(ByteBuffer.allocate(4).putInt(0, row.isNullAt(columns + 1) ? 0 : row.getInt(columns + 1)));
                w.rawAddRow(raw);
            }
        }
        return CassandraReader.readAll(dir, typeText + tableCql);
    }

    /**
     * Every range directory's partitions, read with cassandra-all, each checked to lie in its
     * range's tokens (so the token Spark computed from the struct key is the key's token).
     */
    static List<Partition> readRanges(Path out, String tableCql) throws Exception {
        return readRanges(out, TYPES, tableCql);
    }

    static List<Partition> readRanges(Path out, String typeText, String tableCql) throws Exception {
        List<Partition> all = new ArrayList<>();
        for (String line : Files.readAllLines(out.resolve(FlushlineBatchWrite.MANIFEST))) {
            if (line.startsWith("#") || line.startsWith("-")) continue;
            String[] f = line.split("\t");
            long first = Long.parseLong(f[1]);
            long last = Long.parseLong(f[2]);
            try (Stream<Path> dirs = Files.list(out.resolve(f[0]).resolve("ks"))) {
                for (Path d : dirs.toList()) {
                    for (Partition p : CassandraReader.readAll(d, typeText + tableCql)) {
                        long token = (Long) Murmur3Partitioner.instance.getToken(p.key().toBuffer()).getTokenValue();
                        assertTrue(token >= first && token <= last, "partition " + p.key() + " of token " + token + " in " + f[0]);
                        all.add(p);
                    }
                }
            }
        }
        try (Stream<Path> s = Files.list(out)) {
            for (Path p : s.toList()) assertFalse(p.getFileName().toString().startsWith("_flushline_staging"), "left behind: " + p);
        }
        return all;
    }

    /** A non-frozen list's cell paths are time-UUIDs of each writer's clock: number them instead. */
    static List<Partition> normalizeListPaths(List<Partition> partitions, String column) {
        List<Partition> out = new ArrayList<>();
        for (Partition p : partitions) {
            List<Unfiltered> us = new ArrayList<>();
            for (Unfiltered u : p.unfiltereds()) {
                if (!(u instanceof dev.flushline.oracle.Row row)) {
                    us.add(u);
                    continue;
                }
                List<ColumnData> cols = new ArrayList<>();
                for (ColumnData cd : row.columns()) {
                    if (cd instanceof ComplexColumn cc && cc.column().equals(column)) {
                        List<Cell> cells = new ArrayList<>();
                        for (int i = 0; i < cc.cells().size(); i++) cells.add(cc.cells().get(i).withPath(Bytes.int32(i)));
                        cols.add(new ComplexColumn(cc.column(), cc.complexDeletion(), cells));
                    } else {
                        cols.add(cd);
                    }
                }
                us.add(new dev.flushline.oracle.Row(row.clustering(), row.liveness(), row.deletion(), cols));
            }
            out.add(new Partition(p.key(), p.deletion(), p.staticRow(), us));
        }
        return out;
    }

    static void assertSamePartitions(List<Partition> expected, List<Partition> actual, int partitions, int rows, long seed) {
        assertEquals(partitions, expected.size(), "seed " + seed + ": reference partitions");
        assertEquals(expected.size(), actual.size(), "seed " + seed + ": partitions");
        for (int i = 0; i < expected.size(); i++) assertEquals(expected.get(i), actual.get(i), "seed " + seed + ": partition " + i);
        int rowCount = 0;
        for (Partition p : actual) rowCount += p.rows().size();
        assertEquals(rows, rowCount, "seed " + seed + ": rows");
    }

    Map<String, String> options(Path out, String tableCql, int ranges) {
        Map<String, String> o = new HashMap<>();
        o.put("table", TYPES + tableCql);
        o.put("path", out.toString());
        o.put("ranges", Integer.toString(ranges));
        o.put("now_millis", Long.toString(FixedClock.FIXED_MILLIS));
        return o;
    }

    // ---- tests

    /**
     * The memtable path: a frozen UDT partition key (its token computed from the struct), a tuple
     * clustering column, a non-frozen UDT (a cell per field), a frozen UDT from a struct whose
     * fields come in another order, tuples, durations from literals and from nanoseconds, float
     * and text vectors, a non-frozen list of UDTs holding UDTs, a non-frozen map with tuple keys,
     * a non-frozen set of tuples, and a frozen map of tuples to lists of UDTs.
     */
    @Test
    void memtablePathWritesWhatCassandraWrites() throws Exception {
        long seed = 17_001L;
        TableSchema table = CqlParser.parse(TYPES + MEMTABLE_TABLE);
        List<Row> rows = rows(table, MEMTABLE_SCHEMA, seed, 30, 3, false);
        Path out = tmp.resolve("out");
        Dataset<Row> df = spark.createDataFrame(rows, MEMTABLE_SCHEMA).repartition(3);
        Map<String, String> o = options(out, MEMTABLE_TABLE, 4);
        assertFalse(new WritePlan(WriteOptions.parse(o), FlushlineSpark.partitionByTokenRange(df, TYPES + MEMTABLE_TABLE, 4).schema(), "q")
                .writesSorted(), "a non-frozen UDT and a tuple clustering column: the memtable path");
        FlushlineSpark.write(df, o);

        List<Partition> expected = normalizeListPaths(cassandrasOwn(MEMTABLE_TABLE, MEMTABLE_SCHEMA, rows), "people");
        List<Partition> actual = normalizeListPaths(readRanges(out, MEMTABLE_TABLE), "people");
        assertSamePartitions(expected, actual, 30, rows.size(), seed);
    }

    /**
     * The sorted path: a composite partition key with a tuple, frozen UDTs, tuples, durations,
     * vectors, a frozen list of UDTs holding UDTs and a frozen map with tuple keys, rows shuffled.
     */
    @Test
    void sortedPathWritesWhatCassandraWrites() throws Exception {
        long seed = 17_002L;
        TableSchema table = CqlParser.parse(TYPES + SORTED_TABLE);
        List<Row> rows = rows(table, SORTED_SCHEMA, seed, 30, 3, true);
        java.util.Collections.shuffle(rows, new Random(seed));
        Path out = tmp.resolve("out");
        Dataset<Row> df = spark.createDataFrame(rows, SORTED_SCHEMA).repartition(3);
        Map<String, String> o = options(out, SORTED_TABLE, 4);
        assertTrue(new WritePlan(WriteOptions.parse(o), FlushlineSpark.partitionByTokenRange(df, TYPES + SORTED_TABLE, 4).schema(), "q")
                .writesSorted(), "frozen values only, clustering Spark sorts: the sorted path");
        FlushlineSpark.write(df, o);

        assertSamePartitions(cassandrasOwn(SORTED_TABLE, SORTED_SCHEMA, rows), readRanges(out, SORTED_TABLE), 30, rows.size(), seed);
    }

    /**
     * A partition key holding a map (a UDT with a map field): Spark neither sorts nor hashes a
     * map, so the write sorts each range by token and clustering alone, and the rows still read
     * back as Cassandra writes them. The plain format, which would cluster by the key's columns,
     * refuses a key of such columns only, by name.
     */
    @Test
    void aPartitionKeyHoldingAMapIsWritten() throws Exception {
        String meta = "CREATE TYPE ks.meta (kind text, attrs frozen<map<text, int>>)";
        String tableCql = "CREATE TABLE ks.composite_mk (pk frozen<meta>, c int, v vector<float, 3>, PRIMARY KEY (pk, c))";
        StructType schema = struct(field("pk", struct(field("kind", DataTypes.StringType),
                        field("attrs", DataTypes.createMapType(DataTypes.StringType, DataTypes.IntegerType)))),
                field("c", DataTypes.IntegerType), field("v", DataTypes.createArrayType(DataTypes.FloatType)),
                field("timestamp", DataTypes.LongType), field("ttl", DataTypes.IntegerType));
        List<Row> rows = new ArrayList<>();
        for (int p = 0; p < 20; p++) {
            Map<String, Integer> attrs = new LinkedHashMap<>();
            attrs.put("z", p);
            attrs.put("a", -p);
            for (int c = 0; c < 2; c++) {
                rows.add(RowFactory.create(RowFactory.create("k" + p, p % 5 == 0 ? null : attrs), c, List.of(p * 0.5f, -c * 1f, 3f),
                        1_600_000_000_000_000L + p, null));
            }
        }
        Path out = tmp.resolve("out");
        Map<String, String> o = options(out, "", 3);
        o.put("table", meta + ";\n" + tableCql);
        Dataset<Row> df = spark.createDataFrame(rows, schema).repartition(2);
        FlushlineSpark.write(df, o);
        assertSamePartitions(cassandrasOwn(List.of(meta), tableCql, schema, rows), readRanges(out, meta + ";\n", tableCql), 20, rows.size(), 0);

        String m = BulkWriteTest.rootMessage(assertThrows(Exception.class, () -> df.write().format("flushline").mode("append")
                .option("table", meta + ";\n" + tableCql).option("path", tmp.resolve("plain").toString()).save()));
        assertTrue(m.contains("every partition key column of ks.composite_mk is or holds a Spark map") && m.contains("FlushlineSpark.write"), m);
    }

    /**
     * A struct that cannot fill its column is refused before any task runs, naming the column,
     * the place inside it and both types; nothing is written.
     */
    @Test
    void aStructThatDoesNotFitIsRefusedAtPlanTime() throws Exception {
        String table = TYPES + "CREATE TABLE ks.composite_p (pk int, fa frozen<addr>, t tuple<int, text>, v vector<float, 2>,"
                + " d duration, people list<frozen<person>>, PRIMARY KEY (pk))";
        String[][] cases = {
                // column, its Spark type, what the refusal must say
                {"fa", "struct<street:string,loc:struct<_1:double,_2:double>,tags:array<string>>",
                        "column 'fa' (CQL frozen<addr>, Spark struct<street:string,loc:struct<_1:double,_2:double>,tags:array<string>>): the Spark struct has no field 'Zip'"},
                {"fa", "struct<street:string,Zip:int,zip4:int,tags:array<string>,loc:struct<_1:double,_2:double>>",
                        "the Spark struct's field 'zip4' is not a field of frozen<addr> (its fields: street, Zip, tags, loc)"},
                {"fa", "struct<street:string,Zip:string,tags:array<string>,loc:struct<_1:double,_2:double>>",
                        "field 'Zip': a CQL int is not written from a Spark string; it takes a Spark int"},
                {"t", "struct<_1:int,_2:string,_3:string>", "a CQL tuple<int, text> has 2 components; the Spark struct has 3 fields"},
                {"t", "array<int>", "a CQL tuple<int, text> takes a Spark struct of its 2 components, taken by position, not array<int>"},
                {"v", "struct<_1:float,_2:float>", "a CQL vector<float, 2> takes a Spark array of its element type, not struct<_1:float,_2:float>"},
                {"v", "array<double>", "element: a CQL float is not written from a Spark double; it takes a Spark float"},
                {"d", "double", "a CQL duration takes a Spark string (a duration literal such as 1h30m or P1DT2H) or bigint (nanoseconds), not double"},
                {"people", "array<struct<name:string,home:struct<street:string>,nick:array<string>>>",
                        "element: field 'home': the Spark struct has no field 'Zip', a field of frozen<addr>"},
        };
        for (String[] c : cases) {
            StructType schema = struct(field("pk", DataTypes.IntegerType), field(c[0], DataType.fromDDL(c[1])));
            Dataset<Row> df = spark.createDataFrame(List.of(), schema);
            Path out = tmp.resolve("plan-" + c[0] + "-" + Math.abs(c[1].hashCode()));
            Map<String, String> o = options(out, "", 2);
            o.put("table", table);
            String m = BulkWriteTest.rootMessage(assertThrows(Exception.class, () -> FlushlineSpark.write(df, o), c[1]));
            assertTrue(m.contains("column '" + c[0] + "'") && m.contains(c[2]), m);
            if (Files.exists(out)) {
                try (Stream<Path> s = Files.list(out)) {
                    assertEquals(List.of(), s.toList(), "nothing written for " + c[1]);
                }
            }
        }
        // A partition key column: refused when the token columns are added, before any row is read.
        String keyed = TYPES + "CREATE TABLE ks.composite_k (pk frozen<addr>, v int, PRIMARY KEY (pk))";
        Dataset<Row> df = spark.createDataFrame(List.of(), struct(field("pk", DataType.fromDDL("struct<street:string>")), field("v", DataTypes.IntegerType)));
        String m = assertThrows(IllegalArgumentException.class, () -> FlushlineSpark.partitionByTokenRange(df, keyed, 2)).getMessage();
        assertTrue(m.contains("column 'pk' (CQL frozen<addr>, Spark struct<street:string>): the Spark struct has no field 'Zip'"), m);
    }

    /**
     * What only the values show is refused per row, naming the column and the value: a vector of
     * the wrong length or holding a null, a string that is no duration; and text that is not
     * ASCII for an ascii field on the sorted path. Nothing is published.
     */
    @Test
    void aValueThatDoesNotFitFailsTheWriteNamingTheColumn() throws Exception {
        String table = "CREATE TYPE ks.label (code ascii);\nCREATE TABLE ks.composite_r (pk int, c int, v vector<float, 2>, d duration,"
                + " l frozen<label>, PRIMARY KEY (pk, c))";
        StructType schema = struct(field("pk", DataTypes.IntegerType), field("c", DataTypes.IntegerType),
                field("v", DataTypes.createArrayType(DataTypes.FloatType)), field("d", DataTypes.StringType),
                field("l", struct(field("code", DataTypes.StringType))));
        Object[][] cases = {
                {RowFactory.create(1, 1, List.of(1f, 2f, 3f), null, null), "column 'v'", "[1.0, 2.0, 3.0]", "has 3 elements; a CQL vector<float, 2> has exactly 2"},
                {RowFactory.create(1, 1, Arrays.asList(1f, null), null, null), "column 'v'", "[1.0, null]", "holds a null"},
                {RowFactory.create(1, 1, null, "90 minutes", null), "column 'd'", "'90 minutes'", "is not a CQL duration literal"},
                {RowFactory.create(1, 1, null, null, RowFactory.create("caf\u00e9")), "column 'l.code'", "'caf\u00e9'", "is not ASCII"},
        };
        for (int i = 0; i < cases.length; i++) {
            Object[] c = cases[i];
            Path out = tmp.resolve("row-" + i);
            Map<String, String> o = options(out, "", 1);
            o.put("table", table);
            Dataset<Row> df = spark.createDataFrame(List.of((Row) c[0]), schema);
            String m = BulkWriteTest.rootMessage(assertThrows(SparkException.class, () -> FlushlineSpark.write(df, o)));
            for (int k = 1; k < c.length; k++) assertTrue(m.contains((String) c[k]), "case " + i + " wants <" + c[k] + ">: " + m);
            try (Stream<Path> s = Files.list(out)) {
                assertEquals(List.of(), s.toList(), "nothing published");
            }
        }
    }
}

package dev.flushline.node;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.cql.BoundStatementBuilder;
import com.datastax.oss.driver.api.core.cql.ColumnDefinitions;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.ResultSet;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import com.datastax.oss.driver.api.core.type.DataTypes;
import dev.flushline.Main;
import dev.flushline.data.Cell;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.flush.FlushJob;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.SSTableVersion;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static dev.flushline.node.Updates.i32;
import static dev.flushline.node.Updates.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * End to end into a real Cassandra 5.0.9 node: {@code flushline load} writes sstables from a
 * generated operations file (JSON Lines), the node imports them as {@code nodetool import} does, and CQL through the Java driver reads
 * them back. The expectation is the node itself: the same operations, as CQL statements, go into a
 * twin table through the node's ordinary write path, and both tables must answer a full scan
 * with the same rows, values and WRITETIME(); TTL() may differ only by the seconds that passed
 * between Flushline's clock reading and the node's writes.
 *
 * <p>The sstables come from the command line tool, run in-process through {@link Main#run} with the
 * options a user would give it (--ranges, --flush-threads, --allocation, --memtable-size-mb,
 * --memtable, --compression, --now), several runs into one --out per table.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NodeImportTest {
    static final String KS = "flushline_it";

    /** Schemas covering every supported type, collections frozen and not, statics, DESC clustering, both compressions. */
    static final String[] SCHEMAS = {
        "CREATE TABLE " + KS + ".all_types (k int, c1 text, c2 bigint, "
                + "a ascii, b bigint, bl blob, bo boolean, d date, de decimal, db double, f float, i inet, n int, "
                + "sm smallint, t text, ti time, tm timestamp, tu timeuuid, ty tinyint, u uuid, v varint, "
                + "s text STATIC, ss set<int> STATIC, "
                + "PRIMARY KEY (k, c1, c2)) WITH CLUSTERING ORDER BY (c1 ASC, c2 DESC)",
        "CREATE TABLE " + KS + ".collections (p1 text, p2 int, c timeuuid, "
                + "l list<text>, st set<timestamp>, m map<int, text>, lb list<blob>, mu map<uuid, decimal>, "
                + "fl frozen<list<int>>, fs frozen<set<text>>, fm frozen<map<text, bigint>>, "
                + "sm map<text, int> STATIC, sl list<double> STATIC, "
                + "PRIMARY KEY ((p1, p2), c)) WITH compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': 4}",
        "CREATE TABLE " + KS + ".clustering_mix (k bigint, c1 int, c2 uuid, c3 date, c4 boolean, v text, w varint, "
                + "PRIMARY KEY (k, c1, c2, c3, c4)) WITH CLUSTERING ORDER BY (c1 DESC, c2 ASC, c3 DESC, c4 ASC) "
                + "AND compression = {'enabled': false}",
        "CREATE TABLE " + KS + ".no_clustering (k uuid PRIMARY KEY, v int, w map<text, text>, x frozen<set<inet>>)",
        "CREATE TABLE " + KS + ".keys_only (k text, c int, PRIMARY KEY (k, c))",
    };

    static final AllocationMode[] MODES = {AllocationMode.UNSLABBED_HEAP, AllocationMode.HEAP_BUFFERS, AllocationMode.OFFHEAP_OBJECTS};

    @TempDir static Path tmp;
    CassandraNode node;
    CqlSession session;
    final Map<String, PreparedStatement> prepared = new HashMap<>();

    /** The node's settings: Cassandra's defaults (it writes big, oa) apart from what every node test sets. */
    CassandraNode.Settings nodeSettings() {
        return new CassandraNode.Settings();
    }

    /**
     * The sstable version of each of the first test's four load runs: the node imports oa and da
     * side by side into one table, as a node's directory holds both after its format changed.
     */
    String[] versionsByRun() {
        return new String[] {"oa", "da", "oa", "da"};
    }

    /** The version the other tests' loads write. */
    String defaultVersion() {
        return "oa";
    }

    @BeforeAll
    void startNode() throws Exception {
        node = CassandraNode.start(tmp.resolve("node"), nodeSettings());
        session = CqlSession.builder()
                .addContactPoint(new InetSocketAddress("127.0.0.1", node.nativePort))
                .withLocalDatacenter("datacenter1")
                .withConfigLoader(DriverConfigLoader.programmaticBuilder()
                        .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, Duration.ofSeconds(60))
                        .withDuration(DefaultDriverOption.CONTROL_CONNECTION_AGREEMENT_TIMEOUT, Duration.ofSeconds(30))
                        .build())
                .build();
        session.execute("CREATE KEYSPACE " + KS + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
    }

    @AfterAll
    void stopNode() throws Exception {
        if (session != null) session.close();
        if (node != null) node.close();
    }

    @Test
    void importedSSTablesReadBackAsTheSameOperationsWrittenThroughCql() throws Exception {
        // Each table is loaded in four runs of `flushline load` into one --out, each with its own
        // --now: a second apart and increasing, so that list element paths (time-UUIDs from --now,
        // one tick per element) keep increasing across runs as the node's do across the twin's
        // statements. TTL() is compared against the earliest of them.
        long base = System.currentTimeMillis() / 1000;
        long nowSeconds = base - 4;
        Path out = tmp.resolve("flushline-out");
        List<TableSchema> schemas = new ArrayList<>();
        List<List<Workload.Op>> allOps = new ArrayList<>();
        for (int s = 0; s < SCHEMAS.length; s++) {
            TableSchema schema = CqlParser.parse(SCHEMAS[s]);
            schemas.add(schema);
            Path schemaFile = tmp.resolve(schema.name() + ".cql");
            Files.writeString(schemaFile, SCHEMAS[s], StandardCharsets.UTF_8);
            Workload w = new Workload(schema, 1000 + s, 30, 10);
            List<Workload.Op> ops = w.ops(450, 1_700_000_000_000_000L);
            allOps.add(ops);
            // Four runs, as flushes of the table: one whole-ring sstable, then two runs split into 4
            // token ranges (on 1 and 2 flush threads), each allocation mode, a sharded memtable and
            // the other compression once per table; memtables of 1 MiB for unslabbed_heap and 2 for
            // the slab modes. The last run's few operations go into a slab memtable of 1 MiB.
            String otherCompression = schema.compression() == TableSchema.Compression.LZ4 ? "none" : "lz4";
            String[][] runs = {
                {"--ranges", "1", "--flush-threads", "1"},
                {"--ranges", "4", "--flush-threads", "1", "--memtable", "sharded", "--compression", otherCompression},
                {"--ranges", "4", "--flush-threads", "2"},
                {"--memtable-size-mb", "1", "--allocation", s % 2 == 0 ? "heap_buffers" : "offheap_objects"},
            };
            int[] ends = {150, 300, 438, 450};
            for (int f = 0, from = 0; f < runs.length; from = ends[f++]) {
                List<String> lines = new ArrayList<>();
                for (Workload.Op op : ops.subList(from, ends[f])) lines.addAll(op.json());
                Path opsFile = tmp.resolve(schema.name() + "-" + f + ".jsonl");
                Files.write(opsFile, lines, StandardCharsets.UTF_8);
                List<String> args = new ArrayList<>(List.of(runs[f]));
                args.addAll(List.of("--sstable-version", versionsByRun()[f]));
                if (!args.contains("--allocation")) {
                    AllocationMode mode = MODES[(s + f) % MODES.length];
                    args.addAll(List.of("--allocation", mode.name().toLowerCase(java.util.Locale.ROOT),
                            "--memtable-size-mb", mode == AllocationMode.UNSLABBED_HEAP ? "1" : "2"));
                }
                int sstables = load(schema, schemaFile, opsFile, lines.size(), out, nowSeconds + f, args);
                // The memtable is switched when the bytes its data takes pass the limit, not when its
                // first 1 MiB slab is taken: the last run's few operations fit one memtable.
                if (f == 3) {
                    assertEquals(1, sstables, () -> schema.name() + ": " + sstables + " sstables from 12 operations under 1 MiB");
                }
            }
        }

        for (int s = 0; s < SCHEMAS.length; s++) {
            TableSchema schema = schemas.get(s);
            // The table the node imports into is created from the very text Flushline parsed, without
            // an id: the node picks its own, so the import must not depend on the folder's table id.
            session.execute(SCHEMAS[s]);
            session.execute(SCHEMAS[s].replace(KS + "." + schema.name(), KS + "." + twin(schema)));
            importOrFail(schema.name(), schema.directoryUnder(out));
        }

        // The twin tables get the same operations through CQL, in generation order (list element
        // paths come from the node's clock, so execution order is list order).
        for (int s = 0; s < SCHEMAS.length; s++) {
            String table = KS + "." + twin(schemas.get(s));
            for (Workload.Op op : allOps.get(s)) {
                for (Workload.Statement st : op.statements()) execute(String.format(st.cql(), table), st.values());
            }
        }
        long writesDoneSeconds = System.currentTimeMillis() / 1000 + 1;

        for (int s = 0; s < SCHEMAS.length; s++) {
            compare(schemas.get(s), nowSeconds, writesDoneSeconds);
        }
    }

    /**
     * {@code flushline load} in-process with {@link Main#run}: exit status 0, one {@code Completed
     * flushing} line per sstable, all in the table's folder under {@code out}, and every line of
     * the file read, none bad. Returns the number of sstables.
     */
    private int load(TableSchema schema, Path schemaFile, Path opsFile, int lines, Path out, long now, List<String> options) {
        List<String> argv = new ArrayList<>(List.of("load", "--schema", schemaFile.toString(), "--input", opsFile.toString(),
                "--out", out.toString(), "--now", Long.toString(now)));
        argv.addAll(options);
        if (!options.contains("--sstable-version")) argv.addAll(List.of("--sstable-version", defaultVersion()));
        ByteArrayOutputStream stdout = new ByteArrayOutputStream(), stderr = new ByteArrayOutputStream();
        int status;
        try (PrintStream o = new PrintStream(stdout, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(stderr, true, StandardCharsets.UTF_8)) {
            status = Main.run(argv.toArray(new String[0]), InputStream.nullInputStream(), o, e);
        }
        String printed = stdout.toString(StandardCharsets.UTF_8);
        String errors = stderr.toString(StandardCharsets.UTF_8);
        String what = "flushline " + String.join(" ", argv) + "\nstdout:\n" + printed + "stderr:\n" + errors;
        assertEquals(0, status, what);
        String tableDir = schema.directoryUnder(out).toString();
        int sstables = 0;
        for (String line : printed.split("\n")) {
            if (!line.startsWith("Completed flushing ")) continue;
            sstables++;
            SSTableVersion version = SSTableVersion.fromId(argv.get(argv.indexOf("--sstable-version") + 1));
            assertTrue(line.startsWith("Completed flushing " + tableDir + "/" + version.id() + "-")
                    && line.contains("-" + version.format().id() + "-Data.db ("), what);
            assertTrue(line.contains("for commitlog position CommitLogPosition(segmentId=-1, position=0), time spent: "), what);
        }
        assertTrue(sstables > 0, what);
        assertTrue(printed.contains("(" + lines + " lines read, 0 bad lines skipped"), what);
        System.out.printf("%s: %d lines loaded into %d sstables (%s)%n", schema.name(), lines, sstables, String.join(" ", options));
        return sstables;
    }

    private static Path write(Path file, List<String> lines) throws java.io.IOException {
        return Files.write(file, lines, StandardCharsets.UTF_8);
    }

    /**
     * {@code nodetool import}; a refusal fails the test with the node's reasons (its ERROR log
     * lines since the import began), since the import itself only names the refused directories.
     */
    private void importOrFail(String table, Path dir) throws Exception {
        int logLine = node.logLines();
        List<String> failed = node.importSSTables(KS, table, List.of(dir));
        if (!failed.isEmpty()) {
            fail("the node refused to import " + failed + " into " + KS + "." + table + "; it logged:\n" + node.errors(logLine));
        }
    }

    /**
     * A hand-made history with its CQL results written out: one of each deletion kind, a TTL
     * that runs, one that expired an hour ago, a set element removed, statics, and an older write
     * that arrives in a later flush and must lose. Written with {@code flushline load} in three
     * runs: an hour ago (--now), then two flushes; only the set element removal goes through the
     * API, since the operations format has no element removal ({@code tags = tags - {...}}).
     */
    @Test
    void handWrittenHistoryReadsBackAsExpected() throws Exception {
        String cql = "CREATE TABLE " + KS + ".events (id int, c int, v text, n bigint, s text STATIC, tags set<text>, "
                + "PRIMARY KEY (id, c))";
        TableSchema schema = CqlParser.parse(cql);
        Path schemaFile = tmp.resolve("events.cql");
        Files.writeString(schemaFile, cql, StandardCharsets.UTF_8);
        long now = System.currentTimeMillis() / 1000;
        long hourAgo = now - 3600;
        long t = 1_700_000_000_000_000L;
        Path out = tmp.resolve("events-out");

        // Loaded with --now an hour ago, with a one-minute TTL: the whole row 4/1 has expired...
        List<String> anHourAgo = List.of(
                "{\"op\":\"insert\",\"timestamp\":" + t + ",\"ttl\":60,\"values\":{\"id\":4,\"c\":1,\"v\":\"gone\"}}",
                // ...of 4/2 only the cell has: the row stays, v reads null.
                "{\"op\":\"insert\",\"timestamp\":" + t + ",\"values\":{\"id\":4,\"c\":2}}",
                "{\"op\":\"update\",\"timestamp\":" + t + ",\"ttl\":60,\"key\":{\"id\":4,\"c\":2},\"set\":{\"v\":\"gone\"}}");
        List<String> first = new ArrayList<>(List.of(
                "{\"op\":\"insert\",\"timestamp\":" + t + ",\"values\":{\"id\":1,\"c\":1,\"v\":\"a\",\"n\":10,\"tags\":[\"x\",\"y\"]}}",
                "{\"op\":\"insert\",\"timestamp\":" + t + ",\"ttl\":3600,\"values\":{\"id\":1,\"c\":2,\"v\":\"b\"}}",
                "{\"op\":\"insert\",\"timestamp\":" + t + ",\"values\":{\"id\":1,\"c\":3,\"v\":\"c\"}}",
                "{\"op\":\"insert\",\"timestamp\":" + t + ",\"values\":{\"id\":1,\"c\":4,\"v\":\"d\"}}",
                "{\"op\":\"update\",\"timestamp\":" + (t + 5) + ",\"key\":{\"id\":1},\"set\":{\"s\":\"st\"}}"));
        for (int c = 1; c <= 5; c++) {
            first.add("{\"op\":\"insert\",\"timestamp\":" + t + ",\"values\":{\"id\":2,\"c\":" + c + ",\"v\":\"r" + c + "\"}}");
        }
        first.addAll(List.of(
                "{\"op\":\"insert\",\"timestamp\":" + t + ",\"values\":{\"id\":3,\"c\":1}}",
                "{\"op\":\"insert\",\"timestamp\":" + t + ",\"values\":{\"id\":3,\"c\":2}}",
                "{\"op\":\"insert\",\"timestamp\":" + t + ",\"values\":{\"id\":5,\"c\":1,\"v\":\"old\"}}"));
        List<String> second = List.of(
                "{\"op\":\"delete\",\"timestamp\":" + (t + 10) + ",\"key\":{\"id\":1,\"c\":3},\"columns\":[\"v\"]}",     // cell deletion
                "{\"op\":\"delete\",\"timestamp\":" + (t + 1) + ",\"key\":{\"id\":1,\"c\":4}}",                          // row deletion
                "{\"op\":\"delete\",\"timestamp\":" + (t + 1) + ",\"key\":{\"id\":2},\"range\":{\"c\":{\">=\":2,\"<\":4}}}", // range
                "{\"op\":\"delete\",\"timestamp\":" + (t + 1) + ",\"key\":{\"id\":3}}",                                  // partition
                "{\"op\":\"insert\",\"timestamp\":" + (t + 2) + ",\"values\":{\"id\":3,\"c\":9,\"v\":\"new\"}}",
                "{\"op\":\"update\",\"timestamp\":" + (t + 20) + ",\"key\":{\"id\":5,\"c\":1},\"set\":{\"v\":\"new\"}}",
                "{\"op\":\"update\",\"timestamp\":" + (t - 5) + ",\"key\":{\"id\":5,\"c\":1},\"set\":{\"v\":\"older\",\"n\":7}}",
                "{\"op\":\"update\",\"timestamp\":" + t + ",\"key\":{\"id\":6},\"set\":{\"s\":\"lonely\"}}");

        load(schema, schemaFile, write(tmp.resolve("events-0.jsonl"), anHourAgo), anHourAgo.size(), out, hourAgo,
                List.of("--allocation", "offheap_objects"));
        load(schema, schemaFile, write(tmp.resolve("events-1.jsonl"), first), first.size(), out, now,
                List.of("--allocation", "heap_buffers"));
        load(schema, schemaFile, write(tmp.resolve("events-2.jsonl"), second), second.size(), out, now,
                List.of("--ranges", "4", "--flush-threads", "2", "--allocation", "unslabbed_heap"));
        // UPDATE ... SET tags = tags - {'x'}: an element tombstone, through the API (no such operation in the format).
        Memtable m = new SkipListMemtable(schema, AllocationMode.HEAP_BUFFERS);
        m.apply(new PartitionUpdate(PartitionKey.of(i32(1)), DeletionTime.LIVE, List.of(), null, List.of(
                new Updates.RowBuilder(schema, false, i32(1)).complex("tags", DeletionTime.LIVE,
                        Cell.tombstone(t + 3, now, text("x"))).build())));
        m.seal();
        FlushJob.run(m, FlushJob.Options.builder(out).build());

        session.execute(cql);
        importOrFail(schema.name(), schema.directoryUnder(out));

        List<String> rows = new ArrayList<>();
        for (com.datastax.oss.driver.api.core.cql.Row r : all("SELECT id, c, v, n, s, tags, WRITETIME(v), WRITETIME(s) FROM "
                + KS + ".events")) {
            rows.add(r.getFormattedContents().replaceAll("\"", ""));
        }
        rows.sort(null);
        long ts = t;
        // (The driver prints a null collection as {}.)
        assertEquals(List.of(
                "[id:1, c:1, v:'a', n:10, s:'st', tags:{'y'}, writetime(v):" + ts + ", writetime(s):" + (ts + 5) + "]",
                "[id:1, c:2, v:'b', n:NULL, s:'st', tags:{}, writetime(v):" + ts + ", writetime(s):" + (ts + 5) + "]",
                "[id:1, c:3, v:NULL, n:NULL, s:'st', tags:{}, writetime(v):NULL, writetime(s):" + (ts + 5) + "]",
                "[id:2, c:1, v:'r1', n:NULL, s:NULL, tags:{}, writetime(v):" + ts + ", writetime(s):NULL]",
                "[id:2, c:4, v:'r4', n:NULL, s:NULL, tags:{}, writetime(v):" + ts + ", writetime(s):NULL]",
                "[id:2, c:5, v:'r5', n:NULL, s:NULL, tags:{}, writetime(v):" + ts + ", writetime(s):NULL]",
                "[id:3, c:9, v:'new', n:NULL, s:NULL, tags:{}, writetime(v):" + (ts + 2) + ", writetime(s):NULL]",
                "[id:4, c:2, v:NULL, n:NULL, s:NULL, tags:{}, writetime(v):NULL, writetime(s):NULL]",
                "[id:5, c:1, v:'new', n:7, s:NULL, tags:{}, writetime(v):" + (ts + 20) + ", writetime(s):NULL]",
                "[id:6, c:NULL, v:NULL, n:NULL, s:'lonely', tags:{}, writetime(v):NULL, writetime(s):" + ts + "]"), rows);

        // TTL() counts down from 3600 on the node's clock: at most the seconds since we read ours.
        long before = System.currentTimeMillis() / 1000;
        int ttl = session.execute("SELECT TTL(v) FROM " + KS + ".events WHERE id = 1 AND c = 2").one().getInt(0);
        long after = System.currentTimeMillis() / 1000;
        assertTrue(ttl <= 3600 - (before - now) + 1 && ttl >= 3600 - (after - now) - 1,
                () -> "TTL(v) " + ttl + " after " + (after - now) + " s");
    }

    /**
     * User-defined types (frozen, and non-frozen with field updates and deletions), a tuple, a
     * duration, float vectors of 4,096 dimensions and a text vector, in keys and values: loaded
     * with {@code flushline load}, imported by the node, and read through the driver against a
     * twin table that got the same writes as CQL statements through the node's own write path.
     * Row order (a tuple clustering column) is the node's. The table is Zstd-compressed.
     */
    @Test
    void compositeTypesImportAndReadBackThroughTheDriver() throws Exception {
        String[] types = {
                "CREATE TYPE " + KS + ".addr (street text, city text, \"Zip\" int, tags frozen<set<text>>)",
                "CREATE TYPE " + KS + ".person (name text, home frozen<addr>, took duration)",
        };
        // CODEC: the table's codec (Zstd, which load writes as the table asks, as CQLSSTableWriter does)
        String compression = "compression = {'class': 'ZstdCompressor', 'compression_level': 3}";
        String table = "CREATE TABLE " + KS + ".composite (k frozen<tuple<int, text>>, c tuple<int, text>, f frozen<addr>, "
                + "a addr, fp frozen<person>, p person, t tuple<int, duration, frozen<list<int>>>, d duration, "
                + "v vector<float, 4096>, vt vector<text, 2>, prefs map<text, text>, tags set<text>, s addr static, "
                + "PRIMARY KEY (k, c, f)) WITH CLUSTERING ORDER BY (c DESC, f ASC) AND " + compression;
        String schemaText = String.join(";\n", types) + ";\n" + table;
        TableSchema schema = CqlParser.parse(schemaText);
        Path schemaFile = tmp.resolve("composite.cql");
        Files.writeString(schemaFile, schemaText, StandardCharsets.UTF_8);

        java.util.Random r = new java.util.Random(77);
        long t = 1_700_000_000_000_000L;
        List<String> json = new ArrayList<>();
        List<String> cql = new ArrayList<>(); // %s: the twin table
        for (int i = 0; i < 40; i++) {
            int k = i % 5;
            String key = "{\"k\":[" + k + ",\"p" + k + "\"],\"c\":[" + (i % 7 - 3) + (i % 3 == 0 ? ",null" : ",\"c" + (i % 4) + "\"") + "],"
                    + "\"f\":{\"city\":\"C" + (i % 2) + "\",\"\\\"Zip\\\"\":" + i + "}}";
            String keyCql = "k = (" + k + ", 'p" + k + "') AND c = (" + (i % 7 - 3) + (i % 3 == 0 ? ", null" : ", 'c" + (i % 4) + "'") + ")"
                    + " AND f = {city: 'C" + (i % 2) + "', \"Zip\": " + i + "}";
            long ts = t + i;
            float[] vec = new float[4096];
            StringBuilder vj = new StringBuilder("["), vc = new StringBuilder("[");
            for (int d = 0; d < vec.length; d++) {
                vec[d] = (r.nextInt(20001) - 10000) / 64f;
                vj.append(d == 0 ? "" : ",").append(vec[d]);
                vc.append(d == 0 ? "" : ", ").append(vec[d]);
            }
            vj.append(']');
            vc.append(']');
            String ttl = i % 6 == 5 ? ",\"ttl\":86400" : "";
            String ttlCql = i % 6 == 5 ? " AND TTL 86400" : "";
            json.add("{\"op\":\"insert\",\"timestamp\":" + ts + ttl + ",\"values\":{" + key.substring(1, key.length() - 1)
                    + ",\"a\":{\"street\":\"S" + i + "\",\"tags\":[\"x\",\"y" + (i % 3) + "\"]},"
                    + "\"fp\":{\"name\":\"n" + i + "\",\"home\":{\"city\":\"h\"},\"took\":\"" + (i + 1) + "h30m\"},"
                    + "\"p\":{\"name\":\"m" + i + "\",\"took\":\"P" + (i + 1) + "DT2H\"},"
                    + "\"t\":[" + i + ",\"-" + (i + 1) + "d\",[1," + i + "]],\"d\":\"" + (i + 1) + "mo" + i + "s\","
                    + "\"v\":" + vj + ",\"vt\":[\"\",\"v" + i + "\"],\"prefs\":{\"a\":\"1\",\"b" + (i % 2) + "\":\"2\"},"
                    + "\"tags\":[\"t1\",\"t" + (i % 5) + "\"],\"s\":{\"city\":\"static" + k + "\"}}}");
            cql.add("INSERT INTO %s (k, c, f, a, fp, p, t, d, v, vt, prefs, tags, s) VALUES ((" + k + ", 'p" + k + "'), ("
                    + (i % 7 - 3) + (i % 3 == 0 ? ", null" : ", 'c" + (i % 4) + "'") + "), {city: 'C" + (i % 2) + "', \"Zip\": " + i + "}, "
                    + "{street: 'S" + i + "', tags: {'x', 'y" + (i % 3) + "'}}, {name: 'n" + i + "', home: {city: 'h'}, took: " + (i + 1) + "h30m}, "
                    + "{name: 'm" + i + "', took: P" + (i + 1) + "DT2H}, (" + i + ", -" + (i + 1) + "d, [1, " + i + "]), " + (i + 1) + "mo" + i + "s, "
                    + vc + ", ['', 'v" + i + "'], {'a': '1', 'b" + (i % 2) + "': '2'}, {'t1', 't" + (i % 5) + "'}, {city: 'static" + k + "'}) "
                    + "USING TIMESTAMP " + ts + ttlCql);
            // field and element updates and deletions, a second later
            if (i % 4 == 1) {
                json.add("{\"op\":\"update\",\"timestamp\":" + (ts + 1000) + ",\"key\":" + key + ",\"set\":{\"a.city\":\"Paris" + i
                        + "\",\"p.took\":\"-1w\",\"prefs['b" + (i % 2) + "']\":\"22\",\"prefs['n']\":null},\"remove\":{\"tags\":[\"t1\"]}}");
                cql.add("UPDATE %s USING TIMESTAMP " + (ts + 1000) + " SET a.city = 'Paris" + i + "', p.took = -1w, prefs['b" + (i % 2)
                        + "'] = '22', prefs['n'] = null, tags = tags - {'t1'} WHERE " + keyCql);
            }
            if (i % 4 == 2) {
                json.add("{\"op\":\"delete\",\"timestamp\":" + (ts + 1000) + ",\"key\":" + key + ",\"columns\":[\"a.street\",\"prefs['a']\",\"tags['t1']\",\"p\"]}");
                cql.add("DELETE a.street, prefs['a'], tags['t1'], p FROM %s USING TIMESTAMP " + (ts + 1000) + " WHERE " + keyCql);
            }
            if (i % 10 == 3) {
                json.add("{\"op\":\"update\",\"timestamp\":" + (ts + 2000) + ",\"key\":" + key.substring(0, key.indexOf(",\"c\"")) + "},\"set\":{\"s.street\":\"ss" + i + "\"}}");
                cql.add("UPDATE %s USING TIMESTAMP " + (ts + 2000) + " SET s.street = 'ss" + i + "' WHERE k = (" + k + ", 'p" + k + "')");
            }
        }
        Path out = tmp.resolve("composite-out");
        long now = System.currentTimeMillis() / 1000;
        load(schema, schemaFile, write(tmp.resolve("composite.jsonl"), json), json.size(), out, now, List.of("--ranges", "2"));
        try (var files = Files.list(schema.directoryUnder(out))) {
            for (Path info : files.filter(f -> f.getFileName().toString().endsWith("-CompressionInfo.db")).toList()) {
                assertTrue(new String(Files.readAllBytes(info), StandardCharsets.ISO_8859_1).contains("ZstdCompressor"), info + " is Zstd");
            }
        }

        for (String type : types) session.execute(type);
        session.execute(table);
        session.execute(table.replace(KS + ".composite", KS + ".composite_cql"));
        importOrFail("composite", schema.directoryUnder(out));
        for (String st : cql) session.execute(String.format(st, KS + ".composite_cql"));

        String query = "SELECT k, c, f, a, fp, p, t, d, v, vt, prefs, tags, s, WRITETIME(d), WRITETIME(fp) FROM " + KS + ".%s";
        List<com.datastax.oss.driver.api.core.cql.Row> imported = all(String.format(query, "composite"));
        List<com.datastax.oss.driver.api.core.cql.Row> expected = all(String.format(query, "composite_cql"));
        assertEquals(expected.size(), imported.size(), "rows");
        assertTrue(expected.size() >= 30, "rows: " + expected.size());
        for (int row = 0; row < expected.size(); row++) {
            com.datastax.oss.driver.api.core.cql.Row a = imported.get(row), e = expected.get(row);
            for (int i = 0; i < e.getColumnDefinitions().size(); i++) {
                if (!java.util.Objects.equals(e.getBytesUnsafe(i), a.getBytesUnsafe(i))) {
                    fail("row " + row + " column " + e.getColumnDefinitions().get(i).getName() + ":\n  imported "
                            + a.getFormattedContents() + "\n  expected " + e.getFormattedContents());
                }
            }
        }
        // the driver reads the values as the types they are
        com.datastax.oss.driver.api.core.cql.Row first = imported.get(0);
        assertTrue(first.getObject("v") instanceof com.datastax.oss.driver.api.core.data.CqlVector, "vector");
        assertEquals(4096, ((com.datastax.oss.driver.api.core.data.CqlVector<?>) first.getObject("v")).size());
        assertTrue(first.getObject("d") instanceof com.datastax.oss.driver.api.core.data.CqlDuration, "duration");
        assertTrue(first.getObject("fp") instanceof com.datastax.oss.driver.api.core.data.UdtValue, "udt");
        assertTrue(first.getObject("t") instanceof com.datastax.oss.driver.api.core.data.TupleValue, "tuple");
        System.out.printf("composite: %d rows equal in the imported table and its CQL twin%n", expected.size());
    }

    /** A damaged sstable is refused, and the failure carries the node's reason, not just a directory name. */
    @Test
    void aRefusedImportFailsWithTheNodesReason() throws Exception {
        String cql = "CREATE TABLE " + KS + ".damaged (k int PRIMARY KEY, v text) WITH compression = {'enabled': false}";
        TableSchema schema = CqlParser.parse(cql);
        Path schemaFile = tmp.resolve("damaged.cql");
        Files.writeString(schemaFile, cql, StandardCharsets.UTF_8);
        List<String> ops = new ArrayList<>();
        for (int k = 0; k < 50; k++) {
            ops.add("{\"op\":\"insert\",\"timestamp\":" + (1000 + k) + ",\"values\":{\"k\":" + k + ",\"v\":\"value " + k + "\"}}");
        }
        Path out = tmp.resolve("damaged-out");
        load(schema, schemaFile, write(tmp.resolve("damaged.jsonl"), ops), ops.size(), out, System.currentTimeMillis() / 1000,
                List.of("--allocation", "unslabbed_heap"));
        Path tableDir = schema.directoryUnder(out);
        Path data;
        try (var files = Files.list(tableDir)) {
            data = files.filter(f -> f.getFileName().toString().endsWith("-Data.db")).findFirst().orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(data);
        bytes[bytes.length / 2] ^= 0x5A; // one flipped byte: the digest no longer matches
        Files.write(data, bytes);
        session.execute(cql);

        AssertionError refused = org.junit.jupiter.api.Assertions.assertThrows(AssertionError.class,
                () -> importOrFail(schema.name(), tableDir));
        assertTrue(refused.getMessage().contains("Failed verifying SSTable"), refused::getMessage);
        assertTrue(refused.getMessage().contains("Exception"), refused::getMessage);
        System.out.println("damaged sstable refused as expected:\n" + refused.getMessage());
    }

    private void execute(String cql, List<ByteBuffer> values) {
        PreparedStatement ps = prepared.computeIfAbsent(cql, session::prepare);
        BoundStatementBuilder b = ps.boundStatementBuilder();
        for (int i = 0; i < values.size(); i++) b.setBytesUnsafe(i, values.get(i));
        session.execute(b.build());
    }

    private static String twin(TableSchema schema) {
        return schema.name() + "_cql";
    }

    /**
     * Full scans of the imported table and its twin, row by row (same keys, so the same token
     * and clustering order). Values and WRITETIME() must be equal; TTL() of the imported cell
     * may be lower by the seconds between Flushline's clock reading and the twin's writes.
     */
    private void compare(TableSchema schema, long nowSeconds, long writesDoneSeconds) {
        List<String> select = new ArrayList<>();
        for (ColumnMetadata c : schema.partitionKeyColumns()) select.add(Workload.q(c));
        for (ColumnMetadata c : schema.clusteringColumns()) select.add(Workload.q(c));
        List<ColumnMetadata> cols = new ArrayList<>(List.of(schema.staticColumns()));
        cols.addAll(List.of(schema.regularColumns()));
        for (ColumnMetadata c : cols) {
            select.add(Workload.q(c));
            select.add("WRITETIME(" + Workload.q(c) + ")");
            select.add("TTL(" + Workload.q(c) + ")");
        }
        String query = "SELECT " + String.join(", ", select) + " FROM " + KS + ".%s";
        List<com.datastax.oss.driver.api.core.cql.Row> imported = all(String.format(query, schema.name()));
        List<com.datastax.oss.driver.api.core.cql.Row> expected = all(String.format(query, twin(schema)));
        long maxSkew = writesDoneSeconds - nowSeconds;
        List<String> problems = new ArrayList<>();
        int n = Math.max(imported.size(), expected.size());
        for (int r = 0; r < n && problems.size() < 3; r++) {
            if (r >= imported.size() || r >= expected.size()) {
                problems.add("row " + r + ": imported " + (r < imported.size() ? imported.get(r).getFormattedContents() : "<none>")
                        + " expected " + (r < expected.size() ? expected.get(r).getFormattedContents() : "<none>"));
                continue;
            }
            com.datastax.oss.driver.api.core.cql.Row a = imported.get(r), e = expected.get(r);
            ColumnDefinitions defs = a.getColumnDefinitions();
            for (int i = 0; i < defs.size(); i++) {
                String name = defs.get(i).getName().asInternal();
                ByteBuffer av = a.getBytesUnsafe(i), ev = e.getBytesUnsafe(i);
                boolean ok = name.startsWith("ttl(") ? ttlWithin(a, e, i, maxSkew) : java.util.Objects.equals(av, ev);
                if (!ok) {
                    problems.add("row " + r + " column " + name + ":\n  imported " + a.getFormattedContents()
                            + "\n  expected " + e.getFormattedContents());
                    break;
                }
            }
        }
        if (!problems.isEmpty()) {
            fail(KS + "." + schema.name() + " (imported from Flushline sstables) differs from " + twin(schema)
                    + " (written through CQL), " + imported.size() + " vs " + expected.size() + " rows:\n"
                    + String.join("\n", problems) + "\nnode errors:\n" + node.errors(0));
        }
        System.out.printf("%s: %d rows equal in the imported table and its CQL twin%n", schema.name(), expected.size());
        // The comparison must have compared something: the workload leaves live rows behind.
        assertTrue(expected.size() > 20, () -> schema.name() + ": only " + expected.size() + " rows survived the workload");
    }

    /** TTL() is int for a simple column and list<int> (one per cell, null if not expiring) for a collection. */
    private static boolean ttlWithin(com.datastax.oss.driver.api.core.cql.Row a, com.datastax.oss.driver.api.core.cql.Row e,
                                     int i, long maxSkew) {
        List<Integer> at = ttls(a, i), et = ttls(e, i);
        if (at == null || et == null) return at == et;
        if (at.size() != et.size()) return false;
        for (int k = 0; k < at.size(); k++) {
            Integer x = at.get(k), y = et.get(k);
            if (x == null || y == null) {
                if (x != y) return false;
                continue;
            }
            // The twin's cell expires (y - x) seconds later: it was written that much after
            // Flushline read its clock. One second more either way for a tick between the two scans.
            long d = (long) y - x;
            if (d < -1 || d > maxSkew + 1) return false;
        }
        return true;
    }

    private static List<Integer> ttls(com.datastax.oss.driver.api.core.cql.Row row, int i) {
        if (row.isNull(i)) return null;
        if (row.getColumnDefinitions().get(i).getType().equals(DataTypes.INT)) {
            List<Integer> one = new ArrayList<>();
            one.add(row.getInt(i));
            return one;
        }
        return row.getList(i, Integer.class);
    }

    private List<com.datastax.oss.driver.api.core.cql.Row> all(String cql) {
        ResultSet rs = session.execute(SimpleStatement.newInstance(cql).setPageSize(1000));
        List<com.datastax.oss.driver.api.core.cql.Row> rows = new ArrayList<>();
        rs.forEach(rows::add);
        return rows;
    }
}

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
import dev.flushline.data.ArrayCell;
import dev.flushline.data.ClusteringBound;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.RangeTombstone;
import dev.flushline.data.Row;
import dev.flushline.flush.FlushJob;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static dev.flushline.node.Updates.expiring;
import static dev.flushline.node.Updates.i32;
import static dev.flushline.node.Updates.i64;
import static dev.flushline.node.Updates.live;
import static dev.flushline.node.Updates.text;
import static dev.flushline.node.Updates.tombstone;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * End to end into a real Cassandra 5.0.5 node: Flushline writes sstables for random operations,
 * the node imports them as {@code nodetool import} does, and CQL through the Java driver reads
 * them back. The expectation is the node itself: the same operations, as CQL statements, go into a
 * twin table through the node's ordinary write path, and both tables must answer a full scan
 * with the same rows, values and WRITETIME(); TTL() may differ only by the seconds that passed
 * between Flushline's clock reading and the node's writes.
 *
 * <p>Sstables are produced through the API (CqlParser, SkipListMemtable, FlushJob) as the
 * {@code flushline load} CLI will do it; once that CLI exists, the random test can write the
 * operations to the CLI's input format and run it instead, importing the same table folders.
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

    @BeforeAll
    void startNode() throws Exception {
        node = CassandraNode.start(tmp.resolve("node"));
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
        long nowSeconds = System.currentTimeMillis() / 1000;
        Path out = tmp.resolve("flushline-out");
        List<TableSchema> schemas = new ArrayList<>();
        List<List<Workload.Op>> allOps = new ArrayList<>();
        for (int s = 0; s < SCHEMAS.length; s++) {
            TableSchema schema = CqlParser.parse(SCHEMAS[s]);
            schemas.add(schema);
            Workload w = new Workload(schema, 1000 + s, nowSeconds, 30, 10);
            List<Workload.Op> ops = w.ops(450, 1_700_000_000_000_000L);
            allOps.add(ops);
            // Three flushes of the table, as a running Flushline would make them: one whole-ring
            // sstable, then two flushes split into 4 token ranges (on 1 and 2 threads).
            int[][] flushes = {{1, 1}, {4, 1}, {4, 2}};
            int per = (ops.size() + flushes.length - 1) / flushes.length;
            for (int f = 0; f < flushes.length; f++) {
                Memtable m = new SkipListMemtable(schema, MODES[(s + f) % MODES.length]);
                for (Workload.Op op : ops.subList(f * per, Math.min(ops.size(), (f + 1) * per))) m.apply(op.update());
                m.seal();
                FlushJob.run(m, new FlushJob.Options(out, flushes[f][0], flushes[f][1], -1, 0));
            }
        }

        for (int s = 0; s < SCHEMAS.length; s++) {
            TableSchema schema = schemas.get(s);
            // The table the node imports into is created from the very text Flushline parsed, without
            // an id: the node picks its own, so the import must not depend on the folder's table id.
            session.execute(SCHEMAS[s]);
            session.execute(SCHEMAS[s].replace(KS + "." + schema.name(), KS + "." + twin(schema)));
            importOrFail(schema.name(), FlushJob.tableDir(out, schema));
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
     * that arrives in a later flush and must lose.
     */
    @Test
    void handWrittenHistoryReadsBackAsExpected() throws Exception {
        String cql = "CREATE TABLE " + KS + ".events (id int, c int, v text, n bigint, s text STATIC, tags set<text>, "
                + "PRIMARY KEY (id, c))";
        TableSchema schema = CqlParser.parse(cql);
        long now = System.currentTimeMillis() / 1000;
        long hourAgo = now - 3600;
        long t = 1_700_000_000_000_000L;
        Path out = tmp.resolve("events-out");

        List<PartitionUpdate> first = new ArrayList<>();
        first.add(update(1, null,
                row(schema, 1).liveness(t, 0, 0).cell("v", live(t, text("a"))).cell("n", live(t, i64(10)))
                        .complex("tags", DeletionTime.of(t - 1, now), ArrayCell.live(t, new byte[0], text("x")),
                                ArrayCell.live(t, new byte[0], text("y"))).build(),
                row(schema, 2).liveness(t, 3600, now + 3600).cell("v", expiring(t, 3600, now + 3600, text("b"))).build(),
                row(schema, 3).liveness(t, 0, 0).cell("v", live(t, text("c"))).build(),
                row(schema, 4).liveness(t, 0, 0).cell("v", live(t, text("d"))).build()));
        first.add(new PartitionUpdate(key(1), DeletionTime.LIVE, List.of(),
                new Updates.RowBuilder(schema, true).cell("s", live(t + 5, text("st"))).build(), List.of()));
        List<Row> two = new ArrayList<>();
        for (int c = 1; c <= 5; c++) two.add(row(schema, c).liveness(t, 0, 0).cell("v", live(t, text("r" + c))).build());
        first.add(update(2, null, two.toArray(new Row[0])));
        first.add(update(3, null, row(schema, 1).liveness(t, 0, 0).build(), row(schema, 2).liveness(t, 0, 0).build()));
        // Written an hour ago with a one-minute TTL: the whole row has expired...
        first.add(update(4, null,
                row(schema, 1).liveness(t, 60, hourAgo + 60).cell("v", expiring(t, 60, hourAgo + 60, text("gone"))).build(),
                // ...here only the cell has: the row stays, v reads null.
                row(schema, 2).liveness(t, 0, 0).cell("v", expiring(t, 60, hourAgo + 60, text("gone"))).build()));
        first.add(update(5, null, row(schema, 1).liveness(t, 0, 0).cell("v", live(t, text("old"))).build()));

        List<PartitionUpdate> second = new ArrayList<>();
        second.add(update(1, null, row(schema, 3).cell("v", tombstone(t + 10, now)).build()));            // cell deletion
        second.add(update(1, null, row(schema, 4).deleted(t + 1, now).build()));                          // row deletion
        second.add(update(1, null, row(schema, 1).complex("tags", DeletionTime.LIVE,
                ArrayCell.tombstone(t + 3, now, text("x"))).build()));                                        // set element removed
        second.add(new PartitionUpdate(key(2), DeletionTime.LIVE, List.of(new RangeTombstone(               // c >= 2 AND c < 4
                ClusteringBound.start(true, new byte[][] {i32(2)}), ClusteringBound.end(false, new byte[][] {i32(4)}),
                DeletionTime.of(t + 1, now))), null, List.of()));
        second.add(new PartitionUpdate(key(3), DeletionTime.of(t + 1, now), List.of(), null, List.of()));  // partition deletion
        second.add(update(3, null, row(schema, 9).liveness(t + 2, 0, 0).cell("v", live(t + 2, text("new"))).build()));
        second.add(update(5, null, row(schema, 1).cell("v", live(t + 20, text("new"))).build()));
        second.add(update(5, null, row(schema, 1).cell("v", live(t - 5, text("older"))).cell("n", live(t - 5, i64(7))).build()));
        second.add(new PartitionUpdate(key(6), DeletionTime.LIVE, List.of(),
                new Updates.RowBuilder(schema, true).cell("s", live(t, text("lonely"))).build(), List.of()));

        int ranges = 1;
        for (List<PartitionUpdate> flush : List.of(first, second)) {
            Memtable m = new SkipListMemtable(schema, AllocationMode.HEAP_BUFFERS);
            for (PartitionUpdate u : flush) m.apply(u);
            m.seal();
            FlushJob.run(m, new FlushJob.Options(out, ranges, 1, -1, 0));
            ranges = 4;
        }
        session.execute(cql);
        importOrFail(schema.name(), FlushJob.tableDir(out, schema));

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

    /** A damaged sstable is refused, and the failure carries the node's reason, not just a directory name. */
    @Test
    void aRefusedImportFailsWithTheNodesReason() throws Exception {
        String cql = "CREATE TABLE " + KS + ".damaged (k int PRIMARY KEY, v text) WITH compression = {'enabled': false}";
        TableSchema schema = CqlParser.parse(cql);
        long now = System.currentTimeMillis() / 1000;
        Memtable m = new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP);
        for (int k = 0; k < 50; k++) {
            m.apply(new PartitionUpdate(PartitionKey.of(i32(k)), DeletionTime.LIVE, List.of(), null, List.of(
                    new Updates.RowBuilder(schema, false).liveness(1000 + k, 0, 0).cell("v", live(1000 + k, text("value " + k))).build())));
        }
        m.seal();
        Path out = tmp.resolve("damaged-out");
        FlushJob.run(m, FlushJob.Options.simple(out));
        Path tableDir = FlushJob.tableDir(out, schema);
        Path data;
        try (var files = java.nio.file.Files.list(tableDir)) {
            data = files.filter(f -> f.getFileName().toString().endsWith("-Data.db")).findFirst().orElseThrow();
        }
        byte[] bytes = java.nio.file.Files.readAllBytes(data);
        bytes[bytes.length / 2] ^= 0x5A; // one flipped byte: the digest no longer matches
        java.nio.file.Files.write(data, bytes);
        session.execute(cql);

        AssertionError refused = org.junit.jupiter.api.Assertions.assertThrows(AssertionError.class,
                () -> importOrFail(schema.name(), tableDir));
        assertTrue(refused.getMessage().contains("Failed verifying SSTable"), refused::getMessage);
        assertTrue(refused.getMessage().contains("Exception"), refused::getMessage);
        System.out.println("damaged sstable refused as expected:\n" + refused.getMessage());
    }

    private static PartitionKey key(int id) {
        return PartitionKey.of(i32(id));
    }

    private static PartitionUpdate update(int id, Row staticRow, Row... rows) {
        return new PartitionUpdate(key(id), DeletionTime.LIVE, List.of(), staticRow, List.of(rows));
    }

    private static Updates.RowBuilder row(TableSchema schema, int c) {
        return new Updates.RowBuilder(schema, false, i32(c));
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

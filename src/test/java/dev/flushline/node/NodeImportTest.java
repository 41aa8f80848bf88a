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

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * End to end into a real Cassandra 5.0.5 node: Flushline writes sstables for random operations,
 * the node imports them as {@code nodetool import} does, and CQL through the Java driver reads
 * them back. The expectation is the node itself: the same operations, as CQL statements, go into a
 * twin table through the node's ordinary write path, and both tables must answer a full scan
 * with the same rows, values and WRITETIME(); TTL() may differ only by the seconds that passed
 * between Flushline's clock reading and the node's writes.
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
            Path tableDir = FlushJob.tableDir(out, schema);
            List<String> failed = node.importSSTables(KS, schema.name(), List.of(tableDir));
            if (!failed.isEmpty()) {
                fail("the node refused to import " + failed + " into " + KS + "." + schema.name()
                        + "; its errors:\n" + node.errors());
            }
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
                    + String.join("\n", problems) + "\nnode errors:\n" + node.errors());
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

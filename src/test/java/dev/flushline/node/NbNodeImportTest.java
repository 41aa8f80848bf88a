package dev.flushline.node;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.servererrors.InvalidQueryException;
import dev.flushline.cli.Main;
import dev.flushline.flush.FlushJob;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A real Cassandra 5.0.9 node in {@code storage_compatibility_mode: CASSANDRA_4} (it writes and accepts
 * only nb): it imports {@code flushline load --sstable-version nb} output, and CQL through the driver
 * reads the same rows (values, WRITETIME) as from a twin table written with the same operations
 * through CQL. The same node does not take our oa output (it imports nothing of it), and rejects through CQL the TTL that our nb
 * load rejects as bad input.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NbNodeImportTest {
    static final String KS = "flushline_nb";
    static final String CQL = "CREATE TABLE " + KS + ".%s (id int, c int, v text, n bigint, s text STATIC, tags set<text>, "
            + "PRIMARY KEY (id, c))";

    @TempDir static Path tmp;
    CassandraNode node;
    CqlSession session;

    @BeforeAll
    void startNode() throws Exception {
        node = CassandraNode.start(tmp.resolve("node"), "CASSANDRA_4");
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

    /** One operation, as a JSON line for flushline and as CQL for the twin (%s = its table). */
    record Op(String json, String cql) {}

    static List<Op> ops(long t) {
        List<Op> ops = new ArrayList<>();
        ops.add(new Op("{\"op\":\"insert\",\"timestamp\":" + t + ",\"values\":{\"id\":1,\"c\":1,\"v\":\"a\",\"n\":10,\"tags\":[\"x\",\"y\"]}}",
                "INSERT INTO " + KS + ".%s (id, c, v, n, tags) VALUES (1, 1, 'a', 10, {'x', 'y'}) USING TIMESTAMP " + t));
        ops.add(new Op("{\"op\":\"insert\",\"timestamp\":" + t + ",\"ttl\":3600,\"values\":{\"id\":1,\"c\":2,\"v\":\"b\"}}",
                "INSERT INTO " + KS + ".%s (id, c, v) VALUES (1, 2, 'b') USING TIMESTAMP " + t + " AND TTL 3600"));
        ops.add(new Op("{\"op\":\"insert\",\"timestamp\":" + t + ",\"values\":{\"id\":1,\"c\":3,\"v\":\"c\"}}",
                "INSERT INTO " + KS + ".%s (id, c, v) VALUES (1, 3, 'c') USING TIMESTAMP " + t));
        ops.add(new Op("{\"op\":\"delete\",\"timestamp\":" + (t + 10) + ",\"key\":{\"id\":1,\"c\":3},\"columns\":[\"v\"]}",
                "DELETE v FROM " + KS + ".%s USING TIMESTAMP " + (t + 10) + " WHERE id = 1 AND c = 3"));
        ops.add(new Op("{\"op\":\"insert\",\"timestamp\":" + t + ",\"values\":{\"id\":1,\"c\":4,\"v\":\"d\"}}",
                "INSERT INTO " + KS + ".%s (id, c, v) VALUES (1, 4, 'd') USING TIMESTAMP " + t));
        ops.add(new Op("{\"op\":\"delete\",\"timestamp\":" + (t + 1) + ",\"key\":{\"id\":1,\"c\":4}}",
                "DELETE FROM " + KS + ".%s USING TIMESTAMP " + (t + 1) + " WHERE id = 1 AND c = 4"));
        ops.add(new Op("{\"op\":\"update\",\"timestamp\":" + (t + 5) + ",\"key\":{\"id\":1},\"set\":{\"s\":\"st\"}}",
                "UPDATE " + KS + ".%s USING TIMESTAMP " + (t + 5) + " SET s = 'st' WHERE id = 1"));
        for (int c = 1; c <= 5; c++) {
            ops.add(new Op("{\"op\":\"insert\",\"timestamp\":" + t + ",\"values\":{\"id\":2,\"c\":" + c + ",\"v\":\"r" + c + "\"}}",
                    "INSERT INTO " + KS + ".%s (id, c, v) VALUES (2, " + c + ", 'r" + c + "') USING TIMESTAMP " + t));
        }
        ops.add(new Op("{\"op\":\"delete\",\"timestamp\":" + (t + 1) + ",\"key\":{\"id\":2},\"range\":{\"c\":{\">=\":2,\"<\":4}}}",
                "DELETE FROM " + KS + ".%s USING TIMESTAMP " + (t + 1) + " WHERE id = 2 AND c >= 2 AND c < 4"));
        ops.add(new Op("{\"op\":\"insert\",\"timestamp\":" + t + ",\"values\":{\"id\":3,\"c\":1,\"v\":\"old\"}}",
                "INSERT INTO " + KS + ".%s (id, c, v) VALUES (3, 1, 'old') USING TIMESTAMP " + t));
        ops.add(new Op("{\"op\":\"delete\",\"timestamp\":" + (t + 1) + ",\"key\":{\"id\":3}}",
                "DELETE FROM " + KS + ".%s USING TIMESTAMP " + (t + 1) + " WHERE id = 3"));
        ops.add(new Op("{\"op\":\"insert\",\"timestamp\":" + (t + 2) + ",\"values\":{\"id\":3,\"c\":9,\"v\":\"new\"}}",
                "INSERT INTO " + KS + ".%s (id, c, v) VALUES (3, 9, 'new') USING TIMESTAMP " + (t + 2)));
        return ops;
    }

    @Test
    void importsNbOutputAndRefusesOa() throws Exception {
        long t = 1_700_000_000_000_000L;
        long now = System.currentTimeMillis() / 1000;
        List<Op> ops = ops(t);
        List<String> lines = new ArrayList<>();
        for (Op op : ops) lines.add(op.json());
        Path opsFile = Files.write(tmp.resolve("ops.jsonl"), lines, StandardCharsets.UTF_8);

        String table = "events", twin = "events_cql";
        TableSchema schema = CqlParser.parse(String.format(CQL, table));
        Path schemaFile = Files.writeString(tmp.resolve("events.cql"), String.format(CQL, table));
        Path out = tmp.resolve("nb-out");
        String[] r = load(schemaFile, opsFile, out, now, "nb");
        assertEquals("0", r[0], r[1] + r[2]);
        Path tableDir = FlushJob.tableDir(out, schema);
        try (var files = Files.list(tableDir)) {
            for (Path f : files.toList()) assertTrue(f.getFileName().toString().startsWith("nb-"), f.toString());
        }
        session.execute(String.format(CQL, table));
        session.execute(String.format(CQL, twin));
        int logLine = node.logLines();
        List<String> failed = node.importSSTables(KS, table, List.of(tableDir));
        if (!failed.isEmpty()) fail("the node refused " + failed + "; it logged:\n" + node.errors(logLine));
        for (Op op : ops) session.execute(String.format(op.cql(), twin));

        List<String> imported = rows(table), expected = rows(twin);
        assertEquals(expected, imported);
        assertEquals(7, imported.size(), imported.toString());
        int ttl = session.execute("SELECT TTL(v) FROM " + KS + "." + table + " WHERE id = 1 AND c = 2").one().getInt(0);
        long elapsed = System.currentTimeMillis() / 1000 - now;
        assertTrue(ttl <= 3600 && ttl >= 3600 - elapsed - 1, "TTL(v) " + ttl + " after " + elapsed + " s");

        // The same operations as oa: refused by a node in this mode.
        String oaTable = "events_oa";
        TableSchema oaSchema = CqlParser.parse(String.format(CQL, oaTable));
        Path oaSchemaFile = Files.writeString(tmp.resolve("events_oa.cql"), String.format(CQL, oaTable));
        Path oaOut = tmp.resolve("oa-out");
        assertEquals("0", load(oaSchemaFile, opsFile, oaOut, now, "oa")[0]);
        session.execute(String.format(CQL, oaTable));
        int oaLogLine = node.logLines();
        List<String> refused = node.importSSTables(KS, oaTable, List.of(FlushJob.tableDir(oaOut, oaSchema)));
        String logged = node.tail(node.logLines() - oaLogLine);
        assertEquals(List.of(), rows(oaTable), "a CASSANDRA_4 node does not take oa; import said " + refused + ", logged:\n" + logged);
        // The import moves what it takes: the oa files are all still where they were.
        try (var files = Files.list(FlushJob.tableDir(oaOut, oaSchema))) {
            assertTrue(files.anyMatch(f -> f.getFileName().toString().equals("oa-1-big-Data.db")), "oa Data.db left in place");
        }
    }

    /** The node's own limit in this mode, and ours: a TTL expiring after 2038-01-19T03:14:06Z. */
    @Test
    void aTtlPast2038IsRejectedByTheNodeAndByAnNbLoad() throws Exception {
        String table = "ttl_limit";
        session.execute(String.format(CQL, table));
        long now = System.currentTimeMillis() / 1000;
        int ttl = (int) (Integer.MAX_VALUE - 1 - now + 3600); // an hour past the limit
        InvalidQueryException e = assertThrows(InvalidQueryException.class, () -> session.execute(
                "INSERT INTO " + KS + "." + table + " (id, c, v) VALUES (1, 1, 'x') USING TTL " + ttl));
        assertTrue(e.getMessage().contains("exceeds maximum supported expiration date of 2038-01-19T03:14:06+00:00"), e.getMessage());

        Path schemaFile = Files.writeString(tmp.resolve(table + ".cql"), String.format(CQL, table));
        Path opsFile = Files.write(tmp.resolve(table + ".jsonl"), List.of(
                "{\"op\":\"insert\",\"timestamp\":1,\"ttl\":" + ttl + ",\"values\":{\"id\":1,\"c\":1,\"v\":\"x\"}}"));
        String[] r = load(schemaFile, opsFile, tmp.resolve("ttl-out"), now, "nb");
        assertEquals("1", r[0], r[1] + r[2]);
        assertTrue(r[2].startsWith(opsFile + ":1: \"ttl\": " + ttl + " seconds from now"), r[2]);
        assertTrue(r[2].contains("2038-01-19T03:14:06Z for nb sstables"), r[2]);
    }

    private List<String> rows(String table) {
        List<String> rows = new ArrayList<>();
        for (com.datastax.oss.driver.api.core.cql.Row row : session.execute(
                "SELECT id, c, v, n, s, tags, WRITETIME(v), WRITETIME(s) FROM " + KS + "." + table)) {
            rows.add(row.getFormattedContents());
        }
        rows.sort(null);
        return rows;
    }

    private static String[] load(Path schemaFile, Path opsFile, Path out, long now, String version) {
        ByteArrayOutputStream stdout = new ByteArrayOutputStream(), stderr = new ByteArrayOutputStream();
        int status;
        try (PrintStream o = new PrintStream(stdout, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(stderr, true, StandardCharsets.UTF_8)) {
            status = Main.run(new String[] {"load", "--schema", schemaFile.toString(), "--input", opsFile.toString(),
                    "--out", out.toString(), "--now", Long.toString(now), "--sstable-version", version},
                    InputStream.nullInputStream(), o, e);
        }
        return new String[] {Integer.toString(status), stdout.toString(StandardCharsets.UTF_8), stderr.toString(StandardCharsets.UTF_8)};
    }
}

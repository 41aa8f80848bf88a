package dev.flushline.node;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.servererrors.InvalidQueryException;
import dev.flushline.Main;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.DataChunks;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.testing.Compressions;
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
 * through CQL. The same node does not take our oa output (it imports nothing of it), and rejects
 * through CQL the TTL that our nb load rejects as bad input. And our readers take what the node
 * itself writes, with every codec ({@link #readsTheNodesOwnFlushesAndCompactionsWithEveryCodec}).
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
        Path tableDir = schema.directoryUnder(out);
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
        List<String> refused = node.importSSTables(KS, oaTable, List.of(oaSchema.directoryUnder(oaOut)));
        String logged = node.tail(node.logLines() - oaLogLine);
        assertEquals(List.of(), rows(oaTable), "a CASSANDRA_4 node does not take oa; import said " + refused + ", logged:\n" + logged);
        // The import moves what it takes: the oa files are all still where they were.
        try (var files = Files.list(oaSchema.directoryUnder(oaOut))) {
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

    /**
     * What a CASSANDRA_4 node itself writes, with no compression and with each codec: two memtable
     * flushes (under the default flush_compression fast, so Zstd and Deflate tables are flushed as
     * LZ4 with 16 KiB chunks) and a major compaction of them (the table's codec, through
     * SSTableRewriter, so its files end with the empty chunk of its last sync). On each nb sstable
     * our verify passes and reports a flipped byte, our dump prints what sstabledump prints, and our
     * compaction of each set gives Cassandra's compaction's content and bytes.
     */
    @Test
    void readsTheNodesOwnFlushesAndCompactionsWithEveryCodec() throws Exception {
        String[][] codecs = {{"none", Compressions.NONE}, {"lz4", Compressions.LZ4}, {"zstd", Compressions.ZSTD},
                {"snappy", Compressions.SNAPPY}, {"deflate", Compressions.DEFLATE}, {"noop", Compressions.NOOP}};
        dev.flushline.oracle.CassandraOracle.init();
        List<String[]> dumpJobs = new ArrayList<>();
        List<Path> dumpSchemas = new ArrayList<>();
        int extraChunks = 0;
        for (String[] codec : codecs) {
            String table = "node_" + codec[0];
            String cql = Compressions.with(String.format(CQL, table), codec[1]);
            TableSchema schema = CqlParser.parse(cql);
            Path schemaFile = Files.writeString(tmp.resolve(table + ".cql"), cql);
            session.execute(cql);
            Path nodeDir = node.tableDirectory(KS, table);
            Path flushed = Files.createDirectories(tmp.resolve("node-flush").resolve(table));
            for (int round = 0; round < 2; round++) {
                writeRows(table, round);
                node.flush(KS, table);
            }
            copyNb(nodeDir, flushed, java.util.Set.of());
            java.util.Set<String> before = names(nodeDir);
            node.compact(KS, table);
            Path compacted = Files.createDirectories(tmp.resolve("node-compaction").resolve(table));
            copyNb(nodeDir, compacted, before);

            dev.flushline.schema.CompressionParams flushedWith =
                    dev.flushline.flush.FlushCompression.FAST.apply(schema.compressionParams());
            for (Path dir : List.of(flushed, compacted)) {
                String what = table + " " + dir.getParent().getFileName();
                List<SSTableFiles> sstables = SSTableFiles.inDirectory(dir);
                assertEquals(dir == flushed ? 2 : 1, sstables.size(), what + ": " + sstables);
                for (SSTableFiles f : sstables) {
                    assertEquals(dev.flushline.sstable.SSTableVersion.NB, f.version(), what);
                    try (DataChunks chunks = DataChunks.open(f, true)) {
                        assertEquals(dir == flushed ? flushedWith : schema.compressionParams(), chunks.compression(),
                                what + ": the node's flush follows flush_compression fast, its compaction the table");
                        if (dir == compacted) extraChunks += chunks.isCompressed() ? chunks.extraChunkCount() : crcExtra(f);
                    }
                    dumpJobs.add(new String[] {f.path(dev.flushline.sstable.Component.DATA).toString()});
                    dumpSchemas.add(schemaFile);
                }
                String[] ok = run("verify", "--schema", schemaFile.toString(), dir.toString());
                assertEquals("0", ok[0], what + ": " + ok[1] + ok[2]);
                Path copy = Files.createTempDirectory(tmp, "flip");
                copyNb(dir, copy, java.util.Set.of());
                Path data = SSTableFiles.inDirectory(copy).get(0).path(dev.flushline.sstable.Component.DATA);
                byte[] b = Files.readAllBytes(data);
                b[b.length / 3] ^= 0x04;
                Files.write(data, b);
                String[] bad = run("verify", "--schema", schemaFile.toString(), copy.toString());
                assertEquals("1", bad[0], what + ": a flipped byte passed: " + bad[1]);
                assertTrue(bad[1].startsWith("CORRUPT "), what + ": " + bad[1] + bad[2]);
                compactsAsCassandra(schemaFile, cql, dir, what);
            }
        }
        assertTrue(extraChunks > 0, "no compaction of the node left the empty last chunk its writer adds");
        List<dev.flushline.oracle.SSTableDumpOracle.Output> expected =
                dev.flushline.oracle.SSTableDumpOracle.runMany(tmp.resolve("node-dump"), dumpJobs);
        for (int i = 0; i < dumpJobs.size(); i++) {
            assertEquals(0, expected.get(i).status(), dumpJobs.get(i)[0] + ": " + expected.get(i).stderr());
            String[] ours = run("dump", "--schema", dumpSchemas.get(i).toString(), "--now",
                    Long.toString(dev.flushline.oracle.FixedClock.FIXED_MILLIS / 1000), dumpJobs.get(i)[0]);
            assertEquals("0", ours[0], ours[2]);
            assertEquals(expected.get(i).asFlushlinePrints(), ours[1], dumpJobs.get(i)[0]);
        }
    }

    /** Rows with TTLs, statics, sets, cell, row, range and partition deletions; text long enough for several chunks. */
    private void writeRows(String table, int round) throws Exception {
        java.util.Random r = new java.util.Random(31 + round);
        long t = 1_700_000_000_000_000L + round * 1_000_000L;
        var insert = session.prepare("INSERT INTO " + KS + "." + table + " (id, c, v, n, s, tags) VALUES (?, ?, ?, ?, ?, ?) "
                + "USING TIMESTAMP ? AND TTL ?");
        List<java.util.concurrent.CompletionStage<?>> pending = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            pending.add(session.executeAsync(insert.bind(r.nextInt(60), r.nextInt(40), "value " + i + " " + "x".repeat(r.nextInt(150)),
                    r.nextLong(), "static " + r.nextInt(5), java.util.Set.of("a" + r.nextInt(9), "b" + r.nextInt(9)), t + i,
                    r.nextInt(4) == 0 ? 86_400 : 0)));
            if (pending.size() == 64) await(pending);
        }
        await(pending);
        for (int i = 0; i < 20; i++) {
            int id = r.nextInt(60);
            switch (i % 4) {
                case 0 -> session.execute("DELETE v FROM " + KS + "." + table + " USING TIMESTAMP " + (t + 1000 + i)
                        + " WHERE id = " + id + " AND c = " + r.nextInt(40));
                case 1 -> session.execute("DELETE FROM " + KS + "." + table + " USING TIMESTAMP " + (t + 1000 + i)
                        + " WHERE id = " + id + " AND c = " + r.nextInt(40));
                case 2 -> session.execute("DELETE FROM " + KS + "." + table + " USING TIMESTAMP " + (t + 1000 + i)
                        + " WHERE id = " + id + " AND c >= " + r.nextInt(20) + " AND c < " + (20 + r.nextInt(20)));
                default -> session.execute("DELETE FROM " + KS + "." + table + " USING TIMESTAMP " + (t + 1000 + i)
                        + " WHERE id = " + id);
            }
        }
    }

    private static void await(List<java.util.concurrent.CompletionStage<?>> pending) throws Exception {
        for (var p : pending) p.toCompletableFuture().get(60, java.util.concurrent.TimeUnit.SECONDS);
        pending.clear();
    }

    private static java.util.Set<String> names(Path dir) throws java.io.IOException {
        try (var files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).collect(java.util.stream.Collectors.toSet());
        }
    }

    /** Copies the nb sstables of {@code from} whose file names are not in {@code except} (every component). */
    private static void copyNb(Path from, Path to, java.util.Set<String> except) throws java.io.IOException {
        try (var files = Files.list(from)) {
            for (Path f : files.toList()) {
                String n = f.getFileName().toString();
                if (n.startsWith("nb-") && !except.contains(n)) Files.copy(f, to.resolve(n));
            }
        }
    }

    /** CRC.db entries past the ones Data.db's chunks need. */
    private static int crcExtra(SSTableFiles f) throws java.io.IOException {
        long data = Files.size(f.path(dev.flushline.sstable.Component.DATA));
        java.nio.ByteBuffer crc = java.nio.ByteBuffer.wrap(Files.readAllBytes(f.path(dev.flushline.sstable.Component.CRC)));
        int chunk = crc.getInt();
        return (int) (crc.remaining() / 4 - Math.max(1, (data + chunk - 1) / chunk));
    }

    private void compactsAsCassandra(Path schemaFile, String cql, Path dir, String what) throws Exception {
        long now = System.currentTimeMillis() / 1000;
        Path ours = Files.createTempDirectory(tmp, "ours");
        String[] r = run("compact", "--schema", schemaFile.toString(), "--input", dir.toString(), "--out", ours.toString(),
                "--now", Long.toString(now));
        assertEquals("0", r[0], what + ": " + r[1] + r[2]);
        List<Path> inputs = new ArrayList<>();
        for (SSTableFiles f : SSTableFiles.inDirectory(dir)) inputs.add(f.path(dev.flushline.sstable.Component.DATA));
        Path refData = dev.flushline.oracle.CassandraCompactor.compact(inputs, cql, Files.createTempDirectory(tmp, "ref"), now, now - 864_000);
        Path ourData;
        try (var s = Files.walk(ours)) {
            ourData = s.filter(p -> p.getFileName().toString().endsWith("-Data.db")).findFirst().orElseThrow();
        }
        assertEquals(dev.flushline.oracle.CassandraReader.readAll(refData, cql), dev.flushline.oracle.CassandraReader.readAll(ourData, cql),
                what + ": compacted content");
        boolean compressed = CqlParser.parse(cql).compressionParams().isEnabled();
        for (String c : new String[] {"Data.db", "Index.db", "Summary.db", "Statistics.db", "Digest.crc32", "TOC.txt",
                compressed ? "CompressionInfo.db" : "CRC.db"}) {
            String ref = refData.getFileName().toString().replace("Data.db", c), our = ourData.getFileName().toString().replace("Data.db", c);
            org.junit.jupiter.api.Assertions.assertArrayEquals(Files.readAllBytes(refData.resolveSibling(ref)),
                    Files.readAllBytes(ourData.resolveSibling(our)), what + ": compacted " + c);
        }
    }

    private static String[] run(String... args) {
        ByteArrayOutputStream stdout = new ByteArrayOutputStream(), stderr = new ByteArrayOutputStream();
        int status;
        try (PrintStream o = new PrintStream(stdout, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(stderr, true, StandardCharsets.UTF_8)) {
            status = Main.run(args, InputStream.nullInputStream(), o, e);
        }
        return new String[] {Integer.toString(status), stdout.toString(StandardCharsets.UTF_8), stderr.toString(StandardCharsets.UTF_8)};
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

package dev.flushline.cli;

import dev.flushline.Main;

import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.Partition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The kill-and-replay cycle from the command line: a child JVM runs {@code flushline load
 * --commitlog DIR --sync batch}; it is SIGKILLed after it has reported some operations durable;
 * rerunning load with the same --commitlog and --out replays what was not flushed, and then
 * cassandra-all finds every operation that was reported durable.
 */
class LoadCommitLogCrashTest {
    static final String CQL = "CREATE TABLE crash.kv (k int PRIMARY KEY, v text)";

    @TempDir
    Path tmp;

    @Test
    void everyOperationReportedDurableSurvivesSigkill() throws Exception {
        CassandraOracle.init();
        Path schema = Files.writeString(tmp.resolve("t.cql"), CQL);
        Path ops = tmp.resolve("ops.jsonl");
        StringBuilder sb = new StringBuilder();
        int total = 600_000; // far more than the child gets through before the kill (group commit makes it fast)
        for (int i = 1; i <= total; i++) {
            sb.append("{\"op\":\"insert\",\"timestamp\":").append(1000 + i).append(",\"values\":{\"k\":").append(i)
                    .append(",\"v\":\"value-").append(i).append("\"}}\n");
        }
        Files.writeString(ops, sb);
        Path out = tmp.resolve("out"), commitlog = tmp.resolve("commitlog");
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
                "-cp", System.getProperty("java.class.path"), "dev.flushline.Main", "load",
                "--schema", schema.toString(), "--input", ops.toString(), "--out", out.toString(),
                "--commitlog", commitlog.toString(), "--sync", "batch", "--memtable-size-mb", "2",
                "--allocation", "unslabbed_heap", "--now", "1750000000");
        Process child = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        long durable = 0;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            boolean flushed = false;
            // Kill once something is durable and at least one flush has published (so both replay
            // and already-published data are in play).
            while ((line = r.readLine()) != null) {
                if (line.startsWith("durable: ")) durable = Long.parseLong(line.substring("durable: ".length()));
                if (line.startsWith("Completed flushing")) flushed = true;
                if (flushed && durable >= 5_000) break;
            }
            child.destroyForcibly();
            // Lines printed after the last one read cannot be trusted as acknowledged: use what we read.
        }
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        assertTrue(durable >= 5_000 && durable < total, "the child was killed mid-load after " + durable + " durable ops");

        ByteArrayOutputStream o = new ByteArrayOutputStream(), e = new ByteArrayOutputStream();
        Path empty = Files.writeString(tmp.resolve("empty.jsonl"), "");
        int status = Main.run(new String[] {"load", "--schema", schema.toString(), "--input", empty.toString(), "--out",
                out.toString(), "--commitlog", commitlog.toString(), "--now", "1750000000"},
                new ByteArrayInputStream(new byte[0]), new PrintStream(o, true), new PrintStream(e, true));
        String stdout = o.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, stdout + e.toString(StandardCharsets.UTF_8));
        assertTrue(stdout.contains("Replayed "), stdout);

        Path tableDir;
        try (Stream<Path> s = Files.list(out.resolve("crash"))) {
            tableDir = s.findFirst().orElseThrow();
        }
        Set<Integer> keys = new HashSet<>();
        List<Partition> read = CassandraReader.readAll(tableDir, CQL);
        for (Partition p : read) {
            int k = ByteBuffer.wrap(p.key().toArray()).getInt();
            assertEquals(1, p.rows().size(), "key " + k);
            keys.add(k);
        }
        List<Integer> missing = new ArrayList<>();
        for (int k = 1; k <= durable; k++) if (!keys.contains(k)) missing.add(k);
        assertEquals(List.of(), missing.size() > 20 ? missing.subList(0, 20) : missing, "durable operations lost");
        try (Stream<Path> s = Files.list(tableDir)) {
            assertTrue(s.noneMatch(p -> p.getFileName().toString().startsWith(".flushline-")), "no staging leftovers");
        }
    }
}

package dev.flushline.dist;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The distribution as a user gets it: flushline-&lt;version&gt;.tar.gz, built by {@code mvn package},
 * unpacked into an empty directory and run through {@code bin/flushline} with a Java runtime alone
 * (no Maven, no source tree, no class path from the build): --version, then a load, a verify and a
 * dump of the example files it ships. Runs after package (failsafe), where the archive exists.
 */
class ArchiveIT {
    @TempDir
    Path tmp;

    record Run(int status, String out, String err) {}

    /** Runs {@code cmd} in {@code dir} with a bare environment: only PATH (for tar and sh) and JAVA_HOME. */
    static Run run(Path dir, List<String> cmd) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
        Map<String, String> env = pb.environment();
        String path = env.getOrDefault("PATH", "/usr/bin:/bin");
        env.clear();
        env.put("PATH", path);
        env.put("JAVA_HOME", System.getProperty("java.home"));
        Path out = Files.createTempFile(dir, "out", ".txt"), err = Files.createTempFile(dir, "err", ".txt");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(cmd + " did not end within 120 s");
        }
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }

    @Test
    void theArchiveRunsOnAJavaRuntimeAlone() throws Exception {
        Path archive = Path.of(System.getProperty("flushline.archive"));
        String version = System.getProperty("flushline.version");
        assertTrue(Files.isRegularFile(archive), "mvn package builds " + archive);
        Run untar = run(tmp, List.of("tar", "xzf", archive.toString()));
        assertEquals(0, untar.status(), untar.err());
        Path home = tmp.resolve("flushline-" + version);
        for (String f : List.of("bin/flushline", "LICENSE", "README.md", "examples/table.cql", "examples/ops.jsonl",
                "examples/orders.csv")) {
            assertTrue(Files.isRegularFile(home.resolve(f)), f + " is in the archive");
        }
        assertTrue(Files.isExecutable(home.resolve("bin/flushline")));
        List<String> jars = new ArrayList<>();
        try (Stream<Path> s = Files.list(home.resolve("lib"))) {
            s.forEach(p -> jars.add(p.getFileName().toString()));
        }
        assertTrue(jars.contains("flushline-" + version + ".jar"), jars.toString());
        for (String j : jars) {
            assertTrue(!j.startsWith("cassandra-all") && !j.startsWith("junit") && !j.startsWith("java-driver"),
                    "only runtime dependencies are shipped: " + jars);
        }
        // The library logs through slf4j-api; the command line ships its one backend, slf4j-jdk14 (CliLogging).
        List<String> slf4j = new ArrayList<>();
        for (String j : jars) {
            if (j.startsWith("slf4j-") || j.startsWith("logback-") || j.startsWith("log4j-")) slf4j.add(j);
        }
        slf4j.sort(null);
        assertEquals(2, slf4j.size(), "slf4j-api and one backend: " + slf4j);
        assertTrue(slf4j.get(0).matches("slf4j-api-2\\.[0-9.]+\\.jar") && slf4j.get(1).matches("slf4j-jdk14-2\\.[0-9.]+\\.jar"), slf4j.toString());
        assertEquals(slf4j.get(0).substring("slf4j-api-".length()), slf4j.get(1).substring("slf4j-jdk14-".length()),
                "the backend at the API's release");

        String bin = home.resolve("bin/flushline").toString();
        Run v = run(tmp, List.of(bin, "--version"));
        assertEquals(0, v.status(), v.err());
        assertTrue(v.out().matches("flushline " + java.util.regex.Pattern.quote(version) + " \\(commit [0-9a-f]{7,}\\)\n"), v.out());

        Path work = Files.createDirectories(tmp.resolve("work"));
        Run load = run(work, List.of(bin, "load", "--schema", home.resolve("examples/table.cql").toString(), "--input",
                home.resolve("examples/ops.jsonl").toString(), "--out", "out", "--now", "1750000000"));
        assertEquals(0, load.status(), load.out() + load.err());
        assertTrue(load.out().contains("Loaded 7 operations"), load.out());
        // Today's lines, on today's streams: one flush line per sstable, then the summary, on stdout; nothing on
        // stderr (in particular no SLF4J notice: lib/ holds a backend, and the load's lines come from its hooks).
        String[] loadLines = load.out().split("\n");
        assertTrue(loadLines.length >= 2, load.out());
        for (int i = 0; i < loadLines.length - 1; i++) {
            assertTrue(loadLines[i].matches("Completed flushing (\\S+/)?out/shop/orders-[0-9a-f]{32}/oa-\\d+-big-Data\\.db \\([0-9.]+MiB\\) for commitlog "
                    + "position CommitLogPosition\\(segmentId=-1, position=0\\), time spent: \\d+ ms, bytes flushed: .*"), loadLines[i]);
        }
        assertTrue(loadLines[loadLines.length - 1].startsWith("Loaded 7 operations from "), load.out());
        assertEquals("", load.err());
        Path tableDir;
        try (Stream<Path> s = Files.list(work.resolve("out/shop"))) {
            tableDir = s.findFirst().orElseThrow();
        }
        Run verify = run(work, List.of(bin, "verify", "--schema", home.resolve("examples/table.cql").toString(), tableDir.toString()));
        assertEquals(0, verify.status(), verify.out() + verify.err());
        assertTrue(verify.out().startsWith("OK "), verify.out());
        Run dump = run(work, List.of(bin, "dump", "--schema", home.resolve("examples/table.cql").toString(), tableDir.toString()));
        assertEquals(0, dump.status(), dump.err());
        assertTrue(dump.out().contains("\"bookmark\"") && dump.out().contains("shipped"), dump.out());

        // The CSV reader's dependencies (jackson-dataformat-csv and what it needs) are shipped too.
        Run csv = run(work, List.of(bin, "load", "--format", "csv", "--schema", home.resolve("examples/table.cql").toString(), "--input",
                home.resolve("examples/orders.csv").toString(), "--out", "csv-out", "--now", "1750000000", "--timestamp", "1750000000000000"));
        assertEquals(0, csv.status(), csv.out() + csv.err());
        assertTrue(csv.out().contains("Loaded 4 operations"), csv.out());
        // a bad line goes through the tokenizer's error path, whose exceptions are jackson-databind's
        Path bad = Files.writeString(work.resolve("bad.csv"), "customer_id,order_time,order_id\n\"x\"y,2025-06-15,1\n");
        Run refused = run(work, List.of(bin, "load", "--format", "csv", "--schema", home.resolve("examples/table.cql").toString(), "--input",
                bad.toString(), "--out", "bad-out"));
        assertEquals(1, refused.status(), refused.out() + refused.err());
        assertTrue(refused.err().contains("bad.csv:2: malformed CSV at line 2"), refused.err());

        // What the library logs on its own, through the shipped lib/ and the command line's configuration
        // (LoggingProbe, from this build's test classes, in cli mode as Main configures it): the lines on stderr,
        // worded as the library's hooks word them (SLF4JClassPathTest compares the two).
        Path testClasses = Path.of(dev.flushline.table.LoggingProbe.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Run probe = run(work, List.of(java, "-cp", home.resolve("lib") + "/*:" + testClasses, dev.flushline.table.LoggingProbe.class.getName(),
                work.resolve("probe").toString(), "cli"));
        assertEquals(0, probe.status(), probe.out() + probe.err());
        assertEquals("", probe.out());
        String[] said = probe.err().split("\n");
        assertEquals(5, said.length, probe.err());
        assertTrue(said[0].startsWith("Removed leftovers of an interrupted flush: ["), probe.err());
        assertTrue(said[1].startsWith("WARN left alone: "), probe.err());
        assertEquals("Replayed 0 mutations from 0 segments", said[2]);
        assertTrue(said[3].startsWith("ERROR flush of ks.p failed (attempt 1 of 1): ") && said[4].startsWith("ERROR flusher of ks.p stopped"),
                probe.err());
    }
}

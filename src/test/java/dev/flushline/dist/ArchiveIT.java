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

        String bin = home.resolve("bin/flushline").toString();
        Run v = run(tmp, List.of(bin, "--version"));
        assertEquals(0, v.status(), v.err());
        assertTrue(v.out().matches("flushline " + java.util.regex.Pattern.quote(version) + " \\(commit [0-9a-f]{7,}\\)\n"), v.out());

        Path work = Files.createDirectories(tmp.resolve("work"));
        Run load = run(work, List.of(bin, "load", "--schema", home.resolve("examples/table.cql").toString(), "--input",
                home.resolve("examples/ops.jsonl").toString(), "--out", "out", "--now", "1750000000"));
        assertEquals(0, load.status(), load.out() + load.err());
        assertTrue(load.out().contains("Loaded 7 operations"), load.out());
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
    }
}

package dev.flushline.cli;

import dev.flushline.Main;

import dev.flushline.compaction.Compactor;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.Partition;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.SSTableVersion;
import dev.flushline.sstable.SteppedCommand;
import dev.flushline.sstable.TableDirectory;
import dev.flushline.oracle.CassandraCompactor;
import dev.flushline.oracle.CassandraReferenceWriter;
import dev.flushline.oracle.CassandraVerifier;
import dev.flushline.oracle.FixedClock;
import dev.flushline.testing.Compressions;
import dev.flushline.testing.RandomUpdates;
import org.apache.cassandra.config.Config;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * kill -9 of {@code flushline compact --in-place} at varying moments (a child JVM running the
 * command, killed after a seeded random delay): once the table directory is opened again (which
 * recovers the transaction), its live sstables are either exactly the three inputs or exactly one
 * new output, and compacting whatever is live gives the same partitions as compacting the inputs
 * did. Runs that finish before the kill must end with the one output.
 */
class CompactInPlaceCrashTest {
    static final long SEED = 20261201L;

    @TempDir
    Path tmp;

    /** Child: runs the command line it is given and exits with its status. */
    public static void main(String[] args) {
        int status = Main.run(args, new ByteArrayInputStream(new byte[0]), System.out, System.err);
        System.out.flush();
        System.exit(status);
    }

    @Test
    void aKilledInPlaceCompactionLeavesOneWholeSide() throws Exception {
        CassandraOracle.init();
        String cql = CompactCommandTest.CQL;
        TableSchema schema = CqlParser.parse(cql);
        Path schemaFile = tmp.resolve("t.cql");
        Files.writeString(schemaFile, cql);
        Path pristine = CompactCommandTest.writeInputs(tmp.resolve("pristine"), cql, 400);
        long now = CompactCommandTest.NOW + 60_000;
        List<Partition> expected = compactedContent(schema, cql, pristine, now, tmp.resolve("expected"));
        Set<String> inputNames = names(pristine);

        Random random = new Random(SEED);
        int whole = 0, untouched = 0;
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        for (int round = 0; round < 6; round++) {
            Path dir = tmp.resolve("round-" + round).resolve(pristine.getFileName());
            Files.createDirectories(dir);
            try (Stream<Path> files = Files.list(pristine)) {
                for (Path p : files.toList()) Files.copy(p, dir.resolve(p.getFileName()));
            }
            long delayMs = 200 + random.nextInt(1200);
            String at = "round " + round + " (kill after " + delayMs + " ms)";
            Process p = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"), CompactInPlaceCrashTest.class.getName(),
                    "compact", "--schema", schemaFile.toString(), "--input", dir.toString(), "--in-place",
                    "--now", String.valueOf(now), "--gc-grace", "3600")
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            boolean finished = p.waitFor(delayMs, TimeUnit.MILLISECONDS);
            if (!finished) {
                p.destroyForcibly(); // SIGKILL
                p.waitFor();
            } else {
                assertEquals(0, p.exitValue(), at + ": the command failed");
            }
            TableDirectory.open(dir); // recovery of an interrupted transaction, as any writer's open does
            Set<String> live = names(dir);
            if (live.equals(inputNames)) {
                untouched++;
                assertTrue(!finished, at + ": the command finished but the inputs are still there");
            } else {
                assertEquals(1, SSTableFiles.inDirectory(dir).size(), at + ": neither the inputs nor one output: " + live);
                for (String n : live) assertTrue(!inputNames.contains(n), at + ": an input survived beside the output: " + live);
                whole++;
            }
            try (Stream<Path> files = Files.list(dir)) {
                List<String> stray = files.map(x -> x.getFileName().toString()).filter(n -> !n.startsWith("oa-")).toList();
                assertEquals(List.of(), stray, at + ": transaction files left after recovery");
            }
            assertEquals(expected, compactedContent(schema, cql, dir, now, tmp.resolve("check-" + round)), at);
        }
        System.out.println("in-place kills: " + whole + " ended with the output, " + untouched + " with the inputs");
    }

    // ---- conversions in place, killed after every step of the transaction ----

    /** oa inputs converted in place to nb: a SIGKILL after each step of the transaction, one kill per child. */
    @Test
    void aConversionToNbKilledAfterEveryStepLeavesOneWholeSide() throws Exception {
        CassandraOracle.init();
        String cql = CompactCommandTest.CQL;
        Path schemaFile = Files.writeString(tmp.resolve("t.cql"), cql);
        Path pristine = CompactCommandTest.writeInputs(tmp.resolve("pristine"), cql, 300);
        long now = CompactCommandTest.NOW + 60_000;
        String[] flags = {"--now", String.valueOf(now), "--gc-grace", "3600"};
        Path byOut = compactToOut(schemaFile, pristine, tmp.resolve("by-out"), flags, "nb");
        Path converted = killAfterEveryStep("oa-to-nb", cql, schemaFile, pristine, SSTableVersion.NB, flags, "nb",
                CassandraReader.readAll(byOut, cql));
        // The conversion in place writes what compact --out writes, byte for byte (the generation aside).
        SSTableFiles out = SSTableFiles.of(converted), ref = SSTableFiles.of(byOut);
        for (Component c : new Component[] {Component.DATA, Component.INDEX, Component.SUMMARY, Component.STATISTICS, Component.FILTER,
                Component.DIGEST, Component.CRC, Component.TOC}) {
            assertTrue(java.util.Arrays.equals(Files.readAllBytes(ref.path(c)), Files.readAllBytes(out.path(c))), c.fileSuffix());
        }
    }

    /**
     * da inputs written by Cassandra, converted in place to oa: a SIGKILL after each step; the
     * result holds what Cassandra's own compaction of the inputs holds.
     */
    @Test
    void aConversionOfCassandrasDaToOaKilledAfterEveryStepLeavesOneWholeSide() throws Exception {
        CassandraOracle.init();
        FixedClock.installIfPossible();
        String cql = Compressions.with("CREATE TABLE ks.inplace_da (pk int, ck text, s text static, v int, w text, b blob, "
                + "PRIMARY KEY (pk, ck))", Compressions.LZ4);
        TableSchema schema = CqlParser.parse(cql);
        Path schemaFile = Files.writeString(tmp.resolve("da.cql"), cql);
        Path pristine = Files.createDirectories(schema.directoryUnder(tmp.resolve("pristine-da")));
        for (int i = 0; i < 2; i++) {
            // No partition or row deletions: with them the generator now and then shadows data within one sstable,
            // which Cassandra's compaction passes on and ours drops (BtiSSTablesTest.mixedDirectoryCompactsAsCassandra).
            RandomUpdates gen = new RandomUpdates(schema, 90 + i, CassandraWrittenSSTablesTest.NOW, 40, 10);
            gen.partitionDeleteChance = 0;
            gen.rowDeleteChance = 0;
            CassandraWrittenSSTablesTest.Model m = CassandraWrittenSSTablesTest.model(schema, cql, gen, 500, tmp.resolve("scratch-" + i));
            CassandraReferenceWriter.writeAsFlush(pristine, cql, m.partitions(), m.stats().minTimestamp(), m.stats().minLocalDeletionTime(),
                    m.stats().minTtl(), m.partitions().size(), "da", Config.FlushCompression.table);
        }
        List<SSTableFiles> inputs = SSTableFiles.inDirectory(pristine);
        assertEquals(2, inputs.size());
        List<Path> inputData = new ArrayList<>();
        for (SSTableFiles f : inputs) {
            assertEquals(SSTableVersion.DA, f.version());
            inputData.add(f.path(Component.DATA));
        }
        long now = CassandraWrittenSSTablesTest.NOW;
        Path reference = CassandraCompactor.compact(inputData, cql, tmp.resolve("cassandra-compaction"), now,
                now - CassandraWrittenSSTablesTest.GC_GRACE);
        String[] flags = {"--now", String.valueOf(now), "--gc-grace", String.valueOf(CassandraWrittenSSTablesTest.GC_GRACE)};
        killAfterEveryStep("da-to-oa", cql, schemaFile, pristine, SSTableVersion.OA, flags, null, CassandraReader.readAll(reference, cql));
    }

    /** oa inputs converted in place to da (the same kills as for nb). */
    @Test
    void aConversionToDaKilledAfterEveryStepLeavesOneWholeSide() throws Exception {
        CassandraOracle.init();
        String cql = CompactCommandTest.CQL;
        Path schemaFile = Files.writeString(tmp.resolve("t.cql"), cql);
        Path pristine = CompactCommandTest.writeInputs(tmp.resolve("pristine"), cql, 300);
        long now = CompactCommandTest.NOW + 60_000;
        String[] flags = {"--now", String.valueOf(now), "--gc-grace", "3600"};
        Path byOut = compactToOut(schemaFile, pristine, tmp.resolve("by-out"), flags, null);
        killAfterEveryStep("oa-to-da", cql, schemaFile, pristine, SSTableVersion.DA, flags, "da", CassandraReader.readAll(byOut, cql));
    }

    /** {@code compact --out} of {@code input} (in {@code version}, null: the default); its one Data.db. */
    private static Path compactToOut(Path schemaFile, Path input, Path out, String[] flags, String version) throws Exception {
        List<String> args = new ArrayList<>(List.of("--schema", schemaFile.toString(), "--input", input.toString(), "--out", out.toString()));
        args.addAll(List.of(flags));
        if (version != null) args.addAll(List.of("--sstable-version", version));
        CompactCommandTest.Run r = CompactCommandTest.compact(args.toArray(new String[0]));
        assertEquals(0, r.status(), r.out() + r.err());
        try (Stream<Path> s = Files.walk(out)) {
            List<Path> data = s.filter(p -> p.getFileName().toString().endsWith("-Data.db")).toList();
            assertEquals(1, data.size(), data.toString());
            return data.get(0);
        }
    }

    /**
     * Runs {@code compact --in-place} of a copy of {@code pristine} to the end in a stepped child
     * (the probe), then once per step of the probe's transaction in a fresh copy, killed (SIGKILL)
     * right after that step. The probe must end with one sstable of {@code version} that
     * cassandra-all reads as {@code expected} and its verifier passes; after each kill and the
     * directory's next open, the directory is byte for byte either the pristine inputs (before
     * COMMIT) or the probe's result (from COMMIT on), with no log, lock or staging file left.
     * Returns the probe's output Data.db.
     */
    private Path killAfterEveryStep(String what, String cql, Path schemaFile, Path pristine, SSTableVersion version, String[] flags,
                                    String versionFlag, List<Partition> expected) throws Exception {
        Map<String, String> inputs = CompactCommandTest.digests(pristine);
        Path probeDir = copyOf(pristine, tmp.resolve(what + "-probe"));
        Stepped probe = runStepped(what + "-probe", -1, inPlaceArgs(schemaFile, probeDir, flags, versionFlag));
        assertEquals(0, probe.status(), what + ": " + probe.stderr());
        List<SSTableFiles> result = SSTableFiles.inDirectory(probeDir);
        assertEquals(1, result.size(), what + ": " + result);
        assertEquals(version, result.get(0).version(), what);
        Path converted = result.get(0).path(Component.DATA);
        assertEquals(expected, CassandraReader.readAll(converted, cql), what + ": cassandra-all reads the conversion as the inputs' compaction");
        assertEquals(List.of(), CassandraVerifier.verify(probeDir, cql), what + ": cassandra-all's verifier");
        Map<String, String> outputs = CompactCommandTest.digests(probeDir);
        List<String> steps = probe.steps();
        for (String kind : new String[] {"add ", "publish ", "remove ", "outputs synced", "committed", "deleted ", "log deleted"}) {
            assertTrue(steps.stream().anyMatch(st -> st.startsWith(kind)), what + ": no '" + kind + "' step in " + steps);
        }
        assertTrue(steps.get(0).startsWith("add ") && steps.get(steps.size() - 1).equals("log deleted"), what + ": " + steps);
        int committedAt = steps.indexOf("committed");
        int kept = 0, rolledBack = 0;
        for (int k = 0; k < steps.size(); k++) {
            String at = what + ", killed after step " + k + " (" + steps.get(k) + ")";
            Path dir = copyOf(pristine, tmp.resolve(what + "-kill-" + k));
            Stepped s = runStepped(what + "-kill-" + k, k, inPlaceArgs(schemaFile, dir, flags, versionFlag));
            assertTrue(s.killed(), at + ": the child ended first: " + s.stderr());
            assertEquals(k + 1, s.steps().size(), at);
            TableDirectory.open(dir); // recovery, as any writer's open does
            Map<String, String> after = CompactCommandTest.digests(dir);
            if (k < committedAt) {
                assertEquals(inputs, after, at + ": the inputs, byte for byte, and nothing else");
                rolledBack++;
            } else {
                assertEquals(outputs, after, at + ": the conversion, byte for byte, and nothing else");
                kept++;
            }
        }
        System.out.println(what + ": " + steps.size() + " kills, " + rolledBack + " rolled back, " + kept + " completed");
        return converted;
    }

    private static String[] inPlaceArgs(Path schemaFile, Path dir, String[] flags, String versionFlag) {
        List<String> args = new ArrayList<>(List.of("compact", "--schema", schemaFile.toString(), "--input", dir.toString(), "--in-place"));
        args.addAll(List.of(flags));
        if (versionFlag != null) args.addAll(List.of("--sstable-version", versionFlag));
        return args.toArray(new String[0]);
    }

    private static Path copyOf(Path from, Path to) throws Exception {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.list(from)) {
            for (Path p : files.toList()) Files.copy(p, to.resolve(p.getFileName()), java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
        }
        return to;
    }

    /** A stepped child's run: the steps it announced, whether we killed it, its exit status (when not killed). */
    record Stepped(List<String> steps, boolean killed, int status, String stderr) {}

    /**
     * Runs {@code args} in a child JVM ({@link SteppedCommand}) that stops after each transaction
     * step until answered; kills it with SIGKILL right after step {@code killAfter} (0-based; -1:
     * never). A child that takes more than 5 minutes is killed and fails the test.
     */
    private Stepped runStepped(String name, int killAfter, String... args) throws Exception {
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(javaBin, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                SteppedCommand.class.getName()));
        cmd.addAll(List.of(args));
        Path err = tmp.resolve(name + ".err");
        Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
        java.util.Timer watchdog = new java.util.Timer(true);
        watchdog.schedule(new java.util.TimerTask() {
            @Override
            public void run() {
                p.destroyForcibly();
            }
        }, TimeUnit.MINUTES.toMillis(5));
        List<String> steps = new ArrayList<>();
        try (java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(), java.nio.charset.StandardCharsets.UTF_8));
             java.io.Writer go = new java.io.OutputStreamWriter(p.getOutputStream(), java.nio.charset.StandardCharsets.UTF_8)) {
            for (String line; (line = in.readLine()) != null; ) {
                if (line.startsWith("exit ")) {
                    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
                    return new Stepped(steps, false, Integer.parseInt(line.substring(5)), Files.readString(err));
                }
                assertTrue(line.startsWith("step "), line);
                steps.add(line.substring(5));
                if (steps.size() - 1 == killAfter) {
                    p.destroyForcibly(); // SIGKILL, while the child waits right after the step
                    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
                    return new Stepped(steps, true, -1, Files.readString(err));
                }
                go.write('\n');
                go.flush();
            }
            p.waitFor(60, TimeUnit.SECONDS);
            throw new AssertionError(name + ": the child ended without a status after " + steps + ": " + Files.readString(err));
        } catch (java.io.IOException e) {
            if (!p.isAlive() && killAfter >= 0 && steps.size() - 1 == killAfter) return new Stepped(steps, true, -1, Files.readString(err));
            throw e;
        } finally {
            watchdog.cancel();
            p.destroyForcibly();
        }
    }

    /** The partitions a (non in-place) compaction of the directory's live sstables holds. */
    private static List<Partition> compactedContent(TableSchema schema, String cql, Path dir, long now, Path out) throws Exception {
        Compactor.Options o = Compactor.Options.builder(now, now - 3600).build();
        Compactor.Result r = new Compactor(schema, SSTableFiles.inDirectory(dir), o).run(TableDirectory.open(out));
        List<Partition> all = new ArrayList<>();
        for (Path p : r.published) all.addAll(CassandraReader.readAll(p, cql));
        return all;
    }

    /** File names of the directory's complete sstables' components. */
    private static Set<String> names(Path dir) throws Exception {
        Set<String> out = new TreeSet<>();
        for (SSTableFiles f : SSTableFiles.inDirectory(dir)) {
            for (Component c : Component.values()) {
                if (f.has(c)) out.add(f.path(c).getFileName().toString());
            }
        }
        return out;
    }
}

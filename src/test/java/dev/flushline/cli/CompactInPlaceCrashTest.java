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
import dev.flushline.sstable.TableDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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

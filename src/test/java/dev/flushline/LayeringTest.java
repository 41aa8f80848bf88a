package dev.flushline;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The house rules of the main code, read from its source: every reference to another package of
 * ours (an import or a qualified name) points down the floors; the command line enters the engine
 * only through its doors; and Cassandra, a test-only dependency, is imported nowhere. (That the
 * format's index stays inside sstable is FormatSeamLayeringTest's.)
 */
class LayeringTest {
    private static final Path MAIN = Path.of("src/main/java/dev/flushline");

    /** The floors, bottom first: a package may use its own floor and those below. */
    private static final List<String> FLOORS = List.of(
            "schema", "io", "data", "ops", "memtable", "commitlog", "sstable", "flush", "compaction", "table", "writer",
            "cli", "bench", "");

    /**
     * What cli may use outside the value layers (schema, data, ops) and table: compaction's task
     * with its options, result and log line; the reading side of sstable (finding, reading,
     * verifying and describing sstables, placing published ones on a ring); and the wording of I/O errors.
     */
    private static final Set<String> CLI_MAY_USE = Set.of(
            "compaction.CompactionTask", "compaction.Compactor", "compaction.CompactionLog", "compaction.CompactionConservationException",
            "sstable.SSTableFiles", "sstable.SSTableCursor", "sstable.SSTableVerifier", "sstable.StatisticsReader",
            "sstable.SerializationHeader", "sstable.DataChunks", "sstable.PartitionOrder", "sstable.PartitionIndex",
            "sstable.EncodingStats", "sstable.Component", "sstable.SSTableVersion", "sstable.CorruptSSTableException",
            "sstable.IncompatibleSSTableException", "sstable.Leftovers", "sstable.ReplicaPlacement",
            "io.IoErrors");

    private static final Pattern REFERENCE = Pattern.compile("\\bdev\\.flushline\\.([a-z0-9]+)\\.(?:([a-z0-9]+)\\.)?([A-Z]\\w*)");

    @Test
    void everyReferencePointsDownAndTheCommandLineUsesOnlyTheDoors() throws IOException {
        assertTrue(Files.isDirectory(MAIN), "run from the project root: " + MAIN.toAbsolutePath());
        List<String> up = new ArrayList<>(), cli = new ArrayList<>();
        int checked = 0;
        for (Path f : javaFiles()) {
            String from = packageOf(f);
            int fromFloor = floor(from);
            List<String> lines = Files.readAllLines(f);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = REFERENCE.matcher(lines.get(i));
                while (m.find()) {
                    String to = m.group(1);
                    if (!FLOORS.contains(to)) continue; // a class of the root package (Main) or a name in a string
                    checked++;
                    String where = MAIN.relativize(f) + ":" + (i + 1) + ": " + m.group();
                    if (floor(to) > fromFloor) up.add(where);
                    if (from.equals("cli") && !Set.of("cli", "table", "schema", "data", "ops").contains(to)
                            && !CLI_MAY_USE.contains(to + "." + m.group(3))) {
                        cli.add(where);
                    }
                }
            }
        }
        assertTrue(checked > 500, "the scan saw the code's references: " + checked);
        assertEquals(List.of(), up, "references that point up the floors");
        assertEquals(List.of(), cli, "cli reaching past the doors");
    }

    @Test
    void nothingImportsCassandra() throws IOException {
        List<String> bad = new ArrayList<>();
        for (Path f : javaFiles()) {
            if (Files.readString(f).contains("import org.apache.cassandra")) bad.add(MAIN.relativize(f).toString());
        }
        assertEquals(List.of(), bad);
    }

    private static List<Path> javaFiles() throws IOException {
        try (Stream<Path> s = Files.walk(MAIN)) {
            List<Path> out = new ArrayList<>();
            for (Path p : (Iterable<Path>) s::iterator) {
                if (p.toString().endsWith(".java")) out.add(p);
            }
            return out;
        }
    }

    /** The top package under dev.flushline ("" for the root), sub-packages counted with their parent. */
    private static String packageOf(Path f) {
        Path rel = MAIN.relativize(f);
        return rel.getNameCount() == 1 ? "" : rel.getName(0).toString();
    }

    private static int floor(String pkg) {
        int i = FLOORS.indexOf(pkg);
        if (i < 0) throw new AssertionError("package " + pkg + " has no floor in LayeringTest.FLOORS");
        return i;
    }
}

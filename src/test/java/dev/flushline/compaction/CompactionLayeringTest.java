package dev.flushline.compaction;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The compaction package sits below the node: it must not import the stages above or beside it
 * (cli, table, flush, memtable), nor Cassandra, which is on the test class path only.
 */
class CompactionLayeringTest {
    @Test
    void importsNothingAboveOrBeside() throws IOException {
        Path dir = Path.of("src/main/java/dev/flushline/compaction");
        assertTrue(Files.isDirectory(dir), "run from the project root: " + dir.toAbsolutePath());
        List<String> bad = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                List<String> lines = Files.readAllLines(f);
                for (int i = 0; i < lines.size(); i++) {
                    String line = lines.get(i).trim();
                    if (!line.startsWith("import ")) continue;
                    for (String forbidden : new String[] {"dev.flushline.cli", "dev.flushline.table", "dev.flushline.flush",
                            "dev.flushline.memtable", "org.apache.cassandra"}) {
                        if (line.contains(forbidden)) bad.add(f.getFileName() + ":" + (i + 1) + ": " + line);
                    }
                }
            }
        }
        assertEquals(List.of(), bad);
    }
}

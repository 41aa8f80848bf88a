package example;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WriteOrdersTest {
    @TempDir
    Path tmp;

    @Test
    void writesOneCompleteSSTable() throws Exception {
        WriteOrders.main(new String[] {tmp.toString()});
        List<String> names;
        try (Stream<Path> s = Files.list(tmp)) {
            names = s.map(p -> p.getFileName().toString()).sorted().toList();
        }
        assertTrue(names.contains("oa-1-big-Data.db") && names.contains("oa-1-big-TOC.txt"), names.toString());
        assertEquals(List.of(), names.stream().filter(n -> !n.startsWith("oa-1-big-")).toList(), "nothing else is left");
    }
}

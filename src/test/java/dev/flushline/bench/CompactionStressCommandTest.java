package dev.flushline.bench;

import dev.flushline.Main;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * compaction-stress: the same seed writes the same bytes; compact runs to rest, prints one line
 * per compaction and a result row whose numbers agree with the lines and with the directory;
 * bad options are usage errors naming the option.
 */
class CompactionStressCommandTest {
    @TempDir
    Path tmp;

    private record Run(int status, String out, String err) {}

    private static Run run(String... argv) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int status = Main.run(argv, new ByteArrayInputStream(new byte[0]), new PrintStream(out, true), new PrintStream(err, true));
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static List<Path> dataFiles(Path dir) throws Exception {
        try (Stream<Path> s = Files.walk(dir)) {
            List<Path> out = new ArrayList<>(s.filter(p -> p.getFileName().toString().endsWith("-Data.db")).sorted().toList());
            return out;
        }
    }

    @Test
    void sameSeedSameDataThenCompactToRest() throws Exception {
        Path a = tmp.resolve("a"), b = tmp.resolve("b");
        Run wa = run("compaction-stress", "write", "--dir", a.toString(), "--size-gb", "0.004", "--flush-mb", "1", "--seed", "9");
        Run wb = run("compaction-stress", "write", "--dir", b.toString(), "--size-gb", "0.004", "--flush-mb", "1", "--seed", "9");
        assertEquals(0, wa.status, wa.err);
        assertEquals(0, wb.status, wb.err);
        List<Path> da = dataFiles(a), db = dataFiles(b);
        assertTrue(da.size() >= 4, "several flushes: " + da);
        assertEquals(da.size(), db.size());
        long total = 0;
        for (int i = 0; i < da.size(); i++) {
            assertArrayEquals(Files.readAllBytes(da.get(i)), Files.readAllBytes(db.get(i)), "same seed, same " + da.get(i).getFileName());
            total += Files.size(da.get(i));
        }
        assertTrue(total >= 0.004 * 1024 * 1024 * 1024, "at least the size asked for: " + total);

        Run again = run("compaction-stress", "write", "--dir", a.toString(), "--size-gb", "0.001");
        assertEquals(1, again.status, "writing into a filled directory is refused");
        assertTrue(again.err.contains("already holds sstables"), again.err);

        Run c = run("compaction-stress", "compact", "--dir", a.toString(), "--strategy", "stcs", "--min-sstable-size-mb", "0.5",
                "--compaction-threads", "2");
        assertEquals(0, c.status, c.err);
        long lines = c.out.lines().filter(l -> l.startsWith("Compacted (") && l.contains(" Picked: ")).count();
        assertTrue(lines >= 1, c.out);
        Matcher row = Pattern.compile("\\| SizeTieredCompactionStrategy \\| .* \\| ([0-9.]+) MiB \\| ([0-9.]+) MiB \\| ([0-9.]+) MiB \\| ([0-9.]+) \\| "
                + "[0-9.]+ s \\| ([0-9,]+) \\| ([0-9]+) ").matcher(c.out);
        assertTrue(row.find(), c.out);
        assertEquals(lines, Long.parseLong(row.group(5).replace(",", "")), "compactions in the row = lines printed");
        long after = 0;
        List<Path> left = dataFiles(a);
        for (Path p : left) after += Files.size(p);
        assertEquals(left.size(), Integer.parseInt(row.group(6)), "sstables after = files left");
        assertEquals(after / 1048576.0, Double.parseDouble(row.group(2)), 0.05, "size after = Data.db left");
        assertEquals(total / 1048576.0, Double.parseDouble(row.group(1)), 0.05, "size before = Data.db written");
        assertTrue(after < total, "revisits were merged away");
    }

    @Test
    void badOptionsAreUsageErrors() {
        Run r = run("compaction-stress", "compact", "--dir", tmp.toString(), "--strategy", "twcs");
        assertEquals(1, r.status);
        assertTrue(r.err.contains("--strategy twcs"), r.err);
        r = run("compaction-stress", "compact", "--dir", tmp.toString(), "--strategy", "stcs", "--vnodes", "4");
        assertEquals(1, r.status);
        assertTrue(r.err.contains("need --range-aware"), r.err);
        r = run("compaction-stress", "compact", "--dir", tmp.toString(), "--strategy", "stcs", "--range-aware");
        assertEquals(1, r.status);
        assertTrue(r.err.contains("--vnodes N or --ranges N"), r.err);
        r = run("compaction-stress", "write", "--dir", tmp.toString(), "--size-gb", "x");
        assertEquals(1, r.status);
        assertTrue(r.err.contains("--size-gb x is not a number"), r.err);
        r = run("compaction-stress", "write", "--dir", tmp.toString(), "--size-gb", "1", "--overwrite-ratio", "1.5");
        assertEquals(1, r.status);
        assertTrue(r.err.contains("--overwrite-ratio 1.5 is out of range"), r.err);
        r = run("compaction-stress", "shuffle");
        assertEquals(1, r.status);
        assertTrue(r.err.contains("unknown mode 'shuffle'"), r.err);
    }
}

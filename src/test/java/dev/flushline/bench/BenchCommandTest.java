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
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code flushline bench}: a tiny run prints the flush log line and JSON objects the README documents. */
class BenchCommandTest {
    /** The flush log line (FlushLog, README "Command line"), with numbers as patterns. */
    static final Pattern LOG_LINE = Pattern.compile("^Completed flushing (\\S+/stress/stress_table-[0-9a-f]{32}/oa-\\d+-big-Data\\.db) "
            + "\\(\\d+\\.\\d{3}MiB\\) for commitlog position CommitLogPosition\\(segmentId=-1, position=0\\), "
            + "time spent: \\d+ ms, bytes flushed: (\\d+)/\\(\\d+ per sec\\), partitions flushed: (\\d+)/\\(\\d+ per sec\\), "
            + "rows: (\\d+)/\\(\\d+ per sec\\), cpu time: \\d+ ms, allocated: \\d+\\.\\d{3}MiB$");
    static final List<String> KEYS = List.of("sstable", "bytes", "partitions", "rows", "cells", "wall_ms", "cpu_ms",
            "allocated_bytes", "memtable", "allocation", "compression", "system");

    @TempDir
    Path tmp;

    record Result(int status, String out, String err) {}

    static Result main(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int status = Main.run(args, new ByteArrayInputStream(new byte[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void tinyRunPrintsLogLinesAndJsonAndDeletesItsTempDir() {
        Result r = main("bench", "--partitions", "200", "--json", "--warmup-partitions", "50");
        assertEquals(0, r.status, r.err);
        List<String> lines = r.out.lines().toList();
        assertTrue(lines.get(0).startsWith("Warm-up: 9 flushes of 500 rows"), lines.get(0));
        assertTrue(lines.get(1).startsWith("Filled skiplist memtable (heap_buffers) with 2000 rows (200 partitions, 10000 cells)"), lines.get(1));
        Matcher m = LOG_LINE.matcher(lines.get(2));
        assertTrue(m.matches(), lines.get(2));
        assertEquals("200", m.group(3));
        assertEquals("2000", m.group(4));
        String json = lines.get(3);
        assertTrue(json.startsWith("{") && json.endsWith("}"), json);
        for (String k : KEYS) assertTrue(json.contains("\"" + k + "\":"), k + " in " + json);
        assertTrue(json.contains("\"sstable\":\"" + m.group(1) + "\""), json);
        assertTrue(json.contains("\"bytes\":" + m.group(2) + ","), json);
        assertTrue(json.contains("\"partitions\":200,\"rows\":2000,\"cells\":10000,"), json);
        assertTrue(json.contains("\"memtable\":\"skiplist\",\"allocation\":\"heap_buffers\",\"compression\":\"lz4\",\"system\":\"flushline\""), json);
        assertTrue(Pattern.compile("\"wall_ms\":\\d+\\.\\d{3},\"cpu_ms\":\\d+\\.\\d{3},\"allocated_bytes\":\\d+,").matcher(json).find(), json);
        // the scan of the flushed sstable read back exactly what was flushed
        assertTrue(lines.get(4).startsWith("Scanned " + m.group(1) + ": 200 partitions, 2000 rows, 10000 cells in "), lines.get(4));
        assertTrue(Pattern.compile("cpu time: \\d+ ms \\(\\d+ ns/row\\), allocated: \\d+\\.\\d+MiB \\(checksum [0-9a-f]+\\)$")
                .matcher(lines.get(4)).find(), lines.get(4));
        assertEquals(5, lines.size());
        assertFalse(Files.exists(Path.of(m.group(1))), "the default out dir is a temp dir, deleted afterwards");
    }

    @Test
    void outKeepsTheSstablesAndOptionsReachTheFlush() throws Exception {
        Path out = tmp.resolve("bench");
        Result r = main("bench", "--partitions", "100", "--rows-per-partition", "3", "--value-columns", "2", "--value-bytes", "4",
                "--memtable", "sharded", "--allocation", "offheap_objects", "--compression", "none", "--ranges", "2",
                "--flush-threads", "2", "--json", "--out", out.toString(), "--warmup-partitions", "10");
        assertEquals(0, r.status, r.err);
        List<String> logs = r.out.lines().filter(s -> s.startsWith("Completed flushing ")).toList();
        assertEquals(2, logs.size(), "--ranges 2: one sstable per range");
        long rows = 0;
        for (String line : logs) {
            Matcher m = LOG_LINE.matcher(line);
            assertTrue(m.matches(), line);
            assertTrue(Files.exists(Path.of(m.group(1))));
            rows += Long.parseLong(m.group(4));
        }
        assertEquals(300, rows);
        List<String> json = r.out.lines().filter(s -> s.startsWith("{")).toList();
        assertEquals(2, json.size());
        assertTrue(json.get(0).contains("\"memtable\":\"sharded\",\"allocation\":\"offheap_objects\",\"compression\":\"none\""), json.get(0));
    }

    @Test
    void againstNeedsTheComparisonModule() {
        // The comparison (dev.flushline.compare.AgainstMain) lives in jmh/, which scripts/flushline adds to the
        // class path; without it, --against says so instead of failing obscurely.
        Result r = main("bench", "--against", "cassandra");
        assertEquals(2, r.status);
        assertTrue(r.err.contains("--against needs the comparison module"), r.err);
        assertEquals(0, main("bench", "--help").status);
        assertEquals(1, main("bench", "--partitions", "zero").status);
    }
}

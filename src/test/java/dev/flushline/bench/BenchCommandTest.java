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
    /** The same line for any sstable version and format (group 1 the Data.db path, 2 the version). */
    static final Pattern ANY_VERSION_LOG_LINE = Pattern.compile("^Completed flushing (\\S+/stress/stress_table-[0-9a-f]{32}/([a-z]{2})-\\d+-[a-z]+-Data\\.db) "
            + "\\(\\d+\\.\\d{3}MiB\\) for commitlog position .*, rows: (\\d+)/\\(\\d+ per sec\\), cpu time: \\d+ ms, allocated: \\d+\\.\\d{3}MiB$");
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
        assertTrue(lines.get(1).startsWith("Filled hash memtable (heap_buffers) with 2000 rows (200 partitions, 10000 cells)"), lines.get(1));
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
        assertTrue(json.contains("\"memtable\":\"hash\",\"allocation\":\"heap_buffers\",\"compression\":\"lz4\",\"system\":\"flushline\""), json);
        assertTrue(Pattern.compile("\"wall_ms\":\\d+\\.\\d{3},\"cpu_ms\":\\d+\\.\\d{3},\"allocated_bytes\":\\d+,").matcher(json).find(), json);
        // without --sstable-version the object is what it was before the option existed (the docs' example parses it)
        assertTrue(json.endsWith(",\"system\":\"flushline\"}"), json);
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

    @Test
    void roundsAreForTheComparisonOnly() {
        // --rounds repeats the peers' comparison; our own versions side by side have --version-rounds.
        Result r = main("bench", "--partitions", "10", "--warmup-partitions", "0", "--rounds", "3");
        assertEquals(1, r.status, r.err);
        assertTrue(r.err.contains("--rounds repeats the comparison with --against; for our own versions side by side, --version-rounds"), r.err);
        assertEquals("", r.out, "nothing is filled before the options are checked");
        // With --against it passes the option check and reaches the comparison module (absent from this class path).
        r = main("bench", "--against", "cassandra", "--rounds", "3");
        assertEquals(2, r.status);
        assertTrue(r.err.contains("--against needs the comparison module"), r.err);
    }

    @Test
    void sstableVersionsAreParsedAndABadOneIsNamed() {
        Result r = main("bench", "--partitions", "10", "--warmup-partitions", "0", "--sstable-version", "oa,zz");
        assertEquals(1, r.status, r.err);
        assertTrue(r.err.contains("--sstable-version oa,zz: 'zz' is not an sstable version (versions: oa,nb,da)"), r.err);
        assertEquals("", r.out, "nothing is filled before the options are checked");

        r = main("bench", "--partitions", "10", "--warmup-partitions", "0", "--sstable-version", "oa,");
        assertEquals(1, r.status, r.err);
        assertTrue(r.err.contains("'' is not an sstable version"), r.err);

        r = main("bench", "--partitions", "10", "--warmup-partitions", "0", "--sstable-version", "nb,oa,nb");
        assertEquals(1, r.status, r.err);
        assertTrue(r.err.contains("--sstable-version nb,oa,nb: nb is named twice"), r.err);

        r = main("bench", "--partitions", "10", "--warmup-partitions", "0", "--sstable-version", "OA");
        assertEquals(1, r.status, "versions are lower case, as in file names: " + r.err);
        assertTrue(r.err.contains("'OA' is not an sstable version"), r.err);
    }

    /** oa and nb: both written today, so the per-version run and its ratio line are checked whatever the BTI writer's state. */
    @Test
    void eachVersionFlushesTheSameRowsAndTheRunEndsWithTheRatio() throws Exception {
        Path out = tmp.resolve("versions");
        Result r = main("bench", "--partitions", "120", "--rows-per-partition", "4", "--json", "--warmup-partitions", "20",
                "--sstable-version", "oa,nb", "--out", out.toString());
        assertEquals(0, r.status, r.err);
        checkVersionsRun(r, List.of("oa", "nb"), 120, 4);
        List<String> lines = r.out.lines().toList();
        assertTrue(lines.get(0).startsWith("Warm-up: 18 flushes of 80 rows (unslabbed_heap, heap_buffers, offheap_objects; "
                + "sstable versions oa, nb) in "), lines.get(0));
        String last = lines.get(lines.size() - 1);
        assertTrue(Pattern.compile("^Flush cpu, nb / oa: (x\\d+\\.\\d{2}|n/a) \\(nb \\d+ ms, oa \\d+ ms\\)$").matcher(last).matches(),
                "no goal for nb: " + last);

        // one version given: that version alone, and no ratio line (nothing to divide by)
        r = main("bench", "--partitions", "30", "--warmup-partitions", "0", "--sstable-version", "nb", "--json");
        assertEquals(0, r.status, r.err);
        checkVersionsRun(r, List.of("nb"), 30, 10);
        assertFalse(r.out.contains("Flush cpu,"), r.out);
    }

    /**
     * Rounds of the versions side by side: each round flushes every version once, every other round in the
     * reverse order, prints its own ratio line, and the run ends with the medians' line.
     */
    @Test
    void versionRoundsAlternateTheOrderAndEndWithTheMedians() {
        Result r = main("bench", "--partitions", "60", "--rows-per-partition", "3", "--warmup-partitions", "0",
                "--sstable-version", "oa,nb", "--version-rounds", "3");
        assertEquals(0, r.status, r.err);
        List<String> order = new java.util.ArrayList<>();
        Matcher m = Pattern.compile("^Completed flushing \\S*/(oa|nb)-\\d+-big-Data\\.db ", Pattern.MULTILINE).matcher(r.out);
        while (m.find()) order.add(m.group(1));
        assertEquals(List.of("oa", "nb", "nb", "oa", "oa", "nb"), order, r.out);
        List<String> lines = r.out.lines().toList();
        assertEquals(3, lines.stream().filter(l -> l.startsWith("Flush cpu, nb / oa: ")).count(), r.out);
        String last = lines.get(lines.size() - 1);
        assertTrue(Pattern.compile("^Flush cpu over 3 rounds, nb / oa: ratio of the medians (x\\d+\\.\\d{2}|n/a) \\(nb \\d+ ms, oa \\d+ ms\\), "
                + "median of the rounds' ratios (x\\d+\\.\\d{2}|n/a) \\((x\\d+\\.\\d{2}|n/a) to (x\\d+\\.\\d{2}|n/a)\\)$").matcher(last).matches(), last);

        r = main("bench", "--partitions", "10", "--warmup-partitions", "0", "--sstable-version", "da", "--version-rounds", "2");
        assertEquals(1, r.status, r.out);
        assertTrue(r.err.contains("--version-rounds 2 needs two sstable versions or more"), r.err);
        r = main("bench", "--partitions", "10", "--against", "rocksdb", "--sstable-version", "oa,da", "--version-rounds", "2");
        assertEquals(1, r.status, r.out);
        assertTrue(r.err.contains("--version-rounds is for our own versions side by side, not with --against"), r.err);
    }

    /** The rounds' line: the medians' ratio and the median of the ratios are different numbers, both given. */
    @Test
    void versionRoundsLineGivesBothMedians() {
        long ms = 1_000_000;
        // ratios 0.5, 3.0, 2.0: median 2.0; medians 200 and 100 ms: x2.00
        assertEquals("Flush cpu over 3 rounds, da / oa: ratio of the medians x2.00 (da 200 ms, oa 100 ms), median of the rounds' "
                        + "ratios x2.00 (x0.50 to x3.00); goal: at most x1.10",
                BenchCommand.versionRoundsLine(dev.flushline.sstable.SSTableVersion.DA, new long[] {100 * ms, 300 * ms, 200 * ms},
                        new long[] {200 * ms, 100 * ms, 100 * ms}));
        // ratios 1.2, 0.9, 1.0, 1.5: median 1.1; medians 125 and 100 ms: x1.25
        assertEquals("Flush cpu over 4 rounds, nb / oa: ratio of the medians x1.25 (nb 125 ms, oa 100 ms), median of the rounds' "
                        + "ratios x1.10 (x0.90 to x1.50)",
                BenchCommand.versionRoundsLine(dev.flushline.sstable.SSTableVersion.NB, new long[] {120 * ms, 90 * ms, 130 * ms, 150 * ms},
                        new long[] {100 * ms, 100 * ms, 130 * ms, 100 * ms}));
    }

    /**
     * da beside oa, as the BTI flush goal is measured: runs once Flushline writes da. Until then the probe (a
     * one-partition bench in da) must be refused by name, with the usage status, and the test stops there.
     */
    @Test
    void daFlushesBesideOa() throws Exception {
        Path out = tmp.resolve("da");
        Result r = main("bench", "--partitions", "150", "--rows-per-partition", "3", "--json", "--warmup-partitions", "20",
                "--sstable-version", "oa,da", "--out", out.toString());
        assertEquals(0, r.status, r.err);
        List<Path> data = checkVersionsRun(r, List.of("oa", "da"), 150, 3);
        Path da = data.get(1);
        assertTrue(da.getFileName().toString().startsWith("da-") && da.getFileName().toString().endsWith("-bti-Data.db"), da.toString());
        assertTrue(Files.exists(da.resolveSibling(da.getFileName().toString().replace("Data.db", "Partitions.db"))), "Partitions.db beside " + da);
        // Data.db holds the same rows in both formats: the same bytes
        assertEquals(-1, Files.mismatch(data.get(0), da), "oa's and da's Data.db");
        List<String> lines = r.out.lines().toList();
        String last = lines.get(lines.size() - 1);
        assertTrue(Pattern.compile("^Flush cpu, da / oa: (x\\d+\\.\\d{2}|n/a) \\(da \\d+ ms, oa \\d+ ms\\); goal: at most x1\\.10$")
                .matcher(last).matches(), last);
    }

    /**
     * Checks a {@code --json --sstable-version} run: per version in order a fill line, one log line of that
     * version, its JSON object naming the version, and a scan of all its rows. Returns the Data.db paths.
     */
    private static List<Path> checkVersionsRun(Result r, List<String> versions, int partitions, int rowsPerPartition) {
        List<String> lines = r.out.lines().toList();
        int at = lines.get(0).startsWith("Warm-up: ") ? 1 : 0;
        List<Path> data = new java.util.ArrayList<>();
        long rows = (long) partitions * rowsPerPartition;
        for (String v : versions) {
            assertTrue(lines.get(at).startsWith("Filled hash memtable (heap_buffers) with " + rows + " rows (" + partitions + " partitions"),
                    lines.get(at));
            Matcher m = ANY_VERSION_LOG_LINE.matcher(lines.get(at + 1));
            assertTrue(m.matches(), lines.get(at + 1));
            assertEquals(v, m.group(2), lines.get(at + 1));
            assertEquals(Long.toString(rows), m.group(3));
            String json = lines.get(at + 2);
            for (String k : KEYS) assertTrue(json.contains("\"" + k + "\":"), k + " in " + json);
            assertTrue(json.contains("\"sstable\":\"" + m.group(1) + "\""), json);
            assertTrue(json.endsWith(",\"system\":\"flushline\",\"sstable_version\":\"" + v + "\"}"), json);
            assertTrue(lines.get(at + 3).startsWith("Scanned " + m.group(1) + ": " + partitions + " partitions, " + rows + " rows, "),
                    lines.get(at + 3));
            data.add(Path.of(m.group(1)));
            at += 4;
        }
        assertEquals(versions.contains("oa") ? versions.size() - 1 : 0, lines.size() - at, "ratio lines: " + lines.subList(at, lines.size()));
        return data;
    }
}

package dev.flushline.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flushline.Main;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.SSTableFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --json} on load, compact and verify: stdout is exactly one JSON object (whatever the exit
 * status, a usage error included), holding what the command did, what it refused, and its exit
 * status; the human lines go to stderr instead.
 */
class JsonSummaryTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final String CQL = "CREATE TABLE ks.js (pk int, ck int, v text, PRIMARY KEY (pk, ck)) WITH compression = {'enabled': 'false'}";

    @TempDir
    Path tmp;

    record Run(int status, String out, String err) {}

    static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int status = Main.run(args, new ByteArrayInputStream(new byte[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** stdout parses as exactly one JSON object on one line, whose status is the exit status. */
    static JsonNode summary(Run r, String command) throws IOException {
        assertTrue(r.out().endsWith("\n") && r.out().indexOf('\n') == r.out().length() - 1, "one line: " + r.out());
        com.fasterxml.jackson.core.JsonParser p = JSON.getFactory().createParser(r.out());
        JsonNode n = JSON.readTree(p);
        assertTrue(p.nextToken() == null, "nothing after the object: " + r.out());
        assertTrue(n.isObject(), r.out());
        assertEquals(command, n.get("command").asText());
        assertEquals(r.status(), n.get("status").asInt(), r.out() + r.err());
        assertTrue(n.get("wall_ms").asLong() >= 0, r.out());
        assertTrue(n.get("cpu_ms").asLong() >= 0, r.out());
        if (r.status() != 0) assertTrue(!n.get("error").asText().isEmpty(), r.out());
        else assertTrue(n.get("error") == null, r.out());
        return n;
    }

    static String ops(int from, int to) {
        StringBuilder sb = new StringBuilder();
        for (int i = from; i < to; i++) {
            sb.append("{\"op\":\"insert\",\"timestamp\":").append(1_700_000_000_000_000L + i).append(",\"values\":{\"pk\":").append(i % 7)
                    .append(",\"ck\":").append(i).append(",\"v\":\"v").append(i).append("\"}}\n");
        }
        return sb.toString();
    }

    Path schema() throws IOException {
        return Files.writeString(tmp.resolve("js.cql"), CQL);
    }

    @Test
    void loadSummary() throws IOException {
        Path input = Files.writeString(tmp.resolve("ops.jsonl"), ops(0, 50) + ops(50, 100));
        Path out = tmp.resolve("out");
        Run r = run("load", "--schema", schema().toString(), "--input", input.toString(), "--out", out.toString(), "--json",
                "--memtable-size-mb", "1", "--now", "1750000000");
        assertEquals(0, r.status(), r.err());
        JsonNode s = summary(r, "load");
        assertTrue(r.err().contains("Completed flushing") && r.err().contains("Loaded 100 operations"), "the human lines on stderr: " + r.err());
        assertEquals(input.toString(), s.get("input").asText());
        assertEquals("ks.js", s.get("table").asText());
        assertEquals(100, s.get("operations").asLong());
        assertEquals(100, s.get("lines_read").asLong());
        assertEquals(100, s.get("rows").asLong());
        assertEquals(7, s.get("partitions").asLong());
        assertEquals(0, s.get("bad_lines").get("count").asLong());
        long bytes = 0;
        for (JsonNode t : s.get("sstables")) {
            Path data = Path.of(t.get("path").asText());
            assertTrue(Files.exists(data), data.toString());
            assertEquals(Files.size(data), t.get("bytes").asLong());
            bytes += t.get("bytes").asLong();
        }
        assertEquals(1, s.get("sstables").size());
        assertEquals(bytes, s.get("data_bytes").asLong());
        assertEquals(Path.of(s.get("sstables").get(0).get("path").asText()).getParent().toString(), s.get("directory").asText());
    }

    @Test
    void loadSummaryOfBadLines() throws IOException {
        List<String> lines = new ArrayList<>(List.of(ops(0, 20).split("\n")));
        for (int i : new int[] {3, 5, 8, 11, 13, 15, 16, 17, 18, 19, 20, 21}) lines.add(i, "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":\"x" + i + "\",\"ck\":1,\"v\":\"a\"}}");
        Path input = Files.writeString(tmp.resolve("bad.jsonl"), String.join("\n", lines) + "\n");
        Run r = run("load", "--schema", schema().toString(), "--input", input.toString(), "--out", tmp.resolve("o").toString(),
                "--json", "--max-errors", "11");
        assertEquals(1, r.status(), r.err());
        JsonNode s = summary(r, "load");
        JsonNode bad = s.get("bad_lines");
        assertEquals(12, bad.get("count").asLong(), r.out());
        assertEquals(11, bad.get("skipped").asLong(), r.out());
        assertEquals(JsonSummary.FIRST_FEW, bad.get("first").size());
        assertEquals(input.toString(), bad.get("first").get(0).get("source").asText());
        assertEquals(4, bad.get("first").get(0).get("line").asLong());
        assertTrue(bad.get("first").get(0).get("message").asText().startsWith(input + ":4: column 'pk' (int)"), r.out());
        assertEquals(22, s.get("stopped_at").get("line").asLong(), r.out());
        assertTrue(s.get("error").asText().contains("stopped at " + input + ":22"), r.out());
        assertEquals(s.get("operations").asLong(), s.get("rows").asLong());
        assertTrue(s.get("operations").asLong() > 0 && s.get("operations").asLong() < 20, r.out());
    }

    @Test
    void usageErrorsAndHelp() throws IOException {
        Run r = run("load", "--json", "--bogus", "1");
        assertEquals(1, r.status());
        JsonNode s = summary(r, "load");
        assertTrue(s.get("error").asText().contains("unknown option --bogus"), r.out());
        assertTrue(r.err().contains("unknown option --bogus"), r.err());
        Run c = run("compact", "--json", "--schema", schema().toString());
        assertEquals(1, c.status());
        assertTrue(summary(c, "compact").get("error").asText().contains("missing --input"), c.out());
        Run v = run("verify", "--json", "--schema", schema().toString(), tmp.resolve("missing").toString());
        assertEquals(1, v.status());
        assertTrue(summary(v, "verify").get("error").asText().contains("missing: no such file or directory"), v.out());
        Run h = run("verify", "--json", "--help");
        assertEquals(0, h.status());
        assertTrue(h.out().startsWith("Usage: flushline verify"), "--help wins: " + h.out());
    }

    @Test
    void compactAndVerifySummaries() throws IOException {
        Path root = tmp.resolve("in");
        for (int i = 0; i < 3; i++) {
            Path input = Files.writeString(tmp.resolve("ops" + i + ".jsonl"), ops(i * 30, i * 30 + 40));
            Run r = run("load", "--schema", schema().toString(), "--input", input.toString(), "--out", root.toString(), "--now", "1750000000");
            assertEquals(0, r.status(), r.err());
        }
        Path tableDir;
        try (var s = Files.list(root.resolve("ks"))) {
            tableDir = s.findFirst().orElseThrow();
        }
        // An sstable without TOC.txt: left alone, and named.
        SSTableFiles third = SSTableFiles.inDirectory(tableDir).get(2);
        Path leftover = third.path(Component.DATA);
        Files.delete(third.path(Component.TOC));

        Run c = run("compact", "--schema", schema().toString(), "--input", root.toString(), "--out", tmp.resolve("out").toString(),
                "--now", "1750000000", "--json");
        assertEquals(0, c.status(), c.err());
        JsonNode s = summary(c, "compact");
        assertTrue(c.err().contains("Compacted ("), c.err());
        assertEquals(2, s.get("input_sstables").size(), c.out());
        assertEquals(1, s.get("incomplete_left_alone").size(), c.out());
        assertEquals(leftover.toString(), s.get("incomplete_left_alone").get(0).asText());
        assertEquals(false, s.get("purges_tombstones").asBoolean());
        assertEquals(1, s.get("sstables_written").size());
        Path written = Path.of(s.get("sstables_written").get(0).asText());
        assertEquals(Files.size(written), s.get("output_data_bytes").asLong());
        assertEquals(80, s.get("input_rows").asLong(), c.out()); // ops 0..39 and 30..69: 80 rows in, 10 of them twice
        assertEquals(70, s.get("output_rows").asLong(), c.out());
        assertEquals(s.get("cells_read").asLong(), s.get("cells_written").asLong() + s.get("cells_merged_away").asLong()
                + s.get("cells_purged").asLong());

        // verify: OK, CORRUPT (a flipped byte) and INCOMPLETE, per sstable.
        SSTableFiles second = SSTableFiles.inDirectory(tableDir).get(1);
        byte[] b = Files.readAllBytes(second.path(Component.DATA));
        b[b.length / 2] ^= 0x10;
        Files.write(second.path(Component.DATA), b);
        Run v = run("verify", "--schema", schema().toString(), tableDir.toString(), written.toString(), "--json");
        assertEquals(1, v.status(), v.err());
        JsonNode vs = summary(v, "verify");
        assertTrue(v.err().contains("CORRUPT ") && v.err().contains("OK "), v.err());
        List<String> results = new ArrayList<>();
        for (JsonNode f : vs.get("sstables")) results.add(f.get("result").asText());
        assertEquals(List.of("OK", "CORRUPT", "INCOMPLETE", "OK"), results, v.out());
        JsonNode corrupt = vs.get("sstables").get(1);
        assertEquals(second.path(Component.DATA).toString(), corrupt.get("path").asText());
        assertTrue(corrupt.get("offset").asLong() >= 0 && !corrupt.get("reason").asText().isEmpty(), v.out());
        assertEquals(2, vs.get("ok").asInt());
        assertEquals(2, vs.get("not_ok").asInt());

        Run ok = run("verify", "--schema=" + schema(), written.toString(), "--json");
        assertEquals(0, ok.status(), ok.err());
        assertEquals(1, summary(ok, "verify").get("ok").asInt());
    }
}

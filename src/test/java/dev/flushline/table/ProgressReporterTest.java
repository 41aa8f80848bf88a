package dev.flushline.table;

import dev.flushline.ops.InputFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The progress of reading a load's input: the meter counts the file's own bytes (compressed ones
 * for gzip, so that they compare with its length), and the reporter prints the share of the file,
 * the lines and the rates, or the bytes read when the length is unknown (stdin).
 */
class ProgressReporterTest {
    private static final String CQL = "CREATE TABLE ks.progress (k int PRIMARY KEY, v text)";
    private static final Pattern LINE = Pattern.compile(
            "reading (\\S+): +(\\d+)% of 1\\.000MiB, (\\d+) lines \\((\\d+) lines/s, (\\d+\\.\\d) MiB/s\\)");

    @TempDir
    Path tmp;

    @Test
    void meterCountsTheFileBytesUnderTheDecompression() throws Exception {
        byte[] text = "{\"op\":\"insert\"}\n".repeat(20_000).getBytes(StandardCharsets.UTF_8);
        Path gz = tmp.resolve("ops.jsonl.gz");
        try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(gz))) {
            o.write(text);
        }
        InputFiles.Opened opened = InputFiles.openMetered(gz.toString(), null);
        assertEquals(Files.size(gz), opened.meter().size());
        try (InputStream in = opened.stream()) {
            assertEquals(text.length, in.readAllBytes().length);
        }
        assertEquals(Files.size(gz), opened.meter().bytesRead(), "the compressed bytes, all of them");
        assertTrue(opened.meter().bytesRead() < text.length / 10);

        InputFiles.Opened stdin = InputFiles.openMetered("-", new ByteArrayInputStream(text));
        assertEquals(-1, stdin.meter().size(), "stdin has no length");
        assertEquals(1000, stdin.stream().readNBytes(1000).length);
        assertEquals(1000, stdin.meter().bytesRead());
    }

    @Test
    void reportsTheShareOfTheFileTheLinesAndTheRates() throws Exception {
        Path file = Files.write(tmp.resolve("ops.jsonl"), new byte[1 << 20]);
        InputFiles.Opened opened = InputFiles.openMetered(file.toString(), null);
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(printed, true, StandardCharsets.UTF_8);
        try (Table t = Table.open(TableOptions.builder().schema(CQL).dataDir(tmp.resolve("data")).build());
             InputStream in = opened.stream()) {
            ProgressReporter.Input input = new ProgressReporter.Input("ops.jsonl", opened.meter());
            ProgressReporter r = new ProgressReporter(t.flusher(), "ks.progress", input, err, 0, 100);
            r.start();
            try {
                // A quarter of the file, then a half, with the lines read published as the load publishes them.
                in.readNBytes(1 << 18);
                input.linesRead(1_000);
                Thread.sleep(600);
                in.readNBytes(1 << 18);
                input.linesRead(2_000);
                Thread.sleep(600);
            } finally {
                r.stop();
            }
        }
        String text = printed.toString(StandardCharsets.UTF_8);
        Matcher m = LINE.matcher(text);
        int lines = 0, lastShare = -1;
        long lastLines = -1;
        while (m.find()) {
            lines++;
            assertEquals("ops.jsonl", m.group(1), text);
            int share = Integer.parseInt(m.group(2));
            assertTrue(share == 25 || share == 50, text);
            assertTrue(share >= lastShare, text);
            long n = Long.parseLong(m.group(3));
            assertEquals(share == 25 ? 1_000 : 2_000, n, text);
            assertTrue(n >= lastLines, text);
            lastShare = share;
            lastLines = n;
        }
        assertTrue(lines >= 2, "a line every 100 ms for over a second:\n" + text);
        assertEquals(50, lastShare, text);
        assertEquals(text.split("\n").length, lines, "nothing else was printed (no flush ran):\n" + text);
    }

    @Test
    void withoutALengthTheBytesReadAreShown() {
        assertEquals("reading <stdin>: 1.500MiB, 42 lines (10 lines/s, 0.5 MiB/s)",
                ProgressReporter.inputText("<stdin>", 3 << 19, -1, 42, 10, 1 << 19));
        assertEquals("reading a.csv:  50% of 1.000MiB, 7 lines (3 lines/s, 1.0 MiB/s)",
                ProgressReporter.inputText("a.csv", 1 << 19, 1 << 20, 7, 3.2, 1 << 20));
    }
}

package dev.flushline.cli;

import dev.flushline.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code load --input x.gz}: gzip input (by its .gz name or by the magic bytes of a regular file) is
 * decompressed as it is read and loads exactly what the plain file loads; corrupt and cut gzip data
 * stop the load at the line it was reading, named file:line, with exit status 1 and the lines before
 * it in complete sstables; stdin is read as it is.
 */
class LoadGzipTest {
    static final String CQL = "CREATE TABLE ks.gz (pk bigint, ck int, v text, tags list<int>, PRIMARY KEY (pk, ck))"
            + " WITH compression = {'enabled': 'false'}";

    @TempDir
    Path tmp;

    record Result(int status, String out, String err) {}

    static Result main(byte[] stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int status = Main.run(args, new ByteArrayInputStream(stdin), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static String ops(int lines) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < lines; i++) {
            sb.append("{\"op\":\"insert\",\"timestamp\":").append(1_700_000_000_000_000L + i).append(",\"values\":{\"pk\":").append(i % 977)
                    .append(",\"ck\":").append(i).append(",\"v\":\"value ").append(i).append(" ").append("x".repeat(i % 50))
                    .append("\",\"tags\":[").append(i).append(",").append(i + 1).append("]}}\n");
        }
        return sb.toString();
    }

    static byte[] gzip(byte[] plain) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(b)) {
            gz.write(plain);
        }
        return b.toByteArray();
    }

    Result load(String input, byte[] stdin, Path out, String... more) throws IOException {
        Path schema = tmp.resolve("gz.cql");
        if (!Files.exists(schema)) Files.writeString(schema, CQL);
        List<String> args = new java.util.ArrayList<>(List.of("load", "--schema", schema.toString(), "--input", input, "--out", out.toString(),
                "--now", "1750000000", "--list-path-seed", "7"));
        args.addAll(List.of(more));
        return main(stdin, args.toArray(new String[0]));
    }

    static byte[] onlyData(Path out) throws IOException {
        try (var s = Files.walk(out)) {
            List<Path> data = s.filter(p -> p.getFileName().toString().endsWith("-Data.db")).toList();
            assertEquals(1, data.size(), data.toString());
            return Files.readAllBytes(data.get(0));
        }
    }

    @Test
    void gzipLoadsWhatThePlainFileLoads() throws IOException {
        byte[] plain = ops(20_000).getBytes(StandardCharsets.UTF_8);
        Path plainFile = Files.write(tmp.resolve("ops.jsonl"), plain);
        Path gzFile = Files.write(tmp.resolve("ops.jsonl.gz"), gzip(plain));
        Path magicOnly = Files.write(tmp.resolve("ops.data"), gzip(plain)); // no .gz name: the magic bytes tell
        Result a = load(plainFile.toString(), new byte[0], tmp.resolve("a"));
        Result b = load(gzFile.toString(), new byte[0], tmp.resolve("b"));
        Result c = load(magicOnly.toString(), new byte[0], tmp.resolve("c"));
        Result d = load("-", plain, tmp.resolve("d"));
        for (Result r : List.of(a, b, c, d)) {
            assertEquals(0, r.status(), r.err());
            assertTrue(r.out().contains("Loaded 20000 operations"), r.out());
        }
        byte[] expected = onlyData(tmp.resolve("a"));
        assertArrayEquals(expected, onlyData(tmp.resolve("b")));
        assertArrayEquals(expected, onlyData(tmp.resolve("c")));
        assertArrayEquals(expected, onlyData(tmp.resolve("d")));
        // Concatenated gzip members (what `cat a.gz b.gz` gives) read as one stream.
        byte[] half1 = Arrays.copyOf(plain, indexAfterLine(plain, 10_000)), half2 = Arrays.copyOfRange(plain, half1.length, plain.length);
        byte[] twoMembers = concat(gzip(half1), gzip(half2));
        Result e = load(Files.write(tmp.resolve("two.jsonl.gz"), twoMembers).toString(), new byte[0], tmp.resolve("e"));
        assertEquals(0, e.status(), e.err());
        assertArrayEquals(expected, onlyData(tmp.resolve("e")));
    }

    /** stdin is not peeked at: gzip on stdin is not decompressed, and its first line is refused as not UTF-8, with a hint. */
    @Test
    void stdinIsReadAsItIs() throws IOException {
        Result r = load("-", gzip(ops(10).getBytes(StandardCharsets.UTF_8)), tmp.resolve("o"));
        assertEquals(1, r.status(), r.err());
        assertTrue(r.err().contains("<stdin>:1: not valid UTF-8") && r.err().contains("(gzip data? stdin and pipes are not decompressed"),
                r.err());
    }

    @Test
    void aCutGzipFileStopsAtTheLineItWasReading() throws IOException {
        byte[] plain = ops(20_000).getBytes(StandardCharsets.UTF_8);
        byte[] gz = gzip(plain);
        byte[] cut = Arrays.copyOf(gz, gz.length / 2);
        Path file = Files.write(tmp.resolve("cut.jsonl.gz"), cut);
        long complete = completeLines(cut);
        assertTrue(complete > 1000 && complete < 19_000, "complete lines: " + complete);
        Result r = load(file.toString(), new byte[0], tmp.resolve("o"));
        assertEquals(1, r.status(), r.out() + r.err());
        assertTrue(r.err().contains(file + ":" + (complete + 1) + ": the gzip data ends early (a cut file?)"), r.err());
        assertTrue(r.err().contains("flushline load: stopped at " + file + ":" + (complete + 1)), r.err());
        assertTrue(r.out().contains("Loaded " + complete + " operations"), r.out());
        // With --max-errors too: the end of the data is not a line to skip.
        Result m = load(file.toString(), new byte[0], tmp.resolve("m"), "--max-errors", "100");
        assertEquals(1, m.status(), m.err());
        assertTrue(m.out().contains("Loaded " + complete + " operations"), m.out());
    }

    @Test
    void corruptOrNonGzipDataIsBadInputNamedByLine() throws IOException {
        byte[] plain = ops(5_000).getBytes(StandardCharsets.UTF_8);
        byte[] gz = gzip(plain);
        // The CRC in the trailer: every line decompresses, and the check at the end fails.
        byte[] badCrc = gz.clone();
        badCrc[badCrc.length - 6] ^= 0x55;
        Path crc = Files.write(tmp.resolve("crc.jsonl.gz"), badCrc);
        Result c = load(crc.toString(), new byte[0], tmp.resolve("o0"));
        assertEquals(1, c.status(), c.err());
        assertTrue(c.err().contains(crc + ":5001: corrupt gzip data (Corrupt GZIP trailer)"), c.err());
        // A byte in the middle: deflate decodes wrong text (a bad line) or fails on its own; either way a line is named.
        byte[] middle = gz.clone();
        middle[middle.length / 2] ^= 0x55;
        Path corrupt = Files.write(tmp.resolve("bad.jsonl.gz"), middle);
        Result r = load(corrupt.toString(), new byte[0], tmp.resolve("o1"));
        assertEquals(1, r.status(), r.err());
        assertTrue(r.err().matches("(?s).*" + java.util.regex.Pattern.quote(corrupt.toString()) + ":\\d+: .*"), r.err());

        Path notGzip = Files.write(tmp.resolve("plain.jsonl.gz"), plain); // a .gz name on plain text
        Result p = load(notGzip.toString(), new byte[0], tmp.resolve("o2"));
        assertEquals(1, p.status(), p.err());
        assertTrue(p.err().contains(notGzip + ":1: not gzip data (Not in GZIP format)"), p.err());

        Path empty = Files.write(tmp.resolve("empty.jsonl.gz"), new byte[0]);
        Result e = load(empty.toString(), new byte[0], tmp.resolve("o3"));
        assertEquals(1, e.status(), e.err());
        assertTrue(e.err().contains(empty + ":1: not gzip data (too short for a gzip header)"), e.err());
    }

    /** Bad lines inside gzip input are named by file and line, as in a plain file. */
    @Test
    void badLinesInGzipInputAreNamed() throws IOException {
        String text = ops(3) + "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":\"x\",\"ck\":1,\"v\":\"a\"}}\n" + ops(2);
        Path file = Files.write(tmp.resolve("bad-line.jsonl.gz"), gzip(text.getBytes(StandardCharsets.UTF_8)));
        Result r = load(file.toString(), new byte[0], tmp.resolve("o"), "--max-errors", "1");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.err().contains(file + ":4: column 'pk' (bigint)"), r.err());
        assertTrue(r.out().contains("Loaded 5 operations") && r.out().contains("1 bad lines skipped"), r.out());
    }

    static long completeLines(byte[] gz) throws IOException {
        long lines = 0;
        try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(gz))) {
            byte[] buf = new byte[8192];
            int n;
            while ((n = in.read(buf)) > 0) {
                for (int i = 0; i < n; i++) if (buf[i] == '\n') lines++;
            }
        } catch (EOFException expected) {
            return lines;
        }
        throw new AssertionError("the cut data decompressed to the end");
    }

    static int indexAfterLine(byte[] b, int lines) {
        int seen = 0;
        for (int i = 0; i < b.length; i++) if (b[i] == '\n' && ++seen == lines) return i + 1;
        return b.length;
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }
}

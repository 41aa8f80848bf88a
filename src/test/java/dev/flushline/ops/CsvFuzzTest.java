package dev.flushline.ops;

import dev.flushline.Main;
import dev.flushline.data.Mutation;
import dev.flushline.data.Row;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Random CSV never crashes the reader or the load: every record is a row or a bad line named by
 * its line, with a detail; reading ends. Inputs are valid rows with random edits (characters
 * inserted, deleted, replaced by those that matter to CSV and to COPY literals, invalid bytes) and
 * runs of random tokens.
 */
class CsvFuzzTest {
    static final String SCHEMA = "CREATE TYPE ks.addr (street text, zip int);\n"
            + "CREATE TABLE ks.f (k int, c text, v int, d double, ts timestamp, b blob, l list<int>, s set<text>, m map<text, int>,"
            + " u frozen<addr>, t tuple<int, text>, PRIMARY KEY (k, c))";
    static final TableSchema TABLE = CqlParser.parse(SCHEMA);
    static final String HEADER = "k,c,v,d,ts,b,l,s,m,u,t\n";
    static final String[] VALID = {
            "1,a,2,1.5,2024-01-02 03:04:05.000+0000,0xcafe,\"[1, 2]\",\"{'x', 'y'}\",\"{'k': 1}\",\"{street: 'Main', zip: 1}\",\"(1, 'a')\"",
            "2,\"b,c\",,NaN,1700000000000,0x,[],{},{},{},\"(, 'it''s')\"",
            "3,\"multi\nline\",-5,-0.0,2024-01-02,0x00,[3],{''},{'': -1},{zip: null},\"(null, null)\"",
    };
    static final String[] TOKENS = {",", "\"", "'", "\\", "[", "]", "{", "}", "(", ")", ":", " ", "\n", "\r\n", "\r", "é", "😀", "null",
            "NULL", "0x", "-", ".", "E", "1", "9", "a", "Z", "\"\"", "''", "\t", "\u0000"};

    static String edit(Random r, String s) {
        StringBuilder sb = new StringBuilder(s);
        for (int n = 1 + r.nextInt(4); n > 0; n--) {
            int at = sb.length() == 0 ? 0 : r.nextInt(sb.length() + 1);
            String t = TOKENS[r.nextInt(TOKENS.length)];
            switch (r.nextInt(3)) {
                case 0: sb.insert(at, t); break;
                case 1: if (at < sb.length()) sb.deleteCharAt(at); break;
                default: if (at < sb.length()) sb.replace(at, at + 1, t); break;
            }
        }
        return sb.toString();
    }

    static byte[] input(Random r) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(HEADER.getBytes(StandardCharsets.UTF_8));
        for (int i = 1 + r.nextInt(30); i > 0; i--) {
            String line;
            if (r.nextInt(5) == 0) {
                StringBuilder sb = new StringBuilder();
                for (int n = r.nextInt(40); n > 0; n--) sb.append(TOKENS[r.nextInt(TOKENS.length)]);
                line = sb.toString();
            } else {
                line = VALID[r.nextInt(VALID.length)];
                if (r.nextInt(3) > 0) line = edit(r, line);
            }
            out.writeBytes(line.getBytes(StandardCharsets.UTF_8));
            if (r.nextInt(40) == 0) out.write(0x80 + r.nextInt(0x80)); // a byte that is not UTF-8 where it stands
            out.write('\n');
        }
        return out.toByteArray();
    }

    static final Pattern LINE = Pattern.compile("in\\.csv:(\\d+): .+", Pattern.DOTALL);

    @Test
    void randomRecordsAreRowsOrNamedBadLines() throws Exception {
        Random r = new Random(20261203L);
        int rows = 0, bad = 0, stops = 0;
        for (int round = 0; round < 400; round++) {
            byte[] in = input(r);
            long lines = 1;
            for (byte b : in) if (b == '\n' || b == '\r') lines++;
            String text = new String(in, StandardCharsets.UTF_8);
            try (CsvReader reader = new CsvReader(new ByteArrayInputStream(in), "in.csv", new OperationDecoder(TABLE, 1_750_000_000L),
                    CsvOptions.builder(7).build())) {
                for (int records = 0; ; records++) {
                    if (records > in.length + 2) fail("reading does not end:\n" + text);
                    Mutation m;
                    try {
                        m = reader.next();
                    } catch (BadInputException e) {
                        assertTrue(LINE.matcher(e.getMessage()).matches(), e.getMessage());
                        assertTrue(e.lineNumber() >= 2 && e.lineNumber() <= lines, e.getMessage() + " of " + lines + " lines:\n" + text);
                        assertFalse(e.detail().isBlank(), e.getMessage());
                        bad++;
                        if (e.skippable()) continue;
                        stops++;
                        assertEquals(null, reader.next(), "nothing after a stop");
                        break;
                    } catch (RuntimeException e) {
                        throw new AssertionError("not a row nor a bad line, in:\n" + text, e);
                    }
                    if (m == null) break;
                    Row row = m.update().rows().get(0);
                    assertEquals(7, row.livenessTimestamp(), "every row at the load's timestamp");
                    rows++;
                }
            }
        }
        assertTrue(rows > 500 && bad > 500 && stops > 10, "the inputs reach both sides: " + rows + " rows, " + bad + " bad, " + stops + " stops");
    }

    @TempDir
    Path tmp;

    @Test
    void theLoadOfRandomRecordsEndsWithAStatusNotACrash() throws Exception {
        Random r = new Random(7);
        Path schema = Files.writeString(tmp.resolve("s.cql"), SCHEMA);
        for (int round = 0; round < 8; round++) {
            Path input = Files.write(tmp.resolve("in.csv"), input(r));
            ByteArrayOutputStream so = new ByteArrayOutputStream(), se = new ByteArrayOutputStream();
            int status = Main.run(new String[] {"load", "--format", "csv", "--schema", schema.toString(), "--input", input.toString(),
                    "--out", tmp.resolve("out" + round).toString(), "--max-errors", "1000000", "--timestamp", "7"},
                    new ByteArrayInputStream(new byte[0]), new PrintStream(so, true), new PrintStream(se, true));
            String err = se.toString(StandardCharsets.UTF_8);
            assertTrue(status == 0 || status == 1, status + ": " + err);
            for (String line : err.split("\n")) {
                if (line.isEmpty() || line.startsWith("flushline load: ")) continue;
                assertTrue(line.startsWith(input + ":"), line);
            }
            assertTrue(so.toString(StandardCharsets.UTF_8).contains("Loaded "), so.toString(StandardCharsets.UTF_8));
        }
    }
}

package dev.flushline.ops;

import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The scanner ({@link InsertScanner}) gives exactly what the value model gives, and what the
 * token-level fast path gives: every line is read by three readers (value model only, the fast
 * path without the scanner, the fast path with it) and the outcomes are compared as text. It
 * must also take the lines it is for: a run of plain lines that it declines would pass the
 * comparison and lose the speed, so the count it took is checked too.
 */
class InsertScannerTest {
    @Test
    void threePathsAgreeOnRandomLines() throws Exception {
        long seed = 11;
        for (String cql : InsertDecoderTest.SCHEMAS) {
            TableSchema schema = CqlParser.parse(cql);
            Random r = new Random(seed++);
            List<String> lines = new ArrayList<>();
            for (int i = 0; i < 4000; i++) {
                String line = InsertDecoderTest.insert(r, schema);
                if (r.nextInt(4) == 0) line = spaced(r, line);
                lines.add(InsertDecoderTest.mutate(r, line));
            }
            long scanned = compare(schema, lines);
            System.out.println(cql.substring(0, 18) + ": the scanner took " + scanned + " of " + lines.size());
            // Floats with a fraction and collections are declined: a table of them leaves the scanner fewer lines.
            assertTrue(scanned > 200, cql + ": the scanner took only " + scanned + " of " + lines.size() + " lines");
        }
    }

    /** The bench workload's shape, escapes included: every line is the scanner's. */
    @Test
    void plainInsertsAreAllScanned() throws Exception {
        TableSchema schema = CqlParser.parse(InsertDecoderTest.SCHEMAS[0]);
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            lines.add("{\"op\":\"insert\",\"timestamp\":" + (1_750_000_000_000_000L + i) + ",\"values\":{\"pk\":" + (i / 10)
                    + ",\"ck\":" + i + ",\"v1\":\"a\\\"" + i + "\\\\\",\"v2\":\"\u00e9t\u00e9 \\/\\b\\f\\n\\r\\t\",\"v3\":\"x\","
                    + "\"v4\":" + (i % 2 == 0) + "}}");
        }
        lines.add(" \t{ \"values\" : { \"ck\" : -2147483648 , \"pk\" : -9223372036854775808 } , \"ttl\" : 7 ,"
                + " \"timestamp\" : -5 , \"op\" : \"insert\" }\r \t");
        lines.add("{\"op\":\"insert\",\"timestamp\":9223372036854775807,\"values\":{\"pk\":0,\"ck\":-0,\"v2\":null}}");
        lines.add("{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":3,\"ck\":1,\"v1\":\"*3K'stW7ju^rh\\\\ud\"}}");
        assertEquals(lines.size(), compare(schema, lines));
    }

    /**
     * Lines at the edges of the scanner's grammar: each is declined (and then taken or refused by the
     * other paths exactly as without the scanner), none is taken wrongly.
     */
    @Test
    void edgesAreDeclinedAndAgree() throws Exception {
        TableSchema schema = CqlParser.parse(InsertDecoderTest.SCHEMAS[0]);
        String head = "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":1,";
        String[] declined = {
                head + "\"ck\":01}}", head + "\"ck\":1.0}}", head + "\"ck\":1e2}}", head + "\"ck\":-}}",
                head + "\"ck\":+1}}", head + "\"ck\":2147483648}}", head + "\"ck\":1,\"v4\":tru}}",
                head + "\"ck\":1,\"v4\":truex}}", head + "\"ck\":1,\"v2\":nul}}", head + "\"ck\":1,\"v2\":nullx}}",
                head + "\"ck\":1,\"v1\":\"a\u0001\"}}", head + "\"ck\":1,\"v1\":\"\\u0041\"}}",
                head + "\"ck\":1,\"v1\":\"\\ud800\"}}", head + "\"ck\":1,\"v1\":\"\\x\"}}", head + "\"ck\":1,\"v1\":\"open}}",
                head + "\"c\\u006b\":1}}", head + "\"ck\":1,\"v3\":\"\u00e9\"}}", head + "\"ck\":1,\"v3\":\"abcdefg\u00e9hijklmnopqrstuvwxyz\"}}",
                head + "\"ck\":1}} x",
                head + "\"ck\":1}},", head + "\"ck\":1,}}", head + "\"ck\":1}", head + "\"ck\":1,\"ck\":2}}",
                head + "\"ck\":1,\"zz\":2}}", head + "\"ck\":1}, \"op\":\"insert\"}", head + "\"ck\":1},\"x\":1}",
                "{\"op\":\"Insert\",\"timestamp\":1,\"values\":{\"pk\":1,\"ck\":1}}",
                "{\"op\":\"insert\",\"timestamp\":1.5,\"values\":{\"pk\":1,\"ck\":1}}",
                "{\"op\":\"insert\",\"timestamp\":12345678901234567890,\"values\":{\"pk\":1,\"ck\":1}}",
                "{\"op\":\"insert\",\"timestamp\":-9223372036854775809,\"values\":{\"pk\":1,\"ck\":1}}",
                "{\"op\":\"insert\",\"timestamp\":1,\"ttl\":-1,\"values\":{\"pk\":1,\"ck\":1}}",
                "{\"op\":\"insert\",\"values\":{\"pk\":1,\"ck\":1}}", "{\"op\":\"insert\",\"timestamp\":1,\"values\":{}}",
                "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":1,\"ck\":null}}", "{}", "[]", "{\"op\"}",
                "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":1,\"ck\":1}}{}",
                "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":1,\"ck\":1}\n",
        };
        List<String> lines = new ArrayList<>();
        for (String d : declined) lines.add(d.replace("\n", ""));
        assertEquals(0, compare(schema, lines), "a line at the grammar's edge was scanned");
    }

    /** Blanks after the separators and around the values, where JSON allows them. */
    private static String spaced(Random r, String line) {
        StringBuilder b = new StringBuilder(line.length() + 16);
        boolean inString = false;
        String[] blanks = {" ", "\t", "\r", "  "};
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (!inString && (c == '}' ) && r.nextInt(3) == 0) b.append(blanks[r.nextInt(blanks.length)]);
            b.append(c);
            if (inString) {
                if (c == '\\') b.append(line.charAt(++i));
                else if (c == '"') inString = false;
                continue;
            }
            if (c == '"') inString = true;
            else if ((c == ',' || c == ':' || c == '{') && r.nextInt(3) == 0) b.append(blanks[r.nextInt(blanks.length)]);
        }
        return b.toString();
    }

    /** Reads {@code lines} three ways and compares every outcome; returns how many lines the scanner took. */
    private static long compare(TableSchema schema, List<String> lines) throws Exception {
        String text = String.join("\n", lines) + "\n";
        OperationReader model = reader(schema, text, false, false);
        OperationReader tokens = reader(schema, text, true, false);
        OperationReader scanner = reader(schema, text, true, true);
        while (true) {
            String expected = outcome(model), fromTokens = outcome(tokens), scanned = outcome(scanner);
            String where = "line " + model.lineNumber() + ": " + lines.get((int) Math.max(0, model.lineNumber() - 1));
            assertEquals(expected, fromTokens, where);
            assertEquals(expected, scanned, where);
            if (expected.equals("end")) break;
        }
        assertEquals(0, tokens.scanned());
        assertEquals(model.operations(), scanner.operations());
        assertEquals(model.noOps(), scanner.noOps());
        return scanner.scanned();
    }

    private static OperationReader reader(TableSchema schema, String text, boolean fast, boolean scan) {
        OperationReader r = InsertDecoderTest.reader(schema, text, fast);
        r.scanner(scan);
        return r;
    }

    private static String outcome(OperationReader r) throws Exception {
        return InsertDecoderTest.outcome(r);
    }
}

package dev.flushline.ops;

import dev.flushline.data.InsertBuffer;
import dev.flushline.data.Mutation;
import dev.flushline.data.RowRecord;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fast path ({@link InsertDecoder}) gives exactly what the value model gives: the same
 * mutation for every line it takes, and for every other line the same mutation or the same
 * message, because it declines those. Each line is read by two readers, one with the fast path
 * and one without, and the outcomes are compared as text (every field of a mutation, values in
 * hex). The lines are random inserts over the types the fast path takes, then mutated: values
 * of other forms and ranges, duplicate and unknown names, broken JSON.
 */
class InsertDecoderTest {
    static final long NOW = 1_750_000_000L;

    static final String[] SCHEMAS = {
            "CREATE TABLE ks.a (pk bigint, ck int, v1 text, v2 text, v3 ascii, v4 boolean, PRIMARY KEY (pk, ck))",
            "CREATE TABLE ks.b (k1 text, k2 int, c1 smallint, c2 tinyint, s text static, f float, d double, t timestamp,"
                    + " l list<int>, m map<text, int>, PRIMARY KEY ((k1, k2), c1, c2)) WITH default_time_to_live = 100",
            "CREATE TABLE ks.c (pk text PRIMARY KEY, v varchar, i int, d double)",
            "CREATE TABLE ks.d (pk int, ck text, s1 int static, s2 set<int> static, v bigint, PRIMARY KEY (pk, ck))"
                    + " WITH CLUSTERING ORDER BY (ck DESC)",
    };

    static final String[] NUMBERS = {
            "0", "-0", "1", "-1", "127", "128", "-128", "-129", "32767", "32768", "-32769", "2147483647", "2147483648",
            "-2147483649", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
            "123456789012345678901234567890", "1.5", "-0.0", "0.0", "1e3", "1E-3", "2.5e+10", "1e22", "1e23", "1e-22",
            "1e-23", "0.1", "0.30000000000000004", "123456789012345", "1234567890123456", "3.4028235e38", "3.5e38",
            "1e400", "1e-400", "-1.25e-5", "1.000000000000000000001", "00", "01", "1.", ".5", "+1", "NaN", "1e999999999",
            "16777217", "9007199254740993", "0.000001", "100e-2",
    };

    static final String[] STRINGS = {
            "\"\"", "\"x\"", "\"abc\"", "\"\\u00e9t\\u00e9\"", "\"\u00e9t\u00e9\"", "\"\\ud834\\udd1e\"", "\"\ud834\udd1e\"",
            "\"\\ud800\"", "\"\\udc00x\"", "\"a\\\"b\\\\c\\/d\\n\\t\"", "\"\u4e2d\u6587\"", "\"1\"", "\"-5\"", "\"true\"",
            "\"0x00\"", "\"2020-01-01\"", "\"\u0080\"",
            // Taken as the line's bytes, or left to jackson: a raw control character (an error), DEL (allowed),
            // an escape after plain text, a quote that never closes.
            "\"a\u0001b\"", "\"a\u001fb\"", "\"a\u007fb\"", "\"plain then \\u0041\"", "\"unterminated",
    };

    static final String[] OTHERS = {"null", "true", "false", "[]", "{}", "[1]", "{\"a\":1}", "[1,2]", "{\"x\":\"y\"}"};

    @Test
    void bothPathsAgreeOnRandomLines() throws Exception {
        long seed = 42;
        for (String cql : SCHEMAS) {
            TableSchema schema = CqlParser.parse(cql);
            Random r = new Random(seed++);
            List<String> lines = new ArrayList<>();
            for (int i = 0; i < 3000; i++) lines.add(mutate(r, insert(r, schema)));
            int fast = compare(schema, lines);
            System.out.println(cql.substring(0, 18) + ": the fast path took " + fast + " of " + lines.size());
            // The comparison means something only if the fast path took many lines
            assertTrue(fast > 300, cql + ": the fast path took only " + fast + " of " + lines.size() + " lines");
        }
    }

    /**
     * The memtable writes a fast-path insert's record from the buffer, without the row: its bytes
     * must be those of the record of the row the buffer means.
     */
    @Test
    void recordOfTheBufferIsTheRecordOfItsRow() throws Exception {
        int checked = 0;
        long seed = 5;
        for (String cql : SCHEMAS) {
            TableSchema schema = CqlParser.parse(cql);
            Random r = new Random(seed++);
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < 2000; i++) text.append(insert(r, schema)).append('\n');
            OperationReader reader = reader(schema, text.toString(), true);
            InsertBuffer buffer = reader.newInsertBuffer();
            while (true) {
                Object item;
                try {
                    item = reader.next(buffer);
                } catch (BadInputException e) {
                    continue;
                }
                if (item == null) break;
                if (item != buffer) continue;
                dev.flushline.data.Row row = buffer.toUpdate().rows().get(0);
                int size = RowRecord.size(row);
                assertEquals(size, RowRecord.size(buffer), row.toString());
                byte[] expected = new byte[size + 8], actual = new byte[size + 8];
                RowRecord.write(row, size, expected, 3);
                RowRecord.write(buffer, size, actual, 3);
                assertArrayEquals(expected, actual, row.toString());
                checked++;
            }
        }
        assertTrue(checked > 2000, "only " + checked + " inserts took the fast path");
    }

    @Test
    void plainInsertsAllTakeTheFastPath() throws Exception {
        TableSchema schema = CqlParser.parse(SCHEMAS[0]);
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            lines.add("{\"op\":\"insert\",\"timestamp\":" + (1000 + i) + ",\"values\":{\"pk\":" + (i / 10) + ",\"ck\":" + i
                    + ",\"v1\":\"a" + i + "\",\"v2\":\"\u00e9\\u00e9\",\"v3\":\"x\",\"v4\":true}}");
        }
        lines.add(1, "{\"values\":{\"ck\":1,\"pk\":2},\"ttl\":7,\"timestamp\":-5,\"op\":\"insert\"}  \r");
        // an escaped backslash before "ud" is text, not a surrogate escape (the bench workload has one at line 1837)
        lines.add(2, "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":3,\"ck\":1,\"v1\":\"*3K'stW7ju^rh\\\\ud\"}}");
        assertEquals(lines.size(), compare(schema, lines));
    }

    /** The surrogate escape check reads escaped backslashes as pairs: one before a real escape does not hide it. */
    @Test
    void aLoneSurrogateAfterAnEscapedBackslashIsStillRefused() throws Exception {
        TableSchema schema = CqlParser.parse(SCHEMAS[0]);
        String line = "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":3,\"ck\":1,\"v1\":\"a\\\\\\ud800\"}}";
        for (boolean fast : new boolean[] {true, false}) {
            OperationReader r = reader(schema, line + "\n", fast);
            BadInputException e = org.junit.jupiter.api.Assertions.assertThrows(BadInputException.class, r::next);
            assertTrue(e.getMessage().startsWith("ops.jsonl:1: malformed JSON at column ") && e.getMessage().endsWith("lone surrogate \\uD800"),
                    e.getMessage());
        }
    }

    @Test
    void exactDoubleIsTheNearestDoubleOrDeclines() {
        String[] texts = {"1.5", "-0.0", "0.1", "1e22", "1e-22", "123456789012345e7", "0.000123", "-2.5E+3", "9.87654321e-10",
                "100e-2", "1e23", "1234567890123456.0", "1e-23", "0e500"};
        for (String s : texts) {
            double d = InsertDecoder.exactDouble(s.toCharArray(), 0, s.length());
            if (Double.isNaN(d)) continue;
            double expected = s.startsWith("-") && new java.math.BigDecimal(s).signum() == 0 ? -0.0
                    : new java.math.BigDecimal(s).doubleValue();
            assertEquals(Double.doubleToRawLongBits(expected), Double.doubleToRawLongBits(d), s);
        }
        assertTrue(Double.isNaN(InsertDecoder.exactDouble("1e23".toCharArray(), 0, 4)));
        assertTrue(Double.isNaN(InsertDecoder.exactDouble("1234567890123456".toCharArray(), 0, 16)));
        Random r = new Random(7);
        for (int i = 0; i < 100_000; i++) {
            long digits = r.nextLong() % 1_000_000_000_000_000L;
            int exp = r.nextInt(50) - 25;
            String s = digits + "e" + exp;
            double d = InsertDecoder.exactDouble(s.toCharArray(), 0, s.length());
            if (Double.isNaN(d)) continue;
            assertEquals(Double.doubleToRawLongBits(new java.math.BigDecimal(s).doubleValue()), Double.doubleToRawLongBits(d), s);
        }
    }

    /** Reads {@code lines} with and without the fast path and compares every outcome; returns how many lines the fast path took. */
    static int compare(TableSchema schema, List<String> lines) throws Exception {
        String text = String.join("\n", lines) + "\n";
        OperationReader withFast = reader(schema, text, true);
        OperationReader without = reader(schema, text, false);
        while (true) {
            String a = outcome(withFast), b = outcome(without);
            assertEquals(b, a, "line " + without.lineNumber() + ": " + lines.get((int) Math.max(0, without.lineNumber() - 1)));
            if (a.equals("end")) break;
        }
        assertEquals(0, without.fastTaken());
        assertEquals(without.operations(), withFast.operations());
        assertEquals(without.noOps(), withFast.noOps());
        return (int) withFast.fastTaken();
    }

    static OperationReader reader(TableSchema schema, String text, boolean fast) {
        OperationDecoder d = new OperationDecoder(schema, NOW);
        d.seedListPaths(9);
        OperationReader r = new OperationReader(schema, new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)),
                "ops.jsonl", d);
        r.fastPath(fast);
        return r;
    }

    static String outcome(OperationReader r) throws Exception {
        try {
            Mutation m = r.next();
            return m == null ? "end" : m.toString();
        } catch (BadInputException e) {
            return "bad: " + e.getMessage();
        }
    }

    /** A valid insert of random columns of the table, in random field and column order. */
    static String insert(Random r, TableSchema schema) {
        List<String> members = new ArrayList<>();
        for (var c : schema.partitionKeyColumns()) members.add(member(r, c.name(), c.type().toString(), true));
        for (var c : schema.clusteringColumns()) members.add(member(r, c.name(), c.type().toString(), true));
        for (var c : schema.staticColumns()) if (r.nextInt(3) == 0) members.add(member(r, c.name(), c.type().toString(), false));
        for (var c : schema.regularColumns()) {
            // collections decline the line, so they come rarely: most lines should exercise the fast path
            if (c.isComplex() ? r.nextInt(10) == 0 : r.nextInt(4) != 0) members.add(member(r, c.name(), c.type().toString(), false));
        }
        java.util.Collections.shuffle(members, r);
        List<String> fields = new ArrayList<>();
        fields.add("\"op\":\"insert\"");
        fields.add("\"timestamp\":" + (r.nextInt(5) == 0 ? Long.toString(r.nextLong()) : Integer.toString(r.nextInt(1_000_000))));
        if (r.nextInt(3) == 0) fields.add("\"ttl\":" + r.nextInt(1000));
        fields.add("\"values\":{" + String.join(",", members) + "}");
        java.util.Collections.shuffle(fields, r);
        return "{" + String.join(r.nextBoolean() ? "," : " , ", fields) + "}";
    }

    private static String member(Random r, String name, String type, boolean key) {
        return "\"" + name + "\":" + value(r, type, key);
    }

    private static String value(Random r, String type, boolean key) {
        if (!key && r.nextInt(12) == 0) return "null";
        switch (type) {
            case "tinyint": return Integer.toString(r.nextInt(256) - 128);
            case "smallint": return Integer.toString(r.nextInt(65536) - 32768);
            case "int": return Integer.toString(r.nextInt());
            case "bigint":
            case "timestamp": return Long.toString(r.nextLong());
            case "float":
            case "double": {
                switch (r.nextInt(4)) {
                    case 0: return Double.toString(r.nextGaussian() * Math.pow(10, r.nextInt(10) - 5));
                    case 1: return Integer.toString(r.nextInt());
                    case 2: return (r.nextInt(2_000_000) - 1_000_000) + "." + r.nextInt(1000);
                    default: return (r.nextInt(2000) - 1000) + "e" + (r.nextInt(60) - 30);
                }
            }
            case "boolean": return r.nextBoolean() ? "true" : "false";
            case "list<int>": return "[" + r.nextInt(5) + "]";
            case "map<text, int>": return "{\"k" + r.nextInt(5) + "\":1}";
            case "set<int>": return "[1,2]";
            default:
                // now and then past a one-byte length
                if (r.nextInt(20) == 0) return "\"" + "y".repeat(250 + r.nextInt(100)) + "\"";
                return STRINGS[r.nextInt(STRINGS.length)];
        }
    }

    /** Most lines as they are; the rest with one value, name or character changed. */
    static String mutate(Random r, String line) {
        int what = r.nextInt(10);
        if (what < 5) return line;
        List<Integer> colons = new ArrayList<>();
        for (int i = 0; i < line.length(); i++) if (line.charAt(i) == ':') colons.add(i);
        int at = colons.get(r.nextInt(colons.size()));
        int end = at + 1;
        // the value after this colon: up to the next ',' or '}' at depth 0 (strings here hold neither unescaped in a way that matters)
        int depth = 0;
        boolean inString = false;
        for (; end < line.length(); end++) {
            char c = line.charAt(end);
            if (inString) {
                if (c == '\\') end++;
                else if (c == '"') inString = false;
                continue;
            }
            if (c == '"') inString = true;
            else if (c == '{' || c == '[') depth++;
            else if ((c == '}' || c == ']') && depth-- == 0) break;
            else if (c == ',' && depth == 0) break;
        }
        switch (what) {
            case 5: return line.substring(0, at + 1) + NUMBERS[r.nextInt(NUMBERS.length)] + line.substring(end);
            case 6: return line.substring(0, at + 1) + STRINGS[r.nextInt(STRINGS.length)] + line.substring(end);
            case 7: return line.substring(0, at + 1) + OTHERS[r.nextInt(OTHERS.length)] + line.substring(end);
            case 8: {
                // the member repeated (a duplicate key) or renamed
                int start = line.lastIndexOf(r.nextBoolean() ? ',' : '{', at);
                String member = line.substring(start + 1, end);
                return r.nextBoolean() ? line.substring(0, end) + "," + member + line.substring(end)
                        : line.substring(0, start + 1) + "\"zz\"" + line.substring(at);
            }
            default: {
                int i = r.nextInt(line.length());
                String[] bits = {"", "}", "{", "\"", ",", " ", "x", "]", "1", "\\u", "/"};
                return line.substring(0, i) + bits[r.nextInt(bits.length)] + line.substring(i + (r.nextBoolean() ? 1 : 0));
            }
        }
    }
}

package dev.flushline.ops;

import dev.flushline.Main;
import dev.flushline.data.Mutation;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.CqlType;
import dev.flushline.schema.TableSchema;
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
import java.util.Random;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Random and mutated operation lines: every line either decodes or is refused with a
 * {@link BadInputException} that names the file and the line ({@code ops.jsonl:N: ...}), and a
 * malformed-JSON message names a column inside the line. Nothing else may escape: no runtime
 * exception, no StackOverflowError on deep nesting, no OutOfMemoryError for huge numbers.
 * Bounded by count; the seed of a failing case is in the failure message.
 */
class OpsFuzzTest {
    static final long NOW = 1_750_000_000L;

    static final String[] SCHEMAS = {
            "CREATE TABLE ks.f1 (pk int, ck text, ck2 bigint, s text static, ss set<int> static, a ascii, b bigint, bl blob,"
                    + " bo boolean, d date, de decimal, do double, f float, i inet, n int, sm smallint, t text, ti time,"
                    + " ts timestamp, tu timeuuid, tt tinyint, u uuid, vi varint, l list<int>, st set<text>, m map<text, int>,"
                    + " mi map<int, timestamp>, fl frozen<list<double>>, fs frozen<set<uuid>>, PRIMARY KEY (pk, ck, ck2))"
                    + " WITH CLUSTERING ORDER BY (ck DESC)",
            "CREATE TABLE ks.f2 (k1 text, k2 uuid, c timestamp, v varint, de decimal, lt list<text>, sd set<date>,"
                    + " mb map<bigint, blob>, PRIMARY KEY ((k1, k2), c)) WITH default_time_to_live = 100",
            "CREATE TABLE ks.f3 (pk frozen<map<text, int>> PRIMARY KEY, v inet, ti time, bo boolean, sf set<float>)",
            "CREATE TYPE ks.fk (x int, y text, z frozen<list<int>>);\nCREATE TYPE ks.fa (x int, y text, k frozen<fk>, \"W\" duration);\n"
                    + "CREATE TABLE ks.f4 (pk frozen<tuple<int, text>>, ck frozen<fk>, u fa, fu frozen<fa>, t tuple<int, duration>,"
                    + " d duration, v vector<float, 3>, vt vector<text, 2>, m map<text, int>, st set<int>, nl list<frozen<list<int>>>,"
                    + " mt map<frozen<tuple<int, int>>, text>, s fa static, PRIMARY KEY (pk, ck))",
    };

    static final String[] INSERTS = {
            "\"", "'", "{", "}", "[", "]", ",", ":", "\\", "\\u", "\\ud800", "\\udc00", "\\ud834\\udd1e", "\\u0000",
            "1e999999999", "-1e-999999999", "1e2147483648", "123456789012345678901234567890123456789",
            "9223372036854775808", "-9223372036854775809", "NaN", "Infinity", "-Infinity", "null", "true", "false",
            "\"x\"", "{}", "[]", "-0.0", "-0", "0x", "\"zz\":1,", "\"op\":\"insert\",", "\"ttl\":5,", "\"range\":{},",
            "\"columns\":[],", "\u0001", "\t", "\r", " ", "\uFEFF", "\uD800", "\uDFFF", "\u00e9", "//", "/*",
            "\"timestamp\":1e18,", "\"ttl\":1e999999999,", "0.000000000000000000000000000001",
            "\"" + "k".repeat(5000) + "\":1,", "\"" + "v".repeat(70_000) + "\"", "\"op\":\"" + "x".repeat(5000) + "\",",
    };

    // ---- generation of valid operations ----------------------------------------------------

    static String json(Random r, CqlType t) {
        switch (t.kind()) {
            case ASCII: return "\"" + word(r) + "\"";
            case TEXT: return text(r);
            case BLOB: {
                StringBuilder sb = new StringBuilder("\"0x");
                int n = r.nextInt(6);
                for (int i = 0; i < n; i++) sb.append(String.format("%02x", r.nextInt(256)));
                return sb.append('"').toString();
            }
            case BOOLEAN: return r.nextBoolean() ? "true" : "false";
            case TINYINT: return Integer.toString(r.nextInt(256) - 128);
            case SMALLINT: return Integer.toString(r.nextInt(65536) - 32768);
            case INT: return r.nextInt(4) == 0 ? "\"" + r.nextInt() + "\"" : Integer.toString(r.nextInt());
            case BIGINT: return Long.toString(r.nextLong());
            case VARINT: return r.nextBoolean() ? Long.toString(r.nextLong()) + r.nextInt(1000)
                    : "\"" + r.nextLong() + "\"";
            case DECIMAL: return r.nextBoolean() ? (r.nextInt(2000) - 1000) + "." + r.nextInt(100)
                    : "\"" + r.nextInt() + "." + r.nextInt(1000) + "e" + (r.nextInt(20) - 10) + "\"";
            case FLOAT:
            case DOUBLE: {
                switch (r.nextInt(5)) {
                    case 0: return "-0.0";
                    case 1: return "\"NaN\"";
                    case 2: return Integer.toString(r.nextInt());
                    default: return Double.toString(r.nextDouble() * 1000 - 500);
                }
            }
            case TIMESTAMP: return r.nextBoolean() ? Long.toString(r.nextInt(Integer.MAX_VALUE) * 1000L)
                    : "\"20" + (10 + r.nextInt(20)) + "-0" + (1 + r.nextInt(9)) + "-1" + r.nextInt(10) + " 0"
                    + r.nextInt(10) + ":1" + r.nextInt(10) + ":2" + r.nextInt(10) + "\"";
            case DATE: return "\"19" + (10 + r.nextInt(90)) + "-1" + r.nextInt(3) + "-2" + r.nextInt(9) + "\"";
            case TIME: return "\"" + r.nextInt(24) + ":" + r.nextInt(60) + ":" + r.nextInt(60) + "." + r.nextInt(1000) + "\"";
            case UUID: return "\"" + new UUID(r.nextLong(), r.nextLong()) + "\"";
            case TIMEUUID: {
                long msb = (r.nextLong() & ~0xF000L) | 0x1000L; // version 1
                long lsb = (r.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
                return "\"" + new UUID(msb, lsb) + "\"";
            }
            case INET: return r.nextBoolean() ? "\"10." + r.nextInt(256) + "." + r.nextInt(256) + ".1\"" : "\"::" + Integer.toHexString(r.nextInt(65536)) + "\"";
            case LIST:
            case SET: {
                StringBuilder sb = new StringBuilder("[");
                int n = r.nextInt(4);
                for (int i = 0; i < n; i++) sb.append(i == 0 ? "" : ",").append(json(r, t.elementType()));
                return sb.append(']').toString();
            }
            case MAP: {
                StringBuilder sb = new StringBuilder("{");
                int n = r.nextInt(4);
                List<String> keys = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    String k = mapKey(r, t.elementType());
                    if (keys.contains(k)) continue; // a duplicate JSON key is refused by design
                    keys.add(k);
                    sb.append(keys.size() == 1 ? "" : ",").append(k).append(':').append(json(r, t.valueType()));
                }
                return sb.append('}').toString();
            }
            case TUPLE: {
                StringBuilder sb = new StringBuilder("[");
                for (int i = 0; i < t.size(); i++) sb.append(i == 0 ? "" : ",").append(r.nextInt(5) == 0 ? "null" : json(r, t.component(i)));
                return sb.append(']').toString();
            }
            case UDT: {
                StringBuilder sb = new StringBuilder("{");
                for (int i = 0; i < t.size(); i++) {
                    if (r.nextInt(3) == 0) continue;
                    String name = t.fieldName(i);
                    String key = name.equals(name.toLowerCase(java.util.Locale.ROOT)) ? name : "\\\"" + name + "\\\"";
                    sb.append(sb.length() == 1 ? "" : ",").append('"').append(key).append("\":").append(json(r, t.component(i)));
                }
                return sb.append('}').toString();
            }
            case VECTOR: {
                StringBuilder sb = new StringBuilder("[");
                for (int i = 0; i < t.dimension(); i++) {
                    String e = json(r, t.elementType());
                    if (e.equals("\"NaN\"")) e = "1.5";
                    sb.append(i == 0 ? "" : ",").append(e);
                }
                return sb.append(']').toString();
            }
            case DURATION: {
                String[] d = {"\"1h30m\"", "\"-3d\"", "\"P1DT2H\"", "\"P0001-02-03T04:05:06\"", "\"2w\"", "\"\"", "\"1y2mo3d4h5m6s7ms8us9ns\""};
                return d[r.nextInt(d.length)];
            }
            default: throw new AssertionError(t);
        }
    }

    /** A map key is a JSON object key: a string holding the key type's literal (JSON text for a composite key type). */
    static String mapKey(Random r, CqlType t) {
        String v = json(r, t);
        if (!t.isNative()) return "\"" + v.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
        return v.startsWith("\"") ? v : "\"" + v + "\"";
    }

    /** A CQL literal of a native type, for an element in brackets: text quoted, other values as their JSON number or word. */
    static String cqlLiteral(Random r, CqlType t) {
        String v = json(r, t);
        if (v.startsWith("\"")) {
            String inner = v.substring(1, v.length() - 1);
            if (t.kind() == CqlType.Kind.UUID || t.kind() == CqlType.Kind.TIMEUUID || inner.startsWith("0x")) return inner;
            return "'" + inner.replace("'", "''") + "'";
        }
        return v;
    }

    static String word(Random r) {
        int n = 1 + r.nextInt(6);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) sb.append((char) ('a' + r.nextInt(26)));
        return sb.toString();
    }

    static String text(Random r) {
        String[] parts = {"a", "Zz", "\\n", "\\\"", "\\\\", "\\u00e9", "\\ud834\\udd1e", "\u00fc", "\u4e2d", " ", "\\/"};
        StringBuilder sb = new StringBuilder("\"");
        int n = 1 + r.nextInt(5);
        for (int i = 0; i < n; i++) sb.append(parts[r.nextInt(parts.length)]);
        return sb.append('"').toString();
    }

    static String keyFields(Random r, TableSchema s, int clusteringCount) {
        StringBuilder sb = new StringBuilder();
        for (ColumnMetadata c : s.partitionKeyColumns()) field(sb, c.name(), nonEmptyKey(r, c.type()));
        ColumnMetadata[] ck = s.clusteringColumns();
        for (int i = 0; i < clusteringCount; i++) field(sb, ck[i].name(), nonEmptyKey(r, ck[i].type()));
        return sb.toString();
    }

    /** A key value that is never empty (an empty partition key is refused). */
    static String nonEmptyKey(Random r, CqlType t) {
        while (true) {
            String v = json(r, t);
            if (!v.equals("\"\"") && !v.equals("\"0x\"") && !v.equals("{}") && !v.equals("[]")) return v;
        }
    }

    static void field(StringBuilder sb, String name, String value) {
        if (sb.length() > 0) sb.append(',');
        sb.append('"').append(name).append("\":").append(value);
    }

    static String validOperation(Random r, TableSchema s) {
        long ts = r.nextInt(1000) == 0 ? -5 : 1 + r.nextInt(1_000_000);
        ColumnMetadata[] ck = s.clusteringColumns();
        ColumnMetadata[] regular = s.regularColumns();
        ColumnMetadata[] statics = s.staticColumns();
        int kind = r.nextInt(10);
        if (kind < 5 || regular.length + statics.length == 0) {
            StringBuilder v = new StringBuilder(keyFields(r, s, ck.length));
            for (ColumnMetadata c : regular) if (r.nextInt(3) == 0) field(v, c.name(), r.nextInt(8) == 0 ? "null" : json(r, c.type()));
            for (ColumnMetadata c : statics) if (r.nextInt(3) == 0) field(v, c.name(), json(r, c.type()));
            String ttl = r.nextInt(5) == 0 ? ",\"ttl\":" + r.nextInt(100000) : "";
            return "{\"op\":\"insert\",\"timestamp\":" + ts + ttl + ",\"values\":{" + v + "}}";
        }
        if (kind < 8) {
            StringBuilder set = new StringBuilder();
            StringBuilder add = new StringBuilder();
            StringBuilder remove = new StringBuilder();
            for (ColumnMetadata c : regular) {
                int x = r.nextInt(3);
                CqlType t = c.type();
                if (x == 0) field(set, c.name(), json(r, t));
                else if (x == 1 && c.isComplex() && t.isCollection()) field(add, c.name(), json(r, t));
                else if (x == 2 && t.kind() == CqlType.Kind.UDT && t.isMultiCell()) {
                    // one field: addr.city, set or null
                    int f = r.nextInt(t.size());
                    String name = t.fieldName(f);
                    field(set, c.name() + "." + (name.equals(name.toLowerCase(java.util.Locale.ROOT)) ? name : "\\\"" + name + "\\\""),
                            r.nextInt(5) == 0 ? "null" : json(r, t.component(f)));
                } else if (x == 2 && t.kind() == CqlType.Kind.MAP && t.isMultiCell() && t.elementType().isNative()) {
                    if (r.nextBoolean()) field(set, c.name() + "[" + cqlLiteral(r, t.elementType()).replace("\\", "\\\\").replace("\"", "\\\"") + "]",
                            r.nextInt(5) == 0 ? "null" : json(r, t.valueType()));
                    else field(remove, c.name(), "[" + json(r, t.elementType()) + "]");
                } else if (x == 2 && t.kind() == CqlType.Kind.SET && t.isMultiCell()) {
                    field(remove, c.name(), json(r, t));
                }
            }
            if (set.length() == 0 && add.length() == 0 && remove.length() == 0) field(set, regular[0].name(), json(r, regular[0].type()));
            return "{\"op\":\"update\",\"timestamp\":" + ts + ",\"key\":{" + keyFields(r, s, ck.length) + "},"
                    + "\"set\":{" + set + "}" + (add.length() == 0 ? "" : ",\"add\":{" + add + "}")
                    + (remove.length() == 0 ? "" : ",\"remove\":{" + remove + "}") + "}";
        }
        int given = ck.length == 0 ? 0 : r.nextInt(ck.length + 1);
        String extra = "";
        if (given < ck.length && r.nextBoolean()) {
            ColumnMetadata c = ck[given];
            extra = ",\"range\":{\"" + c.name() + "\":{\"" + (r.nextBoolean() ? ">" : ">=") + "\":" + nonEmptyKey(r, c.type()) + "}}";
        } else if (given == ck.length && regular.length > 0 && r.nextBoolean()) {
            ColumnMetadata c = regular[r.nextInt(regular.length)];
            CqlType t = c.type();
            String name = c.name();
            if (t.kind() == CqlType.Kind.UDT && t.isMultiCell() && r.nextBoolean()) {
                String f = t.fieldName(r.nextInt(t.size()));
                name += "." + (f.equals(f.toLowerCase(java.util.Locale.ROOT)) ? f : "\\\"" + f + "\\\"");
            } else if ((t.kind() == CqlType.Kind.MAP || t.kind() == CqlType.Kind.SET) && t.isMultiCell() && t.elementType().isNative() && r.nextBoolean()) {
                name += "[" + cqlLiteral(r, t.elementType()).replace("\\", "\\\\").replace("\"", "\\\"") + "]";
            }
            extra = ",\"columns\":[\"" + name + "\"]";
        }
        return "{\"op\":\"delete\",\"timestamp\":" + Math.abs(ts) + ",\"key\":{" + keyFields(r, s, given) + "}" + extra + "}";
    }

    // ---- mutation -------------------------------------------------------------------------------

    static byte[] mutate(Random r, byte[] line) {
        byte[] b = line;
        int rounds = 1 + r.nextInt(3);
        for (int k = 0; k < rounds; k++) {
            int at = b.length == 0 ? 0 : r.nextInt(b.length + 1);
            switch (r.nextInt(8)) {
                case 0: // flip bits of one byte (may make invalid UTF-8; a '\n' would split the line, so skip it)
                    if (b.length > 0) {
                        int i = r.nextInt(b.length);
                        byte x = (byte) (b[i] ^ (1 << r.nextInt(8)));
                        if (x != '\n') b[i] = x;
                    }
                    break;
                case 1: // truncate
                    b = java.util.Arrays.copyOf(b, at);
                    break;
                case 2: // insert a token
                    b = insert(b, at, INSERTS[r.nextInt(INSERTS.length)].getBytes(StandardCharsets.UTF_8));
                    break;
                case 3: // delete a span
                    if (b.length > 0) {
                        int from = r.nextInt(b.length), to = Math.min(b.length, from + 1 + r.nextInt(8));
                        byte[] c = new byte[b.length - (to - from)];
                        System.arraycopy(b, 0, c, 0, from);
                        System.arraycopy(b, to, c, from, b.length - to);
                        b = c;
                    }
                    break;
                case 4: // raw invalid UTF-8 sequences: lone continuation, overlong NUL, CESU surrogate, 0xFF
                    byte[][] bad = {{(byte) 0x80}, {(byte) 0xC0, (byte) 0x80}, {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
                            {(byte) 0xFF}, {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, {(byte) 0xE2, (byte) 0x82}};
                    b = insert(b, at, bad[r.nextInt(bad.length)]);
                    break;
                case 5: { // deep nesting, past any depth limit
                    int depth = r.nextBoolean() ? 70 : 100_000;
                    String open = r.nextBoolean() ? "[" : "{\"a\":";
                    b = insert(b, at, open.repeat(depth).getBytes(StandardCharsets.UTF_8));
                    break;
                }
                case 6: { // a huge number, or a very long digit string
                    String n = r.nextBoolean() ? "1" + "0".repeat(r.nextBoolean() ? 5000 : 200_000)
                            : "1e" + (r.nextBoolean() ? "-" : "") + r.nextInt(Integer.MAX_VALUE);
                    if (r.nextInt(3) == 0) n = "\"" + n + "\""; // as a string: varint and decimal parse it
                    b = insert(b, at, n.getBytes(StandardCharsets.UTF_8));
                    break;
                }
                default: { // duplicate a span
                    if (b.length > 0) {
                        int from = r.nextInt(b.length), to = Math.min(b.length, from + 1 + r.nextInt(20));
                        b = insert(b, at, java.util.Arrays.copyOfRange(b, from, to));
                    }
                    break;
                }
            }
        }
        return b;
    }

    static byte[] insert(byte[] b, int at, byte[] what) {
        byte[] c = new byte[b.length + what.length];
        System.arraycopy(b, 0, c, 0, at);
        System.arraycopy(what, 0, c, at, what.length);
        System.arraycopy(b, at, c, at + what.length, b.length - at);
        return c;
    }

    /** Swaps the value of one JSON field for a value of another shape (wrong types). */
    static String wrongType(Random r, String line) {
        String[] values = {"\"abc\"", "1", "1.5", "true", "null", "[1,2]", "{\"x\":1}", "\"\"", "[]", "{}", "-1", "\"0xzz\"",
                "1e400", "\"NaN\"", "[null]", "{\"\":null}", "\"2024-13-45\"", "\"25:61:61\"", "\"::ffff:1.2.3.4\"",
                "\"00000000-0000-0000-0000-000000000000\"", "\"-1\"", "\"99999999999999999999\"", "\"1e9999999999\""};
        int colon = -1;
        for (int tries = 0; tries < 10; tries++) {
            int at = r.nextInt(line.length());
            int c = line.indexOf("\":", at);
            if (c > 0) {
                colon = c + 2;
                break;
            }
        }
        if (colon < 0) return line;
        int end = colon;
        // the value runs to the next ',' or '}' at this level (approximate is fine: any text is fair input)
        while (end < line.length() && line.charAt(end) != ',' && line.charAt(end) != '}') end++;
        return line.substring(0, colon) + values[r.nextInt(values.length)] + line.substring(end);
    }

    // ---- checks -------------------------------------------------------------------------------

    static final Pattern JSON_COLUMN = Pattern.compile("malformed JSON at column (\\d+): ");
    static final Pattern UTF8_BYTE = Pattern.compile("not valid UTF-8 at byte (\\d+) of the line");

    /** Whether the first {@code n} bytes of {@code line} are strict UTF-8 (a sequence cut at the end is not). */
    static boolean decodes(byte[] line, int n) {
        try {
            StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(line, 0, n));
            return true;
        } catch (java.nio.charset.CharacterCodingException e) {
            return false;
        }
    }

    /**
     * Reads {@code lines} as one file, skipping bad lines, and checks each outcome: a valid line
     * decodes; a refused line is named by its number, and a syntax error by a column inside it.
     */
    static int check(TableSchema schema, List<byte[]> lines, boolean[] mustDecode, String seedInfo) {
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        for (byte[] l : lines) {
            file.writeBytes(l);
            file.write('\n');
        }
        OperationReader reader = new OperationReader(schema, new ByteArrayInputStream(file.toByteArray()), "ops.jsonl", NOW);
        long lastLine = 0;
        int outcomes = 0, refusals = 0;
        while (true) {
            try {
                Mutation m = reader.next();
                if (m == null) break;
                outcomes++;
                assertTrue(reader.lineNumber() > lastLine, seedInfo);
                lastLine = reader.lineNumber();
            } catch (BadInputException e) {
                long n = e.lineNumber();
                assertTrue(n > lastLine && n <= lines.size(), seedInfo + ": line " + n + " after " + lastLine);
                lastLine = n;
                byte[] line = lines.get((int) n - 1);
                String shown = shown(line);
                if (mustDecode[(int) n - 1]) fail(seedInfo + ": a valid line was refused: " + e.getMessage() + "\n  " + shown);
                assertTrue(e.getMessage().startsWith("ops.jsonl:" + n + ": "), seedInfo + ": " + e.getMessage());
                assertEquals(e.getMessage(), "ops.jsonl:" + n + ": " + e.detail());
                assertFalse(e.detail().isEmpty(), seedInfo);
                assertTrue(e.getMessage().length() < 2000, seedInfo + ": a message that floods the terminal: "
                        + e.getMessage().length() + " chars: " + shown(e.getMessage().getBytes(StandardCharsets.UTF_8)) + "\n  " + shown);
                Matcher um = UTF8_BYTE.matcher(e.detail());
                if (um.matches()) {
                    // the named byte is where valid UTF-8 stops: everything before it decodes
                    int at = Integer.parseInt(um.group(1));
                    int len = line.length > 0 && line[line.length - 1] == '\r' ? line.length - 1 : line.length;
                    assertTrue(at >= 1 && at <= len, seedInfo + ": " + e.getMessage());
                    assertTrue(decodes(line, at - 1), seedInfo + ": bytes before " + at + " do not decode: " + e.getMessage());
                    assertFalse(decodes(line, len), seedInfo + ": the line decodes: " + e.getMessage());
                }
                Matcher cm = JSON_COLUMN.matcher(e.detail());
                if (cm.lookingAt()) {
                    int column = Integer.parseInt(cm.group(1));
                    int chars = new String(line, StandardCharsets.UTF_8).length();
                    assertTrue(column >= 1 && column <= chars + 1, seedInfo + ": column " + column + " of a " + chars
                            + "-char line: " + e.getMessage() + "\n  " + shown);
                }
                outcomes++;
                refusals++;
            } catch (Throwable t) {
                throw new AssertionError(seedInfo + ": internal error at line " + (reader.lineNumber()) + ": " + t + "\n  "
                        + shown(lines.get((int) Math.max(0, Math.min(lines.size() - 1, reader.lineNumber() - 1)))), t);
            }
        }
        assertTrue(outcomes <= lines.size(), seedInfo);
        return refusals;
    }

    static String shown(byte[] line) {
        String s = new String(line, StandardCharsets.UTF_8);
        return s.length() > 300 ? s.substring(0, 300) + "... (" + s.length() + " chars)" : s;
    }

    // ---- tests -------------------------------------------------------------------------------------

    @Test
    void validOperationsDecode() {
        for (int si = 0; si < SCHEMAS.length; si++) {
            TableSchema schema = CqlParser.parse(SCHEMAS[si]);
            for (int seed = 0; seed < 40; seed++) {
                Random r = new Random(seed * 31L + si);
                List<byte[]> lines = new ArrayList<>();
                boolean[] must = new boolean[100];
                for (int i = 0; i < 100; i++) {
                    lines.add(validOperation(r, schema).getBytes(StandardCharsets.UTF_8));
                    must[i] = true;
                }
                check(schema, lines, must, "schema " + si + " seed " + seed);
            }
        }
    }

    @Test
    void mutatedOperationsDecodeOrAreNamedBadInput() {
        int refused = 0, lineCount = 0;
        for (int si = 0; si < SCHEMAS.length; si++) {
            TableSchema schema = CqlParser.parse(SCHEMAS[si]);
            for (int seed = 0; seed < 100; seed++) {
                Random r = new Random(1000 + seed * 31L + si);
                List<byte[]> lines = new ArrayList<>();
                boolean[] must = new boolean[60];
                for (int i = 0; i < 60; i++) {
                    String valid = validOperation(r, schema);
                    int how = r.nextInt(4);
                    if (how == 0) {
                        lines.add(valid.getBytes(StandardCharsets.UTF_8));
                        must[i] = true;
                    } else if (how == 1) {
                        lines.add(wrongType(r, valid).getBytes(StandardCharsets.UTF_8));
                    } else {
                        lines.add(mutate(r, valid.getBytes(StandardCharsets.UTF_8)));
                    }
                }
                refused += check(schema, lines, must, "schema " + si + " seed " + seed);
                lineCount += lines.size();
            }
        }
        // most mutations break the line, some leave it valid: both outcomes are exercised
        assertTrue(refused > lineCount / 2 && refused < lineCount, refused + " of " + lineCount + " refused");
    }

    @Test
    void deepNestingAndHugeNumbersAreNamedBadInput() throws Exception {
        TableSchema schema = CqlParser.parse(SCHEMAS[0]);
        String[] lines = {
                "[".repeat(100_000),
                "{\"a\":".repeat(100_000),
                "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":1,\"ck\":\"a\",\"ck2\":1,\"l\":" + "[".repeat(100_000) + "}}",
                "{\"op\":\"insert\",\"timestamp\":1e999999999,\"values\":{}}",
                "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":1,\"ck\":\"a\",\"ck2\":1,\"vi\":1e999999999}}",
                "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":1,\"ck\":\"a\",\"ck2\":1,\"n\":1e-999999999}}",
                "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":1,\"ck\":\"a\",\"ck2\":1,\"de\":1e2147483648}}",
                "{\"op\":\"insert\",\"timestamp\":1,\"ttl\":-1e999999999,\"values\":{}}",
                "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":1,\"ck\":\"a\",\"ck2\":NaN}}",
        };
        List<byte[]> bytes = new ArrayList<>();
        for (String l : lines) bytes.add(l.getBytes(StandardCharsets.UTF_8));
        check(schema, bytes, new boolean[lines.length], "fixed lines");
        // each of them is refused, none decodes
        OperationReader reader = new OperationReader(schema,
                new ByteArrayInputStream(String.join("\n", lines).getBytes(StandardCharsets.UTF_8)), "ops.jsonl", NOW);
        int refusals = 0;
        while (true) {
            try {
                if (reader.next() == null) break;
                fail("decoded line " + reader.lineNumber());
            } catch (BadInputException e) {
                refusals++;
            }
        }
        assertEquals(lines.length, refusals);
    }

    @TempDir
    Path tmp;

    /** The CLI on mutated files: exit 0 or 1, never 2, and no stack trace on stderr. */
    @Test
    void loadCommandNeverFailsInternallyOnMutatedInput() throws Exception {
        Path schemaFile = tmp.resolve("t.cql");
        Files.writeString(schemaFile, SCHEMAS[0]);
        TableSchema schema = CqlParser.parse(SCHEMAS[0]);
        for (int seed = 0; seed < 8; seed++) {
            Random r = new Random(5000 + seed);
            ByteArrayOutputStream file = new ByteArrayOutputStream();
            for (int i = 0; i < 40; i++) {
                String valid = validOperation(r, schema);
                byte[] line = r.nextInt(3) == 0 ? valid.getBytes(StandardCharsets.UTF_8) : mutate(r, valid.getBytes(StandardCharsets.UTF_8));
                file.writeBytes(line);
                file.write('\n');
            }
            Path input = tmp.resolve("ops-" + seed + ".jsonl");
            Files.write(input, file.toByteArray());
            String[] maxErrors = seed % 2 == 0 ? new String[0] : new String[] {"--max-errors", "1000"};
            List<String> args = new ArrayList<>(List.of("load", "--schema", schemaFile.toString(), "--input", input.toString(),
                    "--out", tmp.resolve("out-" + seed).toString(), "--now", Long.toString(NOW)));
            args.addAll(List.of(maxErrors));
            ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
            int status = Main.run(args.toArray(new String[0]), new ByteArrayInputStream(new byte[0]),
                    new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
            String stderr = err.toString(StandardCharsets.UTF_8);
            String info = "seed " + seed + " status " + status + "\n" + stderr;
            assertTrue(status == 0 || status == 1, info);
            assertFalse(stderr.contains("\tat "), info);
            assertFalse(stderr.contains("Exception in thread"), info);
            if (status == 1) assertTrue(stderr.contains(input + ":"), "the bad line is named: " + info);
        }
    }
}

package dev.flushline.ops;

import dev.flushline.data.Mutation;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link CsvReader} record by record: the tokenizing (quotes, escapes, line ends, BOM, blank
 * lines), the columns (header, --columns, the table's order), nulls and empty fields, the COPY
 * literals of composites, and bad records with their lines and messages. A row is checked against
 * the mutation of the equivalent JSON Lines insert, decoded by the same decoder class, so the CSV
 * side is held to the semantics the oracle tests hold the JSON side to.
 */
class CsvReaderTest {
    static final String SCHEMA = "CREATE TYPE ks.addr (street text, zip int);\n"
            + "CREATE TABLE ks.t (k int, c text, v int, s text static, txt text, b blob, flag boolean, d double, tags set<text>,"
            + " l list<int>, m map<text, int>, a addr, fa frozen<addr>, tu tuple<int, text>, \"Mixed\" int, PRIMARY KEY (k, c))";
    static final TableSchema TABLE = CqlParser.parse(SCHEMA);
    static final long NOW = 1_750_000_000L;
    static final long TS = 1_750_000_000_000_000L;

    static OperationDecoder decoder() {
        OperationDecoder d = new OperationDecoder(TABLE, NOW);
        d.seedListPaths(7);
        return d;
    }

    static CsvOptions.Builder opts() {
        return CsvOptions.builder(TS);
    }

    /** Every record read: a mutation's text, or "ERR line: detail" (reading goes on after a skippable one). */
    static List<String> read(String csv, CsvOptions options) throws IOException, BadInputException {
        return read(csv.getBytes(StandardCharsets.UTF_8), options, CsvReader.MAX_FIELD_CHARS);
    }

    static List<String> read(byte[] csv, CsvOptions options, int maxFieldChars) throws IOException, BadInputException {
        List<String> out = new ArrayList<>();
        try (CsvReader r = new CsvReader(new ByteArrayInputStream(csv), "in.csv", decoder(), options, maxFieldChars)) {
            while (true) {
                try {
                    Mutation m = r.next();
                    if (m == null) break;
                    out.add(r.lineNumber() + ": " + m);
                } catch (BadInputException e) {
                    assertEquals("in.csv:" + e.lineNumber() + ": " + e.detail(), e.getMessage());
                    out.add("ERR " + e.lineNumber() + (e.skippable() ? "" : " (stop)") + ": " + e.detail());
                    if (!e.skippable()) break;
                }
            }
        }
        return out;
    }

    /** The mutation of one JSON Lines insert of {@code values} (a JSON object's text), at TS and {@code ttl} (null: none given). */
    static String json(long line, String values, Integer ttl) throws IOException, BadInputException {
        String op = "{\"op\":\"insert\",\"timestamp\":" + TS + (ttl == null ? "" : ",\"ttl\":" + ttl) + ",\"values\":" + values + "}";
        OperationReader r = new OperationReader(TABLE, new ByteArrayInputStream(op.getBytes(StandardCharsets.UTF_8)), "j", decoder());
        return line + ": " + r.next();
    }

    static String json(long line, String values) throws IOException, BadInputException {
        return json(line, values, null);
    }

    @Test
    void quotesEscapesAndLineEnds() throws Exception {
        String csv = "k,c,txt\n"
                + "1,a,\"x,y\"\n"                 // 2: a delimiter inside quotes
                + "1,b,\"say \\\"hi\\\"\"\n"       // 3: an escaped quote
                + "1,c,\"say \"\"hi\"\"\"\n"       // 4: a doubled quote
                + "1,d,back\\\\slash\\,comma\n"     // 5: an escaped escape and delimiter outside quotes
                + "1,e,\"two\nlines\"\n"           // 6-7: a line end inside quotes
                + "1,f,tab\\there\\x\n"            // 8: \t is a tab, \x is x
                + "1,g, spaced \n"                  // 9: text keeps its spaces
                + "1,h,'quoted'\n";                 // 10: text is never unquoted
        List<String> expected = List.of(json(2, "{\"k\":1,\"c\":\"a\",\"txt\":\"x,y\"}"),
                json(3, "{\"k\":1,\"c\":\"b\",\"txt\":\"say \\\"hi\\\"\"}"),
                json(4, "{\"k\":1,\"c\":\"c\",\"txt\":\"say \\\"hi\\\"\"}"),
                json(5, "{\"k\":1,\"c\":\"d\",\"txt\":\"back\\\\slash,comma\"}"),
                json(6, "{\"k\":1,\"c\":\"e\",\"txt\":\"two\\nlines\"}"),
                json(8, "{\"k\":1,\"c\":\"f\",\"txt\":\"tab\\therex\"}"),
                json(9, "{\"k\":1,\"c\":\"g\",\"txt\":\" spaced \"}"),
                json(10, "{\"k\":1,\"c\":\"h\",\"txt\":\"'quoted'\"}"));
        assertEquals(expected, read(csv, opts().build()));
        // The same with CRLF line ends (also inside the quoted field: it keeps its CR LF), and with a lone CR.
        List<String> crlf = read(csv.replace("\n", "\r\n"), opts().build());
        assertEquals(json(6, "{\"k\":1,\"c\":\"e\",\"txt\":\"two\\r\\nlines\"}"), crlf.get(4));
        assertEquals(expected.subList(5, 8), crlf.subList(5, 8));
        assertEquals(List.of(json(2, "{\"k\":1,\"c\":\"a\",\"txt\":\"x\"}"), json(3, "{\"k\":1,\"c\":\"b\",\"txt\":\"y\"}")),
                read("k,c,txt\r1,a,x\r1,b,y", opts().build()), "CR alone ends a line; the last line needs no line end");
    }

    @Test
    void byteOrderMarkAndBlankLines() throws Exception {
        assertEquals(List.of(json(2, "{\"k\":1,\"c\":\"a\",\"txt\":\"x\"}"), json(5, "{\"k\":2,\"c\":\"b\",\"txt\":\"y\"}")),
                read("\uFEFFk,c,txt\n1,a,x\n\n\r\n2,b,y\n\n", opts().build()));
    }

    @Test
    void dialects() throws Exception {
        String expected = json(2, "{\"k\":1,\"c\":\"a\",\"txt\":\"x;y'z\"}");
        assertEquals(List.of(expected), read("k;c;txt\n1;a;'x;y''z'\n", opts().delimiter(';').quote('\'').escape('\'').build()),
                "escape = quote: only doubled quotes");
        assertEquals(List.of(expected), read("k;c;txt\n1;a;'x;y\\'z'\n", opts().delimiter(';').quote('\'').build()));
        assertEquals(List.of(json(2, "{\"k\":1,\"c\":\"a\",\"txt\":\"x\\\\y\"}")),
                read("k\tc\ttxt\n1\ta\tx\\y\n", opts().delimiter('\t').escape(CsvOptions.NO_ESCAPE).build()), "no escape: \\ is a character");
        assertThrows(IllegalArgumentException.class, () -> opts().delimiter('"').build());
        assertThrows(IllegalArgumentException.class, () -> opts().escape(',').build());
        assertThrows(IllegalArgumentException.class, () -> opts().quote('\n').build());
    }

    @Test
    void nullsAndEmptyFields() throws Exception {
        // The empty marker (cqlsh's default): an empty field, quoted or not, is null: a tombstone.
        assertEquals(List.of(json(2, "{\"k\":1,\"c\":\"a\",\"txt\":null,\"v\":null}"), json(3, "{\"k\":1,\"c\":\"b\",\"txt\":null,\"v\":null}")),
                read("k,c,txt,v\n1,a,,\n1,b,\"\",\"\"\n", opts().build()));
        // --nulls unset: nothing is written for a null.
        assertEquals(List.of(json(2, "{\"k\":1,\"c\":\"a\"}"), json(3, "{\"k\":1,\"c\":\"b\",\"v\":3}")),
                read("k,c,txt,v\n1,a,,\n1,b,,3\n", opts().nullsUnset(true).build()));
        // Another marker: the marker is null; an empty field is '' for text, an empty blob, false, and null for the rest.
        assertEquals(List.of(json(2, "{\"k\":1,\"c\":\"\",\"txt\":\"\",\"b\":\"0x\",\"flag\":false,\"v\":null,\"d\":null,\"l\":null,"
                        + "\"a\":null,\"tu\":null}"),
                        json(3, "{\"k\":1,\"c\":\"x\",\"txt\":null,\"b\":null,\"flag\":null,\"v\":null,\"d\":null,\"l\":null,\"a\":null,\"tu\":null}"),
                        json(4, "{\"k\":1,\"c\":\"y\",\"txt\":\"null\",\"b\":\"0x01\",\"flag\":true,\"v\":1,\"d\":1.5,\"l\":[],\"a\":{},\"tu\":[null,null]}")),
                read("k,c,txt,b,flag,v,d,l,a,tu\n1,,,,,,,,,\n1,x,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL\n"
                        + "1,y,null,0x01,True,1,1.5,[],{},\"(NULL, )\"\n", opts().nullMarker("NULL").build()));
        // A primary key column may not be null; how to load an empty string is said with the default marker.
        assertEquals(List.of("ERR 2: column 'k' (int): the empty field is null, which a primary key column cannot be (to load empty "
                        + "strings, choose another null marker with --null)",
                        "ERR 3: column 'c' (text): the field is the null marker \"-\", null, which a primary key column cannot be"),
                List.of(read("k,c\n,a\n", opts().build()).get(0), read("k,c\n1,a\n1,-\n", opts().nullMarker("-").build()).get(1)));
    }

    @Test
    void compositesInCopyForm() throws Exception {
        assertEquals(List.of(json(2, "{\"k\":1,\"c\":\"a\",\"tags\":[\"x\",\"y, z\"],\"l\":[3,1,3],\"m\":{\"k\":1,\"it's\":-2},"
                        + "\"a\":{\"street\":\"Main\",\"zip\":75001},\"fa\":{\"zip\":1},\"tu\":[1,\"x\"]}"),
                        json(3, "{\"k\":1,\"c\":\"b\",\"tags\":[],\"l\":[],\"m\":{},\"a\":{\"zip\":2},\"fa\":{\"street\":\"\"},\"tu\":[null,\"\"]}")),
                read("k,c,tags,l,m,a,fa,tu\n"
                        + "1,a,\"{'x', 'y, z'}\",\"[3, 1, 3]\",\"{'k': 1, 'it''s': -2}\",\"{street: 'Main', zip: 75001}\",{zip: 1},\"(1, 'x')\"\n"
                        + "1,b,{},[],{},\"{street: , zip: 2}\",\"{street: '', zip: null}\",\"(null, '')\"\n", opts().build()));
        List<String> bad = read("k,c,tags,l,m,a,tu\n"
                + "1,a,{x},[],{},{},\"(1, 'x')\"\n"
                + "1,b,{},\"[1, 'a']\",{},{},\"(1, 'x')\"\n"
                + "1,c,{},[],{},{town: 'x'},\"(1, 'x')\"\n"
                + "1,d,{},[],{},{},\"(1, 'x', 2)\"\n"
                + "1,e,{},\"[1, ]\",{},{},\"(1, 'x')\"\n"
                + "1,f,{},[''],{},{},\"(1, 'x')\"\n"
                + "1,g,{},null,{},{},\"(1, 'x')\"\n"
                + "1,h,{},[],{null: 1},{},\"(1, 'x')\"\n"
                + "1,i,{},[],{'k': null},{},\"(1, 'x')\"\n", opts().build());
        assertEquals(List.of(
                "ERR 2: column 'tags' (set<text>): \"{x}\" is not a set<text> ('x' at index 1 is not quoted: a text inside a composite is "
                        + "written in single quotes, as 'x')",
                "ERR 3: column 'l' (list<int>): \"a\" is not an int",
                "ERR 4: column 'a' (addr): \"{town: 'x'}\" is not an addr (type addr has no field town)",
                "ERR 5: column 'tu' (tuple<int, text>): \"(1, 'x', 2)\" is not a tuple<int, text> (more components than the 2 of "
                        + "tuple<int, text>)",
                "ERR 6: column 'l' (list<int>): \"[1, ]\" is not a list<int> (expected a literal at index 4, found ']')",
                "ERR 7: column 'l' (list<int>): \"['']\" is not a list<int> (empty value '' at index 1; an int inside a composite may not be empty)",
                "ERR 8: column 'l' (list<int>): \"null\" is not a list<int> (a null value is written as the null marker, an empty field)",
                "ERR 9: column 'm' (map<text, int>): \"{null: 1}\" is not a map<text, int> (null at index 1 is not allowed as a key of a "
                        + "map<text, int>)",
                "ERR 10: column 'm' (map<text, int>): null is not allowed as a value of a map<text, int>"),
                bad);
    }

    @Test
    void exactCaseFieldNamesOfCopyTo() throws Exception {
        TableSchema t = CqlParser.parse("CREATE TYPE ks.m (\"Zip\" int, zip text);\nCREATE TABLE ks.u (k int PRIMARY KEY, f frozen<m>)");
        OperationDecoder d = new OperationDecoder(t, NOW);
        CsvReader r = CsvReader.ofString("k,f\n1,\"{Zip: 1, zip: 'a'}\"\n", "in.csv", d, opts().build());
        OperationReader j = OperationReader.ofString(t, "{\"op\":\"insert\",\"timestamp\":" + TS
                + ",\"values\":{\"k\":1,\"f\":{\"\\\"Zip\\\"\":1,\"zip\":\"a\"}}}", "j", NOW);
        assertEquals(j.next().toString(), r.next().toString());
    }

    @Test
    void timestampAndTtlOfEveryRow() throws Exception {
        String csv = "k,c,v,l\n1,a,5,[1]\n2,b,6,[]\n";
        assertEquals(List.of(json(2, "{\"k\":1,\"c\":\"a\",\"v\":5,\"l\":[1]}", 500), json(3, "{\"k\":2,\"c\":\"b\",\"v\":6,\"l\":[]}", 500)),
                read(csv, opts().ttlSeconds(500).build()));
        List<String> rows = read(csv, opts().build());
        assertTrue(rows.get(0).contains("ts=" + TS + " ["), rows.get(0));
        assertTrue(rows.get(0).contains("deletedAt=" + (TS - 1)) || rows.get(0).contains(Long.toString(TS - 1)),
                "a collection is replaced: its deletion one microsecond before the row: " + rows.get(0));
        assertThrows(IllegalArgumentException.class, () -> opts().ttlSeconds(630_720_001).build());
    }

    @Test
    void headerColumnsAndTableOrder() throws Exception {
        String row = json(2, "{\"k\":1,\"c\":\"a\",\"v\":2,\"Mixed\":3}");
        assertEquals(List.of(row), read("k,c,v,Mixed\n1,a,2,3\n", opts().build()), "exact names");
        assertEquals(List.of(row), read("K, C ,V,\"\"\"Mixed\"\"\"\n1,a,2,3\n", opts().build()),
                "unquoted names in any case, spaces around them, a quoted name as CQL writes it");
        assertEquals(List.of(row.replace("2: ", "1: ")), read("1,a,2,3\n", opts().columns(List.of("k", "c", "v", "Mixed")).build()),
                "--columns: no header line");
        assertEquals(List.of(row), read("whatever,is,here,x\n1,a,2,3\n", opts().columns(List.of("k", "c", "v", "Mixed")).header(true).build()),
                "--columns and a header: the header line is skipped");
        List<String> order = new ArrayList<>();
        for (ColumnMetadata c : CsvReader.tableOrder(TABLE)) order.add(c.name());
        assertEquals(List.of("k", "c", "Mixed", "a", "b", "d", "fa", "flag", "l", "m", "s", "tags", "tu", "txt", "v"), order,
                "cqlsh's order: keys, then the rest by name (UTF-8 bytes: upper case first)");
        assertEquals(List.of(json(1, "{\"k\":1,\"c\":\"a\",\"Mixed\":null,\"a\":null,\"b\":null,\"d\":null,\"fa\":null,\"flag\":null,"
                        + "\"l\":null,\"m\":null,\"s\":\"st\",\"tags\":null,\"tu\":null,\"txt\":null,\"v\":9}")),
                read("1,a,,,,,,,,,st,,,,9\n", opts().header(false).build()));
        assertEquals(List.of(), read("", opts().build()), "an empty input: nothing to load");
        assertEquals(List.of(), read("k,c\n", opts().build()), "a header alone");
    }

    @Test
    void headerThatDoesNotFitRefusesTheWholeInput() {
        String[][] cases = {
                {"k,c,nosuch\n1,a,2\n", "in.csv:1: header: \"nosuch\" is not a column of table ks.t (its columns: k, c, Mixed, a, b, d, fa, "
                        + "flag, l, m, s, tags, tu, txt, v); nothing was loaded"},
                {"k,v\n1,2\n", "in.csv:1: header: the clustering column 'c' (text) is missing; every row gives the whole primary key (k, c); "
                        + "nothing was loaded"},
                {"c,v\n", "in.csv:1: header: the partition key column 'k' (int) is missing; every row gives the whole primary key (k, c); "
                        + "nothing was loaded"},
                {"\n\nk,c,v,V\n", "in.csv:3: header: column 'v' is named twice (columns 3 and 4); nothing was loaded"},
                {"k,c,,v\n", "in.csv:1: header: column 3 has no name; nothing was loaded"},
                {"mixed,k,c\n", "in.csv:1: header: \"mixed\" is not a column of table ks.t"},
        };
        for (String[] c : cases) {
            BadInputException e = assertThrows(BadInputException.class, () -> read(c[0], opts().build()), c[0]);
            assertFalse(e.skippable(), c[0]);
            assertTrue(e.getMessage().startsWith(c[1]), c[0] + "\n -> " + e.getMessage());
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> read("1,2\n", opts().columns(List.of("k", "v")).build()));
        assertTrue(e.getMessage().startsWith("--columns: the clustering column 'c' (text) is missing"), e.getMessage());
    }

    @Test
    void badRecordsAreNamedAndSkipped() throws Exception {
        List<String> got = read("k,c,v\n"
                + "1,a\n"                     // 2: too few fields
                + "1,b,2,3\n"                 // 3: too many
                + "1,c,abc\n"                 // 4: not an int
                + "1,d,\"2\"x\n"              // 5: text after a closing quote
                + "\"1\n\",e,3\n"             // 6-7: a multi-line record; the int's line end is dropped as spaces are
                + "1,f, 7 \n"                 // 8: spaces around a number are dropped
                + "1,g,99999999999\n", opts().build());
        assertEquals(List.of(
                "ERR 2: the record has 2 fields, expected 3 (k, c, v)",
                "ERR 3: the record has 4 fields, expected 3 (k, c, v)",
                "ERR 4: column 'v' (int): \"abc\" is not an int",
                "ERR 5: malformed CSV at line 5, column 8: Unexpected character ('x' (code 120)): Expected column separator character "
                        + "(',' (code 44)) or end-of-line (quote '\"', delimiter ',', escape '\\')",
                json(6, "{\"k\":1,\"c\":\"e\",\"v\":3}"),
                json(8, "{\"k\":1,\"c\":\"f\",\"v\":7}"),
                "ERR 9: column 'v' (int): \"99999999999\" is not an int (out of range)"), got);
    }

    @Test
    void readingStopsWhereTheInputCannotBeReadOn() throws Exception {
        // A quote never closed: named at the line where its record starts.
        assertEquals(List.of(json(2, "{\"k\":1,\"c\":\"a\",\"txt\":\"x\"}"),
                "ERR 3 (stop): a quoted field of the record that starts on this line is not closed before the end of the input"),
                read("k,c,txt\n1,a,x\n1,b,\"y\n1,c,z\n", opts().build()));
        // A field past the limit, quoted or not.
        for (String field : new String[] {"\"01234\n567890123\"", "01234567890123"}) {
            assertEquals(List.of(json(2, "{\"k\":1,\"c\":\"a\",\"txt\":\"x\"}"),
                    "ERR 3 (stop): a field longer than the limit of 10 chars (a quote that is never closed?)"),
                    read(("k,c,txt\n1,a,x\n1,b," + field + "\n1,c,y\n").getBytes(StandardCharsets.UTF_8), opts().build(), 10));
        }
        // Bytes that are not UTF-8, far past the tokenizer's buffer: named by their own line and byte; the rows before are read.
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes("k,c,txt\n".getBytes(StandardCharsets.UTF_8));
        for (int i = 0; i < 5000; i++) b.writeBytes(("1," + i + ",é\n").getBytes(StandardCharsets.UTF_8));
        b.writeBytes(new byte[] {'1', ',', 'z', ',', 'a', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '\n'}); // an encoded surrogate
        b.writeBytes("1,zz,b\n".getBytes(StandardCharsets.UTF_8));
        List<String> got = read(b.toByteArray(), opts().build(), CsvReader.MAX_FIELD_CHARS);
        assertEquals(5001, got.size());
        assertEquals("ERR 5002 (stop): not valid UTF-8 at byte 6 of the line", got.get(5000));
        for (byte[] bad : new byte[][] {{(byte) 0xC0, (byte) 0x80}, {(byte) 0xFF}, {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80},
                {(byte) 0xE2, (byte) 0x82}, {(byte) 0x80}}) {
            ByteArrayOutputStream one = new ByteArrayOutputStream();
            one.writeBytes("k,c,txt\r\n1,\"a\nb\",x\r\n1,b,".getBytes(StandardCharsets.UTF_8));
            one.writeBytes(bad);
            List<String> r = read(one.toByteArray(), opts().build(), CsvReader.MAX_FIELD_CHARS);
            assertEquals("ERR 4 (stop): not valid UTF-8 at byte 5 of the line", r.get(r.size() - 1), r.toString());
        }
        // Long ASCII runs (the check takes eight bytes at a time) and lines ended by CR alone before the bad byte.
        ByteArrayOutputStream longLines = new ByteArrayOutputStream();
        longLines.writeBytes("k,c,txt\r1,a,0123456789abcdefghijklmnopqrstuvwxyz\r\n1,b,0123456789abcdefghijklmnop\r".getBytes(StandardCharsets.UTF_8));
        longLines.writeBytes("1,c,0123456789abcdefghijklmnopqrstuvwxyz0123456789".getBytes(StandardCharsets.UTF_8));
        longLines.writeBytes(new byte[] {(byte) 0xFF, '\n'});
        List<String> r = read(longLines.toByteArray(), opts().build(), CsvReader.MAX_FIELD_CHARS);
        assertEquals("ERR 4 (stop): not valid UTF-8 at byte 51 of the line", r.get(r.size() - 1), r.toString());
    }

    @Test
    void valueOfEachNativeTypeIsTrimmedButTextIsNot() {
        UnaryOperator<String> f = s -> String.valueOf(CsvReader.value(TABLE.column("v").type(), s, ""));
        assertEquals("42", f.apply(" 42\t"));
        assertEquals(" a ", CsvReader.value(TABLE.column("txt").type(), " a ", ""));
        assertEquals("0xAB", CsvReader.value(TABLE.column("b").type(), "0XAB", ""));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> f.apply("   "));
        assertEquals("\"   \" is not an int (only spaces)", e.getMessage());
    }
}

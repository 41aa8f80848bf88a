package dev.flushline.cli;

import dev.flushline.Main;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.Cell;
import dev.flushline.oracle.ColumnData;
import dev.flushline.oracle.Partition;
import dev.flushline.oracle.Row;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;

import org.junit.jupiter.api.BeforeAll;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code flushline load --format csv} end to end: the options, the header refused up front, bad
 * lines counted against {@code --max-errors}, the printed write time, stdin, the example file;
 * read back by cassandra-all 5.0.9.
 */
class LoadCsvTest {
    static final long NOW = 1_750_000_000L;
    static final long TS = 1_750_000_000_000_000L;
    static final String CQL = "CREATE TABLE ks.people (id int, seq int, name text, age int, tags set<text>, PRIMARY KEY (id, seq))";

    @TempDir
    Path tmp;

    @BeforeAll
    static void init() {
        CassandraOracle.init();
    }

    record Result(int status, String out, String err) {}

    static Result main(String stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int status = Main.run(args, new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    Path write(String name, String text) throws IOException {
        return Files.writeString(tmp.resolve(name), text, StandardCharsets.UTF_8);
    }

    Result load(String csv, String... more) throws IOException {
        Path schema = write("schema.cql", CQL);
        Path input = write("people.csv", csv);
        List<String> argv = new ArrayList<>(List.of("load", "--format", "csv", "--schema", schema.toString(), "--input", input.toString(),
                "--out", tmp.resolve("out").toString(), "--now", Long.toString(NOW)));
        argv.addAll(List.of(more));
        return main("", argv.toArray(new String[0]));
    }

    Path tableDir() {
        return CqlParser.parse(CQL).directoryUnder(tmp.resolve("out"));
    }

    /** The rows read back, as "id/seq name age" with the write time of the row's liveness. */
    List<String> rows() {
        List<String> out = new ArrayList<>();
        for (Partition p : CassandraReader.readAll(tableDir(), CQL)) {
            for (Row r : p.rows()) {
                StringBuilder sb = new StringBuilder().append(p.key().toArray()[3]).append('/').append(r.clustering().get(0).toArray()[3]);
                for (ColumnData cd : r.columns()) {
                    if (cd instanceof Cell) {
                        Cell c = (Cell) cd;
                        byte[] v = c.value().toArray();
                        sb.append(' ').append(c.column()).append('=').append(c.isTombstone() ? "tombstone" : c.column().equals("age")
                                ? Integer.toString(java.nio.ByteBuffer.wrap(v).getInt()) : new String(v, StandardCharsets.UTF_8));
                    }
                }
                out.add(sb.append(" @").append(r.liveness().timestamp()).toString());
            }
        }
        out.sort(null);
        return out;
    }

    @Test
    void loadsRowsAndSaysTheWriteTimeItTook() throws IOException {
        Result r = load("id,seq,name\n1,1,ann\n1,2,bob\n2,1,\n");
        assertEquals(0, r.status(), r.err());
        Matcher m = Pattern.compile("the CSV rows are written at --timestamp (\\d+) \\(microseconds, the clock now\\)").matcher(r.err());
        assertTrue(m.find(), r.err());
        long ts = Long.parseLong(m.group(1));
        assertTrue(Math.abs(ts / 1000 - System.currentTimeMillis()) < 600_000, "the clock: " + ts);
        assertTrue(r.out().contains("Loaded 3 operations from " + tmp.resolve("people.csv") + " (4 lines read, 0 bad lines skipped"), r.out());
        assertEquals(List.of("1/1 name=ann @" + ts, "1/2 name=bob @" + ts, "2/1 name=tombstone @" + ts), rows());

        // Given, it is used and not printed; with --ttl the row expires.
        Files.walk(tmp.resolve("out")).sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        r = load("id,seq,age\n3,1,30\n", "--timestamp", Long.toString(TS), "--ttl", "3600");
        assertEquals(0, r.status(), r.err());
        assertEquals("", r.err());
        assertEquals(List.of("3/1 age=30 @" + TS), rows());
        Row row = CassandraReader.readAll(tableDir(), CQL).get(0).rows().get(0);
        assertEquals(3600, row.liveness().ttl());
    }

    @Test
    void badLinesCountAgainstMaxErrors() throws IOException {
        String csv = "id,seq,name,age\n1,1,a,1\n1,2,b\n1,3,c,x\n1,4,d,4\n\"5\",5,e,\"5\"x\n1,6,f,6\n";
        Result r = load(csv, "--timestamp", Long.toString(TS), "--max-errors", "2");
        assertEquals(1, r.status(), r.err());
        String in = tmp.resolve("people.csv").toString();
        assertTrue(r.err().contains(in + ":3: the record has 3 fields, expected 4 (id, seq, name, age)\n"), r.err());
        assertTrue(r.err().contains(in + ":4: column 'age' (int): \"x\" is not an int\n"), r.err());
        assertTrue(r.err().contains(in + ":6: malformed CSV at line 6, column 12: Unexpected character ('x' (code 120))"), r.err());
        assertTrue(r.err().contains("flushline load: stopped at " + in + ":6 (more than --max-errors 2 bad lines); the 2 operations "
                + "before it are in the sstables"), r.err());
        assertEquals(List.of("1/1 age=1 name=a @" + TS, "1/4 age=4 name=d @" + TS), rows());

        Files.walk(tmp.resolve("out")).sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        r = load(csv, "--timestamp", Long.toString(TS), "--max-errors", "3");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("Loaded 3 operations from " + in + " (7 lines read, 3 bad lines skipped, 0 no-ops)"), r.out());
        assertEquals(3, rows().size());
    }

    @Test
    void aHeaderThatDoesNotFitRefusesTheLoadBeforeAnythingIsWritten() throws IOException {
        String in = tmp.resolve("people.csv").toString();
        Result r = load("id,name\n1,a\n");
        assertEquals(1, r.status());
        assertEquals("flushline load: " + in + ":1: header: the clustering column 'seq' (int) is missing; every row gives the whole "
                + "primary key (id, seq); nothing was loaded\n", r.err());
        assertFalse(Files.exists(tableDir()) && hasData(tableDir()), "nothing written");
        r = load("id,seq,nmae\n1,1,a\n");
        assertEquals(1, r.status());
        assertTrue(r.err().startsWith("flushline load: " + in + ":1: header: \"nmae\" is not a column of table ks.people (its columns: "
                + "id, seq, age, name, tags); nothing was loaded"), r.err());
        r = load("1,1,a\n", "--columns", "id,name");
        assertEquals(1, r.status());
        assertTrue(r.err().startsWith("flushline load: --columns: the clustering column 'seq' (int) is missing"), r.err());
    }

    static boolean hasData(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.anyMatch(p -> p.getFileName().toString().endsWith("-Data.db"));
        }
    }

    @Test
    void csvOptionsAreCheckedAndBelongToCsv() throws IOException {
        Path schema = write("schema.cql", CQL);
        Path ops = write("ops.jsonl", "");
        String[][] cases = {
                {"--timestamp", "1", "--timestamp is an option of --format csv (a JSON Lines operation carries its own values, timestamp and ttl)"},
                {"--columns", "id", "--columns is an option of --format csv"},
                {"--format", "xml", "--format xml is not one of jsonl, csv"},
        };
        for (String[] c : cases) {
            List<String> argv = new ArrayList<>(List.of("load", "--schema", schema.toString(), "--input", ops.toString(), "--out",
                    tmp.resolve("o").toString()));
            argv.addAll(List.of(c[0], c[1]));
            Result r = main("", argv.toArray(new String[0]));
            assertEquals(1, r.status(), c[0]);
            assertTrue(r.err().contains(c[2]), r.err());
        }
        String[][] csvCases = {
                {"--delimiter", "ab", "--delimiter 'ab' is not one character"},
                {"--quote", ",", "the delimiter and the quote are the same character, ','"},
                {"--ttl", "630720001", "--ttl 630720001 is out of range"},
                {"--nulls", "skip", "--nulls skip is not one of tombstone, unset"},
                {"--header", "yes", "--header yes is not one of true, false"},
                {"--columns", "id,seq,id", "--columns: column 'id' is named twice (columns 1 and 3)"},
                {"--timestamp", "-9223372036854775808", "--timestamp -9223372036854775808 is out of range"},
        };
        for (String[] c : csvCases) {
            Result r = load("id,seq\n1,1\n", c[0], c[1]);
            assertEquals(1, r.status(), c[0]);
            assertTrue(r.err().contains(c[2]), c[0] + " -> " + r.err());
        }
        Result r = main("", "load", "--format", "csv", "--schema", schema.toString(), "--input", write("p.csv", "id,seq\n1,1\n").toString(),
                "--out", tmp.resolve("o").toString(), "--sstable-version", "nb", "--now", "2000000000", "--ttl", "630720000");
        assertEquals(1, r.status());
        assertTrue(r.err().contains("--ttl 630720000: expires after the latest expiration the output can store (2038-01-19T03:14:06Z)"),
                r.err());
    }

    @Test
    void stdinDialectAndColumnsWithoutHeader() throws IOException {
        Path schema = write("schema.cql", CQL);
        Result r = main("1;1;'a;b';\n1;2;;{'x'}\n", "load", "--format", "csv", "--schema", schema.toString(), "--input", "-",
                "--out", tmp.resolve("out").toString(), "--now", Long.toString(NOW), "--timestamp", Long.toString(TS),
                "--delimiter", ";", "--quote", "'", "--columns", "id,seq,name,tags", "--nulls", "unset");
        assertEquals(0, r.status(), r.err());
        assertTrue(r.out().contains("Loaded 2 operations from <stdin>"), r.out());
        assertEquals(List.of("1/1 name=a;b @" + TS, "1/2 @" + TS), rows());
    }

    @Test
    void theExampleFileLoads() throws IOException {
        Path out = tmp.resolve("ex");
        Result r = main("", "load", "--format", "csv", "--schema", "examples/table.cql", "--input", "examples/orders.csv", "--out",
                out.toString(), "--now", Long.toString(NOW), "--timestamp", Long.toString(TS));
        assertEquals(0, r.status(), r.err());
        String cql = Files.readString(Path.of("examples/table.cql"));
        TableSchema t = CqlParser.parse(cql);
        long rows = 0;
        for (Partition p : CassandraReader.readAll(t.directoryUnder(out), cql)) rows += p.rows().size();
        long lines;
        try (Stream<String> s = Files.lines(Path.of("examples/orders.csv"))) {
            lines = s.count() - 1;
        }
        assertEquals(lines, rows, r.out());
        assertTrue(rows >= 3);
    }
}

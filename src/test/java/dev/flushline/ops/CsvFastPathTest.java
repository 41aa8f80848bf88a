package dev.flushline.ops;

import dev.flushline.data.Cell;
import dev.flushline.data.InsertBuffer;
import dev.flushline.data.Mutation;
import dev.flushline.flush.FlushWriter;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.TableDirectory;
import dev.flushline.testing.NativeTexts;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The CSV fast path ({@link CsvRecordDecoder} over {@link CsvChars}, with jackson for what it leaves)
 * reads every input exactly as the reader did before it (jackson over the bytes, the value model per
 * record): the same mutation for every record, the same bad records with the same lines and messages
 * and whether reading can go on, the same line numbers, and the same memtable in the end (its rows
 * written from buffers where the fast path took them, flushed and compared byte for byte).
 *
 * <p>Inputs are random: tables of random native key and value columns (now and then a collection or
 * a duration, which the fast path leaves to jackson for the whole input), random dialects (delimiter,
 * quote, escape, null marker, nulls unset, TTL, a header or given columns in any order), and records of
 * random value texts ({@link NativeTexts}: most valid, with their edges, some not), empty fields and
 * null markers, quoted, escaped, padded, over several lines, with stray quotes and escapes, extra or
 * missing fields, blank lines, CRLF or CR line ends, and now and then a byte that is not UTF-8, a NUL
 * at the start, a byte order mark, or a quote never closed.
 */
class CsvFastPathTest {
    static final long NOW = 1_750_000_000L;
    static final long TS = 1_750_000_000_000_000L;

    static final String[] KEY_TYPES = {"int", "bigint", "text", "ascii", "blob", "uuid", "timeuuid", "date", "timestamp", "boolean", "double",
            "float", "smallint", "tinyint", "varint", "decimal", "inet", "time", "varchar"};
    static final String[] SLOW_TYPES = {"list<int>", "frozen<set<text>>", "duration", "map<text, int>"};

    @TempDir
    Path tmp;

    /** One random input and how to read it. */
    static final class Case {
        TableSchema schema;
        String cql;
        CsvOptions options;
        byte[] input;
        boolean expiryLimit2038;
        /** Per CSV column: its CQL type name. */
        List<String> types = new ArrayList<>();
        List<ColumnMetadata> columns = new ArrayList<>();
    }

    static String schema(Random r, int n) {
        StringBuilder sb = new StringBuilder("CREATE TABLE ks.t" + n + " (");
        List<String> pk = new ArrayList<>(), ck = new ArrayList<>();
        int pks = 1 + (r.nextInt(3) == 0 ? 1 : 0), cks = r.nextInt(3);
        for (int i = 0; i < pks; i++) {
            sb.append("p").append(i).append(' ').append(KEY_TYPES[r.nextInt(KEY_TYPES.length)]).append(", ");
            pk.add("p" + i);
        }
        for (int i = 0; i < cks; i++) {
            sb.append("c").append(i).append(' ').append(KEY_TYPES[r.nextInt(KEY_TYPES.length)]).append(", ");
            ck.add("c" + i);
        }
        if (cks > 0 && r.nextInt(3) == 0) sb.append("s ").append(NativeTexts.TYPES[r.nextInt(NativeTexts.TYPES.length)]).append(" static, ");
        boolean slow = r.nextInt(10) == 0;
        int values = 1 + r.nextInt(5);
        for (int i = 0; i < values; i++) {
            String type = slow && i == 0 ? SLOW_TYPES[r.nextInt(SLOW_TYPES.length)] : NativeTexts.TYPES[r.nextInt(NativeTexts.TYPES.length)];
            sb.append("v").append(i).append(' ').append(type).append(", ");
        }
        sb.append("PRIMARY KEY (").append(pks == 1 ? pk.get(0) : "(" + String.join(", ", pk) + ")");
        for (String c : ck) sb.append(", ").append(c);
        sb.append("))");
        if (r.nextInt(6) == 0) sb.append(" WITH default_time_to_live = ").append(1 + r.nextInt(100_000));
        return sb.toString();
    }

    static Case randomCase(Random r, int n) {
        Case k = new Case();
        k.cql = schema(r, n);
        k.schema = CqlParser.parse(k.cql);
        CsvOptions.Builder b = CsvOptions.builder(r.nextInt(40) == 0 ? Long.MIN_VALUE + 1 : TS + r.nextInt(1000));
        char[] delimiters = {',', ',', ',', ';', '\t', '|', ' '};
        char delimiter = delimiters[r.nextInt(delimiters.length)];
        char quote = r.nextInt(4) == 0 ? '\'' : '"';
        int escape = r.nextInt(4) == 0 ? CsvOptions.NO_ESCAPE : r.nextInt(5) == 0 ? '~' : '\\';
        b.delimiter(delimiter).quote(quote).escape(escape);
        String[] markers = {"", "", "", "NULL", "\\N", "-"};
        b.nullMarker(markers[r.nextInt(markers.length)]).nullsUnset(r.nextInt(4) == 0);
        int t = r.nextInt(10);
        if (t == 0) b.ttlSeconds(0);
        else if (t == 1) b.ttlSeconds(1 + r.nextInt(100_000));
        else if (t == 2) b.ttlSeconds(Cell.MAX_TTL);
        k.expiryLimit2038 = r.nextInt(10) == 0;
        // the columns: every key column, some of the others, in any order
        List<ColumnMetadata> cols = new ArrayList<>();
        for (ColumnMetadata c : k.schema.partitionKeyColumns()) cols.add(c);
        for (ColumnMetadata c : k.schema.clusteringColumns()) cols.add(c);
        for (ColumnMetadata c : k.schema.staticColumns()) if (r.nextBoolean()) cols.add(c);
        for (ColumnMetadata c : k.schema.regularColumns()) if (r.nextInt(5) != 0) cols.add(c);
        Collections.shuffle(cols, r);
        List<String> names = new ArrayList<>();
        for (ColumnMetadata c : cols) {
            names.add(c.name());
            k.columns.add(c);
            k.types.add(c.type().toString());
        }
        boolean header = r.nextInt(3) != 0;
        if (!header) b.columns(names);
        CsvOptions o = b.build();
        k.options = o;
        k.input = input(r, k, header ? names : null);
        return k;
    }

    /** The field's text as it stands in a line: bare, escaped, or quoted (quotes doubled or escaped inside). */
    static String field(Random r, String value, CsvOptions o) {
        char d = o.delimiter, q = o.quote;
        int e = o.escape;
        boolean special = false;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == d || c == q || c == e || c == '\n' || c == '\r') special = true;
        }
        boolean escapes = e != CsvOptions.NO_ESCAPE;
        StringBuilder sb = new StringBuilder();
        if (!special && r.nextInt(6) != 0) return value;
        if (special && escapes && r.nextInt(3) == 0) {
            // unquoted, with escapes: a quote is plain inside an unquoted field, but would open quotes first
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if (c == d || c == e || (c == q && i == 0)) sb.append((char) e).append(c);
                else if (c == '\n') sb.append((char) e).append('n');
                else if (c == '\r') sb.append((char) e).append('r');
                else sb.append(c);
            }
            return sb.toString();
        }
        sb.append(q);
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == q) sb.append(escapes && r.nextBoolean() ? (char) e : q).append(q);
            else if (c == e) sb.append((char) e).append(c);
            else if (c == '\t' && escapes && r.nextInt(3) == 0) sb.append((char) e).append('t');
            else sb.append(c);
        }
        sb.append(q);
        if (r.nextInt(12) == 0) sb.append(r.nextBoolean() ? " " : "\t"); // blanks after the closing quote
        return sb.toString();
    }

    static final String[] STRAYS = {"\"", "'", "\\", "~", ",", ";", "\n", "\r\n", "\r", " ", "x", "\"\"", "\u0000", "é"};

    static byte[] input(Random r, Case k, List<String> header) {
        CsvOptions o = k.options;
        String eol = r.nextInt(6) == 0 ? "\r\n" : r.nextInt(15) == 0 ? "\r" : "\n";
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringBuilder text = new StringBuilder();
        if (r.nextInt(20) == 0) text.append('\uFEFF');
        if (r.nextInt(10) == 0) text.append(eol).append("  ").append(eol);
        if (header != null) {
            List<String> h = new ArrayList<>();
            for (String name : header) h.add(r.nextInt(5) == 0 ? name.toUpperCase() : name);
            text.append(String.join(String.valueOf(o.delimiter), h)).append(eol);
        }
        int records = r.nextInt(30) == 0 ? 0 : 1 + r.nextInt(40);
        for (int i = 0; i < records; i++) {
            if (r.nextInt(15) == 0) text.append(r.nextBoolean() ? "" : "   ").append(eol); // a blank line
            List<String> fields = new ArrayList<>();
            for (int c = 0; c < k.columns.size(); c++) fields.add(field(r, value(r, k.columns.get(c), k.types.get(c), o), o));
            if (r.nextInt(25) == 0) fields.add("extra");
            if (r.nextInt(25) == 0 && !fields.isEmpty()) fields.remove(fields.size() - 1);
            String line = String.join(String.valueOf(o.delimiter), fields);
            if (r.nextInt(15) == 0) {
                int at = r.nextInt(line.length() + 1);
                line = line.substring(0, at) + STRAYS[r.nextInt(STRAYS.length)] + line.substring(at);
            }
            if (r.nextInt(20) == 0) line = "  " + line;
            text.append(line);
            if (i < records - 1 || r.nextInt(5) != 0) text.append(eol);
        }
        if (r.nextInt(40) == 0) text.append(o.quote).append("never closed").append(eol).append("1").append(eol);
        byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
        if (r.nextInt(25) == 0 && bytes.length > 0) {
            int at = r.nextInt(bytes.length);
            out.write(bytes, 0, at);
            out.write(0x80 + r.nextInt(0x80)); // a byte that is not UTF-8 where it stands
            out.write(bytes, at, bytes.length - at);
        } else if (r.nextInt(40) == 0) {
            out.write(0); // jackson takes a NUL first for UTF-16 or UTF-32
            out.writeBytes(bytes);
        } else {
            out.writeBytes(bytes);
        }
        return out.toByteArray();
    }

    /** A field's value text: mostly of the column's type, some empty, some the null marker, some padded with spaces. */
    static String value(Random r, ColumnMetadata c, String type, CsvOptions o) {
        int x = r.nextInt(30);
        if (x == 0) return "";
        if (x == 1) return o.nullMarker;
        String v;
        switch (type) {
            case "list<int>": v = r.nextBoolean() ? "[1, 2]" : "[]"; break;
            case "frozen<set<text>>": v = "{'a', 'b'}"; break;
            case "map<text, int>": v = "{'k': 1}"; break;
            case "duration": v = r.nextBoolean() ? "1h30m" : "P1D"; break;
            default: v = x < 15 ? NativeTexts.valid(r, type) : NativeTexts.text(r, type);
        }
        if (v.equalsIgnoreCase("now")) v = "-0"; // the clock's time would differ between the two readers
        if (x == 2) v = " " + v + "\t";
        return v;
    }

    /** The reader of a case: with the fast path (and jackson for what it leaves), or jackson and the value model alone. */
    static CsvReader reader(Case k, boolean fast) throws IOException, BadInputException {
        OperationDecoder d = k.expiryLimit2038 ? new OperationDecoder(k.schema, NOW, 2_147_483_646L, "2038-01-19T03:14:06Z")
                : new OperationDecoder(k.schema, NOW);
        d.seedListPaths(7); // list element paths alike on both sides
        return new CsvReader(new ByteArrayInputStream(k.input), "in.csv", d, k.options, CsvReader.MAX_FIELD_CHARS, fast);
    }

    /** Counts over all the cases, for the check that both paths were exercised. */
    long fastRecords, slowRecords, badRecords, stops;

    /** Reads the case both ways and compares every outcome and the memtables; returns the fast path's records. */
    void compare(Case k, int n) throws Exception {
        String what = k.cql + "\noptions: delimiter " + CsvOptions.show(k.options.delimiter) + ", quote " + CsvOptions.show(k.options.quote)
                + ", escape " + CsvOptions.show(k.options.escape) + ", null " + k.options.nullMarker + (k.options.nullsUnset ? " unset" : "")
                + ", ttl " + k.options.ttlSeconds + "\ninput:\n" + new String(k.input, StandardCharsets.UTF_8);
        CsvReader fast, slow;
        String fastStart = "open", slowStart = "open";
        try {
            fast = reader(k, true);
        } catch (BadInputException | IOException e) {
            fast = null;
            fastStart = e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        try {
            slow = reader(k, false);
        } catch (BadInputException | IOException e) {
            slow = null;
            slowStart = e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        assertEquals(slowStart, fastStart, what);
        if (fast == null) return;
        Memtable fromFast = new SkipListMemtable(k.schema, AllocationMode.HEAP_BUFFERS);
        Memtable fromSlow = new SkipListMemtable(k.schema, AllocationMode.HEAP_BUFFERS);
        InsertBuffer buffer = fast.newInsertBuffer();
        List<String> log = new ArrayList<>();
        try {
            for (int calls = 0; ; calls++) {
                assertTrue(calls <= k.input.length + 2, "reading does not end\n" + what);
                String a, b;
                boolean end;
                try {
                    Object item = buffer == null ? fast.next() : fast.next(buffer);
                    if (item == buffer && item != null) {
                        a = "row " + buffer.toMutation();
                        assertTrue(fromFast.apply(buffer));
                        fastRecords++;
                    } else {
                        a = item == null ? "end" : "row " + item;
                        if (item != null) assertTrue(fromFast.apply(((Mutation) item).update()));
                    }
                } catch (BadInputException e) {
                    a = "bad " + e.getMessage() + (e.skippable() ? "" : " (stop)");
                } catch (IOException e) {
                    a = "io " + e.getMessage();
                }
                try {
                    Mutation m = slow.next();
                    b = m == null ? "end" : "row " + m;
                    if (m != null) {
                        assertTrue(fromSlow.apply(m.update()));
                        slowRecords++;
                    }
                    end = m == null;
                } catch (BadInputException e) {
                    b = "bad " + e.getMessage() + (e.skippable() ? "" : " (stop)");
                    badRecords++;
                    end = !e.skippable();
                    if (end) stops++;
                } catch (IOException e) {
                    b = "io " + e.getMessage();
                    end = true;
                }
                log.add(b);
                assertEquals(b, a, "call " + calls + " after " + log.subList(Math.max(0, log.size() - 4), log.size() - 1) + "\n" + what);
                assertEquals(slow.lineNumber(), fast.lineNumber(), "line number after call " + calls + ": " + b + "\n" + what);
                if (end) break;
            }
            assertEquals(slow.noOps(), fast.noOps());
            assertEquals(fromSlow.rowCount(), fromFast.rowCount(), what);
            assertEquals(fromSlow.cellCount(), fromFast.cellCount(), what);
            assertEquals(fromSlow.minTimestamp(), fromFast.minTimestamp(), what);
            assertEquals(fromSlow.minLocalDeletionTime(), fromFast.minLocalDeletionTime(), what);
            assertEquals(fromSlow.maxLocalDeletionTime(), fromFast.maxLocalDeletionTime(), what);
            assertEquals(fromSlow.minTtl(), fromFast.minTtl(), what);
            assertArrayEquals(flushedData(fromSlow, tmp.resolve("slow" + n)), flushedData(fromFast, tmp.resolve("fast" + n)), what);
        } finally {
            fast.close();
            slow.close();
            for (Memtable m : new Memtable[] {fromFast, fromSlow}) {
                if (!m.isSealed()) m.seal();
                m.discard();
            }
        }
    }

    /** The Data.db bytes of the memtable flushed into {@code dir} (nothing if it is empty). */
    static byte[] flushedData(Memtable m, Path dir) throws Exception {
        m.seal();
        if (m.partitionCount() == 0) return new byte[0];
        Files.createDirectories(dir);
        new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), TableDirectory.open(dir), false, null, 0);
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (SSTableFiles f : SSTableFiles.inDirectory(dir)) all.writeBytes(Files.readAllBytes(f.path(Component.DATA)));
        return all.toByteArray();
    }

    /**
     * Records and runs of blank lines longer than the fast path's window, a 4-byte char at every offset
     * of the window's end, and fast and slow records in turn over many windows: jackson is handed what
     * the window cannot hold, and the fast path takes the records after them again.
     */
    @Test
    void inputsLongerThanTheWindowReadAlikeBothWays() throws Exception {
        Case k = new Case();
        k.cql = "CREATE TABLE ks.w (k int, c int, t text, d double, PRIMARY KEY (k, c))";
        k.schema = CqlParser.parse(k.cql);
        k.options = CsvOptions.builder(TS).build();
        StringBuilder text = new StringBuilder("k,c,t,d\n");
        int window = CsvChars.WINDOW_CHARS;
        text.append("1,1,\"").append("x".repeat(3 * window)).append("\",1.5\n");    // a field of three windows
        text.append("1,2,").append("y".repeat(window + 7)).append(",2\n");            // unquoted, past the window
        text.append("\n".repeat(window + 3)).append(" ".repeat(window / 2)).append("1,3,z,3\n"); // blank lines and spaces
        for (int i = 0; i < 3000; i++) {
            // a 4-byte char at every position against the window's end, now and then a record over two lines
            text.append("2,").append(i).append(i % 13 == 0 ? ",\"two\nlines" : ",").append("a".repeat(i % 97)).append("\ud83d\ude00");
            text.append(i % 13 == 0 ? "\",4.5\n" : i % 17 == 0 ? ",\"4.5\"x\n" : ",4.5\n");
        }
        k.input = text.toString().getBytes(StandardCharsets.UTF_8);
        compare(k, 1000);
        assertTrue(fastRecords > 2500, fastRecords + " records taken by the fast path");
        assertTrue(slowRecords - fastRecords > 200, (slowRecords - fastRecords) + " records left to jackson");
    }

    @Test
    void randomInputsReadAlikeBothWays() throws Exception {
        Random r = new Random(20261204L);
        for (int n = 0; n < 400; n++) compare(randomCase(r, n), n);
        String counts = fastRecords + " records taken by the fast path, " + slowRecords + " rows in all, " + badRecords + " bad records, "
                + stops + " inputs that stop";
        System.out.println(counts);
        // The comparison means something only if both paths and the bad records are well exercised.
        assertTrue(fastRecords > slowRecords / 3 && slowRecords - fastRecords > 500 && badRecords > 500 && stops > 10, counts);
    }
}

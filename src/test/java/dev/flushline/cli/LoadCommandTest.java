package dev.flushline.cli;

import dev.flushline.Main;

import dev.flushline.oracle.Bytes;
import dev.flushline.oracle.Cell;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.ColumnData;
import dev.flushline.oracle.ComplexColumn;
import dev.flushline.oracle.Marker;
import dev.flushline.oracle.Partition;
import dev.flushline.oracle.Row;
import dev.flushline.oracle.Unfiltered;
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
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code flushline load} end to end: ops file in, sstables out, read back by cassandra-all 5.0.9. */
class LoadCommandTest {
    static final long NOW = 1_750_000_000L;
    static final String CQL = "CREATE TABLE ks.items (pk bigint, ck text, n int, s text static, v1 int, v2 text, ts timestamp, "
            + "tags set<text>, l list<int>, m map<text, int>, PRIMARY KEY (pk, ck, n)) WITH compression = {'enabled': 'false'}";

    @TempDir
    Path tmp;

    @BeforeAll
    static void init() {
        CassandraOracle.init();
    }

    record Result(int status, String out, String err) {}

    static Result main(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int status = Main.run(args, new ByteArrayInputStream(new byte[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    Path write(String name, String text) throws IOException {
        Path p = tmp.resolve(name);
        Files.writeString(p, text, StandardCharsets.UTF_8);
        return p;
    }

    Path tableDir(Path out) {
        TableSchema t = CqlParser.parse(CQL);
        return out.resolve("ks").resolve("items-" + t.idHex());
    }

    static List<Path> dataFiles(Path tableDir) throws IOException {
        try (Stream<Path> s = Files.list(tableDir)) {
            return s.filter(p -> p.getFileName().toString().endsWith("-Data.db")).sorted().toList();
        }
    }

    static List<Path> staging(Path tableDir) throws IOException {
        try (Stream<Path> s = Files.list(tableDir)) {
            return s.filter(p -> p.getFileName().toString().startsWith(".flushline-")).toList();
        }
    }

    static Partition partition(List<Partition> ps, long pk) {
        for (Partition p : ps) if (p.key().equals(Bytes.int64(pk))) return p;
        return null;
    }

    static Row row(Partition p, String ck, int n) {
        for (Unfiltered u : p.unfiltereds()) {
            if (u instanceof Row r && r.clustering().equals(List.of(Bytes.utf8(ck), Bytes.int32(n)))) return r;
        }
        return null;
    }

    static ColumnData column(Row r, String name) {
        for (ColumnData c : r.columns()) if (c.column().equals(name)) return c;
        return null;
    }

    @Test
    void loadWritesWhatTheOperationsImply() throws Exception {
        Path schema = write("t.cql", CQL);
        String ops = String.join("\n",
                "// every operation kind",
                "{\"op\":\"insert\",\"timestamp\":10,\"values\":{\"pk\":1,\"ck\":\"a\",\"n\":1,\"v1\":5,\"v2\":\"x\",\"ts\":0,\"tags\":[\"q\",\"p\"]}}",
                "{\"op\":\"insert\",\"timestamp\":10,\"ttl\":600,\"values\":{\"pk\":1,\"ck\":\"a\",\"n\":2,\"v1\":6,\"v2\":null}}",
                "{\"op\":\"update\",\"timestamp\":11,\"key\":{\"pk\":1,\"ck\":\"a\",\"n\":1},\"set\":{\"v2\":\"y\",\"l\":[1,2]},\"add\":{\"m\":{\"k\":3}}}",
                "{\"op\":\"update\",\"timestamp\":12,\"key\":{\"pk\":1,\"ck\":\"a\",\"n\":1},\"add\":{\"l\":[3]}}",
                "{\"op\":\"update\",\"timestamp\":12,\"key\":{\"pk\":1},\"set\":{\"s\":\"static!\"}}",
                "",
                "{\"op\":\"insert\",\"timestamp\":10,\"values\":{\"pk\":1,\"ck\":\"b\",\"n\":1,\"v1\":7}}",
                "{\"op\":\"delete\",\"timestamp\":20,\"key\":{\"pk\":1,\"ck\":\"b\",\"n\":1}}",
                "{\"op\":\"delete\",\"timestamp\":20,\"key\":{\"pk\":1,\"ck\":\"a\",\"n\":1},\"columns\":[\"v1\"]}",
                "{\"op\":\"insert\",\"timestamp\":10,\"values\":{\"pk\":2,\"ck\":\"a\",\"n\":1,\"v1\":1}}",
                "{\"op\":\"delete\",\"timestamp\":30,\"key\":{\"pk\":2}}",
                "{\"op\":\"delete\",\"timestamp\":30,\"key\":{\"pk\":3},\"range\":{\"ck\":{\">\":\"c\",\"<=\":\"f\"}}}",
                "{\"op\":\"delete\",\"timestamp\":31,\"key\":{\"pk\":4,\"ck\":\"z\"}}",
                "");
        Path in = write("ops.jsonl", ops);
        Path out = tmp.resolve("out");
        Result r = main("load", "--schema", schema.toString(), "--input", in.toString(), "--out", out.toString(),
                "--now", Long.toString(NOW), "--memtable", "sharded", "--shards", "2", "--allocation", "offheap_objects",
                "--list-path-seed", "5");
        assertEquals(0, r.status, r.err);
        assertEquals("", r.err);
        assertTrue(r.out.contains("Completed flushing " + tableDir(out)), r.out);
        assertTrue(r.out.contains("Loaded 12 operations from " + in + " (14 lines read, 0 bad lines skipped, 0 no-ops) in 1 flushes into 1 sstables"), r.out);

        List<Partition> ps = CassandraReader.readAll(tableDir(out), CQL);
        assertEquals(4, ps.size());
        Partition p1 = partition(ps, 1);
        Row a1 = row(p1, "a", 1);
        assertEquals(10, a1.liveness().timestamp());
        Cell v1 = (Cell) column(a1, "v1");
        assertTrue(v1.isTombstone(), "v1 deleted by the cell delete");
        assertEquals(NOW, v1.localDeletionTime());
        assertEquals(Bytes.utf8("y"), ((Cell) column(a1, "v2")).value());
        assertEquals(Bytes.int64(0), ((Cell) column(a1, "ts")).value());
        ComplexColumn tags = (ComplexColumn) column(a1, "tags");
        assertEquals(List.of(Bytes.utf8("p"), Bytes.utf8("q")), List.of(tags.cells().get(0).path(), tags.cells().get(1).path()));
        ComplexColumn l = (ComplexColumn) column(a1, "l");
        assertEquals(10, l.complexDeletion().markedForDeleteAt(), "set of a list deletes at ts - 1");
        assertEquals(3, l.cells().size());
        assertEquals(List.of(Bytes.int32(1), Bytes.int32(2), Bytes.int32(3)),
                List.of(l.cells().get(0).value(), l.cells().get(1).value(), l.cells().get(2).value()), "list in apply order");
        ComplexColumn m = (ComplexColumn) column(a1, "m");
        assertTrue(m.complexDeletion().isLive(), "add has no deletion");
        assertEquals(Bytes.int32(3), m.cells().get(0).value());

        Row a2 = row(p1, "a", 2);
        assertEquals(600, a2.liveness().ttl());
        assertEquals(NOW + 600, a2.liveness().localExpirationTime());
        Cell v1ttl = (Cell) column(a2, "v1");
        assertEquals(600, v1ttl.ttl());
        assertEquals(NOW + 600, v1ttl.localDeletionTime());
        assertEquals(Bytes.int32(6), v1ttl.value());
        assertTrue(((Cell) column(a2, "v2")).isTombstone());

        Row b1 = row(p1, "b", 1);
        assertNotNull(b1);
        assertEquals(20, b1.deletion().markedForDeleteAt(), "deleted row");
        assertTrue(b1.columns().isEmpty());
        assertTrue(b1.liveness().isEmpty());

        assertEquals(Bytes.utf8("static!"), ((Cell) column(p1.staticRow(), "s")).value());

        Partition p2 = partition(ps, 2);
        assertEquals(30, p2.deletion().markedForDeleteAt());
        assertEquals(NOW, p2.deletion().localDeletionTime());
        assertTrue(p2.rows().isEmpty(), "rows older than the partition deletion are gone");

        Partition p3 = partition(ps, 3);
        assertEquals(2, p3.unfiltereds().size());
        Marker open = (Marker) p3.unfiltereds().get(0), close = (Marker) p3.unfiltereds().get(1);
        assertEquals("EXCL_START_BOUND", open.kind());
        assertEquals(List.of(Bytes.utf8("c")), open.clustering());
        assertEquals("INCL_END_BOUND", close.kind());
        assertEquals(List.of(Bytes.utf8("f")), close.clustering());

        Partition p4 = partition(ps, 4);
        Marker prefix = (Marker) p4.unfiltereds().get(0);
        assertEquals("INCL_START_BOUND", prefix.kind());
        assertEquals(List.of(Bytes.utf8("z")), prefix.clustering());

        // the same input, --now and --list-path-seed give the same bytes
        Path out2 = tmp.resolve("out2");
        assertEquals(0, main("load", "--schema", schema.toString(), "--input", in.toString(), "--out", out2.toString(),
                "--now", Long.toString(NOW), "--memtable", "sharded", "--shards", "2", "--allocation", "offheap_objects",
                "--list-path-seed", "5").status);
        Path d1 = dataFiles(tableDir(out)).get(0), d2 = dataFiles(tableDir(out2)).get(0);
        assertTrue(java.util.Arrays.equals(Files.readAllBytes(d1), Files.readAllBytes(d2)), "repeatable run");
    }

    static String rows(int from, int to) {
        StringBuilder sb = new StringBuilder();
        for (int i = from; i < to; i++) {
            sb.append("{\"op\":\"insert\",\"timestamp\":").append(1000 + i).append(",\"values\":{\"pk\":").append(i / 10)
              .append(",\"ck\":\"row-").append(i).append("\",\"n\":").append(i % 10).append(",\"v1\":").append(i)
              .append(",\"v2\":\"value number ").append(i).append("\"}}\n");
        }
        return sb.toString();
    }

    @Test
    void aSmallMemtableSizeFlushesSeveralSstablesThatAllReadBack() throws Exception {
        Path schema = write("t.cql", CQL);
        Path in = write("ops.jsonl", rows(0, 12_000));
        Path out = tmp.resolve("out");
        Result r = main("load", "--schema", schema.toString(), "--input", in.toString(), "--out", out.toString(),
                "--now", Long.toString(NOW), "--memtable-size-mb", "1", "--compression", "lz4", "--allocation", "unslabbed_heap");
        assertEquals(0, r.status, r.err);
        List<Path> data = dataFiles(tableDir(out));
        assertTrue(data.size() >= 3, "expected several flushes, got " + data.size() + "\n" + r.out);
        long logLines = r.out.lines().filter(s -> s.startsWith("Completed flushing ")).count();
        assertEquals(data.size(), logLines);
        assertTrue(Files.exists(tableDir(out).resolve(data.get(0).getFileName().toString().replace("Data.db", "CompressionInfo.db"))),
                "--compression lz4 overrides the schema's none");
        List<Partition> ps = CassandraReader.readAll(tableDir(out), CQL);
        long rowCount = 0;
        for (Partition p : ps) rowCount += p.rows().size();
        assertEquals(12_000, rowCount, "every row in exactly one sstable");
        assertEquals(List.of(), staging(tableDir(out)));
    }

    /**
     * Without --allocation, a load holds its rows off heap: while the input is still open the
     * memtable's native slabs are in use, and none is once the load ends (they go back to the pool
     * or are freed). With --allocation heap_buffers nothing native is held. (Test classes run one
     * at a time, so no other test allocates native memory meanwhile.)
     */
    @Test
    void aLoadHoldsItsRowsOffHeapUnlessToldOtherwise() throws Exception {
        Path schema = write("t.cql", CQL);
        for (String[] allocation : new String[][] {{}, {"--allocation", "heap_buffers"}}) {
            boolean offHeap = allocation.length == 0;
            long before = dev.flushline.memtable.Memtable.nativeBytesInUse();
            java.io.PipedOutputStream feed = new java.io.PipedOutputStream();
            java.io.PipedInputStream stdin = new java.io.PipedInputStream(feed, 1 << 16);
            Path out = tmp.resolve("out-" + offHeap);
            List<String> args = new java.util.ArrayList<>(List.of("load", "--schema", schema.toString(), "--input", "-",
                    "--out", out.toString(), "--now", Long.toString(NOW)));
            args.addAll(List.of(allocation));
            ByteArrayOutputStream o = new ByteArrayOutputStream(), e = new ByteArrayOutputStream();
            java.util.concurrent.FutureTask<Integer> load = new java.util.concurrent.FutureTask<>(() -> Main.run(
                    args.toArray(new String[0]), stdin, new PrintStream(o, true, StandardCharsets.UTF_8),
                    new PrintStream(e, true, StandardCharsets.UTF_8)));
            Thread t = new Thread(load, "load-under-test");
            t.start();
            feed.write(rows(0, 2_000).getBytes(StandardCharsets.UTF_8));
            feed.flush();
            long held = 0;
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
            // The load applies what it has read and then waits for more input: poll until the rows are in.
            while (System.nanoTime() < deadline) {
                held = dev.flushline.memtable.Memtable.nativeBytesInUse() - before;
                if (!offHeap || held > 0) break;
                Thread.sleep(10);
            }
            if (!offHeap) Thread.sleep(200); // give a wrong (off-heap) default time to show
            held = dev.flushline.memtable.Memtable.nativeBytesInUse() - before;
            feed.close();
            assertEquals(0, (int) load.get(60, java.util.concurrent.TimeUnit.SECONDS), e.toString(StandardCharsets.UTF_8));
            if (offHeap) {
                assertTrue(held > 0, "the default allocation keeps the rows in native memory while the load runs");
            } else {
                assertEquals(0, held, "heap_buffers holds no native memory");
            }
            assertEquals(before, dev.flushline.memtable.Memtable.nativeBytesInUse(), "no native memory is in use after the load");
            assertEquals(2_000, CassandraReader.readAll(tableDir(out), CQL).stream().mapToLong(p -> p.rows().size()).sum());
        }
    }

    @Test
    void leftoversOfACrashedRunAreRemovedAndReported() throws Exception {
        Path schema = write("t.cql", CQL);
        Path out = tmp.resolve("out");
        Path dir = Files.createDirectories(tableDir(out));
        // What a SIGKILLed flush leaves: a staging dir, and a generation renamed without TOC.txt beside
        // its writer's lock file (held until TOC.txt is in place, so it outlives the kill).
        Path stagingDir = Files.createDirectories(dir.resolve(".flushline-oa-7"));
        Files.write(stagingDir.resolve("oa-7-big-Data.db"), new byte[] {1});
        Path tocLess = Files.write(dir.resolve("oa-6-big-Data.db"), new byte[] {2});
        Path deadLock = Files.createFile(dir.resolve(".flushline-oa-6.lock"));
        Result r = main("load", "--schema", schema.toString(), "--input", write("ops.jsonl", rows(0, 3)).toString(),
                "--out", out.toString(), "--now", Long.toString(NOW));
        assertEquals(0, r.status, r.err);
        assertTrue(r.out.contains("Removed leftovers of an interrupted flush: ") && r.out.contains(tocLess.toString())
                && r.out.contains(stagingDir.toString()), r.out);
        assertTrue(!Files.exists(tocLess) && !Files.exists(stagingDir) && !Files.exists(deadLock));
        assertEquals(3, CassandraReader.readAll(dir, CQL).stream().mapToLong(p -> p.rows().size()).sum());
    }

    @Test
    void maxErrorsReportsAndSkipsBadLines() throws Exception {
        Path schema = write("t.cql", CQL);
        String ops = rows(0, 5) + "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":1,\"ck\":\"a\",\"n\":1,\"v1\":\"abc\"}}\n"
                + rows(5, 8) + "{\"op\":\"insert\",\n" + rows(8, 10);
        Path in = write("ops.jsonl", ops);
        Path out = tmp.resolve("out");
        Result r = main("load", "--schema", schema.toString(), "--input", in.toString(), "--out", out.toString(),
                "--now", Long.toString(NOW), "--max-errors", "2");
        assertEquals(0, r.status, r.err);
        assertEquals(in + ":6: column 'v1' (int): \"abc\" is not an int\n"
                + in + ":10: malformed JSON at column 16: unexpected end of line, expected a string key\n", r.err);
        assertTrue(r.out.contains("Loaded 10 operations from " + in + " (12 lines read, 2 bad lines skipped"), r.out);
        long rowCount = 0;
        for (Partition p : CassandraReader.readAll(tableDir(out), CQL)) rowCount += p.rows().size();
        assertEquals(10, rowCount);

        Path out2 = tmp.resolve("out2");
        Result tooMany = main("load", "--schema", schema.toString(), "--input", in.toString(), "--out", out2.toString(),
                "--now", Long.toString(NOW), "--max-errors", "1");
        assertEquals(1, tooMany.status);
        assertTrue(tooMany.err.contains("flushline load: stopped at " + in + ":10 (more than --max-errors 1 bad lines)"), tooMany.err);
        // The lines after the stop may have been read ahead; the counts end at the line that stopped the load.
        assertTrue(tooMany.out.contains("Loaded 8 operations from " + in + " (10 lines read, 1 bad lines skipped, 0 no-ops)"),
                tooMany.out);
    }

    @Test
    void aStopReportsTheCountsAsOfItsLineAndAppliesNothingAfterIt() throws Exception {
        Path schema = write("t.cql", CQL);
        String noOp = "{\"op\":\"update\",\"timestamp\":1,\"key\":{\"pk\":1,\"ck\":\"a\",\"n\":1},\"add\":{\"l\":[]}}\n";
        // Enough lines after the bad one that the read-ahead gets well past it before the load stops.
        String ops = rows(0, 5) + noOp + "{\"op\":\"insert\",\n" + noOp + noOp + rows(5, 5000);
        Path in = write("ops.jsonl", ops);
        Path out = tmp.resolve("out");
        Result r = main("load", "--schema", schema.toString(), "--input", in.toString(), "--out", out.toString(),
                "--now", Long.toString(NOW));
        assertEquals(1, r.status, r.err);
        assertTrue(r.out.contains("Loaded 5 operations from " + in + " (7 lines read, 0 bad lines skipped, 1 no-ops)"), r.out);
        assertTrue(r.err.contains("flushline load: stopped at " + in + ":7; the 5 operations before it are in the sstables,"
                + " nothing after it was applied (later lines may have been read ahead, and were dropped)\n"), r.err);
        long rowCount = 0;
        for (Partition p : CassandraReader.readAll(tableDir(out), CQL)) rowCount += p.rows().size();
        assertEquals(5, rowCount, "only the operations before the bad line");
    }

    @Test
    void aBadLineStopsTheLoadAndLeavesOnlyCompleteSstables() throws Exception {
        Path schema = write("t.cql", CQL);
        String ops = rows(0, 30_000) + "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":1,\"ck\":\"a\",\"v1\":1}}\n" + rows(30_000, 30_100);
        Path in = write("ops.jsonl", ops);
        Path out = tmp.resolve("out");
        Result r = main("load", "--schema", schema.toString(), "--input", in.toString(), "--out", out.toString(),
                "--now", Long.toString(NOW), "--memtable-size-mb", "2");
        assertEquals(1, r.status);
        assertTrue(r.err.startsWith(in + ":30001: missing clustering column 'n' (int) in \"values\"\n"), r.err);
        assertTrue(r.err.contains("stopped at " + in + ":30001"), r.err);
        List<Path> data = dataFiles(tableDir(out));
        assertTrue(data.size() >= 2 && data.size() <= 10, "a flush happened before the bad line: " + data.size());
        assertEquals(List.of(), staging(tableDir(out)), "no staging directories left");
        long rowCount = 0;
        long maxV1 = -1;
        for (Partition p : CassandraReader.readAll(tableDir(out), CQL)) {
            for (Row row : p.rows()) {
                rowCount++;
                Cell v1 = (Cell) column(row, "v1");
                maxV1 = Math.max(maxV1, v1.value().toBuffer().getInt(0));
            }
        }
        assertEquals(30_000, rowCount, "exactly the operations before the bad line");
        assertEquals(29_999, maxV1, "nothing after the bad line");
    }

    @Test
    void usageErrorsExitWithOne() throws Exception {
        Result noSchema = main("load", "--input", "x", "--out", tmp.toString());
        assertEquals(1, noSchema.status);
        assertEquals("flushline load: missing --schema (see flushline load --help)\n", noSchema.err);
        Path schema = write("bad.cql", "CREATE TABLE ks.t (pk int PRIMARY KEY, v nosuchtype)");
        Result badSchema = main("load", "--schema", schema.toString(), "--input", "-", "--out", tmp.toString());
        assertEquals(1, badSchema.status);
        assertTrue(badSchema.err.startsWith("flushline load: " + schema + ": line 1, column"), badSchema.err);
        Result unknown = main("load", "--frobnicate", "3");
        assertEquals(1, unknown.status);
        assertEquals("flushline load: unknown option --frobnicate (see flushline load --help)\n", unknown.err);
        Result help = main("load", "--help");
        assertEquals(0, help.status);
        assertTrue(help.out.startsWith("Usage: flushline load"));
        assertEquals(1, main("nosuch").status);
        assertEquals(0, main("--help").status);
    }

    @Test
    void readsStdin() throws Exception {
        Path schema = write("t.cql", CQL);
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        byte[] ops = rows(0, 3).getBytes(StandardCharsets.UTF_8);
        int status = Main.run(new String[] {"load", "--schema", schema.toString(), "--input", "-", "--out", tmp.resolve("o").toString()},
                new ByteArrayInputStream(ops), new PrintStream(out, true), new PrintStream(err, true));
        assertEquals(0, status, err.toString());
        assertTrue(out.toString().contains("Loaded 3 operations from <stdin>"), out.toString());
        List<Partition> ps = CassandraReader.readAll(tableDir(tmp.resolve("o")), CQL);
        assertEquals(1, ps.size());
        assertNull(row(ps.get(0), "row-9", 9));
        assertEquals(3, ps.get(0).rows().size());
    }
}

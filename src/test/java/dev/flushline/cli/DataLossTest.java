package dev.flushline.cli;

import dev.flushline.Main;

import dev.flushline.oracle.CassandraCompactor;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.CassandraVerifier;
import dev.flushline.oracle.Cell;
import dev.flushline.oracle.ColumnData;
import dev.flushline.oracle.ComplexColumn;
import dev.flushline.oracle.Partition;
import dev.flushline.oracle.Row;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.CompactionLock;
import dev.flushline.sstable.Descriptor;
import dev.flushline.testing.ChildCli;
import dev.flushline.writer.FlushlineSSTableWriter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Three ways a run lost or resurrected data with exit status 0, each reproduced as it was found:
 * list appends of two runs sharing their element ids, a complete sstable without TOC.txt deleted as
 * a leftover, and compaction purging tombstones before the table's gc_grace_seconds. Each test
 * fails on the code before the fix.
 */
class DataLossTest {
    static final String CQL = "CREATE TABLE ks.t (pk int, ck int, v1 text, tags list<text>, PRIMARY KEY (pk, ck))";
    static final long NOW = 1_750_000_000L;

    @TempDir
    Path tmp;

    @BeforeAll
    static void init() {
        CassandraOracle.init();
    }

    static LoadCommandTest.Result main(String... args) {
        return LoadCommandTest.main(args);
    }

    Path write(String name, String text) throws IOException {
        Path p = tmp.resolve(name);
        Files.writeString(p, text, StandardCharsets.UTF_8);
        return p;
    }

    static Path tableDir(Path root, String cql) {
        TableSchema s = CqlParser.parse(cql);
        return Descriptor.tableDir(root, s.keyspace(), s.name(), s.idHex());
    }

    /** The live elements of list {@code tags} of each row (pk, ck), as cassandra-all reads the directory. */
    static Map<String, List<String>> lists(Path tableDir) {
        Map<String, List<String>> out = new TreeMap<>();
        for (Partition p : CassandraReader.readAll(tableDir, CQL)) {
            for (Row r : p.rows()) {
                List<String> elements = new ArrayList<>();
                for (ColumnData c : r.columns()) {
                    if (!(c instanceof ComplexColumn cc) || !cc.column().equals("tags")) continue;
                    for (Cell cell : cc.cells()) {
                        if (cell.localDeletionTime() == Cell.NO_DELETION_TIME) elements.add(new String(cell.value().toArray(), StandardCharsets.UTF_8));
                    }
                }
                out.put(java.nio.ByteBuffer.wrap(p.key().toArray()).getInt() + "/"
                        + java.nio.ByteBuffer.wrap(r.clustering().get(0).toArray()).getInt(), elements);
            }
        }
        return out;
    }

    // 1. List appends

    /** The reproduction as reported: two loads with the same --now, the second appending to the first's list. */
    @Test
    void listAppendsOfTwoLoadsWithTheSameNowBothSurviveCompaction() throws Exception {
        Path schema = write("t.cql", CQL);
        Path l1 = write("l1.jsonl", "{\"op\":\"insert\",\"timestamp\":100,\"values\":{\"pk\":1,\"ck\":1,\"v1\":\"a\",\"tags\":[\"first\"]}}\n");
        Path l2 = write("l2.jsonl", "{\"op\":\"update\",\"timestamp\":200,\"key\":{\"pk\":1,\"ck\":1},\"add\":{\"tags\":[\"second\"]}}\n");
        Path o = tmp.resolve("o"), c = tmp.resolve("c");
        for (Path in : List.of(l1, l2)) {
            LoadCommandTest.Result r = main("load", "--schema", schema.toString(), "--input", in.toString(), "--out", o.toString(), "--now", Long.toString(NOW));
            assertEquals(0, r.status(), r.err());
        }
        LoadCommandTest.Result r = main("compact", "--schema", schema.toString(), "--input", o.toString(), "--out", c.toString(), "--now", Long.toString(NOW));
        assertEquals(0, r.status(), r.err());
        // Both runs had the same clock, so neither element orders first by time (their nodes decide, as for
        // two appends in the same instant on two Cassandra coordinators): both are there, in some order.
        assertEquals(Map.of("1/1", List.of("first", "second")), sortedValues(lists(tableDir(c, CQL))));
        LoadCommandTest.Result dump = main("dump", "--schema", schema.toString(), tableDir(c, CQL).toString());
        assertEquals(0, dump.status(), dump.err());
        assertTrue(dump.out().contains("first") && dump.out().contains("second"), dump.out());
    }

    /** Two processes at once, in the same second and with the same --now, appending to the same lists. */
    @Test
    void listAppendsOfTwoProcessesWithTheSameNowAllSurviveCompaction() throws Exception {
        Path schema = write("t.cql", CQL);
        int perProcess = 200;
        List<String> expected = new ArrayList<>();
        List<ChildCli> children = new ArrayList<>();
        for (String who : List.of("a", "b")) {
            StringBuilder ops = new StringBuilder();
            for (int i = 0; i < perProcess; i++) {
                ops.append("{\"op\":\"update\",\"timestamp\":").append(1000 + i).append(",\"key\":{\"pk\":").append(i % 4)
                        .append(",\"ck\":1},\"add\":{\"tags\":[\"").append(who).append(i).append("\"]}}\n");
                expected.add(who + i);
            }
            Path in = write(who + ".jsonl", ops.toString());
            children.add(ChildCli.start(tmp.resolve("logs"), "load-" + who, "load", "--schema", schema.toString(), "--input", in.toString(),
                    "--out", tmp.resolve("o").toString(), "--now", Long.toString(NOW)));
        }
        for (ChildCli child : children) assertEquals(0, child.await(120), child.err());
        LoadCommandTest.Result r = main("compact", "--schema", schema.toString(), "--input", tmp.resolve("o").toString(), "--out", tmp.resolve("c").toString(),
                "--now", Long.toString(NOW));
        assertEquals(0, r.status(), r.err());
        List<String> all = new ArrayList<>();
        for (List<String> l : lists(tableDir(tmp.resolve("c"), CQL)).values()) all.addAll(l);
        all.sort(null);
        expected.sort(null);
        assertEquals(expected, all, "every element of both processes, once");
    }

    /** The Java writer in two JVMs: {@code SET tags = tags + ?} with the same fixed clock. */
    @Test
    void listAppendsOfJavaWritersInTwoJvmsAllSurvive() throws Exception {
        List<Process> children = new ArrayList<>();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        for (String who : List.of("a", "b")) {
            Path dir = Files.createDirectories(tmp.resolve("w-" + who));
            children.add(new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"), WriterMain.class.getName(),
                    dir.toString(), who).redirectErrorStream(true).redirectOutput(tmp.resolve("w-" + who + ".log").toFile()).start());
        }
        for (int i = 0; i < children.size(); i++) {
            Process p = children.get(i);
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "writer did not end");
            assertEquals(0, p.exitValue(), Files.readString(tmp.resolve("w-" + (i == 0 ? "a" : "b") + ".log")));
        }
        Path merged = Files.createDirectories(tmp.resolve("merged"));
        int gen = 1;
        for (String who : List.of("a", "b")) {
            try (Stream<Path> files = Files.list(tmp.resolve("w-" + who))) {
                for (Path f : files.toList()) {
                    String name = f.getFileName().toString();
                    if (!name.startsWith("oa-1-big-")) continue;
                    Files.copy(f, merged.resolve(name.replace("oa-1-big-", "oa-" + gen + "-big-")));
                }
            }
            gen++;
        }
        Path schema = write("t.cql", CQL);
        LoadCommandTest.Result r = main("compact", "--schema", schema.toString(), "--input", merged.toString(), "--out", tmp.resolve("c").toString(),
                "--now", Long.toString(NOW));
        assertEquals(0, r.status(), r.err());
        assertEquals(Map.of("1/1", List.of("a0", "a1", "a2", "b0", "b1", "b2")),
                sortedValues(lists(tableDir(tmp.resolve("c"), CQL))));
    }

    private static Map<String, List<String>> sortedValues(Map<String, List<String>> m) {
        Map<String, List<String>> out = new TreeMap<>();
        for (Map.Entry<String, List<String>> e : m.entrySet()) {
            List<String> l = new ArrayList<>(e.getValue());
            l.sort(null);
            out.put(e.getKey(), l);
        }
        return out;
    }

    /** A child JVM's writer: three appends to list (1, 1) through FlushlineSSTableWriter with a fixed clock. */
    public static final class WriterMain {
        public static void main(String[] args) throws Exception {
            try (FlushlineSSTableWriter w = FlushlineSSTableWriter.builder().inDirectory(args[0]).forTable(CQL)
                    .using("UPDATE ks.t SET tags = tags + ? WHERE pk = ? AND ck = ?").withNowMillis(NOW * 1000).build()) {
                for (int i = 0; i < 3; i++) w.addRow(List.of(args[1] + i), 1, 1);
            }
        }
    }

    @Test
    void aRepeatableRunTakesItsListIdsFromASeed() throws Exception {
        Path schema = write("t.cql", CQL);
        Path l = write("l.jsonl", "{\"op\":\"update\",\"timestamp\":200,\"key\":{\"pk\":1,\"ck\":1},\"add\":{\"tags\":[\"x\",\"y\"]}}\n");
        for (String out : List.of("s1", "s2")) {
            LoadCommandTest.Result r = main("load", "--schema", schema.toString(), "--input", l.toString(), "--out", tmp.resolve(out).toString(),
                    "--now", Long.toString(NOW), "--list-path-seed", "42");
            assertEquals(0, r.status(), r.err());
        }
        assertArrayEquals(Files.readAllBytes(tableDir(tmp.resolve("s1"), CQL).resolve("oa-1-big-Data.db")),
                Files.readAllBytes(tableDir(tmp.resolve("s2"), CQL).resolve("oa-1-big-Data.db")), "the same seed and --now: the same bytes");
        LoadCommandTest.Result help = main("load", "--help");
        assertTrue(help.out().contains("Two runs with the same seed and --now must NOT append to the") , help.out());
    }

    // 2. Complete sstables without TOC.txt

    /** Loads three sstables into {@code o} and removes the TOC.txt of the second; returns its table directory. */
    Path threeSSTablesTheSecondWithoutToc(Path schema, Path o) throws IOException {
        for (int run = 0; run < 3; run++) {
            StringBuilder ops = new StringBuilder();
            for (int i = 0; i < 50; i++) {
                ops.append("{\"op\":\"insert\",\"timestamp\":").append(10 + run).append(",\"values\":{\"pk\":").append(run * 100 + i)
                        .append(",\"ck\":1,\"v1\":\"r").append(run).append("\"}}\n");
            }
            LoadCommandTest.Result r = main("load", "--schema", schema.toString(), "--input", write("run" + run + ".jsonl", ops.toString()).toString(),
                    "--out", o.toString(), "--now", Long.toString(NOW), "--memtable-size-mb", "64");
            assertEquals(0, r.status(), r.err());
        }
        Path dir = tableDir(o, CQL);
        assertTrue(Files.exists(dir.resolve("oa-3-big-TOC.txt")));
        Files.move(dir.resolve("oa-2-big-TOC.txt"), tmp.resolve("saved-TOC.txt"));
        return dir;
    }

    static Map<String, byte[]> filesOf(Path dir, String prefix) throws IOException {
        Map<String, byte[]> out = new TreeMap<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.toList()) {
                if (p.getFileName().toString().startsWith(prefix)) out.put(p.getFileName().toString(), Files.readAllBytes(p));
            }
        }
        return out;
    }

    static void assertSameFiles(Map<String, byte[]> expected, Map<String, byte[]> actual, String what) {
        assertEquals(expected.keySet(), actual.keySet(), what);
        for (String k : expected.keySet()) assertArrayEquals(expected.get(k), actual.get(k), what + ": " + k);
    }

    @Test
    void aCompleteSSTableWithoutTocSurvivesLoadCompactAndCompactInPlace() throws Exception {
        Path schema = write("t.cql", CQL);
        Path o = tmp.resolve("o");
        Path dir = threeSSTablesTheSecondWithoutToc(schema, o);
        Map<String, byte[]> second = filesOf(dir, "oa-2-big-");
        assertEquals(7, second.size(), second.keySet().toString());

        // load into the same directory
        LoadCommandTest.Result load = main("load", "--schema", schema.toString(), "--input",
                write("more.jsonl", "{\"op\":\"insert\",\"timestamp\":50,\"values\":{\"pk\":999,\"ck\":1,\"v1\":\"m\"}}\n").toString(),
                "--out", o.toString(), "--now", Long.toString(NOW));
        assertEquals(0, load.status(), load.err());
        assertTrue(load.err().contains("left alone: " + dir.resolve("oa-2-big-Data.db")), load.err());
        assertFalse(load.out().contains("Removed leftovers"), load.out());
        assertSameFiles(second, filesOf(dir, "oa-2-big-"), "after load");

        // compact to another directory: named, not read, kept; and no tombstone purged meanwhile
        LoadCommandTest.Result compact = main("compact", "--schema", schema.toString(), "--input", o.toString(), "--out", tmp.resolve("c").toString(),
                "--now", Long.toString(NOW));
        assertEquals(0, compact.status(), compact.err());
        assertTrue(compact.out().contains("left alone: " + dir.resolve("oa-2-big-Data.db")), compact.out());
        assertTrue(compact.out().contains("no tombstone is purged"), compact.out());
        assertSameFiles(second, filesOf(dir, "oa-2-big-"), "after compact --out");

        // compact in place: refused by name, nothing changed
        Map<String, byte[]> before = filesOf(dir, "oa-");
        LoadCommandTest.Result inPlace = main("compact", "--schema", schema.toString(), "--input", dir.toString(), "--in-place", "--now", Long.toString(NOW));
        assertEquals(1, inPlace.status(), inPlace.out());
        assertTrue(inPlace.err().contains("--in-place refused") && inPlace.err().contains(dir.resolve("oa-2-big-Data.db").toString())
                && inPlace.err().contains("--despite-incomplete"), inPlace.err());
        assertSameFiles(before, filesOf(dir, "oa-"), "after a refused compact --in-place");

        // ... unless told: the rest is compacted, the TOC-less sstable is left as it is
        LoadCommandTest.Result despite = main("compact", "--schema", schema.toString(), "--input", dir.toString(), "--in-place", "--despite-incomplete",
                "--now", Long.toString(NOW));
        assertEquals(0, despite.status(), despite.err());
        assertSameFiles(second, filesOf(dir, "oa-2-big-"), "after compact --in-place --despite-incomplete");
        assertFalse(Files.exists(dir.resolve("oa-1-big-Data.db")), "the complete inputs were replaced");

        // verify names it
        LoadCommandTest.Result verify = main("verify", "--schema", schema.toString(), dir.toString());
        assertEquals(1, verify.status(), verify.out());
        assertTrue(verify.out().contains("INCOMPLETE " + dir.resolve("oa-2-big-Data.db")), verify.out());

        // and when its TOC.txt comes back, every row of every run is there
        Files.move(tmp.resolve("saved-TOC.txt"), dir.resolve("oa-2-big-TOC.txt"));
        List<Partition> all = CassandraReader.readAll(dir, CQL);
        assertEquals(151, all.size(), "3 runs of 50 partitions and one more");
        assertEquals(0, main("verify", "--schema", schema.toString(), dir.toString()).status());
    }

    /** What our own lock proves is an interrupted publish of ours is still cleaned up. */
    @Test
    void aTocLessSSTableBesideOurDeadLockIsRemoved() throws Exception {
        Path schema = write("t.cql", CQL);
        Path o = tmp.resolve("o");
        Path dir = threeSSTablesTheSecondWithoutToc(schema, o);
        Files.createFile(dir.resolve(".flushline-oa-2.lock")); // as a writer killed between its renames leaves it
        LoadCommandTest.Result load = main("load", "--schema", schema.toString(), "--input",
                write("more.jsonl", "{\"op\":\"insert\",\"timestamp\":50,\"values\":{\"pk\":999,\"ck\":1,\"v1\":\"m\"}}\n").toString(),
                "--out", o.toString(), "--now", Long.toString(NOW));
        assertEquals(0, load.status(), load.err());
        assertTrue(load.out().contains("Removed leftovers of an interrupted flush") && load.out().contains("oa-2-big-Data.db"), load.out());
        assertEquals(Map.of(), filesOf(dir, "oa-2-big-"));
        assertFalse(Files.exists(dir.resolve(".flushline-oa-2.lock")));
    }

    // 3. gc_grace_seconds

    static final String GRACE_CQL = "CREATE TABLE ks.t (pk int, ck int, v1 text, tags list<text>, PRIMARY KEY (pk, ck))"
            + " WITH gc_grace_seconds = 8640000";

    /** The reproduction as reported: a tombstone purged after 20 days of a 100-day grace brought its row back. */
    @Test
    void compactKeepsTombstonesForTheTablesGcGrace() throws Exception {
        Path schema = write("grace.cql", GRACE_CQL);
        Path data = tmp.resolve("data"), deletion = tmp.resolve("deletion");
        assertEquals(0, main("load", "--schema", schema.toString(), "--input",
                write("insert.jsonl", "{\"op\":\"insert\",\"timestamp\":100,\"values\":{\"pk\":1,\"ck\":1,\"v1\":\"a\"}}\n").toString(),
                "--out", data.toString(), "--now", "1700000000").status());
        assertEquals(0, main("load", "--schema", schema.toString(), "--input",
                write("delete.jsonl", "{\"op\":\"delete\",\"timestamp\":200,\"key\":{\"pk\":1,\"ck\":1}}\n").toString(),
                "--out", deletion.toString(), "--now", "1700000000").status());
        LoadCommandTest.Result c = main("compact", "--schema", schema.toString(), "--input", deletion.toString(), "--out", tmp.resolve("c").toString(),
                "--now", "1701728000");
        assertEquals(0, c.status(), c.err());
        assertEquals(1, rowDeletions(tableDir(tmp.resolve("c"), GRACE_CQL), GRACE_CQL),
                "the tombstone is 20 days old, the table's grace 100 days: it is kept");
        LoadCommandTest.Result d = main("compact", "--schema", schema.toString(), "--input", tmp.resolve("c").toString(), "--input", data.toString(),
                "--out", tmp.resolve("d").toString(), "--now", "1701728000");
        assertEquals(0, d.status(), d.err());
        for (Partition p : CassandraReader.readAll(tableDir(tmp.resolve("d"), GRACE_CQL), GRACE_CQL)) {
            for (Row r : p.rows()) assertTrue(r.liveness().isEmpty() && r.columns().isEmpty(), "the deleted row came back: " + p);
        }

        // A smaller grace is still there for who asks, and is said out loud.
        LoadCommandTest.Result asked = main("compact", "--schema", schema.toString(), "--input", deletion.toString(), "--out", tmp.resolve("e").toString(),
                "--now", "1701728000", "--gc-grace", "864000");
        assertEquals(0, asked.status(), asked.err());
        assertTrue(asked.out().contains("gc grace: 864000 s (--gc-grace), below the table's gc_grace_seconds of 8640000 s"), asked.out());
        assertEquals(0, rowDeletions(tableDir(tmp.resolve("e"), GRACE_CQL), GRACE_CQL), "purged when asked: " + asked.out());
    }

    /** Row deletions in what cassandra-all reads from {@code dir} (none if it holds no sstable). */
    static int rowDeletions(Path dir, String cql) throws IOException {
        if (!Files.isDirectory(dir)) return 0;
        try (Stream<Path> s = Files.list(dir)) {
            if (s.noneMatch(p -> p.getFileName().toString().endsWith("-Data.db"))) return 0;
        }
        int n = 0;
        for (Partition p : CassandraReader.readAll(dir, cql)) {
            for (Row r : p.rows()) if (!r.deletion().isLive()) n++;
        }
        return n;
    }

    /** Our compaction against Cassandra's, both taking gc grace from the table, at clocks on both sides of it. */
    @Test
    void compactionWithANonDefaultGcGraceMatchesCassandras() throws Exception {
        String cql = "CREATE TABLE ks.g (pk int, ck int, v int, PRIMARY KEY (pk, ck)) WITH gc_grace_seconds = 3600"
                + " AND compression = {'enabled': 'false'}";
        Path schema = write("g.cql", cql);
        StringBuilder ops = new StringBuilder();
        for (int i = 0; i < 20; i++) {
            ops.append("{\"op\":\"insert\",\"timestamp\":10,\"values\":{\"pk\":").append(i).append(",\"ck\":1,\"v\":1}}\n");
            ops.append("{\"op\":\"delete\",\"timestamp\":20,\"key\":{\"pk\":").append(i).append(",\"ck\":2}}\n");
        }
        Path in = tmp.resolve("in");
        assertEquals(0, main("load", "--schema", schema.toString(), "--input", write("g.jsonl", ops.toString()).toString(),
                "--out", in.toString(), "--now", Long.toString(NOW)).status());
        Path dir = tableDir(in, cql);
        int cassandraGrace = CassandraVerifier.store(cql).metadata().params.gcGraceSeconds;
        assertEquals(3600, cassandraGrace, "Cassandra reads the same option");
        for (long now : new long[] {NOW + 1800, NOW + 7200}) {
            Path ours = tmp.resolve("ours-" + now);
            LoadCommandTest.Result r = main("compact", "--schema", schema.toString(), "--input", dir.toString(), "--out", ours.toString(), "--now", Long.toString(now));
            assertEquals(0, r.status(), r.err());
            Path theirs = CassandraCompactor.compact(List.of(dir.resolve("oa-1-big-Data.db")), cql, tmp.resolve("theirs-" + now), now,
                    now - cassandraGrace);
            assertEquals(CassandraReader.readAll(theirs, cql), CassandraReader.readAll(tableDir(ours, cql), cql), "at now " + now);
            assertEquals(now == NOW + 1800 ? 20 : 0, rowDeletions(tableDir(ours, cql), cql), "kept inside the grace, purged past it");
        }
    }

    // Sharp edges

    @Test
    void aSecondInPlaceCompactionOfOneDirectoryIsRefusedByName() throws Exception {
        Path schema = write("t.cql", CQL);
        Path dir = threeSSTablesTheSecondWithoutToc(schema, tmp.resolve("o"));
        Files.move(tmp.resolve("saved-TOC.txt"), dir.resolve("oa-2-big-TOC.txt"));
        Map<String, byte[]> before = filesOf(dir, "oa-");
        try (CompactionLock held = CompactionLock.tryAcquire(dir)) {
            LoadCommandTest.Result r = main("compact", "--schema", schema.toString(), "--input", dir.toString(), "--in-place", "--now", Long.toString(NOW));
            assertEquals(1, r.status(), r.err());
            assertTrue(r.err().contains("refused: another compaction is replacing the sstables of " + dir), r.err());
            assertFalse(r.err().contains("internal error"), r.err());
        }
        assertSameFiles(before, filesOf(dir, "oa-"), "nothing changed");
        // Two processes at once: each ends well or is refused by name; the data is whole either way.
        List<ChildCli> both = new ArrayList<>();
        for (String n : List.of("x", "y")) {
            both.add(ChildCli.start(tmp.resolve("logs"), "compact-" + n, "compact", "--schema", schema.toString(), "--input", dir.toString(),
                    "--in-place", "--now", Long.toString(NOW)));
        }
        int ok = 0;
        for (ChildCli c : both) {
            int status = c.await(120);
            if (status == 0) ok++;
            else assertTrue(status == 1 && c.err().contains("another compaction is replacing"), status + ": " + c.err());
        }
        assertTrue(ok >= 1, "at least one of them compacted");
        assertEquals(150, CassandraReader.readAll(dir, CQL).size());
    }

    @Test
    void compactOutIntoAnInputTableDirectoryIsRefused() throws Exception {
        Path schema = write("t.cql", CQL);
        Path dir = threeSSTablesTheSecondWithoutToc(schema, tmp.resolve("o"));
        Map<String, byte[]> before = filesOf(dir, "");
        for (Path out : List.of(dir, tmp.resolve("o"), dir.resolve("sub"))) {
            LoadCommandTest.Result r = main("compact", "--schema", schema.toString(), "--input", dir.toString(), "--out", out.toString(), "--now", Long.toString(NOW));
            assertEquals(1, r.status(), out + ": " + r.out() + r.err());
            assertTrue(r.err().contains("shares input table directory " + dir), r.err());
        }
        assertSameFiles(before, filesOf(dir, ""), "nothing written");
    }

    /** A FIFO or a link to /dev/urandom as a component is refused by name, in bounded time. */
    @Test
    void componentsThatAreNotRegularFilesAreRefusedByName() throws Exception {
        Path schema = write("t.cql", CQL);
        Path dir = threeSSTablesTheSecondWithoutToc(schema, tmp.resolve("o"));
        Files.move(tmp.resolve("saved-TOC.txt"), dir.resolve("oa-2-big-TOC.txt"));
        Path fifoData = dir.resolve("oa-1-big-Data.db");
        Files.delete(fifoData);
        Process mk = new ProcessBuilder("mkfifo", fifoData.toString()).start();
        assertEquals(0, mk.waitFor());
        Path urandomIndex = dir.resolve("oa-3-big-Index.db");
        Files.delete(urandomIndex);
        Files.createSymbolicLink(urandomIndex, Path.of("/dev/urandom"));
        String[][] commands = {
                {"verify", "--schema", schema.toString(), dir.toString()},
                {"dump", "--schema", schema.toString(), dir.toString()},
                {"compact", "--schema", schema.toString(), "--input", dir.toString(), "--out", tmp.resolve("c").toString()}};
        for (String[] command : commands) {
            ChildCli.Result r = ChildCli.run(tmp.resolve("logs"), command[0], 60, command);
            String all = r.out() + r.err();
            assertEquals(1, r.status(), command[0] + ": " + all);
            assertTrue(all.contains(fifoData + ": not a regular file") || all.contains(urandomIndex + ": not a regular file"), command[0] + ": " + all);
        }
    }

    /** Input without line ends on stdin is refused at the line limit, not read for ever. */
    @Test
    void theLineLimitHoldsOnStandardInput() throws Exception {
        Path schema = write("t.cql", CQL);
        ChildCli c = ChildCli.start(tmp.resolve("logs"), "zero", Path.of("/dev/zero"), "load", "--schema", schema.toString(),
                "--input", "-", "--out", tmp.resolve("o").toString());
        int status = c.await(120);
        assertEquals(1, status, c.err());
        assertTrue(c.err().contains("<stdin>:1: line is longer than the limit of 67108864 bytes"), c.err());
    }

    /** A FIFO and bash's process substitution are read as streams. */
    @Test
    void inputMayBeAFifoOrAProcessSubstitution() throws Exception {
        Path schema = write("t.cql", CQL);
        Path ops = write("ops.jsonl", "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":1,\"ck\":1,\"v1\":\"a\"}}\n"
                + "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":2,\"ck\":1,\"v1\":\"b\"}}\n");
        Path fifo = tmp.resolve("ops.fifo");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        Process feeder = new ProcessBuilder("bash", "-c", "cat '" + ops + "' > '" + fifo + "'").start();
        ChildCli fromFifo = ChildCli.start(tmp.resolve("logs"), "fifo", "load", "--schema", schema.toString(), "--input", fifo.toString(),
                "--out", tmp.resolve("f").toString());
        assertEquals(0, fromFifo.await(120), fromFifo.err());
        assertTrue(feeder.waitFor(30, TimeUnit.SECONDS));
        assertEquals(2, CassandraReader.readAll(tableDir(tmp.resolve("f"), CQL), CQL).size());

        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder("bash", "-c", "'" + java + "' -Xmx256m -cp '" + System.getProperty("java.class.path")
                + "' dev.flushline.Main load --schema '" + schema + "' --input <(cat '" + ops + "') --out '" + tmp.resolve("s") + "'")
                .redirectErrorStream(true).redirectOutput(tmp.resolve("subst.log").toFile()).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), Files.readString(tmp.resolve("subst.log")));
        assertEquals(2, CassandraReader.readAll(tableDir(tmp.resolve("s"), CQL), CQL).size());
    }
}

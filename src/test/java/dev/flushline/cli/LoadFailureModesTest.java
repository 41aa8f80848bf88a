package dev.flushline.cli;

import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.Cell;
import dev.flushline.oracle.ColumnData;
import dev.flushline.oracle.Partition;
import dev.flushline.oracle.Row;
import dev.flushline.schema.CqlParser;
import dev.flushline.testing.Tmpfs;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How {@code flushline load} ends when the machine says no: a full data disk, a full commit log
 * disk (real ENOSPC from a small tmpfs), and a memory limit near one slab. It never hangs, exits 2
 * with what is published and how to resume, leaves nothing partial, and the resume it describes
 * gets every operation in.
 */
class LoadFailureModesTest {
    static final String CQL = "CREATE TABLE stress.stress_table (pk bigint, ck int, v1 text, v2 text, v3 text, v4 text, "
            + "v5 text, PRIMARY KEY (pk, ck)) WITH compression = {'enabled': 'false'}";
    /** A bound against hangs only: each load here takes seconds. */
    static final Duration HANG = Duration.ofMinutes(3);

    @TempDir
    Path tmp;

    @BeforeAll
    static void init() {
        CassandraOracle.init();
    }

    static LoadCommandTest.Result main(String... args) {
        return LoadCommandTest.main(args);
    }

    /** Operation i inserts row (i / 10, i % 10) at timestamp 1000 + i, with incompressible values. */
    static void writeOps(Path file, int from, int to) throws IOException {
        Random r = new Random(from);
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (int i = from; i < to; i++) {
                w.write("{\"op\":\"insert\",\"timestamp\":" + (1000 + i) + ",\"values\":{\"pk\":" + (i / 10) + ",\"ck\":" + (i % 10));
                for (int c = 1; c <= 5; c++) w.write(",\"v" + c + "\":\"" + Long.toHexString(r.nextLong() | Long.MIN_VALUE) + "\"");
                w.write("}}\n");
            }
        }
    }

    /** The operation numbers whose rows read back, with their write timestamp as proof it is that operation. */
    static Set<Integer> opsReadBack(Path tableDir) throws IOException {
        Set<Integer> ops = new HashSet<>();
        if (!Files.exists(tableDir)) return ops;
        for (Partition p : CassandraReader.readAll(tableDir, CQL)) {
            long pk = ByteBuffer.wrap(p.key().toArray()).getLong();
            for (Row row : p.rows()) {
                int ck = ByteBuffer.wrap(row.clustering().get(0).toArray()).getInt();
                int op = (int) (pk * 10 + ck);
                for (ColumnData cd : row.columns()) {
                    assertEquals(1000 + op, ((Cell) cd).timestamp(), "row " + pk + "/" + ck + " holds its own operation");
                }
                ops.add(op);
            }
        }
        return ops;
    }

    static Path tableDir(Path out) {
        return (CqlParser.parse(CQL)).directoryUnder(out);
    }

    static void assertNothingPartial(Path tableDir) throws IOException {
        if (!Files.exists(tableDir)) return;
        try (Stream<Path> s = Files.list(tableDir)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                String n = p.getFileName().toString();
                assertTrue(!n.startsWith(".flushline-"), "a staging directory or lock is left: " + n);
            }
        }
    }

    @Test
    void aFullDataDiskEndsTheLoadWithExit2AndTheResumeItDescribesCompletesIt() throws Exception {
        int total = 40_000; // about 5 MiB of Data.db: more than the 3 MiB filesystem holds
        Path ops = tmp.resolve("ops.jsonl");
        writeOps(ops, 0, total);
        Path schema = tmp.resolve("t.cql");
        Files.writeString(schema, CQL);
        try (Tmpfs disk = Tmpfs.mount(tmp.resolve("disk"), 3 * 1024)) {
            Assumptions.assumeTrue(disk != null, "mounting a tmpfs needs root: the injected ENOSPC/EIO cases of FlusherTest cover this");
            Path out = disk.dir().resolve("out");
            LoadCommandTest.Result r = assertTimeoutPreemptively(HANG, () -> main("load", "--schema", schema.toString(), "--input", ops.toString(),
                    "--out", out.toString(), "--memtable-size-mb", "1"));
            assertEquals(2, r.status(), r.err());
            assertTrue(r.err().contains("No space left on device (ENOSPC: the disk is full)"), r.err());
            assertTrue(r.err().contains("failed in phase"), "the phase is named: " + r.err());
            assertTrue(r.err().contains("retrying in"), "the failure is retried before the load gives up: " + r.err());
            assertTrue(r.err().contains("published:") && r.err().contains("to resume"), r.err());
            assertTrue(!r.err().contains("\tat "), "no stack trace for a full disk: " + r.err());
            assertNothingPartial(tableDir(out));
            Matcher m = Pattern.compile("from line (\\d+) on").matcher(r.err());
            assertTrue(m.find(), r.err());
            int resumeLine = Integer.parseInt(m.group(1));
            Set<Integer> published = opsReadBack(tableDir(out));
            assertTrue(resumeLine > 1 && resumeLine <= total, "line " + resumeLine);
            for (int op = 0; op < resumeLine - 1; op++) {
                assertTrue(published.contains(op), "line " + (op + 1) + " is before the resume line but not published");
            }

            // The operator frees space and resumes exactly as told.
            disk.resize(64 * 1024);
            Path rest = tmp.resolve("rest.jsonl");
            try (Stream<String> lines = Files.lines(ops)) {
                Files.write(rest, (Iterable<String>) lines.skip(resumeLine - 1)::iterator);
            }
            LoadCommandTest.Result again = assertTimeoutPreemptively(HANG, () -> main("load", "--schema", schema.toString(), "--input",
                    rest.toString(), "--out", out.toString(), "--memtable-size-mb", "1"));
            assertEquals(0, again.status(), again.err());
            Set<Integer> all = opsReadBack(tableDir(out));
            assertEquals(total, all.size(), "every operation is in after the resume");
        }
    }

    @Test
    void aFullCommitLogDiskEndsTheLoadAndARerunReplaysEveryDurableOperation() throws Exception {
        int total = 30_000;
        Path ops = tmp.resolve("ops.jsonl");
        writeOps(ops, 0, total);
        Path schema = tmp.resolve("t.cql");
        Files.writeString(schema, CQL);
        Path out = tmp.resolve("out");
        try (Tmpfs disk = Tmpfs.mount(tmp.resolve("logdisk"), 1024)) {
            Assumptions.assumeTrue(disk != null, "mounting a tmpfs needs root: CommitLogTest's injected channel failures cover this");
            Path log = disk.dir().resolve("commitlog");
            LoadCommandTest.Result r = assertTimeoutPreemptively(HANG, () -> main("load", "--schema", schema.toString(), "--input",
                    ops.toString(), "--out", out.toString(), "--commitlog", log.toString(), "--sync", "batch"));
            assertEquals(2, r.status(), r.err());
            assertTrue(r.err().contains("No space left on device") && r.err().contains("ENOSPC"), r.err());
            assertTrue(r.err().contains("rerun the same command"), r.err());
            assertTrue(!r.err().contains("\tat "), "no stack trace for a full disk: " + r.err());
            assertNothingPartial(tableDir(out));
            long durable = 0;
            Matcher d = Pattern.compile("(?m)^durable: (\\d+)$").matcher(r.out());
            while (d.find()) durable = Long.parseLong(d.group(1));

            // Replay alone (no new input): every operation the load reported durable comes back.
            disk.resize(64 * 1024);
            Path empty = tmp.resolve("empty.jsonl");
            Files.writeString(empty, "");
            LoadCommandTest.Result replay = assertTimeoutPreemptively(HANG, () -> main("load", "--schema", schema.toString(), "--input",
                    empty.toString(), "--out", out.toString(), "--commitlog", log.toString(), "--sync", "batch"));
            assertEquals(0, replay.status(), replay.err());
            Set<Integer> got = opsReadBack(tableDir(out));
            for (int op = 0; op < durable; op++) {
                assertTrue(got.contains(op), "operation " + op + " was reported durable (" + durable + ") but is lost");
            }
        }
    }

    /**
     * A limit of 1 MiB with four shards, as a user tried it: it used to switch the memtable after
     * every write and write thousands of one-partition sstables.
     */
    @Test
    void aMemoryLimitNearOneSlabDoesNotFlushAfterEveryWrite() throws Exception {
        int total = 20_000;
        Path ops = tmp.resolve("ops.jsonl");
        writeOps(ops, 0, total);
        Path schema = tmp.resolve("t.cql");
        Files.writeString(schema, CQL);
        for (String mode : List.of("unslabbed_heap", "heap_buffers", "offheap_objects")) {
            Path out = tmp.resolve("out-" + mode);
            LoadCommandTest.Result r = assertTimeoutPreemptively(HANG, () -> main("load", "--schema", schema.toString(), "--input", ops.toString(),
                    "--out", out.toString(), "--memtable", "sharded", "--shards", "4", "--ranges", "4", "--flush-threads", "2",
                    "--memtable-size-mb", "1", "--allocation", mode));
            assertEquals(0, r.status(), r.err());
            long sstables;
            try (Stream<Path> s = Files.list(tableDir(out))) {
                sstables = s.filter(p -> p.getFileName().toString().endsWith("-Data.db")).count();
            }
            // 20,000 rows take 4-15 MiB in memory depending on the mode: at most about 15 memtables,
            // each split into up to 4 range sstables.
            assertTrue(sstables <= 80, mode + ": " + sstables + " sstables for 20,000 rows under a 1 MiB limit");
            assertEquals(total, opsReadBack(tableDir(out)).size(), mode);
        }
    }

    /** compact onto a full disk says what the disk said, as load does, and publishes nothing. */
    @Test
    void aFullDiskEndsCompactWithExit2NamingEnospc() throws Exception {
        Path ops = tmp.resolve("ops.jsonl");
        writeOps(ops, 0, 40_000);
        Path schema = tmp.resolve("t.cql");
        Files.writeString(schema, CQL);
        Path in = tmp.resolve("in");
        assertEquals(0, main("load", "--schema", schema.toString(), "--input", ops.toString(), "--out", in.toString()).status());
        try (Tmpfs disk = Tmpfs.mount(tmp.resolve("cdisk"), 2 * 1024)) {
            Assumptions.assumeTrue(disk != null, "mounting a tmpfs needs root");
            for (String pipelined : new String[] {"1", "4"}) {
                Path out = disk.dir().resolve("out-" + pipelined);
                LoadCommandTest.Result r = assertTimeoutPreemptively(HANG, () -> main("compact", "--schema", schema.toString(),
                        "--input", in.toString(), "--out", out.toString(), "--threads", pipelined));
                assertEquals(2, r.status(), r.out() + r.err());
                assertTrue(r.err().contains("No space left on device") && r.err().contains("ENOSPC"), r.err());
                assertTrue(r.err().contains("nothing was published"), r.err());
                assertNothingPartial(tableDir(out));
                if (Files.exists(tableDir(out))) {
                    try (Stream<Path> s = Files.list(tableDir(out))) {
                        assertEquals(List.of(), s.map(x -> x.getFileName().toString()).filter(n -> n.endsWith("TOC.txt")).toList());
                    }
                }
            }
        }
    }
}

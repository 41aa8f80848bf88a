package dev.flushline.cli;

import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.Cell;
import dev.flushline.oracle.ColumnData;
import dev.flushline.oracle.ComplexColumn;
import dev.flushline.oracle.Partition;
import dev.flushline.oracle.Row;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Descriptor;
import dev.flushline.testing.ChildCli;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A standing adversary: load (with a batch-synced commit log), compact in place, compact to another
 * directory, verify and SIGKILL, in a random order over one table directory, for a fixed number of
 * steps (not a time). At the end every acknowledged operation is present exactly once, and nothing
 * an acknowledged deletion removed has come back, as cassandra-all reads it.
 *
 * <p>The operations make every outcome checkable: operation i has timestamp i + 1 and is one of
 * <ul>
 *   <li>insert row (i % 16, i) with v = i and tags = ['e&lt;i&gt;'];</li>
 *   <li>append 'a&lt;i&gt;' to the list of an earlier inserted row whose ck is not a multiple of 3;</li>
 *   <li>delete an earlier inserted row whose ck is a multiple of 3 (nothing else ever writes to it).</li>
 * </ul>
 * An operation is acknowledged when its load printed {@code durable: N} covering it, or ended with
 * status 0. One not acknowledged may or may not be there, but never twice. Compactions run at a
 * clock 30 days on half the time, so tombstones are purged along the way.
 */
class AdversarialTest {
    static final String CQL = "CREATE TABLE ks.adv (pk int, ck int, v int, tags list<text>, PRIMARY KEY (pk, ck))"
            + " WITH gc_grace_seconds = 864000";
    static final long NOW = 1_750_000_000L;
    static final int STEPS = 16;
    static final int OPS_PER_LOAD = 15_000;

    @TempDir
    Path tmp;

    @BeforeAll
    static void init() {
        CassandraOracle.init();
    }

    enum Kind { INSERT, APPEND, DELETE }

    /** Every operation generated, by index. */
    final List<Kind> kinds = new ArrayList<>();
    /** For appends and deletes: the insert (its op index) they target; for inserts, itself. */
    final List<Integer> targets = new ArrayList<>();
    final BitSet acknowledged = new BitSet();
    /** Inserts whose row some delete (acknowledged or not) targets. */
    final BitSet deleteTargeted = new BitSet();

    private String opLine(int i, Random r) {
        long ts = i + 1;
        List<Integer> inserted = new ArrayList<>();
        // A target among the last 500 inserts keeps the rows busy without scanning every op.
        for (int j = i - 1; j >= 0 && inserted.size() < 500; j--) if (kinds.get(j) == Kind.INSERT) inserted.add(j);
        int pick = r.nextInt(10);
        if (inserted.isEmpty() || pick < 5) {
            kinds.add(Kind.INSERT);
            targets.add(i);
            return "{\"op\":\"insert\",\"timestamp\":" + ts + ",\"values\":{\"pk\":" + (i % 16) + ",\"ck\":" + i + ",\"v\":" + i
                    + ",\"tags\":[\"e" + i + "\"]}}";
        }
        boolean delete = pick >= 8;
        List<Integer> candidates = new ArrayList<>();
        for (int j : inserted) if ((j % 3 == 0) == delete && !(delete && deleteTargeted.get(j))) candidates.add(j);
        if (candidates.isEmpty()) {
            kinds.add(Kind.INSERT);
            targets.add(i);
            return "{\"op\":\"insert\",\"timestamp\":" + ts + ",\"values\":{\"pk\":" + (i % 16) + ",\"ck\":" + i + ",\"v\":" + i
                    + ",\"tags\":[\"e" + i + "\"]}}";
        }
        int j = candidates.get(r.nextInt(candidates.size()));
        targets.add(j);
        if (delete) {
            kinds.add(Kind.DELETE);
            deleteTargeted.set(j);
            return "{\"op\":\"delete\",\"timestamp\":" + ts + ",\"key\":{\"pk\":" + (j % 16) + ",\"ck\":" + j + "}}";
        }
        kinds.add(Kind.APPEND);
        return "{\"op\":\"update\",\"timestamp\":" + ts + ",\"key\":{\"pk\":" + (j % 16) + ",\"ck\":" + j + "},\"add\":{\"tags\":[\"a" + i + "\"]}}";
    }

    @Test
    void loadCompactVerifyAndKillInRandomOrderLoseAndResurrectNothing() throws Exception {
        long seed = Long.getLong("adversarial.seed", 20261203L);
        Random r = new Random(seed);
        Path schema = Files.writeString(tmp.resolve("t.cql"), CQL);
        Path out = tmp.resolve("out"), commitlog = tmp.resolve("commitlog"), logs = tmp.resolve("logs");
        TableSchema t = CqlParser.parse(CQL);
        Path dir = Descriptor.tableDir(out, t.keyspace(), t.name(), t.idHex());
        StringBuilder story = new StringBuilder("seed " + seed + ":");
        int loads = 0, kills = 0;
        for (int step = 0; step < STEPS; step++) {
            // The first step loads, so that there is something to compact.
            int what = step == 0 ? 0 : r.nextInt(10);
            boolean kill = r.nextInt(2) == 0;
            long killAfterMillis = 300 + r.nextInt(1700);
            if (what < 4) {
                int first = kinds.size();
                StringBuilder ops = new StringBuilder();
                for (int k = 0; k < OPS_PER_LOAD; k++) ops.append(opLine(first + k, r)).append('\n');
                Path in = Files.writeString(tmp.resolve("load-" + step + ".jsonl"), ops);
                ChildCli c = ChildCli.start(logs, "step-" + step, "load", "--schema", schema.toString(), "--input", in.toString(),
                        "--out", out.toString(), "--commitlog", commitlog.toString(), "--sync", "batch", "--memtable-size-mb", "1",
                        "--now", Long.toString(NOW), "--list-path-seed", Integer.toString(step));
                // Killed once the load has reported some operations durable: a moment in its progress, not
                // in time, so that a fast machine, which would finish a load before any fixed delay, is
                // still killed mid-load.
                boolean killed = runOrKillOnceDurable(c, kill, (int) (killAfterMillis * (OPS_PER_LOAD / 2) / 2000));
                long durable = killed ? lastDurable(c.out()) : OPS_PER_LOAD;
                if (!killed) assertEquals(0, c.exitValue(), "step " + step + " load: " + c.err());
                acknowledged.set(first, first + (int) durable);
                story.append(" load(").append(killed ? "killed, " + durable + " durable" : "ok").append(')');
                loads++;
                if (killed) kills++;
            } else if (what < 7) {
                String now = Long.toString(r.nextBoolean() ? NOW : NOW + 30 * 86_400);
                if (!Files.isDirectory(dir)) continue;
                ChildCli c = ChildCli.start(logs, "step-" + step, "compact", "--schema", schema.toString(), "--input", dir.toString(),
                        "--in-place", "--now", now);
                // A compaction of these tables takes about a second after the JVM starts: kill inside that.
                boolean killed = runOrKill(c, kill, 250 + killAfterMillis / 2);
                if (!killed) assertEquals(0, c.exitValue(), "step " + step + " compact --in-place: " + c.out() + c.err());
                story.append(" compact-in-place(").append(killed ? "killed" : "ok").append(')');
                if (killed) kills++;
            } else if (what < 8) {
                if (!Files.isDirectory(dir)) continue;
                ChildCli.Result c = ChildCli.run(logs, "step-" + step, 300, "compact", "--schema", schema.toString(), "--input",
                        dir.toString(), "--out", tmp.resolve("copy-" + step).toString(), "--now", Long.toString(NOW));
                assertTrue(c.status() == 0 || c.status() == 1 && c.err().contains("no complete sstable"),
                        "step " + step + " compact --out: " + c.out() + c.err());
                story.append(" compact-out");
            } else {
                if (!Files.isDirectory(dir)) continue;
                ChildCli.Result c = ChildCli.run(logs, "step-" + step, 300, "verify", "--schema", schema.toString(), dir.toString());
                checkVerify(c, dir, step);
                story.append(" verify");
            }
        }
        // Replay whatever the last kill left in the commit log, then look at everything as it is.
        Path empty = Files.writeString(tmp.resolve("empty.jsonl"), "");
        ChildCli.Result last = ChildCli.run(logs, "final-load", 300, "load", "--schema", schema.toString(), "--input", empty.toString(),
                "--out", out.toString(), "--commitlog", commitlog.toString(), "--now", Long.toString(NOW));
        assertEquals(0, last.status(), story + "\nfinal load: " + last.err());
        System.out.println("AdversarialTest " + story + " (" + loads + " loads, " + kills + " kills, " + kinds.size() + " operations, "
                + acknowledged.cardinality() + " acknowledged)");
        assertTrue(kills > 0 && loads > 1, "the run exercised kills and several loads: " + story);
        // One merged view (cassandra-all reads sstables one by one): a major compaction into another
        // directory at the load clock, which purges nothing.
        Path merged = tmp.resolve("merged");
        ChildCli.Result m = ChildCli.run(logs, "final-merge", 300, "compact", "--schema", schema.toString(), "--input", dir.toString(),
                "--out", merged.toString(), "--now", Long.toString(NOW));
        assertEquals(0, m.status(), story + "\nfinal merge: " + m.err());
        check(Descriptor.tableDir(merged, t.keyspace(), t.name(), t.idHex()), story.toString());
        // A final compaction at a later clock purges what may be purged, and must keep the same truth.
        ChildCli.Result c = ChildCli.run(logs, "final-compact", 300, "compact", "--schema", schema.toString(), "--input", dir.toString(),
                "--in-place", "--now", Long.toString(NOW + 60 * 86_400));
        assertEquals(0, c.status(), story + "\nfinal compact: " + c.err());
        check(dir, story + " + final compaction");
        checkVerify(ChildCli.run(logs, "final-verify", 300, "verify", "--schema", schema.toString(), dir.toString()), dir, STEPS);
    }

    /** Runs {@code c} to its end, or kills it after {@code millis} if {@code kill}; true if it was killed. */
    private static boolean runOrKill(ChildCli c, boolean kill, long millis) throws Exception {
        if (kill && !c.awaitMillis(millis)) {
            c.kill();
            return true;
        }
        c.await(300);
        return false;
    }

    /**
     * Runs {@code c} to its end, or, if {@code kill}, kills it as soon as its output reports at least
     * {@code durableOps} operations durable; true if it was killed.
     */
    private static boolean runOrKillOnceDurable(ChildCli c, boolean kill, long durableOps) throws Exception {
        if (!kill) {
            c.await(300);
            return false;
        }
        long deadline = System.nanoTime() + 300_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (c.awaitMillis(2)) return false;
            String out = c.out();
            if (out.contains("durable: ") && lastDurable(out) >= durableOps) {
                c.kill();
                return true;
            }
        }
        c.kill();
        throw new AssertionError("the load neither ended nor reported " + durableOps + " operations durable within 300 s");
    }

    private static long lastDurable(String stdout) {
        long d = 0;
        Matcher m = Pattern.compile("(?m)^durable: (\\d+)$").matcher(stdout);
        while (m.find()) d = Long.parseLong(m.group(1));
        return d;
    }

    /** verify passes; a kill may leave only our own interrupted publishes (TOC-less beside our lock), never a corrupt sstable. */
    private static void checkVerify(ChildCli.Result c, Path dir, int step) {
        for (String line : c.out().split("\n")) {
            if (line.isEmpty() || line.startsWith("OK ")) continue;
            if (line.startsWith("INCOMPLETE ")) {
                Matcher m = Pattern.compile("-(\\d+)-big-").matcher(line);
                assertTrue(m.find(), line);
                assertTrue(Files.exists(dir.resolve(".flushline-oa-" + m.group(1) + ".lock")),
                        "step " + step + ": an incomplete sstable that no crashed writer of ours left: " + line);
                continue;
            }
            fail("step " + step + " verify: " + line + "\n" + c.err());
        }
        assertTrue(c.status() <= 1, "step " + step + " verify: " + c.status() + " " + c.err());
    }

    /** Checks the one merged sstable in {@code dir} (see the class comment for what must hold). */
    private void check(Path dir, String story) throws IOException {
        try (java.util.stream.Stream<Path> files = Files.list(dir)) {
            assertEquals(1, files.filter(p -> p.getFileName().toString().endsWith("-Data.db")).count(), story + ": one merged sstable");
        }
        Map<Integer, Row> rows = new HashMap<>();
        Map<String, Integer> elementCount = new HashMap<>();
        for (Partition p : CassandraReader.readAll(dir, CQL)) {
            int pk = ByteBuffer.wrap(p.key().toArray()).getInt();
            for (Row row : p.rows()) {
                int ck = ByteBuffer.wrap(row.clustering().get(0).toArray()).getInt();
                assertEquals(ck % 16, pk, story + ": row " + ck + " in the wrong partition");
                if (row.liveness().isEmpty() && row.columns().isEmpty()) continue; // a row tombstone
                rows.put(ck, row);
                for (ColumnData cd : row.columns()) {
                    if (!(cd instanceof ComplexColumn cc)) continue;
                    for (Cell cell : cc.cells()) {
                        if (cell.localDeletionTime() != Cell.NO_DELETION_TIME) continue;
                        elementCount.merge(new String(cell.value().toArray(), StandardCharsets.UTF_8), 1, Integer::sum);
                    }
                }
            }
        }
        for (Map.Entry<String, Integer> e : elementCount.entrySet()) {
            assertEquals(1, e.getValue(), story + ": list element " + e.getKey() + " is there " + e.getValue() + " times");
            int op = Integer.parseInt(e.getKey().substring(1));
            assertTrue(op < kinds.size(), story + ": an element no operation wrote: " + e.getKey());
        }
        // Which deletions took effect: acknowledged ones certainly; others may have.
        BitSet ackDeleted = new BitSet();
        for (int i = 0; i < kinds.size(); i++) if (kinds.get(i) == Kind.DELETE && acknowledged.get(i)) ackDeleted.set(targets.get(i));
        for (int i = 0; i < kinds.size(); i++) {
            Kind k = kinds.get(i);
            int target = targets.get(i);
            if (k == Kind.INSERT) {
                Row row = rows.get(i);
                if (ackDeleted.get(i)) {
                    assertTrue(row == null, story + ": row " + i + " came back after its acknowledged deletion: " + row);
                } else if (acknowledged.get(i) && !deleteTargeted.get(i)) {
                    assertTrue(row != null, story + ": acknowledged insert " + i + " is missing");
                    assertEquals(i + 1, row.liveness().timestamp(), story + ": row " + i + " liveness");
                    assertEquals(Integer.valueOf(1), elementCount.get("e" + i), story + ": insert " + i + "'s element");
                }
            } else if (k == Kind.APPEND && acknowledged.get(i)) {
                assertEquals(Integer.valueOf(1), elementCount.get("a" + i), story + ": acknowledged append " + i + " to row " + target);
            }
        }
        for (int ck : rows.keySet()) {
            assertTrue(ck < kinds.size() && kinds.get(ck) == Kind.INSERT, story + ": a row no insert wrote: " + ck);
        }
    }
}

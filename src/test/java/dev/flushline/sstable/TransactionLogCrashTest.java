package dev.flushline.sstable;

import dev.flushline.data.PartitionUpdate;
import dev.flushline.flush.FlushWriter;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.Partition;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * kill -9 of a compacting JVM. A child process compacts the table's two sstables again and again
 * (outputs: the same two memtables flushed again through the real writer, then the inputs
 * obsoleted and the transaction committed) and prints each step of the protocol. The parent kills
 * it with SIGKILL a varying while after a chosen step: while outputs are written, published,
 * recorded as REMOVE, right after COMMIT, among the deletions of the inputs, after the log is
 * gone. After each kill the consistent view lists exactly the inputs or exactly the outputs of
 * the interrupted compaction (Cassandra's lister agrees, and cassandra-all reads back one whole
 * copy of each memtable), and recovery leaves exactly those files and says which side it kept.
 */
class TransactionLogCrashTest {
    static final String CQL = "CREATE TABLE ks.txncrash (pk int, ck text, v text, n bigint, PRIMARY KEY (pk, ck)) "
            + "WITH compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': 16}";
    static final long NOW = 1_750_000_000L;
    static final long[] SEEDS = {11, 22};
    /** Kill after the n-th line starting with this step (1-based), then after a delay in ms. */
    static final Object[][] KILLS = {
            {"add ", 1, 0}, {"add ", 1, 5}, {"add ", 1, 20}, {"add ", 2, 2}, {"add ", 2, 12}, {"published", 1, 0},
            {"remove ", 1, 0}, {"remove ", 2, 0}, {"outputs synced", 1, 0}, {"committed", 1, 0}, {"deleted ", 2, 0},
            {"deleted ", 9, 1}, {"deleted ", 15, 0}, {"log deleted", 1, 0}, {"committed", 1, 4},
    };

    static Memtable memtable(TableSchema schema, long seed) {
        Memtable m = new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP);
        for (PartitionUpdate u : new RandomUpdates(schema, seed, NOW, 400, 20).next(4000)) m.apply(u);
        m.seal();
        return m;
    }

    /** In lockstep, the child waits after each line it prints until the parent answers with a line. */
    static final String LOCKSTEP = "lockstep";
    private static BufferedReader answers;

    /**
     * Child: args = outDir [lockstep]. Compacts the table's two live sstables into two new ones until killed.
     * In lockstep it cannot run ahead of the parent: without it, a parent slowed down on a loaded machine
     * read a step's line while the child was already a whole compaction further, and killed it there.
     */
    public static void main(String[] args) throws Exception {
        if (args.length > 1 && args[1].equals(LOCKSTEP)) answers = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        TableSchema schema = CqlParser.parse(CQL);
        Path tableDir = schema.directoryUnder(Path.of(args[0]));
        Memtable m1 = memtable(schema, SEEDS[0]), m2 = memtable(schema, SEEDS[1]);
        TableDirectory dir = TableDirectory.open(tableDir);
        while (true) {
            List<Path> inputs = TransactionLog.liveSSTables(tableDir);
            say("inputs " + inputs.size());
            try (TransactionLog txn = TransactionLog.beginCompaction(dir, what -> {
                say(what);
                pause(); // widens each step's window, so a kill can land between any two
            })) {
                new FlushWriter(m2).write(m2.partitionIterator(), m2.partitionCount(), txn.outputs(), true, null, 0);
                say("published");
                new FlushWriter(m1).write(m1.partitionIterator(), m1.partitionCount(), txn.outputs(), true, null, 0);
                say("published");
                for (Path in : inputs) txn.obsolete(in);
                txn.commit();
            }
        }
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
        if (answers != null) {
            try {
                if (answers.readLine() == null) System.exit(3); // the parent is gone
            } catch (java.io.IOException e) {
                System.exit(3);
            }
        }
    }

    private static void pause() {
        try {
            Thread.sleep(1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @TempDir
    Path tmp;

    static List<Integer> generations(List<Path> dataFiles) {
        List<Integer> gens = new ArrayList<>();
        for (Path p : dataFiles) gens.add(Descriptor.generationOf(p.getFileName().toString()));
        return gens;
    }

    @Test
    void aKilledCompactionLeavesAllInputsOrAllOutputs() throws Exception {
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse(CQL);
        Path tableDir = schema.directoryUnder(tmp);
        List<List<Partition>> copies = new ArrayList<>();
        TableDirectory dir = TableDirectory.open(tableDir);
        for (long seed : SEEDS) {
            Memtable m = memtable(schema, seed);
            copies.add(CassandraReader.readAll(new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), dir, true, null, 0).dataPath, CQL));
            m.discard();
        }
        assertNotEquals(copies.get(0), copies.get(1));

        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = System.getProperty("java.class.path");
        int completed = 0, rolledBack = 0;
        for (int round = 0; round < KILLS.length; round++) {
            String step = (String) KILLS[round][0];
            int nth = (Integer) KILLS[round][1];
            int delayMs = (Integer) KILLS[round][2];
            String at = "round " + round + " (kill " + delayMs + " ms after " + step.trim() + " #" + nth + ")";
            List<Integer> inputs = generations(TransactionLog.liveSSTables(tableDir));
            assertEquals(2, inputs.size(), at);

            Process p = new ProcessBuilder(java, "-Xmx256m", "-cp", cp, TransactionLogCrashTest.class.getName(), tmp.toString(), LOCKSTEP)
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            // The child waits after each line for an answer: it is killed exactly after the chosen step (delay 0),
            // or at most one step further (a delay lets it run on, into the writing that follows the step).
            List<Integer> outputs = new ArrayList<>();
            boolean sawCommit = false;
            int seen = 0;
            try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                 java.io.Writer go = new java.io.OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8)) {
                String first = in.readLine();
                assertEquals("inputs 2", first, at);
                while (true) {
                    go.write('\n');
                    go.flush();
                    String line = in.readLine();
                    assertNotNull(line, "child ended early, " + at);
                    if (line.startsWith("add ")) outputs.add(Integer.parseInt(line.substring(4)));
                    if (line.equals("committed")) sawCommit = true;
                    if (line.startsWith("inputs")) throw new AssertionError("the kill step was never reached, " + at);
                    if (line.startsWith(step) && ++seen == nth) break;
                }
                if (delayMs > 0) {
                    go.write('\n');
                    go.flush();
                    Thread.sleep(delayMs);
                }
                p.destroyForcibly(); // SIGKILL on Linux
                assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            }

            // The consistent view, before anything repairs the directory.
            List<Path> live = TransactionLog.liveSSTables(tableDir);
            List<Integer> view = generations(live);
            assertTrue(view.equals(inputs) || (outputs.size() == 2 && view.equals(outputs)),
                    "view " + view + " is neither the inputs " + inputs + " nor the outputs " + outputs + ", " + at);
            boolean kept = view.equals(outputs);
            if (sawCommit) assertTrue(kept, "committed, yet the view shows the inputs, " + at);
            assertEquals(view, TransactionLogCompatibilityTest.cassandraView(tableDir), "Cassandra's lister, " + at);
            List<List<Partition>> data = new ArrayList<>();
            for (Path d : live) data.add(CassandraReader.readAll(d, CQL));
            assertTrue(data.contains(copies.get(0)) && data.contains(copies.get(1)), "one whole copy of each memtable, " + at);

            List<RecoveredTransaction> recovered = TransactionLog.recover(tableDir);
            Leftovers.clean(tableDir);
            System.out.println("TransactionLogCrashTest " + at + ": " + (kept ? "outputs " : "inputs ") + view + " " + recovered);
            assertTrue(recovered.size() <= 1, at);
            if (recovered.size() == 1 && step.equals("log deleted")) {
                // The interrupted compaction is over once its log is gone; the child may already
                // have begun the next one (its log created, perhaps outputs reserved) before the
                // kill landed. That one never committed, so recovery rolls it back.
                assertTrue(kept, "the log was deleted after COMMIT, so the view shows the outputs, " + at);
                assertFalse(recovered.get(0).committed(), "a compaction begun after the log was deleted never committed, " + at);
            } else if (recovered.size() == 1) {
                assertEquals(kept, recovered.get(0).committed(), "recovery kept the side the view showed, " + at);
                if (kept) completed++; else rolledBack++;
            }
            assertEquals(view, generations(TransactionLog.liveSSTables(tableDir)), "recovery keeps what the view showed, " + at);
            List<String> expectedFiles = new ArrayList<>();
            for (int g : view) {
                for (String c : new String[] {"CompressionInfo.db", "Data.db", "Digest.crc32", "Filter.db", "Index.db",
                        "Statistics.db", "Summary.db", "TOC.txt"}) expectedFiles.add("oa-" + g + "-big-" + c);
            }
            expectedFiles.sort(null);
            try (Stream<Path> s = Files.list(tableDir)) {
                assertEquals(expectedFiles, s.map(x -> x.getFileName().toString()).sorted().toList(),
                        "only the kept side's files remain, no log, lock or staging dir, " + at);
            }
        }
        assertTrue(completed > 0 && rolledBack > 0, "kills landed on both sides of the commit point: completed "
                + completed + ", rolled back " + rolledBack);
    }

    /**
     * A read-only reader beside a live compaction in another process: every view is exactly the
     * inputs or exactly the outputs of one compaction (as the child announces its outputs), and cleanup and recovery
     * run from this process never touch the live transaction's files (the child would fail).
     */
    @Test
    void aReaderBesideALiveCompactionSeesOneSideAndCleanupLeavesItAlone() throws Exception {
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse(CQL);
        Path tableDir = schema.directoryUnder(tmp);
        TableDirectory dir = TableDirectory.open(tableDir);
        for (long seed : SEEDS) {
            Memtable m = memtable(schema, seed);
            new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), dir, true, null, 0);
            m.discard();
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                TransactionLogCrashTest.class.getName(), tmp.toString()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        // Each compaction's outputs as the child announced them (a generation may be skipped when a
        // reservation races with our cleanup, so sides are not always consecutive numbers).
        List<List<Integer>> sides = new java.util.concurrent.CopyOnWriteArrayList<>(List.of(List.of(1, 2)));
        java.util.concurrent.atomic.AtomicInteger begun = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger finished = new java.util.concurrent.atomic.AtomicInteger();
        Thread drain = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                List<Integer> adds = new ArrayList<>();
                for (String line; (line = in.readLine()) != null; ) {
                    if (line.startsWith("inputs")) begun.incrementAndGet();
                    if (line.startsWith("add ")) adds.add(Integer.parseInt(line.substring(4)));
                    if (adds.size() == 2) {
                        sides.add(List.copyOf(adds));
                        adds.clear();
                    }
                    if (line.equals("log deleted")) finished.incrementAndGet();
                }
            } catch (java.io.IOException ignored) {
                // the child was killed
            }
        });
        drain.start();
        try {
            while (begun.get() == 0) {
                assertTrue(p.isAlive(), "the child started");
                Thread.sleep(10);
            }
            // Bounded by count: views until the child has finished 4 compactions, at most 50,000.
            int highest = 0, views = 0;
            for (; views < 50_000 && finished.get() < 4; views++) {
                List<Integer> view = generations(TransactionLog.liveSSTables(tableDir));
                assertEquals(2, view.size(), "view " + views + ": " + view);
                // Outputs are visible only after COMMIT, long after their "add" lines were printed;
                // give the reading thread a moment to have read them.
                for (int wait = 0; wait < 100 && !sides.contains(view); wait++) Thread.sleep(10);
                assertTrue(sides.contains(view), "view " + views + " " + view + " is one whole side of " + sides);
                assertTrue(view.get(0) >= highest, "views never go back: " + view);
                highest = view.get(0);
                if (views % 4 == 0) {
                    assertEquals(List.of(), TransactionLog.recover(tableDir), "a live transaction is not recovered");
                    for (Path removed : Leftovers.clean(tableDir).removed()) {
                        // The one thing cleanup may take: a reservation's lock file in the instant between
                        // its creation and its locking (the reserving writer then skips that generation).
                        assertTrue(removed.getFileName().toString().matches("\\.flushline-oa-\\d+\\.lock"),
                                "cleanup removed " + removed + " from a live compaction");
                    }
                }
                assertTrue(p.isAlive(), "the child is still compacting (cleanup took nothing from it), view " + views);
            }
            System.out.println("TransactionLogCrashTest: " + views + " views beside " + finished.get()
                    + " live compactions, up to generation " + highest);
            assertTrue(finished.get() >= 4 && highest >= 5, "the child compacted while we looked: " + finished.get());
        } finally {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
            drain.join();
        }
    }
}

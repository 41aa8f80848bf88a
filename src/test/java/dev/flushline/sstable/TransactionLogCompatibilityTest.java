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
import org.apache.cassandra.db.Directories;
import org.apache.cassandra.db.lifecycle.LifecycleTransaction;
import org.apache.cassandra.io.util.File;
import dev.flushline.testing.CrashState;
import dev.flushline.testing.FlushedModel;
import dev.flushline.oracle.CassandraReferenceWriter;
import org.apache.cassandra.config.Config;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Our transaction logs as cassandra-all 5.0.9 reads them. Real sstables (flushed by FlushWriter)
 * are compacted by a fake compaction (inputs 1 and 2, outputs 3 and 4 = the same memtables
 * flushed again in swapped order, so the two sides read back differently) that stops at every
 * step as a kill -9 would. The same state is built twice: in one copy Cassandra's log-aware
 * lister must list the sstables our view lists, and its startup cleanup
 * ({@code LogTransaction.removeUnfinishedLeftovers}, what a node and {@code sstableutil --cleanup}
 * run) must leave the same sstable files our recovery leaves in the other copy.
 */
class TransactionLogCompatibilityTest {
    static final String CQL = "CREATE TABLE ks.txn (pk int, ck int, v text, PRIMARY KEY (pk, ck)) "
            + "WITH compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': 16}";
    static final long NOW = 1_750_000_000L;

    @TempDir
    Path tmp;

    static TableSchema schema;

    @BeforeAll
    static void init() {
        CassandraOracle.init();
        schema = CqlParser.parse(CQL);
    }

    static Memtable memtable(long seed) {
        Memtable m = new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP);
        for (PartitionUpdate u : new RandomUpdates(schema, seed, NOW, 40, 5).next(300)) m.apply(u);
        m.seal();
        return m;
    }

    static final class Crash extends RuntimeException {
        Crash() {
            super("simulated crash", null, false, false);
        }
    }

    /** Builds the state of a crash at action {@code crashAt} (-1: none); returns the actions run. */
    static int build(Path root, int crashAt) throws IOException {
        Path tableDir = schema.directoryUnder(root);
        Memtable m1 = memtable(1), m2 = memtable(2);
        try {
            TableDirectory dir = TableDirectory.open(tableDir);
            new FlushWriter(m1).write(m1.partitionIterator(), m1.partitionCount(), dir, true, null, 0);
            new FlushWriter(m2).write(m2.partitionIterator(), m2.partitionCount(), dir, true, null, 0);
            int[] counter = {0};
            Path[] crashed = {null};
            TransactionLog.StepListener l = what -> {
                if (counter[0]++ == crashAt) {
                    try {
                        crashed[0] = CrashState.take(tableDir); // what a kill here leaves on disk
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                    throw new Crash();
                }
            };
            TransactionLog txn = TransactionLog.beginCompaction(dir, l);
            try {
                l.step("begun");
                new FlushWriter(m2).write(m2.partitionIterator(), m2.partitionCount(), txn.outputs(), true, null, 0);
                l.step("published 3");
                new FlushWriter(m1).write(m1.partitionIterator(), m1.partitionCount(), txn.outputs(), true, null, 0);
                l.step("published 4");
                txn.obsolete(1);
                txn.obsolete(2);
                txn.commit();
            } catch (Crash c) {
                // Let go of everything this process held, then put back the files as the kill left them.
                txn.close();
                CrashState.restore(crashed[0], tableDir);
                return -1;
            }
            return counter[0];
        } finally {
            m1.discard();
            m2.discard();
        }
    }

    static Path tableDir(Path root) {
        return schema.directoryUnder(root);
    }

    /**
     * sstable component files and logs (as "a log": each copy's has its own id): what both
     * cleanups act on. Staging directories and lock files are ours alone.
     */
    static List<String> sstablesAndLogs(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("oa-") || n.endsWith(".log"))
                    .map(n -> n.endsWith(".log") ? "a log" : n).sorted().toList();
        }
    }

    static List<Integer> ourView(Path dir) throws IOException {
        List<Integer> gens = new ArrayList<>();
        for (Path p : TransactionLog.liveSSTables(dir)) gens.add(Descriptor.generationOf(p.getFileName().toString()));
        return gens;
    }

    /** Generations Cassandra's log-aware lister returns as final (not temporary) with Data.db and TOC.txt. */
    static List<Integer> cassandraView(Path dir) {
        List<File> files = LifecycleTransaction.getFiles(dir, (f, type) -> type == Directories.FileType.FINAL, Directories.OnTxnErr.THROW);
        TreeSet<Integer> withData = new TreeSet<>(), withToc = new TreeSet<>();
        for (File f : files) {
            String n = f.name();
            int g = Descriptor.generationOf(n);
            if (g < 0) continue;
            if (n.endsWith("-Data.db")) withData.add(g);
            if (n.endsWith("-TOC.txt")) withToc.add(g);
        }
        withData.retainAll(withToc);
        return List.copyOf(withData);
    }

    /** Cassandra's startup cleanup of one table directory; false if it refused a log. */
    static boolean cassandraCleanup(Path dir) throws Exception {
        Class<?> c = Class.forName("org.apache.cassandra.db.lifecycle.LogTransaction");
        Method m = c.getDeclaredMethod("removeUnfinishedLeftovers", List.class);
        m.setAccessible(true); // package-private, @VisibleForTesting: the directory-list form of the startup cleanup
        return (Boolean) m.invoke(null, List.of(new File(dir)));
    }

    static List<List<Partition>> readBack(List<Path> dataFiles) {
        List<List<Partition>> out = new ArrayList<>();
        for (Path p : dataFiles) out.add(CassandraReader.readAll(p, CQL));
        return out;
    }

    @Test
    void cassandraListsAndCleansUpEveryCrashStateAsWeDo() throws Exception {
        int actions = build(tmp.resolve("probe"), -1);
        Path probe = tableDir(tmp.resolve("probe"));
        List<List<Partition>> outputs = readBack(TransactionLog.liveSSTables(probe));
        assertEquals(2, outputs.size());
        List<List<Partition>> inputs = List.of(outputs.get(1), outputs.get(0));
        assertFalse(inputs.equals(outputs), "the two sides read back differently");
        int committedAt = 1 + 2 * 3 + 2 + 1; // begun, 2 x (ADD, publish, published), 2 REMOVEs, the directory fsync: the next action is COMMIT
        for (int k = 0; k < actions; k++) {
            Path ours = tableDir(tmp.resolve("ours-" + k));
            Path theirs = tableDir(tmp.resolve("theirs-" + k));
            assertEquals(-1, build(ours.getParent().getParent(), k));
            assertEquals(-1, build(theirs.getParent().getParent(), k));
            boolean committed = k >= committedAt;
            String at = "crash at action " + k;

            List<Integer> view = ourView(ours);
            assertEquals(committed ? List.of(3, 4) : List.of(1, 2), view, at);
            assertEquals(view, cassandraView(ours), "Cassandra's lister, " + at);
            assertEquals(committed ? outputs : inputs, readBack(TransactionLog.liveSSTables(ours)), "data read back, " + at);

            TransactionLog.recover(ours);
            Leftovers.clean(ours);
            assertTrue(cassandraCleanup(theirs), "Cassandra accepted the log, " + at);
            assertEquals(sstablesAndLogs(ours), sstablesAndLogs(theirs), "the same files after both cleanups, " + at);
            assertEquals(committed ? List.of(3, 4) : List.of(1, 2), ourView(theirs), at);
            assertFalse(sstablesAndLogs(theirs).contains("a log"), at);
        }
    }

    @Test
    void cassandraReadsATornCommitAsWeDoAndRefusesACorruptMiddleLineAsWeDo() throws Exception {
        int committedAt = 1 + 2 * 3 + 2 + 1;
        Path probe = tableDir(tmp.resolve("probe"));
        build(probe.getParent().getParent(), committedAt);
        int commitLength = Files.readAllLines(logOf(probe)).get(4).length();
        for (int cut : new int[] {0, 1, commitLength / 2, commitLength - 1, commitLength}) {
            Path ours = tableDir(tmp.resolve("ours-cut-" + cut));
            Path theirs = tableDir(tmp.resolve("theirs-cut-" + cut));
            for (Path dir : List.of(ours, theirs)) {
                build(dir.getParent().getParent(), committedAt);
                List<String> lines = Files.readAllLines(logOf(dir));
                Files.writeString(logOf(dir), String.join("\n", lines.subList(0, 4)) + "\n" + lines.get(4).substring(0, cut));
            }
            List<Integer> expected = cut == commitLength ? List.of(3, 4) : List.of(1, 2);
            assertEquals(expected, ourView(ours), "cut " + cut);
            assertEquals(expected, cassandraView(ours), "Cassandra's lister, cut " + cut);
            TransactionLog.recover(ours);
            assertTrue(cassandraCleanup(theirs), "cut " + cut);
            assertEquals(sstablesAndLogs(ours), sstablesAndLogs(theirs), "cut " + cut);
        }

        Path ours = tableDir(tmp.resolve("ours-corrupt"));
        Path theirs = tableDir(tmp.resolve("theirs-corrupt"));
        for (Path dir : List.of(ours, theirs)) {
            build(dir.getParent().getParent(), committedAt);
            List<String> lines = new ArrayList<>(Files.readAllLines(logOf(dir)));
            lines.set(1, lines.get(1).replace("][", "][1")); // a checksum with an extra leading digit
            Files.write(logOf(dir), lines);
        }
        List<String> before = sstablesAndLogs(ours);
        assertEquals(2, assertThrows(TransactionLogCorruptException.class, () -> TransactionLog.recover(ours)).lineNumber());
        assertFalse(cassandraCleanup(theirs), "Cassandra refuses the log too");
        assertEquals(before, sstablesAndLogs(ours));
        assertEquals(sstablesAndLogs(ours), sstablesAndLogs(theirs), "neither deleted anything");
    }

    // ---- logs naming nb and da sstables ----

    /**
     * The inputs of the mixed-version compaction, built once: nb-1 (our flush of memtable 1 as nb)
     * and da-2 (Cassandra's own flush, as a node writes da, of memtable 2's content).
     */
    static Path mixedInputs(Path root) throws IOException {
        Path tableDir = schema.directoryUnder(root);
        Memtable m1 = memtable(1);
        try {
            new FlushWriter(m1, SSTableVersion.NB).write(m1.partitionIterator(), m1.partitionCount(), TableDirectory.open(tableDir), true, null, 0);
        } finally {
            m1.discard();
        }
        FlushedModel m2 = FlushedModel.of(schema, CQL, new RandomUpdates(schema, 2, NOW, 40, 5), 300, root.resolve("scratch"));
        CassandraReferenceWriter.writeAsFlush(tableDir, CQL, m2.partitions(), m2.stats().minTimestamp(), m2.stats().minLocalDeletionTime(),
                m2.stats().minTtl(), m2.partitions().size(), "da", Config.FlushCompression.table);
        assertEquals(List.of("da-2-bti-Data.db", "nb-1-big-Data.db"),
                sstablesAndLogsOfEveryVersion(tableDir).stream().filter(n -> n.endsWith("Data.db")).toList());
        return tableDir;
    }

    /**
     * As {@link #build}, for inputs nb-1 and da-2 (copied from {@code inputs}) and outputs of
     * {@code outputs}' versions: 3 holds memtable 2, 4 memtable 1.
     */
    static int buildMixed(Path root, Path inputs, SSTableVersion[] outputs, int crashAt) throws IOException {
        Path tableDir = tableDir(root);
        Files.createDirectories(tableDir);
        try (Stream<Path> s = Files.list(inputs)) {
            for (Path p : s.toList()) {
                if (Descriptor.generationOf(p.getFileName().toString()) > 0) {
                    Files.copy(p, tableDir.resolve(p.getFileName()), java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
        Memtable m1 = memtable(1), m2 = memtable(2);
        try {
            TableDirectory dir = TableDirectory.open(tableDir);
            int[] counter = {0};
            Path[] crashed = {null};
            TransactionLog.StepListener l = what -> {
                if (counter[0]++ == crashAt) {
                    try {
                        crashed[0] = CrashState.take(tableDir);
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                    throw new Crash();
                }
            };
            TransactionLog txn = TransactionLog.beginCompaction(dir, l);
            try {
                l.step("begun");
                new FlushWriter(m2, outputs[0]).write(m2.partitionIterator(), m2.partitionCount(), txn.outputs(), true, null, 0);
                l.step("published 3");
                new FlushWriter(m1, outputs[1]).write(m1.partitionIterator(), m1.partitionCount(), txn.outputs(), true, null, 0);
                l.step("published 4");
                txn.obsolete(tableDir.resolve("nb-1-big-Data.db"));
                txn.obsolete(2); // da-2-bti-
                txn.commit();
            } catch (Crash c) {
                txn.close();
                CrashState.restore(crashed[0], tableDir);
                return -1;
            }
            return counter[0];
        } finally {
            m1.discard();
            m2.discard();
        }
    }

    /** Component files of every version and logs (as "a log"). */
    static List<String> sstablesAndLogsOfEveryVersion(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> Descriptor.generationOf(n) > 0 || n.endsWith(".log"))
                    .map(n -> n.endsWith(".log") ? "a log" : n).sorted().toList();
        }
    }

    /**
     * A compaction of nb-1 and da-2 into oa-3 and nb-4 (and, once we write da, into da-3 and nb-4),
     * stopped at every step: Cassandra's lister lists what our view lists, reading the log's nb and
     * da records; its startup cleanup leaves the files our recovery leaves; the data read back is
     * one whole side.
     */
    @Test
    void cassandraReadsOurLogsNamingNbAndDaSSTablesAsWeDo() throws Exception {
        Path inputs = mixedInputs(tmp.resolve("inputs"));
        List<SSTableVersion[]> variants = new ArrayList<>();
        variants.add(new SSTableVersion[] {SSTableVersion.OA, SSTableVersion.NB});
        variants.add(new SSTableVersion[] {SSTableVersion.DA, SSTableVersion.NB});
        for (SSTableVersion[] outputs : variants) {
            String variant = outputs[0] + "+" + outputs[1];
            Path probe = tableDir(tmp.resolve("probe-" + variant));
            int actions = buildMixed(probe.getParent().getParent(), inputs, outputs, -1);
            List<String> outputData = List.of(outputs[0].fileNamePrefix("3") + "Data.db", outputs[1].fileNamePrefix("4") + "Data.db");
            assertEquals(outputData, dataNames(TransactionLog.liveSSTables(probe)));
            List<List<Partition>> outputData0 = readBack(TransactionLog.liveSSTables(probe));
            List<List<Partition>> inputData = readBack(List.of(inputs.resolve("nb-1-big-Data.db"), inputs.resolve("da-2-bti-Data.db")));
            assertEquals(List.of(outputData0.get(1), outputData0.get(0)), inputData, "the outputs hold the inputs' data, swapped");
            assertFalse(inputData.equals(outputData0), "the two sides read back differently");
            int committedAt = 1 + 2 * 3 + 2 + 1;
            for (int k = 0; k < actions; k++) {
                String at = variant + ", crash at action " + k;
                Path ours = tableDir(tmp.resolve("ours-" + variant + "-" + k));
                Path theirs = tableDir(tmp.resolve("theirs-" + variant + "-" + k));
                assertEquals(-1, buildMixed(ours.getParent().getParent(), inputs, outputs, k), at);
                assertEquals(-1, buildMixed(theirs.getParent().getParent(), inputs, outputs, k), at);
                boolean committed = k >= committedAt;
                List<Integer> expected = committed ? List.of(3, 4) : List.of(1, 2);
                assertEquals(expected, ourView(ours), at);
                assertEquals(expected, cassandraView(ours), "Cassandra's lister, " + at);
                assertEquals(committed ? outputData0 : inputData, readBack(TransactionLog.liveSSTables(ours)), "data read back, " + at);
                if (k == committedAt) {
                    String log = Files.readString(logOf(ours));
                    assertTrue(log.contains("/" + outputs[0].fileNamePrefix("3") + ",0,8][") && log.contains("/nb-4-big-,0,8][")
                            && log.contains("REMOVE:[" + ours.toRealPath() + "/nb-1-big-,") && log.contains("REMOVE:[" + ours.toRealPath() + "/da-2-bti-,"), log);
                }
                TransactionLog.recover(ours);
                Leftovers.clean(ours);
                assertTrue(cassandraCleanup(theirs), "Cassandra accepted the log, " + at);
                assertEquals(sstablesAndLogsOfEveryVersion(ours), sstablesAndLogsOfEveryVersion(theirs), "the same files after both cleanups, " + at);
                assertEquals(expected, ourView(theirs), at);
                assertFalse(sstablesAndLogsOfEveryVersion(theirs).contains("a log"), at);
            }
        }
    }

    /**
     * A log naming a da sstable as an output and an nb one as an input, written by hand (a
     * compaction into da leaves such a log; we do not write da yet): committed or not, with the
     * last line torn or whole, Cassandra lists and cleans up as we do.
     */
    @Test
    void cassandraReadsALogAddingADaSSTableAsWeDo() throws Exception {
        Path inputs = mixedInputs(tmp.resolve("inputs"));
        for (String state : new String[] {"uncommitted", "committed", "torn-commit"}) {
            Path ours = tableDir(tmp.resolve("ours-" + state)), theirs = tableDir(tmp.resolve("theirs-" + state));
            for (Path dir : List.of(ours, theirs)) {
                Files.createDirectories(dir);
                try (Stream<Path> s = Files.list(inputs)) {
                    for (Path p : s.toList()) Files.copy(p, dir.resolve(p.getFileName()), java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
                }
                Path log = TransactionLogVersionsTest.writeOurLog(dir, !state.equals("uncommitted"), "da-2-bti-", "nb-1-big-");
                if (state.equals("torn-commit")) {
                    String text = Files.readString(log);
                    Files.writeString(log, text.substring(0, text.length() - 5));
                }
            }
            List<Integer> expected = state.equals("committed") ? List.of(2) : List.of(1);
            assertEquals(expected, ourView(ours), state);
            assertEquals(expected, cassandraView(ours), "Cassandra's lister, " + state);
            TransactionLog.recover(ours);
            Leftovers.clean(ours);
            assertTrue(cassandraCleanup(theirs), state);
            assertEquals(sstablesAndLogsOfEveryVersion(ours), sstablesAndLogsOfEveryVersion(theirs), "the same files after both cleanups, " + state);
            assertEquals(expected, ourView(theirs), state);
        }
    }

    static List<String> dataNames(List<Path> dataFiles) {
        List<String> out = new ArrayList<>();
        for (Path p : dataFiles) out.add(p.getFileName().toString());
        return out;
    }

    static Path logOf(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".log")).findFirst().orElseThrow();
        }
    }
}

package dev.flushline.flush;

import dev.flushline.data.PartitionUpdate;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.Partition;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.Descriptor;
import dev.flushline.sstable.TableDirectory;
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
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Generations come from memory once a table directory is open: a flush costs the same however
 * many sstables the directory holds, and writers in two processes still never share a generation.
 */
class FlushGenerationsTest {
    static final String CQL = "CREATE TABLE ks.gen (pk int, ck int, v text, PRIMARY KEY (pk, ck)) "
            + "WITH compression = {'enabled': 'false'}";
    static final long NOW = 1_750_000_000L;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();

    @TempDir
    Path tmp;

    static Memtable memtable(TableSchema schema, long seed, int updates) {
        Memtable m = new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP);
        for (PartitionUpdate u : new RandomUpdates(schema, seed, NOW, 50, 5).next(updates)) m.apply(u);
        m.seal();
        return m;
    }

    /** Empty stand-ins for published sstables: what a listing has to walk through. */
    static void standIns(Path tableDir, int count) throws Exception {
        Files.createDirectories(tableDir);
        for (int g = 1; g <= count; g++) {
            for (Component c : new Component[] {Component.DATA, Component.INDEX, Component.STATISTICS, Component.TOC}) {
                Files.createFile(tableDir.resolve("oa-" + g + "-big-" + c.fileSuffix()));
            }
        }
    }

    @Test
    void flushAllocationDoesNotGrowWithTheSstablesAlreadyThere() throws Exception {
        TableSchema schema = CqlParser.parse(CQL);
        Path tableDir = schema.directoryUnder(tmp);
        standIns(tableDir, 2000);
        TableDirectory dir = TableDirectory.open(tableDir);
        FlushJob.Options options = FlushJob.Options.simple(tmp);
        List<Long> allocated = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            Memtable m = memtable(schema, i, 200);
            // The whole call on this thread (one range runs inline here), reservation included.
            long before = THREADS.getCurrentThreadAllocatedBytes();
            List<FlushOutcome> outcomes = FlushJob.run(m, options, dir, null);
            long bytes = THREADS.getCurrentThreadAllocatedBytes() - before;
            m.discard();
            assertEquals(1, outcomes.size());
            assertEquals("oa-" + (2001 + i) + "-big-Data.db", outcomes.get(0).result.dataPath.getFileName().toString());
            allocated.add(bytes);
        }
        // The first flush also loads and compiles classes; the steady state is what must stay small.
        // Listing 8,000 names (as every flush used to) allocates several MiB on its own.
        for (int i = 1; i < allocated.size(); i++) {
            assertTrue(allocated.get(i) < 1L << 20, "flush " + i + " allocated " + allocated.get(i) + " bytes: " + allocated);
        }
    }

    /**
     * A directory opened before another writer published more generations: its counter is behind,
     * and the reservation must skip what is published instead of overwriting it.
     */
    @Test
    void aStaleCounterSkipsGenerationsPublishedByAnotherWriter() throws Exception {
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse(CQL);
        Path tableDir = schema.directoryUnder(tmp);
        TableDirectory early = TableDirectory.open(tableDir);
        TableDirectory other = TableDirectory.open(tableDir);
        FlushJob.Options options = FlushJob.Options.simple(tmp);
        for (int i = 0; i < 3; i++) {
            Memtable m = memtable(schema, 100 + i, 100);
            FlushJob.run(m, options, other, null);
            m.discard();
        }
        Descriptor d = early.reserveNext();
        try {
            assertEquals(4, d.generation(), "generations 1..3 are published by the other writer");
        } finally {
            d.releaseReservation();
            Files.deleteIfExists(d.stagingDir());
        }
    }

    /** Child: flushes {@code count} memtables into the table directory under {@code args[0]}. */
    public static void main(String[] args) throws Exception {
        Path out = Path.of(args[0]);
        long firstSeed = Long.parseLong(args[1]);
        int count = Integer.parseInt(args[2]);
        TableSchema schema = CqlParser.parse(CQL);
        TableDirectory dir = TableDirectory.open(schema.directoryUnder(out));
        System.out.println("ready");
        System.out.flush();
        for (int i = 0; i < count; i++) {
            Memtable m = memtable(schema, firstSeed + i, 60);
            FlushJob.run(m, FlushJob.Options.simple(out), dir, null);
            m.discard();
        }
        System.out.println("done");
    }

    @Test
    void twoProcessesWritingOneDirectoryNeverShareAGeneration() throws Exception {
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse(CQL);
        Path tableDir = schema.directoryUnder(tmp);
        int each = 25;
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                FlushGenerationsTest.class.getName(), tmp.toString(), "5000", Integer.toString(each))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        assertEquals("ready", in.readLine());
        // Both directories are open (both counters at 0) before either writes: they race for every generation.
        TableDirectory dir = TableDirectory.open(tableDir);
        for (int i = 0; i < each; i++) {
            Memtable m = memtable(schema, 1000 + i, 60);
            FlushJob.run(m, FlushJob.Options.simple(tmp), dir, null);
            m.discard();
        }
        assertEquals("done", in.readLine());
        assertTrue(child.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, child.exitValue());

        Set<String> tocs = new TreeSet<>();
        try (Stream<Path> s = Files.list(tableDir)) {
            s.map(p -> p.getFileName().toString()).forEach(n -> {
                assertTrue(!n.startsWith(".flushline-"), "nothing of a writer is left: " + n);
                if (n.endsWith("-TOC.txt")) tocs.add(n);
            });
        }
        assertEquals(2 * each, tocs.size(), "every flush of both processes has its own generation: " + tocs);
        // Each sstable holds exactly one of the memtables: none was overwritten by the other process.
        Set<List<Partition>> expected = new java.util.HashSet<>();
        for (int i = 0; i < each; i++) {
            for (long seed : new long[] {1000 + i, 5000 + i}) {
                Memtable m = memtable(schema, seed, 60);
                expected.add(MemtableModel.of(m));
                m.discard();
            }
        }
        Set<List<Partition>> got = new java.util.HashSet<>();
        for (String toc : tocs) {
            got.add(CassandraReader.readAll(tableDir.resolve(toc.replace("TOC.txt", "Data.db")), CQL));
        }
        assertEquals(expected, got);
    }
}

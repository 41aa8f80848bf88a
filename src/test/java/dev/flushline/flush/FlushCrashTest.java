package dev.flushline.flush;

import dev.flushline.sstable.TableDirectory;

import dev.flushline.data.PartitionUpdate;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.CassandraVerifier;
import dev.flushline.oracle.Partition;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Leftovers;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * kill -9 of a flushing JVM: a child process fills memtables and flushes them in a loop into one
 * table directory until it is killed with SIGKILL at varying moments. Afterwards every published
 * sstable (TOC.txt present) reads back in cassandra-all as exactly the memtable that child built,
 * and verifies; Leftovers.clean removes every staging directory and TOC-less generation and
 * nothing of a published sstable.
 */
class FlushCrashTest {
    static final String CQL = FlushChecks.withCompression("CREATE TABLE ks.crash (pk int, ck text, v text, n bigint, "
            + "tags set<text>, PRIMARY KEY (pk, ck))", true);
    static final long NOW = 1_750_000_000L;
    static final int KILLS = 4;

    /** The memtable of flush {@code seed}: the parent rebuilds it to know what a published sstable must hold. */
    static Memtable memtable(TableSchema schema, long seed) {
        Memtable m = new SkipListMemtable(schema, AllocationMode.OFFHEAP_OBJECTS);
        for (PartitionUpdate u : new RandomUpdates(schema, seed, NOW, 300, 20).next(4000)) m.apply(u);
        m.seal();
        return m;
    }

    /**
     * Child: args = outDir, seed. Fills one memtable, then flushes it again and again until killed:
     * nearly all of its time is spent inside a flush, so a kill usually lands mid-flush.
     */
    public static void main(String[] args) throws Exception {
        Path out = Path.of(args[0]);
        long seed = Long.parseLong(args[1]);
        TableSchema schema = CqlParser.parse(CQL);
        Path tableDir = schema.directoryUnder(out);
        Memtable m = memtable(schema, seed);
        TableDirectory dir = TableDirectory.open(tableDir);
        while (true) {
            FlushResult r = new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), dir, true, null, 0);
            System.out.println("published " + r.dataPath.getFileName() + " seed " + seed);
            System.out.flush();
        }
    }

    @TempDir
    Path tmp;

    @Test
    void killedFlushesLeaveOnlyCompleteSstablesAndCleanableLeftovers() throws Exception {
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse(CQL);
        Path tableDir = schema.directoryUnder(tmp);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = System.getProperty("java.class.path");
        List<Long> seedsUsed = new ArrayList<>();
        for (int run = 0; run < KILLS; run++) {
            long firstSeed = 1000L * (run + 1);
            Process p = new ProcessBuilder(java, "-Xmx256m", "-cp", cp, FlushCrashTest.class.getName(), tmp.toString(),
                    Long.toString(firstSeed)).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            // Let it publish 1..2 sstables, then kill it a varying while into the next flush
            // (reading lines only orders the kill after a publish; the moment itself is arbitrary).
            int publishes = 1 + run % 2;
            BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            for (int i = 0; i < publishes; i++) {
                String line = in.readLine();
                assertTrue(line != null && line.startsWith("published "), "child output: " + line);
            }
            Thread.sleep(new long[] {0, 2, 7, 15}[run]);
            p.destroyForcibly();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            seedsUsed.add(firstSeed);
        }

        // Every published sstable before cleanup.
        Set<String> published = new TreeSet<>();
        try (Stream<Path> s = Files.list(tableDir)) {
            s.map(x -> x.getFileName().toString()).filter(n -> n.endsWith("-TOC.txt")).forEach(n -> published.add(n.replace("TOC.txt", "")));
        }
        assertTrue(published.size() >= KILLS + KILLS / 2, "at least the flushes the children acknowledged are published: " + published);

        Leftovers.Result cleaned = Leftovers.clean(tableDir);
        List<Path> removed = cleaned.removed();
        // Every TOC-less generation a killed child left is its own: its dead lock is beside it, so none is left alone.
        assertEquals(List.of(), cleaned.incomplete(), "a crashed flush of ours left something cleanup could not prove its own");
        // Whether a kill landed mid-flush is up to the scheduler; print it so a run shows what it exercised.
        System.out.println("FlushCrashTest: published " + published.size() + ", leftovers removed " + removed);
        for (Path r : removed) {
            String name = r.getFileName().toString();
            assertFalse(published.stream().anyMatch(name::startsWith), "cleanup removed part of a published sstable: " + name);
        }
        try (Stream<Path> s = Files.list(tableDir)) {
            for (Path x : (Iterable<Path>) s::iterator) {
                String name = x.getFileName().toString();
                assertFalse(name.startsWith(".flushline-"), "staging dir left: " + name);
                assertTrue(published.stream().anyMatch(name::startsWith), "file of a TOC-less generation left: " + name);
            }
        }

        // Each published sstable holds exactly one whole memtable.
        Map<Long, List<Partition>> models = new HashMap<>();
        for (long s : seedsUsed) {
            Memtable m = memtable(schema, s);
            models.put(s, MemtableModel.of(m));
            m.discard();
        }
        for (String prefix : published) {
            List<Partition> got = CassandraReader.readAll(tableDir.resolve(prefix + "Data.db"), CQL);
            assertTrue(models.containsValue(got), prefix + " reads back as one of the child's memtables");
        }
        assertEquals(List.of(), CassandraVerifier.verify(tableDir, CQL), "sstableverify -e over every published sstable");
    }
}

package dev.flushline.table;

import dev.flushline.compaction.CompactionStrategyOptions;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.flush.FlushJob;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.oracle.Bytes;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.Partition;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.TableDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * kill -9 during background compaction: a child JVM writes a fixed set of updates through a
 * {@link Flusher} with small memtables, flushes everything, then starts background compaction
 * (size-tiered, throttled so that compactions take a while) and is killed with SIGKILL at a
 * varying moment while it compacts. Reopening the table directory recovers the interrupted
 * transaction. Keys are pairwise distinct, so each partition lives in exactly one sstable: after
 * recovery no partition may be in two live sstables (inputs and outputs both live) or missing,
 * and the live sstables read back by cassandra-all are exactly the updates.
 */
class BackgroundCompactionCrashTest {
    static final int OPERATIONS = 3000;
    static final int KILLS = 3;
    /** More kills (up to this many) while none has yet landed inside, or after, a compaction: timing varies by machine load. */
    static final int MAX_KILLS = 8;
    private static final long[] KILL_AFTER_MILLIS = {300, 1100, 2000, 600, 1500, 800, 2500, 450};

    /** Child: args = outDir, seed. */
    public static void main(String[] args) throws Exception {
        Path out = Path.of(args[0]);
        long seed = Long.parseLong(args[1]);
        TableSchema schema = CqlParser.parse(FlusherTest.CQL);
        Flusher flusher = new Flusher(() -> new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP), FlushJob.Options.simple(out),
                new Flusher.Limits(96 * 1024, 96 * 1024, 0.5), null);
        for (PartitionUpdate u : FlusherTest.distinctKeyUpdates(schema, seed, OPERATIONS)) flusher.apply(u);
        flusher.forceFlush();
        BackgroundCompactions.Settings s = new BackgroundCompactions.Settings();
        s.strategy = CompactionStrategyOptions.parse(Map.of("class", "SizeTieredCompactionStrategy", "min_threshold", "2"));
        s.threads = 2;
        s.throughputMiBPerSecond = 0.1; // each compaction takes a second or more
        s.nowSeconds = () -> FlusherTest.NOW;
        System.out.println("compacting " + flusher.flushCount() + " sstables");
        System.out.flush();
        BackgroundCompactions c = BackgroundCompactions.start(flusher, s, line -> {
            System.out.println(line);
            System.out.flush();
        });
        c.awaitQuiescent();
        System.out.println("at rest");
        System.out.flush();
        Thread.sleep(60_000);
    }

    @TempDir
    Path tmp;

    @Test
    void killedCompactionsLoseAndDuplicateNothingAfterRecovery() throws Exception {
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse(FlusherTest.CQL);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = System.getProperty("java.class.path");
        int interrupted = 0, completedBeforeKill = 0;
        int runs = 0;
        for (int run = 0; run < MAX_KILLS && (run < KILLS || interrupted == 0 || completedBeforeKill == 0); run++) {
            runs++;
            long seed = 100 + run;
            Path out = tmp.resolve("run-" + run);
            Process p = new ProcessBuilder(java, "-Xmx256m", "-cp", cp, BackgroundCompactionCrashTest.class.getName(), out.toString(),
                    Long.toString(seed)).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line = in.readLine();
            assertTrue(line != null && line.startsWith("compacting "), "child output: " + line);
            // Kill a varying while into compaction; with the throttle some compaction is then
            // running (the logs left behind below show how many kills interrupted one).
            List<String> lines = Collections.synchronizedList(new ArrayList<>());
            Thread reader = new Thread(() -> {
                try {
                    for (String l; (l = in.readLine()) != null; ) lines.add(l);
                } catch (IOException closed) {
                    // the kill closed the pipe
                }
            });
            reader.start();
            Thread.sleep(KILL_AFTER_MILLIS[run]);
            p.destroyForcibly();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            reader.join(10_000);
            synchronized (lines) {
                for (String l : lines) {
                    if (l.startsWith("Compacted (")) completedBeforeKill++;
                }
            }

            Path tableDir = schema.directoryUnder(out);
            if (hasTransactionLog(tableDir)) interrupted++;
            TableDirectory.open(tableDir); // recovery: finishes or rolls back the interrupted transaction
            assertTrue(!hasTransactionLog(tableDir), "recovery removed the transaction log");

            Map<Bytes, String> owner = new HashMap<>();
            List<Partition> got = new ArrayList<>();
            for (SSTableFiles f : SSTableFiles.inDirectory(tableDir)) {
                Path data = f.path(Component.DATA);
                for (Partition part : CassandraReader.readAll(data, FlusherTest.CQL)) {
                    String before = owner.put(part.key(), data.getFileName().toString());
                    assertTrue(before == null, "run " + run + ": partition " + part.key() + " in " + before + " and " + data.getFileName());
                    got.add(part);
                }
            }
            got.sort((a, b) -> PartitionKey.of(a.key().toArray()).compareTo(PartitionKey.of(b.key().toArray())));
            assertEquals(FlusherTest.expected(schema, FlusherTest.distinctKeyUpdates(schema, seed, OPERATIONS)), got,
                    "run " + run + ": every update is in exactly one live sstable after recovery");
        }
        System.out.println("BackgroundCompactionCrashTest: " + runs + " kills, " + interrupted + " interrupted a compaction, "
                + completedBeforeKill + " compactions completed before the kills");
        assertTrue(interrupted >= 1, "at least one kill landed inside a compaction");
        assertTrue(completedBeforeKill >= 1, "at least one compaction committed before a kill");
    }

    private static boolean hasTransactionLog(Path dir) throws Exception {
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*_txn_*.log")) {
            return ds.iterator().hasNext();
        }
    }
}

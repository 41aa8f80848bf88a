package dev.flushline.commitlog;

import dev.flushline.data.Cell;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.Row;
import dev.flushline.table.DurableTable;
import dev.flushline.flush.FlushJob;
import dev.flushline.table.Flusher;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.oracle.Bytes;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.Partition;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * kill -9 of a JVM writing through a DurableTable in batch mode. A child applies numbered
 * operations (op i writes row ck=i of partition i % 64, value "v<i>", timestamp BASE + i) and
 * prints {@code durable: i} after each acknowledged write; small memtables make it flush often.
 * The parent kills it during writes, during flushes, and between publishing sstables and
 * releasing segments (the child pauses there, through {@link DurableTable.Options#withBeforeRelease}).
 * Each child starts by replaying what the previous one left. At the end the parent opens the
 * table once more and cassandra-all must read back every acknowledged operation, each copy of a
 * row exactly as written (replayed duplicates are identical, so they read back the same), and no
 * staging dir or TOC-less generation.
 */
class CommitLogCrashTest {
    static final String CQL = "CREATE TABLE ks.crashlog (pk int, ck int, v text, PRIMARY KEY (pk, ck)) "
            + "WITH compression = {'enabled': 'false'}";
    static final long BASE_TIMESTAMP = 1_700_000_000_000_000L;
    static final int PARTITIONS = 64;
    /** Op numbers of run r start at r * RUN_STRIDE, so runs never write the same row. */
    static final long RUN_STRIDE = 1_000_000;

    static PartitionUpdate op(TableSchema schema, long i) {
        Cell[] cells = new Cell[schema.regularComplexStart()];
        cells[0] = Cell.live(BASE_TIMESTAMP + i, ("v" + i).getBytes(StandardCharsets.UTF_8), null);
        Row row = new Row(false, new byte[][] {int32((int) i)}, BASE_TIMESTAMP + i, 0, Cell.NO_DELETION_TIME,
                DeletionTime.LIVE, cells, new ComplexColumn[0]);
        return new PartitionUpdate(PartitionKey.of(int32((int) (i % PARTITIONS))), DeletionTime.LIVE, List.of(), null, List.of(row));
    }

    static byte[] int32(int v) {
        return ByteBuffer.allocate(4).putInt(v).array();
    }

    static DurableTable.Options options(TableSchema schema, Path out, Path logDir, java.util.function.Consumer<String> log) {
        return new DurableTable.Options(
                new CommitLog.Options(logDir, 64 * 1024, CommitLog.SyncMode.BATCH, 1000, false),
                () -> new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP),
                FlushJob.Options.simple(out), new Flusher.Limits(192 * 1024, 192 * 1024, 0.5),
                o -> {
                    System.out.println("published " + o.result.dataPath.getFileName());
                    System.out.flush();
                }, log);
    }

    /** Child: args = outDir, logDir, first op number, milliseconds to pause before each release. Writes until killed. */
    public static void main(String[] args) throws Exception {
        Path out = Path.of(args[0]), logDir = Path.of(args[1]);
        long first = Long.parseLong(args[2]);
        long pauseMillis = Long.parseLong(args[3]);
        TableSchema schema = CqlParser.parse(CQL);
        DurableTable t = DurableTable.open(schema, options(schema, out, logDir, line -> {
            System.out.println("log " + line);
            System.out.flush();
        }).withBeforeRelease(() -> {
            try {
                Thread.sleep(pauseMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        for (long i = first; ; i++) {
            t.apply(op(schema, i));
            System.out.println("durable: " + i);
        }
    }

    @TempDir
    Path tmp;

    enum Phase { WRITE, FLUSH, RELEASE }

    @Test
    void everyAcknowledgedWriteSurvivesKillsDuringWritesFlushesAndRelease() throws Exception {
        Path out = tmp.resolve("out"), logDir = tmp.resolve("log");
        TableSchema schema = CqlParser.parse(CQL);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = System.getProperty("java.class.path");
        Random random = new Random(42);
        Phase[] plan = {Phase.WRITE, Phase.FLUSH, Phase.RELEASE, Phase.WRITE, Phase.FLUSH, Phase.RELEASE};
        Map<Integer, Long> lastDurable = new HashMap<>();
        List<String> replayLines = Collections.synchronizedList(new ArrayList<>());
        for (int run = 0; run < plan.length; run++) {
            long first = run * RUN_STRIDE;
            List<String> cmd = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-Xshare:auto"));
            cmd.addAll(List.of("-cp", cp, CommitLogCrashTest.class.getName(), out.toString(), logDir.toString(), Long.toString(first),
                    plan[run] == Phase.RELEASE ? "3000" : "0"));
            Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            // A reader thread tracks the child's output; destroyForcibly closes the pipe, so lines
            // still in it at the kill are not seen: the parent's count of acknowledged ops can only
            // be lower than the child's, which keeps the check sound.
            AtomicLong durableSeen = new AtomicLong(-1);
            AtomicInteger publishedSeen = new AtomicInteger();
            Thread reader = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = in.readLine()) != null) {
                        if (line.startsWith("durable: ")) durableSeen.set(Long.parseLong(line.substring(9)));
                        // Only flushes of this run's writes count; the replay at open publishes too.
                        else if (line.startsWith("published ") && durableSeen.get() >= first) publishedSeen.incrementAndGet();
                        else if (line.startsWith("log Replayed")) {
                            synchronized (replayLines) {
                                replayLines.add(line);
                            }
                        }
                    }
                } catch (IOException closedByKill) {
                    // the kill closed the pipe
                }
            });
            reader.setDaemon(true);
            reader.start();
            int wantPublished = plan[run] == Phase.WRITE ? 0 : 1 + random.nextInt(2);
            int wantDurable = 300 + random.nextInt(1500);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (plan[run] == Phase.WRITE ? durableSeen.get() - first < wantDurable : publishedSeen.get() < wantPublished) {
                assertTrue(p.isAlive(), "child of run " + run + " died on its own");
                assertTrue(System.nanoTime() < deadline, "child of run " + run + " made no progress");
                Thread.sleep(1);
            }
            if (plan[run] == Phase.FLUSH) Thread.sleep(random.nextInt(40)); // somewhere in or after the next flush
            if (plan[run] == Phase.WRITE) Thread.sleep(random.nextInt(10));
            // RELEASE: kill at once; the child is inside its 3 s pause between publish and release.
            p.destroyForcibly();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            reader.join(10_000);
            long durable = durableSeen.get();
            int published = publishedSeen.get();
            assertTrue(durable >= first, "run " + run + " acknowledged writes before the kill");
            lastDurable.put(run, durable);
            System.out.println("CommitLogCrashTest run " + run + " " + plan[run] + ": ops " + first + ".." + durable
                    + " acknowledged, " + published + " sstables published before the kill");
        }

        // Recovery in this JVM: replay what the last child left, flush, release.
        List<String> messages = new ArrayList<>();
        DurableTable.open(schema, options(schema, out, logDir, messages::add)).close();
        replayLines.addAll(messages);
        System.out.println("CommitLogCrashTest replays: " + replayLines);
        assertTrue(List.copyOf(replayLines).stream().anyMatch(l -> l.matches(".*Replayed [1-9]\\d* mutations from \\d+ segments")),
                "some run had something to replay: " + replayLines);

        Path tableDir = schema.directoryUnder(out);
        Set<String> generations = new TreeSet<>();
        try (Stream<Path> s = Files.list(tableDir)) {
            s.map(x -> x.getFileName().toString()).filter(n -> n.endsWith("-TOC.txt")).forEach(n -> generations.add(n.replace("TOC.txt", "")));
        }
        try (Stream<Path> s = Files.list(tableDir)) {
            for (Path x : (Iterable<Path>) s::iterator) {
                String name = x.getFileName().toString();
                assertFalse(name.startsWith(".flushline-"), "staging dir left: " + name);
                assertTrue(generations.stream().anyMatch(name::startsWith), "file of a TOC-less generation left: " + name);
            }
        }

        CassandraOracle.init();
        List<Partition> all = CassandraReader.readAll(tableDir, CQL);
        Map<Long, Integer> copies = new HashMap<>();
        for (Partition part : all) {
            int pk = part.key().toBuffer().getInt();
            for (dev.flushline.oracle.Row r : part.rows()) {
                long ck = r.clustering().get(0).toBuffer().getInt();
                assertEquals(ck % PARTITIONS, pk, "row " + ck + " in its partition");
                assertEquals(BASE_TIMESTAMP + ck, r.liveness().timestamp(), "row " + ck + " liveness as written");
                assertEquals(1, r.columns().size());
                dev.flushline.oracle.Cell c = (dev.flushline.oracle.Cell) r.columns().get(0);
                assertEquals(Bytes.utf8("v" + ck), c.value(), "row " + ck + " value as written");
                assertEquals(BASE_TIMESTAMP + ck, c.timestamp());
                int run = (int) (ck / RUN_STRIDE);
                Long last = lastDurable.get(run);
                assertNotNull(last, "row " + ck + " from a run that exists");
                assertTrue(ck >= run * RUN_STRIDE, "row " + ck + " belongs to run " + run);
                copies.merge(ck, 1, Integer::sum);
            }
        }
        long duplicated = copies.values().stream().filter(n -> n > 1).count();
        for (Map.Entry<Integer, Long> e : lastDurable.entrySet()) {
            for (long i = e.getKey() * RUN_STRIDE; i <= e.getValue(); i++) {
                assertTrue(copies.containsKey(i), "acknowledged op " + i + " is in the sstables");
            }
        }
        System.out.println("CommitLogCrashTest: " + copies.size() + " rows in " + generations.size() + " sstables, " + duplicated
                + " rows present in more than one sstable (replayed after publish, identical)");
    }
}

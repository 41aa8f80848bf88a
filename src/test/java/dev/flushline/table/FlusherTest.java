package dev.flushline.table;

import dev.flushline.flush.FlushJob;
import dev.flushline.flush.FlushConservationException;
import dev.flushline.flush.MemtableModel;

import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
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

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FlusherTest {
    static final String CQL = "CREATE TABLE ks.f (pk int, ck int, v text, s text static, tags set<text>, PRIMARY KEY (pk, ck)) "
            + "WITH compression = {'enabled': 'false'}";
    static final long NOW = 1_750_000_000L;

    @TempDir
    Path out;

    /** Updates with pairwise distinct partition keys, so the sstables of several flushes never overlap. */
    static List<PartitionUpdate> distinctKeyUpdates(TableSchema schema, long seed, int count) {
        RandomUpdates gen = new RandomUpdates(schema, seed, NOW, count * 4, 5);
        gen.partitionDeleteChance = 0;
        List<PartitionUpdate> out = new ArrayList<>();
        Set<PartitionKey> seen = new HashSet<>();
        while (out.size() < count) {
            PartitionUpdate u = gen.next();
            if (seen.add(u.key())) out.add(u);
        }
        return out;
    }

    static List<Partition> expected(TableSchema schema, List<PartitionUpdate> updates) {
        Memtable m = new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP);
        for (PartitionUpdate u : updates) m.apply(u);
        m.seal();
        return MemtableModel.of(m);
    }

    /** All sstables under the table dir, read by cassandra-all, partitions sorted by token. */
    static List<Partition> readBack(Path outDir, TableSchema schema) {
        Path tableDir = schema.directoryUnder(outDir);
        List<Partition> all = new ArrayList<>(CassandraReader.readAll(tableDir, CQL));
        all.sort((a, b) -> PartitionKey.of(a.key().toArray()).compareTo(PartitionKey.of(b.key().toArray())));
        return all;
    }

    static long dataFiles(Path outDir) throws IOException {
        if (!Files.exists(outDir)) return 0;
        try (Stream<Path> s = Files.walk(outDir)) {
            return s.filter(p -> p.getFileName().toString().endsWith("-Data.db")).count();
        }
    }

    /** What {@link #runWriters} saw: each writer's acknowledged updates, and what stopped writers. */
    record Writers(List<PartitionUpdate> acknowledged, List<Throwable> failures, List<Thread> stuck) {}

    /**
     * {@code writers} threads apply {@code updates} round-robin until done or until apply throws;
     * each is joined with a bound that only guards against a hang.
     */
    static Writers runWriters(Flusher flusher, List<PartitionUpdate> updates, int writers) throws InterruptedException {
        List<List<PartitionUpdate>> acknowledged = new ArrayList<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            List<PartitionUpdate> mine = new ArrayList<>();
            acknowledged.add(mine);
            final int first = w;
            Thread t = new Thread(() -> {
                try {
                    for (int i = first; i < updates.size(); i += writers) {
                        flusher.apply(updates.get(i));
                        mine.add(updates.get(i));
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "test-writer-" + w);
            threads.add(t);
            t.start();
        }
        List<Thread> stuck = new ArrayList<>();
        for (Thread t : threads) {
            t.join(300_000);
            if (t.isAlive()) stuck.add(t);
        }
        List<PartitionUpdate> acked = new ArrayList<>();
        for (List<PartitionUpdate> l : acknowledged) acked.addAll(l);
        return new Writers(acked, failures, stuck);
    }

    @Test
    void drainFlushesEverythingAcrossSeveralMemtables() throws Exception {
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse(CQL);
        List<PartitionUpdate> updates = distinctKeyUpdates(schema, 7, 3000);
        Flusher.Limits limits = new Flusher.Limits(256 * 1024, 256 * 1024, 0.5);
        // Unslabbed: its accounting grows with each write; slab modes own memory in whole 1 MiB slabs.
        Flusher flusher = new Flusher(() -> new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP),
                FlushJob.Options.simple(out), limits, null);
        for (PartitionUpdate u : updates) flusher.apply(u);
        flusher.close();
        assertTrue(flusher.flushCount() > 1 && flusher.flushCount() < 100,
                "small limits must force several (not thousands of) flushes, got " + flusher.flushCount());
        assertEquals(flusher.flushCount(), dataFiles(out));
        assertEquals(0, flusher.pendingFlushes());
        assertEquals(expected(schema, updates), readBack(out, schema));
    }

    @Test
    void writersBlockWhileFlushingFallsBehindAndAreReleased() throws Exception {
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse(CQL);
        List<PartitionUpdate> updates = distinctKeyUpdates(schema, 11, 2000);
        CountDownLatch flushStarted = new CountDownLatch(1);
        CountDownLatch releaseFlush = new CountDownLatch(1);
        Flusher.FlushRunner held = (m, o, d, p) -> {
            flushStarted.countDown();
            try {
                releaseFlush.await();
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
            return FlushJob.run(m, o, d, p);
        };
        Flusher flusher = new Flusher(() -> new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP),
                FlushJob.Options.simple(out), new Flusher.Limits(128 * 1024, 128 * 1024, 0.5), null, held);
        AtomicInteger applied = new AtomicInteger();
        AtomicReference<Throwable> writerFailure = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            try {
                for (PartitionUpdate u : updates) {
                    flusher.apply(u);
                    applied.incrementAndGet();
                }
            } catch (Throwable t) {
                writerFailure.set(t);
            }
        });
        writer.start();
        flushStarted.await();
        // With the flush held, the writer must end up parked in back-pressure, not finish.
        while (writer.getState() != Thread.State.TIMED_WAITING && writer.getState() != Thread.State.WAITING) {
            assertTrue(writer.isAlive(), "writer finished although the only flush is held: no back-pressure");
            Thread.onSpinWait();
        }
        int blockedAt = applied.get();
        assertTrue(blockedAt < updates.size(), "writer blocked before applying everything");
        releaseFlush.countDown();
        writer.join();
        assertNull(writerFailure.get());
        assertEquals(updates.size(), applied.get());
        assertTrue(flusher.writerBlockedNanos() > 0, "blocked time is counted");
        flusher.close();
        assertEquals(expected(schema, updates), readBack(out, schema));
    }

    /** Fast retries for tests: the policy's shape matters here, not its pauses. */
    static final Flusher.FailurePolicy QUICK = new Flusher.FailurePolicy(2, 1, 4);

    @Test
    void transientFailureIsLoggedAtOnceAndRetriedAutomatically() throws Exception {
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse(CQL);
        List<PartitionUpdate> updates = distinctKeyUpdates(schema, 13, 500);
        AtomicInteger calls = new AtomicInteger();
        Flusher.FlushRunner failingTwice = (m, o, d, p) -> {
            if (calls.getAndIncrement() < 2) throw new IOException("injected: No space left on device");
            return FlushJob.run(m, o, d, p);
        };
        List<String> log = java.util.Collections.synchronizedList(new ArrayList<>());
        Flusher flusher = new Flusher(() -> new SkipListMemtable(schema, AllocationMode.OFFHEAP_OBJECTS),
                FlushJob.Options.simple(out), new Flusher.Limits(64L << 20, 64L << 20, 0.5), null, failingTwice, QUICK, log::add);
        for (PartitionUpdate u : updates) flusher.apply(u);
        flusher.forceFlush(); // the third attempt succeeds: no exception
        assertEquals(3, calls.get());
        assertEquals(2, flusher.failedAttempts());
        assertNull(flusher.failedState());
        assertEquals(2, log.size(), "one line per failed attempt: " + log);
        for (String line : log) {
            assertTrue(line.contains("No space left on device") && line.contains("retrying in"), line);
        }
        assertEquals(1, dataFiles(out), "published once");
        flusher.close();
        assertEquals(expected(schema, updates), readBack(out, schema));
    }

    /**
     * A flush that keeps failing puts the flusher in its failed state: writers blocked on memory
     * wake with the cause, later writes are refused, nothing hangs and nothing is published; once
     * the cause is gone, retryFailedFlushes publishes exactly what was acknowledged.
     */
    @Test
    void persistentFailureStopsEveryWriterWithTheCauseAndRetryRecovers() throws Exception {
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse(CQL);
        List<PartitionUpdate> updates = distinctKeyUpdates(schema, 17, 4000);
        java.util.concurrent.atomic.AtomicBoolean diskFull = new java.util.concurrent.atomic.AtomicBoolean(true);
        Flusher.FlushRunner runner = (m, o, d, p) -> {
            if (diskFull.get()) throw new IOException("injected: No space left on device");
            return FlushJob.run(m, o, d, p);
        };
        List<String> log = java.util.Collections.synchronizedList(new ArrayList<>());
        Flusher flusher = new Flusher(() -> new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP),
                FlushJob.Options.simple(out), new Flusher.Limits(64 * 1024, 64 * 1024, 0.5), null, runner, QUICK, log::add);
        int writers = 3;
        Writers run = runWriters(flusher, updates, writers);
        assertEquals(List.of(), run.stuck(), "a writer still waits after the flusher failed");
        List<Throwable> failures = run.failures();
        assertEquals(writers, failures.size(), "every writer is stopped: " + failures);
        for (Throwable f : failures) {
            assertTrue(f instanceof FlusherFailedException, "writers get the failed state: " + f);
            assertTrue(f.getMessage().contains("No space left on device"), "the cause is named: " + f.getMessage());
        }
        assertNotNull(flusher.failedState());
        assertEquals(QUICK.maxRetries + 1, flusher.failedAttempts(), "retried as the policy says, then stopped");
        assertTrue(log.get(log.size() - 1).contains("stopped"), "giving up is logged: " + log);
        assertThrows(FlusherFailedException.class, () -> flusher.apply(updates.get(0)), "later writes are refused");
        assertThrows(FlusherFailedException.class, flusher::forceFlush);
        assertEquals(0, dataFiles(out), "nothing was published");

        diskFull.set(false);
        flusher.retryFailedFlushes();
        flusher.forceFlush();
        assertNull(flusher.failedState());
        flusher.close();
        List<PartitionUpdate> acked = run.acknowledged();
        assertTrue(acked.size() < updates.size(), "the writers were stopped part way");
        assertEquals(expected(schema, acked), readBack(out, schema), "every acknowledged write, and only those");
    }

    @Test
    void aFailureThatIsNotAnIoErrorIsNotRetried() throws Exception {
        TableSchema schema = CqlParser.parse(CQL);
        AtomicInteger calls = new AtomicInteger();
        Flusher.FlushRunner broken = (m, o, d, p) -> {
            calls.incrementAndGet();
            throw new FlushConservationException("injected: wrote 1 rows but the memtable counted 2");
        };
        List<String> log = java.util.Collections.synchronizedList(new ArrayList<>());
        Flusher flusher = new Flusher(() -> new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP),
                FlushJob.Options.simple(out), new Flusher.Limits(64L << 20, 64L << 20, 0.5), null, broken, QUICK, log::add);
        for (PartitionUpdate u : distinctKeyUpdates(schema, 19, 50)) flusher.apply(u);
        FlusherFailedException e = assertThrows(FlusherFailedException.class, flusher::forceFlush);
        assertTrue(e.getMessage().contains("wrote 1 rows"), e.getMessage());
        assertEquals(1, calls.get(), "a corruption check is not retried");
        assertTrue(log.get(0).contains("not retried"), log.toString());
        assertThrows(FlusherFailedException.class, flusher::close);
    }

    /**
     * N bytes of data under a switch threshold T make about N / T memtable flushes, whatever the
     * allocation mode and the number of shards: the switch counts the bytes the data takes, not
     * the whole slabs an allocator owns (which used to switch after every write near a slab).
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "{0} shards={1}")
    @org.junit.jupiter.params.provider.CsvSource({
            "UNSLABBED_HEAP, 1", "HEAP_BUFFERS, 1", "OFFHEAP_OBJECTS, 1",
            "UNSLABBED_HEAP, 4", "HEAP_BUFFERS, 4", "OFFHEAP_OBJECTS, 4"})
    void flushCountFollowsTheDataNotTheSlabs(AllocationMode mode, int shards) throws Exception {
        TableSchema schema = CqlParser.parse(CQL);
        List<PartitionUpdate> updates = distinctKeyUpdates(schema, 23, 24_000);
        java.util.function.Supplier<Memtable> memtables = shards == 1 ? () -> new SkipListMemtable(schema, mode)
                : () -> new dev.flushline.memtable.ShardedSkipListMemtable(schema, mode, shards);
        // N: what the same data takes in one memtable.
        Memtable all = memtables.get();
        for (PartitionUpdate u : updates) all.apply(u);
        long onHeap = all.onHeapUsedBytes(), offHeap = all.offHeapUsedBytes();
        all.seal();
        all.discard();
        long threshold = 1L << 20; // a memtable limit of 1 MiB, as `load --memtable-size-mb 1`
        AtomicInteger flushed = new AtomicInteger();
        Flusher.FlushRunner counting = (m, o, d, p) -> {
            flushed.incrementAndGet();
            return List.of();
        };
        Flusher flusher = new Flusher(memtables, FlushJob.Options.simple(out),
                new Flusher.Limits(2 * threshold, 2 * threshold, 0.5), null, counting, QUICK, line -> { });
        for (PartitionUpdate u : updates) flusher.apply(u);
        flusher.close();
        // Every flushed memtable but the last passed T in one of the two measures.
        long most = onHeap / threshold + offHeap / threshold + 1;
        long least = Math.max(onHeap, offHeap) / (2 * threshold);
        assertTrue(flushed.get() <= most + 1 && flushed.get() >= least, mode + " x" + shards + ": " + flushed.get()
                + " memtable flushes for " + onHeap + " B on heap and " + offHeap + " B off heap under " + threshold
                + " B (expected " + least + ".." + (most + 1) + ")");
        assertTrue(most >= 3, "the data spans several memtables: " + onHeap + " / " + offHeap);
    }
}

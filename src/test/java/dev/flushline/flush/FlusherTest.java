package dev.flushline.flush;

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
import static org.junit.jupiter.api.Assertions.assertFalse;
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
        Path tableDir = FlushJob.tableDir(outDir, schema);
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
        Flusher.FlushRunner held = (m, o, p) -> {
            flushStarted.countDown();
            try {
                releaseFlush.await();
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
            return FlushJob.run(m, o);
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

    @Test
    void failedFlushPublishesNothingKeepsItsMemtableAndSucceedsOnRetry() throws Exception {
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse(CQL);
        List<PartitionUpdate> updates = distinctKeyUpdates(schema, 13, 500);
        AtomicInteger calls = new AtomicInteger();
        Flusher.FlushRunner failingOnce = (m, o, p) -> {
            if (calls.getAndIncrement() == 0) throw new IOException("injected: No space left on device");
            return FlushJob.run(m, o);
        };
        Flusher flusher = new Flusher(() -> new SkipListMemtable(schema, AllocationMode.OFFHEAP_OBJECTS),
                FlushJob.Options.simple(out), new Flusher.Limits(64L << 20, 64L << 20, 0.5), null, failingOnce);
        for (PartitionUpdate u : updates) flusher.apply(u);
        IOException e = assertThrows(IOException.class, flusher::forceFlush);
        assertTrue(String.valueOf(e.getMessage()).contains("No space left on device")
                || String.valueOf(e.getCause()).contains("No space left on device"), "the cause is reported: " + e);
        assertNotNull(flusher.lastFailure());
        assertEquals(1, flusher.pendingFlushes(), "the failed memtable is kept for a retry");
        assertEquals(0, dataFiles(out), "nothing was published");
        flusher.retryFailedFlushes();
        flusher.forceFlush();
        assertNull(flusher.lastFailure());
        assertEquals(0, flusher.pendingFlushes());
        assertFalse(dataFiles(out) == 0);
        flusher.close();
        assertEquals(expected(schema, updates), readBack(out, schema));
    }
}

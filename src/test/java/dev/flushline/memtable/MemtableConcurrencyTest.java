package dev.flushline.memtable;

import dev.flushline.table.TableOptions.MemtableKind;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.schema.TableSchema;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Concurrent writers: four threads apply one random, overlapping list of updates (few keys and
 * clusterings, so they contend on partitions and rows) and the memtable must end up holding exactly
 * what one thread applying the list in order produces, and what a shuffled order produces
 * (reconciliation does not depend on arrival order).
 */
class MemtableConcurrencyTest {
    static final long NOW = 1_750_000_000L;

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        long seed = 100;
        for (String cql : new String[] {MemtableFixtures.WIDE, MemtableFixtures.COMPOSITE}) {
            for (MemtableKind kind : MemtableKind.values()) {
                for (AllocationMode mode : AllocationMode.values()) out.add(Arguments.of(cql, kind, mode, seed++));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "[{index}] kind={1} {2}")
    @MethodSource("cases")
    void concurrentEqualsSequentialEqualsShuffled(String cql, MemtableKind kind, AllocationMode mode, long seed) throws Exception {
        CassandraOracle.init();
        TableSchema schema = MemtableFixtures.schema(cql);
        RandomUpdates gen = new RandomUpdates(schema, seed, NOW, 12, 10);
        // More deletions than the default mix, so that shadowing races with writes.
        gen.rowDeleteChance = 0.06;
        gen.rangeDeleteChance = 0.06;
        gen.partitionDeleteChance = 0.03;
        List<PartitionUpdate> updates = gen.next(4_000);

        Memtable sequential = new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP);
        for (PartitionUpdate u : updates) assertTrue(sequential.apply(u));
        sequential.seal();
        List<String> expected = MemtableFixtures.dump(sequential);

        Memtable shuffledMt = new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP);
        List<PartitionUpdate> shuffled = new ArrayList<>(updates);
        Collections.shuffle(shuffled, new Random(seed));
        for (PartitionUpdate u : shuffled) assertTrue(shuffledMt.apply(u));
        shuffledMt.seal();
        assertLinesEqual(expected, MemtableFixtures.dump(shuffledMt), "shuffled order");

        Memtable concurrent = MemtableFixtures.create(kind, schema, mode);
        int threads = 4;
        CyclicBarrier start = new CyclicBarrier(threads);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> writers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            final int id = t;
            Thread w = new Thread(() -> {
                try {
                    start.await(); // all writers start together, to maximise interleaving
                    for (int i = id; i < updates.size(); i += threads) {
                        if (!concurrent.apply(updates.get(i))) throw new AssertionError("apply refused on an unsealed memtable");
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "writer-" + t);
            writers.add(w);
            w.start();
        }
        for (Thread w : writers) w.join();
        assertNull(failure.get(), () -> "writer failed: " + failure.get());
        concurrent.seal();
        try {
            assertLinesEqual(expected, MemtableFixtures.dump(concurrent), "4 concurrent writers");
            assertEquals(sequential.rowCount(), concurrent.rowCount(), "rowCount");
            assertEquals(sequential.cellCount(), concurrent.cellCount(), "cellCount");
            assertEquals(updates.size(), concurrent.operationCount());
            assertEquals(sequential.minTimestamp(), concurrent.minTimestamp());
            assertEquals(sequential.minLocalDeletionTime(), concurrent.minLocalDeletionTime());
            assertEquals(sequential.minTtl(), concurrent.minTtl());
        } finally {
            concurrent.discard();
        }
    }

    static void assertLinesEqual(List<String> expected, List<String> actual, String what) {
        assertEquals(expected.size(), actual.size(), what + ": partition count");
        for (int i = 0; i < expected.size(); i++) assertEquals(expected.get(i), actual.get(i), what + ": partition " + i);
    }
}

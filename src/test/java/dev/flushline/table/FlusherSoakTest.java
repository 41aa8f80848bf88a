package dev.flushline.table;

import dev.flushline.flush.FlushJob;
import dev.flushline.flush.FlushOutcome;

import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.Partition;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A soak of the write path, bounded by operation count: four writer threads against a small
 * memory limit, with flush failures injected now and then, both before anything is written and
 * after a flush has published (the retry publishes the same data again, which reconciles to the
 * same result). There must be no deadlock, every acknowledged operation must read back through
 * cassandra-all, and the time writers spent blocked is reported.
 */
class FlusherSoakTest {
    static final int WRITERS = 4;
    static final int OPERATIONS = 16_000;

    @TempDir
    Path out;

    @ParameterizedTest(name = "{0}")
    @CsvSource({"UNSLABBED_HEAP, 262144", "OFFHEAP_OBJECTS, 262144", "HEAP_BUFFERS, 262144"})
    void fourWritersSmallLimitInjectedFailuresNothingLost(AllocationMode mode, long limitBytes) throws Exception {
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse(FlusherTest.CQL);
        List<PartitionUpdate> updates = FlusherTest.distinctKeyUpdates(schema, 29, OPERATIONS);
        AtomicInteger attempts = new AtomicInteger();
        AtomicInteger injectedBefore = new AtomicInteger(), injectedAfter = new AtomicInteger();
        // Attempt numbers 5, 10, 15... fail before writing; 7, 14, 21... after publishing. Never
        // four failures in a row, so the policy's retries always get through.
        Flusher.FlushRunner flaky = (m, o, d, p) -> {
            int n = attempts.incrementAndGet();
            if (n % 5 == 0) {
                injectedBefore.incrementAndGet();
                throw new IOException("injected: Input/output error");
            }
            List<FlushOutcome> published = FlushJob.run(m, o, d, p);
            if (n % 7 == 0) {
                injectedAfter.incrementAndGet();
                throw new IOException("injected after publishing: No space left on device");
            }
            return published;
        };
        List<String> log = java.util.Collections.synchronizedList(new ArrayList<>());
        Flusher flusher = new Flusher(() -> new SkipListMemtable(schema, mode), FlushJob.Options.builder(out).ranges(2).build(),
                new Flusher.Limits(limitBytes, limitBytes, 0.5), null, flaky, new Flusher.FailurePolicy(3, 1, 8), log::add);

        FlusherTest.Writers run = FlusherTest.runWriters(flusher, updates, WRITERS);
        for (Thread t : run.stuck()) fail(t.getName() + " is stuck: " + java.util.Arrays.toString(t.getStackTrace()));
        assertEquals(List.of(), run.failures(), "no writer failed: every injected failure was retried");
        flusher.close();
        assertTrue(injectedBefore.get() > 0 && injectedAfter.get() > 0, "failures were injected: " + attempts.get() + " attempts");
        assertEquals(injectedBefore.get() + injectedAfter.get(), flusher.failedAttempts());
        assertEquals(flusher.failedAttempts(), log.size(), "each failed attempt is logged");

        List<PartitionUpdate> acked = run.acknowledged();
        assertEquals(updates.size(), acked.size());
        // Keys are distinct, so each partition comes from one update; a flush retried after it had
        // published wrote some partitions twice, identically.
        Set<Partition> distinct = new LinkedHashSet<>(CassandraReader.readAll(schema.directoryUnder(out), FlusherTest.CQL));
        List<Partition> got = new ArrayList<>(distinct);
        got.sort((a, b) -> PartitionKey.of(a.key().toArray()).compareTo(PartitionKey.of(b.key().toArray())));
        assertEquals(FlusherTest.expected(schema, acked), got, "every acknowledged operation reads back");
        System.out.println("FlusherSoakTest " + mode + ": " + OPERATIONS + " operations from " + WRITERS + " writers, "
                + flusher.memtablesFlushed() + " memtables flushed into " + flusher.flushCount() + " sstables, "
                + injectedBefore.get() + "+" + injectedAfter.get() + " injected failures, writers blocked "
                + flusher.writerBlockedNanos() / 1_000_000 + " ms in total");
    }
}

package dev.flushline.jmh;

import dev.flushline.commitlog.CommitLog;
import dev.flushline.commitlog.MutationLayout;
import dev.flushline.data.Cell;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.Mutation;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.Row;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * <b>Question.</b> How many small mutations per second does the commit log make durable in
 * {@code batch} mode, where a write is acknowledged only after an fsync covers it, and how many
 * writes does one fsync carry (group commit)?
 *
 * <p><b>Hypothesis.</b> Throughput is about (writers waiting) / (fsync latency): every writer that
 * queues while an fsync runs is covered by the next one. One writer is bound by fsync latency
 * (a few thousand per second here); with enough concurrent writers (as a node has client
 * threads) it should pass the goal of 100k durable mutations/s.
 *
 * <p><b>What is measured.</b> One op = one ~60-byte mutation (a row of three small values) appended
 * and durable. {@code appendDurably}: each writer thread appends one and waits for it (many
 * blocked writers, as client threads). {@code appendGroupDurably}: one writer appends a group of
 * 256 and waits once (as {@code flushline load --commitlog} does). Each thread has its own mutation (its bytes are cached after the
 * first append, as a node reuses a mutation's serialization). 32 MiB segments in a temp dir,
 * rolled over as they fill. At teardown it prints appends and fsyncs, so writes per fsync follow.
 *
 * <p><b>@Param axis.</b> writer threads, via JMH's {@code -t} (default 64).
 *
 * <p><b>Run.</b> {@code java -jar jmh/target/benchmarks.jar CommitLogBatchBench.appendDurably -f 1 -wi 1 -i 3 -w 2s -r 3s -t 64}
 * (and {@code -t 1}, {@code -t 8}, {@code -t 128} for the axis);
 * {@code java -jar jmh/target/benchmarks.jar CommitLogBatchBench.appendGroupDurably -f 1 -wi 1 -i 3 -w 2s -r 3s -t 1}.
 *
 * <p><b>Last result</b> (2026-11-30, 2 vCPU AMD EPYC VM, OpenJDK 17.0.15, local ext4, quiet machine;
 * {@code -f 1 -wi 1 -i 3 -w 2s -r 3s}; profiles/2026-11-30-durability/README.md):
 * <pre>
 * appendGroupDurably -t 1     502,338 ± 225,680 durable mutations/s, 256 writes per fsync
 * appendDurably      -t 1      11,453 ±   2,512                     1.0
 * appendDurably      -t 8      39,678 ±  13,909                     4.1
 * appendDurably      -t 64     77,692 ±  66,575                     8.8
 * appendDurably      -t 128    77,046 ±  24,863                     9.0
 * </pre>
 * The goal of 100k/s is met by grouped appends; blocking writers are bound by context switches on
 * 2 cores (85% of CPU in park/unpark at 64 writers, per -prof async).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(64)
public class CommitLogBatchBench {

    @State(Scope.Benchmark)
    public static class Log {
        Path dir;
        CommitLog log;
        TableSchema schema;
        final AtomicLong appends = new AtomicLong();

        @Setup(Level.Trial)
        public void open() throws IOException {
            dir = Files.createTempDirectory("flushline-commitlog-bench-");
            schema = CqlParser.parse("CREATE TABLE ks.small (pk bigint, ck int, a text, b int, c text, PRIMARY KEY (pk, ck))");
            log = CommitLog.open(new CommitLog.Options(dir, CommitLog.Options.DEFAULT_SEGMENT_SIZE_BYTES, CommitLog.SyncMode.BATCH,
                    CommitLog.Options.DEFAULT_PERIODIC_SYNC_MILLIS, false));
        }

        @TearDown(Level.Trial)
        public void close() throws IOException {
            long syncs = log.syncCount(), n = appends.get();
            System.out.printf("%n[CommitLogBatchBench] appends %d, fsyncs %d, %.1f writes per fsync%n", n, syncs,
                    syncs == 0 ? 0.0 : (double) n / syncs);
            log.close();
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
            }
        }
    }

    @State(Scope.Thread)
    public static class Writer {
        Mutation mutation;

        @Setup(Level.Trial)
        public void build(Log shared) {
            long key = Thread.currentThread().getId();
            byte[] pk = new byte[8];
            for (int i = 0; i < 8; i++) pk[i] = (byte) (key >>> (56 - 8 * i));
            Cell[] cells = {Cell.live(Workloads.BASE_TIMESTAMP, "value-a".getBytes(), null),
                    Cell.live(Workloads.BASE_TIMESTAMP, new byte[] {0, 0, 0, 7}, null),
                    Cell.live(Workloads.BASE_TIMESTAMP, "value-c".getBytes(), null)};
            Row row = new Row(false, new byte[][] {{0, 0, 0, 1}}, Workloads.BASE_TIMESTAMP, Cell.NO_TTL, Cell.NO_DELETION_TIME,
                    DeletionTime.LIVE, cells, new ComplexColumn[0]);
            mutation = new Mutation(shared.schema, new PartitionUpdate(PartitionKey.of(pk), DeletionTime.LIVE, List.of(), null,
                    List.of(row)));
            MutationLayout.bytes(mutation); // serialize once; appends reuse the cached bytes
        }
    }

    /** Mutations per group in {@link #appendGroupDurably}, as {@code flushline load --commitlog} groups them. */
    static final int GROUP = 256;

    /**
     * Group commit from one producer: append {@value #GROUP} mutations, then wait once for the
     * fsync that covers the last (what DurableTable.applyGroup and the load command do). Run with
     * {@code -t 1}; one op = one durable mutation.
     */
    @Benchmark
    @org.openjdk.jmh.annotations.OperationsPerInvocation(GROUP)
    public void appendGroupDurably(Log shared, Writer w) throws IOException {
        CommitLog.Entry last = null;
        for (int i = 0; i < GROUP; i++) last = shared.log.append(w.mutation);
        shared.log.awaitDurable(last);
        shared.appends.addAndGet(GROUP);
    }

    @Benchmark
    public void appendDurably(Log shared, Writer w) throws IOException {
        CommitLog.Entry e = shared.log.append(w.mutation);
        shared.log.awaitDurable(e);
        shared.appends.incrementAndGet();
    }
}

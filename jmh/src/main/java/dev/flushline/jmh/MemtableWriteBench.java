package dev.flushline.jmh;

import dev.flushline.data.PartitionUpdate;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.schema.TableSchema;
import dev.flushline.jmh.Workloads.MemtableKind;
import dev.flushline.jmh.Workloads.UpdateShape;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * <b>Question.</b> How many rows per second does one writer thread put into a memtable, for the
 * default bench workload, per memtable class and allocation mode?
 *
 * <p><b>Hypothesis.</b> A {@code SkipListMemtable} takes the default workload at ≥ 1M rows/s on one
 * thread (RocksDB's JNI put managed ~0.55M rows/s on this machine, for scale). The skip-list
 * lookup of the partition (a PartitionKey compare per level) and the row-list insert dominate;
 * the allocation mode adds a copy per cell (heap_buffers: slab slice + BufferCell;
 * offheap_objects: native record + NativeCell peer), so unslabbed_heap, which keeps the parsed
 * cells, should be fastest. Sharding should cost about nothing on one thread (one shard index
 * computation), and win only under contention, which this benchmark does not create.
 *
 * <p><b>Workload.</b> {@link Workloads#STRESS_CQL}, 10 000 partitions × 10 rows = 100 000 rows, 5
 * text values of 16 bytes per row, pre-built once per trial (outside the measured loop) as one
 * {@code PartitionUpdate} per row ({@code shape=ROW}, a single-row INSERT) or per partition
 * ({@code shape=PARTITION}, 10 rows in one update). One benchmark invocation applies all 100 000
 * rows, in build order, to a fresh empty memtable created in {@code @Setup(Level.Invocation)}
 * (each invocation is ~50-200 ms, so the per-invocation setup cost is not in the timing and its
 * timer overhead is negligible); {@code @OperationsPerInvocation(100_000)} makes the score
 * rows/s. The memtable is sealed and discarded (native memory freed) in the invocation teardown,
 * which then runs {@code System.gc()} (untimed) so every invocation starts on a clean 3 GiB heap
 * (fixed with -Xms/-Xmx): the measured loop still pays for its own allocation, not for
 * collecting the previous invocation's memtable.
 * Each write is a fresh row in a fresh-or-growing partition: no reconciliation.
 *
 * <p><b>Megamorphism.</b> The trial setup first writes a slice of the workload into every memtable
 * class × allocation mode (all three cell classes live, both memtable classes at
 * {@code getOrCreate}), then measures one combination.
 *
 * <p><b>@Param axis.</b> {@code memtable} ∈ {SKIPLIST, SHARDED (one shard per core = 2 here)} ×
 * {@code mode} ∈ {UNSLABBED_HEAP, HEAP_BUFFERS, OFFHEAP_OBJECTS} × {@code shape} ∈ {ROW, PARTITION}.
 * Throughput is per thread: one thread, one memtable (run with {@code -t N} and each thread gets
 * its own memtable, so it shows scaling without index contention; the shared-memtable contended
 * case is not measured here).
 *
 * <p><b>Run.</b> {@code java -jar jmh/target/benchmarks.jar MemtableWriteBench -f 1 -wi 3 -i 8 -w 2s -r 2s -prof gc}
 *
 * <p><b>Last result</b> (2026-11-30, 2-core AMD EPYC VM shared with other workers, OpenJDK
 * 17.0.15; rows/s, higher is better; see
 * profiles/2026-11-30-jmh/README.md for the raw table):
 * <pre>
 * run4 (-f 1 -wi 3 -i 8 -w 2s -r 2s -prof gc), rows/s wall median (iterations min-max), rows per
 * writer-CPU second, allocated B/row:
 * SKIPLIST UNSLABBED_HEAP  ROW        1.76M (1.65-1.89M)  cpu 1.81M   421 B
 * SKIPLIST HEAP_BUFFERS    ROW        1.76M (1.52-1.83M)  cpu 1.82M   985 B
 * SKIPLIST OFFHEAP_OBJECTS ROW        1.60M (1.33-1.72M)  cpu 1.66M   541 B
 * SKIPLIST UNSLABBED_HEAP  PARTITION  3.64M (3.53-3.76M)  cpu 3.66M   381 B
 * SKIPLIST HEAP_BUFFERS    PARTITION  2.13M (1.89-2.31M)  cpu 2.35M   945 B
 * SKIPLIST OFFHEAP_OBJECTS PARTITION  2.17M (1.79-2.25M)  cpu 2.19M   501 B
 * SHARDED  UNSLABBED_HEAP  ROW        1.85M (1.64-1.88M)  cpu 1.86M   421 B
 * SHARDED  HEAP_BUFFERS    ROW        1.50M (1.47-1.56M)  cpu 1.51M   985 B
 * SHARDED  OFFHEAP_OBJECTS ROW        1.39M (1.33-1.42M)  cpu 1.39M   541 B
 * SHARDED  UNSLABBED_HEAP  PARTITION  3.65M (3.57-3.74M)  cpu 3.66M   381 B
 * SHARDED  HEAP_BUFFERS    PARTITION  2.45M (2.38-2.47M)  cpu 2.44M   945 B
 * SHARDED  OFFHEAP_OBJECTS PARTITION  2.18M (2.12-2.21M)  cpu 2.17M   501 B
 * Goal (SkipList, default workload, 1 thread, >= 1M rows/s): met, 1.76M (run1 2.56M median; run2
 * 0.97M median under heavier load from other workers). ~3.2x RocksDB JNI's ~0.55M.
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Thread)
@Fork(jvmArgsAppend = {"-Xms3g", "-Xmx3g"})
public class MemtableWriteBench {
    static final int PARTITIONS = 10_000;
    static final int ROWS = PARTITIONS * Workloads.STRESS_ROWS_PER_PARTITION;

    @Param({"SKIPLIST", "SHARDED"})
    public MemtableKind memtable;

    @Param({"UNSLABBED_HEAP", "HEAP_BUFFERS", "OFFHEAP_OBJECTS"})
    public AllocationMode mode;

    @Param({"ROW", "PARTITION"})
    public UpdateShape shape;

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private TableSchema schema;
    private PartitionUpdate[] updates;
    private Memtable target;
    private long cpuAtStart;

    /**
     * The writer thread's CPU time over the measured loops, next to JMH's wall-clock score. On a
     * machine shared with other busy processes the thread is descheduled for part of the wall
     * time; CPU time does not count that, so rows / (cpuNanos / 1e9) is the rate this thread
     * achieves while it runs (it still pays for cache and memory-bandwidth contention). Both
     * counters are sums over the measurement iterations: divide one by the other.
     */
    @AuxCounters(AuxCounters.Type.EVENTS)
    @State(Scope.Thread)
    public static class CpuCounters {
        public long cpuNanos;
        public long rowsApplied;
    }

    @Setup(Level.Trial)
    public void buildUpdates() {
        schema = Workloads.stressSchema();
        List<PartitionUpdate> list = Workloads.inserts(schema, PARTITIONS, Workloads.STRESS_ROWS_PER_PARTITION,
                Workloads.STRESS_VALUE_BYTES, shape, 42);
        updates = list.toArray(new PartitionUpdate[0]);
        pollute(list);
    }

    /** Writes every memtable class × allocation mode a few times, so the write path has seen all of them. */
    private void pollute(List<PartitionUpdate> list) {
        List<PartitionUpdate> slice = list.subList(0, Math.min(list.size(), 20_000));
        for (int round = 0; round < 3; round++) {
            for (MemtableKind k : MemtableKind.values()) {
                for (AllocationMode m : AllocationMode.values()) {
                    Workloads.discard(Workloads.sealedMemtable(k, m, schema, slice));
                }
            }
        }
    }

    @Setup(Level.Invocation)
    public void freshMemtable() {
        target = memtable.create(schema, mode);
        cpuAtStart = THREADS.getCurrentThreadCpuTime();
    }

    @TearDown(Level.Invocation)
    public void dropMemtable() {
        if (target.rowCount() != ROWS) {
            throw new IllegalStateException("memtable holds " + target.rowCount() + " rows, expected " + ROWS);
        }
        Workloads.discard(target);
        target = null;
        System.gc(); // untimed: the next invocation starts without the last memtable's garbage
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public Memtable apply(CpuCounters cpu) {
        final Memtable m = target;
        final PartitionUpdate[] u = updates;
        for (int i = 0; i < u.length; i++) {
            if (!m.apply(u[i])) throw new IllegalStateException("memtable refused a write");
        }
        cpu.cpuNanos += THREADS.getCurrentThreadCpuTime() - cpuAtStart;
        cpu.rowsApplied += ROWS;
        return m;
    }
}

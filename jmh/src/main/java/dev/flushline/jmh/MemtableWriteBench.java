package dev.flushline.jmh;

import dev.flushline.data.PartitionUpdate;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.schema.TableSchema;
import dev.flushline.jmh.Workloads.MemtableKind;
import dev.flushline.jmh.Workloads.UpdateShape;
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
 * <p><b>Run.</b> {@code java -jar jmh/target/benchmarks.jar MemtableWriteBench -f 1 -wi 3 -i 5 -w 1s -r 1s -prof gc}
 *
 * <p><b>Last result</b> (2026-11-30, 2-core AMD EPYC VM shared with other workers, OpenJDK
 * 17.0.15; -f 1 -wi 3 -i 5 -w 1s -r 1s; rows/s, higher is better; see
 * profiles/2026-11-30-jmh/README.md for the raw table):
 * <pre>
 * RESULTS_PLACEHOLDER
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

    private TableSchema schema;
    private PartitionUpdate[] updates;
    private Memtable target;

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
    public Memtable apply() {
        final Memtable m = target;
        final PartitionUpdate[] u = updates;
        for (int i = 0; i < u.length; i++) {
            if (!m.apply(u[i])) throw new IllegalStateException("memtable refused a write");
        }
        return m;
    }
}

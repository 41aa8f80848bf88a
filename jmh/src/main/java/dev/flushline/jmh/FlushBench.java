package dev.flushline.jmh;

import dev.flushline.data.PartitionUpdate;
import dev.flushline.flush.FlushJob;
import dev.flushline.flush.FlushOutcome;
import dev.flushline.jmh.Workloads.MemtableKind;
import dev.flushline.jmh.Workloads.UpdateShape;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.schema.TableSchema;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * <b>Question.</b> How long does a whole memtable flush take (FlushJob.run, one range, one thread,
 * uncompressed BIG oa sstable with all components) for 100 000 rows of the default workload, per
 * memtable class and allocation mode, and how much does it allocate?
 *
 * <p><b>Hypothesis.</b> Tens of milliseconds per 100k rows (~10 MB of Data.db), with allocation per
 * flush independent of the row count apart from the fixed per-sstable structures (buffers, bloom
 * filter, index summary, the clustering arrays kept for min/max): the row loop itself is meant to
 * allocate nothing. The allocation mode changes the row source the serializer reads: Row objects
 * (unslabbed_heap) or row records in a heap or native slab (heap_buffers, offheap_objects), each on
 * its own branch of the split call site.
 *
 * <p><b>Shape.</b> {@code SingleShotTime}: each iteration is exactly one flush, the measured
 * single shot. A flush consumes its memtable and needs an empty output directory, so the fresh
 * sealed memtable is built in {@code @Setup(Level.Iteration)} (100 000 rows applied as 10 000
 * pre-built per-partition updates, then sealed, then {@code System.gc()} so the flush does not
 * pay for collecting the build's garbage), and {@code @TearDown(Level.Iteration)} discards it and
 * deletes the sstable files. Level.Iteration rather than Level.Invocation because in SingleShotTime
 * they are the same thing here (batch size 1), and Iteration makes that explicit. Run with
 * {@code -bs 1} (the default).
 *
 * <p><b>Allocation.</b> Two numbers. {@code -prof gc}'s {@code gc.alloc.rate.norm} is per op =
 * per flush, but JMH's GC profiler samples allocation around the whole iteration, so it also counts
 * the iteration setup's memtable build: treat it as an upper bound. {@code flushAllocBytes}
 * (an {@code @AuxCounters} column) is what {@code FlushJob} itself measured with
 * {@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes} on the flushing thread: the
 * flush alone (the number {@code flushline bench} reports). {@code dataBytes} is the Data.db size, to
 * check every mode wrote the same thing.
 *
 * <p><b>Megamorphism.</b> The trial setup flushes a 20 000-row memtable of each allocation mode
 * (every row source) and each memtable class, twice, before the first measured flush.
 *
 * <p><b>@Param axis.</b> {@code memtable} ∈ {SKIPLIST, SHARDED} × {@code mode} ∈
 * {UNSLABBED_HEAP, HEAP_BUFFERS, OFFHEAP_OBJECTS}; {@code rows} = 100 000 (10 rows/partition).
 *
 * <p><b>Run.</b> {@code java -jar jmh/target/benchmarks.jar FlushBench -f 1 -wi 3 -i 8 -prof gc}
 *
 * <p><b>Last result</b> (2026-11-30, 2-core AMD EPYC VM shared with other workers, OpenJDK
 * 17.0.15; ms per flush of 100k rows, lower is better; raw table in profiles/2026-11-30-jmh/README.md):
 * <pre>
 * run4 (-f 1 -wi 3 -i 8 -prof gc, calm machine), per flush of 100k rows (9.75 MB Data.db):
 *                             median wall ms   CPU ms   alloc (flushing thread)
 * SKIPLIST UNSLABBED_HEAP         56.5          48.5     1.41 MB
 * SKIPLIST HEAP_BUFFERS           70.6          64.4     1.41 MB
 * SKIPLIST OFFHEAP_OBJECTS        64.5          58.0     1.41 MB
 * SHARDED  UNSLABBED_HEAP         58.8          56.9     1.41 MB
 * SHARDED  HEAP_BUFFERS           72.0          66.3     1.41 MB
 * SHARDED  OFFHEAP_OBJECTS        65.2          62.2     1.41 MB
 * CPU ratios held in run1 and run2 (loaded machine, wall 1.5-4x CPU): heap_buffers 1.17-1.43x,
 * offheap_objects 1.09-1.20x unslabbed_heap. 1 MiB of the 1.41 MB is SSTableWriter's data block.
 * gc.alloc.rate.norm (39.5 / 95.9 / 51.5 MB) includes the iteration setup's memtable build.
 * </pre>
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Thread)
@Fork(jvmArgsAppend = {"-Xms3g", "-Xmx3g"})
public class FlushBench {
    @Param({"SKIPLIST", "SHARDED"})
    public MemtableKind memtable;

    @Param({"UNSLABBED_HEAP", "HEAP_BUFFERS", "OFFHEAP_OBJECTS"})
    public AllocationMode mode;

    @Param({"100000"})
    public int rows;

    private TableSchema schema;
    private List<PartitionUpdate> updates;
    private Path outDir;
    private Memtable sealed;

    /** Per-flush numbers FlushJob reports, as extra JMH result columns. */
    @AuxCounters(AuxCounters.Type.EVENTS)
    @State(Scope.Thread)
    public static class FlushCounters {
        /** Bytes the flushing thread allocated during FlushJob's range write (ThreadMXBean). */
        public long flushAllocBytes;
        /** CPU time of the flushing thread during the range write (ThreadMXBean), in ms: wall minus this is I/O wait, fsync included. */
        public double flushCpuMs;
        /** Wall time FlushJob measured for the range write, in ms (excludes the conservation check). */
        public double flushWallMs;
        /** Data.db bytes written. */
        public long dataBytes;

        @Setup(Level.Iteration)
        public void reset() {
            flushAllocBytes = 0;
            flushCpuMs = 0;
            flushWallMs = 0;
            dataBytes = 0;
        }
    }

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        schema = Workloads.stressSchema();
        int partitions = rows / Workloads.STRESS_ROWS_PER_PARTITION;
        updates = Workloads.inserts(schema, partitions, Workloads.STRESS_ROWS_PER_PARTITION,
                Workloads.STRESS_VALUE_BYTES, UpdateShape.PARTITION, 42);
        outDir = Files.createTempDirectory("flushline-jmh-flush");
        List<PartitionUpdate> slice = updates.subList(0, Math.min(updates.size(), 2_000));
        for (int round = 0; round < 2; round++) {
            for (MemtableKind k : MemtableKind.values()) {
                for (AllocationMode m : AllocationMode.values()) {
                    Memtable t = Workloads.sealedMemtable(k, m, schema, slice);
                    FlushJob.run(t, FlushJob.Options.simple(outDir));
                    Workloads.discard(t);
                    Workloads.deleteTree(outDir, false);
                }
            }
        }
    }

    @Setup(Level.Iteration)
    public void buildMemtable() {
        sealed = Workloads.sealedMemtable(memtable, mode, schema, updates);
        System.gc();
    }

    @TearDown(Level.Iteration)
    public void dropMemtable() throws IOException {
        Workloads.discard(sealed);
        sealed = null;
        Workloads.deleteTree(outDir, false);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        Workloads.deleteTree(outDir, true);
    }

    @Benchmark
    public List<FlushOutcome> flush(FlushCounters counters) throws IOException {
        List<FlushOutcome> outcomes = FlushJob.run(sealed, FlushJob.Options.simple(outDir));
        for (int i = 0; i < outcomes.size(); i++) {
            counters.flushAllocBytes += outcomes.get(i).allocatedBytes;
            counters.flushCpuMs += outcomes.get(i).cpuNanos / 1e6;
            counters.flushWallMs += outcomes.get(i).wallNanos / 1e6;
            counters.dataBytes += outcomes.get(i).result.dataFileBytes;
        }
        return outcomes;
    }
}

package dev.flushline.jmh;

import dev.flushline.bench.BenchCommand;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.jmh.Workloads.MemtableKind;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * <b>Question.</b> How many rows per second does one writer thread put into a memtable when it fills
 * it the way {@code flushline bench} does, garbage collection included, per memtable class and
 * allocation mode? And how much of the fill is GC?
 *
 * <p><b>Why it is shaped like this.</b> An earlier version applied 100 000 pre-built rows to a fresh
 * memtable per invocation and ran {@code System.gc()} after each one. A memtable that small is
 * collected young, so that version never paid for what dominates the real fill: G1 evacuating
 * (copying and promoting) a memtable that grows to gigabytes and stays live. It reported 1.76M rows/s
 * while the end-to-end bench filled at 0.35-0.59M. This version does what the bench does, and nothing
 * else: one measured operation is {@link BenchCommand#fill} of the whole workload (default 260 000
 * partitions x 10 rows = 2.6M rows, 5 text values of 16 bytes), which builds each partition's
 * {@code PartitionUpdate} just before it applies it, into one fresh memtable that stays reachable
 * until the fill ends. Before each fill, outside the timing, the previous memtable is discarded and
 * one {@code System.gc()} runs: the bench does the same once after its warm-up, so both start on an
 * empty heap and the timed fill pays every collection its own garbage and its own live memtable
 * cause. The heap is sized as {@code scripts/flushline} sizes it ({@code -XX:MaxRAMPercentage=70}).
 *
 * <p><b>Hypothesis.</b> The fill runs at 0.35-0.6M rows/s on this machine, as in the end-to-end bench,
 * with half or more of its wall time in GC pauses (young collections copying the memtable's objects).
 * The goal is at least RocksDB's fill rate in the same run (about 2M rows/s).
 *
 * <p><b>Megamorphism.</b> The trial setup runs the bench's own warm-up (three rounds of fill and flush
 * in every allocation mode) and then fills a small workload into every memtable class x allocation
 * mode, so every cell class and both memtable classes are live at the write path's call sites.
 *
 * <p><b>@Param axis.</b> {@code memtable} in {SKIPLIST, SHARDED (one shard per core), HASH (hash index, token order sorted at the flush)} x {@code mode} in
 * {UNSLABBED_HEAP, HEAP_BUFFERS, OFFHEAP_OBJECTS} x {@code partitions} (default 260000, the bench's
 * default). Single-shot: the score is milliseconds per whole fill; rows/s = partitions x 10 / score.
 * Each measured fill also prints one line (rows/s, the writer thread's CPU, GC count and GC time from
 * the GarbageCollectorMXBeans over the fill, memtable bytes per row). {@code -prof gc} adds JMH's
 * {@code gc.time} and {@code gc.count} per fill.
 *
 * <p><b>Run.</b> {@code java -jar jmh/target/benchmarks.jar MemtableWriteBench -prof gc}
 * (fork, warm-up and measurement counts are set below: 1 fork, 2 warm-up fills, 5 measured fills per
 * combination; about 10 s per fill, so the whole grid takes several minutes). One combination:
 * {@code ... MemtableWriteBench -p memtable=SKIPLIST -p mode=HEAP_BUFFERS -prof gc}.
 *
 * <p><b>Last result.</b> 2026-12-05 01:13-01:14 UTC, 2 vCPU AMD EPYC VM, OpenJDK 17.0.15, quiet, in a node's JVM
 * ({@code -jvmArgs} with scripts/flushline's bench options), {@code -p memtable=HASH -p mode=HEAP_BUFFERS,OFFHEAP_OBJECTS
 * -wi 2 -i 5 -prof gc}, main at 4f765e7 (rows that arrive in clustering order packed in one array per partition):
 * 1,041-1,070 ms per fill with heap_buffers (2.43-2.50 M rows/s), 1,060-1,117 ms with offheap_objects (2.33-2.45 M
 * rows/s), 0-1 collection per measured fill (0-73 ms), 157 B of memtable per row. On 2026-12-04 (main at 07bfc75, a
 * skip-list node per row) the same run gave 1,267-1,291 ms (about 2.05 M rows/s). The hypothesis does not hold in
 * this JVM: once G1 has sized its young generation a fill takes one collection or none; the first fill of a JVM
 * takes four or five. Raw output in profiles/2026-12-05-packed-rows/memtable-write-jmh.out.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {"-XX:MaxRAMPercentage=70"})
@Warmup(iterations = 2)
@Measurement(iterations = 5)
public class MemtableWriteBench {
    @Param({"SKIPLIST", "SHARDED", "HASH"})
    public MemtableKind memtable;

    @Param({"UNSLABBED_HEAP", "HEAP_BUFFERS", "OFFHEAP_OBJECTS"})
    public AllocationMode mode;

    @Param({"260000"})
    public int partitions;

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private BenchCommand.Setup setup;
    private BenchCommand.Workload workload;
    private long rows;
    private Memtable target;
    private long cpuAtStart, gcCountAtStart, gcMillisAtStart, wallAtStart;

    @Setup(Level.Trial)
    public void warmUp() throws IOException {
        setup = BenchCommand.Setup.parse(new String[] {"--partitions", Integer.toString(partitions),
                "--allocation", mode.cliName()});
        workload = setup.workload;
        rows = (long) workload.partitions * workload.rowsPerPartition;
        setup.warmUp(System.out);
        BenchCommand.Workload small = workload.withPartitions(Math.max(1, Math.min(partitions, 20_000)));
        for (MemtableKind k : MemtableKind.values()) {
            for (AllocationMode m : AllocationMode.values()) {
                Memtable t = k.create(setup.schema, m);
                BenchCommand.fill(t, small);
                Workloads.discard(t);
            }
        }
    }

    @Setup(Level.Iteration)
    public void freshMemtable() {
        target = memtable.create(setup.schema, mode);
        System.gc(); // untimed, as the bench's one collection before its measured fill
        gcCountAtStart = BenchCommand.gcCount();
        gcMillisAtStart = BenchCommand.gcMillis();
        cpuAtStart = THREADS.getCurrentThreadCpuTime();
        wallAtStart = System.nanoTime();
    }

    @Benchmark
    public Memtable fill() {
        BenchCommand.fill(target, workload);
        return target;
    }

    @TearDown(Level.Iteration)
    public void report() {
        // Read before anything else runs: includes a little of JMH's own bookkeeping, not timed by the score.
        long wall = System.nanoTime() - wallAtStart;
        long cpu = THREADS.getCurrentThreadCpuTime() - cpuAtStart;
        long gcs = BenchCommand.gcCount() - gcCountAtStart, gcMs = BenchCommand.gcMillis() - gcMillisAtStart;
        if (target.rowCount() != rows) {
            throw new IllegalStateException("memtable holds " + target.rowCount() + " rows, expected " + rows);
        }
        long bytes = target.onHeapBytes() + target.offHeapBytes();
        PrintStream out = System.out;
        out.println(String.format(Locale.ROOT, "fill %s %s: %d rows in %d ms: %.0f rows/s; writer cpu %d ms; gc %d collections, "
                        + "%d ms; memtable %.0f B/row (on-heap %d, off-heap %d)", memtable, mode, rows, wall / 1_000_000,
                rows * 1e9 / Math.max(1, wall), cpu / 1_000_000, gcs, gcMs, (double) bytes / rows, target.onHeapBytes(),
                target.offHeapBytes()));
        Workloads.discard(target);
        target = null;
    }
}

package dev.flushline.jmh;

import dev.flushline.data.Murmur3;
import dev.flushline.schema.TableSchema;
import dev.flushline.schema.ValueCodec;
import dev.flushline.sstable.Descriptor;
import dev.flushline.sstable.PartitionIndexWriter;
import dev.flushline.sstable.RowIndexBlocks;
import dev.flushline.sstable.SSTableVersion;
import dev.flushline.sstable.big.BigIndexWriter;
import dev.flushline.sstable.bti.BtiIndexWriter;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * <b>Question.</b> What does the {@code da} partition index ({@link BtiIndexWriter}: Partitions.db
 * through the trie writer) cost beside the {@code oa} one ({@link BigIndexWriter}: Index.db and
 * Summary.db) for the partitions of one bench flush? The da flush is held to ×1.10 the CPU of the
 * oa flush, and the whole-flush ratio drifts with the VM by more than the index's share; fed the
 * same partitions in one run, the two index writers give a ratio that drift does not move.
 *
 * <p><b>Hypothesis.</b> The BIG index writer is a few percent of the oa flush (an entry copy per
 * partition, a summary sample every 128); the BTI one was 18% of the da flush's samples, so the
 * da / oa index ratio is about ×4-5 before the trie writer and key work are made cheaper, and
 * must come to about half that for the flush goal to hold with margin.
 *
 * <p><b>What is measured.</b> One op = one sstable's partition index: the writer made, the
 * partitions added in token order, {@code finishPartitions} and {@code finish} (the trie's last
 * pages, the footer or summary). The partitions are the bench workload's: 260,000 keys as
 * {@code flushline bench} makes them (pk = 0..259,999 as big-endian longs), sorted by Murmur3
 * token, each at the Data.db position a flush would give it (975 bytes a partition, the mean of
 * the default workload's 10 rows), one row index block each (so Rows.db stays empty, as in the
 * bench). Each key's 128-bit hash is computed in the setup: the sstable writer hashes each key
 * once for the bloom filter, in either format, and hands the hash to the index writer, so it is
 * no part of either index's cost. Files go to a tmpfs directory ({@code /dev/shm} when it
 * exists), so the fsyncs cost nothing; each invocation's files are deleted outside the
 * measurement.
 *
 * <p><b>CPU.</b> The VM is shared, and a writer that is descheduled still counts wall time, so
 * on a busy machine compare CPU time: the {@code @AuxCounters} columns {@code cpuMs} (the
 * benchmark thread's CPU time in the ops, from ThreadMXBean) and {@code indexes} (ops) are summed
 * over the measured iterations by JMH, so CPU ms per op is their quotient.
 *
 * <p><b>@Param axis.</b> {@code version} ∈ {oa, da}: the BIG index writer is the baseline, fed
 * exactly what the BTI one is.
 *
 * <p><b>Run.</b> {@code java -jar jmh/target/benchmarks.jar PartitionIndexWriterBench -f 1 -wi 3 -i 5 -w 3s -r 2s}
 *
 * <p><b>Last result</b> (2026-12-04 11:45-11:48 UTC, 2-core AMD EPYC VM with other builds running,
 * load average 3.9-5.8; OpenJDK 17.0.15; ms per index of 260,000 partitions, lower is better). The
 * main classes before the da index work (f46f517) and after it (bti-speed), each with this
 * benchmark, run back to back twice, {@code -f 1 -wi 3 -i 5 -w 3s -r 2s}:
 * <pre>
 *                      da cpu ms   oa cpu ms   da / oa cpu   da wall ms (± 99.9%)
 * before, 1st run        75.0         9.3          8.0          81.8 ± 59.7
 * after,  1st run        42.8        10.7          4.0          45.8 ± 28.9
 * before, 2nd run        74.7        13.5          5.5          85.7 ± 61.3
 * after,  2nd run        44.2        11.8          3.7          47.5 ± 24.6
 * </pre>
 * The da index costs 0.57-0.59 of what it did (CPU); the oa index is unchanged (its column moves
 * with the machine's load, ±20%, which is why the da / oa quotient is noisier than the da column).
 * Wall times on this busy machine are up to twice the CPU times and swing by half; compare CPU.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Thread)
public class PartitionIndexWriterBench {
    static final int PARTITIONS = 260_000;
    /** Mean Data.db bytes of a partition of the default workload (FlushBench: 9.75 MB for 10,000 partitions). */
    static final long PARTITION_BYTES = 975;

    @Param({"oa", "da"})
    public String version;

    private SSTableVersion sstableVersion;
    private TableSchema schema;
    private Path dir;
    private byte[][] keys;
    private long[] hash1;
    private long[] hash2;
    private RowIndexBlocks oneBlock;
    private Descriptor descriptor;

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** The benchmark thread's CPU time in the ops, and the ops, per iteration (JMH sums them over the iterations). */
    @AuxCounters(AuxCounters.Type.EVENTS)
    @State(Scope.Thread)
    public static class Cpu {
        public double cpuMs;
        public long indexes;

        @Setup(Level.Iteration)
        public void reset() {
            cpuMs = 0;
            indexes = 0;
        }
    }

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        sstableVersion = SSTableVersion.valueOf(version.toUpperCase(java.util.Locale.ROOT));
        schema = Workloads.stressSchema();
        Path shm = Path.of("/dev/shm");
        dir = Files.isDirectory(shm) ? Files.createTempDirectory(shm, "flushline-pi-bench") : Files.createTempDirectory("flushline-pi-bench");
        // Sort (token, pk) pairs: tokens of distinct 8-byte keys practically never collide, and
        // when they do the pk breaks the tie as the key bytes would (pk >= 0, big-endian).
        long[][] order = new long[PARTITIONS][];
        for (int p = 0; p < PARTITIONS; p++) {
            byte[] key = ValueCodec.int64(p);
            order[p] = new long[] {Murmur3.token(key, 0, key.length), p};
        }
        Arrays.sort(order, (a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
        keys = new byte[PARTITIONS][];
        hash1 = new long[PARTITIONS];
        hash2 = new long[PARTITIONS];
        long[] hash = new long[2];
        for (int i = 0; i < PARTITIONS; i++) {
            keys[i] = ValueCodec.int64(order[i][1]);
            Murmur3.hash128(keys[i], 0, keys[i].length, hash);
            hash1[i] = hash[0];
            hash2[i] = hash[1];
        }
        oneBlock = new RowIndexBlocks(RowIndexBlocks.DEFAULT_COLUMN_INDEX_SIZE_BYTES);
        oneBlock.added(dev.flushline.data.ClusteringBound.CLUSTERING, new byte[][] {ValueCodec.int32(0)}, 0, PARTITION_BYTES - 1,
                dev.flushline.data.DeletionTime.LIVE);
        oneBlock.finish(PARTITION_BYTES);
        if (oneBlock.blockCount() != 1) throw new IllegalStateException("expected one row index block, got " + oneBlock.blockCount());
    }

    @Setup(Level.Invocation)
    public void reserve() throws IOException {
        descriptor = Descriptor.reserveNext(dir, sstableVersion);
    }

    @TearDown(Level.Invocation)
    public void release() throws IOException {
        Workloads.deleteTree(descriptor.stagingDir(), true);
        descriptor.releaseReservation();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        Workloads.deleteTree(dir, true);
    }

    @Benchmark
    public long writeIndex(Cpu cpu) throws IOException {
        long cpuStart = THREADS.getCurrentThreadCpuTime();
        PartitionIndexWriter w = sstableVersion == SSTableVersion.OA ? new BigIndexWriter(descriptor, schema)
                : new BtiIndexWriter(descriptor, schema);
        byte[][] k = keys;
        long[] h1 = hash1, h2 = hash2;
        RowIndexBlocks blocks = oneBlock;
        long position = 0;
        for (int i = 0; i < k.length; i++) {
            w.add(k[i], k[i].length, h1[i], h2[i], position, 0, Long.MIN_VALUE, Long.MAX_VALUE, blocks);
            position += PARTITION_BYTES;
        }
        w.finishPartitions();
        w.finish(k[0], k[k.length - 1]);
        cpu.cpuMs += (THREADS.getCurrentThreadCpuTime() - cpuStart) / 1e6;
        cpu.indexes++;
        return position;
    }
}

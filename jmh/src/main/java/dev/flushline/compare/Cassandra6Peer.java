package dev.flushline.compare;

import dev.flushline.bench.BenchCommand;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;

/**
 * Cassandra 6.0-alpha2 flushing the bench workload, in its child JVM ({@link Cassandra6Child}): 6.0's default
 * memtable (SkipListMemtable) filled with the same rows, then the body of 6.0's {@code Flush.flushMemtable}, step
 * for step as {@link CassandraPeer} runs 5.0.5's, on the same two stand-in threads, measured the same way (CPU
 * and allocation of MemtableFlushWriter:1 and PerDiskMemtableFlushWriter_0:1, wall time over the flush, process
 * CPU of the child). The child regenerates the rows from the workload's size, the column order and the
 * generator's seed and base timestamp (BenchCommand's constants, sent with each request and checked there);
 * the comparison with Flushline's Data.db says whether it wrote the same data.
 *
 * <p>The child runs with storage_compatibility_mode CASSANDRA_5, so it writes BIG {@code oa} like Flushline and
 * 5.0 (6.0's own default would be {@code pa}).
 *
 * <p>Not thread-safe; one flush at a time.
 */
final class Cassandra6Peer implements AutoCloseable {
    private final Cassandra6Child child;
    private final String[] valueColumnOrder;

    Cassandra6Peer(String[] valueColumnOrder, Path work, PrintStream err) throws IOException {
        this.child = Cassandra6Child.start(work, "CASSANDRA_5", err);
        this.valueColumnOrder = valueColumnOrder;
    }

    String describe() {
        return child.describe();
    }

    /**
     * Fills and flushes {@code w} once in the child; with {@code flushlineData} (Flushline's Data.db of the same
     * rows, or null) the run's {@code sameAsFlushline} says whether 6.0 wrote the same bytes or, failing that,
     * the same content. The child deletes its sstable afterwards, or moves it into {@code keepDir} if not null.
     */
    FlushRun fillAndFlush(BenchCommand.Workload w, String allocation, String compression, int chunkLengthBytes, Path flushlineData,
                          Path keepDir) throws IOException {
        Cassandra6Child.Wire r = child.call(Cassandra6Child.Wire.of("flush")
                .put("partitions", w.partitions).put("rowsPerPartition", w.rowsPerPartition)
                .put("valueColumns", w.valueColumns).put("valueBytes", w.valueBytes)
                .put("valueOrder", String.join(",", valueColumnOrder))
                .put("allocation", allocation).put("compression", compression).put("chunkBytes", chunkLengthBytes)
                .put("seed", BenchCommand.VALUE_SEED).put("baseTimestamp", BenchCommand.BASE_TIMESTAMP_MICROS)
                .put("compare", flushlineData == null ? "" : flushlineData.toAbsolutePath().toString())
                .put("keep", keepDir == null ? "" : keepDir.toAbsolutePath().toString()));
        String sstable = keepDir == null ? r.get("sstable") : keepDir.resolve(Path.of(r.get("sstable")).getFileName()).toString();
        FlushRun run = new FlushRun("cassandra6", "skiplist", allocation, compression, sstable, r.getLong("bytes"),
                r.getLong("partitions"), r.getLong("rows"), r.getLong("cells"), r.getLong("fillNanos"), r.getLong("wallNanos"),
                r.getLong("cpuNanos"), r.getLong("allocatedBytes"), r.getLong("processCpuNanos"), r.get("threads") + " (child JVM)");
        run.fillGcCount = r.getLong("fillGcCount");
        run.fillGcMillis = r.getLong("fillGcMillis");
        String same = r.get("same");
        run.sameAsFlushline = same.isEmpty() ? null : same;
        return run;
    }

    @Override
    public void close() {
        child.close();
    }
}

package dev.flushline.flush;

import dev.flushline.data.TokenRanges;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.MemtablePartition;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.Leftovers;
import dev.flushline.sstable.SSTableVersion;
import dev.flushline.sstable.TableDirectory;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Flushes one sealed memtable: splits the token ring into {@code ranges} equal ranges (as
 * Cassandra's range-aware flush does; no partition straddles two), writes one sstable per
 * non-empty range on up to {@code flushThreads} threads, and checks conservation over the whole
 * memtable. Each range's writer measures its own thread's CPU time and allocation, and the
 * calling thread's share (the range walk included) is added to the first sstable's outcome.
 *
 * <p>If any range fails, the ranges that already published stay published (each is a complete,
 * valid sstable), the failure is rethrown, and the memtable is left intact for a retry.
 *
 * <p>Thread safety: {@link #run} may be called from any thread; it blocks until all ranges finish.
 */
public final class FlushJob {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /**
     * Immutable settings of one flush, made by {@link #builder} (or {@link #simple} for one range on
     * one thread). A setting not named keeps its default, so a setting added later reaches every
     * caller with its default instead of shifting positional arguments.
     */
    public static final class Options {
        public final Path outDir;
        /** Equal token ranges the flush splits into (one sstable or more each); ignored with {@link #splitTokens}. */
        public final int ranges;
        public final int flushThreads;
        /** Overlap serialization with compression and writes on a second thread (default). */
        public final boolean pipelined;
        /** Explicit range starts (overrides {@link #ranges}), or null for equal ranges. */
        private final long[] splitTokens;
        /** A range estimated below this many bytes merges into its neighbour; 0 = never merge. */
        public final long minSSTableBytes;
        /**
         * An sstable whose Data.db (uncompressed) reaches this many bytes is finished after the
         * partition that crossed it, and the range goes on in a new sstable; 0 = no limit. So a
         * split always falls on a partition boundary, and an sstable exceeds the limit by at most
         * its last partition.
         */
        public final long maxSSTableBytes;
        /** The sstable version every flush with these options writes. */
        public final SSTableVersion version;
        /** How the flush compresses (see {@link FlushCompression}); {@link FlushCompression#TABLE} unless set. */
        public final FlushCompression flushCompression;

        private Options(Builder b) {
            this.outDir = b.outDir;
            this.ranges = b.ranges;
            this.flushThreads = b.flushThreads;
            this.pipelined = b.pipelined;
            this.splitTokens = b.splitTokens;
            this.minSSTableBytes = b.minSSTableBytes;
            this.maxSSTableBytes = b.maxSSTableBytes;
            this.version = b.version;
            this.flushCompression = b.flushCompression;
        }

        /** Settings writing into {@code outDir}: one range, one thread, pipelined, oa, the table's compression. */
        public static Builder builder(Path outDir) {
            return new Builder(outDir);
        }

        public static Options simple(Path outDir) {
            return builder(outDir).build();
        }

        /** A builder holding these settings, to derive others from them. */
        public Builder toBuilder() {
            Builder b = new Builder(outDir).ranges(ranges).flushThreads(flushThreads).pipelined(pipelined)
                    .minSSTableBytes(minSSTableBytes).maxSSTableBytes(maxSSTableBytes).version(version).flushCompression(flushCompression);
            b.splitTokens = splitTokens;
            return b;
        }

        /** The explicit range starts, or null for {@link #ranges} equal ranges. */
        public long[] splitTokens() {
            return splitTokens == null ? null : splitTokens.clone();
        }

        TokenRanges tokenRanges() {
            return splitTokens != null ? TokenRanges.fromSplits(splitTokens) : TokenRanges.even(ranges);
        }

        /** Checks each setting as it is given. Not thread-safe. */
        public static final class Builder {
            private final Path outDir;
            private int ranges = 1;
            private int flushThreads = 1;
            private boolean pipelined = true;
            private long[] splitTokens;
            private long minSSTableBytes;
            private long maxSSTableBytes;
            private SSTableVersion version = SSTableVersion.OA;
            private FlushCompression flushCompression = FlushCompression.TABLE;

            private Builder(Path outDir) {
                this.outDir = Objects.requireNonNull(outDir, "output directory");
            }

            public Builder ranges(int ranges) {
                if (ranges < 1) throw new IllegalArgumentException("ranges must be at least 1: " + ranges);
                this.ranges = ranges;
                return this;
            }

            public Builder flushThreads(int threads) {
                if (threads < 1) throw new IllegalArgumentException("flush threads must be at least 1: " + threads);
                this.flushThreads = threads;
                return this;
            }

            public Builder pipelined(boolean pipelined) {
                this.pipelined = pipelined;
                return this;
            }

            /** Range starts to split at instead of equal ranges (copied); null for equal ranges. */
            public Builder splitTokens(long[] starts) {
                this.splitTokens = starts == null ? null : starts.clone();
                return this;
            }

            public Builder minSSTableBytes(long bytes) {
                if (bytes < 0) throw new IllegalArgumentException("min sstable size must be 0 (none) or more: " + bytes);
                this.minSSTableBytes = bytes;
                return this;
            }

            public Builder maxSSTableBytes(long bytes) {
                if (bytes < 0) throw new IllegalArgumentException("max sstable size must be 0 (none) or more: " + bytes);
                this.maxSSTableBytes = bytes;
                return this;
            }

            public Builder version(SSTableVersion version) {
                this.version = Objects.requireNonNull(version, "sstable version");
                return this;
            }

            public Builder flushCompression(FlushCompression mode) {
                this.flushCompression = Objects.requireNonNull(mode, "flush compression");
                return this;
            }

            public Options build() {
                return new Options(this);
            }
        }
    }

    private FlushJob() {}

    public static List<FlushOutcome> run(Memtable memtable, Options options) throws IOException {
        return run(memtable, options, null);
    }

    /**
     * As {@link #run(Memtable, Options)}; first removes what a crashed earlier flush left in the
     * table directory ({@link Leftovers#clean}) and adds the removed paths to {@code removedLeftovers}
     * (if not null) so the caller can report them. REQUIRES: no other flush of this table is running.
     */
    public static List<FlushOutcome> run(Memtable memtable, Options options, List<Path> removedLeftovers) throws IOException {
        return run(memtable, options, removedLeftovers, null);
    }

    /**
     * As above, reporting progress to {@code progress} (may be null) while it runs. Opens (lists)
     * the table directory for this one flush; a caller that flushes repeatedly opens a
     * {@link TableDirectory} once and calls {@link #run(Memtable, Options, TableDirectory, FlushProgress)}.
     */
    public static List<FlushOutcome> run(Memtable memtable, Options options, List<Path> removedLeftovers,
                                         FlushProgress progress) throws IOException {
        if (!memtable.isSealed()) throw new IllegalStateException("flushing a memtable that still takes writes");
        Start start = new Start(ThreadMeter.MXBEAN); // the directory listing is part of this flush's cost
        TableDirectory dir = TableDirectory.open(memtable.schema().directoryUnder(options.outDir));
        if (removedLeftovers != null) removedLeftovers.addAll(dir.removedLeftovers());
        return run(memtable, options, dir, progress, start);
    }

    /**
     * Flushes into an opened table directory: no directory listing, so the cost of a flush does not
     * grow with the sstables already there. REQUIRES: {@code dir} is {@code options.outDir}'s
     * directory of this memtable's table.
     */
    public static List<FlushOutcome> run(Memtable memtable, Options options, TableDirectory dir,
                                         FlushProgress progress) throws IOException {
        if (!memtable.isSealed()) throw new IllegalStateException("flushing a memtable that still takes writes");
        return run(memtable, options, dir, progress, new Start(ThreadMeter.MXBEAN));
    }

    /**
     * CPU time and heap allocation of the calling thread, as a flush counts them. The default reads
     * {@code com.sun.management.ThreadMXBean}; tests inject a counter so that they can check what a
     * flush counts without depending on timings.
     */
    interface ThreadMeter {
        long cpuNanos();

        long allocatedBytes();

        ThreadMeter MXBEAN = new ThreadMeter() {
            @Override
            public long cpuNanos() {
                return THREADS.getCurrentThreadCpuTime();
            }

            @Override
            public long allocatedBytes() {
                return THREADS.getThreadAllocatedBytes(Thread.currentThread().getId());
            }
        };
    }

    /** The calling thread's counters when a flush began. */
    static final class Start {
        final ThreadMeter meter;
        final long cpuNanos, allocatedBytes, wallNanos;

        Start(ThreadMeter meter) {
            this.meter = meter;
            this.wallNanos = System.nanoTime();
            this.cpuNanos = meter.cpuNanos();
            this.allocatedBytes = meter.allocatedBytes();
        }
    }

    /**
     * The flush itself. What it reports covers everything from the call to the last publish, on
     * every thread that worked on it: each sstable's outcome carries what its writing thread and its
     * Data.db I/O thread spent on it, and the first sstable's outcome also carries the work done on
     * the calling thread outside any one sstable (range walk, header, thread pool, conservation
     * check). So the sum over the outcomes is the whole flush; no work is counted twice. JFR events
     * are emitted once those totals are known.
     */
    static List<FlushOutcome> run(Memtable memtable, Options options, TableDirectory dir, FlushProgress progress,
                                  Start start) throws IOException {
        final ThreadMeter meter = start.meter;
        final FlushWriter writer = new FlushWriter(memtable, options.version, options.flushCompression);
        final TableDirectory tableDir = dir;
        TokenRanges ranges = options.tokenRanges();
        if (options.splitTokens == null && options.ranges == 1 && options.flushThreads > 1 && memtable.shardCount() > 1) {
            // A sharded memtable flushes its shards in parallel: one range (and sstable) per shard.
            ranges = TokenRanges.even(memtable.shardCount());
        }
        // One range holds every partition: the memtable's own count sizes its bloom filter as the walk
        // would have (a sealed memtable's count is exact), and no range is small enough to merge.
        long[] counts = ranges.size() == 1 ? new long[] {memtable.partitionCount()} : partitionCounts(ranges, memtable);
        long total = 0;
        for (long c : counts) total += c;
        TokenRanges merged = mergeSmall(ranges, counts, total, memtable.onHeapBytes() + memtable.offHeapBytes(),
                options.minSSTableBytes);
        final TokenRanges rs = merged;
        final long[] keys = merged == ranges ? counts : partitionCounts(merged, memtable);
        final int n = rs.size();
        if (progress != null) progress.start(total);
        List<FlushOutcome> outcomes = new ArrayList<>();
        final boolean serial = options.flushThreads == 1 || n == 1;
        long pooledWallNanos = 0;
        if (serial) {
            for (int i = 0; i < n; i++) {
                outcomes.addAll(writeRange(memtable, writer, tableDir, rs, i, keys[i], options, progress, meter));
            }
        } else {
            long pooled0 = System.nanoTime();
            ExecutorService pool = Executors.newFixedThreadPool(Math.min(options.flushThreads, n), r -> {
                Thread t = new Thread(r, "flushline-flush");
                t.setDaemon(true);
                return t;
            });
            try {
                List<Future<List<FlushOutcome>>> futures = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    final int range = i;
                    futures.add(pool.submit(() -> writeRange(memtable, writer, tableDir, rs, range, keys[range], options, progress,
                            meter)));
                }
                IOException failure = null;
                for (Future<List<FlushOutcome>> f : futures) {
                    try {
                        outcomes.addAll(f.get());
                    } catch (ExecutionException e) {
                        Throwable c = e.getCause();
                        if (c instanceof RuntimeException && failure == null) throw (RuntimeException) c;
                        if (c instanceof Error) throw (Error) c;
                        if (failure == null) failure = c instanceof IOException ? (IOException) c : new IOException(c);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IOException("interrupted while flushing " + memtable.schema(), e);
                    }
                }
                if (failure != null) throw failure;
            } finally {
                pool.shutdownNow();
            }
            pooledWallNanos = System.nanoTime() - pooled0;
        }
        checkConservation(memtable, outcomes);
        long callerCpu = meter.cpuNanos() - start.cpuNanos;
        long callerAlloc = meter.allocatedBytes() - start.allocatedBytes;
        long callerWall = System.nanoTime() - start.wallNanos;
        if (outcomes.isEmpty()) return outcomes;
        if (serial) {
            // The calling thread wrote every sstable: take out what their outcomes already carry.
            for (int i = 0; i < outcomes.size(); i++) {
                FlushOutcome o = outcomes.get(i);
                callerCpu -= o.cpuNanos - o.result.ioCpuNanos;
                callerAlloc -= o.allocatedBytes - o.result.ioAllocatedBytes;
                callerWall -= o.wallNanos;
            }
        } else {
            // The pool threads' outcomes carry their own work; the caller only waited for them.
            callerWall -= pooledWallNanos;
        }
        FlushOutcome first = outcomes.get(0);
        outcomes.set(0, new FlushOutcome(first.result, first.wallNanos + Math.max(0, callerWall),
                first.cpuNanos + Math.max(0, callerCpu), first.allocatedBytes + Math.max(0, callerAlloc), first.bytesFlushed,
                first.commitLogSegmentId, first.commitLogPosition));
        for (int i = 0; i < outcomes.size(); i++) FlushEvent.emit(outcomes.get(i));
        return outcomes;
    }

    /**
     * One token range: one sstable, or with {@link Options#maxSSTableBytes} as many as it takes,
     * each cut after the partition that reached the limit. Each piece's bloom filter is sized for
     * the partitions of the range not yet written (the count is exact for the last piece, an upper
     * bound for the others).
     */
    /** Number of partitions of {@code m} in each range of {@code ranges} (one pass over the keys). */
    static long[] partitionCounts(TokenRanges ranges, Memtable m) {
        long[] counts = new long[ranges.size()];
        for (int i = 0; i < counts.length; i++) {
            for (Iterator<MemtablePartition> it = m.partitionIterator(ranges.lo(i), ranges.hi(i)); it.hasNext(); it.next()) {
                counts[i]++;
            }
        }
        return counts;
    }

    /**
     * Merges each range whose estimated sstable would be smaller than {@code minBytes} into its
     * neighbour (the next one; the last merges backwards), so a flush does not write tiny files.
     * The estimate spreads the memtable's owned bytes over ranges by partition count.
     */
    static TokenRanges mergeSmall(TokenRanges ranges, long[] partitionCounts, long totalPartitions, long memtableBytes,
                                  long minBytes) {
        int n = ranges.size();
        if (minBytes <= 0 || n == 1 || totalPartitions == 0) return ranges;
        double bytesPerPartition = (double) memtableBytes / totalPartitions;
        List<long[]> merged = new ArrayList<>();
        long curLo = ranges.lo(0), curCount = 0;
        for (int i = 0; i < n; i++) {
            curCount += partitionCounts[i];
            boolean last = i == n - 1;
            if (curCount * bytesPerPartition >= minBytes || last) {
                merged.add(new long[] {curLo, ranges.hi(i), curCount});
                if (!last) curLo = ranges.lo(i + 1);
                curCount = 0;
            }
        }
        // A small tail merges into the range before it.
        if (merged.size() > 1) {
            long[] tail = merged.get(merged.size() - 1);
            if (tail[2] * bytesPerPartition < minBytes) {
                long[] prev = merged.get(merged.size() - 2);
                merged.set(merged.size() - 2, new long[] {prev[0], tail[1], prev[2] + tail[2]});
                merged.remove(merged.size() - 1);
            }
        }
        // Merged ranges stay contiguous: each starts where the one before it ended.
        long[] splits = new long[merged.size() - 1];
        for (int i = 1; i < merged.size(); i++) splits[i - 1] = merged.get(i)[0];
        return TokenRanges.fromSplits(splits);
    }

    private static List<FlushOutcome> writeRange(Memtable memtable, FlushWriter writer, TableDirectory tableDir, TokenRanges ranges,
                                                 int i, long expectedKeys, Options options, FlushProgress progress,
                                                 ThreadMeter meter) throws IOException {
        Iterator<MemtablePartition> it = ranges.size() == 1 ? memtable.partitionIterator()
                : memtable.partitionIterator(ranges.lo(i), ranges.hi(i));
        List<FlushOutcome> out = new ArrayList<>(1);
        long remainingKeys = expectedKeys;
        do {
            // The first piece gets the range's count as before, so without a limit nothing changes.
            long keys = out.isEmpty() ? expectedKeys : Math.max(1, remainingKeys);
            FlushOutcome o = writeOne(memtable, writer, tableDir, it, keys, options, progress, meter);
            if (o == null) break;
            out.add(o);
            remainingKeys -= o.result.partitions;
        } while (options.maxSSTableBytes > 0 && it.hasNext());
        return out;
    }

    private static FlushOutcome writeOne(Memtable memtable, FlushWriter writer, TableDirectory tableDir, Iterator<MemtablePartition> it,
                                         long expectedKeys, Options options, FlushProgress progress, ThreadMeter meter)
            throws IOException {
        long cpu0 = meter.cpuNanos();
        long alloc0 = meter.allocatedBytes();
        long wall0 = System.nanoTime();
        FlushResult r = writer.write(it, expectedKeys, tableDir, options.pipelined, progress, options.maxSSTableBytes);
        long wall = System.nanoTime() - wall0;
        long cpu = meter.cpuNanos() - cpu0;
        long alloc = meter.allocatedBytes() - alloc0;
        if (r == null) return null;
        cpu += r.ioCpuNanos;
        alloc += r.ioAllocatedBytes;
        long bytes = componentBytes(r.dataPath);
        dev.flushline.data.CommitLogPosition upper = memtable.commitLogUpperBound();
        // Without a commit log the bound is CommitLogPosition.NONE, which the log line prints as Cassandra does.
        return new FlushOutcome(r, wall, cpu, alloc, bytes, upper.segmentId(), upper.position());
    }

    private static long componentBytes(Path dataPath) throws IOException {
        String prefix = dataPath.getFileName().toString().replace(Component.DATA.fileSuffix(), "");
        long total = 0;
        for (Component c : Component.values()) {
            Path p = dataPath.resolveSibling(prefix + c.fileSuffix());
            if (Files.exists(p)) total += Files.size(p);
        }
        return total;
    }

    /** The rows and cells the memtable counted as it took writes must all be in the sstables. */
    private static void checkConservation(Memtable memtable, List<FlushOutcome> outcomes) {
        long rows = 0, cells = 0;
        for (FlushOutcome o : outcomes) {
            rows += o.result.rows;
            cells += o.result.cells;
        }
        if (rows != memtable.rowCount() || cells != memtable.cellCount()) {
            throw new FlushConservationException("flush of " + memtable.schema() + " wrote " + rows + " rows and " + cells
                    + " cells but the memtable counted " + memtable.rowCount() + " rows and " + memtable.cellCount() + " cells");
        }
    }
}

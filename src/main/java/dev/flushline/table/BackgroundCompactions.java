package dev.flushline.table;

import dev.flushline.compaction.CompactionLog;
import dev.flushline.compaction.CompactionPick;
import dev.flushline.compaction.CompactionPicker;
import dev.flushline.data.TokenRanges;
import dev.flushline.compaction.CompactionStrategyOptions;
import dev.flushline.compaction.CompactionThrottle;
import dev.flushline.compaction.CompactionTask;
import dev.flushline.compaction.Compactor;
import dev.flushline.compaction.SSTableInfo;
import dev.flushline.compaction.Version;
import dev.flushline.compaction.VersionEdit;
import dev.flushline.data.Murmur3;
import dev.flushline.flush.FlushOutcome;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.CompactionLock;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.SSTableVersion;
import dev.flushline.sstable.StatisticsReader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import dev.flushline.sstable.TableDirectory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * A table's background compaction, shaped as LevelDB's and Pebble's: the table holds the current
 * {@link Version} (its live sstables); each flush adds its sstable through a {@link VersionEdit}
 * and asks the strategy's {@link CompactionPicker} for work; each pick runs on a compaction thread,
 * merges its inputs into outputs cut by the pick's rules (level, size, range boundaries), replaces
 * the inputs by the outputs atomically through a {@link CompactionTask} under a transaction log, and applies the pick's
 * edit to make the next version, which is offered to the picker again. So the table keeps
 * compacting until the picker is at rest.
 *
 * <p>Concurrency: up to {@link Settings#threads} picks run at once and never share an input: the
 * inputs of running picks are passed to the picker as the compacting set, and leave it only when
 * their edit is applied (or the compaction failed). The version, the compacting set and the
 * Data.db paths are guarded by this object's monitor; merging and I/O happen outside it.
 *
 * <p>Purging (Cassandra's rule): a tombstone may go only if its timestamp is below the pick's
 * max purgeable timestamp (smallest minimum timestamp of the overlapping live sstables the pick
 * leaves out) and below the smallest timestamp of the memtables not yet flushed. Both are read
 * under the monitor at pick time. A flush adds its sstable to the version before its memtable
 * leaves the unflushed set, and adding takes the monitor, so at that moment every datum is in the
 * version or in an unflushed memtable and the bound sees it.
 *
 * <p>Writers never wait for compaction. {@link #pendingCompactions} is the picker's estimate of
 * the work left (Cassandra's pending tasks); past {@link Settings#pendingWarnThreshold} one warning
 * is logged each time the estimate crosses it, and nothing slows down: as in Cassandra, the
 * limit only reports. A compaction that fails is logged; background compaction then stops for
 * this table (its inputs stay live, nothing is lost) until {@link #resume}, so a persistent error
 * such as a full disk does not spin.
 *
 * <p>Crash safety: a kill -9 leaves an unfinished transaction log, which {@link TableDirectory#open}
 * finishes or rolls back on the next open: every datum is then in the inputs or in the outputs,
 * never lost, never in both.
 */
public final class BackgroundCompactions implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BackgroundCompactions.class);

    /** What to compact with. Set the fields, then hand it over; not changed afterwards. */
    public static final class Settings {
        public CompactionStrategyOptions strategy = CompactionStrategyOptions.defaults(CompactionStrategyOptions.Kind.SIZE_TIERED);
        /** The token ranges of the range-aware strategies (unused otherwise). */
        public TokenRanges ranges = TokenRanges.whole();
        /** Compactions run at once (concurrent_compactors). */
        public int threads = 1;
        /** Bytes written by all compactions of this table, in MiB/s (compaction_throughput); 0 = unthrottled. */
        public double throughputMiBPerSecond;
        /** Purge tombstones older than this; -1 (the default) = the table's gc_grace_seconds. */
        public long gcGraceSeconds = -1;
        /** Clock for TTL expiry and gc grace, in seconds. */
        public LongSupplier nowSeconds = () -> System.currentTimeMillis() / 1000;
        /** Log a warning when the estimated pending compactions pass this; 0 = never. Writers are never slowed. */
        public int pendingWarnThreshold = 100;
    }

    private final TableSchema schema;
    private final TableDirectory directory;
    private final CompactionPicker picker;
    private final Settings settings;
    private final LongSupplier unflushedMinTimestamp;
    /**
     * The version compactions write: the table's flushes' (a table written as nb for a Cassandra 4
     * cluster stays nb), oa for a directory no flusher writes.
     */
    private final SSTableVersion outputVersion;
    private final LogLines log;
    private final CompactionThrottle throttle;
    private final ExecutorService pool;
    /** Held from start to close: no other compaction (another node's, an in-place `compact`) replaces these sstables meanwhile. */
    private final CompactionLock lock;

    /** Guarded by this. */
    private Version version;
    private final Set<Integer> compacting = new HashSet<>();
    private final Map<Integer, SSTableFiles> files = new HashMap<>();
    private int running;
    private boolean closed;
    private Throwable failure;
    private boolean overPendingThreshold;

    private long compactions, bytesRead, bytesWritten, failures;

    private BackgroundCompactions(TableSchema schema, TableDirectory directory, Settings settings,
                                  LongSupplier unflushedMinTimestamp, SSTableVersion outputVersion, Consumer<String> log)
            throws IOException {
        if (settings.threads < 1) throw new IllegalArgumentException("compaction threads must be at least 1: " + settings.threads);
        this.schema = schema;
        this.directory = directory;
        this.settings = settings;
        this.picker = CompactionPicker.create(settings.strategy, settings.ranges);
        this.unflushedMinTimestamp = unflushedMinTimestamp;
        this.outputVersion = outputVersion;
        this.log = new LogLines(LOG, log);
        this.throttle = new CompactionThrottle(settings.throughputMiBPerSecond);
        this.lock = CompactionLock.tryAcquire(directory.path());
        List<SSTableInfo> live = new ArrayList<>();
        try {
            for (SSTableFiles f : SSTableFiles.inDirectory(directory.path())) {
                SSTableInfo info = describe(f, schema);
                live.add(info);
                files.put(info.generation(), f);
            }
            // The leveled compaction pointers are not on disk: start them where Cassandra does, after
            // the newest sstable of each next level, so the first round through a level does not
            // always begin at its lowest token.
            Version v = Version.of(live);
            this.version = v.apply(picker.startupEdit(v));
        } catch (IOException | RuntimeException e) {
            lock.close();
            throw e;
        }
        AtomicInteger n = new AtomicInteger();
        this.pool = Executors.newFixedThreadPool(settings.threads, r -> {
            Thread t = new Thread(r, "flushline-compaction-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Background compaction of the flusher's table: the version is built from the live sstables of
     * its directory, every later flush is added, and compaction starts at once if the picker has
     * work. {@code log} receives one line per compaction, and its warnings ("WARN ...") and failures
     * ("ERROR ..."); null logs them through SLF4J (this class's logger: info, warn, error).
     */
    public static BackgroundCompactions start(Flusher flusher, Settings settings, Consumer<String> log) throws IOException {
        BackgroundCompactions c = new BackgroundCompactions(flusher.current().schema(), flusher.tableDirectory(), settings,
                flusher::minUnflushedTimestamp, flusher.sstableVersion(), log);
        flusher.addFlushListener(c::flushed);
        c.schedule();
        return c;
    }

    /** Compaction of a table directory no memtable writes into (compaction-stress, offline use); {@code log} as for {@link #start}. */
    public static BackgroundCompactions open(TableSchema schema, TableDirectory directory, Settings settings, Consumer<String> log)
            throws IOException {
        BackgroundCompactions c = new BackgroundCompactions(schema, directory, settings, () -> Long.MAX_VALUE, SSTableVersion.OA, log);
        c.schedule();
        return c;
    }

    /**
     * What the pickers know of one sstable: its generation, the tokens of its first and last keys,
     * Data.db's length, and level and timestamps from Statistics.db.
     */
    public static SSTableInfo describe(SSTableFiles f, TableSchema schema) throws IOException {
        StatisticsReader.Metadata m = StatisticsReader.read(f, schema, false); // in the sstable's own version
        byte[] firstKey = m.firstKey, lastKey = m.lastKey;
        if (firstKey == null) { // nb's Statistics.db has no key range
            byte[][] keys = f.boundaryKeys();
            firstKey = keys[0];
            lastKey = keys[1];
        }
        int generation;
        try {
            generation = Integer.parseInt(f.id());
        } catch (NumberFormatException e) {
            throw new IOException(f.path(Component.DATA) + ": compaction needs numeric sstable generations, not '" + f.id() + "'");
        }
        long first = Murmur3.token(firstKey, 0, firstKey.length);
        long last = Murmur3.token(lastKey, 0, lastKey.length);
        return new SSTableInfo(generation, first, last, Files.size(f.path(Component.DATA)), m.level, m.minTimestamp, m.maxTimestamp);
    }

    /** Flush listener (flush thread): adds the published sstable and looks for work. Never throws into the flush. */
    private void flushed(FlushOutcome o) {
        try {
            SSTableFiles f = SSTableFiles.of(o.result.dataPath);
            SSTableInfo info = describe(f, schema);
            synchronized (this) {
                files.put(info.generation(), f);
                version = version.apply(VersionEdit.adding(List.of(info)));
            }
            schedule();
        } catch (IOException | RuntimeException e) {
            // Not compacted until the next open lists it; the flush itself succeeded.
            log.error("compaction cannot track flushed sstable " + o.result.dataPath + ": " + e, e);
        }
    }

    /** Starts picks while threads are free and the picker has work. */
    private synchronized void schedule() {
        while (!closed && failure == null && running < settings.threads) {
            long memtableMin = unflushedMinTimestamp.getAsLong();
            CompactionPick pick = picker.pick(version, compacting);
            if (pick == null) break;
            for (SSTableInfo s : pick.inputs()) compacting.add(s.generation());
            List<SSTableFiles> inputs = new ArrayList<>();
            for (SSTableInfo s : pick.inputs()) inputs.add(files.get(s.generation()));
            long maxPurgeable = Math.min(pick.maxPurgeableTimestamp(), memtableMin);
            running++;
            pool.execute(() -> run(pick, inputs, maxPurgeable));
        }
        int pending = picker.estimatedRemainingTasks(version);
        int limit = settings.pendingWarnThreshold;
        if (limit > 0 && pending > limit && !overPendingThreshold) {
            log.warn(schema.keyspace() + "." + schema.name() + ": " + pending + " pending compactions (threshold "
                    + limit + "); writes are not slowed, compaction is falling behind", null);
        }
        overPendingThreshold = limit > 0 && pending > limit;
        notifyAll();
    }

    private void run(CompactionPick pick, List<SSTableFiles> inputs, long maxPurgeable) {
        long t0 = System.nanoTime();
        try {
            long now = settings.nowSeconds.getAsLong();
            boolean[] pooled = pick.pooledSegments();
            Compactor.Options o = Compactor.Options.builder(now, now - (settings.gcGraceSeconds < 0 ? schema.gcGraceSeconds() : settings.gcGraceSeconds))
                    .splitTokens(pick.splitTokens())
                    .pooledRanges(pooled.length == 0 ? null : pooled)
                    .maxSSTableBytes(pick.maxOutputBytes() == Long.MAX_VALUE ? 0 : pick.maxOutputBytes())
                    .outputLevel(pick.outputLevel())
                    .maxPurgeableTimestamp(maxPurgeable)
                    .throttle(throttle)
                    .version(outputVersion)
                    .build();
            List<SSTableFiles> outputs = new ArrayList<>();
            List<SSTableInfo> outInfo = new ArrayList<>();
            VersionEdit[] edit = new VersionEdit[1];
            Compactor.Result r = CompactionTask.replace(schema, inputs, o, 1, directory, published -> {
                for (Path p : published) {
                    SSTableFiles f = SSTableFiles.of(p);
                    outputs.add(f);
                    outInfo.add(describe(f, schema));
                }
                edit[0] = pick.edit(outInfo); // refuses outputs that break the strategy's rules: before the commit, so they roll back
            });
            log.info(CompactionLog.line(r, System.nanoTime() - t0, pick.outputLevel()) + " Picked: " + pick.describe());
            synchronized (this) {
                version = version.apply(edit[0]);
                for (SSTableInfo s : pick.inputs()) {
                    compacting.remove(s.generation());
                    files.remove(s.generation());
                }
                for (int i = 0; i < outputs.size(); i++) files.put(outInfo.get(i).generation(), outputs.get(i));
                compactions++;
                bytesRead += r.inputDataBytes;
                bytesWritten += r.outputDataBytes;
                running--;
                // In the same critical section: a waiter for quiescence never sees zero running
                // compactions while the new version still has work.
                schedule();
            }
        } catch (Throwable t) {
            log.error("compaction failed, background compaction of " + schema.keyspace() + "." + schema.name()
                    + " stopped until resumed (" + pick.describe() + "): " + Flusher.describe(t), t);
            synchronized (this) {
                for (SSTableInfo s : pick.inputs()) compacting.remove(s.generation());
                running--;
                failures++;
                if (failure == null) failure = t;
                notifyAll();
            }
        }
    }

    /** Waits until no compaction runs and the picker has nothing left (or a compaction failed, or closed). */
    public synchronized void awaitQuiescent() throws InterruptedException {
        while (running > 0) wait();
    }

    /** As {@link #awaitQuiescent()}, waiting at most {@code millis}; returns whether it got there. */
    public synchronized boolean awaitQuiescent(long millis) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000;
        while (running > 0) {
            long left = (deadline - System.nanoTime()) / 1_000_000;
            if (left <= 0) return false;
            wait(left);
        }
        return true;
    }

    /** Leaves the stopped state after a failed compaction and looks for work again. */
    public void resume() {
        synchronized (this) {
            failure = null;
        }
        schedule();
    }

    public synchronized Version version() { return version; }

    /** The picker's estimate of compactions still needed (Cassandra's pending tasks). */
    public synchronized int pendingCompactions() { return picker.estimatedRemainingTasks(version); }

    public synchronized int runningCompactions() { return running; }

    public synchronized long compactionsDone() { return compactions; }

    /** Data.db bytes the finished compactions read and wrote. */
    public synchronized long bytesRead() { return bytesRead; }

    public synchronized long bytesWritten() { return bytesWritten; }

    public synchronized long failedCompactions() { return failures; }

    /** The first failure since the last {@link #resume}, or null. */
    public synchronized Throwable failure() { return failure; }

    public long throttledNanos() { return throttle.throttledNanos(); }

    /** Starts no more picks, lets the running ones finish, stops the threads. */
    @Override
    public void close() throws InterruptedException {
        synchronized (this) {
            closed = true;
            while (running > 0) wait();
        }
        pool.shutdown();
        try {
            pool.awaitTermination(1, TimeUnit.MINUTES);
        } finally {
            lock.close();
        }
    }
}

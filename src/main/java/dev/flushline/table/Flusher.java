package dev.flushline.table;

import dev.flushline.flush.FlushJob;
import dev.flushline.flush.FlushOutcome;
import dev.flushline.flush.FlushProgress;

import dev.flushline.data.InsertBuffer;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.memtable.Memtable;
import dev.flushline.sstable.SSTableWriteException;
import dev.flushline.sstable.TableDirectory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Runs a table's memtables as a node does: writers apply updates to the current memtable; when
 * the data a memtable holds passes {@code cleanupThreshold} of a limit, it is sealed and switched
 * for a fresh one and its flush is queued; writers keep going meanwhile. If flushing falls behind
 * and the memtables' memory reaches a limit, writers block (back-pressure, never an
 * OutOfMemoryError) until a flush frees memory; {@link #writerBlockedNanos()} shows how long.
 *
 * <p>Memory. Limits follow Cassandra's memtable_heap_space / memtable_offheap_space and
 * memtable_cleanup_threshold; on-heap and off-heap are checked separately. Two measures are used,
 * on purpose. The switch of the current memtable counts the bytes its data takes
 * ({@link Memtable#onHeapUsedBytes()}), not what its slab allocator owns: an allocator takes a whole
 * 1 MiB slab at the first write, so counting owned bytes would switch a memtable with one row in it
 * whenever the threshold is near a slab, and each such switch would take another slab. Back-pressure
 * counts what the sealed memtables own (real memory, freed only by their flush) plus what the
 * current one's data takes. So a writer blocks only while some flush is outstanding, a flush always
 * ends the wait, and N bytes of data under a threshold T give about N / T flushes whatever the
 * allocation mode and the number of shards.
 *
 * <p>Failure policy (as a node's disk_failure_policy, or RocksDB's background-error state). A
 * failed flush is logged at once, with the sstable, phase and cause. An I/O failure is retried on
 * the flush thread with exponential backoff, up to {@link FailurePolicy#maxRetries} times; since
 * the one flush thread retries before it takes the next memtable, memtables still publish in the
 * order they were written. Any other failure (a conservation or size check, a bug) is not retried.
 * Once retries are used up the flusher enters its failed state: no further flush runs, every
 * writer waiting for memory and every later {@link #apply} throws {@link FlusherFailedException}
 * naming the cause, and {@link #forceFlush()} / {@link #close()} throw it too. Nothing waits
 * forever. A failed flush publishes nothing partial (the transactional sstable writer) and its
 * memtable is kept, so {@link #retryFailedFlushes()} can resume after the cause is fixed.
 *
 * <p>Thread safety: {@link #apply} from any number of threads; the other methods from any thread.
 * Memtable switches, the flush queue and the failed state are guarded by {@link #lock}; the write
 * path takes the lock only to switch or to wait.
 */
public final class Flusher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Flusher.class);

    /** Immutable settings. */
    public static final class Limits {
        public final long onHeapBytes;
        public final long offHeapBytes;
        /** Fraction of a limit at which the current memtable is switched and flushed. */
        public final double cleanupThreshold;

        public Limits(long onHeapBytes, long offHeapBytes, double cleanupThreshold) {
            if (cleanupThreshold <= 0 || cleanupThreshold > 1) {
                throw new IllegalArgumentException("cleanup threshold must be in (0, 1]: " + cleanupThreshold);
            }
            this.onHeapBytes = onHeapBytes;
            this.offHeapBytes = offHeapBytes;
            this.cleanupThreshold = cleanupThreshold;
        }

        /**
         * The policy for memtables of {@code bytes}: the current memtable is switched and flushed
         * once its data takes {@code bytes} (half of the limit), and writers wait while twice that
         * is held, so one memtable can fill while the one before it flushes.
         */
        public static Limits forMemtableSize(long bytes) {
            if (bytes < 1) throw new IllegalArgumentException("memtable size must be positive: " + bytes);
            return new Limits(2 * bytes, 2 * bytes, 0.5);
        }
    }

    /** How a failed flush is retried before the flusher gives up. Immutable. */
    public static final class FailurePolicy {
        /** Retries after the first failed attempt; 0 = fail at the first failure. */
        public final int maxRetries;
        /** Wait before the first retry; doubled for each further one, up to {@link #maxBackoffMillis}. */
        public final long initialBackoffMillis;
        public final long maxBackoffMillis;

        /** Three retries over about 1.75 s: rides out a transient error, gives up quickly on a full disk. */
        public static final FailurePolicy DEFAULT = new FailurePolicy(3, 250, 10_000);

        public FailurePolicy(int maxRetries, long initialBackoffMillis, long maxBackoffMillis) {
            if (maxRetries < 0) throw new IllegalArgumentException("retries must be 0 or more: " + maxRetries);
            if (initialBackoffMillis < 0 || maxBackoffMillis < initialBackoffMillis) {
                throw new IllegalArgumentException("backoff must satisfy 0 <= initial <= max: "
                        + initialBackoffMillis + ", " + maxBackoffMillis);
            }
            this.maxRetries = maxRetries;
            this.initialBackoffMillis = initialBackoffMillis;
            this.maxBackoffMillis = maxBackoffMillis;
        }

        /** The wait before retry number {@code retry} (1-based). */
        long backoffMillis(int retry) {
            long b = initialBackoffMillis;
            for (int i = 1; i < retry && b < maxBackoffMillis; i++) b *= 2;
            return Math.min(b, maxBackoffMillis);
        }
    }

    /** How a sealed memtable is flushed; tests substitute one that blocks or fails. */
    @FunctionalInterface
    public interface FlushRunner {
        List<FlushOutcome> run(Memtable sealed, FlushJob.Options options, TableDirectory directory, FlushProgress progress)
                throws IOException;
    }

    /** Progress of the flush running now, or null when none is. */
    private volatile FlushProgress running;

    private final Supplier<Memtable> memtables;
    /** Where the sstables go; null: the node layout under flushOptions.outDir. */
    private final Path tableDir;
    private final FlushRunner runner;
    private final FlushJob.Options flushOptions;
    private final Limits limits;
    private final FailurePolicy policy;
    private final Consumer<FlushOutcome> onFlushed;
    private final LogLines log;
    /** Called once all of a memtable's sstables are published, before it is discarded (e.g. to release commit log segments). */
    private volatile Consumer<Memtable> onMemtableFlushed;
    /** Further observers of each published sstable (e.g. background compaction), after {@code onFlushed}. */
    private final List<Consumer<FlushOutcome>> flushListeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final ExecutorService flushExecutor;
    /**
     * Opened (listed) once, by the first flush or {@link #openTableDirectory()}. Guarded by
     * directoryLock, not lock: opening does I/O, and writers must not wait behind it to switch.
     */
    private TableDirectory directory;
    private final Object directoryLock = new Object();

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition memoryFreed = lock.newCondition();
    private volatile Memtable current;
    /** Sealed memtables whose flush is queued or running. Guarded by lock. */
    private final List<Memtable> flushing = new ArrayList<>();
    /** Sealed memtables whose flush failed (or was not run in the failed state), in write order. Guarded by lock. */
    private final List<Memtable> failed = new ArrayList<>();
    private final List<Future<?>> pending = new ArrayList<>();
    /** flushing.size() + failed.size(), readable without the lock by the write path. */
    private volatile int queued;
    private volatile Throwable lastFailure;
    /** Non-null in the failed state; written under lock, read by writers without it. */
    private volatile FlusherFailedException failedState;
    private volatile boolean closed;

    private final AtomicLong flushes = new AtomicLong();
    private final AtomicLong memtablesFlushed = new AtomicLong();
    private final AtomicLong failedAttempts = new AtomicLong();
    private final AtomicLong bytesFlushed = new AtomicLong();
    private final AtomicLong writerBlockedNanos = new AtomicLong();

    /**
     * {@code memtables} makes a fresh memtable for each switch; {@code onFlushed} sees every
     * published sstable (called on a flush thread). Flush failures are logged (SLF4J, this class's
     * logger, at error) and retried as {@link FailurePolicy#DEFAULT} says.
     */
    public Flusher(Supplier<Memtable> memtables, FlushJob.Options flushOptions, Limits limits,
                   Consumer<FlushOutcome> onFlushed) {
        this(memtables, flushOptions, limits, onFlushed, null, FailurePolicy.DEFAULT, null);
    }

    public Flusher(Supplier<Memtable> memtables, FlushJob.Options flushOptions, Limits limits,
                   Consumer<FlushOutcome> onFlushed, FlushRunner runner) {
        this(memtables, flushOptions, limits, onFlushed, runner, FailurePolicy.DEFAULT, null);
    }

    /**
     * {@code runner} null flushes with {@link FlushJob}; {@code log} receives one line per failed
     * flush attempt and one when the flusher gives up (called on the flush thread), each starting
     * with "ERROR "; null logs them through SLF4J instead, at error with the cause attached.
     */
    public Flusher(Supplier<Memtable> memtables, FlushJob.Options flushOptions, Limits limits,
                   Consumer<FlushOutcome> onFlushed, FlushRunner runner, FailurePolicy policy, Consumer<String> log) {
        this(memtables, flushOptions, limits, onFlushed, runner, policy, log, null);
    }

    /**
     * As above; {@code tableDir} is the directory the sstables go into, or null for a node's
     * layout under {@code flushOptions.outDir} ({@code <keyspace>/<table>-<id>}). A bulk writer
     * passes its output directory itself, as Cassandra's CQLSSTableWriter writes into it.
     */
    public Flusher(Supplier<Memtable> memtables, FlushJob.Options flushOptions, Limits limits,
                   Consumer<FlushOutcome> onFlushed, FlushRunner runner, FailurePolicy policy, Consumer<String> log,
                   Path tableDir) {
        this.tableDir = tableDir;
        this.memtables = memtables;
        this.runner = runner;
        this.flushOptions = flushOptions;
        this.limits = limits;
        this.policy = policy;
        this.onFlushed = onFlushed;
        this.log = new LogLines(LOG, log);
        this.current = memtables.get();
        this.flushExecutor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "flushline-flusher");
            t.setDaemon(true);
            return t;
        });
    }

    public Memtable current() {
        return current;
    }

    /** Sets the hook run on the flush thread after a memtable's sstables are all published. */
    public void onMemtableFlushed(Consumer<Memtable> hook) {
        this.onMemtableFlushed = hook;
    }

    /**
     * Opens the table directory if no flush has yet: removes a crashed writer's leftovers and reads
     * the highest generation, the only listing of the directory this flusher makes. Returns what was
     * removed (empty if it was already open), so a caller can report it before the first write.
     */
    public List<Path> openTableDirectory() throws IOException {
        synchronized (directoryLock) {
            if (directory != null) return List.of();
            directory = TableDirectory.open(tableDir != null ? tableDir : (current.schema()).directoryUnder(flushOptions.outDir));
            return directory.removedLeftovers();
        }
    }

    /**
     * What opening the table directory found unfinished and left alone because nothing proves it
     * ours ({@link TableDirectory#incomplete}); empty before it is opened.
     */
    public List<Path> incompleteInTableDirectory() {
        synchronized (directoryLock) {
            return directory == null ? List.of() : directory.incomplete();
        }
    }

    /**
     * Adds an observer of every sstable a flush publishes, called on the flush thread after it is
     * published and before its memtable leaves {@link #unflushedMemtables}, so that its data is
     * always in one of the two for an observer that looks at both.
     */
    public void addFlushListener(Consumer<FlushOutcome> listener) {
        flushListeners.add(listener);
    }

    /** The version of the sstables the flushes write: background compaction writes the same. */
    public dev.flushline.sstable.SSTableVersion sstableVersion() {
        return flushOptions.version;
    }

    /** The table directory the flushes write into (opened now if no flush has yet): compactions share its generations. */
    public TableDirectory tableDirectory() throws IOException {
        return directory();
    }

    /**
     * The smallest timestamp any memtable not yet flushed holds (Long.MAX_VALUE if none holds any):
     * a compaction must not purge a tombstone at or above it. A write racing with this call may
     * still add a smaller one, as in Cassandra, whose compaction reads the memtables' minimum the
     * same way.
     */
    public long minUnflushedTimestamp() {
        long min = Long.MAX_VALUE;
        List<Memtable> all = unflushedMemtables();
        for (int i = 0; i < all.size(); i++) {
            long t = all.get(i).minTimestamp();
            if (t != dev.flushline.data.Cell.NO_TIMESTAMP) min = Math.min(min, t);
        }
        return min;
    }

    private TableDirectory directory() throws IOException {
        synchronized (directoryLock) {
            if (directory == null) openTableDirectory();
            return directory;
        }
    }

    /**
     * Applies an update, switching and flushing memtables and blocking as the limits require.
     * Returns the memtable that took it, so a commit log can record the write's position there
     * ({@link Memtable#coverCommitLogPosition}); it may already be sealed by then. Throws
     * {@link FlusherFailedException}, without applying, in the failed state.
     */
    public Memtable apply(PartitionUpdate update) throws IOException, InterruptedException {
        readyToApply();
        while (true) {
            Memtable m = current;
            if (m.apply(update)) {
                if (overThreshold(m)) switchAndFlush(m);
                return m;
            }
            // m was sealed under us; the next memtable is already current (or about to be).
            Thread.onSpinWait();
        }
    }

    /** Refuses an apply when closed or failed, and waits while the memtables hold more than their limit. */
    private void readyToApply() throws IOException, InterruptedException {
        if (closed) throw new IllegalStateException("flusher is closed");
        FlusherFailedException f = failedState;
        if (f != null) throw failedStateError(f);
        awaitMemory();
    }

    /** As {@link #apply(PartitionUpdate)}, for a decoded insert (see {@code Memtable.apply(InsertBuffer)}). */
    public Memtable apply(InsertBuffer insert) throws IOException, InterruptedException {
        readyToApply();
        while (true) {
            Memtable m = current;
            if (m.apply(insert)) {
                if (overThreshold(m)) switchAndFlush(m);
                return m;
            }
            // m was sealed under us; the next memtable is already current (or about to be).
            Thread.onSpinWait();
        }
    }

    /** A fresh exception per throw, so each writer's stack trace shows its own call. */
    private static FlusherFailedException failedStateError(FlusherFailedException state) {
        FlusherFailedException e = new FlusherFailedException(state.getMessage(), state.getCause());
        return e;
    }

    private boolean overThreshold(Memtable m) {
        return m.onHeapUsedBytes() >= limits.onHeapBytes * limits.cleanupThreshold
                || m.offHeapUsedBytes() >= limits.offHeapBytes * limits.cleanupThreshold;
    }

    /** REQUIRES: lock held. What the sealed memtables own plus what the current one's data takes. */
    private long heldOnHeap() {
        long total = current.onHeapUsedBytes();
        for (int i = 0; i < flushing.size(); i++) total += flushing.get(i).onHeapBytes();
        for (int i = 0; i < failed.size(); i++) total += failed.get(i).onHeapBytes();
        return total;
    }

    /** REQUIRES: lock held. As {@link #heldOnHeap()}, off heap. */
    private long heldOffHeap() {
        long total = current.offHeapUsedBytes();
        for (int i = 0; i < flushing.size(); i++) total += flushing.get(i).offHeapBytes();
        for (int i = 0; i < failed.size(); i++) total += failed.get(i).offHeapBytes();
        return total;
    }

    /** Blocks while the memtables hold as much memory as the limits allow; throws in the failed state. */
    private void awaitMemory() throws IOException, InterruptedException {
        // Fast path without the lock: the current memtable alone is below the threshold and
        // nothing is flushing.
        Memtable m = current;
        if (!overThreshold(m) && queued == 0) return;
        long start = 0;
        lock.lockInterruptibly();
        try {
            while (heldOnHeap() >= limits.onHeapBytes || heldOffHeap() >= limits.offHeapBytes) {
                FlusherFailedException f = failedState;
                if (f != null) throw failedStateError(f);
                if (closed) throw new IllegalStateException("flusher is closed");
                if (start == 0) start = System.nanoTime();
                if (flushing.isEmpty() && failed.isEmpty() && overThreshold(current)) {
                    // Safety net: a full current memtable with nothing flushing must be flushed,
                    // or this wait would have nothing to end it.
                    switchLocked(current);
                }
                // Timed: a missed signal costs 10 ms, never a hang.
                memoryFreed.await(10, TimeUnit.MILLISECONDS);
            }
        } finally {
            lock.unlock();
            if (start != 0) writerBlockedNanos.addAndGet(System.nanoTime() - start);
        }
    }

    /** REQUIRES: lock held. */
    private void updateQueued() {
        queued = flushing.size() + failed.size();
    }

    private void switchAndFlush(Memtable m) {
        lock.lock();
        try {
            if (current == m) switchLocked(m);
        } finally {
            lock.unlock();
        }
    }

    /** REQUIRES: lock held. Makes a fresh memtable current, seals {@code m} and queues its flush. */
    private Future<?> switchLocked(Memtable m) {
        current = memtables.get();
        m.seal();
        return queueLocked(m);
    }

    private Future<?> queueLocked(Memtable m) {
        flushing.add(m);
        updateQueued();
        Future<?> f = flushExecutor.submit(() -> flushOne(m));
        pending.removeIf(Future::isDone); // a long load queues many flushes; keep only the live ones
        pending.add(f);
        return f;
    }

    /** Runs on the flush thread: one memtable, with retries; on giving up, enters the failed state. */
    private void flushOne(Memtable m) {
        int attempt = 0;
        while (true) {
            if (failedState != null) {
                moveToFailed(m); // no flush runs in the failed state; keep it for a retry
                return;
            }
            attempt++;
            try {
                flushAttempt(m);
                return;
            } catch (Throwable t) {
                lastFailure = t;
                failedAttempts.incrementAndGet();
                boolean retryable = t instanceof IOException && !(t instanceof FlusherFailedException);
                boolean retry = retryable && attempt <= policy.maxRetries && !closed;
                long backoff = retry ? policy.backoffMillis(attempt) : 0;
                log.error("flush of " + m.schema() + " failed (attempt " + attempt + " of "
                        + (policy.maxRetries + 1) + "): " + describe(t)
                        + (retry ? "; retrying in " + backoff + " ms" : retryable ? "" : "; not retried (not an I/O error)"), t);
                if (retry) {
                    try {
                        Thread.sleep(backoff);
                        continue;
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt(); // shutdown: give up below
                    }
                }
                enterFailedState(m, t, attempt);
                return;
            }
        }
    }

    private void flushAttempt(Memtable m) throws IOException {
        if (m.rowCount() > 0 || m.partitionCount() > 0) {
            FlushProgress progress = new FlushProgress();
            running = progress;
            List<FlushOutcome> outcomes;
            try {
                TableDirectory dir = directory();
                outcomes = runner != null ? runner.run(m, flushOptions, dir, progress)
                        : FlushJob.run(m, flushOptions, dir, progress);
            } finally {
                running = null;
            }
            for (FlushOutcome o : outcomes) {
                flushes.incrementAndGet();
                bytesFlushed.addAndGet(o.bytesFlushed);
                if (onFlushed != null) onFlushed.accept(o);
                for (Consumer<FlushOutcome> l : flushListeners) l.accept(o);
                // Debug, not info: onFlushed is how a caller shows each flush (the command line prints
                // the line itself), and at info a backend would print it a second time.
                if (LOG.isDebugEnabled()) LOG.debug(o.logLine());
            }
        }
        Consumer<Memtable> hook = onMemtableFlushed;
        if (hook != null) hook.accept(m);
        lock.lock();
        try {
            flushing.remove(m);
            updateQueued();
            m.discard();
            memtablesFlushed.incrementAndGet();
            lastFailure = null;
            memoryFreed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** One line: the sstable and phase when the writer knows them, and the root cause. */
    static String describe(Throwable t) {
        if (t instanceof SSTableWriteException) return t.getMessage();
        for (Throwable c = t.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            if (c instanceof SSTableWriteException) return c.getMessage();
        }
        return SSTableWriteException.rootCauseText(t);
    }

    private void moveToFailed(Memtable m) {
        lock.lock();
        try {
            flushing.remove(m);
            failed.add(m);
            updateQueued();
            memoryFreed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void enterFailedState(Memtable m, Throwable cause, int attempts) {
        // Logged before the state is visible, so that whoever sees the failed state finds the line.
        log.error("flusher of " + m.schema() + " stopped after " + attempts + " failed attempt"
                + (attempts == 1 ? "" : "s") + "; writes are refused until the cause is fixed: " + describe(cause), cause);
        lock.lock();
        try {
            flushing.remove(m);
            failed.add(m);
            updateQueued();
            failedState = new FlusherFailedException("flushing " + m.schema() + " failed " + attempts
                    + (attempts == 1 ? " time" : " times") + " and the flusher stopped: " + describe(cause), cause);
            memoryFreed.signalAll(); // wake every blocked writer: they throw now
        } finally {
            lock.unlock();
        }
    }

    /** What the current memtable's data takes, on and off heap: how full it is. */
    public long currentMemtableBytes() {
        Memtable m = current;
        return m.onHeapUsedBytes() + m.offHeapUsedBytes();
    }

    /**
     * Every memtable whose data is not yet published: the current one, those queued or flushing
     * (including one whose {@code onMemtableFlushed} hook is running) and those whose flush failed.
     * A commit log uses their lower bounds to know which segments it still needs.
     */
    public List<Memtable> unflushedMemtables() {
        lock.lock();
        try {
            List<Memtable> all = new ArrayList<>(flushing.size() + failed.size() + 1);
            all.add(current);
            all.addAll(flushing);
            all.addAll(failed);
            return all;
        } finally {
            lock.unlock();
        }
    }

    /** Leaves the failed state (if in it) and queues the failed flushes again, in write order. */
    public void retryFailedFlushes() {
        lock.lock();
        try {
            List<Memtable> again = new ArrayList<>(failed);
            failed.clear();
            failedState = null;
            lastFailure = null;
            updateQueued();
            for (Memtable m : again) queueLocked(m);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Switches the current memtable and waits until it and everything queued before it are
     * flushed. Throws the cause if a flush failed: at once in the failed state.
     */
    public void forceFlush() throws IOException, InterruptedException {
        FlusherFailedException state = failedState;
        if (state != null) throw failedStateError(state);
        lock.lock();
        try {
            if (current.rowCount() > 0 || current.partitionCount() > 0) switchLocked(current);
        } finally {
            lock.unlock();
        }
        awaitPending();
        state = failedState;
        if (state != null) throw failedStateError(state);
        Throwable t = lastFailure;
        if (t != null) {
            throw t instanceof IOException ? (IOException) t : new IOException("flush failed: " + t, t);
        }
    }

    private void awaitPending() throws InterruptedException {
        while (true) {
            Future<?> f;
            lock.lock();
            try {
                pending.removeIf(Future::isDone);
                if (pending.isEmpty()) return;
                f = pending.get(0);
            } finally {
                lock.unlock();
            }
            try {
                f.get();
            } catch (java.util.concurrent.ExecutionException ignored) {
                // flushOne records failures itself
            }
        }
    }

    /**
     * Flushes everything (drain) and stops the flush thread. Throws if a flush failed; in the
     * failed state it throws at once, without waiting for anything.
     */
    @Override
    public void close() throws IOException, InterruptedException {
        if (closed) return;
        try {
            forceFlush();
        } finally {
            closed = true;
            flushExecutor.shutdownNow(); // interrupts a retry's backoff; nothing else is queued by now
            flushExecutor.awaitTermination(1, TimeUnit.MINUTES);
        }
    }

    /**
     * Stops the flush thread without flushing: for an owner whose own start-up failed. Memtables
     * not flushed are dropped with the flusher (a commit log in front still holds their data).
     */
    public void abandon() {
        closed = true;
        flushExecutor.shutdownNow();
    }

    public Throwable lastFailure() { return lastFailure; }

    /** The failed state's exception, or null while flushes work. */
    public FlusherFailedException failedState() { return failedState; }

    /** Failed flush attempts so far, retries included. */
    public long failedAttempts() { return failedAttempts.get(); }

    /** The running flush's progress, or null if no flush is running. */
    public FlushProgress runningFlush() { return running; }

    /** Sstables published so far. */
    public long flushCount() { return flushes.get(); }

    /** Memtables flushed (published and discarded) so far; one may give several sstables. */
    public long memtablesFlushed() { return memtablesFlushed.get(); }

    public long bytesFlushed() { return bytesFlushed.get(); }

    public int pendingFlushes() { return queued; }

    public long writerBlockedNanos() { return writerBlockedNanos.get(); }
}

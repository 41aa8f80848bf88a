package dev.flushline.flush;

import dev.flushline.data.PartitionUpdate;
import dev.flushline.memtable.Memtable;

import java.io.IOException;
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
 * the memory the memtables own passes {@code cleanupThreshold} of a limit, the current memtable is
 * sealed and switched for a fresh one and its flush is queued; writers keep going meanwhile. If
 * flushing falls behind and owned memory reaches a limit, writers block (back-pressure, never an
 * OutOfMemoryError) until a flush frees memory; {@link #writerBlockedNanos()} shows how long.
 *
 * <p>Limits follow Cassandra's memtable_heap_space / memtable_offheap_space and
 * memtable_cleanup_threshold: on-heap and off-heap are checked separately.
 *
 * <p>Failure: a flush that fails publishes nothing partial (FlushWriter's transactional publish),
 * keeps its memtable for {@link #retryFailedFlushes()}, and reports the cause via
 * {@link #lastFailure()} and from {@link #forceFlush()} / {@link #close()}. Its memory stays owned,
 * so writers block rather than pile up more data that cannot be flushed.
 *
 * <p>Thread safety: {@link #apply} from any number of threads; the other methods from any thread.
 * Memtable switches and the flush queue are guarded by {@link #lock}; the write path takes the
 * lock only to switch or to wait.
 */
public final class Flusher implements AutoCloseable {
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
    }

    /** How a sealed memtable is flushed; tests substitute one that blocks or fails. */
    @FunctionalInterface
    public interface FlushRunner {
        List<FlushOutcome> run(Memtable sealed, FlushJob.Options options, FlushProgress progress) throws IOException;
    }

    /** Progress of the flush running now, or null when none is. */
    private volatile FlushProgress running;

    private final Supplier<Memtable> memtables;
    private final FlushRunner runner;
    private final FlushJob.Options flushOptions;
    private final Limits limits;
    private final Consumer<FlushOutcome> onFlushed;
    /** Called once all of a memtable's sstables are published, before it is discarded (e.g. to release commit log segments). */
    private volatile Consumer<Memtable> onMemtableFlushed;
    private final ExecutorService flushExecutor;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition memoryFreed = lock.newCondition();
    private volatile Memtable current;
    /** Sealed memtables whose flush is queued or running. Guarded by lock. */
    private final List<Memtable> flushing = new ArrayList<>();
    /** Sealed memtables whose flush failed, kept for a retry. Guarded by lock. */
    private final List<Memtable> failed = new ArrayList<>();
    private final List<Future<?>> pending = new ArrayList<>();
    /** flushing.size() + failed.size(), readable without the lock by the write path. */
    private volatile int queued;
    private volatile Throwable lastFailure;
    private volatile boolean closed;

    private final AtomicLong flushes = new AtomicLong();
    private final AtomicLong bytesFlushed = new AtomicLong();
    private final AtomicLong writerBlockedNanos = new AtomicLong();

    /**
     * {@code memtables} makes a fresh memtable for each switch; {@code onFlushed} sees every
     * published sstable (called on a flush thread).
     */
    public Flusher(Supplier<Memtable> memtables, FlushJob.Options flushOptions, Limits limits,
                   Consumer<FlushOutcome> onFlushed) {
        this(memtables, flushOptions, limits, onFlushed, (m, o, p) -> FlushJob.run(m, o, null, p));
    }

    public Flusher(Supplier<Memtable> memtables, FlushJob.Options flushOptions, Limits limits,
                   Consumer<FlushOutcome> onFlushed, FlushRunner runner) {
        this.memtables = memtables;
        this.runner = runner;
        this.flushOptions = flushOptions;
        this.limits = limits;
        this.onFlushed = onFlushed;
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
     * Applies an update, switching and flushing memtables and blocking as the limits require.
     * Returns the memtable that took it, so a commit log can record the write's position there
     * ({@link Memtable#coverCommitLogPosition}); it may already be sealed by then.
     */
    public Memtable apply(PartitionUpdate update) throws InterruptedException {
        if (closed) throw new IllegalStateException("flusher is closed");
        awaitMemory();
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

    private boolean overThreshold(Memtable m) {
        return m.onHeapBytes() >= limits.onHeapBytes * limits.cleanupThreshold
                || m.offHeapBytes() >= limits.offHeapBytes * limits.cleanupThreshold;
    }

    private long ownedOnHeap() {
        long total = current.onHeapBytes();
        for (Memtable m : flushing) total += m.onHeapBytes();
        for (Memtable m : failed) total += m.onHeapBytes();
        return total;
    }

    private long ownedOffHeap() {
        long total = current.offHeapBytes();
        for (Memtable m : flushing) total += m.offHeapBytes();
        for (Memtable m : failed) total += m.offHeapBytes();
        return total;
    }

    /** Blocks while the memtables own as much memory as the limits allow. */
    private void awaitMemory() throws InterruptedException {
        // Fast path without the lock: the current memtable alone is below the threshold and
        // nothing is flushing.
        Memtable m = current;
        if (!overThreshold(m) && queued == 0) return;
        long start = 0;
        lock.lockInterruptibly();
        try {
            while (ownedOnHeap() >= limits.onHeapBytes || ownedOffHeap() >= limits.offHeapBytes) {
                if (closed) throw new IllegalStateException("flusher is closed");
                if (start == 0) start = System.nanoTime();
                if (flushing.isEmpty() && current.rowCount() > 0 && failed.isEmpty()) {
                    switchLocked(current);
                }
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

    private void flushOne(Memtable m) {
        try {
            if (m.rowCount() > 0 || m.partitionCount() > 0) {
                FlushProgress progress = new FlushProgress();
                running = progress;
                List<FlushOutcome> outcomes;
                try {
                    outcomes = runner.run(m, flushOptions, progress);
                } finally {
                    running = null;
                }
                for (FlushOutcome o : outcomes) {
                    flushes.incrementAndGet();
                    bytesFlushed.addAndGet(o.bytesFlushed);
                    if (onFlushed != null) onFlushed.accept(o);
                }
            }
            Consumer<Memtable> hook = onMemtableFlushed;
            if (hook != null) hook.accept(m);
            lock.lock();
            try {
                flushing.remove(m);
                updateQueued();
                m.discard();
                memoryFreed.signalAll();
            } finally {
                lock.unlock();
            }
        } catch (Throwable t) {
            lastFailure = t;
            lock.lock();
            try {
                flushing.remove(m);
                failed.add(m); // keep it: nothing of it was published partially, retry later
                updateQueued();
                memoryFreed.signalAll();
            } finally {
                lock.unlock();
            }
        }
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

    /** Queues the flushes that failed again. */
    public void retryFailedFlushes() {
        lock.lock();
        try {
            List<Memtable> again = new ArrayList<>(failed);
            failed.clear();
            updateQueued();
            lastFailure = null;
            for (Memtable m : again) queueLocked(m);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Switches the current memtable and waits until it and everything queued before it are
     * flushed. Throws the cause if a flush failed.
     */
    public void forceFlush() throws IOException, InterruptedException {
        Future<?> f;
        lock.lock();
        try {
            f = current.rowCount() > 0 || current.partitionCount() > 0 ? switchLocked(current) : null;
        } finally {
            lock.unlock();
        }
        awaitPending();
        if (f != null) {
            try {
                f.get();
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IOException(e.getCause());
            }
        }
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

    /** Flushes everything (drain) and stops the flush thread. Throws if a flush failed. */
    @Override
    public void close() throws IOException, InterruptedException {
        if (closed) return;
        try {
            forceFlush();
        } finally {
            closed = true;
            flushExecutor.shutdown();
            flushExecutor.awaitTermination(1, TimeUnit.MINUTES);
        }
    }

    public Throwable lastFailure() { return lastFailure; }

    /** The running flush's progress, or null if no flush is running. */
    public FlushProgress runningFlush() { return running; }

    public long flushCount() { return flushes.get(); }

    public long bytesFlushed() { return bytesFlushed.get(); }

    public int pendingFlushes() { return queued; }

    public long writerBlockedNanos() { return writerBlockedNanos.get(); }
}

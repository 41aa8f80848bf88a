package dev.flushline.cli;

import dev.flushline.data.InsertBuffer;
import dev.flushline.data.Mutation;
import dev.flushline.ops.BadInputException;
import dev.flushline.ops.MutationSource;
import org.jctools.queues.SpscArrayQueue;

import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs a {@link MutationSource} (JSON Lines or CSV) on a thread of its own, ahead of the thread that applies what it
 * reads, so that reading, parsing and decoding the input overlap with applying it on two cores.
 *
 * <pre>
 *  read-ahead thread: MutationSource.next() ──batches──► SPSC queue ──► consumer: next()
 * </pre>
 *
 * <p>The same stream in the same order. {@link #next} returns or throws what
 * {@link MutationSource#next} returned or threw, one call for one call: the mutations, each
 * {@link BadInputException} at its place, null at the end of the input; a failure on the read-ahead
 * thread (an IOException, a RuntimeException, an Error) is thrown, as the same object, after
 * everything read before it. {@link #lineNumber} and {@link #noOps} are the reader's counters as of
 * the item {@code next} last returned or threw (every item carries them), not as of where the
 * read-ahead thread has got to: exactly what a caller of the reader on one thread saw at that point.
 *
 * <p>Bounded. Items travel in batches, so that the hand-off, and any wake-up, is paid once per batch
 * rather than per line. A batch is handed off when it holds {@code batchItems} items or its lines took
 * {@code batchBytes} of input; the queue holds {@link #QUEUE_BATCHES}, the read-ahead thread fills one
 * more and the consumer works through one: at most {@code QUEUE_BATCHES + 2} batches are read and not
 * yet applied. With the defaults that is 3,072 operations, and no more than about 6 MiB of input unless
 * single lines are longer than a batch's bytes (then six lines).
 *
 * <p>Ends. The read-ahead thread stops reading after the end of the input, a failure, or a
 * {@link BadInputException#skippable() non-skippable} bad line (reading cannot go on past it), which
 * end the stream; or when the consumer calls {@link #stop} or {@link #close}: then at its next line or
 * hand-off, even while it waits for room. It owns the MutationSource and closes it as it ends, so
 * the reader is only ever used by one thread. It is a daemon and {@link #close} waits for it for a
 * bounded time only: a read of stdin cannot be interrupted and may never return; the thread then
 * ends, and closes the input, when it does.
 *
 * <p>Waiting. Each side parks when it cannot go on: the consumer when the queue is empty, the
 * read-ahead thread when it is full; nobody spins. Each wait is a Dekker hand-shake: the waiter stores
 * its flag, full fence, re-checks the queue and parks only if there is still nothing for it; the
 * waker changes the queue (offer or poll), full fence, loads the flag and unparks if it is set. Each
 * side stores its own state before it loads the other's, so in every interleaving at least one sees
 * the other: the waiter's re-check sees the change and it does not park, or the waker sees the flag
 * and unparks (an unpark before the park leaves a permit, and the park returns at once). The waker's
 * fence is needed: the queue publishes with release stores, which a later load may overtake. So no
 * wake-up is lost, and the park timeout is only a backstop against a bug in this hand-shake (the
 * tests run with an hour). A stale flag costs at most a needless unpark, whose permit makes a later
 * park return at once; every wait re-checks in a loop, so that is harmless.
 *
 * <p>Reuse. Plain inserts are decoded into {@link InsertBuffer}s that belong to the batches, and
 * batches go back to the read-ahead thread once the consumer is past them (see {@link #nextItem}), so
 * a load of plain inserts allocates no batch and no buffer once it runs. Nothing waits for a batch to
 * come back: with none back, the read-ahead thread makes one, and this is bounded (see
 * {@code returned}).
 *
 * <p>Memory ordering: a batch is filled before it is offered and not touched by the read-ahead
 * thread afterwards until it comes back; the queue's release store on offer and acquire load on poll
 * publish its contents (and the mutations and buffers in it, filled on the read-ahead thread) to the
 * consumer, and the return queue publishes the consumer's last reads before the batch is refilled.
 *
 * <p>Thread safety: {@link #next}, {@link #nextItem}, {@link #lineNumber}, {@link #noOps}, {@link #stop} and
 * {@link #close} belong to one consumer thread, the one that called {@link #start}.
 */
final class ReadAhead implements AutoCloseable {
    /**
     * Operations per batch. Applying is faster than reading, so the consumer is usually parked when a
     * batch arrives and each hand-off costs the read-ahead thread an unpark (a futex wake, a few
     * microseconds): at 64 lines a batch that was a tenth of its CPU on the bench workload. At 512 it
     * is about a hundredth, and the batches read ahead stay small (a few hundred KB of input).
     */
    static final int BATCH_ITEMS = 512;
    /** Input per batch, at most (plus one line): bounds what is read ahead when lines are long. */
    static final long BATCH_BYTES = 1 << 20;
    /**
     * Batches the queue holds (the least an SpscArrayQueue holds). Reading is the slower side, so the
     * queue is mostly empty; it fills while applying pauses (a memtable switch, back-pressure), and is
     * ready to be applied when it resumes.
     */
    static final int QUEUE_BATCHES = 4;
    /**
     * How long {@link #close} waits for the read-ahead thread: long enough for one that is parked or
     * between lines to see the stop and close its input, short enough that a read of stdin that does
     * not return delays the end of the load by no more than this.
     */
    static final long JOIN_MILLIS = 250;
    /** Only bounds the cost of a missed wake-up, which the hand-shake rules out; see the class comment. */
    private static final long BACKSTOP_PARK_NANOS = 100_000_000L;

    /**
     * Items read in a row, with the reader's counters as of each; the last batch also says how the
     * stream ends. A batch goes round: filled by the read-ahead thread, taken by the consumer, given back
     * once the consumer is past its last item, filled again. It owns an {@link InsertBuffer} per item
     * slot (made on first use), so a plain insert travels in a buffer that is reused, not in objects.
     */
    private static final class Batch {
        /** A {@link Mutation}, one of {@link #buffers}, or a skippable {@link BadInputException}. */
        final Object[] items;
        final long[] lines;
        final long[] noOps;
        /** Null where the reader decodes no buffers; else slots made on first use. */
        final InsertBuffer[] buffers;
        /** {@link MutationSource#bytesRead()} when this batch was started. */
        long startBytes;
        int size;
        /** Set on the last batch: nothing follows it. */
        boolean last;
        /** On the last batch, what follows the items: null for the end of the input, or what to throw. */
        Throwable end;
        long endLine;
        long endNoOps;

        Batch(int capacity, long startBytes, boolean buffers) {
            this.items = new Object[capacity];
            this.lines = new long[capacity];
            this.noOps = new long[capacity];
            this.buffers = buffers ? new InsertBuffer[capacity] : null;
            this.startBytes = startBytes;
        }

        /** Empties a batch given back, for the next items from {@code startBytes}. */
        void reuse(long startBytes) {
            java.util.Arrays.fill(items, 0, size, null); // no stale mutation or exception kept alive
            this.size = 0;
            this.startBytes = startBytes;
        }

        /** The next item of {@code r}: into this batch's next buffer where the reader decodes into buffers. */
        Object read(MutationSource r) throws IOException, BadInputException {
            if (buffers == null) return r.next();
            InsertBuffer b = buffers[size];
            if (b == null) b = buffers[size] = r.newInsertBuffer();
            return r.next(b);
        }

        void add(Object item, MutationSource r) {
            items[size] = item;
            lines[size] = r.lineNumber();
            noOps[size] = r.noOps();
            size++;
        }

        void end(Throwable t, MutationSource r) {
            end = t;
            endLine = r.lineNumber();
            endNoOps = r.noOps();
            last = true;
        }
    }

    /** Used by the read-ahead thread only, once started. */
    private final MutationSource reader;
    private final String source;
    private final int batchItems;
    private final long batchBytes;
    private final long backstopParkNanos;
    private final long joinMillis;
    private final SpscArrayQueue<Batch> queue;
    /**
     * Batches the consumer is done with, back to the read-ahead thread. Never waited on: when it is
     * empty the reader makes a new batch, which can only happen while every other batch is out: a full
     * one the reader is handing off, the queue's capacity, the consumer's current one and the one it is
     * about to give back. So no more than the queue's capacity plus four batches are ever made.
     */
    private final SpscArrayQueue<Batch> returned;
    /** Whether the reader decodes into buffers (it gives one); decided before the read-ahead thread starts. */
    private final boolean buffers;
    private final Thread readAheadThread;
    private final Thread consumerThread;
    /** Set by a side about to park; read by the other after a full fence (see the class comment). */
    private volatile boolean consumerParked;
    private volatile boolean readerAwaitsRoom;
    /** Set by the consumer: it takes nothing more, so the read-ahead thread ends. */
    private volatile boolean stopped;
    /** What closing the reader threw, set by the read-ahead thread as it ends. */
    private volatile Throwable closeFailure;

    /** Consumer state: the batch being taken from, the next item in it, the counters of the last item. */
    private Batch current;
    private int index;
    private long lineNumber;
    private long noOps;

    private ReadAhead(MutationSource reader, int batchItems, long batchBytes, long backstopParkNanos, long joinMillis) {
        if (batchItems < 1) throw new IllegalArgumentException("batchItems must be positive: " + batchItems);
        if (batchBytes < 1) throw new IllegalArgumentException("batchBytes must be positive: " + batchBytes);
        if (backstopParkNanos <= 0) throw new IllegalArgumentException("backstopParkNanos must be positive: " + backstopParkNanos);
        this.reader = reader;
        this.source = reader.source();
        this.batchItems = batchItems;
        this.batchBytes = batchBytes;
        this.backstopParkNanos = backstopParkNanos;
        this.joinMillis = joinMillis;
        this.queue = new SpscArrayQueue<>(QUEUE_BATCHES);
        this.returned = new SpscArrayQueue<>(queue.capacity() + 4);
        this.buffers = reader.newInsertBuffer() != null;
        this.consumerThread = Thread.currentThread();
        // Allocated here so that the read-ahead thread always has a batch to end the stream in.
        Batch first = new Batch(batchItems, reader.bytesRead(), buffers);
        this.readAheadThread = new Thread(() -> readLoop(first), "flushline-read-ahead " + source);
        readAheadThread.setDaemon(true);
    }

    /** Starts reading {@code reader} ahead, with the defaults; the calling thread is the consumer. */
    static ReadAhead start(MutationSource reader) {
        return start(reader, BATCH_ITEMS, BATCH_BYTES, BACKSTOP_PARK_NANOS, JOIN_MILLIS);
    }

    /** As above, with chosen sizes, backstop and close wait (tests). Closes {@code reader} if it cannot start. */
    static ReadAhead start(MutationSource reader, int batchItems, long batchBytes, long backstopParkNanos, long joinMillis) {
        try {
            ReadAhead r = new ReadAhead(reader, batchItems, batchBytes, backstopParkNanos, joinMillis);
            r.readAheadThread.start();
            return r;
        } catch (Throwable t) {
            try {
                reader.close();
            } catch (IOException | RuntimeException e) {
                t.addSuppressed(e);
            }
            throw t;
        }
    }

    /**
     * The next operation's mutation, or null at the end of the input (and on every call after it),
     * exactly as {@link MutationSource#next}; a failure that ended the stream is thrown again on
     * every later call. Waits while the read-ahead thread has nothing ready. An insert that came in a
     * buffer is built into its mutation here (the commit log's path; see {@link #nextItem}).
     *
     * @throws InterruptedException if interrupted while waiting; the stream stays where it was
     */
    Mutation next() throws IOException, BadInputException, InterruptedException {
        Object item = nextItem();
        return item instanceof InsertBuffer ? ((InsertBuffer) item).toMutation() : (Mutation) item;
    }

    /**
     * As {@link #next}, but a plain insert comes as the {@link InsertBuffer} it was decoded into,
     * without objects. That buffer is the caller's to read until its next call of {@link #next} or
     * {@link #nextItem}, which may give it back to be filled again: copy what must outlive that.
     */
    Object nextItem() throws IOException, BadInputException, InterruptedException {
        while (true) {
            Batch b = current;
            if (b != null) {
                int i = index;
                if (i < b.size) {
                    index = i + 1;
                    lineNumber = b.lines[i];
                    noOps = b.noOps[i];
                    Object item = b.items[i];
                    if (item instanceof BadInputException) throw (BadInputException) item;
                    return item;
                }
                if (b.last) {
                    lineNumber = b.endLine;
                    noOps = b.endNoOps;
                    Throwable t = b.end;
                    if (t == null) return null;
                    if (t instanceof IOException) throw (IOException) t;
                    if (t instanceof BadInputException) throw (BadInputException) t;
                    if (t instanceof RuntimeException) throw (RuntimeException) t;
                    if (t instanceof Error) throw (Error) t;
                    throw new IllegalStateException("unexpected failure reading " + source, t); // next() declares no other
                }
            }
            if (stopped) throw new IllegalStateException("next() after stop()");
            Batch done = b;
            current = take();
            index = 0;
            // Past its last item, which the caller has finished with by calling again: the batch and its buffers go back.
            if (done != null) returned.offer(done);
        }
    }

    /** The line of the item {@link #next} last returned or threw (1-based; 0 before the first), as {@link MutationSource#lineNumber}. */
    long lineNumber() { return lineNumber; }

    /** Valid operations that changed nothing, up to the item {@link #next} last returned or threw. */
    long noOps() { return noOps; }

    String source() { return source; }

    /**
     * Tells the read-ahead thread to stop: the consumer takes nothing more. Does not wait; the
     * thread ends at its next line or hand-off, at once if it is waiting for room.
     */
    void stop() {
        if (stopped) return;
        stopped = true;
        // The read-ahead thread checks `stopped` between lines only; a line that never ends (stdin of
        // /dev/zero, skipped after it was refused for its length) would keep it reading for ever.
        reader.abandon();
        // Unconditional, so no flag is needed: a park after this returns at once (the permit).
        LockSupport.unpark(readAheadThread);
    }

    /**
     * Stops the read-ahead thread and waits for it to end, for a bounded time. If it ended, throws
     * what closing the input threw; if it is still in a read that does not return, it closes the
     * input itself when the read returns.
     */
    @Override
    public void close() throws IOException {
        stop();
        try {
            readAheadThread.join(joinMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        if (readAheadThread.isAlive()) return;
        Throwable t = closeFailure;
        if (t == null) return;
        closeFailure = null;
        if (t instanceof IOException) throw (IOException) t;
        if (t instanceof RuntimeException) throw (RuntimeException) t;
        if (t instanceof Error) throw (Error) t;
        throw new IllegalStateException(t);
    }

    /** The read-ahead thread (tests: whether it waits, whether it ended). */
    Thread readAheadThread() { return readAheadThread; }

    /** Queue capacity in batches (tests: SpscArrayQueue rounds up). */
    int queueCapacity() { return queue.capacity(); }

    // ---------------------------------------------------------------------------------------
    // the consumer's side of the hand-off

    private Batch take() throws InterruptedException {
        Batch b = queue.poll();
        if (b == null) b = awaitBatch();
        VarHandle.fullFence(); // the poll made room; read the flag after it (Dekker)
        if (readerAwaitsRoom) LockSupport.unpark(readAheadThread);
        return b;
    }

    private Batch awaitBatch() throws InterruptedException {
        while (true) {
            consumerParked = true;
            VarHandle.fullFence(); // flag before the re-poll (Dekker)
            Batch b = queue.poll();
            if (b == null) LockSupport.parkNanos(this, backstopParkNanos);
            consumerParked = false;
            if (b != null) return b;
            if (Thread.interrupted()) throw new InterruptedException("interrupted waiting for " + source + " to be read");
            if (!readAheadThread.isAlive()) {
                // Its end happens-before isAlive() returning false, so this poll sees all it offered.
                b = queue.poll();
                if (b != null) return b;
                throw new IllegalStateException("the read-ahead thread of " + source + " ended without ending the stream");
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // the read-ahead thread

    private void readLoop(Batch first) {
        try {
            read(first);
        } finally {
            try {
                reader.close();
            } catch (Throwable t) {
                closeFailure = t;
            }
        }
    }

    private void read(Batch b) {
        final MutationSource r = reader;
        try {
            while (true) {
                Object item;
                try {
                    item = b.read(r);
                } catch (BadInputException e) {
                    if (!e.skippable()) {
                        b.end(e, r);
                        break;
                    }
                    item = e;
                }
                if (stopped) return;
                if (item == null) {
                    b.end(null, r);
                    break;
                }
                b.add(item, r);
                if (b.size == batchItems || r.bytesRead() - b.startBytes >= batchBytes) {
                    // The next batch exists before this one is offered: a published batch is not
                    // touched again until the consumer gives it back, and a failure from here on
                    // (OutOfMemoryError) has a batch to end in.
                    Batch full = b;
                    b = returned.poll();
                    if (b == null) b = new Batch(batchItems, r.bytesRead(), buffers);
                    else b.reuse(r.bytesRead());
                    if (!handOff(full)) return;
                }
            }
        } catch (Throwable t) {
            b.end(t, r);
        }
        handOff(b);
    }

    /** Offers {@code b} to the consumer, waiting while the queue is full; false if the consumer stopped. */
    private boolean handOff(Batch b) {
        final SpscArrayQueue<Batch> q = queue;
        while (!q.offer(b)) {
            readerAwaitsRoom = true;
            VarHandle.fullFence(); // flag before the re-offer (Dekker)
            boolean offered = q.offer(b);
            if (!offered && !stopped) LockSupport.parkNanos(this, backstopParkNanos);
            readerAwaitsRoom = false;
            if (offered) break;
            if (stopped) return false;
            // Nobody interrupts this thread; should anything, a set interrupt must not turn park into a spin.
            Thread.interrupted();
        }
        VarHandle.fullFence(); // offer before reading the flag (Dekker)
        if (consumerParked) LockSupport.unpark(consumerThread);
        return true;
    }
}

package dev.flushline.io;

import org.jctools.queues.SpscArrayQueue;

import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * Overlaps serialization with file I/O on two cores: the serializing thread fills blocks and hands
 * full ones to a dedicated I/O thread, which pushes them through a {@link DataSink} (compression,
 * checksums, writes) and hands the empty blocks back.
 *
 * <pre>
 *  serializer ──full blocks──►  SPSC  ──► I/O thread ──► DataSink ──► Data.db
 *      ▲                                     │
 *      └─────────── SPSC ◄── empty blocks ───┘      (at most {@code depth} blocks in flight)
 * </pre>
 *
 * <p>Nothing is allocated per block: blocks come from a {@link BlockPool} and are recycled through
 * the return queue; they go back to the pool when the output ends. A request larger than a block
 * gets a one-off buffer that goes through {@code full} like a block but is never returned or pooled.
 * Each queue has exactly one producer and one consumer: only the I/O thread offers to {@code empty}
 * (the serializer gives a block it does not fill straight back to the pool) and only the serializer
 * offers to {@code full}.
 *
 * <p>Waiting. A side that finds nothing to do spins briefly, then parks until the other side unparks
 * it. (Timed parking in short steps burned a third of the I/O thread's CPU in context switches.)
 * There are three waits, each with its own flag, so that no wake-up is spent on the wrong waiter:
 * <ul>
 *   <li>the I/O thread waits for a full block ({@code ioParked}); the serializer's offer to
 *       {@code full} wakes it;
 *   <li>the serializer waits for an empty block when {@code depth} blocks are in flight
 *       ({@code serializerAwaitsBlock}); the I/O thread's offer to {@code empty} wakes it;
 *   <li>the serializer waits for room in {@code full} ({@code serializerAwaitsRoom}); the I/O
 *       thread's poll of {@code full} wakes it. Only one-off buffers, which do not count against
 *       {@code depth}, can fill {@code full} (its capacity is more than {@code depth} plus END).
 * </ul>
 * Each wait is a Dekker hand-shake: the waiter stores its flag, full fence, re-checks its queue and
 * parks only if there is still nothing for it; the waker changes the queue (offer or poll), full
 * fence, loads the flag and unparks if it is set. Each side thus stores its own state before it
 * loads the other's, so in every interleaving at least one of them sees the other: the waiter's
 * re-check sees the queue change and it does not park, or the waker sees the flag and unparks (an
 * unpark that comes before the park leaves a permit, and the park returns at once). The waker's
 * fence is the one that matters: JCTools' offer and poll publish with ordered (release) stores, and
 * a release store may be overtaken by a later load (x86 does exactly this from its store buffer),
 * so without the fence both sides could miss each other. The waiter's flag is a volatile store and
 * JCTools' re-checks are volatile loads, which already keeps them in order; its explicit fence makes
 * the argument independent of how the queue reads. The waker pays one or two fences per block (one
 * locked instruction each, per 1 MiB block in production), far less than an unconditional unpark.
 * A flag that is still set just after its waiter resumed costs a needless unpark, whose leftover
 * permit makes a later park return at once; every wait re-checks in a loop, so that is harmless.
 *
 * <p>So a wake-up cannot be lost, and the park timeout ({@link #BACKSTOP_PARK_NANOS}) is strictly a
 * backstop: correctness never depends on it (the tests run with it set to an hour), it only bounds
 * the cost of a bug in this hand-shake. An idle I/O thread also wakes once per timeout while the
 * serializer fills a block, finds nothing and parks again.
 *
 * <p>Failure: if the sink throws on the I/O thread, the failure is kept, the I/O thread keeps
 * returning blocks (without writing them) so the serializer never deadlocks, and the serializer's
 * next hand-off (or {@link #finish}) rethrows it with the sink's exception as the cause. The
 * serializer then calls {@link #abort} (a failed {@link #finish} has already done so).
 *
 * <p>Thread safety: {@link #current}, {@link #next}, {@link #finish}, {@link #abort} belong to the
 * single serializing thread, the one that constructed this; the I/O thread is internal.
 */
public final class PipelinedDataOutput {
    /** Marks the end of the stream in {@code full}; as {@link #current}, it means "no block held". */
    private static final FixedBuffer END = new FixedBuffer(0);

    /** Short: with LZ4 the I/O thread is the bottleneck and a serializer spinning on it burns CPU. */
    private static final int SPINS = 20;
    /** Only bounds the cost of a missed wake-up, which the hand-shake rules out; see the class comment. */
    private static final long BACKSTOP_PARK_NANOS = 1_000_000;

    private final BlockSink sink;
    private final BlockPool pool;
    private final int depth;
    private final long backstopParkNanos;
    private final SpscArrayQueue<FixedBuffer> full;
    private final SpscArrayQueue<FixedBuffer> empty;
    private final Thread ioThread;
    private final Thread serializerThread;
    /**
     * Set by a thread that is about to park waiting for the other; cleared when it resumes. The
     * other side reads them after a full fence; see the class comment for the ordering argument.
     */
    private volatile boolean ioParked;
    private volatile boolean serializerAwaitsBlock;
    private volatile boolean serializerAwaitsRoom;
    /** Written by the I/O thread, read by the serializer: publishes the first sink failure. */
    private volatile Throwable failure;
    /** Set by the serializer to make the I/O thread drop what is queued (abort). */
    private volatile boolean aborting;

    /** Serializer-thread state. {@code current} is END when the serializer holds no block. */
    private FixedBuffer current;
    /** Pooled blocks taken from the pool and not yet given back: at most {@code depth}. */
    private int blocksOut;
    private long handedOffBytes;
    /** END has been offered: the I/O thread ends (or has ended); nothing more may be offered. */
    private boolean ended;
    /** CPU nanos and bytes allocated by the I/O thread, published when it exits. */
    private volatile long ioCpuNanos;
    private volatile long ioAllocatedBytes;

    public PipelinedDataOutput(DataSink sink, BlockPool pool, int depth, String threadName) {
        this(sink, pool, depth, threadName, BACKSTOP_PARK_NANOS);
    }

    /** As the public constructor, with any block sink and a chosen backstop (tests). */
    PipelinedDataOutput(BlockSink sink, BlockPool pool, int depth, String threadName, long backstopParkNanos) {
        if (depth < 1) {
            throw new IllegalArgumentException("depth must be at least 1 block in flight: " + depth);
        }
        if (backstopParkNanos <= 0) {
            throw new IllegalArgumentException("backstopParkNanos must be positive: " + backstopParkNanos);
        }
        this.sink = sink;
        this.pool = pool;
        this.depth = depth;
        this.backstopParkNanos = backstopParkNanos;
        // Room for depth pooled blocks plus END, so only one-off buffers can ever fill it.
        this.full = new SpscArrayQueue<>(depth + 1);
        this.empty = new SpscArrayQueue<>(depth + 1);
        pool.reserve(depth); // the most this writer takes, so none is allocated mid-flush
        this.current = pool.acquire();
        this.blocksOut = 1;
        this.serializerThread = Thread.currentThread();
        this.ioThread = new Thread(this::ioLoop, threadName);
        this.ioThread.setDaemon(true);
        this.ioThread.start();
    }

    /** The block being filled. */
    public FixedBuffer current() {
        return current;
    }

    /** Logical bytes handed to the I/O thread plus those in the current block. */
    public long position() {
        return handedOffBytes + current.position();
    }

    /**
     * Hands off the current block and returns one with at least {@code bytes} free. A request
     * larger than a block gets a one-off buffer of its own (the slow path; it is not pooled).
     */
    public FixedBuffer next(int bytes) throws IOException {
        handOff(current);
        // The old block belongs to the I/O thread now: if we fail below, abort must not release it.
        current = END;
        FixedBuffer b;
        if (bytes > pool.blockBytes()) {
            b = new FixedBuffer(bytes);
        } else {
            b = empty.poll();
            if (b == null) {
                if (blocksOut < depth) {
                    b = pool.acquire();
                    blocksOut++;
                } else {
                    b = awaitEmptyBlock();
                }
            }
            b.clear();
        }
        current = b;
        return b;
    }

    /** Slow path of {@link #next}: all {@code depth} blocks are in flight; waits for one back. */
    private FixedBuffer awaitEmptyBlock() throws IOException {
        int spins = 0;
        while (true) {
            checkFailure();
            if (++spins < SPINS) {
                Thread.onSpinWait();
            } else {
                serializerAwaitsBlock = true;
                VarHandle.fullFence(); // flag before the re-poll (Dekker: see the class comment)
                FixedBuffer b = empty.poll();
                if (b == null) LockSupport.parkNanos(this, backstopParkNanos);
                serializerAwaitsBlock = false;
                if (b != null) return b;
            }
            FixedBuffer b = empty.poll();
            if (b != null) return b;
        }
    }

    private void handOff(FixedBuffer b) throws IOException {
        checkFailure();
        if (b.position() == 0) {
            // Nothing to write. Only the I/O thread may offer to empty, so the block goes to the pool.
            if (b.capacity() == pool.blockBytes()) {
                pool.release(b);
                blocksOut--;
            }
            return;
        }
        int bytes = b.position(); // read first: once offered, the I/O thread may clear the block
        if (!offerFull(b, true)) throw failureException(failure);
        handedOffBytes += bytes;
    }

    /**
     * Offers {@code b} to the I/O thread and wakes it if it is parked. If {@code full} has no room
     * (one-off buffers queued ahead), waits for it. Returns false, without offering, only if
     * {@code stopOnFailure} and the I/O thread has failed.
     */
    private boolean offerFull(FixedBuffer b, boolean stopOnFailure) {
        if (!full.offer(b) && !awaitRoom(b, stopOnFailure)) return false;
        VarHandle.fullFence(); // offer before reading ioParked (Dekker: see the class comment)
        if (ioParked) LockSupport.unpark(ioThread);
        return true;
    }

    private boolean awaitRoom(FixedBuffer b, boolean stopOnFailure) {
        int spins = 0;
        while (true) {
            if (stopOnFailure && failure != null) return false;
            if (++spins < SPINS) {
                Thread.onSpinWait();
            } else {
                serializerAwaitsRoom = true;
                VarHandle.fullFence(); // flag before the re-offer (Dekker: see the class comment)
                boolean offered = full.offer(b);
                if (!offered) LockSupport.parkNanos(this, backstopParkNanos);
                serializerAwaitsRoom = false;
                if (offered) return true;
            }
            if (full.offer(b)) return true;
        }
    }

    private void checkFailure() throws IOException {
        Throwable t = failure;
        if (t != null) throw failureException(t);
    }

    private static IOException failureException(Throwable t) {
        return new IOException("Data.db write failed on the I/O thread: " + IoErrors.describe(t), t);
    }

    /**
     * Hands off the last block and waits until the I/O thread has written everything. If it throws,
     * the output has been aborted: the I/O thread has ended and the blocks are back in the pool
     * (unless the wait itself was interrupted; then the daemon I/O thread ends on its own).
     */
    public void finish() throws IOException {
        if (ended) throw new IllegalStateException("finish() after the output ended (finished or aborted)");
        try {
            handOff(current);
        } catch (Throwable t) {
            abort();
            throw t;
        }
        current = END;
        offerEnd();
        join();
        checkFailure();
    }

    /** Stops the I/O thread without writing what is queued. Never throws; a no-op once ended. */
    public void abort() {
        if (ended) return;
        aborting = true;
        offerEnd();
        try {
            join();
        } catch (IOException ignored) {
            // interrupted: the daemon thread exits on its own once it sees END
        }
    }

    private void offerEnd() {
        ended = true;
        offerFull(END, false); // cannot return false: it waits for room even after a failure
    }

    private void join() throws IOException {
        try {
            ioThread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for the Data.db I/O thread", e);
        }
        // The I/O thread has ended after END (join orders its last returns before us), so every
        // pooled block is in empty or is current: give them all back for the next flush.
        FixedBuffer b;
        while ((b = empty.poll()) != null) pool.release(b);
        if (current != END) pool.release(current);
        current = END;
        blocksOut = 0;
    }

    public long ioCpuNanos() { return ioCpuNanos; }

    public long ioAllocatedBytes() { return ioAllocatedBytes; }

    private void ioLoop() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        long cpu0 = threads.getThreadCpuTime(tid);
        long alloc0 = threads.getThreadAllocatedBytes(tid);
        final SpscArrayQueue<FixedBuffer> full = this.full;
        final SpscArrayQueue<FixedBuffer> empty = this.empty;
        final int blockBytes = pool.blockBytes();
        int spins = 0;
        while (true) {
            FixedBuffer b = full.poll();
            if (b == null) {
                if (++spins < SPINS) Thread.onSpinWait();
                else awaitFullBlock();
                continue;
            }
            spins = 0;
            VarHandle.fullFence(); // the poll made room; read the flag after it (Dekker)
            if (serializerAwaitsRoom) LockSupport.unpark(serializerThread);
            if (b == END) break;
            if (failure == null && !aborting) {
                try {
                    sink.write(b.array(), 0, b.position());
                } catch (Throwable t) {
                    failure = t; // published before the block goes back: seen at the next hand-off
                }
            }
            if (b.capacity() == blockBytes) {
                b.clear();
                empty.offer(b); // never fails: its capacity exceeds depth, the pooled blocks in flight
                VarHandle.fullFence(); // offer before reading the flag (Dekker: see the class comment)
                if (serializerAwaitsBlock) LockSupport.unpark(serializerThread);
            }
        }
        ioCpuNanos = threads.getThreadCpuTime(tid) - cpu0;
        ioAllocatedBytes = threads.getThreadAllocatedBytes(tid) - alloc0;
    }

    /** Slow path of the I/O loop: nothing queued after spinning; parks until the serializer offers. */
    private void awaitFullBlock() {
        ioParked = true;
        VarHandle.fullFence(); // flag before the re-check (Dekker: see the class comment)
        if (full.isEmpty()) LockSupport.parkNanos(this, backstopParkNanos);
        ioParked = false;
    }
}

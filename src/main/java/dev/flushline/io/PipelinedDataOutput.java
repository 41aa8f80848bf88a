package dev.flushline.io;

import org.jctools.queues.SpscArrayQueue;

import java.io.IOException;
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
 * the return queue; they go back to the pool when the output closes. A side that finds nothing to
 * take spins briefly, then announces itself in {@code ioParked}/{@code serializerParked} and parks
 * until the other side unparks it after its next offer. (Timed parking in short steps burned a third
 * of the I/O thread's CPU in context switches.) Announce-then-recheck before parking, and
 * offer-then-check-flag on the other side, means a wake-up cannot be lost; a 1 ms park timeout is
 * only a backstop.
 *
 * <p>Failure: if the sink throws on the I/O thread, the failure is kept, the I/O thread keeps
 * returning blocks so the serializer never deadlocks, and the serializer's next handoff (or
 * {@link #finish}) rethrows it.
 *
 * <p>Thread safety: {@link #current}, {@link #next}, {@link #finish}, {@link #abort} belong to the
 * single serializing thread; the I/O thread is internal.
 */
public final class PipelinedDataOutput {
    private static final FixedBuffer END = new FixedBuffer(0);

    private final DataSink sink;
    private final BlockPool pool;
    private final int depth;
    private final SpscArrayQueue<FixedBuffer> full;
    private final SpscArrayQueue<FixedBuffer> empty;
    private final Thread ioThread;
    private final Thread serializerThread;
    /** Set by a thread that is about to park waiting for the other; cleared when it resumes. */
    private volatile boolean ioParked;
    private volatile boolean serializerParked;
    /** Written by the I/O thread, read by the serializer: publishes the first sink failure. */
    private volatile Throwable failure;
    /** Set by the serializer to make the I/O thread drop what is queued (abort). */
    private volatile boolean aborting;

    private FixedBuffer current;
    private int blocksOut;
    private long handedOffBytes;
    /** CPU nanos and bytes allocated by the I/O thread, published when it exits. */
    private volatile long ioCpuNanos;
    private volatile long ioAllocatedBytes;

    public PipelinedDataOutput(DataSink sink, BlockPool pool, int depth, String threadName) {
        this.sink = sink;
        this.pool = pool;
        this.depth = depth;
        this.full = new SpscArrayQueue<>(depth + 1);
        this.empty = new SpscArrayQueue<>(depth + 1);
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
        if (bytes > pool.blockBytes()) {
            current = new FixedBuffer(bytes);
            return current;
        }
        FixedBuffer b = empty.poll();
        if (b == null && blocksOut < depth) {
            b = pool.acquire();
            blocksOut++;
        }
        int spins = 0;
        while (b == null) {
            checkFailure();
            if (++spins < SPINS) {
                Thread.onSpinWait();
            } else {
                serializerParked = true;
                b = empty.poll();
                if (b != null) break;
                LockSupport.parkNanos(BACKSTOP_PARK_NANOS);
                serializerParked = false;
            }
            b = empty.poll();
        }
        serializerParked = false;
        b.clear();
        current = b;
        return b;
    }

    private void handOff(FixedBuffer b) throws IOException {
        checkFailure();
        if (b.position() == 0) {
            if (b.capacity() == pool.blockBytes()) {
                b.clear();
                if (!empty.offer(b)) pool.release(b);
            }
            return;
        }
        handedOffBytes += b.position();
        int spins = 0;
        while (!full.offer(b)) {
            checkFailure();
            if (++spins < SPINS) Thread.onSpinWait();
            else LockSupport.parkNanos(BACKSTOP_PARK_NANOS); // queue full: depth blocks in flight, I/O is behind
        }
        if (ioParked) LockSupport.unpark(ioThread);
    }

    /** Short: with LZ4 the I/O thread is the bottleneck and a serializer spinning on it burns CPU. */
    private static final int SPINS = 20;
    private static final long BACKSTOP_PARK_NANOS = 1_000_000;

    private void checkFailure() throws IOException {
        Throwable t = failure;
        if (t != null) {
            if (t instanceof IOException) throw new IOException("Data.db write failed on the I/O thread", t);
            throw new IOException("Data.db write failed on the I/O thread: " + t, t);
        }
    }

    /** Hands off the last block and waits until the I/O thread has written everything. */
    public void finish() throws IOException {
        handOff(current);
        current = END;
        offerEnd();
        join();
        checkFailure();
    }

    /** Stops the I/O thread without writing what is queued. Never throws. */
    public void abort() {
        aborting = true;
        offerEnd();
        try {
            join();
        } catch (IOException ignored) {
            // interrupted: the daemon thread exits on its own once it sees END
        }
    }

    private void offerEnd() {
        int spins = 0;
        while (!full.offer(END)) {
            if (++spins < SPINS) Thread.onSpinWait();
            else LockSupport.parkNanos(BACKSTOP_PARK_NANOS);
        }
        if (ioParked) LockSupport.unpark(ioThread);
    }

    private void join() throws IOException {
        try {
            ioThread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for the Data.db I/O thread", e);
        }
        // Every block is back with us now: return them to the pool for the next flush.
        FixedBuffer b;
        while ((b = empty.poll()) != null) pool.release(b);
        if (current != END) pool.release(current);
    }

    public long ioCpuNanos() { return ioCpuNanos; }

    public long ioAllocatedBytes() { return ioAllocatedBytes; }

    private void ioLoop() {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        long cpu0 = threads.getThreadCpuTime(tid);
        long alloc0 = threads.getThreadAllocatedBytes(tid);
        int spins = 0;
        while (true) {
            FixedBuffer b = full.poll();
            if (b == null) {
                if (++spins < SPINS) {
                    Thread.onSpinWait();
                } else {
                    ioParked = true;
                    if (full.isEmpty()) LockSupport.parkNanos(BACKSTOP_PARK_NANOS);
                    ioParked = false;
                }
                continue;
            }
            spins = 0;
            if (b == END) break;
            if (failure == null && !aborting) {
                try {
                    sink.write(b.array(), 0, b.position());
                } catch (Throwable t) {
                    failure = t;
                }
            }
            b.clear();
            if (b.capacity() == pool.blockBytes()) {
                if (!empty.offer(b)) pool.release(b);
                if (serializerParked) LockSupport.unpark(serializerThread);
            }
        }
        ioCpuNanos = threads.getThreadCpuTime(tid) - cpu0;
        ioAllocatedBytes = threads.getThreadAllocatedBytes(tid) - alloc0;
    }
}

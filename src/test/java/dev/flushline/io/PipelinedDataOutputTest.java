package dev.flushline.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jctools.queues.SpscArrayQueue;
import org.junit.jupiter.api.Test;

/**
 * The serializer / I/O thread hand-off of {@link PipelinedDataOutput}, with small blocks and test
 * sinks. Every pipeline here runs with a one-hour backstop park, so a lost wake-up is not rescued
 * after 1 ms: it hangs the test, and the preemptive timeout (a bound on hangs, far above the normal
 * run time; nothing here measures speed) turns the hang into a failure.
 */
class PipelinedDataOutputTest {
    private static final int BLOCK_BYTES = 4096;
    private static final long NO_BACKSTOP_NANOS = TimeUnit.HOURS.toNanos(1);
    private static final Duration HANG = Duration.ofSeconds(60);
    private static final AtomicInteger THREADS = new AtomicInteger();

    /** Checks every byte against the expected stream as it arrives; optionally fails at one write. */
    static final class VerifyingSink implements BlockSink {
        final byte[] expected;
        /** Bytes accepted so far (I/O thread; read by the test after the I/O thread has ended). */
        int position;
        int writes;
        int failAtWrite = -1;
        Throwable failWith;

        VerifyingSink(byte[] expected) {
            this.expected = expected;
        }

        @Override
        public void write(byte[] src, int offset, int length) throws IOException {
            int w = writes++;
            if (w == failAtWrite) {
                if (failWith instanceof IOException e) throw e;
                throw (RuntimeException) failWith;
            }
            if (failAtWrite >= 0 && w > failAtWrite) {
                throw new AssertionError("write " + w + " after the failure at write " + failAtWrite);
            }
            if (length <= 0 || position + length > expected.length
                    || !Arrays.equals(src, offset, offset + length, expected, position, position + length)) {
                throw new AssertionError("write " + w + " of " + length + " bytes at stream position " + position
                        + " does not match the bytes handed in (" + expected.length + " in all)");
            }
            position += length;
        }
    }

    private static String threadName() {
        return "pipe-test-" + THREADS.incrementAndGet();
    }

    private static Thread liveThread(String name) {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals(name)) return t;
        }
        throw new AssertionError("no live I/O thread named " + name);
    }

    /** Fills the pool with {@code n} blocks and returns them, so their return can be checked by identity. */
    private static FixedBuffer[] warm(BlockPool pool, int n) {
        FixedBuffer[] blocks = new FixedBuffer[n];
        for (int i = 0; i < n; i++) blocks[i] = pool.acquire();
        for (int i = 0; i < n; i++) pool.release(blocks[i]);
        assertEquals(n, pool.idleBlocks());
        return blocks;
    }

    /**
     * The pool holds exactly {@code known}: none lost (or replaced by a fresh block), none twice,
     * no extra block (so at most {@code depth} were taken), no one-off buffer.
     */
    private static void assertPoolHoldsExactly(BlockPool pool, FixedBuffer[] known, String context) {
        assertEquals(known.length, pool.idleBlocks(), "idle blocks " + context);
        Set<FixedBuffer> expected = Collections.newSetFromMap(new IdentityHashMap<>());
        Collections.addAll(expected, known);
        Set<FixedBuffer> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = 0; i < known.length; i++) {
            FixedBuffer b = pool.acquire();
            assertTrue(expected.contains(b), "a block that was not taken from the pool came back " + context);
            assertTrue(seen.add(b), "a block came back twice " + context);
        }
        for (FixedBuffer b : known) pool.release(b);
    }

    /**
     * Writes {@code data} as the sstable writer does: pieces of random size, each in the current
     * block if it fits, else in the block {@code next} returns (oversized ones in a one-off buffer).
     */
    private static void writePieces(PipelinedDataOutput out, byte[] data, long seed) throws IOException {
        SplittableRandom r = new SplittableRandom(seed);
        int p = 0;
        while (p < data.length) {
            int kind = r.nextInt(20);
            int n = kind == 0 ? BLOCK_BYTES + 1 + r.nextInt(3 * BLOCK_BYTES)
                    : kind == 1 ? BLOCK_BYTES
                    : 1 + r.nextInt(600);
            n = Math.min(n, data.length - p);
            FixedBuffer b = out.current();
            if (b.remaining() < n) b = out.next(n);
            b.putBytes(data, p, n);
            p += n;
            if (out.position() != p) {
                throw new AssertionError("position " + out.position() + " != " + p + " (seed " + seed + ")");
            }
        }
    }

    @Test
    void bytesArriveInOrderAndCompleteThroughManyBlocks() {
        assertTimeoutPreemptively(HANG, () -> {
            for (int depth = 1; depth <= 4; depth++) {
                for (long seed = 1; seed <= 3; seed++) {
                    String context = "(depth " + depth + ", seed " + seed + ")";
                    byte[] data = SinkTestData.random(400_000 + (int) seed * 777, seed);
                    BlockPool pool = new BlockPool(BLOCK_BYTES, 8);
                    FixedBuffer[] known = warm(pool, depth);
                    VerifyingSink sink = new VerifyingSink(data);
                    String name = threadName();
                    PipelinedDataOutput out = new PipelinedDataOutput(sink, pool, depth, name, NO_BACKSTOP_NANOS);
                    Thread io = liveThread(name);
                    writePieces(out, data, seed);
                    out.finish();
                    assertFalse(io.isAlive(), "I/O thread ended " + context);
                    assertEquals(data.length, sink.position, "bytes written " + context);
                    assertEquals(data.length, out.position(), context);
                    assertTrue(sink.writes > 50, "went through many blocks " + context + ": " + sink.writes);
                    assertPoolHoldsExactly(pool, known, context);
                    out.abort(); // after finish: a no-op
                    assertPoolHoldsExactly(pool, known, "after a later abort " + context);
                    assertThrows(IllegalStateException.class, out::finish);
                }
            }
        });
    }

    @Test
    void emptyBlocksAreNotWrittenAndGoBackToThePool() {
        assertTimeoutPreemptively(HANG, () -> {
            // Nothing at all: the untouched first block goes back without a write.
            BlockPool pool = new BlockPool(BLOCK_BYTES, 8);
            FixedBuffer[] known = warm(pool, 2);
            VerifyingSink sink = new VerifyingSink(new byte[0]);
            PipelinedDataOutput out = new PipelinedDataOutput(sink, pool, 2, threadName(), NO_BACKSTOP_NANOS);
            out.finish();
            assertEquals(0, sink.writes);
            assertPoolHoldsExactly(pool, known, "(nothing written)");

            // An oversized first structure: the empty first block is given up for a one-off buffer.
            byte[] data = SinkTestData.random(3 * BLOCK_BYTES + 5, 9);
            sink = new VerifyingSink(data);
            out = new PipelinedDataOutput(sink, pool, 2, threadName(), NO_BACKSTOP_NANOS);
            FixedBuffer b = out.next(data.length);
            assertTrue(b.capacity() >= data.length);
            b.putBytes(data, 0, data.length);
            out.finish();
            assertEquals(1, sink.writes);
            assertEquals(data.length, sink.position);
            assertPoolHoldsExactly(pool, known, "(one oversized structure)");
        });
    }

    @Test
    void sinkFailureSurfacesOnTheSerializerWithItsCause() {
        assertTimeoutPreemptively(HANG, () -> {
            int[] failAt = {0, 1, 3, 9};
            for (int kind = 0; kind < 2; kind++) {
                for (int f : failAt) {
                    // Repeated: whether the serializer sees the failure while it waits for a block
                    // or only at its next hand-off depends on the interleaving.
                    for (long s = 1; s <= 25; s++) {
                        long seed = s;
                        String context = "(" + (kind == 0 ? "IOException" : "RuntimeException")
                                + " at write " + f + ", seed " + seed + ")";
                        byte[] data = SinkTestData.random(120_000, seed);
                        BlockPool pool = new BlockPool(BLOCK_BYTES, 8);
                        FixedBuffer[] known = warm(pool, 2);
                        VerifyingSink sink = new VerifyingSink(data);
                        sink.failAtWrite = f;
                        sink.failWith = kind == 0 ? new IOException("disk full " + context)
                                : new IllegalStateException("sink bug " + context);
                        String name = threadName();
                        PipelinedDataOutput out = new PipelinedDataOutput(sink, pool, 2, name, NO_BACKSTOP_NANOS);
                        Thread io = liveThread(name);
                        IOException e = assertThrows(IOException.class, () -> {
                            writePieces(out, data, seed);
                            out.finish();
                        }, context);
                        assertSame(sink.failWith, e.getCause(), context);
                        out.abort(); // what the sstable writer does after a failed next (no-op after finish)
                        assertFalse(io.isAlive(), "I/O thread ended " + context);
                        assertEquals(f + 1, sink.writes, "no write after the failure " + context);
                        assertPoolHoldsExactly(pool, known, context);
                    }
                }
            }
        });
    }

    @Test
    void failureOfTheLastBlockSurfacesFromFinish() {
        assertTimeoutPreemptively(HANG, () -> {
            for (int kind = 0; kind < 2; kind++) {
                byte[] data = SinkTestData.random(2 * BLOCK_BYTES + 10, 4);
                BlockPool pool = new BlockPool(BLOCK_BYTES, 8);
                FixedBuffer[] known = warm(pool, 2);
                VerifyingSink sink = new VerifyingSink(data);
                sink.failAtWrite = 2; // the last block, which only finish() hands off
                sink.failWith = kind == 0 ? new IOException("fsync failed") : new IllegalArgumentException("bad chunk");
                String name = threadName();
                PipelinedDataOutput out = new PipelinedDataOutput(sink, pool, 2, name, NO_BACKSTOP_NANOS);
                Thread io = liveThread(name);
                out.current().putBytes(data, 0, BLOCK_BYTES);
                out.next(1).putBytes(data, BLOCK_BYTES, BLOCK_BYTES);
                out.next(1).putBytes(data, 2 * BLOCK_BYTES, 10);
                IOException e = assertThrows(IOException.class, out::finish);
                assertSame(sink.failWith, e.getCause());
                assertFalse(io.isAlive(), "a failed finish ends the I/O thread");
                assertEquals(2 * BLOCK_BYTES, sink.position);
                assertPoolHoldsExactly(pool, known, "(failed finish, kind " + kind + ")");
                out.abort();
                assertPoolHoldsExactly(pool, known, "(abort after a failed finish, kind " + kind + ")");
            }
        });
    }

    /**
     * A sink that stalls on its first write until released, with {@code full} filled to capacity
     * behind it: abort must wait for room for END (the I/O thread's poll wakes it; the backstop
     * would take an hour), then return without writing anything that was queued.
     */
    @Test
    void abortWhileTheQueueIsFullReturnsAndDropsWhatIsQueued() {
        assertTimeoutPreemptively(HANG, () -> {
            int depth = 2;
            // The same construction as the pipeline's queue: how many items fill it.
            int queueCapacity = new SpscArrayQueue<FixedBuffer>(depth + 1).capacity();
            byte[] data = SinkTestData.random(BLOCK_BYTES * (2 * queueCapacity + 4), 5);
            CountDownLatch firstWriteEntered = new CountDownLatch(1);
            CountDownLatch gate = new CountDownLatch(1);
            AtomicInteger writes = new AtomicInteger();
            int[] bytesWritten = new int[1];
            BlockSink sink = (src, offset, length) -> {
                if (writes.get() == 0) {
                    firstWriteEntered.countDown();
                    try {
                        gate.await();
                    } catch (InterruptedException e) {
                        throw new IOException(e);
                    }
                }
                if (!Arrays.equals(src, offset, offset + length, data, bytesWritten[0], bytesWritten[0] + length)) {
                    throw new AssertionError("bytes out of order at " + bytesWritten[0]);
                }
                bytesWritten[0] += length;
                writes.incrementAndGet();
            };
            BlockPool pool = new BlockPool(BLOCK_BYTES, 8);
            FixedBuffer[] known = warm(pool, depth);
            String name = threadName();
            PipelinedDataOutput out = new PipelinedDataOutput(sink, pool, depth, name, NO_BACKSTOP_NANOS);
            Thread io = liveThread(name);
            int p = 0;
            out.current().putBytes(data, p, BLOCK_BYTES);
            p += BLOCK_BYTES;
            out.next(1).putBytes(data, p, BLOCK_BYTES); // the first block goes to the stalled sink
            p += BLOCK_BYTES;
            firstWriteEntered.await();
            // Second pooled block plus one-off buffers: exactly queueCapacity items queued, none waits.
            for (int i = 0; i < queueCapacity; i++) {
                out.next(2 * BLOCK_BYTES).putBytes(data, p, 2 * BLOCK_BYTES);
                p += 2 * BLOCK_BYTES;
            }
            Thread serializer = Thread.currentThread();
            Thread releaser = new Thread(() -> {
                // Opens the gate once the serializer waits inside abort (for room, or in join).
                while (true) {
                    Thread.State s = serializer.getState();
                    if (s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING) break;
                    Thread.onSpinWait();
                }
                gate.countDown();
            }, name + "-releaser");
            releaser.setDaemon(true);
            releaser.start();
            out.abort();
            releaser.join();
            assertFalse(io.isAlive(), "I/O thread ended");
            assertEquals(1, writes.get(), "only the write in progress completed; the queue was dropped");
            assertEquals(BLOCK_BYTES, bytesWritten[0]);
            assertPoolHoldsExactly(pool, known, "(abort with a full queue)");
            out.abort(); // idempotent
            assertPoolHoldsExactly(pool, known, "(second abort)");
        });
    }

    /**
     * Many tiny hand-offs at depth 2: both sides keep running dry and parking, so this exercises the
     * park/unpark hand-shake (the I/O thread waiting for a block, the serializer waiting for one
     * back) hundreds of thousands of times. With the backstop at an hour, a single lost wake-up
     * hangs the test instead of costing 1 ms.
     */
    @Test
    void manyTinyHandOffsNeverLoseAWakeUp() {
        assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            int handOffs = 200_000;
            byte[] data = SinkTestData.random(handOffs * 8, 6);
            BlockPool pool = new BlockPool(BLOCK_BYTES, 8);
            FixedBuffer[] known = warm(pool, 2);
            VerifyingSink sink = new VerifyingSink(data);
            PipelinedDataOutput out = new PipelinedDataOutput(sink, pool, 2, threadName(), NO_BACKSTOP_NANOS);
            SplittableRandom r = new SplittableRandom(6);
            int p = 0;
            FixedBuffer b = out.current();
            for (int i = 0; i < handOffs; i++) {
                int n = 1 + r.nextInt(7);
                b.putBytes(data, p, n);
                p += n;
                b = out.next(1); // always hands off, however little the block holds
            }
            out.finish();
            assertEquals(p, sink.position);
            assertEquals(handOffs, sink.writes);
            assertPoolHoldsExactly(pool, known, "(tiny hand-offs)");
        });
    }

    /**
     * Many one-off buffers (each larger than a block): they do not count against depth, so they
     * fill {@code full} and the serializer waits for room, which the I/O thread's poll must wake.
     */
    @Test
    void manyOneOffBuffersNeverLoseAWakeUp() {
        assertTimeoutPreemptively(Duration.ofSeconds(120), () -> {
            int blockBytes = 64;
            int handOffs = 40_000;
            byte[] data = SinkTestData.random(handOffs * 96, 7);
            BlockPool pool = new BlockPool(blockBytes, 8);
            FixedBuffer[] known = warm(pool, 2);
            VerifyingSink sink = new VerifyingSink(data);
            PipelinedDataOutput out = new PipelinedDataOutput(sink, pool, 2, threadName(), NO_BACKSTOP_NANOS);
            SplittableRandom r = new SplittableRandom(7);
            int p = 0;
            while (p < data.length) {
                int n = Math.min(blockBytes + 1 + r.nextInt(63), data.length - p);
                FixedBuffer b = out.current();
                if (b.remaining() < n) b = out.next(n);
                b.putBytes(data, p, n);
                p += n;
            }
            out.finish();
            assertEquals(data.length, sink.position);
            assertTrue(sink.writes > handOffs / 2, "hand-offs: " + sink.writes);
            assertPoolHoldsExactly(pool, known, "(one-off buffers)");
        });
    }

    @Test
    void rejectsBadArguments() {
        BlockPool pool = new BlockPool(BLOCK_BYTES, 2);
        BlockSink sink = (src, offset, length) -> fail("no write expected");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new PipelinedDataOutput(sink, pool, 0, threadName(), NO_BACKSTOP_NANOS));
        assertTrue(e.getMessage().contains("depth"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> new PipelinedDataOutput(sink, pool, 2, threadName(), 0));
        assertTrue(e.getMessage().contains("backstop"), e.getMessage());
    }

    /** A real sink through the public constructor and the production backstop: the files are whole. */
    @Test
    void realSinkThroughThePublicConstructor(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        assertTimeoutPreemptively(HANG, () -> {
            byte[] data = SinkTestData.semiCompressible(300_000, 8);
            BlockPool pool = new BlockPool(BLOCK_BYTES, 8);
            FixedBuffer[] known = warm(pool, 4);
            try (UncompressedDataSink sink = new UncompressedDataSink(dir.resolve("a-Data.db"), dir.resolve("a-CRC.db"),
                    dir.resolve("a-Digest.crc32"))) {
                PipelinedDataOutput out = new PipelinedDataOutput(sink, pool, 4, threadName());
                writePieces(out, data, 8);
                out.finish();
                assertEquals(data.length, sink.uncompressedPosition());
                sink.finish();
            }
            assertArrayEquals(data, java.nio.file.Files.readAllBytes(dir.resolve("a-Data.db")));
            assertPoolHoldsExactly(pool, known, "(real sink)");
        });
    }

    /**
     * A writer whose I/O thread falls behind holds all {@code depth} blocks. The pool must already
     * have them from earlier writers, even if those never needed as many: else the slow flush
     * allocates megabyte blocks on its serializer thread, the allocation its goal counts.
     */
    @Test
    void aLaggingWriterTakesItsBlocksFromThePoolNotTheHeap() {
        assertTimeoutPreemptively(HANG, () -> {
            int blockBytes = 1 << 20, depth = 4;
            BlockPool pool = new BlockPool(blockBytes, 8);
            // First writer: a few bytes, one block ever in use, a sink that keeps up.
            byte[] small = SinkTestData.random(100, 3);
            PipelinedDataOutput first = new PipelinedDataOutput(new VerifyingSink(small), pool, depth, threadName(), NO_BACKSTOP_NANOS);
            first.current().putBytes(small, 0, small.length);
            first.finish();

            // Second writer: a sink that stalls, so the serializer fills every block it may hold.
            byte[] data = SinkTestData.random(6 * blockBytes, 4);
            VerifyingSink verifying = new VerifyingSink(data);
            BlockSink slow = (src, offset, length) -> {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    throw new java.io.InterruptedIOException();
                }
                verifying.write(src, offset, length);
            };
            com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
            long before = mx.getCurrentThreadAllocatedBytes();
            PipelinedDataOutput out = new PipelinedDataOutput(slow, pool, depth, threadName(), NO_BACKSTOP_NANOS);
            FixedBuffer b = out.current();
            for (int written = 0; written < data.length; ) {
                if (b.remaining() == 0) b = out.next(1);
                int n = Math.min(b.remaining(), data.length - written);
                b.putBytes(data, written, n);
                written += n;
            }
            out.finish();
            long allocated = mx.getCurrentThreadAllocatedBytes() - before;
            assertEquals(data.length, verifying.position);
            assertTrue(allocated < blockBytes / 2, "the lagging writer allocated " + allocated + " bytes on its serializer thread");
        });
    }
}

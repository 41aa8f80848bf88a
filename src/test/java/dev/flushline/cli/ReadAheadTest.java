package dev.flushline.cli;

import dev.flushline.data.Mutation;
import dev.flushline.ops.BadInputException;
import dev.flushline.ops.OperationReader;
import dev.flushline.ops.OperationDecoder;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * ReadAhead is the reader on one thread, seen from another: the same calls in the same order with
 * the same counters, failures in place, and an end that never waits without bound. Every read-ahead
 * here parks with a one-hour backstop, so a lost wake-up hangs the test (and the timeout fails it)
 * instead of being rescued.
 */
class ReadAheadTest {
    static final long NOW = 1_750_000_000L;
    static final TableSchema T = CqlParser.parse("CREATE TABLE ks.t (pk int, ck int, v int, l list<int>, PRIMARY KEY (pk, ck))");
    static final long NO_BACKSTOP_NANOS = TimeUnit.HOURS.toNanos(1);
    static final Duration TIMEOUT = Duration.ofSeconds(60);

    /** One call of next(): what it returned or threw, and the counters after it. */
    record Step(String what, long line, long noOps) {}

    interface Next {
        Mutation next() throws Exception;
    }

    /** Inserts, with bad JSON, unknown columns, no-ops, blank lines and comments in between. */
    static String ops(int lines) {
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i <= lines; i++) {
            if (i % 17 == 0) sb.append(i % 2 == 0 ? "" : "// a comment");
            else if (i % 11 == 0) sb.append("{\"op\":\"update\",\"timestamp\":1,\"key\":{\"pk\":").append(i).append(",\"ck\":1},\"add\":{\"l\":[]}}");
            else if (i % 7 == 0) sb.append("{\"op\":\"insert\",");
            else if (i % 13 == 0) sb.append("{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":1,\"ck\":1,\"nope\":1}}");
            else sb.append("{\"op\":\"insert\",\"timestamp\":").append(i).append(",\"values\":{\"pk\":").append(i / 10)
                    .append(",\"ck\":").append(i).append(",\"v\":").append(i).append("}}");
            sb.append('\n');
        }
        return sb.toString();
    }

    static OperationReader reader(InputStream in) {
        return new OperationReader(T, in, "ops.jsonl", new OperationDecoder(T, NOW));
    }

    static InputStream bytes(String text) {
        return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Calls next() until the end or a failure, recording each step; a consumer that pauses every
     * {@code pauseEvery} steps (0: never) lets the read-ahead fill the queue and wait for room.
     */
    static List<Step> drain(Next next, java.util.function.LongSupplier line, java.util.function.LongSupplier noOps,
                            int pauseEvery) {
        List<Step> steps = new ArrayList<>();
        while (true) {
            String what;
            boolean done = false;
            try {
                Mutation m = next.next();
                if (m == null) {
                    what = "end";
                    done = true;
                } else {
                    what = "mutation " + m.update();
                }
            } catch (BadInputException e) {
                what = "bad " + e.getMessage();
            } catch (Throwable t) {
                what = "failure " + t;
                done = true;
            }
            steps.add(new Step(what, line.getAsLong(), noOps.getAsLong()));
            if (done) return steps;
            if (pauseEvery > 0 && steps.size() % pauseEvery == 0) LockSupport.parkNanos(200_000);
        }
    }

    static List<Step> direct(InputStream in) {
        OperationReader r = reader(in);
        return drain(r::next, r::lineNumber, r::noOps, 0);
    }

    static List<Step> readAhead(InputStream in, int batchItems, long batchBytes, int pauseEvery) throws IOException {
        try (ReadAhead r = ReadAhead.start(reader(in), batchItems, batchBytes, NO_BACKSTOP_NANOS, 1000)) {
            List<Step> steps = drain(r::next, r::lineNumber, r::noOps, pauseEvery);
            Step last = steps.get(steps.size() - 1);
            if (last.what.equals("end")) {
                // The end stays the end, with the same counters.
                try {
                    assertNull(r.next());
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
                assertEquals(last.line, r.lineNumber());
                assertEquals(last.noOps, r.noOps());
            }
            return steps;
        }
    }

    @Test
    void everyCallReturnsWhatTheReaderReturnedInOrderWithItsCounters() {
        String text = ops(20_000);
        List<Step> expected = direct(bytes(text));
        assertTrue(expected.stream().filter(s -> s.what.startsWith("bad ")).count() > 2000, "errors interleaved");
        assertTrue(expected.get(expected.size() - 1).noOps > 1000, "no-ops counted");
        assertEquals("end", expected.get(expected.size() - 1).what);
        assertTimeoutPreemptively(TIMEOUT, () -> {
            // One item per hand-off (the most hand-offs), a few, the default; a batch closed by its bytes
            // at every buffer fill; consumers that keep up and ones that pause, so that the read-ahead
            // waits for room as well as the consumer for items.
            for (int pauseEvery : new int[] {0, 97}) {
                assertEquals(expected, readAhead(bytes(text), 1, Long.MAX_VALUE, pauseEvery), "batches of 1, pause " + pauseEvery);
                assertEquals(expected, readAhead(bytes(text), 3, Long.MAX_VALUE, pauseEvery), "batches of 3, pause " + pauseEvery);
                assertEquals(expected, readAhead(bytes(text), ReadAhead.BATCH_ITEMS, ReadAhead.BATCH_BYTES, pauseEvery),
                        "defaults, pause " + pauseEvery);
                assertEquals(expected, readAhead(bytes(text), ReadAhead.BATCH_ITEMS, 1, pauseEvery), "1-byte batches, pause " + pauseEvery);
            }
        });
    }

    @Test
    void anEmptyInputEndsAtOnce() throws Exception {
        assertEquals(List.of(new Step("end", 0, 0)), readAhead(bytes(""), 64, Long.MAX_VALUE, 0));
    }

    /** Serves {@code data}, then throws {@code failure} instead of the end of the input. */
    static final class FailingStream extends InputStream {
        private final byte[] data;
        private final Throwable failure;
        private int position;

        FailingStream(byte[] data, Throwable failure) {
            this.data = data;
            this.failure = failure;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (position == data.length) {
                if (failure instanceof IOException) throw (IOException) failure;
                if (failure instanceof RuntimeException) throw (RuntimeException) failure;
                throw (Error) failure;
            }
            int n = Math.min(len, Math.min(data.length - position, 10_000)); // several reads, ending mid-line
            System.arraycopy(data, position, b, off, n);
            position += n;
            return n;
        }
    }

    @Test
    void aFailureOfTheReadAheadThreadIsThrownInPlaceAsTheSameObject() {
        String text = ops(3000);
        byte[] data = text.substring(0, text.length() - 20).getBytes(StandardCharsets.UTF_8); // the last line cut short
        for (Throwable failure : new Throwable[] {new IOException("the disk went away"),
                new IllegalStateException("a bug in decoding"), new OutOfMemoryError("Java heap space")}) {
            List<Step> expected = direct(new FailingStream(data, failure));
            Step last = expected.get(expected.size() - 1);
            assertEquals(new Step("failure " + failure, 2999, last.noOps), last);
            assertTimeoutPreemptively(TIMEOUT, () -> {
                for (int batch : new int[] {1, 64}) {
                    try (ReadAhead r = ReadAhead.start(reader(new FailingStream(data, failure)), batch, Long.MAX_VALUE,
                            NO_BACKSTOP_NANOS, 1000)) {
                        List<Step> got = new ArrayList<>();
                        Throwable thrown = null;
                        while (thrown == null) {
                            try {
                                Mutation m = r.next();
                                got.add(new Step("mutation " + m.update(), r.lineNumber(), r.noOps()));
                            } catch (BadInputException e) {
                                got.add(new Step("bad " + e.getMessage(), r.lineNumber(), r.noOps()));
                            } catch (Throwable t) {
                                thrown = t;
                                got.add(new Step("failure " + t, r.lineNumber(), r.noOps()));
                            }
                        }
                        assertSame(failure, thrown, "the same object, so it surfaces exactly as on one thread");
                        assertEquals(expected, got);
                        // A failed stream stays failed.
                        Throwable again = assertThrows(Throwable.class, r::next);
                        assertSame(failure, again);
                    }
                }
            });
        }
    }

    /** Records who closed it. */
    static final class TrackingStream extends FilterInputStream {
        volatile Thread closedBy;

        TrackingStream(InputStream in) {
            super(in);
        }

        @Override
        public void close() throws IOException {
            closedBy = Thread.currentThread();
            super.close();
        }
    }

    @Test
    void stoppingEarlyEndsAReadAheadWaitingForRoomAtOnce() {
        assertTimeoutPreemptively(TIMEOUT, () -> {
            TrackingStream in = new TrackingStream(bytes(ops(5000)));
            ReadAhead r = ReadAhead.start(reader(in), 1, Long.MAX_VALUE, NO_BACKSTOP_NANOS, TimeUnit.SECONDS.toMillis(30));
            Thread t = r.readAheadThread();
            assertTrue(r.next() != null);
            // The queue fills (capacity batches of one) and the read-ahead parks in its hand-off.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (LockSupport.getBlocker(t) != r) {
                if (System.nanoTime() > deadline) fail("the read-ahead never waited for room: " + t.getState());
                Thread.sleep(1);
            }
            assertTrue(r.queueCapacity() >= ReadAhead.QUEUE_BATCHES);
            long start = System.nanoTime();
            r.close(); // with the backstop at an hour, only the stop's unpark can end the wait
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertFalse(t.isAlive(), "the read-ahead thread ended");
            assertTrue(ms < 10_000, ms + " ms");
            assertSame(t, in.closedBy, "the thread that owns the reader closed the input");
            assertThrows(IllegalStateException.class, r::next, "nothing is taken after a stop");
        });
    }

    /** Serves {@code prefix}, then blocks in read until released, ignoring interrupts as a read of stdin does. */
    static final class StuckStream extends InputStream {
        private final byte[] prefix;
        private int position;
        final CountDownLatch release = new CountDownLatch(1);
        volatile boolean stuck;

        StuckStream(String prefix) {
            this.prefix = prefix.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public int read() {
            throw new UnsupportedOperationException();
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (position < prefix.length) {
                int n = Math.min(len, prefix.length - position);
                System.arraycopy(prefix, position, b, off, n);
                position += n;
                return n;
            }
            stuck = true;
            boolean interrupted = false;
            while (true) {
                try {
                    release.await();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) Thread.currentThread().interrupt();
            return -1;
        }
    }

    @Test
    void aReadAheadStuckInASlowReadIsAbandonedInBoundedTime() {
        assertTimeoutPreemptively(TIMEOUT, () -> {
            StuckStream stuck = new StuckStream(ops(3));
            TrackingStream in = new TrackingStream(stuck);
            ReadAhead r = ReadAhead.start(reader(in), 1, Long.MAX_VALUE, NO_BACKSTOP_NANOS, 200);
            Thread t = r.readAheadThread();
            for (int i = 1; i <= 3; i++) {
                assertTrue(r.next() != null);
                assertEquals(i, r.lineNumber());
            }
            while (!stuck.stuck) Thread.sleep(1);

            // A consumer waiting for the next item can be interrupted out of the wait.
            Thread consumer = Thread.currentThread();
            Thread interrupter = new Thread(() -> {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
                consumer.interrupt();
            });
            interrupter.start();
            assertThrows(InterruptedException.class, r::next);
            interrupter.join();
            assertFalse(Thread.interrupted(), "the interrupt was taken by the InterruptedException");
            assertEquals(3, r.lineNumber(), "the stream stays where it was");

            long start = System.nanoTime();
            r.close();
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(ms >= 150 && ms < 5000, "close waited its bound, no more: " + ms + " ms");
            assertTrue(t.isAlive(), "still in the read");
            assertTrue(t.isDaemon(), "so it does not keep the JVM alive");
            assertNull(in.closedBy, "not closed under a read in progress");

            stuck.release.countDown();
            t.join(TimeUnit.SECONDS.toMillis(20));
            assertFalse(t.isAlive(), "it ends when the read returns");
            assertSame(t, in.closedBy, "and closes the input itself");
        });
    }

    @Test
    void aFailedCloseOfTheInputIsThrownByClose() {
        assertTimeoutPreemptively(TIMEOUT, () -> {
            IOException failure = new IOException("close failed");
            InputStream in = new FilterInputStream(bytes(ops(10))) {
                @Override
                public void close() throws IOException {
                    throw failure;
                }
            };
            ReadAhead r = ReadAhead.start(reader(in), 64, Long.MAX_VALUE, NO_BACKSTOP_NANOS, TimeUnit.SECONDS.toMillis(30));
            while (true) {
                try {
                    if (r.next() == null) break;
                } catch (BadInputException e) {
                    // skipped, as a load with --max-errors would
                }
            }
            IOException e = assertThrows(IOException.class, r::close);
            assertSame(failure, e);
        });
    }

    /**
     * Plain inserts travel in buffers that come back and are filled again: the consumer sees every
     * operation as the reader on one thread gives it (bad lines and mutations in place), a buffer it
     * holds is not refilled before its next call (it still means the same mutation then), and however
     * long the input, no more buffers are made than the batches that can be out at once hold.
     */
    @Test
    void buffersComeBackAndAreNotRefilledWhileHeld() {
        assertTimeoutPreemptively(TIMEOUT, () -> {
            String text = ops(20_000);
            List<String> expected = new ArrayList<>();
            OperationReader single = reader(bytes(text));
            while (true) {
                try {
                    Mutation m = single.next();
                    if (m == null) break;
                    expected.add(m.toString());
                } catch (BadInputException e) {
                    expected.add("bad: " + e.getMessage());
                }
            }
            int[] made = {0};
            OperationReader inner = reader(bytes(text));
            dev.flushline.ops.MutationSource counting = new dev.flushline.ops.MutationSource() {
                public Mutation next() throws IOException, BadInputException { return inner.next(); }
                public Object next(dev.flushline.data.InsertBuffer into) throws IOException, BadInputException { return inner.next(into); }
                public dev.flushline.data.InsertBuffer newInsertBuffer() { made[0]++; return inner.newInsertBuffer(); }
                public long lineNumber() { return inner.lineNumber(); }
                public long noOps() { return inner.noOps(); }
                public long bytesRead() { return inner.bytesRead(); }
                public String source() { return inner.source(); }
                public void abandon() { inner.abandon(); }
                public void close() throws IOException { inner.close(); }
            };
            int batchItems = 4;
            List<String> seen = new ArrayList<>();
            int buffers = 0;
            try (ReadAhead r = ReadAhead.start(counting, batchItems, Long.MAX_VALUE, NO_BACKSTOP_NANOS, 1000)) {
                dev.flushline.data.InsertBuffer held = null;
                String heldMeans = null;
                while (true) {
                    // pause now and then, so that the read-ahead thread fills the queue and waits
                    if (seen.size() % 1000 == 999) LockSupport.parkNanos(20_000_000L);
                    if (held != null) assertEquals(heldMeans, held.toMutation().toString(), "a held buffer was refilled");
                    Object item;
                    try {
                        item = r.nextItem();
                    } catch (BadInputException e) {
                        seen.add("bad: " + e.getMessage());
                        held = null;
                        continue;
                    }
                    if (item == null) break;
                    if (item instanceof dev.flushline.data.InsertBuffer) {
                        held = (dev.flushline.data.InsertBuffer) item;
                        heldMeans = held.toMutation().toString();
                        seen.add(heldMeans);
                        buffers++;
                    } else {
                        held = null;
                        seen.add(item.toString());
                    }
                }
                assertEquals(expected, seen);
                assertTrue(buffers > 10_000, "only " + buffers + " inserts came in buffers");
                // one to ask the reader whether it fills buffers, then a batch's worth per batch that can be out: one
                // being filled, a full one being handed off, the queue's, the consumer's and the one it is giving back
                int bound = 1 + (r.queueCapacity() + 4) * batchItems;
                assertTrue(made[0] <= bound, made[0] + " buffers made for " + buffers + " inserts, more than " + bound);
            }
        });
    }
}

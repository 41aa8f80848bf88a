package dev.flushline.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

class BlockPoolTest {
    @Test
    void anEmptyPoolHandsOutFreshClearedBlocks() {
        BlockPool pool = new BlockPool(4096, 4);
        assertEquals(0, pool.idleBlocks());
        FixedBuffer a = pool.acquire();
        FixedBuffer b = pool.acquire();
        assertNotSame(a, b);
        assertEquals(4096, a.capacity());
        assertEquals(0, a.position());
        assertEquals(4096, a.limit());
        assertEquals(0, pool.idleBlocks());
    }

    @Test
    void aReleasedBlockComesBackClearedAndIsReused() {
        BlockPool pool = new BlockPool(4096, 4);
        FixedBuffer a = pool.acquire();
        a.putLong(42);
        a.limit(100);
        pool.release(a);
        assertEquals(1, pool.idleBlocks());
        FixedBuffer again = pool.acquire();
        assertSame(a, again);
        assertEquals(0, again.position(), "cleared on acquire");
        assertEquals(4096, again.limit(), "limit reset on acquire");
        assertEquals(0, pool.idleBlocks());
    }

    @Test
    void blocksOfAnotherSizeAndNullAreDropped() {
        BlockPool pool = new BlockPool(4096, 4);
        pool.release(new FixedBuffer(8192)); // an oversized one-off buffer
        pool.release(new FixedBuffer(100));
        pool.release(null);
        assertEquals(0, pool.idleBlocks());
        assertEquals(4096, pool.acquire().capacity());
    }

    @Test
    void theIdleBlocksAreBoundedByCapacity() {
        int[][] requestedAndReal = {{1, 2}, {2, 2}, {3, 4}, {4, 4}, {5, 8}, {16, 16}};
        for (int[] c : requestedAndReal) {
            BlockPool pool = new BlockPool(64, c[0]);
            assertEquals(c[1], pool.capacity(), "requested " + c[0]);
            FixedBuffer[] blocks = new FixedBuffer[c[1] + 3];
            for (int i = 0; i < blocks.length; i++) blocks[i] = pool.acquire();
            for (FixedBuffer b : blocks) pool.release(b);
            assertEquals(c[1], pool.idleBlocks(), "full pool drops the rest; requested " + c[0]);
            // The kept ones are the first released, each once.
            Set<FixedBuffer> seen = Collections.newSetFromMap(new IdentityHashMap<>());
            for (int i = 0; i < c[1]; i++) {
                FixedBuffer b = pool.acquire();
                assertSame(blocks[i], b);
                assertTrue(seen.add(b));
            }
            assertEquals(0, pool.idleBlocks());
        }
    }

    @Test
    void rejectsBadSizes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new BlockPool(0, 4));
        assertTrue(e.getMessage().contains("blockBytes") && e.getMessage().contains("0"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new BlockPool(4096, -1));
        assertTrue(e.getMessage().contains("capacity") && e.getMessage().contains("-1"), e.getMessage());
    }

    /**
     * Threads acquiring and releasing concurrently: a block is never handed to two owners at once
     * (each owner marks it in a shared set while it holds it), and the pool never exceeds capacity.
     */
    @Test
    void concurrentAcquireAndReleaseNeverShareABlock() {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            BlockPool pool = new BlockPool(64, 4);
            Set<FixedBuffer> held = ConcurrentHashMap.newKeySet();
            AtomicReference<String> error = new AtomicReference<>();
            int threads = 4;
            int rounds = 50_000;
            CyclicBarrier start = new CyclicBarrier(threads);
            Thread[] ts = new Thread[threads];
            for (int t = 0; t < threads; t++) {
                int id = t;
                ts[t] = new Thread(() -> {
                    try {
                        start.await();
                        FixedBuffer[] mine = new FixedBuffer[3];
                        for (int r = 0; r < rounds; r++) {
                            int n = 1 + (r + id) % 3;
                            for (int i = 0; i < n; i++) {
                                mine[i] = pool.acquire();
                                if (!held.add(mine[i])) error.compareAndSet(null, "block handed out twice");
                                mine[i].putByte(id);
                            }
                            for (int i = 0; i < n; i++) {
                                held.remove(mine[i]);
                                pool.release(mine[i]);
                            }
                        }
                    } catch (Exception e) {
                        error.compareAndSet(null, e.toString());
                    }
                }, "pool-test-" + t);
                ts[t].start();
            }
            for (Thread t : ts) t.join();
            assertEquals(null, error.get());
            assertTrue(pool.idleBlocks() <= pool.capacity(), "idle " + pool.idleBlocks());
            assertTrue(pool.idleBlocks() > 0);
        });
    }

    @Test
    void reserveTopsUpToTheRequestWithinCapacity() {
        BlockPool pool = new BlockPool(64, 4);
        pool.reserve(3);
        assertEquals(3, pool.idleBlocks());
        FixedBuffer a = pool.acquire(), b = pool.acquire();
        pool.reserve(3);
        assertEquals(3, pool.idleBlocks(), "topped up again while two blocks are out");
        pool.release(a);
        pool.release(b);
        assertEquals(4, pool.idleBlocks(), "capacity bounds what is kept");
        pool.reserve(10);
        assertEquals(4, pool.idleBlocks(), "never past capacity");
    }
}

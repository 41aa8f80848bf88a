package dev.flushline.memtable;

import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.flush.FlushJob;
import dev.flushline.flush.FlushOutcome;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.schema.TableSchema;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hash memtable walks its partitions in exactly the skip list's order, whole or by token
 * range, and its flush writes the skip-list memtable's bytes; its token log sorts any contents
 * (equal tokens, sorted and reversed input, runs past the insertion-sort cut) into that order.
 */
class HashMemtableTest {
    static final long NOW = 1_750_000_000L;

    @TempDir
    Path tmp;

    /** A partition with a key of 1..8 seed bytes then {@code unique}'s 4 (a memtable never holds a key twice). */
    private static MemtablePartition partition(long keySeed, int unique) {
        int prefix = 1 + (int) (keySeed & 7);
        byte[] key = new byte[prefix + 4];
        for (int i = 0; i < prefix; i++) key[i] = (byte) (keySeed >>> (8 * i) ^ i * 31);
        for (int i = 0; i < 4; i++) key[prefix + i] = (byte) (unique >>> (24 - 8 * i));
        return new MemtablePartition(PartitionKey.of(key));
    }

    /** Sorts a log of (token, partition) pairs and checks the order against a sort of the pairs by (token, key). */
    private static void checkSort(long[] tokens, MemtablePartition[] parts) {
        TokenLog log = new TokenLog();
        for (int i = 0; i < tokens.length; i++) log.append(tokens[i], parts[i]);
        assertEquals(tokens.length, log.size());
        Integer[] order = new Integer[tokens.length];
        for (int i = 0; i < order.length; i++) order[i] = i;
        Arrays.sort(order, (a, b) -> {
            int c = Long.compare(tokens[a], tokens[b]);
            return c != 0 ? c : Arrays.compareUnsigned(parts[a].key().key(), parts[b].key().key());
        });
        log.sort(tokens.length);
        for (int i = 0; i < order.length; i++) {
            assertEquals(tokens[order[i]], log.token(i), "token at " + i + " of " + order.length);
            assertSame(parts[order[i]], log.partition(i), "partition at " + i + " of " + order.length);
        }
        for (int probe = 0; probe < 50 && tokens.length > 0; probe++) {
            long t = tokens[probe % tokens.length] + (probe % 3) - 1;
            int lb = log.lowerBound(t, tokens.length);
            assertTrue(lb == tokens.length || log.token(lb) >= t, "lower bound at or above " + t);
            assertTrue(lb == 0 || log.token(lb - 1) < t, "nothing below the lower bound reaches " + t);
        }
    }

    @Test
    void tokenLogSortsEveryShapeIntoTokenThenKeyOrder() {
        Random r = new Random(11);
        int[] sizes = {0, 1, 2, 15, 16, 17, 100, TokenLog.CHUNK - 1, TokenLog.CHUNK, TokenLog.CHUNK + 1, 5_000, 40_000};
        for (int n : sizes) {
            for (int shape = 0; shape < 5; shape++) {
                long[] tokens = new long[n];
                MemtablePartition[] parts = new MemtablePartition[n];
                for (int i = 0; i < n; i++) {
                    switch (shape) {
                        case 0: tokens[i] = r.nextLong(); break;                       // random, as Murmur3 gives
                        case 1: tokens[i] = r.nextInt(Math.max(1, n / 8)) - n / 16; break; // many equal tokens: keys decide
                        case 2: tokens[i] = i; break;                                  // already sorted
                        case 3: tokens[i] = -i; break;                                 // reversed
                        default: tokens[i] = 42; break;                                // one token for all
                    }
                    tokens[i] = i % 97 == 0 ? (i % 2 == 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : tokens[i];
                    parts[i] = partition(r.nextLong(), i);
                }
                checkSort(tokens, parts);
            }
        }
    }

    private static long r(int thread, int i) {
        return thread * 1_000_003L + i * 7919L;
    }

    @Test
    void concurrentAppendsKeepEveryPartitionOnce() throws Exception {
        TokenLog log = new TokenLog();
        int threads = 4, each = 20_000;
        CyclicBarrier start = new CyclicBarrier(threads);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        MemtablePartition[][] made = new MemtablePartition[threads][each];
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            final int id = t;
            Thread th = new Thread(() -> {
                try {
                    start.await();
                    for (int i = 0; i < each; i++) {
                        MemtablePartition p = partition(r(id, i), id * each + i);
                        made[id][i] = p;
                        log.append(p.key().token(), p);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            ts.add(th);
            th.start();
        }
        for (Thread th : ts) th.join(60_000);
        assertNull(failure.get());
        assertEquals(threads * each, log.size());
        java.util.Set<MemtablePartition> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (int i = 0; i < log.size(); i++) {
            MemtablePartition p = log.partition(i);
            assertEquals(p.key().token(), log.token(i), "slot " + i + " holds its partition's token");
            assertTrue(seen.add(p), "slot " + i + " repeats a partition");
        }
        for (MemtablePartition[] row : made) for (MemtablePartition p : row) assertTrue(seen.contains(p));
    }

    @Test
    void walksAndFlushesExactlyAsTheSkipListMemtable() throws Exception {
        CassandraOracle.init();
        TableSchema schema = MemtableFixtures.schema(MemtableFixtures.WIDE);
        for (AllocationMode mode : AllocationMode.values()) {
            Memtable skip = new SkipListMemtable(schema, mode), hash = new HashMemtable(schema, mode);
            RandomUpdates gen = new RandomUpdates(schema, 5 + mode.ordinal(), NOW, 300, 12);
            for (PartitionUpdate u : gen.next(3_000)) {
                skip.apply(u);
                hash.apply(u);
            }
            // Walking a quiescent memtable sorts what it has; later partitions are sorted in at the next walk.
            assertEquals(MemtableFixtures.dump(skip), MemtableFixtures.dump(hash), mode + ": quiescent walk");
            for (PartitionUpdate u : new RandomUpdates(schema, 99, NOW, 600, 12).next(500)) {
                skip.apply(u);
                hash.apply(u);
            }
            skip.seal();
            hash.seal();
            try {
                assertEquals(skip.partitionCount(), hash.partitionCount());
                assertEquals(MemtableFixtures.dump(skip), MemtableFixtures.dump(hash), mode + ": sealed walk");
                Random r = new Random(mode.ordinal());
                for (int i = 0; i < 200; i++) {
                    long a = r.nextLong(), b = i % 10 == 0 ? Long.MAX_VALUE : r.nextLong();
                    if (i % 10 == 1) a = Long.MIN_VALUE;
                    long from = Math.min(a, b), to = Math.max(a, b);
                    if (i % 17 == 0) { from = to; }
                    if (i % 19 == 0) { long t = from; from = to; to = t; } // an empty range (from > to) when they differ
                    assertEquals(keys(skip.partitionIterator(from, to)), keys(hash.partitionIterator(from, to)),
                            mode + ": range [" + from + ", " + to + "]");
                }
                FlushOutcome s = FlushJob.run(skip, FlushJob.Options.simple(tmp.resolve("skip-" + mode))).get(0);
                FlushOutcome h = FlushJob.run(hash, FlushJob.Options.simple(tmp.resolve("hash-" + mode))).get(0);
                Path sd = s.result.dataPath, hd = h.result.dataPath;
                for (String component : new String[] {"Data.db", "Index.db", "Summary.db", "Filter.db", "Statistics.db",
                        "CompressionInfo.db", "Digest.crc32"}) {
                    Path sp = sd.resolveSibling(sd.getFileName().toString().replace("Data.db", component));
                    Path hp = hd.resolveSibling(hd.getFileName().toString().replace("Data.db", component));
                    assertArrayEquals(Files.readAllBytes(sp), Files.readAllBytes(hp), mode + ": " + component);
                }
            } finally {
                skip.discard();
                hash.discard();
            }
        }
    }

    private static List<String> keys(Iterator<MemtablePartition> it) {
        List<String> out = new ArrayList<>();
        while (it.hasNext()) out.add(it.next().key().toString());
        return out;
    }
}

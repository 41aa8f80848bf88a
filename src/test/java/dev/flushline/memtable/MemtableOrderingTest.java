package dev.flushline.memtable;

import dev.flushline.table.TableOptions.MemtableKind;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.Row;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.schema.TableSchema;
import dev.flushline.testing.RandomUpdates;
import org.apache.cassandra.db.Clustering;
import org.apache.cassandra.db.DecoratedKey;
import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.schema.TableMetadata;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Iteration order: partitions in Cassandra's DecoratedKey order, rows in Cassandra's clustering
 * order (DESC columns reversed), token-range iteration returning exactly the partitions in
 * [from, to], and the sharded memtable's shard arithmetic.
 */
class MemtableOrderingTest {
    static final long NOW = 1_750_000_000L;

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (String cql : new String[] {MemtableFixtures.WIDE, MemtableFixtures.COMPOSITE}) {
            for (MemtableKind kind : MemtableKind.values()) {
                for (AllocationMode mode : AllocationMode.values()) out.add(Arguments.of(cql, kind, mode));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "[{index}] kind={1} {2}")
    @MethodSource("cases")
    void partitionsRowsAndRangesAreInCassandraOrder(String cql, MemtableKind kind, AllocationMode mode) {
        CassandraOracle.init();
        TableSchema schema = MemtableFixtures.schema(cql);
        TableMetadata table = CassandraOracle.parseTable(cql);
        Memtable m = MemtableFixtures.create(kind, schema, mode);
        RandomUpdates gen = new RandomUpdates(schema, 9, NOW, 300, 30);
        for (PartitionUpdate u : gen.next(3_000)) m.apply(u);
        m.seal();
        try {
            List<MemtablePartition> all = new ArrayList<>();
            m.partitionIterator().forEachRemaining(all::add);
            assertEquals(m.partitionCount(), all.size());
            for (int i = 1; i < all.size(); i++) {
                DecoratedKey prev = decorate(all.get(i - 1)), cur = decorate(all.get(i));
                assertTrue(prev.compareTo(cur) < 0, "partition " + i + " out of order");
            }
            int rowsChecked = 0;
            for (MemtablePartition p : all) {
                assertEquals(decorate(p).getToken().getTokenValue(), p.key().token(), "token");
                Clustering<?> prev = null;
                for (RowList.Node n = p.rows().first(); n != null; n = n.next()) {
                    Clustering<?> cur = clustering(n.row());
                    if (prev != null) assertTrue(table.comparator.compare(prev, cur) < 0, "rows out of clustering order");
                    prev = cur;
                    rowsChecked++;
                }
            }
            assertTrue(rowsChecked > 100);

            // Token ranges: ends from real tokens (exact, ±1), shard starts, random values and the extremes.
            Random r = new Random(4);
            List<Long> candidates = new ArrayList<>(List.of(Long.MIN_VALUE, Long.MAX_VALUE, 0L, -1L));
            for (MemtablePartition p : all) {
                candidates.add(p.key().token());
                candidates.add(p.key().token() - 1);
                candidates.add(p.key().token() + 1);
            }
            for (int i = 0; i <= 4; i++) {
                long s = ShardedSkipListMemtable.shardStartToken(i, 4);
                candidates.add(s);
                candidates.add(s - 1);
            }
            for (int i = 0; i < 400; i++) {
                long from = r.nextInt(3) == 0 ? r.nextLong() : candidates.get(r.nextInt(candidates.size()));
                long to = r.nextInt(3) == 0 ? r.nextLong() : candidates.get(r.nextInt(candidates.size()));
                List<MemtablePartition> expected = new ArrayList<>();
                for (MemtablePartition p : all) {
                    if (p.key().token() >= from && p.key().token() <= to) expected.add(p);
                }
                List<MemtablePartition> actual = new ArrayList<>();
                for (Iterator<MemtablePartition> it = m.partitionIterator(from, to); it.hasNext(); ) actual.add(it.next());
                assertEquals(expected, actual, "range [" + from + ", " + to + "]");
            }
            // The full ring as one range is the whole memtable.
            List<MemtablePartition> ring = new ArrayList<>();
            m.partitionIterator(Long.MIN_VALUE, Long.MAX_VALUE).forEachRemaining(ring::add);
            assertEquals(all, ring);
        } finally {
            m.discard();
        }
    }

    static DecoratedKey decorate(MemtablePartition p) {
        return Murmur3Partitioner.instance.decorateKey(ByteBuffer.wrap(p.key().key()));
    }

    static Clustering<?> clustering(Row row) {
        ByteBuffer[] v = new ByteBuffer[row.clustering().length];
        for (int i = 0; i < v.length; i++) v[i] = ByteBuffer.wrap(row.clustering()[i]);
        return Clustering.make(v);
    }

    @Test
    void shardsPartitionTheRingMonotonically() {
        Random r = new Random(6);
        for (int n : new int[] {1, 2, 3, 4, 7, 16, 64, 1000}) {
            assertEquals(Long.MIN_VALUE, ShardedSkipListMemtable.shardStartToken(0, n));
            assertEquals(0, ShardedSkipListMemtable.shardOf(Long.MIN_VALUE, n));
            assertEquals(n - 1, ShardedSkipListMemtable.shardOf(Long.MAX_VALUE, n));
            for (int i = 1; i < n; i++) {
                long start = ShardedSkipListMemtable.shardStartToken(i, n);
                long prevStart = ShardedSkipListMemtable.shardStartToken(i - 1, n);
                assertTrue(start > prevStart, "shard starts increase: n=" + n + " i=" + i);
                // No gap, no overlap: the start token is in shard i, the token just before in shard i-1.
                assertEquals(i, ShardedSkipListMemtable.shardOf(start, n), "n=" + n + " i=" + i);
                assertEquals(i - 1, ShardedSkipListMemtable.shardOf(start - 1, n), "n=" + n + " i=" + i);
            }
            // Monotonic on random pairs (and on neighbours).
            for (int k = 0; k < 20_000; k++) {
                long a = r.nextLong(), b = r.nextInt(4) == 0 ? a + 1 : r.nextLong();
                if (a > b) { long t = a; a = b; b = t; }
                int sa = ShardedSkipListMemtable.shardOf(a, n), sb = ShardedSkipListMemtable.shardOf(b, n);
                assertTrue(sa <= sb, "shardOf not monotonic: n=" + n + " " + a + "->" + sa + ", " + b + "->" + sb);
                assertTrue(sa >= 0 && sb < n);
                assertTrue(a >= ShardedSkipListMemtable.shardStartToken(sa, n));
                if (sa + 1 < n) assertTrue(a < ShardedSkipListMemtable.shardStartToken(sa + 1, n));
            }
        }
    }
}

package dev.flushline.memtable;

import dev.flushline.data.TokenRanges;
import dev.flushline.data.PartitionKey;
import dev.flushline.schema.TableSchema;

import java.util.Collections;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * A memtable split into N shards by token range, each its own concurrent skip list (Cassandra's
 * ShardedSkipListMemtable). Shard i holds the tokens of the i-th of N equal slices of the token
 * ring, so shards in index order are in token order, and a flush can take one shard per thread.
 * Writers to different shards touch different skip lists and never contend on the index.
 *
 * <p>Thread safety: as {@link Memtable}.
 */
public final class ShardedSkipListMemtable extends Memtable {
    private final ConcurrentSkipListMap<PartitionKey, MemtablePartition>[] shards;

    @SuppressWarnings("unchecked")
    public ShardedSkipListMemtable(TableSchema schema, AllocationMode allocationMode, int shardCount) {
        super(schema, allocationMode);
        if (shardCount < 1) throw new IllegalArgumentException("shard count must be at least 1: " + shardCount);
        shards = new ConcurrentSkipListMap[shardCount];
        for (int i = 0; i < shardCount; i++) shards[i] = new ConcurrentSkipListMap<>();
    }

    @Override
    public int shardCount() {
        return shards.length;
    }

    /** The shard of a token: floor(u * N / 2^64) where u is the token's offset from Long.MIN_VALUE. */
    public static int shardOf(long token, int shardCount) {
        long u = token ^ Long.MIN_VALUE; // signed order → unsigned order
        return (int) (Math.multiplyHigh(u, shardCount) + ((u >> 63) & shardCount));
    }

    /** The smallest token of shard {@code i} (i in 0..N; i == N gives Long.MAX_VALUE + 1 wrapped). */
    public static long shardStartToken(int i, int shardCount) {
        return dev.flushline.data.TokenRanges.startToken(i, shardCount);
    }

    @Override
    protected MemtablePartition getOrCreate(PartitionKey key) {
        return getOrCreate(shards[shardOf(key.token(), shards.length)], key);
    }

    @Override
    public MemtablePartition get(PartitionKey key) {
        return shards[shardOf(key.token(), shards.length)].get(key);
    }

    /** Partitions of one shard in token order. REQUIRES: sealed or quiescent. */
    public Iterator<MemtablePartition> shardIterator(int shard) {
        return shards[shard].values().iterator();
    }

    @Override
    public Iterator<MemtablePartition> partitionIterator() {
        return new Iterator<MemtablePartition>() {
            private int shard;
            private Iterator<MemtablePartition> current = shards[0].values().iterator();

            @Override
            public boolean hasNext() {
                while (!current.hasNext()) {
                    if (++shard >= shards.length) return false;
                    current = shards[shard].values().iterator();
                }
                return true;
            }

            @Override
            public MemtablePartition next() {
                if (!hasNext()) throw new NoSuchElementException();
                return current.next();
            }
        };
    }

    @Override
    public Iterator<MemtablePartition> partitionIterator(long fromToken, long toToken) {
        int first = shardOf(fromToken, shards.length), last = shardOf(toToken, shards.length);
        if (first == last) return range(shards[first], fromToken, toToken);
        return new Iterator<MemtablePartition>() {
            private int shard = first;
            private Iterator<MemtablePartition> current = range(shards[first], fromToken, toToken);

            @Override
            public boolean hasNext() {
                while (!current.hasNext()) {
                    if (++shard > last) return false;
                    current = range(shards[shard], fromToken, toToken);
                }
                return true;
            }

            @Override
            public MemtablePartition next() {
                if (!hasNext()) throw new NoSuchElementException();
                return current.next();
            }
        };
    }

    static Iterator<MemtablePartition> range(ConcurrentSkipListMap<PartitionKey, MemtablePartition> map,
                                             long fromToken, long toToken) {
        if (fromToken > toToken) return Collections.emptyIterator();
        PartitionKey lo = PartitionKey.minimumForToken(fromToken);
        if (toToken == Long.MAX_VALUE) {
            return map.tailMap(lo, true).values().iterator();
        }
        return map.subMap(lo, true, PartitionKey.minimumForToken(toToken + 1), false).values().iterator();
    }

    @Override
    public int partitionCount() {
        int n = 0;
        for (int i = 0; i < shards.length; i++) n += shards[i].size();
        return n;
    }
}

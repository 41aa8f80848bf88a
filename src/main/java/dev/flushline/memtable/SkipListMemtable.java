package dev.flushline.memtable;

import dev.flushline.data.PartitionKey;
import dev.flushline.schema.TableSchema;

import java.util.Iterator;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * A memtable whose partitions live in one concurrent skip list, in token order (Cassandra's
 * SkipListMemtable).
 *
 * <p>Thread safety: as {@link Memtable}. Iterating {@code values()} of a ConcurrentSkipListMap
 * allocates one iterator and nothing per partition.
 */
public final class SkipListMemtable extends Memtable {
    private final ConcurrentSkipListMap<PartitionKey, MemtablePartition> partitions = new ConcurrentSkipListMap<>();

    public SkipListMemtable(TableSchema schema, AllocationMode allocationMode) {
        super(schema, allocationMode);
    }

    @Override
    protected MemtablePartition getOrCreate(PartitionKey key) {
        return getOrCreate(partitions, key);
    }

    @Override
    public MemtablePartition get(PartitionKey key) {
        return partitions.get(key);
    }

    @Override
    public Iterator<MemtablePartition> partitionIterator() {
        return partitions.values().iterator();
    }

    @Override
    public Iterator<MemtablePartition> partitionIterator(long fromToken, long toToken) {
        return ShardedSkipListMemtable.range(partitions, fromToken, toToken);
    }

    @Override
    public int partitionCount() {
        return partitions.size();
    }
}

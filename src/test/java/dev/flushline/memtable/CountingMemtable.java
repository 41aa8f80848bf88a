package dev.flushline.memtable;

import dev.flushline.data.PartitionKey;
import dev.flushline.schema.TableSchema;

import java.util.Iterator;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * A skip-list memtable that calls {@link Visitor#visited} on the iterating thread for every partition any of
 * its iterators hands out, and counts the range iterators opened: lets a test see which walks a flush makes
 * and charge each visit to a fake per-thread cost counter.
 *
 * <p>Thread safety: as {@link Memtable}; the visitor must be safe to call from every flush thread.
 */
public final class CountingMemtable extends Memtable {
    /** Called once per partition handed out by any iterator, on the thread that iterates. */
    public interface Visitor {
        void visited();
    }

    private final ConcurrentSkipListMap<PartitionKey, MemtablePartition> partitions = new ConcurrentSkipListMap<>();
    private final Visitor visitor;
    private final java.util.concurrent.atomic.AtomicInteger rangeIterators = new java.util.concurrent.atomic.AtomicInteger();

    public CountingMemtable(TableSchema schema, AllocationMode mode, Visitor visitor) {
        super(schema, mode);
        this.visitor = visitor;
    }

    /** How many {@link #partitionIterator(long, long)} calls were made. */
    public int rangeIteratorsOpened() {
        return rangeIterators.get();
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
        return counted(partitions.values().iterator());
    }

    @Override
    public Iterator<MemtablePartition> partitionIterator(long fromToken, long toToken) {
        rangeIterators.incrementAndGet();
        return counted(ShardedSkipListMemtable.range(partitions, fromToken, toToken));
    }

    @Override
    public int partitionCount() {
        return partitions.size();
    }

    private Iterator<MemtablePartition> counted(Iterator<MemtablePartition> it) {
        return new Iterator<MemtablePartition>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public MemtablePartition next() {
                MemtablePartition p = it.next();
                visitor.visited();
                return p;
            }
        };
    }
}

package dev.flushline.memtable;

import dev.flushline.data.PartitionKey;
import dev.flushline.schema.TableSchema;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A memtable whose writers find partitions through a concurrent hash table, and whose token
 * order is made once, when a flush first walks it.
 *
 * <p>Why: a skip list keeps token order on every write, at the price of a descent through about
 * log2(partitions) nodes per lookup, most of them cache misses once the memtable outgrows the
 * cache; finding the partition was half of a one-thread fill of new partitions. Only the flush
 * needs the order, and it reads a sealed memtable: so writers probe a hash table (about one miss)
 * and append each new partition with its token to a {@link TokenLog}, and the first walk sorts the
 * log in place (no allocation), in the skip list's order: token, then key bytes. A flush of this
 * memtable writes exactly the bytes a flush of a skip-list memtable holding the same writes does.
 *
 * <p>Thread safety: as {@link Memtable}: writes from any number of threads; iteration REQUIRES a
 * sealed memtable (or a quiescent one, on the thread that wrote it). The sort runs once under the
 * log's monitor and is published through {@link #sortedSize}; a walk of a quiescent memtable that
 * gained partitions since the last sort sorts again.
 */
public final class HashMemtable extends Memtable {
    /** A hash table node, its share of the table at the default load factor, and the log's token and reference. */
    static final long HASH_ENTRY_BYTES = 32 + 8 + 8 + 4;

    private final ConcurrentHashMap<PartitionKey, MemtablePartition> partitions = new ConcurrentHashMap<>();
    private final TokenLog log = new TokenLog();
    /** Entries of the log in sorted order (a prefix; all of it once sealed and walked). */
    private volatile int sortedSize;

    public HashMemtable(TableSchema schema, AllocationMode allocationMode) {
        super(schema, allocationMode);
    }

    @Override
    protected MemtablePartition getOrCreate(PartitionKey key) {
        MemtablePartition p = lastPartitionIf(key);
        if (p != null) return p;
        p = partitions.get(key);
        if (p == null) {
            MemtablePartition fresh = new MemtablePartition(key);
            p = partitions.putIfAbsent(key, fresh);
            if (p == null) {
                // Only the winner appends: each partition is in the log exactly once.
                log.append(key.token(), fresh);
                chargePartition(key, HASH_ENTRY_BYTES);
                p = fresh;
            }
        }
        rememberLastPartition(p);
        return p;
    }

    @Override
    public MemtablePartition get(PartitionKey key) {
        return partitions.get(key);
    }

    @Override
    public Iterator<MemtablePartition> partitionIterator() {
        int n = sorted();
        return new LogIterator(log, 0, n);
    }

    @Override
    public Iterator<MemtablePartition> partitionIterator(long fromToken, long toToken) {
        int n = sorted();
        if (fromToken > toToken) return new LogIterator(log, 0, 0);
        int from = log.lowerBound(fromToken, n);
        int to = toToken == Long.MAX_VALUE ? n : log.lowerBound(toToken + 1, n);
        return new LogIterator(log, from, to);
    }

    @Override
    public int partitionCount() {
        return partitions.size();
    }

    /** Sorts the log if partitions came since the last sort; returns the entries to walk. */
    private int sorted() {
        int n = log.size();
        if (sortedSize == n) return n;
        synchronized (log) {
            n = log.size();
            if (sortedSize != n) {
                log.sort(n);
                sortedSize = n;
            }
            return n;
        }
    }

    /**
     * Entries [from, to) of a sorted log.
     *
     * <p>Touch-ahead: the flush walks partitions in token order, which is random order in memory,
     * and a profile put a quarter of its serializer's samples on the first touch of a partition, its
     * key, its first row node and that row's record: a chain of dependent cache misses per partition.
     * Java has no prefetch instruction, but a load whose value is kept is one, and loads that do not
     * depend on each other are in flight together. So every {@link #BATCH} partitions the iterator
     * touches three batches at once, each one link further down the chain than the batch after it:
     * the first records of the batch about to be walked, the keys and first nodes of the next one,
     * the partition objects of the one after that. Each stage waits for about one miss for a whole
     * batch, instead of the walk waiting for three per partition. The values go into {@link #sink}
     * so that the compiler keeps the loads.
     */
    private static final class LogIterator implements Iterator<MemtablePartition> {
        private static final int BATCH = 8;

        private final TokenLog log;
        private final int from;
        private int next;
        private final int end;
        private long sink;

        LogIterator(TokenLog log, int from, int to) {
            this.log = log;
            this.from = from;
            this.next = from;
            this.end = to;
        }

        private void touchAhead(int i) {
            long s = 0;
            for (int k = i, n = Math.min(end, i + BATCH); k < n; k++) s += log.partition(k).touchFirstRecord();
            for (int k = i + BATCH, n = Math.min(end, i + 2 * BATCH); k < n; k++) s += log.partition(k).touchKeyAndFirstRow();
            for (int k = i + 2 * BATCH, n = Math.min(end, i + 3 * BATCH); k < n; k++) s += log.partition(k).touchObject();
            sink += s;
        }

        @Override
        public boolean hasNext() {
            return next < end;
        }

        @Override
        public MemtablePartition next() {
            if (next >= end) throw new NoSuchElementException();
            int i = next++;
            if ((i - from) % BATCH == 0) touchAhead(i);
            return log.partition(i);
        }
    }
}

package dev.flushline.memtable;

import dev.flushline.data.RowRecord;
import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringComparator;
import dev.flushline.data.CommitLogPosition;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.InsertBuffer;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.RangeTombstone;
import dev.flushline.data.Row;
import dev.flushline.io.NativeMemory;
import dev.flushline.schema.TableSchema;

import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * An in-memory table of partitions in token order, written by many threads, then sealed and
 * flushed. Subclasses decide how partitions are indexed ({@link SkipListMemtable},
 * {@link ShardedSkipListMemtable}, {@link HashMemtable}); this class owns what every memtable shares: the copy of cells
 * into its allocation mode, the write barrier that sealing waits on, memory accounting, the
 * EncodingStats minima and the set of columns written.
 *
 * <p>Lifecycle: writable → {@link #seal()} (new writes are refused; returns once in-flight writes
 * are done) → flushed by one or more readers → {@link #discard()} (native memory is freed).
 *
 * <p>Thread safety: {@link #apply} from any number of threads. Accounting getters from any thread
 * at any time. Iteration REQUIRES a sealed memtable (or a quiescent one in tests).
 */
public abstract class Memtable {
    /** {@link #writeState} bit set once sealed; the low bits count writers inside {@link #apply}. */
    private static final long SEALED_BIT = Long.MIN_VALUE;

    protected final TableSchema schema;
    protected final ClusteringComparator comparator;
    private final AllocationMode allocationMode;
    private final HeapSlabAllocator heapSlab;
    private final NativeSlabAllocator nativeSlab;

    private final AtomicLong writeState = new AtomicLong();

    /**
     * The commit log positions of the writes this memtable holds: [lower, upper]. Every mutation
     * appended at or after lower and before upper is in here (or in an older memtable). Set by the
     * writer path that owns the commit log; NONE without one.
     */
    private final java.util.concurrent.atomic.AtomicReference<CommitLogPosition> commitLogLowerBound =
            new java.util.concurrent.atomic.AtomicReference<>(null);
    private final java.util.concurrent.atomic.AtomicReference<CommitLogPosition> commitLogUpperBound =
            new java.util.concurrent.atomic.AtomicReference<>(null);
    private volatile boolean discarded;

    private final LongAdder onHeapBytes = new LongAdder();
    private final LongAdder rowCount = new LongAdder();
    private final LongAdder cellCount = new LongAdder();
    private final LongAdder operationCount = new LongAdder();

    // EncodingStats minima over everything written, as Cassandra's memtable collects them.
    private final AtomicLong minTimestamp = new AtomicLong(Long.MAX_VALUE);
    private final AtomicLong minLocalDeletionTime = new AtomicLong(Long.MAX_VALUE);
    /** Largest local deletion/expiration time written (Long.MIN_VALUE if none): bounds the deltas. */
    private final AtomicLong maxLocalDeletionTime = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong minTtl = new AtomicLong(Long.MAX_VALUE);

    /** Bit sets of the static and regular columns that appear in some write (header column set). */
    private final AtomicLongArray staticColumnsWritten;
    private final AtomicLongArray regularColumnsWritten;

    protected Memtable(TableSchema schema, AllocationMode allocationMode) {
        this.schema = schema;
        this.comparator = new ClusteringComparator(schema);
        this.allocationMode = allocationMode;
        this.heapSlab = allocationMode == AllocationMode.HEAP_BUFFERS ? new HeapSlabAllocator() : null;
        this.nativeSlab = allocationMode == AllocationMode.OFFHEAP_OBJECTS ? new NativeSlabAllocator() : null;
        if (allocationMode != AllocationMode.UNSLABBED_HEAP
                && Math.max(schema.regularColumns().length, schema.staticColumns().length) > RowRecord.MAX_SLOTS) {
            throw new IllegalArgumentException(schema + " has more than " + RowRecord.MAX_SLOTS + " regular or static columns, more than a "
                    + allocationMode.cliName() + " memtable's row records index; use unslabbed_heap");
        }
        this.staticColumnsWritten = new AtomicLongArray((schema.staticColumns().length + 63) >>> 6);
        this.regularColumnsWritten = new AtomicLongArray((schema.regularColumns().length + 63) >>> 6);
    }

    public final TableSchema schema() { return schema; }

    public final ClusteringComparator comparator() { return comparator; }

    public final AllocationMode allocationMode() { return allocationMode; }

    /** The partition for {@code key}, created if absent. Called by writers. */
    protected abstract MemtablePartition getOrCreate(PartitionKey key);

    /** The partition for {@code key}, or null. */
    public abstract MemtablePartition get(PartitionKey key);

    /**
     * Heap bytes charged for a partition, its key bytes and its index entry aside: the key object
     * and its array header, and the partition, which is its own row list and holds the list's head.
     */
    static final long PARTITION_HEAP_BYTES = 32 + 16 + 56;

    /** A skip-list map's node and its share of index nodes. */
    static final long SKIP_LIST_ENTRY_BYTES = 24 + 16;

    /**
     * Get-or-create in one skip list: the last partition written first, then get, because most
     * writes go to a partition that exists (a load of one insert per line meets each partition once
     * per row), and only a miss builds a partition and descends again to insert it. A lost
     * putIfAbsent race returns the winner's.
     */
    final MemtablePartition getOrCreate(java.util.concurrent.ConcurrentSkipListMap<PartitionKey, MemtablePartition> map,
                                        PartitionKey key) {
        MemtablePartition last = lastPartition;
        if (last != null && last.key().equals(key)) return last;
        MemtablePartition p = map.get(key);
        if (p == null) {
            MemtablePartition fresh = new MemtablePartition(key);
            p = map.putIfAbsent(key, fresh);
            if (p == null) {
                chargePartition(key, SKIP_LIST_ENTRY_BYTES);
                p = fresh;
            }
        }
        lastPartition = p;
        return p;
    }

    /** The partition the last write went to if it is {@code key}'s, else null (see {@link #lastPartition}). */
    final MemtablePartition lastPartitionIf(PartitionKey key) {
        MemtablePartition last = lastPartition;
        return last != null && last.key().equals(key) ? last : null;
    }

    final void rememberLastPartition(MemtablePartition p) {
        lastPartition = p;
    }

    /** Charges a new partition's heap bytes: the shared ones, its key, and its index's entry. */
    final void chargePartition(PartitionKey key, long indexEntryBytes) {
        onHeapBytes.add(PARTITION_HEAP_BYTES + indexEntryBytes + ((key.key().length + 7) & ~7));
    }

    /**
     * The partition the last write went to: bulk input is mostly grouped by partition, and a
     * write to the same partition as the one before it then skips the index's lookup (a key
     * comparison instead of a skip-list descent or a hash probe). Partitions are never removed
     * from a memtable, so whatever this holds is the right partition for its key; with several
     * writers it only misses more often. Volatile, so a partition seen here was published whole
     * (it is written only on a miss: once per partition for grouped input).
     */
    private volatile MemtablePartition lastPartition;

    /** Partitions in token order. REQUIRES: sealed or quiescent. Allocates one iterator. */
    public abstract Iterator<MemtablePartition> partitionIterator();

    /** Partitions whose token is in [fromToken, toToken] (both inclusive), in token order. */
    public abstract Iterator<MemtablePartition> partitionIterator(long fromToken, long toToken);

    public abstract int partitionCount();

    /**
     * Applies an update whose cells are {@link Cell}s. Returns false, and changes nothing, if
     * the memtable is sealed: the caller must retry on the memtable that replaced it.
     *
     * <p>The update's rows are stored as they are ({@code unslabbed_heap}: the update owns its
     * arrays and never changes them) or encoded into records in the memtable's slabs, under the
     * partition's monitor, after the merge with what the partition already holds.
     */
    public final boolean apply(PartitionUpdate update) {
        checkWritable(update); // before anything is counted or stored: a refused update leaves no trace
        if (!beginWrite()) {
            return false;
        }
        try {
            collectStats(update);
            MemtablePartition p = getOrCreate(update.key());
            long deltas;
            synchronized (p) {
                deltas = p.apply(update.partitionDeletion(), update.rangeTombstones(), update.staticRow(), update.rows(), this);
            }
            rowCount.add(deltas >> 32);
            cellCount.add((int) deltas);
            operationCount.increment();
            return true;
        } finally {
            endWrite();
        }
    }

    /**
     * Applies a decoded insert, as {@code apply(insert.toUpdate())} would, but for the common case (a
     * row new to its partition, nothing deleted there, no static columns, a slab allocation mode) with
     * no Row or Cell objects: the row's record is written straight from the buffer. Any other case goes
     * through the update's objects. Returns false, and changes nothing, if the memtable is sealed.
     * The buffer may be reused once this returns.
     */
    public final boolean apply(InsertBuffer insert) {
        if (allocationMode == AllocationMode.UNSLABBED_HEAP || insert.hasStatic()) return apply(insert.toUpdate());
        checkWritable(insert); // before anything is counted or stored, as for an update
        if (!beginWrite()) {
            return false;
        }
        try {
            collectStats(insert);
            MemtablePartition last = lastPartition;
            MemtablePartition p = last != null && insert.keyEquals(last.key()) ? last : getOrCreate(insert.partitionKey());
            long deltas;
            synchronized (p) {
                deltas = p.apply(insert, this);
            }
            rowCount.add(deltas >> 32);
            cellCount.add((int) deltas);
            operationCount.increment();
            return true;
        } finally {
            endWrite();
        }
    }

    /**
     * Native bytes held now by memtables' slabs and by sstable writers, not counting the free slabs
     * the pool keeps for the next off-heap memtable. Racy by nature: a snapshot for reports and tests.
     */
    public static long nativeBytesInUse() {
        return dev.flushline.io.NativeMemory.allocatedBytes() - NativeSlabPool.shared().pooledBytes();
    }

    /** Largest partition key or clustering value: Cassandra's CQL limit (u16 length in Data/Index/Summary). */
    public static final int MAX_KEY_VALUE_BYTES = 0xFFFF;

    /**
     * Refuses, with IllegalArgumentException, an update a flush could not write so that Cassandra
     * reads it back: a partition deletion with a negative timestamp (its 12-byte oa form starts with
     * the LIVE flag bit, see DeletionTimeLayout), a partition key or a clustering value over 65535 bytes.
     */
    public static void checkWritable(PartitionUpdate u) {
        DeletionTime pd = u.partitionDeletion();
        if (!pd.isLive() && pd.markedForDeleteAt() < 0) {
            throw new IllegalArgumentException("partition deletion with negative timestamp " + pd.markedForDeleteAt()
                    + " cannot be read back from an oa sstable: " + u.key());
        }
        int keyLength = u.key().key().length;
        if (keyLength > MAX_KEY_VALUE_BYTES) {
            throw new IllegalArgumentException("partition key of " + keyLength + " bytes exceeds " + MAX_KEY_VALUE_BYTES);
        }
        List<RangeTombstone> rts = u.rangeTombstones();
        for (int i = 0; i < rts.size(); i++) {
            checkClustering(rts.get(i).start().values());
            checkClustering(rts.get(i).end().values());
        }
        List<Row> rows = u.rows();
        for (int i = 0; i < rows.size(); i++) checkClustering(rows.get(i).clustering());
    }

    /** {@link #checkWritable(PartitionUpdate)} of the update a decoded insert means (it has no deletion). */
    public static void checkWritable(InsertBuffer insert) {
        if (insert.keyLength() > MAX_KEY_VALUE_BYTES) {
            throw new IllegalArgumentException("partition key of " + insert.keyLength() + " bytes exceeds " + MAX_KEY_VALUE_BYTES);
        }
        for (int i = 0, n = insert.clusteringCount(); i < n; i++) {
            if (insert.clusteringLength(i) > MAX_KEY_VALUE_BYTES) {
                throw new IllegalArgumentException("clustering value of " + insert.clusteringLength(i) + " bytes exceeds "
                        + MAX_KEY_VALUE_BYTES);
            }
        }
    }

    private static void checkClustering(byte[][] values) {
        for (int i = 0; i < values.length; i++) {
            if (values[i] != null && values[i].length > MAX_KEY_VALUE_BYTES) {
                throw new IllegalArgumentException("clustering value of " + values[i].length + " bytes exceeds " + MAX_KEY_VALUE_BYTES);
            }
        }
    }

    private boolean beginWrite() {
        while (true) {
            long s = writeState.get();
            if (s < 0) return false; // sealed
            if (writeState.compareAndSet(s, s + 1)) return true;
        }
    }

    private void endWrite() {
        writeState.decrementAndGet();
    }

    /**
     * Refuses new writes and waits until every write in progress has finished. After it returns,
     * all writes are visible to the calling thread (the barrier's atomic operations order them).
     */
    public final void seal() {
        while (true) {
            long s = writeState.get();
            if (s < 0 || writeState.compareAndSet(s, s | SEALED_BIT)) break;
        }
        int spins = 0;
        while ((writeState.get() & ~SEALED_BIT) != 0) {
            if (++spins < 1000) Thread.onSpinWait();
            else LockSupport.parkNanos(10_000);
        }
    }

    public final boolean isSealed() {
        return writeState.get() < 0;
    }

    /** Frees native memory. REQUIRES: sealed, and no reader will touch the partitions again. */
    public void discard() {
        if (!isSealed()) {
            throw new IllegalStateException("discarding a memtable that still takes writes");
        }
        discarded = true;
        if (nativeSlab != null) nativeSlab.freeAll();
    }

    public final boolean isDiscarded() { return discarded; }

    /**
     * Records that a write appended to the commit log at {@code position} is in this memtable.
     * Call after {@link #apply} returned true for it.
     */
    public final void coverCommitLogPosition(CommitLogPosition position) {
        CommitLogPosition cur;
        while ((cur = commitLogLowerBound.get()) == null || position.compareTo(cur) < 0) {
            if (commitLogLowerBound.compareAndSet(cur, position)) break;
        }
        while ((cur = commitLogUpperBound.get()) == null || position.compareTo(cur) > 0) {
            if (commitLogUpperBound.compareAndSet(cur, position)) break;
        }
    }

    /** Lowest commit log position covered, or {@link CommitLogPosition#NONE}. */
    public final CommitLogPosition commitLogLowerBound() {
        CommitLogPosition p = commitLogLowerBound.get();
        return p == null ? CommitLogPosition.NONE : p;
    }

    /** Highest commit log position covered, or {@link CommitLogPosition#NONE}. */
    public final CommitLogPosition commitLogUpperBound() {
        CommitLogPosition p = commitLogUpperBound.get();
        return p == null ? CommitLogPosition.NONE : p;
    }

    // ---- accounting ------------------------------------------------------------------------

    /** Estimated heap bytes this memtable holds (objects, arrays, heap slabs). */
    public final long onHeapBytes() {
        return onHeapBytes.sum() + (heapSlab == null ? 0 : heapSlab.ownedBytes());
    }

    /** Native bytes this memtable holds (its native slabs). */
    public final long offHeapBytes() {
        return nativeSlab == null ? 0 : nativeSlab.ownedBytes();
    }

    /**
     * Heap bytes its data takes: {@link #onHeapBytes()} less the unused tail of the current heap
     * slab. This is what decides when a memtable is full: owned bytes jump by a whole slab at the
     * first write, so a limit near a slab's size would switch memtables after every write.
     */
    public final long onHeapUsedBytes() {
        return onHeapBytes.sum() + (heapSlab == null ? 0 : heapSlab.usedBytes());
    }

    /** Native bytes its data takes: {@link #offHeapBytes()} less the unused tail of the current native slab. */
    public final long offHeapUsedBytes() {
        return nativeSlab == null ? 0 : nativeSlab.usedBytes();
    }

    public final long rowCount() { return rowCount.sum(); }

    public final long cellCount() { return cellCount.sum(); }

    public final long operationCount() { return operationCount.sum(); }

    /** Smallest timestamp written, or {@link Cell#NO_TIMESTAMP} if none. */
    public final long minTimestamp() {
        long v = minTimestamp.get();
        return v == Long.MAX_VALUE ? Cell.NO_TIMESTAMP : v;
    }

    /** Smallest local deletion/expiration time written, or {@link Cell#NO_DELETION_TIME}. */
    public final long minLocalDeletionTime() { return minLocalDeletionTime.get(); }

    /** Largest local deletion/expiration time written, or {@link Cell#NO_DELETION_TIME} if none. */
    public final long maxLocalDeletionTime() {
        long v = maxLocalDeletionTime.get();
        return v == Long.MIN_VALUE ? Cell.NO_DELETION_TIME : v;
    }

    /** Smallest TTL written, or 0 if none. */
    public final int minTtl() {
        long v = minTtl.get();
        return v == Long.MAX_VALUE ? 0 : (int) v;
    }

    public final boolean staticColumnWritten(int position) {
        return (staticColumnsWritten.get(position >>> 6) & (1L << position)) != 0;
    }

    public final boolean regularColumnWritten(int position) {
        return (regularColumnsWritten.get(position >>> 6) & (1L << position)) != 0;
    }

    // ---- write-path helpers ------------------------------------------------------------------

    private static void lowerTo(AtomicLong min, long v) {
        long cur;
        while (v < (cur = min.get())) {
            if (min.compareAndSet(cur, v)) return;
        }
    }

    private static void raiseTo(AtomicLong max, long v) {
        long cur;
        while (v > (cur = max.get())) {
            if (max.compareAndSet(cur, v)) return;
        }
    }

    private void noteLdt(long ldt) {
        lowerTo(minLocalDeletionTime, ldt);
        raiseTo(maxLocalDeletionTime, ldt);
    }

    private static void markWritten(AtomicLongArray bits, int position) {
        int word = position >>> 6;
        long mask = 1L << position;
        long cur;
        while (((cur = bits.get(word)) & mask) == 0) {
            if (bits.compareAndSet(word, cur, cur | mask)) return;
        }
    }

    private void noteDeletion(DeletionTime d) {
        if (!d.isLive()) {
            lowerTo(minTimestamp, d.markedForDeleteAt());
            noteLdt(d.localDeletionTime());
        }
    }

    private void noteCell(Cell c) {
        lowerTo(minTimestamp, c.timestamp());
        if (c.localDeletionTime() != Cell.NO_DELETION_TIME) noteLdt(c.localDeletionTime());
        if (c.ttl() != Cell.NO_TTL) lowerTo(minTtl, c.ttl());
    }

    /** Cassandra's EncodingStats.Collector over an update. */
    private void collectStats(PartitionUpdate u) {
        noteDeletion(u.partitionDeletion());
        List<RangeTombstone> rts = u.rangeTombstones();
        for (int i = 0; i < rts.size(); i++) noteDeletion(rts.get(i).deletion());
        if (u.staticRow() != null) noteRow(u.staticRow());
        List<Row> rows = u.rows();
        for (int i = 0; i < rows.size(); i++) noteRow(rows.get(i));
    }

    /** {@link #collectStats(PartitionUpdate)} of the insert's update: its row, whose cells share its timestamp and TTL. */
    private void collectStats(InsertBuffer insert) {
        final int columns = insert.schema().regularComplexStart();
        boolean tombstone = false;
        for (int i = 0; i < columns; i++) {
            if (!insert.hasRegular(i)) continue;
            markWritten(regularColumnsWritten, i);
            tombstone |= insert.regularIsNull(i);
        }
        lowerTo(minTimestamp, insert.timestamp());
        if (insert.ttl() != Cell.NO_TTL) {
            noteLdt(insert.expiration());
            lowerTo(minTtl, insert.ttl());
        }
        if (tombstone) noteLdt(insert.nowSeconds());
    }

    private void noteRow(Row r) {
        markColumns(r);
        if (r.hasLiveness()) {
            lowerTo(minTimestamp, r.livenessTimestamp());
            if (r.isLivenessExpiring()) {
                noteLdt(r.livenessExpirationTime());
                lowerTo(minTtl, r.livenessTtl());
            }
        }
        noteDeletion(r.deletion());
        Cell[] cells = r.cells();
        for (int i = 0; i < cells.length; i++) if (cells[i] != null) noteCell(cells[i]);
        ComplexColumn[] cx = r.complex();
        for (int i = 0; i < cx.length; i++) {
            if (cx[i] == null) continue;
            noteDeletion(cx[i].complexDeletion());
            Cell[] cc = cx[i].cells();
            for (int j = 0; j < cc.length; j++) noteCell(cc[j]);
        }
    }

    /**
     * Stores {@code row} in {@code node} in this memtable's allocation mode: the Row itself
     * ({@code unslabbed_heap}) or a {@link RowRecord} in a heap or native slab, replacing what the
     * node held (a replaced record's bytes stay in their slab until the memtable is discarded, as in
     * Cassandra's slab allocators). REQUIRES: the caller holds the partition's monitor; the row's
     * cells are ArrayCells.
     */
    final void store(RowList.Node node, Row row, boolean newNode) {
        long heap = newNode ? RowList.NODE_HEAP_BYTES : 0;
        switch (allocationMode) {
            case UNSLABBED_HEAP:
                node.row = row;
                // The node's clustering is the row's: charged once, with the node.
                if (newNode) heap += clusteringHeapBytes(row.clustering());
                heap += rowObjectHeapBytes(row);
                break;
            case HEAP_BUFFERS: {
                int size = RowRecord.size(row);
                heapSlab.allocate(size, node);
                RowRecord.write(row, size, node.slab, (int) node.record);
                break;
            }
            case OFFHEAP_OBJECTS: {
                int size = RowRecord.size(row);
                byte[] scratch = recordScratch(size);
                RowRecord.write(row, size, scratch, 0);
                long address = nativeSlab.allocate(size);
                NativeMemory.copyFromArray(scratch, 0, address, size);
                node.record = address;
                break;
            }
            default:
                throw new AssertionError(allocationMode);
        }
        onHeapBytes.add(heap);
    }

    /**
     * Stores the regular row of {@code insert} in the new {@code node} as a record, written from the
     * buffer: the bytes {@link #store(RowList.Node, Row, boolean)} writes for that row. REQUIRES: a slab
     * allocation mode; the caller holds the partition's monitor.
     */
    final void store(RowList.Node node, InsertBuffer insert) {
        store(node, insert, RowList.NODE_HEAP_BYTES); // the clustering is in the record
    }

    /** As {@link #store(RowList.Node, InsertBuffer)}, charging {@code heap} bytes for the row's place. */
    final void store(RowList.Node node, InsertBuffer insert, long heap) {
        int size = RowRecord.size(insert);
        switch (allocationMode) {
            case HEAP_BUFFERS:
                heapSlab.allocate(size, node);
                RowRecord.write(insert, size, node.slab, (int) node.record);
                break;
            case OFFHEAP_OBJECTS: {
                byte[] scratch = recordScratch(size);
                RowRecord.write(insert, size, scratch, 0);
                long address = nativeSlab.allocate(size);
                NativeMemory.copyFromArray(scratch, 0, address, size);
                node.record = address;
                break;
            }
            default:
                throw new AssertionError(allocationMode);
        }
        onHeapBytes.add(heap);
    }

    /** Charges heap bytes a partition's row list took or gave up (packed rows linked into nodes, say). */
    final void chargeHeap(long bytes) {
        onHeapBytes.add(bytes);
    }

    /** This thread's scratch array for a record on its way to a native slab, of at least {@code size} bytes. */
    private static byte[] recordScratch(int size) {
        byte[] scratch = RECORD_SCRATCH.get();
        if (scratch.length < size) {
            scratch = new byte[Math.max(size, scratch.length * 2)];
            RECORD_SCRATCH.set(scratch);
        }
        return scratch;
    }

    /** Counts a static row, kept as a Row object in every mode (one per partition at most). */
    final void storedStatic(Row row) {
        onHeapBytes.add(rowObjectHeapBytes(row));
    }

    /**
     * Where {@code offheap_objects} encodes a record before copying it into native memory: a store
     * runs under one partition's monitor and never re-enters, so one array per writer thread serves.
     */
    private static final ThreadLocal<byte[]> RECORD_SCRATCH = ThreadLocal.withInitial(() -> new byte[512]);

    /** Records which columns an update's row writes (the sstable header's column set). */
    private void markColumns(Row r) {
        AtomicLongArray written = r.isStatic() ? staticColumnsWritten : regularColumnsWritten;
        Cell[] cells = r.cells();
        for (int i = 0; i < cells.length; i++) if (cells[i] != null) markWritten(written, i);
        ComplexColumn[] complex = r.complex();
        for (int i = 0; i < complex.length; i++) if (complex[i] != null) markWritten(written, cells.length + i);
    }

    private static long clusteringHeapBytes(byte[][] clustering) {
        long heap = 16 + 4L * clustering.length;
        for (int i = 0; i < clustering.length; i++) heap += 16 + ((clustering[i].length + 7) & ~7);
        return heap;
    }

    /** A Row of ArrayCells on the heap: the Row, its arrays, its cells and their arrays. */
    private static long rowObjectHeapBytes(Row r) {
        Cell[] cells = r.cells();
        long heap = 72 + 16L + 4L * cells.length + 16L + 4L * r.complex().length;
        for (int i = 0; i < cells.length; i++) if (cells[i] != null) heap += arrayCellHeapBytes(cells[i]);
        ComplexColumn[] complex = r.complex();
        for (int i = 0; i < complex.length; i++) {
            if (complex[i] == null) continue;
            Cell[] cc = complex[i].cells();
            heap += 32 + 16 + 4L * cc.length;
            for (int j = 0; j < cc.length; j++) heap += arrayCellHeapBytes(cc[j]);
        }
        return heap;
    }

    private static long arrayCellHeapBytes(Cell c) {
        return 40 + 16 + c.valueLength() + (c.pathLength() > 0 ? 16 + c.pathLength() : 0);
    }

    /**
     * How many independent shards this memtable keeps, each a contiguous token range of equal
     * width: 1 unless the implementation shards. A flush on several threads may write one sstable
     * per shard without walking the others.
     */
    public int shardCount() {
        return 1;
    }
}

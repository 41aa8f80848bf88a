package dev.flushline.memtable;

import dev.flushline.table.TableOptions.MemtableKind;
import dev.flushline.data.Cell;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.RangeTombstone;
import dev.flushline.data.Row;
import dev.flushline.io.NativeMemory;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.schema.TableSchema;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sealing (refuses writes, waits for writers already inside apply), native memory release on
 * discard, and memory/row/cell accounting plus the EncodingStats minima.
 */
class MemtableLifecycleTest {
    static final long NOW = 1_750_000_000L;

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (MemtableKind kind : MemtableKind.values()) {
            for (AllocationMode mode : AllocationMode.values()) out.add(Arguments.of(kind, mode));
        }
        return out.stream();
    }

    static TableSchema schema() {
        CassandraOracle.init();
        return MemtableFixtures.schema(MemtableFixtures.WIDE);
    }

    @ParameterizedTest(name = "[{index}] kind={0} {1}")
    @MethodSource("cases")
    void applyAfterSealIsRefusedAndChangesNothing(MemtableKind kind, AllocationMode mode) {
        TableSchema schema = schema();
        Memtable m = MemtableFixtures.create(kind, schema, mode);
        RandomUpdates gen = new RandomUpdates(schema, 1, NOW, 20, 10);
        for (PartitionUpdate u : gen.next(500)) assertTrue(m.apply(u));
        m.seal();
        assertTrue(m.isSealed());
        List<String> before = MemtableFixtures.dump(m);
        long heap = m.onHeapBytes(), offHeap = m.offHeapBytes(), rows = m.rowCount(), cells = m.cellCount(),
                ops = m.operationCount(), minTs = m.minTimestamp();
        int partitions = m.partitionCount();
        for (PartitionUpdate u : gen.next(200)) assertFalse(m.apply(u));
        assertEquals(before, MemtableFixtures.dump(m));
        assertEquals(heap, m.onHeapBytes());
        assertEquals(offHeap, m.offHeapBytes());
        assertEquals(rows, m.rowCount());
        assertEquals(cells, m.cellCount());
        assertEquals(ops, m.operationCount());
        assertEquals(minTs, m.minTimestamp());
        assertEquals(partitions, m.partitionCount(), "a refused write must not even create its partition");
        m.seal(); // idempotent
        m.discard();
    }

    @ParameterizedTest(name = "[{index}] kind={0} {1}")
    @MethodSource("cases")
    void sealWaitsForAWriterInsideApply(MemtableKind kind, AllocationMode mode) throws Exception {
        TableSchema schema = schema();
        Memtable m = MemtableFixtures.create(kind, schema, mode);
        RandomUpdates gen = new RandomUpdates(schema, 2, NOW, 1, 10);
        gen.partitionDeleteChance = 0;
        gen.rangeDeleteChance = 0;
        gen.rowDeleteChance = 0;
        PartitionUpdate first = gen.next(), blocked = gen.next();
        assertTrue(m.apply(first));
        MemtablePartition p = m.get(first.key());
        assertNotNull(p);
        assertEquals(first.key(), blocked.key(), "one key in the pool: both updates hit the same partition");

        AtomicReference<Boolean> writerResult = new AtomicReference<>();
        AtomicBoolean sealReturned = new AtomicBoolean();
        Thread writer = new Thread(() -> writerResult.set(m.apply(blocked)), "blocked-writer");
        Thread sealer = new Thread(() -> {
            m.seal();
            sealReturned.set(true);
        }, "sealer");
        synchronized (p) {
            // Holding the partition monitor parks the writer inside apply, after it entered the barrier.
            writer.start();
            while (writer.getState() != Thread.State.BLOCKED) Thread.onSpinWait();
            sealer.start();
            while (!m.isSealed()) Thread.onSpinWait();
            assertFalse(m.apply(gen.next()), "new writes are refused as soon as seal begins");
            // A correct seal cannot return while the writer is parked, however long we wait; this
            // bounded join only gives a broken seal the chance to show itself (never a false failure).
            sealer.join(200);
            assertTrue(sealer.isAlive(), "seal() returned while a write was still in progress");
            assertFalse(sealReturned.get());
        }
        writer.join();
        sealer.join();
        assertTrue(sealReturned.get());
        assertEquals(Boolean.TRUE, writerResult.get(), "the in-flight write was admitted before the seal");
        assertEquals(2, m.operationCount());
        // The in-flight write is visible to the thread that sealed and to us after joining.
        Memtable reference = new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP);
        reference.apply(first);
        reference.apply(blocked);
        reference.seal();
        assertEquals(MemtableFixtures.dump(reference), MemtableFixtures.dump(m));

        // Switch: a fresh memtable takes writes while the sealed one stays readable.
        Memtable next = MemtableFixtures.create(kind, schema, mode);
        List<String> sealedContent = MemtableFixtures.dump(m);
        for (PartitionUpdate u : gen.next(100)) assertTrue(next.apply(u));
        assertEquals(sealedContent, MemtableFixtures.dump(m));
        assertTrue(next.partitionCount() > 0);
        m.discard();
        next.seal();
        next.discard();
    }

    @Test
    void heapSlabsGrowToHalfAG1RegionOnceTheMemtableOwnsThatMuch() {
        HeapSlabAllocator a = new HeapSlabAllocator();
        RowList.Node n = new RowList.Node(1);
        int big = HeapSlabAllocator.bigSlabBytes();
        assertTrue(big >= HeapSlabAllocator.SLAB_BYTES, "big slabs " + big);
        java.util.Set<byte[]> slabs = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        long owned = 0;
        int bigOnes = 0;
        for (long written = 0; written < 3L * big + 4L * HeapSlabAllocator.SLAB_BYTES; written += 1000) {
            a.allocate(1000, n);
            assertTrue(n.record + 1000 <= n.slab.length, "the record fits its slab");
            if (slabs.add(n.slab)) {
                int expected = owned >= big ? big : HeapSlabAllocator.SLAB_BYTES;
                assertEquals(expected, n.slab.length, "slab " + slabs.size() + " after " + owned + " bytes");
                if (n.slab.length == big && big > HeapSlabAllocator.SLAB_BYTES) bigOnes++;
                owned += n.slab.length;
            }
        }
        assertEquals(owned, a.ownedBytes());
        assertTrue(big == HeapSlabAllocator.SLAB_BYTES || bigOnes >= 2, "big slabs used: " + bigOnes);
    }

    private static long heldOutsidePool() {
        return NativeMemory.allocatedBytes() - NativeSlabPool.shared().pooledBytes();
    }

    @Test
    void nativeSlabsGoBackToABoundedPoolAndAreReusedTouched() {
        long start = NativeMemory.allocatedBytes();
        NativeSlabPool pool = new NativeSlabPool(3L * NativeSlabAllocator.SLAB_BYTES);
        NativeSlabAllocator first = new NativeSlabAllocator(pool);
        for (int i = 0; i < 5 * 8; i++) {
            long a = first.allocate(NativeSlabAllocator.MAX_SLAB_ALLOCATION_BYTES); // 8 per slab: 5 slabs
            NativeMemory.putLong(a, i); // touch it
        }
        long big = first.allocate(2L * NativeSlabAllocator.SLAB_BYTES); // a region of its own, never pooled
        NativeMemory.putLong(big, 1);
        assertEquals(start + 7L * NativeSlabAllocator.SLAB_BYTES, NativeMemory.allocatedBytes());
        first.freeAll();
        assertEquals(3L * NativeSlabAllocator.SLAB_BYTES, pool.pooledBytes(), "the pool keeps up to its capacity");
        assertEquals(start + pool.pooledBytes(), NativeMemory.allocatedBytes(), "the rest went back to the system");

        NativeSlabAllocator second = new NativeSlabAllocator(pool);
        long a = second.allocate(64);
        assertEquals(2L * NativeSlabAllocator.SLAB_BYTES, pool.pooledBytes(), "the next memtable takes a pooled slab");
        assertEquals(start + 3L * NativeSlabAllocator.SLAB_BYTES, NativeMemory.allocatedBytes(), "and allocates nothing new");
        NativeMemory.putLong(a, 42);
        assertEquals(42, NativeMemory.getLong(a));
        second.freeAll();
        pool.clear();
        assertEquals(0, pool.pooledBytes());
        assertEquals(start, NativeMemory.allocatedBytes());

        NativeSlabPool off = new NativeSlabPool(0);
        NativeSlabAllocator third = new NativeSlabAllocator(off);
        third.allocate(64);
        third.freeAll();
        assertEquals(0, off.pooledBytes(), "capacity 0: pooling off");
        assertEquals(start, NativeMemory.allocatedBytes());
    }

    @Test
    void discardingOffheapMemtablesReturnsAllNativeMemory() {
        TableSchema schema = schema();
        // Discarded memtables' slabs go to the shared pool, still allocated: count what is held outside it.
        long start = heldOutsidePool();
        for (int i = 0; i < 30; i++) {
            Memtable m = MemtableFixtures.create(MemtableKind.values()[i % MemtableKind.values().length], schema, AllocationMode.OFFHEAP_OBJECTS);
            RandomUpdates gen = new RandomUpdates(schema, 1000 + i, NOW, 50, 20);
            for (PartitionUpdate u : gen.next(i == 0 ? 20_000 : 300)) m.apply(u); // the first spans several slabs
            assertTrue(m.offHeapBytes() > 0);
            assertEquals(start + m.offHeapBytes(), heldOutsidePool(), "the memtable owns what was allocated");
            if (i == 0) assertTrue(m.offHeapBytes() > NativeSlabAllocator.SLAB_BYTES, "more than one slab");
            assertThrows(IllegalStateException.class, m::discard, "discard of an unsealed memtable");
            assertFalse(m.isDiscarded());
            assertTrue(m.apply(gen.next()), "a refused discard leaves the memtable writable");
            m.seal();
            m.discard();
            assertTrue(m.isDiscarded());
            assertEquals(0, m.offHeapBytes());
            assertEquals(start, heldOutsidePool(), "memtable " + i);
        }
    }

    @ParameterizedTest(name = "[{index}] kind={0} {1}")
    @MethodSource("cases")
    void accountingAndEncodingStatsMinima(MemtableKind kind, AllocationMode mode) {
        TableSchema schema = schema();
        Memtable m = MemtableFixtures.create(kind, schema, mode);
        RandomUpdates gen = new RandomUpdates(schema, 3, NOW, 30, 15);
        gen.ttlChance = 0.3;
        long lastHeap = m.onHeapBytes();
        long minTs = Long.MAX_VALUE, minLdt = Long.MAX_VALUE, maxLdt = Long.MIN_VALUE;
        int minTtl = Integer.MAX_VALUE;
        List<PartitionUpdate> updates = gen.next(2_000);
        for (PartitionUpdate u : updates) {
            assertTrue(m.apply(u));
            long heap = m.onHeapBytes();
            assertTrue(heap >= lastHeap, "heap accounting never shrinks on a write");
            lastHeap = heap;
            // Independent EncodingStats.Collector: every non-empty liveness, cell and non-live deletion.
            List<DeletionTime> dels = new ArrayList<>();
            dels.add(u.partitionDeletion());
            for (RangeTombstone rt : u.rangeTombstones()) dels.add(rt.deletion());
            List<Row> rows = new ArrayList<>(u.rows());
            if (u.staticRow() != null) rows.add(u.staticRow());
            List<Cell> cells = new ArrayList<>();
            for (Row r : rows) {
                if (r.hasLiveness()) {
                    minTs = Math.min(minTs, r.livenessTimestamp());
                    if (r.isLivenessExpiring()) {
                        minLdt = Math.min(minLdt, r.livenessExpirationTime());
                        maxLdt = Math.max(maxLdt, r.livenessExpirationTime());
                        minTtl = Math.min(minTtl, r.livenessTtl());
                    }
                }
                dels.add(r.deletion());
                for (Cell c : r.cells()) if (c != null) cells.add(c);
                for (ComplexColumn cx : r.complex()) {
                    if (cx == null) continue;
                    dels.add(cx.complexDeletion());
                    for (Cell c : cx.cells()) cells.add(c);
                }
            }
            for (DeletionTime d : dels) {
                if (d.isLive()) continue;
                minTs = Math.min(minTs, d.markedForDeleteAt());
                minLdt = Math.min(minLdt, d.localDeletionTime());
                maxLdt = Math.max(maxLdt, d.localDeletionTime());
            }
            for (Cell c : cells) {
                minTs = Math.min(minTs, c.timestamp());
                if (c.isExpiring() || c.isTombstone()) {
                    minLdt = Math.min(minLdt, c.localDeletionTime());
                    maxLdt = Math.max(maxLdt, c.localDeletionTime());
                }
                if (c.isExpiring()) minTtl = Math.min(minTtl, c.ttl());
            }
        }
        m.seal();
        assertTrue(m.onHeapBytes() > 0);
        if (mode == AllocationMode.OFFHEAP_OBJECTS) assertTrue(m.offHeapBytes() > 0);
        else assertEquals(0, m.offHeapBytes());

        long rowSum = 0, cellSum = 0, rowRecount = 0, cellRecount = 0;
        for (Iterator<MemtablePartition> it = m.partitionIterator(); it.hasNext(); ) {
            MemtablePartition p = it.next();
            rowSum += p.rowCount();
            cellSum += p.cellCount();
            cellRecount += MemtableFixtures.countCells(p.staticRow());
            for (RowList.Node n = p.rows().first(); n != null; n = n.next()) {
                rowRecount++;
                cellRecount += MemtableFixtures.countCells(n.row());
            }
        }
        assertEquals(rowRecount, rowSum, "partition row counts match their row lists");
        assertEquals(cellRecount, cellSum, "partition cell counts match their rows");
        assertEquals(rowSum, m.rowCount());
        assertEquals(cellSum, m.cellCount());
        assertEquals(updates.size(), m.operationCount());

        assertTrue(minTtl != Integer.MAX_VALUE && minLdt != Long.MAX_VALUE, "the mix has TTLs and deletions");
        assertEquals(minTs, m.minTimestamp());
        assertEquals(minLdt, m.minLocalDeletionTime());
        assertEquals(maxLdt, m.maxLocalDeletionTime());
        assertEquals(minTtl, m.minTtl());
        m.discard();
    }

    @Test
    void emptyMemtableReportsNoMinima() {
        Memtable m = new SkipListMemtable(schema(), AllocationMode.UNSLABBED_HEAP);
        assertEquals(Cell.NO_TIMESTAMP, m.minTimestamp());
        assertEquals(Cell.NO_DELETION_TIME, m.minLocalDeletionTime());
        assertEquals(Cell.NO_DELETION_TIME, m.maxLocalDeletionTime());
        assertEquals(0, m.minTtl());
        assertFalse(m.partitionIterator().hasNext());
        m.seal();
        m.discard();
    }
}

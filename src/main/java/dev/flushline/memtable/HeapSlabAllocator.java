package dev.flushline.memtable;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Bump-pointer allocation of row records from heap slabs (the {@code heap_buffers} mode). Many
 * records share one slab, so the GC sees few large arrays instead of millions of small objects.
 * Records larger than {@link #MAX_SLAB_ALLOCATION_BYTES} get their own array.
 *
 * <p>Slab sizes: {@link #SLAB_BYTES} (1 MiB, Cassandra's region) while the memtable is small, then,
 * once it owns {@link #bigSlabBytes()} of them, slabs of that size: half a G1 region, which G1
 * allocates as a humongous object straight into the old generation, so that the young collections
 * during a fill never copy them (with 1 MiB slabs they copied every record at least once). A small
 * memtable wastes no more than before; a big one at most the tail of one big slab.
 *
 * <p>Thread safety: any number of writer threads. A slab's offset is claimed with a CAS; a full
 * slab is replaced by whichever thread wins the CAS on {@code current}; losers retry on the new one.
 */
final class HeapSlabAllocator {
    static final int SLAB_BYTES = 1 << 20;
    static final int MAX_SLAB_ALLOCATION_BYTES = SLAB_BYTES / 8;
    private static final int BIG_SLAB_BYTES = bigSlabBytesOfThisJvm();

    private static final class Slab {
        final byte[] array;
        final java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();

        Slab(int bytes) {
            array = new byte[bytes];
        }
    }

    /** The big slab size: half this JVM's G1 region, or {@link #SLAB_BYTES} without G1. */
    static int bigSlabBytes() {
        return BIG_SLAB_BYTES;
    }

    private static int bigSlabBytesOfThisJvm() {
        try {
            com.sun.management.HotSpotDiagnosticMXBean vm =
                    java.lang.management.ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class);
            if (vm == null || !"true".equals(vm.getVMOption("UseG1GC").getValue())) return SLAB_BYTES;
            long half = Long.parseLong(vm.getVMOption("G1HeapRegionSize").getValue()) / 2;
            // An array of half a region (plus its header) is humongous; past 16 MiB the waste of a
            // big memtable's last slab outweighs what the collector saves.
            return half >= SLAB_BYTES && half <= (16 << 20) ? (int) half : SLAB_BYTES;
        } catch (RuntimeException | LinkageError e) {
            return SLAB_BYTES; // no such option or bean in this JVM: Cassandra's size
        }
    }

    private final AtomicReference<Slab> current = new AtomicReference<>();
    private final AtomicLong ownedBytes = new AtomicLong();

    /**
     * Claims {@code length} bytes for {@code node}'s record: sets its slab and offset. The node is
     * the out-parameter so that an allocation creates no object.
     */
    void allocate(int length, RowList.Node node) {
        if (length > MAX_SLAB_ALLOCATION_BYTES) {
            ownedBytes.addAndGet(length);
            node.slab = new byte[length];
            node.record = 0;
            return;
        }
        while (true) {
            Slab slab = current.get();
            if (slab != null) {
                int offset = slab.next.getAndAdd(length);
                if (offset + length <= slab.array.length) {
                    node.slab = slab.array;
                    node.record = offset;
                    return;
                }
            }
            Slab fresh = new Slab(ownedBytes.get() >= BIG_SLAB_BYTES ? BIG_SLAB_BYTES : SLAB_BYTES);
            if (current.compareAndSet(slab, fresh)) {
                ownedBytes.addAndGet(fresh.array.length);
            }
        }
    }

    long ownedBytes() {
        return ownedBytes.get();
    }

    /**
     * Owned bytes less the untouched tail of the current slab: what the memtable's data takes,
     * with the small tails of retired slabs counted as used. A fresh slab therefore counts only
     * what was written into it, so a memtable's first write does not look like a megabyte.
     * A racy estimate (a writer may be replacing the slab): never negative, exact when quiescent.
     */
    long usedBytes() {
        Slab slab = current.get();
        long freeTail = slab == null ? 0 : Math.max(0, slab.array.length - slab.next.get());
        return Math.max(0, ownedBytes.get() - freeTail);
    }
}

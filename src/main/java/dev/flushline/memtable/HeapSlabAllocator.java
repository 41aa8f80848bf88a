package dev.flushline.memtable;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Bump-pointer allocation of row records from 1 MiB heap slabs (the {@code heap_buffers} mode).
 * Many records share one slab, so the GC sees few large arrays instead of millions of small
 * objects. Records larger than {@link #MAX_SLAB_ALLOCATION_BYTES} get their own array.
 *
 * <p>Thread safety: any number of writer threads. A slab's offset is claimed with a CAS; a full
 * slab is replaced by whichever thread wins the CAS on {@code current}; losers retry on the new one.
 */
final class HeapSlabAllocator {
    static final int SLAB_BYTES = 1 << 20;
    static final int MAX_SLAB_ALLOCATION_BYTES = SLAB_BYTES / 8;

    private static final class Slab {
        final byte[] array = new byte[SLAB_BYTES];
        final java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
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
                if (offset + length <= SLAB_BYTES) {
                    node.slab = slab.array;
                    node.record = offset;
                    return;
                }
            }
            Slab fresh = new Slab();
            if (current.compareAndSet(slab, fresh)) {
                ownedBytes.addAndGet(SLAB_BYTES);
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
        long freeTail = slab == null ? 0 : Math.max(0, SLAB_BYTES - slab.next.get());
        return Math.max(0, ownedBytes.get() - freeTail);
    }
}

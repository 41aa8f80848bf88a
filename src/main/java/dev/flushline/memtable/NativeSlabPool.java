package dev.flushline.memtable;

import dev.flushline.io.NativeMemory;

/**
 * Free native slabs of {@link NativeSlabAllocator#SLAB_BYTES}, kept when a memtable is discarded
 * and handed to the next one. A slab from the operating system costs a page fault per 4 KiB on
 * first touch (the kernel zeroes each page); on this project's VM that was a quarter of an
 * {@code offheap_objects} fill's CPU. Memtables come and go all the time on a node, so in the
 * steady state every slab a memtable writes into has been touched before, as a heap memtable's
 * pre-touched heap has.
 *
 * <p>Bounded: at most {@link #capacityBytes()} stay pooled; a slab returned to a full pool is
 * freed. The pooled bytes stay counted in {@link NativeMemory#allocatedBytes()}; {@link #pooledBytes()}
 * tells them apart, and {@link #clear()} frees them.
 *
 * <p>The process-wide pool ({@link #shared()}) holds up to a quarter of the maximum heap, the
 * default of Cassandra's {@code memtable_offheap_space}, or the bytes the system property
 * {@value #CAPACITY_PROPERTY} names (0 turns pooling off).
 *
 * <p>Thread safety: any thread may take and give back; one monitor guards the stack (a slab changes
 * hands once per MiB of records, so the lock is never contended in practice).
 */
final class NativeSlabPool {
    static final String CAPACITY_PROPERTY = "flushline.memtable.native_pool_bytes";

    private static final NativeSlabPool SHARED = new NativeSlabPool(defaultCapacity());

    private final long capacityBytes;
    private long[] free = new long[16];
    private int count;

    NativeSlabPool(long capacityBytes) {
        if (capacityBytes < 0) throw new IllegalArgumentException("pool capacity " + capacityBytes + " < 0");
        this.capacityBytes = capacityBytes;
    }

    static NativeSlabPool shared() {
        return SHARED;
    }

    private static long defaultCapacity() {
        String v = System.getProperty(CAPACITY_PROPERTY);
        if (v == null) return Runtime.getRuntime().maxMemory() / 4;
        try {
            long n = Long.parseLong(v.trim());
            if (n >= 0) return n;
        } catch (NumberFormatException e) {
            // fall through to the error below
        }
        throw new IllegalArgumentException("system property " + CAPACITY_PROPERTY + " must be a byte count >= 0, not '" + v + "'");
    }

    long capacityBytes() {
        return capacityBytes;
    }

    /** A slab of {@link NativeSlabAllocator#SLAB_BYTES}: a pooled one, or a new one. */
    long take() {
        synchronized (this) {
            if (count > 0) return free[--count];
        }
        return NativeMemory.allocate(NativeSlabAllocator.SLAB_BYTES);
    }

    /** Gives back a slab from {@link #take}; its contents are garbage from now on. */
    void give(long address) {
        synchronized (this) {
            if ((long) (count + 1) * NativeSlabAllocator.SLAB_BYTES <= capacityBytes) {
                if (count == free.length) free = java.util.Arrays.copyOf(free, 2 * count);
                free[count++] = address;
                return;
            }
        }
        NativeMemory.free(address, NativeSlabAllocator.SLAB_BYTES);
    }

    synchronized long pooledBytes() {
        return (long) count * NativeSlabAllocator.SLAB_BYTES;
    }

    /** Frees every pooled slab. */
    void clear() {
        long[] drained;
        int n;
        synchronized (this) {
            drained = free;
            n = count;
            free = new long[16];
            count = 0;
        }
        for (int i = 0; i < n; i++) NativeMemory.free(drained[i], NativeSlabAllocator.SLAB_BYTES);
    }
}

package dev.flushline.memtable;

import dev.flushline.io.NativeMemory;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Bump-pointer allocation from 1 MiB native slabs (the {@code offheap_objects} mode). Records are
 * 8-byte aligned. Records larger than {@link #MAX_SLAB_ALLOCATION_BYTES} get their own region.
 * Nothing is freed individually: {@link #freeAll()} returns every region when the memtable is
 * discarded, the slabs to a {@link NativeSlabPool} (which the next memtable takes them from,
 * already touched) and the big regions to the system.
 *
 * <p>Thread safety: {@link #allocate} from any number of writers (CAS on the slab offset, as in
 * {@link HeapSlabAllocator}). {@link #freeAll()} REQUIRES that no thread allocates or reads any
 * record any more (the memtable has been flushed and discarded).
 */
final class NativeSlabAllocator {
    static final int SLAB_BYTES = 1 << 20;
    static final int MAX_SLAB_ALLOCATION_BYTES = SLAB_BYTES / 8;

    private static final class Region {
        final long address;
        final long sizeBytes;
        final java.util.concurrent.atomic.AtomicLong next = new java.util.concurrent.atomic.AtomicLong();
        /** Regions form a stack so freeAll() finds them all; written before publication. */
        Region previous;

        Region(long address, long sizeBytes) {
            this.address = address;
            this.sizeBytes = sizeBytes;
        }
    }

    private final NativeSlabPool pool;

    NativeSlabAllocator() {
        this(NativeSlabPool.shared());
    }

    NativeSlabAllocator(NativeSlabPool pool) {
        this.pool = pool;
    }

    private final AtomicReference<Region> current = new AtomicReference<>();
    /** Every region ever allocated, newest first (pushed with CAS). */
    private final AtomicReference<Region> all = new AtomicReference<>();
    private final AtomicLong ownedBytes = new AtomicLong();
    private volatile boolean freed;

    /** Address of {@code length} uninitialised bytes. */
    long allocate(long length) {
        if (freed) {
            throw new IllegalStateException("native slab allocator used after its memtable was discarded");
        }
        long aligned = (length + 7) & ~7L;
        if (aligned > MAX_SLAB_ALLOCATION_BYTES) {
            Region r = new Region(NativeMemory.allocate(aligned), aligned);
            r.next.set(aligned);
            push(r);
            return r.address;
        }
        while (true) {
            Region region = current.get();
            if (region != null) {
                long offset = region.next.getAndAdd(aligned);
                if (offset + aligned <= region.sizeBytes) {
                    return region.address + offset;
                }
            }
            Region fresh = new Region(pool.take(), SLAB_BYTES);
            if (current.compareAndSet(region, fresh)) {
                push(fresh);
            } else {
                pool.give(fresh.address); // lost the race; never published
            }
        }
    }

    private void push(Region r) {
        ownedBytes.addAndGet(r.sizeBytes);
        while (true) {
            Region head = all.get();
            r.previous = head;
            if (all.compareAndSet(head, r)) return;
        }
    }

    long ownedBytes() {
        return ownedBytes.get();
    }

    /**
     * Owned bytes less the untouched tail of the current slab (see
     * {@link HeapSlabAllocator#usedBytes}): a racy estimate, never negative, exact when quiescent.
     */
    long usedBytes() {
        Region region = current.get();
        long freeTail = region == null ? 0 : Math.max(0, region.sizeBytes - region.next.get());
        return Math.max(0, ownedBytes.get() - freeTail);
    }

    /** Frees every region. Idempotent. */
    void freeAll() {
        if (freed) return;
        freed = true;
        Region r = all.getAndSet(null);
        current.set(null);
        while (r != null) {
            if (r.sizeBytes == SLAB_BYTES) pool.give(r.address);
            else NativeMemory.free(r.address, r.sizeBytes);
            ownedBytes.addAndGet(-r.sizeBytes);
            r = r.previous;
        }
    }
}

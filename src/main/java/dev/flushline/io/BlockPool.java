package dev.flushline.io;

import org.jctools.queues.MpmcArrayQueue;

/**
 * A bounded, process-wide pool of equal-sized {@link FixedBuffer} blocks, so that flushes reuse
 * their output blocks instead of allocating megabytes of arrays each time.
 *
 * <p>{@link #acquire()} returns a pooled block or, when the pool is empty, a new one; {@link
 * #release} returns a block to the pool, or drops it for the GC when the pool is full. So the pool
 * never blocks and never holds more than {@link #capacity()} idle blocks: the requested capacity
 * rounded up to a power of two, and at least 2 (the bounded MPMC queue's sizes).
 *
 * <p>Thread safety: any thread may acquire and release (MPMC queue). A block is owned by exactly
 * one thread between acquire and release.
 */
public final class BlockPool {
    public static final int DEFAULT_BLOCK_BYTES = 1 << 20;

    /** Enough blocks for a few concurrent pipelined writers. */
    public static final BlockPool SHARED = new BlockPool(DEFAULT_BLOCK_BYTES, 16);

    private final int blockBytes;
    private final MpmcArrayQueue<FixedBuffer> idle;

    public BlockPool(int blockBytes, int capacity) {
        if (blockBytes <= 0) {
            throw new IllegalArgumentException("blockBytes must be positive: " + blockBytes);
        }
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        this.blockBytes = blockBytes;
        this.idle = new MpmcArrayQueue<>(Math.max(2, capacity));
    }

    public int blockBytes() {
        return blockBytes;
    }

    /** A cleared block of {@link #blockBytes()} bytes. */
    public FixedBuffer acquire() {
        FixedBuffer b = idle.poll();
        if (b == null) {
            b = new FixedBuffer(blockBytes);
        }
        b.clear();
        return b;
    }

    /**
     * Tops the idle blocks up to {@code blocks} (at most {@link #capacity()}). A pipelined writer
     * calls this with its depth before it starts: how many blocks it ends up holding depends on how
     * far its I/O thread falls behind, so without it a flush on a loaded machine could meet an empty
     * pool mid-write and allocate a block there, although earlier flushes had filled the pool. With
     * it, only a process's first writers allocate blocks. Racing callers may add a block or two
     * more; a full pool refuses the rest.
     */
    public void reserve(int blocks) {
        int target = Math.min(blocks, capacity());
        while (idle.size() < target) {
            if (!idle.offer(new FixedBuffer(blockBytes))) return;
        }
    }

    /** Returns a block; blocks of another size (oversized one-offs) are dropped. */
    public void release(FixedBuffer b) {
        if (b != null && b.capacity() == blockBytes) {
            idle.offer(b);
        }
    }

    /** The most idle blocks the pool keeps; see the class comment. */
    public int capacity() {
        return idle.capacity();
    }

    public int idleBlocks() {
        return idle.size();
    }
}

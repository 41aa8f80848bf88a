package dev.flushline.flush;

import java.util.concurrent.atomic.AtomicLong;

/**
 * How far a running flush has got, for progress display: partitions visited (written, or skipped
 * as empty) and logical Data.db bytes written so far, against the partitions the memtable holds.
 *
 * <p>Thread safety: flush writers add with {@code lazySet}-cheap updates every
 * {@link #UPDATE_EVERY_PARTITIONS} partitions (never per row); any thread may read.
 */
public final class FlushProgress {
    static final int UPDATE_EVERY_PARTITIONS = 4096;

    private final AtomicLong partitionsDone = new AtomicLong();
    private final AtomicLong bytesDone = new AtomicLong();
    private volatile long partitionsTotal;

    void start(long totalPartitions) {
        partitionsTotal = totalPartitions;
    }

    void add(long partitions, long bytes) {
        partitionsDone.addAndGet(partitions);
        bytesDone.addAndGet(bytes);
    }

    public long partitionsDone() { return partitionsDone.get(); }

    public long bytesDone() { return bytesDone.get(); }

    public long partitionsTotal() { return partitionsTotal; }

    /** 0..1, or 0 before the flush has started. */
    public double fraction() {
        long total = partitionsTotal;
        return total == 0 ? 0 : Math.min(1.0, (double) partitionsDone.get() / total);
    }
}

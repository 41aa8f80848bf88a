package dev.flushline.flush;

/**
 * The flush wrote a different number of partitions, rows, cells or tombstones than the memtable
 * holds. This is corruption, not a warning: the sstable is not published.
 */
public final class FlushConservationException extends IllegalStateException {
    public FlushConservationException(String message) {
        super(message);
    }
}

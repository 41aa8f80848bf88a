package dev.flushline.flush;

/**
 * One published sstable with what its flush cost: wall time, CPU time and heap bytes allocated
 * (from {@code com.sun.management.ThreadMXBean}) by the thread that wrote it and its Data.db I/O
 * thread. The first sstable of a flush also carries what the flush's calling thread did outside
 * any one sstable (the walk that splits the memtable into ranges, the header, the thread pool, the
 * conservation check), so the outcomes of one flush sum to its whole cost.
 */
public final class FlushOutcome {
    public final FlushResult result;
    public final long wallNanos;
    public final long cpuNanos;
    public final long allocatedBytes;
    /** Data.db + every other component file, on disk. */
    public final long bytesFlushed;
    public final long commitLogSegmentId;
    public final int commitLogPosition;

    FlushOutcome(FlushResult result, long wallNanos, long cpuNanos, long allocatedBytes, long bytesFlushed,
                 long commitLogSegmentId, int commitLogPosition) {
        this.result = result;
        this.wallNanos = wallNanos;
        this.cpuNanos = cpuNanos;
        this.allocatedBytes = allocatedBytes;
        this.bytesFlushed = bytesFlushed;
        this.commitLogSegmentId = commitLogSegmentId;
        this.commitLogPosition = commitLogPosition;
    }

    public String logLine() {
        return FlushLog.line(this);
    }
}

package dev.flushline.flush;

/**
 * One published sstable with what its flush cost: wall time, CPU time and heap bytes allocated by
 * the thread that wrote it (from {@code com.sun.management.ThreadMXBean}).
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

package dev.flushline.flush;

import dev.flushline.schema.ValueText;

/**
 * The {@code Completed flushing ...} line, in the format of Cassandra's flush log that storage
 * engineers already parse, with the flush's CPU time and allocation added:
 *
 * <pre>
 * Completed flushing DIR/ks/t-id/oa-1-big-Data.db (226.600MiB) for commitlog position
 * CommitLogPosition(segmentId=S, position=P), time spent: 4959 ms, bytes flushed: B/(R per sec),
 * partitions flushed: N/(R per sec), rows: N/(R per sec), cpu time: 3485 ms, allocated: 766.370MiB
 * </pre>
 * (one line). The size in parentheses is Data.db on disk; bytes flushed counts every component
 * file of the sstable. Without a commit log the position is {@code segmentId=-1, position=0}.
 * cpu time and allocated are summed over the threads that did the flush (ThreadMXBean); the first
 * sstable's line also counts the flush's work outside any one sstable, such as the range walk.
 */
public final class FlushLog {
    private FlushLog() {}

    private static long perSecond(long count, long nanos) {
        return nanos <= 0 ? count : (long) (count * 1e9 / nanos);
    }

    public static String line(FlushOutcome o) {
        FlushResult r = o.result;
        return "Completed flushing " + r.dataPath + " (" + ValueText.mib(r.dataFileBytes) + ") for commitlog position "
                + "CommitLogPosition(segmentId=" + o.commitLogSegmentId + ", position=" + o.commitLogPosition + ")"
                + ", time spent: " + o.wallNanos / 1_000_000 + " ms"
                + ", bytes flushed: " + o.bytesFlushed + "/(" + perSecond(o.bytesFlushed, o.wallNanos) + " per sec)"
                + ", partitions flushed: " + r.partitions + "/(" + perSecond(r.partitions, o.wallNanos) + " per sec)"
                + ", rows: " + r.rows + "/(" + perSecond(r.rows, o.wallNanos) + " per sec)"
                + ", cpu time: " + o.cpuNanos / 1_000_000 + " ms"
                + ", allocated: " + ValueText.mib(o.allocatedBytes);
    }
}

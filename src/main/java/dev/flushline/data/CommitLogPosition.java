package dev.flushline.data;

/**
 * A point in the commit log: segment id and byte offset in it. Ordered by segment, then offset.
 * {@link #NONE} (segment -1, offset 0) is what sstables record when there is no commit log, as
 * Cassandra's CommitLogPosition.NONE.
 *
 * <p>Thread safety: immutable.
 */
public final class CommitLogPosition implements Comparable<CommitLogPosition> {
    public static final CommitLogPosition NONE = new CommitLogPosition(-1, 0);

    private final long segmentId;
    private final int position;

    public CommitLogPosition(long segmentId, int position) {
        this.segmentId = segmentId;
        this.position = position;
    }

    public long segmentId() { return segmentId; }

    public int position() { return position; }

    @Override
    public int compareTo(CommitLogPosition o) {
        int c = Long.compare(segmentId, o.segmentId);
        return c != 0 ? c : Integer.compare(position, o.position);
    }

    public static CommitLogPosition max(CommitLogPosition a, CommitLogPosition b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    public static CommitLogPosition min(CommitLogPosition a, CommitLogPosition b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CommitLogPosition && ((CommitLogPosition) o).segmentId == segmentId
                && ((CommitLogPosition) o).position == position;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(segmentId) * 31 + position;
    }

    /** Cassandra's spelling, as the flush log line prints it. */
    @Override
    public String toString() {
        return "CommitLogPosition(segmentId=" + segmentId + ", position=" + position + ")";
    }
}

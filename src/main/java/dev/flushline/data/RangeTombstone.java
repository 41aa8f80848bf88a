package dev.flushline.data;

/**
 * A deletion of every row between two clustering bounds (a range delete, or a delete of a
 * clustering prefix).
 *
 * <p>Thread safety: immutable.
 */
public final class RangeTombstone {
    private final ClusteringBound start;
    private final ClusteringBound end;
    private final DeletionTime deletion;

    /** REQUIRES: {@code start} is a start bound, {@code end} an end bound, start before end. */
    public RangeTombstone(ClusteringBound start, ClusteringBound end, DeletionTime deletion) {
        if (!start.isStart() || !end.isEnd()) {
            throw new IllegalArgumentException("range tombstone needs a start and an end bound: " + start + ", " + end);
        }
        this.start = start;
        this.end = end;
        this.deletion = deletion;
    }

    public ClusteringBound start() { return start; }

    public ClusteringBound end() { return end; }

    public DeletionTime deletion() { return deletion; }

    @Override
    public String toString() {
        return "RT{" + start + " .. " + end + ", " + deletion + '}';
    }
}

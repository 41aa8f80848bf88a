package dev.flushline.data;

/**
 * When something was deleted: the write timestamp of the deletion ({@code markedForDeleteAt}) and
 * the node's clock in seconds when it happened ({@code localDeletionTime}, unsigned 32-bit held in a
 * long). {@link #LIVE} means "not deleted".
 *
 * <p>Thread safety: immutable.
 */
public final class DeletionTime {
    public static final DeletionTime LIVE = new DeletionTime(Long.MIN_VALUE, Long.MAX_VALUE);

    private final long markedForDeleteAt;
    private final long localDeletionTime;

    private DeletionTime(long markedForDeleteAt, long localDeletionTime) {
        this.markedForDeleteAt = markedForDeleteAt;
        this.localDeletionTime = localDeletionTime;
    }

    /** Returns {@link #LIVE} itself for the LIVE values, so identity checks hold. */
    public static DeletionTime of(long markedForDeleteAt, long localDeletionTime) {
        if (markedForDeleteAt == Long.MIN_VALUE && localDeletionTime == Long.MAX_VALUE) {
            return LIVE;
        }
        return new DeletionTime(markedForDeleteAt, localDeletionTime);
    }

    public long markedForDeleteAt() { return markedForDeleteAt; }

    public long localDeletionTime() { return localDeletionTime; }

    public boolean isLive() {
        return markedForDeleteAt == Long.MIN_VALUE && localDeletionTime == Long.MAX_VALUE;
    }

    /** Cassandra's order ({@link Reconcile#deletionSupersedes}): the later mark wins, then the later local deletion time. */
    public boolean supersedes(DeletionTime other) {
        return Reconcile.deletionSupersedes(markedForDeleteAt, localDeletionTime, other.markedForDeleteAt, other.localDeletionTime);
    }

    /** Whether data written at {@code timestamp} is shadowed by this deletion. */
    public boolean deletes(long timestamp) {
        return timestamp <= markedForDeleteAt;
    }

    public static DeletionTime max(DeletionTime a, DeletionTime b) {
        return b.supersedes(a) ? b : a;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DeletionTime && ((DeletionTime) o).markedForDeleteAt == markedForDeleteAt
                && ((DeletionTime) o).localDeletionTime == localDeletionTime;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(markedForDeleteAt) * 31 + Long.hashCode(localDeletionTime);
    }

    @Override
    public String toString() {
        return isLive() ? "LIVE" : "deletedAt=" + markedForDeleteAt + ", localDeletion=" + localDeletionTime;
    }
}

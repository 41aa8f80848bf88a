package dev.flushline.oracle;

/**
 * A deletion time: write timestamp of the delete and its local deletion time in seconds (unsigned
 * 32-bit range held in a long, as Cassandra 5.0 exposes it). LIVE uses Cassandra's sentinel values
 * so a converted LIVE deletion compares equal to {@link #LIVE}.
 */
public record Deletion(long markedForDeleteAt, long localDeletionTime) {
    public static final Deletion LIVE = new Deletion(Long.MIN_VALUE, Long.MAX_VALUE);

    public static Deletion of(long markedForDeleteAt, long localDeletionTime) {
        return new Deletion(markedForDeleteAt, localDeletionTime);
    }

    public boolean isLive() {
        return equals(LIVE);
    }

    @Override
    public String toString() {
        return isLive() ? "LIVE" : "del(ts=" + markedForDeleteAt + ",ldt=" + localDeletionTime + ")";
    }
}

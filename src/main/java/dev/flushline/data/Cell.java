package dev.flushline.data;

/**
 * A cell: one simple column's value in a row, or one element of a non-frozen collection, with its
 * value and path in on-heap byte arrays. Parsed operations, commit log replay, the Java writer's
 * bound rows and the {@code unslabbed_heap} memtable make these; the slab memtables
 * ({@code heap_buffers}, {@code offheap_objects}) hold no cell objects at all, each row being one
 * {@link RowRecord}, and compaction reads cells through flyweights. One final class, so every call
 * on a cell is static to the JIT; the flush's polymorphic site is the row source, split once per row.
 *
 * <p>Time fields follow Cassandra 5.0: {@link #timestamp()} in microseconds by convention;
 * {@link #localDeletionTime()} is an unsigned 32-bit second count held in a long, or
 * {@link #NO_DELETION_TIME} for a live, non-expiring cell; {@link #ttl()} is seconds, 0 when not
 * expiring. A tombstone has a local deletion time and ttl 0; an expiring cell has both. These
 * constants are the one set of time sentinels of the project.
 *
 * <p>Thread safety: immutable. The arrays are owned by the cell; callers must not modify them.
 */
public final class Cell {
    public static final long NO_TIMESTAMP = Long.MIN_VALUE;
    public static final int NO_TTL = 0;
    public static final long NO_DELETION_TIME = Long.MAX_VALUE;
    /** Largest local deletion time a write may carry (2106-02-07T06:28:13Z), as in Cassandra 5.0. */
    public static final long MAX_DELETION_TIME = 0xFFFF_FFFDL;
    /** Marks a corrupt deletion time; never produced by a write. */
    public static final long INVALID_DELETION_TIME = 0xFFFF_FFFEL;
    /** Cassandra's limit on a TTL: 20 years in seconds. */
    public static final int MAX_TTL = 20 * 365 * 24 * 60 * 60;

    private static final byte[] EMPTY = new byte[0];

    private final long timestamp;
    private final long localDeletionTime;
    private final int ttl;
    private final byte[] value;
    private final byte[] path;

    /** {@code path} is null or empty for a simple column. Takes ownership of both arrays. */
    public Cell(long timestamp, int ttl, long localDeletionTime, byte[] value, byte[] path) {
        this.timestamp = timestamp;
        this.ttl = ttl;
        this.localDeletionTime = localDeletionTime;
        this.value = value == null ? EMPTY : value;
        this.path = path == null ? EMPTY : path;
    }

    public static Cell live(long timestamp, byte[] value, byte[] path) {
        return new Cell(timestamp, NO_TTL, NO_DELETION_TIME, value, path);
    }

    public static Cell expiring(long timestamp, int ttl, long localExpirationTime, byte[] value, byte[] path) {
        return new Cell(timestamp, ttl, localExpirationTime, value, path);
    }

    public static Cell tombstone(long timestamp, long localDeletionTime, byte[] path) {
        return new Cell(timestamp, NO_TTL, localDeletionTime, EMPTY, path);
    }

    public long timestamp() { return timestamp; }

    public int ttl() { return ttl; }

    public long localDeletionTime() { return localDeletionTime; }

    public int valueLength() { return value.length; }

    /** Length of the cell path (collection element key), 0 for a simple column's cell. */
    public int pathLength() { return path.length; }

    /** The value array itself, not a copy. Do not modify. */
    public byte[] value() { return value; }

    /** The path array itself (empty for a simple cell), not a copy. Do not modify. */
    public byte[] path() { return path; }

    /** REQUIRES: {@code dst} has room for {@link #valueLength()} bytes at {@code dstOffset}. */
    public void copyValueTo(byte[] dst, int dstOffset) {
        System.arraycopy(value, 0, dst, dstOffset, value.length);
    }

    /** REQUIRES: {@code dst} has room for {@link #pathLength()} bytes at {@code dstOffset}. */
    public void copyPathTo(byte[] dst, int dstOffset) {
        System.arraycopy(path, 0, dst, dstOffset, path.length);
    }

    /** A fresh copy of the value. Allocates: for tests, write-path merges and slow paths only. */
    public byte[] valueBytes() {
        return value.clone();
    }

    /** A fresh copy of the path. Allocates: for tests, write-path merges and slow paths only. */
    public byte[] pathBytes() {
        return path.clone();
    }

    public boolean isTombstone() {
        return ttl() == NO_TTL && localDeletionTime() != NO_DELETION_TIME;
    }

    public boolean isExpiring() {
        return ttl() != NO_TTL;
    }

    /**
     * Cassandra 5.0's reconciliation of two versions of the same cell ({@link Reconcile#cellFirstWins}).
     * Returns the winner, {@code left} on a complete tie.
     */
    public static Cell reconcile(Cell left, Cell right) {
        long lts = left.timestamp(), rts = right.timestamp();
        if (lts != rts) return lts > rts ? left : right;
        byte[] lv = left.value, rv = right.value;
        return Reconcile.cellFirstWins(lts, left.ttl, left.localDeletionTime, lv, 0, lv.length,
                rts, right.ttl, right.localDeletionTime, rv, 0, rv.length) ? left : right;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Cell{ts=").append(timestamp());
        if (ttl() != NO_TTL) sb.append(", ttl=").append(ttl());
        if (localDeletionTime() != NO_DELETION_TIME) sb.append(", ldt=").append(localDeletionTime());
        if (pathLength() > 0) sb.append(", path=").append(Hex.of(pathBytes()));
        return sb.append(", value=").append(Hex.of(valueBytes())).append('}').toString();
    }
}

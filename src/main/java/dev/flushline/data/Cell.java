package dev.flushline.data;

/**
 * A cell: one simple column's value in a row, or one element of a non-frozen collection.
 *
 * <p>There are exactly three implementations, all {@code final}: {@link ArrayCell} (byte[]; every
 * deserialized or parsed cell, and the cells of an {@code unslabbed_heap} memtable),
 * {@link BufferCell} (a ByteBuffer slice) and {@link NativeCell} (a peer of an off-heap record). The
 * slab memtables ({@code heap_buffers}, {@code offheap_objects}) hold no cell objects at all: each
 * row is one {@link RowRecord}. BufferCell and NativeCell remain for rows whose values already live
 * in buffers or native memory, and the serializer's Row path still takes all three. Hot loops must not call the abstract accessors here on a site that sees more
 * than one class: test {@code instanceof NativeCell}, then {@code ArrayCell}, and only then fall back
 * to these abstract calls. A call site that sees one or two receiver classes is inlined by the JIT;
 * one that sees all three becomes a virtual call per cell, which the flush loop cannot afford.
 *
 * <p>Time fields follow Cassandra 5.0: {@link #timestamp()} in microseconds by convention;
 * {@link #localDeletionTime()} is an unsigned 32-bit second count held in a long, or
 * {@link #NO_DELETION_TIME} for a live, non-expiring cell; {@link #ttl()} is seconds, 0 when not
 * expiring. A tombstone has a local deletion time and ttl 0; an expiring cell has both.
 *
 * <p>Thread safety: immutable once published.
 */
public abstract class Cell {
    public static final long NO_TIMESTAMP = Long.MIN_VALUE;
    public static final int NO_TTL = 0;
    public static final long NO_DELETION_TIME = Long.MAX_VALUE;
    /** Largest local deletion time a write may carry (2106-02-07T06:28:13Z), as in Cassandra 5.0. */
    public static final long MAX_DELETION_TIME = 0xFFFF_FFFDL;
    /** Marks a corrupt deletion time; never produced by a write. */
    public static final long INVALID_DELETION_TIME = 0xFFFF_FFFEL;
    /** Cassandra's limit on a TTL: 20 years in seconds. */
    public static final int MAX_TTL = 20 * 365 * 24 * 60 * 60;

    /** Package-private: the three final subclasses are the whole family. */
    Cell() {}

    public abstract long timestamp();

    public abstract int ttl();

    public abstract long localDeletionTime();

    public abstract int valueLength();

    /** Length of the cell path (collection element key), 0 for a simple column's cell. */
    public abstract int pathLength();

    /** REQUIRES: {@code dst} has room for {@link #valueLength()} bytes at {@code dstOffset}. */
    public abstract void copyValueTo(byte[] dst, int dstOffset);

    /** REQUIRES: {@code dst} has room for {@link #pathLength()} bytes at {@code dstOffset}. */
    public abstract void copyPathTo(byte[] dst, int dstOffset);

    /** A fresh copy of the value. Allocates: for tests, write-path merges and slow paths only. */
    public final byte[] valueBytes() {
        byte[] b = new byte[valueLength()];
        copyValueTo(b, 0);
        return b;
    }

    /** A fresh copy of the path. Allocates: for tests, write-path merges and slow paths only. */
    public final byte[] pathBytes() {
        byte[] b = new byte[pathLength()];
        copyPathTo(b, 0);
        return b;
    }

    public final boolean isTombstone() {
        return ttl() == NO_TTL && localDeletionTime() != NO_DELETION_TIME;
    }

    public final boolean isExpiring() {
        return ttl() != NO_TTL;
    }

    /**
     * Cassandra 5.0's reconciliation of two versions of the same cell ({@link Reconcile#cellFirstWins}).
     * Returns the winner, {@code left} on a complete tie. The values are only read on a timestamp tie.
     */
    public static Cell reconcile(Cell left, Cell right) {
        long lts = left.timestamp(), rts = right.timestamp();
        if (lts != rts) return lts > rts ? left : right;
        byte[] lv = left.valueBytes(), rv = right.valueBytes();
        return Reconcile.cellFirstWins(lts, left.ttl(), left.localDeletionTime(), lv, 0, lv.length,
                rts, right.ttl(), right.localDeletionTime(), rv, 0, rv.length) ? left : right;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(getClass().getSimpleName()).append("{ts=").append(timestamp());
        if (ttl() != NO_TTL) sb.append(", ttl=").append(ttl());
        if (localDeletionTime() != NO_DELETION_TIME) sb.append(", ldt=").append(localDeletionTime());
        if (pathLength() > 0) sb.append(", path=").append(Hex.of(pathBytes()));
        return sb.append(", value=").append(Hex.of(valueBytes())).append('}').toString();
    }
}

package dev.flushline.data;

/**
 * A cell whose value and path are on-heap byte arrays. Parsed operations, commit log replay and
 * the {@code unslabbed_heap} allocation mode produce these.
 *
 * <p>Thread safety: immutable. The arrays are owned by the cell; callers must not modify them.
 */
public final class ArrayCell extends Cell {
    private static final byte[] EMPTY = new byte[0];

    private final long timestamp;
    private final long localDeletionTime;
    private final int ttl;
    private final byte[] value;
    private final byte[] path;

    /** {@code path} is null or empty for a simple column. Takes ownership of both arrays. */
    public ArrayCell(long timestamp, int ttl, long localDeletionTime, byte[] value, byte[] path) {
        this.timestamp = timestamp;
        this.ttl = ttl;
        this.localDeletionTime = localDeletionTime;
        this.value = value == null ? EMPTY : value;
        this.path = path == null ? EMPTY : path;
    }

    public static ArrayCell live(long timestamp, byte[] value, byte[] path) {
        return new ArrayCell(timestamp, NO_TTL, NO_DELETION_TIME, value, path);
    }

    public static ArrayCell expiring(long timestamp, int ttl, long localExpirationTime, byte[] value, byte[] path) {
        return new ArrayCell(timestamp, ttl, localExpirationTime, value, path);
    }

    public static ArrayCell tombstone(long timestamp, long localDeletionTime, byte[] path) {
        return new ArrayCell(timestamp, NO_TTL, localDeletionTime, EMPTY, path);
    }

    @Override public long timestamp() { return timestamp; }

    @Override public int ttl() { return ttl; }

    @Override public long localDeletionTime() { return localDeletionTime; }

    @Override public int valueLength() { return value.length; }

    @Override public int pathLength() { return path.length; }

    /** The value array itself, not a copy. Do not modify. */
    public byte[] value() { return value; }

    /** The path array itself (empty for a simple cell), not a copy. Do not modify. */
    public byte[] path() { return path; }

    @Override
    public void copyValueTo(byte[] dst, int dstOffset) {
        System.arraycopy(value, 0, dst, dstOffset, value.length);
    }

    @Override
    public void copyPathTo(byte[] dst, int dstOffset) {
        System.arraycopy(path, 0, dst, dstOffset, path.length);
    }
}

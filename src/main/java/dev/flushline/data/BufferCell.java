package dev.flushline.data;

import java.nio.ByteBuffer;

/**
 * A cell whose value and path are ByteBuffer slices (of a caller's buffers; the {@code heap_buffers}
 * memtable stores row records instead). The buffers' positions and limits delimit the bytes and are never
 * moved: readers use absolute access only.
 *
 * <p>Thread safety: immutable once published.
 */
public final class BufferCell extends Cell {
    private final long timestamp;
    private final long localDeletionTime;
    private final int ttl;
    private final ByteBuffer value;
    /** null for a simple column's cell. */
    private final ByteBuffer path;

    public BufferCell(long timestamp, int ttl, long localDeletionTime, ByteBuffer value, ByteBuffer path) {
        this.timestamp = timestamp;
        this.ttl = ttl;
        this.localDeletionTime = localDeletionTime;
        this.value = value;
        this.path = path;
    }

    @Override public long timestamp() { return timestamp; }

    @Override public int ttl() { return ttl; }

    @Override public long localDeletionTime() { return localDeletionTime; }

    @Override public int valueLength() { return value.remaining(); }

    @Override public int pathLength() { return path == null ? 0 : path.remaining(); }

    /** The value buffer; its position..limit are the value. Absolute reads only. */
    public ByteBuffer value() { return value; }

    /** The path buffer or null. Absolute reads only. */
    public ByteBuffer path() { return path; }

    @Override
    public void copyValueTo(byte[] dst, int dstOffset) {
        value.get(value.position(), dst, dstOffset, value.remaining());
    }

    @Override
    public void copyPathTo(byte[] dst, int dstOffset) {
        if (path != null) {
            path.get(path.position(), dst, dstOffset, path.remaining());
        }
    }
}

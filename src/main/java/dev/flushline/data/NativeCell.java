package dev.flushline.data;

import dev.flushline.io.NativeMemory;

/**
 * A cell that lives entirely off heap: this object is only a peer holding the address of a
 * record in native memory (the {@code offheap_objects} memtable stores row records instead).
 *
 * <pre>
 *  0                   8                   16        20           24          28
 *  +-------------------+-------------------+---------+------------+-----------+------+-------+
 *  | timestamp   i64   | localDeletionTime | ttl i32 | pathLength | valueLength| path | value |
 *  |                   | i64               |         | i32        | i32        |      |       |
 *  +-------------------+-------------------+---------+------------+-----------+------+-------+
 * </pre>
 * Fields are in native byte order; path and value bytes are the on-disk bytes, copied verbatim.
 *
 * <p>Thread safety: immutable once published. The record must stay allocated while any reader may
 * use this peer: whoever allocated it frees it only after the last reader is done.
 */
public final class NativeCell extends Cell {
    public static final int TIMESTAMP_OFFSET = 0;
    public static final int LOCAL_DELETION_TIME_OFFSET = TIMESTAMP_OFFSET + Long.BYTES;
    public static final int TTL_OFFSET = LOCAL_DELETION_TIME_OFFSET + Long.BYTES;
    public static final int PATH_LENGTH_OFFSET = TTL_OFFSET + Integer.BYTES;
    public static final int VALUE_LENGTH_OFFSET = PATH_LENGTH_OFFSET + Integer.BYTES;
    public static final int HEADER_LENGTH = VALUE_LENGTH_OFFSET + Integer.BYTES;

    private final long address;

    /** REQUIRES: {@code address} points at a record written by {@link #write}. */
    public NativeCell(long address) {
        this.address = address;
    }

    /** Bytes a record for a cell with this path and value length occupies. */
    public static long recordLength(int pathLength, int valueLength) {
        return (long) HEADER_LENGTH + pathLength + valueLength;
    }

    /**
     * Writes the record for {@code src} at {@code address}.
     * REQUIRES: {@link #recordLength} bytes are allocated there.
     */
    public static void write(long address, ArrayCell src) {
        byte[] path = src.path();
        byte[] value = src.value();
        NativeMemory.putLong(address + TIMESTAMP_OFFSET, src.timestamp());
        NativeMemory.putLong(address + LOCAL_DELETION_TIME_OFFSET, src.localDeletionTime());
        NativeMemory.putInt(address + TTL_OFFSET, src.ttl());
        NativeMemory.putInt(address + PATH_LENGTH_OFFSET, path.length);
        NativeMemory.putInt(address + VALUE_LENGTH_OFFSET, value.length);
        NativeMemory.copyFromArray(path, 0, address + HEADER_LENGTH, path.length);
        NativeMemory.copyFromArray(value, 0, address + HEADER_LENGTH + path.length, value.length);
    }

    public long address() { return address; }

    @Override public long timestamp() { return NativeMemory.getLong(address + TIMESTAMP_OFFSET); }

    @Override public int ttl() { return NativeMemory.getInt(address + TTL_OFFSET); }

    @Override public long localDeletionTime() { return NativeMemory.getLong(address + LOCAL_DELETION_TIME_OFFSET); }

    @Override public int valueLength() { return NativeMemory.getInt(address + VALUE_LENGTH_OFFSET); }

    @Override public int pathLength() { return NativeMemory.getInt(address + PATH_LENGTH_OFFSET); }

    /** Address of the first path byte. */
    public long pathAddress() { return address + HEADER_LENGTH; }

    /** Address of the first value byte. */
    public long valueAddress() { return address + HEADER_LENGTH + pathLength(); }

    @Override
    public void copyValueTo(byte[] dst, int dstOffset) {
        NativeMemory.copyToArray(valueAddress(), dst, dstOffset, valueLength());
    }

    @Override
    public void copyPathTo(byte[] dst, int dstOffset) {
        NativeMemory.copyToArray(pathAddress(), dst, dstOffset, pathLength());
    }
}

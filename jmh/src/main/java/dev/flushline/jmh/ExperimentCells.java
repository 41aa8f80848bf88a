package dev.flushline.jmh;

import dev.flushline.io.NativeMemory;

import java.nio.ByteBuffer;

/**
 * The cell family of the call-site experiment ({@link CellSerializationBench}), kept here because
 * production has one final cell class: Flushline's memtables store row records, and its flush
 * splits its one polymorphic site by row source instead. Three final classes behind one abstract
 * type, as Cassandra has them (ArrayCell, BufferCell, NativeCell): the value in a byte array, in a
 * slice of a heap buffer, or in native memory. A row is its clustering, its liveness timestamp
 * and one cell per column.
 *
 * <p>Thread safety: immutable once built; a native cell's memory belongs to its benchmark fixture.
 */
final class ExperimentCells {
    private ExperimentCells() {}

    /** The shared type: every accessor is one virtual call when all three classes are live. */
    abstract static class XCell {
        abstract long timestamp();

        abstract int ttl();

        abstract long localDeletionTime();

        abstract int valueLength();

        abstract void copyValueTo(byte[] dst, int dstOffset);
    }

    static final class ArrayXCell extends XCell {
        final long timestamp, localDeletionTime;
        final int ttl;
        final byte[] value;

        ArrayXCell(long timestamp, int ttl, long localDeletionTime, byte[] value) {
            this.timestamp = timestamp;
            this.ttl = ttl;
            this.localDeletionTime = localDeletionTime;
            this.value = value;
        }

        @Override long timestamp() { return timestamp; }

        @Override int ttl() { return ttl; }

        @Override long localDeletionTime() { return localDeletionTime; }

        @Override int valueLength() { return value.length; }

        @Override void copyValueTo(byte[] dst, int dstOffset) { System.arraycopy(value, 0, dst, dstOffset, value.length); }
    }

    /** The value is a slice of a heap buffer; the copy goes through absolute ByteBuffer access. */
    static final class BufferXCell extends XCell {
        final long timestamp, localDeletionTime;
        final int ttl;
        final ByteBuffer value;

        BufferXCell(long timestamp, int ttl, long localDeletionTime, ByteBuffer value) {
            this.timestamp = timestamp;
            this.ttl = ttl;
            this.localDeletionTime = localDeletionTime;
            this.value = value;
        }

        @Override long timestamp() { return timestamp; }

        @Override int ttl() { return ttl; }

        @Override long localDeletionTime() { return localDeletionTime; }

        @Override int valueLength() { return value.remaining(); }

        @Override void copyValueTo(byte[] dst, int dstOffset) { value.get(value.position(), dst, dstOffset, value.remaining()); }
    }

    /**
     * A peer of a record in native memory:
     * <pre>
     * record := timestamp:i64 local_deletion_time:i64 ttl:i32 value_length:i32 value
     * </pre>
     */
    static final class NativeXCell extends XCell {
        static final int TIMESTAMP_OFFSET = 0;
        static final int LDT_OFFSET = TIMESTAMP_OFFSET + Long.BYTES;
        static final int TTL_OFFSET = LDT_OFFSET + Long.BYTES;
        static final int LENGTH_OFFSET = TTL_OFFSET + Integer.BYTES;
        static final int VALUE_OFFSET = LENGTH_OFFSET + Integer.BYTES;

        final long address;

        NativeXCell(long address) {
            this.address = address;
        }

        static long recordLength(int valueLength) {
            return VALUE_OFFSET + valueLength;
        }

        static void write(long address, long timestamp, int ttl, long ldt, byte[] value) {
            NativeMemory.putLong(address + TIMESTAMP_OFFSET, timestamp);
            NativeMemory.putLong(address + LDT_OFFSET, ldt);
            NativeMemory.putInt(address + TTL_OFFSET, ttl);
            NativeMemory.putInt(address + LENGTH_OFFSET, value.length);
            NativeMemory.copyFromArray(value, 0, address + VALUE_OFFSET, value.length);
        }

        @Override long timestamp() { return NativeMemory.getLong(address + TIMESTAMP_OFFSET); }

        @Override int ttl() { return NativeMemory.getInt(address + TTL_OFFSET); }

        @Override long localDeletionTime() { return NativeMemory.getLong(address + LDT_OFFSET); }

        @Override int valueLength() { return NativeMemory.getInt(address + LENGTH_OFFSET); }

        @Override void copyValueTo(byte[] dst, int dstOffset) {
            NativeMemory.copyToArray(address + VALUE_OFFSET, dst, dstOffset, valueLength());
        }
    }

    /** A plain INSERT row: clustering, liveness timestamp (no TTL, no deletion) and one cell per column. */
    static final class XRow {
        final byte[][] clustering;
        final long livenessTimestamp;
        final XCell[] cells;

        XRow(byte[][] clustering, long livenessTimestamp, XCell[] cells) {
            this.clustering = clustering;
            this.livenessTimestamp = livenessTimestamp;
            this.cells = cells;
        }
    }
}

package dev.flushline.memtable;

import dev.flushline.data.ArrayCell;
import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ClusteringBuffer;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.Row;
import dev.flushline.data.RowBuffer;
import dev.flushline.io.NativeMemory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The memtable's own encoding of one row, the way the slab allocation modes store it: the row's
 * liveness, deletion and every cell in one contiguous record, instead of a Row, a cell array, a
 * cell object per value and a ByteBuffer per value. A row of five 16-byte text values takes about
 * 117 bytes here, against about 600 as objects, and the garbage collector sees no object at all
 * for it (the record sits inside a 1 MiB slab, on or off heap).
 *
 * <p>The clustering is not in the record: the row's skip-list node keeps it as {@code byte[][]},
 * because every lookup compares it.
 *
 * <pre>
 * record  := length:i32 flags:u8 simpleSlots:u16 complexSlots:u16 simplePresent:u16 complexPresent:u16
 *            [livenessTs:i64]                      if HAS_LIVENESS
 *            [livenessTtl:i32 livenessExp:i64]     if LIVENESS_EXPIRING
 *            [deletionTs:i64 deletionLdt:i64]      if HAS_DELETION
 *            simple{simplePresent} complex{complexPresent}
 * simple  := position:u16 cell
 * complex := index:u16 xflags:u8 [deletionTs:i64 deletionLdt:i64 if COMPLEX_DELETED] cellCount:i32
 *            cell{cellCount}   (each with a path)
 * cell    := cflags:u8 [ts:i64 unless ROW_TIMESTAMP] [ttl:i32 if HAS_TTL] [ldt:i64 if HAS_LDT]
 *            [path length:(u8 if SHORT_PATH else i32) path bytes]   (complex cells only)
 *            value length:(u8 if SHORT_VALUE else i32) value bytes
 * </pre>
 * Multi-byte fields are little-endian. {@code length} counts the whole record, itself included.
 * The slot counts are the lengths of the Row's {@code cells()} and {@code complex()} arrays, so a
 * record turns back into an equal Row with nothing else to hand. A simple cell's position is its
 * index in {@code cells()}, a complex column's index its index in {@code complex()}. Positions are u16, so a record
 * holds rows of tables with at most 65535 simple and 65535 complex columns.
 *
 * <p>A cell's timestamp is left out when it equals the row's liveness timestamp (every cell of a
 * plain INSERT); ttl and local deletion time are written only when they are set. Paths and values
 * shorter than 256 bytes have a one-byte length.
 *
 * <p>Thread safety: stateless; all methods are static. A record is written once, under the
 * partition's monitor, before its node publishes it, and never changed.
 */
final class RowRecord {
    private RowRecord() {}

    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    // Header, chained from the start.
    static final int LENGTH_OFFSET = 0;
    static final int FLAGS_OFFSET = LENGTH_OFFSET + Integer.BYTES;
    static final int SIMPLE_SLOTS_OFFSET = FLAGS_OFFSET + 1;
    static final int COMPLEX_SLOTS_OFFSET = SIMPLE_SLOTS_OFFSET + Short.BYTES;
    static final int SIMPLE_PRESENT_OFFSET = COMPLEX_SLOTS_OFFSET + Short.BYTES;
    static final int COMPLEX_PRESENT_OFFSET = SIMPLE_PRESENT_OFFSET + Short.BYTES;
    static final int FIXED_HEADER_BYTES = COMPLEX_PRESENT_OFFSET + Short.BYTES;

    // Record flags.
    static final int IS_STATIC = 0x01;
    static final int HAS_LIVENESS = 0x02;
    static final int LIVENESS_EXPIRING = 0x04;
    static final int HAS_DELETION = 0x08;

    // Complex column flags.
    static final int COMPLEX_DELETED = 0x01;

    // Cell flags.
    static final int ROW_TIMESTAMP = 0x01;
    static final int HAS_TTL = 0x02;
    static final int HAS_LDT = 0x04;
    static final int SHORT_PATH = 0x08;
    static final int SHORT_VALUE = 0x10;

    static final int MAX_SLOTS = 0xFFFF;
    private static final int SHORT_LENGTH_LIMIT = 0xFF;

    // ---- size ------------------------------------------------------------------------------------

    /** Exact bytes of {@code row}'s record. REQUIRES: cells are ArrayCells (parsed or merged rows). */
    static int size(Row row) {
        Cell[] cells = row.cells();
        ComplexColumn[] complex = row.complex();
        if (cells.length > MAX_SLOTS || complex.length > MAX_SLOTS) {
            throw new IllegalArgumentException("a memtable row holds at most " + MAX_SLOTS + " simple and " + MAX_SLOTS
                    + " complex columns; this one has " + cells.length + " and " + complex.length);
        }
        long rowTs = row.livenessTimestamp();
        long size = FIXED_HEADER_BYTES;
        if (row.hasLiveness()) size += Long.BYTES;
        if (row.isLivenessExpiring()) size += Integer.BYTES + Long.BYTES;
        if (!row.deletion().isLive()) size += 2 * Long.BYTES;
        for (int i = 0; i < cells.length; i++) {
            if (cells[i] == null) continue;
            size += Short.BYTES + cellSize((ArrayCell) cells[i], rowTs, false);
        }
        for (int i = 0; i < complex.length; i++) {
            ComplexColumn cx = complex[i];
            if (cx == null) continue;
            size += Short.BYTES + 1 + Integer.BYTES;
            if (!cx.complexDeletion().isLive()) size += 2 * Long.BYTES;
            Cell[] cc = cx.cells();
            for (int j = 0; j < cc.length; j++) size += cellSize((ArrayCell) cc[j], rowTs, true);
        }
        if (size > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("row of " + size + " bytes is larger than a memtable record can be");
        }
        return (int) size;
    }

    private static int cellSize(ArrayCell c, long rowTs, boolean withPath) {
        int size = 1;
        if (rowTs == Cell.NO_TIMESTAMP || c.timestamp() != rowTs) size += Long.BYTES;
        if (c.ttl() != Cell.NO_TTL) size += Integer.BYTES;
        if (c.localDeletionTime() != Cell.NO_DELETION_TIME) size += Long.BYTES;
        if (withPath) size += lengthSize(c.pathLength()) + c.pathLength();
        return size + lengthSize(c.valueLength()) + c.valueLength();
    }

    private static int lengthSize(int length) {
        return length <= SHORT_LENGTH_LIMIT ? 1 : Integer.BYTES;
    }

    // ---- write -----------------------------------------------------------------------------------

    /**
     * Writes {@code row}'s record at {@code dst[offset..]}. REQUIRES: {@code size} came from
     * {@link #size} for this row and that much room is there. Throws IllegalStateException if the
     * written bytes differ from {@code size}.
     */
    static void write(Row row, int size, byte[] dst, int offset) {
        Cell[] cells = row.cells();
        ComplexColumn[] complex = row.complex();
        int simplePresent = 0, complexPresent = 0;
        for (int i = 0; i < cells.length; i++) if (cells[i] != null) simplePresent++;
        for (int i = 0; i < complex.length; i++) if (complex[i] != null) complexPresent++;
        int flags = 0;
        if (row.isStatic()) flags |= IS_STATIC;
        if (row.hasLiveness()) flags |= HAS_LIVENESS;
        if (row.isLivenessExpiring()) flags |= LIVENESS_EXPIRING;
        DeletionTime d = row.deletion();
        if (!d.isLive()) flags |= HAS_DELETION;

        INT.set(dst, offset + LENGTH_OFFSET, size);
        dst[offset + FLAGS_OFFSET] = (byte) flags;
        SHORT.set(dst, offset + SIMPLE_SLOTS_OFFSET, (short) cells.length);
        SHORT.set(dst, offset + COMPLEX_SLOTS_OFFSET, (short) complex.length);
        SHORT.set(dst, offset + SIMPLE_PRESENT_OFFSET, (short) simplePresent);
        SHORT.set(dst, offset + COMPLEX_PRESENT_OFFSET, (short) complexPresent);
        int p = offset + FIXED_HEADER_BYTES;
        long rowTs = row.livenessTimestamp();
        if ((flags & HAS_LIVENESS) != 0) { LONG.set(dst, p, rowTs); p += Long.BYTES; }
        if ((flags & LIVENESS_EXPIRING) != 0) {
            INT.set(dst, p, row.livenessTtl()); p += Integer.BYTES;
            LONG.set(dst, p, row.livenessExpirationTime()); p += Long.BYTES;
        }
        if ((flags & HAS_DELETION) != 0) {
            LONG.set(dst, p, d.markedForDeleteAt()); p += Long.BYTES;
            LONG.set(dst, p, d.localDeletionTime()); p += Long.BYTES;
        }
        for (int i = 0; i < cells.length; i++) {
            if (cells[i] == null) continue;
            SHORT.set(dst, p, (short) i); p += Short.BYTES;
            p = writeCell(dst, p, (ArrayCell) cells[i], rowTs, false);
        }
        for (int i = 0; i < complex.length; i++) {
            ComplexColumn cx = complex[i];
            if (cx == null) continue;
            SHORT.set(dst, p, (short) i); p += Short.BYTES;
            DeletionTime cd = cx.complexDeletion();
            dst[p++] = (byte) (cd.isLive() ? 0 : COMPLEX_DELETED);
            if (!cd.isLive()) {
                LONG.set(dst, p, cd.markedForDeleteAt()); p += Long.BYTES;
                LONG.set(dst, p, cd.localDeletionTime()); p += Long.BYTES;
            }
            Cell[] cc = cx.cells();
            INT.set(dst, p, cc.length); p += Integer.BYTES;
            for (int j = 0; j < cc.length; j++) p = writeCell(dst, p, (ArrayCell) cc[j], rowTs, true);
        }
        if (p - offset != size) {
            throw new IllegalStateException("memtable row record: sized " + size + " bytes, wrote " + (p - offset));
        }
    }

    private static int writeCell(byte[] dst, int p, ArrayCell c, long rowTs, boolean withPath) {
        long ts = c.timestamp(), ldt = c.localDeletionTime();
        int ttl = c.ttl();
        byte[] path = c.path(), value = c.value();
        int flags = 0;
        if (rowTs != Cell.NO_TIMESTAMP && ts == rowTs) flags |= ROW_TIMESTAMP;
        if (ttl != Cell.NO_TTL) flags |= HAS_TTL;
        if (ldt != Cell.NO_DELETION_TIME) flags |= HAS_LDT;
        if (withPath && path.length <= SHORT_LENGTH_LIMIT) flags |= SHORT_PATH;
        if (value.length <= SHORT_LENGTH_LIMIT) flags |= SHORT_VALUE;
        dst[p++] = (byte) flags;
        if ((flags & ROW_TIMESTAMP) == 0) { LONG.set(dst, p, ts); p += Long.BYTES; }
        if ((flags & HAS_TTL) != 0) { INT.set(dst, p, ttl); p += Integer.BYTES; }
        if ((flags & HAS_LDT) != 0) { LONG.set(dst, p, ldt); p += Long.BYTES; }
        if (withPath) p = writeBytes(dst, p, path, (flags & SHORT_PATH) != 0);
        return writeBytes(dst, p, value, (flags & SHORT_VALUE) != 0);
    }

    private static int writeBytes(byte[] dst, int p, byte[] src, boolean shortLength) {
        if (shortLength) {
            dst[p++] = (byte) src.length;
        } else {
            INT.set(dst, p, src.length);
            p += Integer.BYTES;
        }
        System.arraycopy(src, 0, dst, p, src.length);
        return p + src.length;
    }

    // ---- read ------------------------------------------------------------------------------------

    /** The length field of a record in native memory: how many bytes to copy to have all of it. */
    static int nativeLength(long address) {
        int v = NativeMemory.getInt(address + LENGTH_OFFSET); // native order; the record is little-endian
        return NATIVE_LITTLE_ENDIAN ? v : Integer.reverseBytes(v);
    }

    /** The length field of a record in a heap slab. */
    static int length(byte[] src, int offset) {
        return (int) INT.get(src, offset + LENGTH_OFFSET);
    }

    private static final boolean NATIVE_LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    /**
     * Fills {@code out} with the record at {@code src[offset..]} and {@code clustering}. Values and
     * paths stay in {@code src}; nothing is allocated. This is the flush's row source.
     */
    static void decode(byte[] src, int offset, byte[][] clustering, RowBuffer out) {
        int flags = src[offset + FLAGS_OFFSET];
        boolean isStatic = (flags & IS_STATIC) != 0;
        out.clear(isStatic);
        if (!isStatic) {
            ClusteringBuffer cb = out.clustering();
            cb.reset(ClusteringBound.CLUSTERING, clustering.length);
            for (int i = 0; i < clustering.length; i++) cb.set(i, clustering[i], 0, clustering[i].length);
        }
        int simpleSlots = (short) SHORT.get(src, offset + SIMPLE_SLOTS_OFFSET) & 0xFFFF;
        int simplePresent = (short) SHORT.get(src, offset + SIMPLE_PRESENT_OFFSET) & 0xFFFF;
        int complexPresent = (short) SHORT.get(src, offset + COMPLEX_PRESENT_OFFSET) & 0xFFFF;
        int p = offset + FIXED_HEADER_BYTES;
        long rowTs = Cell.NO_TIMESTAMP;
        if ((flags & HAS_LIVENESS) != 0) {
            rowTs = (long) LONG.get(src, p); p += Long.BYTES;
            int ttl = Cell.NO_TTL;
            long exp = Cell.NO_DELETION_TIME;
            if ((flags & LIVENESS_EXPIRING) != 0) {
                ttl = (int) INT.get(src, p); p += Integer.BYTES;
                exp = (long) LONG.get(src, p); p += Long.BYTES;
            }
            out.setLiveness(rowTs, ttl, exp);
        }
        if ((flags & HAS_DELETION) != 0) {
            out.setDeletion((long) LONG.get(src, p), (long) LONG.get(src, p + Long.BYTES));
            p += 2 * Long.BYTES;
        }
        for (int i = 0; i < simplePresent; i++) {
            int position = (short) SHORT.get(src, p) & 0xFFFF;
            p += Short.BYTES;
            out.beginColumn(position, false, Long.MIN_VALUE, Long.MAX_VALUE);
            p = decodeCell(src, p, rowTs, false, out);
            out.endColumn();
        }
        for (int i = 0; i < complexPresent; i++) {
            int position = (short) SHORT.get(src, p) & 0xFFFF;
            p += Short.BYTES;
            int xflags = src[p++];
            long dts = Long.MIN_VALUE, dldt = Long.MAX_VALUE;
            if ((xflags & COMPLEX_DELETED) != 0) {
                dts = (long) LONG.get(src, p);
                dldt = (long) LONG.get(src, p + Long.BYTES);
                p += 2 * Long.BYTES;
            }
            int count = (int) INT.get(src, p);
            p += Integer.BYTES;
            out.beginColumn(simpleSlots + position, true, dts, dldt); // table position: after the simple columns
            for (int j = 0; j < count; j++) p = decodeCell(src, p, rowTs, true, out);
            out.endColumn();
        }
    }

    private static int decodeCell(byte[] src, int p, long rowTs, boolean withPath, RowBuffer out) {
        int flags = src[p++];
        long ts = rowTs;
        if ((flags & ROW_TIMESTAMP) == 0) { ts = (long) LONG.get(src, p); p += Long.BYTES; }
        int ttl = Cell.NO_TTL;
        if ((flags & HAS_TTL) != 0) { ttl = (int) INT.get(src, p); p += Integer.BYTES; }
        long ldt = Cell.NO_DELETION_TIME;
        if ((flags & HAS_LDT) != 0) { ldt = (long) LONG.get(src, p); p += Long.BYTES; }
        int pathOffset = 0, pathLength = 0;
        if (withPath) {
            if ((flags & SHORT_PATH) != 0) {
                pathLength = src[p++] & 0xFF;
            } else {
                pathLength = (int) INT.get(src, p);
                p += Integer.BYTES;
            }
            pathOffset = p;
            p += pathLength;
        }
        int valueLength;
        if ((flags & SHORT_VALUE) != 0) {
            valueLength = src[p++] & 0xFF;
        } else {
            valueLength = (int) INT.get(src, p);
            p += Integer.BYTES;
        }
        out.addCell(ts, ttl, ldt, src, pathOffset, pathLength, src, p, valueLength);
        return p + valueLength;
    }

    /**
     * The record as a Row of ArrayCells (copies): the write path's merges and tests use this, never
     * the flush. Allocates.
     */
    static Row materialize(byte[] src, int offset, byte[][] clustering) {
        int flags = src[offset + FLAGS_OFFSET];
        int simpleSlots = (short) SHORT.get(src, offset + SIMPLE_SLOTS_OFFSET) & 0xFFFF;
        int complexSlots = (short) SHORT.get(src, offset + COMPLEX_SLOTS_OFFSET) & 0xFFFF;
        RowBuffer b = new RowBuffer(clustering.length, simpleSlots + complexSlots);
        decode(src, offset, clustering, b);
        Cell[] cells = new Cell[simpleSlots];
        ComplexColumn[] complex = complexSlots == 0 ? Row.NO_COMPLEX : new ComplexColumn[complexSlots];
        for (int j = 0; j < b.columnCount(); j++) {
            int first = b.firstCell(j);
            if (!b.isComplex(j)) {
                cells[b.columnPosition(j)] = arrayCell(b, first);
                continue;
            }
            Cell[] cc = new Cell[b.cellCount(j)];
            for (int k = 0; k < cc.length; k++) cc[k] = arrayCell(b, first + k);
            DeletionTime cd = DeletionTime.of(b.complexDeletionTimestamp(j), b.complexDeletionLocalTime(j));
            complex[b.columnPosition(j) - simpleSlots] = new ComplexColumn(cd, cc);
        }
        DeletionTime d = DeletionTime.of(b.deletionTimestamp(), b.deletionLocalTime());
        return new Row((flags & IS_STATIC) != 0, clustering, b.livenessTimestamp(), b.livenessTtl(),
                b.livenessExpirationTime(), d, cells, complex);
    }

    private static ArrayCell arrayCell(RowBuffer b, int k) {
        byte[] value = new byte[b.cellValueLength(k)];
        System.arraycopy(b.cellValueSource(k), b.cellValueOffset(k), value, 0, value.length);
        byte[] path = new byte[b.cellPathLength(k)];
        if (path.length > 0) System.arraycopy(b.cellPathSource(k), b.cellPathOffset(k), path, 0, path.length);
        return new ArrayCell(b.cellTimestamp(k), b.cellTtl(k), b.cellLocalDeletionTime(k), value, path);
    }
}

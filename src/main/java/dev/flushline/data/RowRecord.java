package dev.flushline.data;

import dev.flushline.io.NativeMemory;
import dev.flushline.io.VInt;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A memtable's own encoding of one row, the way the slab allocation modes store it: the row's
 * liveness, deletion and every cell in one contiguous record, instead of a Row, a cell array, a
 * cell object per value and a ByteBuffer per value. A row of five 16-byte text values takes about
 * 125 bytes here, against about 600 as objects, and the garbage collector sees no object at all
 * for it (the record sits inside a 1 MiB slab, on or off heap).
 *
 * <p>The clustering is in the record, right after the fixed header, so that a row costs the
 * garbage collector nothing: its skip-list node holds only the record's place, and a lookup
 * compares the probe with the values where they lie ({@link #clusteringView}). Keeping it as
 * {@code byte[][]} on the node cost two live heap objects per row, which the young collections
 * copied during every fill.
 *
 * <pre>
 * record  := length:i32 flags:u8 simpleSlots:u16 complexSlots:u16 simplePresent:u16 complexPresent:u16
 *            clusteringCount:u16 (valueLength:u16 value){clusteringCount}   (0 values for a static row)
 *            [livenessTs:i64]                                  if HAS_LIVENESS
 *            [livenessTtl:i32 livenessExp:i64]                 if LIVENESS_EXPIRING
 *            [deletionTs:i64 deletionLdt:i64]                  if HAS_DELETION
 *            [simpleValueBytes:i32 simpleValueLengthBytes:i32] if SIMPLE_SHARE_LIVENESS
 *            simple{simplePresent} complex{complexPresent}
 * simple  := [position:u16 unless ALL_SIMPLE_PRESENT] cell
 * complex := index:u16 xflags:u8 [deletionTs:i64 deletionLdt:i64 if COMPLEX_DELETED] cellCount:i32
 *            cell{cellCount}   (each with a path)
 * cell    := cflags:u8 [ts:i64 unless ROW_TIMESTAMP] [ttl:i32 if HAS_TTL] [ldt:i64 if HAS_LDT]
 *            [path length:(u8 if SHORT_PATH else i32) path bytes]   (complex cells only)
 *            value length:(u8 if SHORT_VALUE else i32) value bytes
 * </pre>
 * Multi-byte fields are little-endian. {@code length} counts the whole record, itself included.
 * The slot counts are the lengths of the Row's {@code cells()} and {@code complex()} arrays, so a
 * record turns back into an equal Row with nothing else to hand. A simple cell's position is its
 * index in {@code cells()}, a complex column's index its index in {@code complex()}. Positions are
 * u16: a record holds rows of tables with at most 65535 simple and 65535 complex columns. When every
 * simple slot holds a cell (ALL_SIMPLE_PRESENT: every column of a full INSERT), the simple cells'
 * positions are left out, since the n-th is at position n: the bench table's row is 128 bytes, not
 * 144, with the 8-byte alignment of slab records.
 *
 * <p>A cell's timestamp is left out when it equals the row's liveness timestamp (every cell of a
 * plain INSERT); ttl and local deletion time are written only when they are set. Paths and values
 * shorter than 256 bytes have a one-byte length. SIMPLE_SHARE_LIVENESS and its two sums are the
 * Row's size-pass summary ({@link Row#simpleCellsShareLiveness}), so a serializer sizes the simple
 * cells of a plain INSERT row without reading them.
 *
 * <p>Reading: an instance is a flyweight. {@link #wrap} reads the header; then a cursor walks the
 * columns ({@link #nextColumn}) and each column's cells ({@link #nextCell}) in order, exposing
 * primitives and the value's and path's place in {@link #source()}. Nothing is allocated.
 *
 * <p>Thread safety: the static methods are stateless. A flyweight belongs to one thread. A record is
 * written once, under its partition's monitor, before its node publishes it, and never changed.
 */
public final class RowRecord {
    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final boolean NATIVE_LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    // Header, chained from the start.
    static final int LENGTH_OFFSET = 0;
    static final int FLAGS_OFFSET = LENGTH_OFFSET + Integer.BYTES;
    static final int SIMPLE_SLOTS_OFFSET = FLAGS_OFFSET + 1;
    static final int COMPLEX_SLOTS_OFFSET = SIMPLE_SLOTS_OFFSET + Short.BYTES;
    static final int SIMPLE_PRESENT_OFFSET = COMPLEX_SLOTS_OFFSET + Short.BYTES;
    static final int COMPLEX_PRESENT_OFFSET = SIMPLE_PRESENT_OFFSET + Short.BYTES;
    static final int FIXED_HEADER_BYTES = COMPLEX_PRESENT_OFFSET + Short.BYTES;
    /** The clustering block starts here: its value count, then each value's u16 length and bytes. */
    static final int CLUSTERING_OFFSET = FIXED_HEADER_BYTES;
    /** Clustering values are at most this long (the sstable format's limit too): a u16 length holds it. */
    public static final int MAX_CLUSTERING_VALUE_BYTES = 0xFFFF;

    // Record flags.
    static final int IS_STATIC = 0x01;
    static final int HAS_LIVENESS = 0x02;
    static final int LIVENESS_EXPIRING = 0x04;
    static final int HAS_DELETION = 0x08;
    static final int HAS_COMPLEX_DELETION = 0x10;
    static final int SIMPLE_SHARE_LIVENESS = 0x20;
    static final int ALL_SIMPLE_PRESENT = 0x40;

    // Complex column flags.
    static final int COMPLEX_DELETED = 0x01;

    // Cell flags.
    static final int ROW_TIMESTAMP = 0x01;
    static final int HAS_TTL = 0x02;
    static final int HAS_LDT = 0x04;
    static final int SHORT_PATH = 0x08;
    static final int SHORT_VALUE = 0x10;

    public static final int MAX_SLOTS = 0xFFFF;
    private static final int SHORT_LENGTH_LIMIT = 0xFF;

    // ---- size ------------------------------------------------------------------------------------

    /**
     * Exact bytes of {@code row}'s record. REQUIRES: cells are ArrayCells (parsed or merged rows).
     * Throws IllegalArgumentException for a row with more than {@link #MAX_SLOTS} columns of a kind.
     */
    public static int size(Row row) {
        Cell[] cells = row.cells();
        ComplexColumn[] complex = row.complex();
        if (cells.length > MAX_SLOTS || complex.length > MAX_SLOTS) {
            throw new IllegalArgumentException("a memtable row record holds at most " + MAX_SLOTS + " simple and " + MAX_SLOTS
                    + " complex columns; this row has " + cells.length + " and " + complex.length);
        }
        long rowTs = row.livenessTimestamp();
        long size = FIXED_HEADER_BYTES + clusteringBlockSize(row.clustering());
        if (row.hasLiveness()) size += Long.BYTES;
        if (row.isLivenessExpiring()) size += Integer.BYTES + Long.BYTES;
        if (!row.deletion().isLive()) size += 2 * Long.BYTES;
        if (row.simpleCellsShareLiveness()) size += 2 * Integer.BYTES;
        int simplePresent = 0;
        for (int i = 0; i < cells.length; i++) {
            if (cells[i] == null) continue;
            simplePresent++;
            size += cellSize(cells[i], rowTs, false);
        }
        if (simplePresent != cells.length) size += (long) Short.BYTES * simplePresent; // positions
        for (int i = 0; i < complex.length; i++) {
            ComplexColumn cx = complex[i];
            if (cx == null) continue;
            size += Short.BYTES + 1 + Integer.BYTES;
            if (!cx.complexDeletion().isLive()) size += 2 * Long.BYTES;
            Cell[] cc = cx.cells();
            for (int j = 0; j < cc.length; j++) size += cellSize(cc[j], rowTs, true);
        }
        if (size > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("row of " + size + " bytes is larger than a memtable record can be");
        }
        return (int) size;
    }

    private static int cellSize(Cell c, long rowTs, boolean withPath) {
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

    /** Bytes of the clustering block for these values (none for a static row's empty clustering). */
    private static int clusteringBlockSize(byte[][] clustering) {
        int size = Short.BYTES;
        for (int i = 0; i < clustering.length; i++) size += Short.BYTES + checkedClusteringLength(clustering[i].length);
        return size;
    }

    private static int checkedClusteringLength(int length) {
        if (length > MAX_CLUSTERING_VALUE_BYTES) {
            throw new IllegalArgumentException("clustering value of " + length + " bytes exceeds " + MAX_CLUSTERING_VALUE_BYTES);
        }
        return length;
    }

    // ---- write -----------------------------------------------------------------------------------

    /**
     * Writes {@code row}'s record at {@code dst[offset..]}. REQUIRES: {@code size} came from
     * {@link #size} for this row and that much room is there. Throws IllegalStateException if the
     * written bytes differ from {@code size}.
     */
    public static void write(Row row, int size, byte[] dst, int offset) {
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
        if (row.hasComplexDeletion()) flags |= HAS_COMPLEX_DELETION;
        if (row.simpleCellsShareLiveness()) flags |= SIMPLE_SHARE_LIVENESS;
        final boolean allSimple = simplePresent == cells.length;
        if (allSimple) flags |= ALL_SIMPLE_PRESENT;

        INT.set(dst, offset + LENGTH_OFFSET, size);
        dst[offset + FLAGS_OFFSET] = (byte) flags;
        SHORT.set(dst, offset + SIMPLE_SLOTS_OFFSET, (short) cells.length);
        SHORT.set(dst, offset + COMPLEX_SLOTS_OFFSET, (short) complex.length);
        SHORT.set(dst, offset + SIMPLE_PRESENT_OFFSET, (short) simplePresent);
        SHORT.set(dst, offset + COMPLEX_PRESENT_OFFSET, (short) complexPresent);
        byte[][] clustering = row.clustering();
        int p = offset + CLUSTERING_OFFSET;
        SHORT.set(dst, p, (short) clustering.length); p += Short.BYTES;
        for (int i = 0; i < clustering.length; i++) {
            byte[] v = clustering[i];
            SHORT.set(dst, p, (short) v.length); p += Short.BYTES;
            System.arraycopy(v, 0, dst, p, v.length); p += v.length;
        }
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
        if ((flags & SIMPLE_SHARE_LIVENESS) != 0) {
            INT.set(dst, p, row.simpleValueBytes()); p += Integer.BYTES;
            INT.set(dst, p, row.simpleValueLengthBytes()); p += Integer.BYTES;
        }
        for (int i = 0; i < cells.length; i++) {
            if (cells[i] == null) continue;
            if (!allSimple) { SHORT.set(dst, p, (short) i); p += Short.BYTES; }
            p = writeCell(dst, p, cells[i], rowTs, false);
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
            for (int j = 0; j < cc.length; j++) p = writeCell(dst, p, cc[j], rowTs, true);
        }
        if (p - offset != size) {
            throw new IllegalStateException("memtable row record: sized " + size + " bytes, wrote " + (p - offset));
        }
    }

    private static int writeCell(byte[] dst, int p, Cell c, long rowTs, boolean withPath) {
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

    // ---- size and write of a decoded insert --------------------------------------------------------

    /**
     * Exact bytes of the record of {@code b}'s regular row: the record {@link #write(Row, int, byte[], int)}
     * writes for {@code b.row(...)}, sized from the buffer without building the row. Every cell of an
     * insert has the row's timestamp; a given value has the row's TTL and expiry, a null is a tombstone
     * at the insert's now.
     */
    public static int size(InsertBuffer b) {
        if (b.regularSimpleCount > MAX_SLOTS || b.regularComplexCount > MAX_SLOTS) {
            throw new IllegalArgumentException("a memtable row record holds at most " + MAX_SLOTS + " simple and " + MAX_SLOTS
                    + " complex columns; this row has " + b.regularSimpleCount + " and " + b.regularComplexCount);
        }
        final boolean expiring = b.ttl != Cell.NO_TTL;
        final int[] length = b.length;
        long size = FIXED_HEADER_BYTES + Short.BYTES + Long.BYTES;
        for (int i = 0; i < b.clusteringCount; i++) size += Short.BYTES + checkedClusteringLength(b.clusteringLength(i));
        if (expiring) size += Integer.BYTES + Long.BYTES;
        if (insertSharesLiveness(b)) size += 2 * Integer.BYTES;
        if (b.regularPresent != b.regularSimpleCount) size += (long) Short.BYTES * b.regularPresent; // positions
        for (int i = 0, s = b.regularBase; i < b.regularSimpleCount; i++, s++) {
            int n = length[s];
            if (n == InsertBuffer.ABSENT) continue;
            size += 1;
            if (n == InsertBuffer.NULL) {
                size += Long.BYTES + 1; // ldt, and the empty value's length
            } else {
                if (expiring) size += Integer.BYTES + Long.BYTES;
                size += lengthSize(n) + n;
            }
        }
        if (size > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("row of " + size + " bytes is larger than a memtable record can be");
        }
        return (int) size;
    }

    /** Row#simpleCellsShareLiveness of the insert's row: no tombstone, and the sums fit an int. */
    private static boolean insertSharesLiveness(InsertBuffer b) {
        long valueBytes = 0, valueLengthBytes = 0;
        final int[] length = b.length;
        for (int i = 0, s = b.regularBase; i < b.regularSimpleCount; i++, s++) {
            int n = length[s];
            if (n == InsertBuffer.ABSENT) continue;
            if (n == InsertBuffer.NULL) return false;
            valueBytes += n;
            if (n > 0) valueLengthBytes += VInt.sizeOfUnsigned(n);
        }
        return valueBytes + valueLengthBytes <= Integer.MAX_VALUE;
    }

    /**
     * Writes the record of {@code b}'s regular row at {@code dst[offset..]}: the same bytes as
     * {@link #write(Row, int, byte[], int)} of {@code b.row(...)}. REQUIRES: {@code size} came from
     * {@link #size(InsertBuffer)} and that much room is there. Throws IllegalStateException if the
     * written bytes differ from {@code size}.
     */
    public static void write(InsertBuffer b, int size, byte[] dst, int offset) {
        final boolean expiring = b.ttl != Cell.NO_TTL;
        final int[] length = b.length, valueOffset = b.offset;
        final byte[] src = b.bytes;
        // One pass for insertSharesLiveness's answer and the sums the shared liveness stores.
        long valueBytes = 0, valueLengthBytes = 0;
        boolean tombstone = false;
        for (int i = 0, s = b.regularBase; i < b.regularSimpleCount; i++, s++) {
            int n = length[s];
            if (n == InsertBuffer.NULL) tombstone = true;
            if (n <= 0) continue;
            valueBytes += n;
            valueLengthBytes += VInt.sizeOfUnsigned(n);
        }
        final boolean share = !tombstone && valueBytes + valueLengthBytes <= Integer.MAX_VALUE;
        int flags = HAS_LIVENESS;
        if (expiring) flags |= LIVENESS_EXPIRING;
        if (share) flags |= SIMPLE_SHARE_LIVENESS;
        final boolean allSimple = b.regularPresent == b.regularSimpleCount;
        if (allSimple) flags |= ALL_SIMPLE_PRESENT;
        INT.set(dst, offset + LENGTH_OFFSET, size);
        dst[offset + FLAGS_OFFSET] = (byte) flags;
        SHORT.set(dst, offset + SIMPLE_SLOTS_OFFSET, (short) b.regularSimpleCount);
        SHORT.set(dst, offset + COMPLEX_SLOTS_OFFSET, (short) b.regularComplexCount);
        SHORT.set(dst, offset + SIMPLE_PRESENT_OFFSET, (short) b.regularPresent);
        SHORT.set(dst, offset + COMPLEX_PRESENT_OFFSET, (short) 0);
        int p = offset + CLUSTERING_OFFSET;
        SHORT.set(dst, p, (short) b.clusteringCount); p += Short.BYTES;
        for (int i = 0, s = b.partitionKeyCount; i < b.clusteringCount; i++, s++) {
            int n = length[s];
            SHORT.set(dst, p, (short) n); p += Short.BYTES;
            System.arraycopy(src, valueOffset[s], dst, p, n); p += n;
        }
        LONG.set(dst, p, b.timestamp); p += Long.BYTES;
        if (expiring) {
            INT.set(dst, p, b.ttl); p += Integer.BYTES;
            LONG.set(dst, p, b.expiration); p += Long.BYTES;
        }
        if (share) {
            INT.set(dst, p, (int) valueBytes); p += Integer.BYTES;
            INT.set(dst, p, (int) valueLengthBytes); p += Integer.BYTES;
        }
        for (int i = 0, s = b.regularBase; i < b.regularSimpleCount; i++, s++) {
            int n = length[s];
            if (n == InsertBuffer.ABSENT) continue;
            if (!allSimple) { SHORT.set(dst, p, (short) i); p += Short.BYTES; }
            if (n == InsertBuffer.NULL) {
                dst[p++] = (byte) (ROW_TIMESTAMP | HAS_LDT | SHORT_VALUE);
                LONG.set(dst, p, b.nowSeconds); p += Long.BYTES;
                dst[p++] = 0;
                continue;
            }
            int cflags = ROW_TIMESTAMP;
            if (expiring) cflags |= HAS_TTL | HAS_LDT;
            if (n <= SHORT_LENGTH_LIMIT) cflags |= SHORT_VALUE;
            dst[p++] = (byte) cflags;
            if (expiring) {
                INT.set(dst, p, b.ttl); p += Integer.BYTES;
                LONG.set(dst, p, b.expiration); p += Long.BYTES;
            }
            if (n <= SHORT_LENGTH_LIMIT) {
                dst[p++] = (byte) n;
            } else {
                INT.set(dst, p, n);
                p += Integer.BYTES;
            }
            System.arraycopy(src, valueOffset[s], dst, p, n);
            p += n;
        }
        if (p - offset != size) {
            throw new IllegalStateException("memtable row record of an insert: sized " + size + " bytes, wrote " + (p - offset));
        }
    }

    /** The length field of a record in a heap array. */
    public static int length(byte[] src, int offset) {
        return (int) INT.get(src, offset + LENGTH_OFFSET);
    }

    /** The length field of a record in native memory: how many bytes to copy to have all of it. */
    public static int nativeLength(long address) {
        int v = NativeMemory.getInt(address + LENGTH_OFFSET); // native order; the record is little-endian
        return NATIVE_LITTLE_ENDIAN ? v : Integer.reverseBytes(v);
    }

    /**
     * Points {@code into} at the clustering of the record at {@code src[offset..]} (kind
     * CLUSTERING, each value a range of {@code src}); returns the offset just past the clustering
     * block. Allocates nothing once {@code into} holds as many values.
     */
    public static int clusteringView(byte[] src, int offset, ClusteringBuffer into) {
        int p = offset + CLUSTERING_OFFSET;
        int n = (short) SHORT.get(src, p) & 0xFFFF;
        p += Short.BYTES;
        into.reset(ClusteringBound.CLUSTERING, n);
        for (int i = 0; i < n; i++) {
            int length = (short) SHORT.get(src, p) & 0xFFFF;
            p += Short.BYTES;
            into.set(i, src, p, length);
            p += length;
        }
        return p;
    }

    /**
     * Bytes from the start of a record in native memory through its clustering block: what a
     * lookup copies to a heap array to compare the clustering there.
     */
    public static int nativeClusteringEnd(long address) {
        int p = CLUSTERING_OFFSET;
        int n = nativeU16(address + p);
        p += Short.BYTES;
        for (int i = 0; i < n; i++) p += Short.BYTES + nativeU16(address + p);
        return p;
    }

    private static int nativeU16(long address) {
        return (NativeMemory.getByte(address) & 0xFF) | (NativeMemory.getByte(address + 1) & 0xFF) << 8;
    }

    // ---- flyweight -------------------------------------------------------------------------------

    private byte[] src;
    private int offset;
    private final ClusteringBuffer clustering = new ClusteringBuffer(1);
    private long generation;

    private int flags;
    private int simpleSlots, complexSlots, simplePresent, complexPresent;
    private long livenessTimestamp, livenessExpiration, deletionTimestamp, deletionLdt;
    private int livenessTtl;
    private int simpleValueBytes, simpleValueLengthBytes;
    private int columnsStart;

    // Cursor: the column read by nextColumn() and the cell read by nextCell().
    private int position;
    private int columnsRead;
    private int cellsLeft;
    private int columnPosition, columnCellCount;
    private boolean columnComplex;
    private long complexDeletionTimestamp, complexDeletionLdt;
    private long cellTimestamp, cellLdt;
    private int cellTtl, cellPathOffset, cellPathLength, cellValueOffset, cellValueLength;

    /** Points this flyweight at the record at {@code src[offset..]}; rewinds the cursor. */
    public RowRecord wrap(byte[] src, int offset) {
        this.src = src;
        this.offset = offset;
        generation++;
        int f = src[offset + FLAGS_OFFSET];
        flags = f;
        simpleSlots = (short) SHORT.get(src, offset + SIMPLE_SLOTS_OFFSET) & 0xFFFF;
        complexSlots = (short) SHORT.get(src, offset + COMPLEX_SLOTS_OFFSET) & 0xFFFF;
        simplePresent = (short) SHORT.get(src, offset + SIMPLE_PRESENT_OFFSET) & 0xFFFF;
        complexPresent = (short) SHORT.get(src, offset + COMPLEX_PRESENT_OFFSET) & 0xFFFF;
        int p = clusteringView(src, offset, clustering);
        livenessTimestamp = Cell.NO_TIMESTAMP;
        livenessTtl = Cell.NO_TTL;
        livenessExpiration = Cell.NO_DELETION_TIME;
        if ((f & HAS_LIVENESS) != 0) {
            livenessTimestamp = (long) LONG.get(src, p); p += Long.BYTES;
            if ((f & LIVENESS_EXPIRING) != 0) {
                livenessTtl = (int) INT.get(src, p); p += Integer.BYTES;
                livenessExpiration = (long) LONG.get(src, p); p += Long.BYTES;
            }
        }
        deletionTimestamp = Long.MIN_VALUE;
        deletionLdt = Long.MAX_VALUE;
        if ((f & HAS_DELETION) != 0) {
            deletionTimestamp = (long) LONG.get(src, p);
            deletionLdt = (long) LONG.get(src, p + Long.BYTES);
            p += 2 * Long.BYTES;
        }
        simpleValueBytes = 0;
        simpleValueLengthBytes = 0;
        if ((f & SIMPLE_SHARE_LIVENESS) != 0) {
            simpleValueBytes = (int) INT.get(src, p);
            simpleValueLengthBytes = (int) INT.get(src, p + Integer.BYTES);
            p += 2 * Integer.BYTES;
        }
        columnsStart = p;
        rewind();
        return this;
    }

    /** Bumped by every {@link #wrap}: lets a serializer tell a row it sized from the next one. */
    public long generation() { return generation; }

    /** The array the record, its values and paths are in. */
    public byte[] source() { return src; }

    /** The row's clustering: ranges of {@link #source()}, valid until the next {@link #wrap}. */
    public ClusteringBuffer clustering() { return clustering; }

    public boolean isStatic() { return (flags & IS_STATIC) != 0; }

    public boolean hasLiveness() { return (flags & HAS_LIVENESS) != 0; }

    public long livenessTimestamp() { return livenessTimestamp; }

    public boolean isLivenessExpiring() { return (flags & LIVENESS_EXPIRING) != 0; }

    public int livenessTtl() { return livenessTtl; }

    public long livenessExpirationTime() { return livenessExpiration; }

    public boolean isDeleted() { return (flags & HAS_DELETION) != 0; }

    /** Long.MIN_VALUE when not deleted. */
    public long deletionTimestamp() { return deletionTimestamp; }

    /** Long.MAX_VALUE when not deleted. */
    public long deletionLocalTime() { return deletionLdt; }

    public boolean hasComplexDeletion() { return (flags & HAS_COMPLEX_DELETION) != 0; }

    /** Simple cells present plus complex columns present. */
    public int columnCount() { return simplePresent + complexPresent; }

    /** Length of the row's cells() array: the table's simple columns of its kind. */
    public int simpleSlots() { return simpleSlots; }

    /** Whether every simple cell shares the row's liveness ({@link Row#simpleCellsShareLiveness}). */
    public boolean simpleCellsShareLiveness() { return (flags & SIMPLE_SHARE_LIVENESS) != 0; }

    public int simpleCellCount() { return simplePresent; }

    /** Valid when {@link #simpleCellsShareLiveness}: {@link Row#simpleValueBytes}. */
    public int simpleValueBytes() { return simpleValueBytes; }

    /** Valid when {@link #simpleCellsShareLiveness}: {@link Row#simpleValueLengthBytes}. */
    public int simpleValueLengthBytes() { return simpleValueLengthBytes; }

    public boolean isEmpty() {
        return !hasLiveness() && !isDeleted() && columnCount() == 0;
    }

    /** Puts the cursor before the first column. */
    public void rewind() {
        position = columnsStart;
        columnsRead = 0;
        cellsLeft = 0;
    }

    /**
     * Moves to the next column (skipping what is left of the current one's cells). Returns false
     * after the last. Simple columns come first, then complex ones, each in table position order.
     */
    public boolean nextColumn() {
        while (cellsLeft > 0) nextCell();
        if (columnsRead == simplePresent + complexPresent) return false;
        int p = position;
        final byte[] s = src;
        if (columnsRead < simplePresent) {
            int index = columnsRead;
            if ((flags & ALL_SIMPLE_PRESENT) == 0) {
                index = (short) SHORT.get(s, p) & 0xFFFF;
                p += Short.BYTES;
            }
            columnComplex = false;
            columnPosition = index;
            columnCellCount = 1;
            complexDeletionTimestamp = Long.MIN_VALUE;
            complexDeletionLdt = Long.MAX_VALUE;
        } else {
            int index = (short) SHORT.get(s, p) & 0xFFFF;
            p += Short.BYTES;
            columnComplex = true;
            columnPosition = simpleSlots + index; // table position: after the simple columns
            int xflags = s[p++];
            complexDeletionTimestamp = Long.MIN_VALUE;
            complexDeletionLdt = Long.MAX_VALUE;
            if ((xflags & COMPLEX_DELETED) != 0) {
                complexDeletionTimestamp = (long) LONG.get(s, p);
                complexDeletionLdt = (long) LONG.get(s, p + Long.BYTES);
                p += 2 * Long.BYTES;
            }
            columnCellCount = (int) INT.get(s, p);
            p += Integer.BYTES;
        }
        cellsLeft = columnCellCount;
        position = p;
        columnsRead++;
        return true;
    }

    /**
     * Moves to the next simple column and reads its cell, in a row whose simple cells are all plain:
     * the row {@linkplain #simpleCellsShareLiveness shares its liveness} with them and that liveness
     * does not expire, so each cell is a flags byte, a value length and the value, with no timestamp,
     * TTL or deletion time of its own (every cell of a plain INSERT). Sets {@link #columnPosition},
     * {@link #cellValueOffset} and {@link #cellValueLength} and returns the value's length; the other
     * cell fields keep whatever they held. The serializer's loop for such rows, without the general cursor's bookkeeping.
     * REQUIRES: such a row, and a simple column left; a cell that is not plain (a broken record)
     * throws IllegalStateException.
     */
    public int nextPlainSimpleCell() {
        final byte[] s = src;
        int p = position;
        int index = columnsRead;
        if ((flags & ALL_SIMPLE_PRESENT) == 0) {
            index = (short) SHORT.get(s, p) & 0xFFFF;
            p += Short.BYTES;
        }
        int f = s[p++];
        int length;
        if (f == (ROW_TIMESTAMP | SHORT_VALUE)) {
            length = s[p++] & 0xFF;
        } else if (f == ROW_TIMESTAMP) {
            length = (int) INT.get(s, p);
            p += Integer.BYTES;
        } else {
            throw new IllegalStateException("record cell at offset " + (p - 1 - offset) + " has flags 0x" + Integer.toHexString(f & 0xFF)
                    + ", not a plain cell's, in a row whose cells share its liveness");
        }
        columnPosition = index;
        cellValueOffset = p;
        cellValueLength = length;
        position = p + length;
        columnsRead++;
        return length;
    }

    /** Table position (among the static or regular columns) of the current column. */
    public int columnPosition() { return columnPosition; }

    public boolean isComplex() { return columnComplex; }

    /** Long.MIN_VALUE when the complex column is not deleted. */
    public long complexDeletionTimestamp() { return complexDeletionTimestamp; }

    /** Long.MAX_VALUE when the complex column is not deleted. */
    public long complexDeletionLocalTime() { return complexDeletionLdt; }

    /** Cells of the current column: 1 for a simple one. */
    public int columnCellCount() { return columnCellCount; }

    /** Reads the current column's next cell. REQUIRES: it has one left. */
    public void nextCell() {
        final byte[] s = src;
        int p = position;
        int f = s[p++];
        long ts = livenessTimestamp;
        if ((f & ROW_TIMESTAMP) == 0) { ts = (long) LONG.get(s, p); p += Long.BYTES; }
        int ttl = Cell.NO_TTL;
        if ((f & HAS_TTL) != 0) { ttl = (int) INT.get(s, p); p += Integer.BYTES; }
        long ldt = Cell.NO_DELETION_TIME;
        if ((f & HAS_LDT) != 0) { ldt = (long) LONG.get(s, p); p += Long.BYTES; }
        int pathLength = 0;
        if (columnComplex) {
            if ((f & SHORT_PATH) != 0) {
                pathLength = s[p++] & 0xFF;
            } else {
                pathLength = (int) INT.get(s, p);
                p += Integer.BYTES;
            }
        }
        cellPathOffset = p;
        p += pathLength;
        int valueLength;
        if ((f & SHORT_VALUE) != 0) {
            valueLength = s[p++] & 0xFF;
        } else {
            valueLength = (int) INT.get(s, p);
            p += Integer.BYTES;
        }
        cellTimestamp = ts;
        cellTtl = ttl;
        cellLdt = ldt;
        cellPathLength = pathLength;
        cellValueOffset = p;
        cellValueLength = valueLength;
        position = p + valueLength;
        cellsLeft--;
    }

    public long cellTimestamp() { return cellTimestamp; }

    public int cellTtl() { return cellTtl; }

    public long cellLocalDeletionTime() { return cellLdt; }

    /** Offset of the path in {@link #source()}; 0 bytes long for a simple column's cell. */
    public int cellPathOffset() { return cellPathOffset; }

    public int cellPathLength() { return cellPathLength; }

    /** Offset of the value in {@link #source()}. */
    public int cellValueOffset() { return cellValueOffset; }

    public int cellValueLength() { return cellValueLength; }

    // ---- back to a Row ---------------------------------------------------------------------------

    /**
     * The record at {@code src[offset..]} as a Row of ArrayCells (copies): the write path's merges
     * and tests use this, never the flush. Allocates.
     */
    public static Row materialize(byte[] src, int offset) {
        RowRecord r = new RowRecord().wrap(src, offset);
        byte[][] clustering = r.clustering.toArrays();
        int simple = r.simpleSlots;
        Cell[] cells = new Cell[simple];
        ComplexColumn[] complex = r.complexSlots == 0 ? Row.NO_COMPLEX : new ComplexColumn[r.complexSlots];
        while (r.nextColumn()) {
            if (!r.isComplex()) {
                r.nextCell();
                cells[r.columnPosition()] = r.arrayCell();
                continue;
            }
            Cell[] cc = new Cell[r.columnCellCount()];
            for (int k = 0; k < cc.length; k++) {
                r.nextCell();
                cc[k] = r.arrayCell();
            }
            complex[r.columnPosition() - simple] = new ComplexColumn(
                    DeletionTime.of(r.complexDeletionTimestamp(), r.complexDeletionLocalTime()), cc);
        }
        return new Row(r.isStatic(), clustering, r.livenessTimestamp(), r.livenessTtl(), r.livenessExpirationTime(),
                DeletionTime.of(r.deletionTimestamp(), r.deletionLocalTime()), cells, complex);
    }

    private Cell arrayCell() {
        byte[] value = new byte[cellValueLength];
        System.arraycopy(src, cellValueOffset, value, 0, value.length);
        byte[] path = new byte[cellPathLength];
        System.arraycopy(src, cellPathOffset, path, 0, path.length);
        return new Cell(cellTimestamp, cellTtl, cellLdt, value, path);
    }
}

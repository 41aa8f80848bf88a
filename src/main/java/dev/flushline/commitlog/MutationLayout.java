package dev.flushline.commitlog;

import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.Hex;
import dev.flushline.data.Mutation;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.RangeTombstone;
import dev.flushline.data.Row;
import dev.flushline.io.FixedBuffer;
import dev.flushline.io.SerializationSizeMismatchException;
import dev.flushline.io.VInt;
import dev.flushline.schema.TableSchema;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The bytes of one mutation in the commit log: our own format, not Cassandra's. It carries
 * everything a {@link PartitionUpdate} holds so that replay rebuilds the same update.
 *
 * <pre>
 * Mutation (vint = Cassandra unsigned vint, svint = zig-zag vint, fixed widths big-endian)
 *  0               1               2
 * +---------------+---------------+-------------------------------+
 * |  version u8   |   flags u8    |  table id: UUID msb, lsb      |
 * +---------------+---------------+  (16 bytes)                   |
 * |                                                               |
 * +---------------------------------------------------------------+
 * | key length vint | key bytes ...                               |
 * | partition deletion: DeletionTime                              |
 * | range tombstone count vint | { start Bound, end Bound,        |
 * |                               DeletionTime } ...              |
 * | static row: Row          (only if flags has HAS_STATIC_ROW)   |
 * | row count vint | Row ...                                      |
 * +---------------------------------------------------------------+
 *
 * DeletionTime: u8 0 = LIVE | u8 1, svint ts delta, vint ldt (64-bit, any value)
 * Bound:        u8 kind, vint value count, Value ...
 * Value:        vint (length + 1), bytes; 1 = empty (0 would be null: refused, clustering values are never null)
 * Row:          u8 row flags (HAS_LIVENESS, LIVENESS_EXPIRING)
 *               [clustering: vint count, Value ...]          (not for the static row)
 *               [liveness: svint ts delta [vint ttl, vint expiration]]
 *               DeletionTime
 *               vint simple slots, vint present, { vint gap, Cell } ...
 *               vint complex slots, vint present, { vint gap, DeletionTime, vint cells, Cell+path ... } ...
 * Cell:         u8 cell flags (EXPIRING, HAS_LDT, HAS_VALUE), svint ts delta,
 *               [vint ttl (as unsigned 32 bits)], [vint ldt (64-bit)], [vint length, value bytes],
 *               complex cells only: vint path length, path bytes
 * </pre>
 *
 * <p>Why these choices: every timestamp is a zig-zag delta from the previous timestamp written in
 * this mutation (starting from 0), so the usual mutation, whose timestamps are all equal, spends one
 * byte on each after the first. Local deletion times are written whole as 64-bit vints with no
 * base and no int truncation: capped 0xFFFFFFFD, invalid 0xFFFFFFFE and NO_DELETION_TIME all
 * round-trip, and the size function cannot disagree with the writer the way Cassandra's
 * int-truncated deltas can (its size function counts the full long delta, its writer the
 * sign-extended int, so they differ once a delta passes 2^31 - 1). A "gap" is the distance to
 * the previous present column minus one, so dense rows cost one byte per column.
 *
 * <p>{@link #serializedSize} and {@link #serialize} walk the structure in the same order with the
 * same timestamp chain; {@link #serialize} writes straight into a byte[] of exactly that size and
 * checks the count: no growing buffer, which would allocate and copy about twice the final size
 * through its doublings and once more at the end. {@link #bytes(Mutation)} caches the result on
 * the mutation.
 *
 * <p>Thread safety: an instance carries the timestamp chain of one pass and belongs to one thread;
 * the static entry points create their own.
 */
public final class MutationLayout {
    public static final int VERSION = 1;

    // ---- fixed header, offsets chained from the start --------------------------------------
    public static final int VERSION_OFFSET = 0;
    public static final int VERSION_BYTES = 1;
    public static final int FLAGS_OFFSET = VERSION_OFFSET + VERSION_BYTES;
    public static final int FLAGS_BYTES = 1;
    public static final int TABLE_ID_OFFSET = FLAGS_OFFSET + FLAGS_BYTES;
    public static final int TABLE_ID_BYTES = 16;
    /** The variable part (key onwards) starts here. */
    public static final int HEADER_BYTES = TABLE_ID_OFFSET + TABLE_ID_BYTES;

    // ---- flag bits ----------------------------------------------------------------------------
    static final int HAS_STATIC_ROW = 0x01;

    static final int ROW_HAS_LIVENESS = 0x01;
    static final int ROW_LIVENESS_EXPIRING = 0x02;

    static final int CELL_EXPIRING = 0x01;
    static final int CELL_HAS_LDT = 0x02;
    static final int CELL_HAS_VALUE = 0x04;

    static final int DELETION_LIVE = 0;
    static final int DELETION_SET = 1;

    /** Value length prefix: length + 1, so that 0 can mean null. */
    static final int NULL_VALUE = 0;

    /**
     * Longest partition key or clustering value (CQL's u16 limit). Appends never carry longer ones
     * (the memtable refuses them first), so on replay a longer one is bytes that do not parse.
     */
    static final int MAX_KEY_VALUE_BYTES = 0xFFFF;

    private static final int BYTE = 1;
    private static final long UNSIGNED_INT_MASK = 0xFFFF_FFFFL;

    private long previousTimestamp;

    private MutationLayout() {}

    /**
     * The serialized bytes of {@code m}: the cached ones if a previous call made them, otherwise
     * computed, checked and cached. REQUIRES: {@code m}'s update is not modified afterwards.
     */
    public static byte[] bytes(Mutation m) {
        byte[] b = m.cachedSerialization();
        if (b == null) {
            b = serialize(m);
            m.cacheSerialization(b);
        }
        return b;
    }

    /** Exact number of bytes {@link #serialize} writes for {@code m}. */
    public static int serializedSize(Mutation m) {
        long size = new MutationLayout().sizeOfMutation(m.update());
        if (size > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("mutation of " + m.table() + " key " + Hex.of(m.key().key())
                    + " needs " + size + " bytes, more than a byte[] holds");
        }
        return (int) size;
    }

    /**
     * Serializes into a new array of exactly {@link #serializedSize} bytes; no intermediate buffer.
     * Throws {@link SerializationSizeMismatchException} naming the table, the key and both numbers
     * if the writer and the size function disagree (a bug, never an input problem).
     */
    public static byte[] serialize(Mutation m) {
        // One instance for both passes: the size pass leaves previousTimestamp behind, so reset it.
        MutationLayout layout = new MutationLayout();
        long computed = layout.sizeOfMutation(m.update());
        if (computed > Integer.MAX_VALUE) return serializeTooLarge(m);
        int size = (int) computed;
        layout.previousTimestamp = 0;
        byte[] out = new byte[size];
        // Exactly sized: no per-put capacity checks; an overrun still throws (caught below) and
        // the final written == size check catches an underrun.
        FixedBuffer buf = FixedBuffer.exactlySized(out);
        try {
            layout.writeMutation(m.table(), m.update(), buf);
        } catch (IndexOutOfBoundsException overflow) {
            // The writer wanted more than the computed size: report it as the mismatch it is.
            SerializationSizeMismatchException e = mismatch(m, size, (long) size + 1);
            e.initCause(overflow);
            throw e;
        }
        if (buf.position() != size) {
            throw mismatch(m, size, buf.position());
        }
        return out;
    }

    /** Cold path: {@link #serializedSize} throws the error that names the mutation and its size. */
    private static byte[] serializeTooLarge(Mutation m) {
        serializedSize(m);
        throw new AssertionError("unreachable: the size check above throws");
    }

    /**
     * Writes {@code m} at {@code out}'s position and returns the bytes written (for benchmarks that
     * compare exact-size arrays with other buffer strategies). REQUIRES: room for
     * {@link #serializedSize} bytes.
     */
    public static int writeInto(Mutation m, FixedBuffer out) {
        int start = out.position();
        new MutationLayout().writeMutation(m.table(), m.update(), out);
        return out.position() - start;
    }

    private static SerializationSizeMismatchException mismatch(Mutation m, long expected, long actual) {
        return new SerializationSizeMismatchException("Mutation of " + m.table().keyspace() + "." + m.table().name()
                + " key " + Hex.of(m.key().key()) + (actual > expected ? " (at least)" : ""), expected, actual);
    }

    // ---- size pass -----------------------------------------------------------------------------

    private long sizeOfMutation(PartitionUpdate u) {
        long size = HEADER_BYTES + sizeOfBytes(u.key().key()) + sizeOfDeletion(u.partitionDeletion());
        List<RangeTombstone> rts = u.rangeTombstones();
        size += VInt.sizeOfUnsigned(rts.size());
        for (int i = 0; i < rts.size(); i++) {
            RangeTombstone rt = rts.get(i);
            size += sizeOfBound(rt.start()) + sizeOfBound(rt.end()) + sizeOfDeletion(rt.deletion());
        }
        if (u.staticRow() != null) size += sizeOfRow(u.staticRow());
        List<Row> rows = u.rows();
        size += VInt.sizeOfUnsigned(rows.size());
        for (int i = 0; i < rows.size(); i++) size += sizeOfRow(rows.get(i));
        return size;
    }

    private int sizeOfTimestamp(long ts) {
        long delta = ts - previousTimestamp; // wraps mod 2^64 on purpose; the reader adds it back the same way
        previousTimestamp = ts;
        return VInt.sizeOfSigned(delta);
    }

    private int sizeOfDeletion(DeletionTime d) {
        if (d.isLive()) return BYTE;
        return BYTE + sizeOfTimestamp(d.markedForDeleteAt()) + VInt.sizeOfUnsigned(d.localDeletionTime());
    }

    private static int sizeOfBytes(byte[] b) {
        return VInt.sizeOfUnsigned(b.length) + b.length;
    }

    private static int sizeOfValue(byte[] v) {
        return v == null ? VInt.sizeOfUnsigned(NULL_VALUE) : VInt.sizeOfUnsigned(v.length + 1L) + v.length;
    }

    private static long sizeOfValues(byte[][] values) {
        long size = VInt.sizeOfUnsigned(values.length);
        for (int i = 0; i < values.length; i++) size += sizeOfValue(values[i]);
        return size;
    }

    private static long sizeOfBound(ClusteringBound b) {
        return BYTE + sizeOfValues(b.values());
    }

    private long sizeOfRow(Row r) {
        long size = BYTE;
        if (!r.isStatic()) size += sizeOfValues(r.clustering());
        if (r.hasLiveness()) {
            size += sizeOfTimestamp(r.livenessTimestamp());
            if (r.isLivenessExpiring()) {
                size += VInt.sizeOfUnsigned(r.livenessTtl() & UNSIGNED_INT_MASK)
                        + VInt.sizeOfUnsigned(r.livenessExpirationTime());
            }
        }
        size += sizeOfDeletion(r.deletion());
        // One walk per column kind: the present count is only known after it, and its vint is
        // at most 5 bytes, so it is sized at the end.
        Cell[] cells = r.cells();
        size += VInt.sizeOfUnsigned(cells.length);
        int present = 0;
        int previous = -1;
        for (int i = 0; i < cells.length; i++) {
            if (cells[i] == null) continue;
            size += VInt.sizeOfUnsigned(i - previous - 1) + sizeOfCell(cells[i], false);
            previous = i;
            present++;
        }
        size += VInt.sizeOfUnsigned(present);
        ComplexColumn[] complex = r.complex();
        size += VInt.sizeOfUnsigned(complex.length);
        present = 0;
        previous = -1;
        for (int i = 0; i < complex.length; i++) {
            ComplexColumn c = complex[i];
            if (c == null) continue;
            size += VInt.sizeOfUnsigned(i - previous - 1) + sizeOfDeletion(c.complexDeletion());
            Cell[] elements = c.cells();
            size += VInt.sizeOfUnsigned(elements.length);
            for (int k = 0; k < elements.length; k++) size += sizeOfCell(elements[k], true);
            previous = i;
            present++;
        }
        size += VInt.sizeOfUnsigned(present);
        return size;
    }

    private long sizeOfCell(Cell c, boolean withPath) {
        final long ts = c.timestamp(), ldt = c.localDeletionTime();
        final int ttl = c.ttl(), valueLength = c.valueLength(), pathLength = c.pathLength();
        long size = BYTE + sizeOfTimestamp(ts);
        if (ttl != Cell.NO_TTL) size += VInt.sizeOfUnsigned(ttl & UNSIGNED_INT_MASK);
        if (ldt != Cell.NO_DELETION_TIME) size += VInt.sizeOfUnsigned(ldt);
        if (valueLength > 0) size += VInt.sizeOfUnsigned(valueLength) + valueLength;
        if (withPath) size += VInt.sizeOfUnsigned(pathLength) + pathLength;
        return size;
    }

    // ---- write pass: the same walk as the size pass ------------------------------------------------

    private void writeMutation(TableSchema table, PartitionUpdate u, FixedBuffer out) {
        out.putByte(VERSION);
        out.putByte(u.staticRow() != null ? HAS_STATIC_ROW : 0);
        UUID id = table.id();
        out.putLong(id.getMostSignificantBits());
        out.putLong(id.getLeastSignificantBits());
        writeBytes(u.key().key(), out);
        writeDeletion(u.partitionDeletion(), out);
        List<RangeTombstone> rts = u.rangeTombstones();
        out.putUnsignedVInt(rts.size());
        for (int i = 0; i < rts.size(); i++) {
            RangeTombstone rt = rts.get(i);
            writeBound(rt.start(), out);
            writeBound(rt.end(), out);
            writeDeletion(rt.deletion(), out);
        }
        if (u.staticRow() != null) writeRow(u.staticRow(), out);
        List<Row> rows = u.rows();
        out.putUnsignedVInt(rows.size());
        for (int i = 0; i < rows.size(); i++) writeRow(rows.get(i), out);
    }

    private void writeTimestamp(long ts, FixedBuffer out) {
        long delta = ts - previousTimestamp;
        previousTimestamp = ts;
        out.putSignedVInt(delta);
    }

    private void writeDeletion(DeletionTime d, FixedBuffer out) {
        if (d.isLive()) {
            out.putByte(DELETION_LIVE);
            return;
        }
        out.putByte(DELETION_SET);
        writeTimestamp(d.markedForDeleteAt(), out);
        out.putUnsignedVInt(d.localDeletionTime());
    }

    private static void writeBytes(byte[] b, FixedBuffer out) {
        out.putUnsignedVInt(b.length);
        out.putBytes(b, 0, b.length);
    }

    private static void writeValue(byte[] v, FixedBuffer out) {
        if (v == null) {
            out.putUnsignedVInt(NULL_VALUE);
            return;
        }
        out.putUnsignedVInt(v.length + 1L);
        out.putBytes(v, 0, v.length);
    }

    private static void writeValues(byte[][] values, FixedBuffer out) {
        out.putUnsignedVInt(values.length);
        for (int i = 0; i < values.length; i++) writeValue(values[i], out);
    }

    private static void writeBound(ClusteringBound b, FixedBuffer out) {
        out.putByte(b.kind());
        writeValues(b.values(), out);
    }

    private void writeRow(Row r, FixedBuffer out) {
        int flags = (r.hasLiveness() ? ROW_HAS_LIVENESS : 0) | (r.hasLiveness() && r.isLivenessExpiring() ? ROW_LIVENESS_EXPIRING : 0);
        out.putByte(flags);
        if (!r.isStatic()) writeValues(r.clustering(), out);
        if (r.hasLiveness()) {
            writeTimestamp(r.livenessTimestamp(), out);
            if (r.isLivenessExpiring()) {
                out.putUnsignedVInt(r.livenessTtl() & UNSIGNED_INT_MASK);
                out.putUnsignedVInt(r.livenessExpirationTime());
            }
        }
        writeDeletion(r.deletion(), out);
        Cell[] cells = r.cells();
        out.putUnsignedVInt(cells.length);
        int present = 0;
        for (int i = 0; i < cells.length; i++) if (cells[i] != null) present++;
        out.putUnsignedVInt(present);
        int previous = -1;
        for (int i = 0; i < cells.length; i++) {
            if (cells[i] == null) continue;
            out.putUnsignedVInt(i - previous - 1);
            writeCell(cells[i], false, out);
            previous = i;
        }
        ComplexColumn[] complex = r.complex();
        out.putUnsignedVInt(complex.length);
        present = 0;
        for (int i = 0; i < complex.length; i++) if (complex[i] != null) present++;
        out.putUnsignedVInt(present);
        previous = -1;
        for (int i = 0; i < complex.length; i++) {
            ComplexColumn c = complex[i];
            if (c == null) continue;
            out.putUnsignedVInt(i - previous - 1);
            writeDeletion(c.complexDeletion(), out);
            Cell[] elements = c.cells();
            out.putUnsignedVInt(elements.length);
            for (int k = 0; k < elements.length; k++) writeCell(elements[k], true, out);
            previous = i;
        }
    }

    private void writeCell(Cell c, boolean withPath, FixedBuffer out) {
        writeCellHeader(c.timestamp(), c.ttl(), c.localDeletionTime(), c.valueLength(), out);
        byte[] v = c.value();
        if (v.length > 0) {
            out.putUnsignedVInt(v.length);
            out.putBytes(v, 0, v.length);
        }
        if (withPath) writeBytes(c.path(), out);
    }

    private void writeCellHeader(long ts, int ttl, long ldt, int valueLength, FixedBuffer out) {
        out.putByte((ttl != Cell.NO_TTL ? CELL_EXPIRING : 0) | (ldt != Cell.NO_DELETION_TIME ? CELL_HAS_LDT : 0)
                | (valueLength > 0 ? CELL_HAS_VALUE : 0));
        writeTimestamp(ts, out);
        if (ttl != Cell.NO_TTL) out.putUnsignedVInt(ttl & UNSIGNED_INT_MASK);
        if (ldt != Cell.NO_DELETION_TIME) out.putUnsignedVInt(ldt);
    }

    // ---- read ----------------------------------------------------------------------------------

    /**
     * Rebuilds the mutation in {@code src[offset, offset + length)} with {@link Cell}s.
     * {@code table} must be the table whose id the bytes carry and must have the same column
     * counts; anything that does not parse exactly to {@code length} bytes throws
     * {@link MalformedMutationException}.
     */
    public static Mutation deserialize(byte[] src, int offset, int length, TableSchema table) {
        return new Reader(src, offset, length).readMutation(table);
    }

    /** The table id of serialized mutation bytes, without parsing the rest. */
    public static UUID tableId(byte[] src, int offset, int length) {
        if (length < HEADER_BYTES) throw new MalformedMutationException("mutation of " + length + " bytes has no header");
        Reader r = new Reader(src, offset + TABLE_ID_OFFSET, TABLE_ID_BYTES);
        return new UUID(r.readLong(), r.readLong());
    }

    /** Thrown when mutation bytes do not parse; the commit log reports it with the file and offset. */
    public static final class MalformedMutationException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public MalformedMutationException(String message) {
            super(message);
        }
    }

    private static final class Reader {
        private final byte[] src;
        private final int start;
        private final int end;
        private int position;
        private long previousTimestamp;

        Reader(byte[] src, int offset, int length) {
            this.src = src;
            this.start = offset;
            this.position = offset;
            this.end = offset + length;
        }

        Mutation readMutation(TableSchema table) {
            int version = readByte();
            if (version != VERSION) throw malformed("unknown mutation format version " + version);
            int flags = readByte();
            UUID id = new UUID(readLong(), readLong());
            if (!id.equals(table.id())) {
                throw malformed("mutation of table id " + id + ", not " + table.keyspace() + "." + table.name() + " (" + table.id() + ")");
            }
            byte[] keyBytes = readBytes();
            if (keyBytes.length > MAX_KEY_VALUE_BYTES) throw malformed("partition key of " + keyBytes.length + " bytes");
            PartitionKey key = PartitionKey.of(keyBytes);
            DeletionTime pd = readDeletion();
            if (!pd.isLive() && pd.markedForDeleteAt() < 0) {
                throw malformed("partition deletion with negative timestamp " + pd.markedForDeleteAt());
            }
            final int clusteringCount = table.clusteringColumns().length;
            int rtCount = readCount();
            List<RangeTombstone> rts = rtCount == 0 ? List.of() : new ArrayList<>(rtCount);
            for (int i = 0; i < rtCount; i++) {
                ClusteringBound s = readBound(clusteringCount);
                ClusteringBound e = readBound(clusteringCount);
                try {
                    rts.add(new RangeTombstone(s, e, readDeletion()));
                } catch (IllegalArgumentException bad) {
                    throw malformed(bad.getMessage());
                }
            }
            Row staticRow = (flags & HAS_STATIC_ROW) != 0
                    ? readRow(true, 0, table.staticComplexStart(), table.staticColumns().length - table.staticComplexStart())
                    : null;
            int rowCount = readCount();
            List<Row> rows = new ArrayList<>(rowCount);
            int simple = table.regularComplexStart(), complex = table.regularColumns().length - simple;
            for (int i = 0; i < rowCount; i++) rows.add(readRow(false, clusteringCount, simple, complex));
            if (position != end) throw malformed((end - position) + " bytes left after the mutation");
            return new Mutation(table, new PartitionUpdate(key, pd, rts, staticRow, rows));
        }

        private Row readRow(boolean isStatic, int clusteringCount, int simpleSlots, int complexSlots) {
            int flags = readByte();
            byte[][] clustering = null;
            if (!isStatic) {
                clustering = readValues();
                if (clustering.length != clusteringCount) {
                    throw malformed("row has " + clustering.length + " clustering values, the table " + clusteringCount);
                }
            }
            long lts = Cell.NO_TIMESTAMP, lexp = Cell.NO_DELETION_TIME;
            int lttl = Cell.NO_TTL;
            if ((flags & ROW_HAS_LIVENESS) != 0) {
                lts = readTimestamp();
                if ((flags & ROW_LIVENESS_EXPIRING) != 0) {
                    lttl = (int) readUnsigned();
                    lexp = readUnsigned();
                }
            }
            DeletionTime deletion = readDeletion();
            int slots = readInt();
            if (slots != simpleSlots) throw malformed("row has " + slots + " simple column slots, the table " + simpleSlots);
            Cell[] cells = new Cell[slots];
            int present = readCount();
            int column = -1;
            for (int i = 0; i < present; i++) {
                column += 1 + readInt();
                if (column < 0 || column >= slots) throw malformed("simple column " + column + " of " + slots);
                cells[column] = readCell(false);
            }
            slots = readInt();
            if (slots != complexSlots) throw malformed("row has " + slots + " complex column slots, the table " + complexSlots);
            ComplexColumn[] complex = new ComplexColumn[slots];
            present = readCount();
            column = -1;
            for (int i = 0; i < present; i++) {
                column += 1 + readInt();
                if (column < 0 || column >= slots) throw malformed("complex column " + column + " of " + slots);
                DeletionTime cd = readDeletion();
                int n = readCount();
                Cell[] elements = new Cell[n];
                for (int k = 0; k < n; k++) elements[k] = readCell(true);
                complex[column] = new ComplexColumn(cd, elements);
            }
            return new Row(isStatic, clustering, lts, lttl, lexp, deletion, cells, complex);
        }

        private Cell readCell(boolean withPath) {
            int flags = readByte();
            long ts = readTimestamp();
            int ttl = (flags & CELL_EXPIRING) != 0 ? (int) readUnsigned() : Cell.NO_TTL;
            long ldt = (flags & CELL_HAS_LDT) != 0 ? readUnsigned() : Cell.NO_DELETION_TIME;
            byte[] value = (flags & CELL_HAS_VALUE) != 0 ? readBytes() : null;
            byte[] path = withPath ? readBytes() : null;
            return new Cell(ts, ttl, ldt, value, path);
        }

        private ClusteringBound readBound(int clusteringCount) {
            byte kind = (byte) readByte();
            if (kind < ClusteringBound.EXCL_END_BOUND || kind > ClusteringBound.EXCL_START_BOUND) {
                throw malformed("bound kind " + kind);
            }
            byte[][] values = readValues();
            if (values.length > clusteringCount) {
                throw malformed("bound has " + values.length + " clustering values, the table " + clusteringCount);
            }
            return new ClusteringBound(kind, values);
        }

        /**
         * Clustering values (of a row or a bound). A null is never written for them: the reader
         * refuses it, and a value longer than a clustering value can be, as bytes that do not parse.
         */
        private byte[][] readValues() {
            int n = readCount();
            byte[][] values = new byte[n][];
            for (int i = 0; i < n; i++) {
                long prefix = readUnsigned();
                if (prefix == NULL_VALUE) throw malformed("null clustering value " + i);
                int length = checkLength(prefix - 1);
                if (length > MAX_KEY_VALUE_BYTES) throw malformed("clustering value of " + length + " bytes");
                values[i] = readRaw(length);
            }
            return values;
        }

        private DeletionTime readDeletion() {
            int marker = readByte();
            if (marker == DELETION_LIVE) return DeletionTime.LIVE;
            if (marker != DELETION_SET) throw malformed("deletion marker " + marker);
            long ts = readTimestamp();
            return DeletionTime.of(ts, readUnsigned());
        }

        private long readTimestamp() {
            long ts = previousTimestamp + readSigned();
            previousTimestamp = ts;
            return ts;
        }

        private byte[] readBytes() {
            return readRaw(checkLength(readUnsigned()));
        }

        private int checkLength(long length) {
            if (length < 0 || length > end - position) throw malformed("length " + length + " with " + (end - position) + " bytes left");
            return (int) length;
        }

        private int readCount() {
            long n = readUnsigned();
            // Every counted item takes at least one byte, so a count above the bytes left is corrupt.
            if (n < 0 || n > end - position) throw malformed("count " + n + " with " + (end - position) + " bytes left");
            return (int) n;
        }

        /** A non-negative int that is not a count of following items (slots, gaps). */
        private int readInt() {
            long n = readUnsigned();
            if (n < 0 || n > Integer.MAX_VALUE) throw malformed("value " + n + " out of int range");
            return (int) n;
        }

        private byte[] readRaw(int length) {
            byte[] b = new byte[length];
            System.arraycopy(src, position, b, 0, length);
            position += length;
            return b;
        }

        int readByte() {
            need(1);
            return src[position++] & 0xFF;
        }

        long readLong() {
            need(Long.BYTES);
            long v = 0;
            for (int i = 0; i < Long.BYTES; i++) v = (v << 8) | (src[position + i] & 0xFFL);
            position += Long.BYTES;
            return v;
        }

        private long readUnsigned() {
            need(1);
            int size = VInt.sizeFromFirstByte(src[position]);
            need(size);
            long v = VInt.getUnsigned(src, position);
            position += size;
            return v;
        }

        private long readSigned() {
            return VInt.unZigZag(readUnsigned());
        }

        private void need(int bytes) {
            if (bytes > end - position) throw malformed("needs " + bytes + " bytes, " + (end - position) + " left");
        }

        private MalformedMutationException malformed(String what) {
            return new MalformedMutationException("malformed mutation at byte " + (position - start) + " of "
                    + (end - start) + ": " + what);
        }
    }
}

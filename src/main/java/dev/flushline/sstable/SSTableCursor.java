package dev.flushline.sstable;

import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ClusteringBuffer;
import dev.flushline.io.VInt;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.TableSchema;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A forward cursor over one oa or nb sstable's Data.db ({@link DataLayout}): a state machine that
 * {@link #advance}s from a partition header to its static row, rows and range tombstone markers,
 * to the partition's end, to the next partition, and exposes the current item through reusable
 * flyweights ({@link #partition()}, {@link #row()}, {@link #marker()}, {@link Row#cell}).
 *
 * <p>Decoding follows what cassandra-all 5.0.9's reader returns, including how it rebuilds
 * timestamps, TTLs and local deletion times from the deltas against the serialization header's
 * EncodingStats: a deletion (row, complex, range tombstone) whose local deletion time falls
 * outside 0..{@link #MAX_DELETION_TIME} reads as {@link #INVALID_DELETION_TIME}; a cell's or
 * liveness' negative 32-bit local deletion time is reinterpreted as unsigned in oa, and is
 * invalid ({@link #INVALID_DELETION_TIME}) in nb, whose local deletion times are signed. The
 * partition deletion is decoded in the version's {@link DeletionTimeLayout}; the version is
 * {@link DataChunks#version()}, fixed for the cursor's life.
 *
 * <p>Deferred row bodies ({@link #deferRowBodies}): a row's serialized size follows its flags and
 * clustering, and the whole row is brought into the window before anything after the size is read,
 * so advance can stop after the row's header (liveness, row deletion, column set) and leave the
 * caller to {@link #decodeBody} or {@link #skipBody}: a compaction steps over a row version that
 * loses every part of itself to a newer one without decoding its cells.
 *
 * <p>Memory: the uncompressed stream passes through one window buffer, refilled a chunk at a time
 * (CRCs checked per chunk by {@link DataChunks}); the current item's bytes stay in the window until
 * the next {@link #advance}, so every value is exposed as ({@link #buffer()}, offset, length)
 * without a copy. The window and the per-row arrays are sized once and grow only when an item is
 * bigger than any before; nothing is allocated per partition, row or cell. Every length read from
 * the file is checked against what is left of the stream (and of the row) before it is used, so a
 * length claiming gigabytes is a {@link CorruptSSTableException} at its byte offset.
 *
 * <p>Thread safety: none; a cursor is used by one thread. Offsets are computed at each call from
 * the start of the current item in the window (which moves when the window is compacted while an
 * item is decoded), so they are valid until the next {@link #advance} or {@link #seek}.
 */
public final class SSTableCursor implements AutoCloseable {
    /** {@link #advance} results. */
    public static final int END = 0, PARTITION_START = 1, ROW = 2, MARKER = 3, PARTITION_END = 4;

    // The time sentinels are data.Cell's: NO_TIMESTAMP, NO_DELETION_TIME, MAX_DELETION_TIME, INVALID_DELETION_TIME.
    private static final long NO_TIMESTAMP = dev.flushline.data.Cell.NO_TIMESTAMP;
    private static final long NO_DELETION_TIME = dev.flushline.data.Cell.NO_DELETION_TIME;
    private static final long MAX_DELETION_TIME = dev.flushline.data.Cell.MAX_DELETION_TIME;
    private static final long INVALID_DELETION_TIME = dev.flushline.data.Cell.INVALID_DELETION_TIME;
    /** TTL of a materialized view's expired liveness; its local time is kept as read. */
    private static final int EXPIRED_LIVENESS_TTL = Integer.MAX_VALUE;
    private static final int UNSIGNED_NO_DELETION_TIME = -1;

    private static final int BEFORE_PARTITION = 0, EXPECT_STATIC = 1, IN_PARTITION = 2, DONE = 3;
    /**
     * The window starts at two chunks (one being read and the next, for an item that crosses into
     * it), at most this: four inputs' 16 KiB LZ4 chunks then take 128 KiB, not 512 KiB. It grows
     * for a larger chunk or item.
     */
    private static final int MAX_INITIAL_WINDOW_BYTES = 128 * 1024;
    private static final int INITIAL_CELLS = 64;

    private final Path dataPath;
    private final DataChunks chunks;
    private final SerializationHeader header;
    private final long length;
    private final long minTimestamp;
    /** oa: local deletion times are unsigned 32-bit; nb: signed. */
    private final boolean unsignedDeletionTime;
    private final long minLocalDeletionTime;
    private final int minTtl;
    private final int clusteringCount;
    private final int[] clusteringFixed;
    private final int[] staticFixed, regularFixed;
    private final boolean[] staticComplex, regularComplex;
    /** Whether the header has no complex static (regular) column: then each column of a row is one cell. */
    private final boolean staticAllSimple, regularAllSimple;
    private final String where;

    // Window over the uncompressed stream: buf[0] is stream offset bufStart; [mark, limit) is kept.
    private byte[] buf;
    private long bufStart;
    private int mark, pos, limit;
    private int nextChunk;
    private int state = BEFORE_PARTITION;
    private int bodyEnd;
    /** Whether {@link #advance} stops a row after its header; see {@link #deferRowBodies}. */
    private boolean deferBodies;
    /** Whether the current row's header was read and its body is neither decoded nor skipped yet. */
    private boolean bodyPending;
    /** Stream offset of the row whose pending body {@link #plainBodyBytes} last accepted; -1 for none. */
    private long plainBodyOf = -1;

    private final Partition partition = new Partition();
    private final Row row = new Row();
    private final Marker marker = new Marker();

    /**
     * Opens a cursor at the first partition. The sstable's Statistics.db is read with
     * {@code schema} (see {@link StatisticsReader}); Data.db chunk CRCs are checked as chunks load.
     */
    public static SSTableCursor open(SSTableFiles files, TableSchema schema) throws IOException {
        StatisticsReader.Metadata m = StatisticsReader.read(files, schema, false);
        return new SSTableCursor(DataChunks.open(files, true), m.header);
    }

    public SSTableCursor(DataChunks chunks, SerializationHeader header) {
        this.chunks = chunks;
        this.dataPath = chunks.dataPath();
        this.header = header;
        this.length = chunks.length();
        this.buf = new byte[(int) Math.min(2L * chunks.chunkLength(), MAX_INITIAL_WINDOW_BYTES)];
        this.unsignedDeletionTime = chunks.version().hasUnsignedDeletionTime();
        EncodingStats s = header.stats();
        this.minTimestamp = s.minTimestamp();
        this.minLocalDeletionTime = s.minLocalDeletionTime();
        this.minTtl = s.minTtl();
        ColumnMetadata[] ck = header.schema().clusteringColumns();
        this.clusteringCount = ck.length;
        this.clusteringFixed = new int[ck.length];
        for (int i = 0; i < ck.length; i++) clusteringFixed[i] = ck[i].type().fixedLength();
        ColumnMetadata[] st = header.staticColumns(), rg = header.regularColumns();
        this.staticFixed = fixed(st);
        this.regularFixed = fixed(rg);
        this.staticComplex = complex(st);
        this.regularComplex = complex(rg);
        this.staticAllSimple = allSimple(staticComplex);
        this.regularAllSimple = allSimple(regularComplex);
        this.where = chunks.isCompressed() ? " (uncompressed stream)" : "";
        row.growColumns(Math.max(st.length, rg.length));
        row.growClustering(Math.max(1, ck.length));
        marker.clusteringOffset = new int[Math.max(1, ck.length)];
        marker.clusteringLength = new int[Math.max(1, ck.length)];
    }

    private static boolean allSimple(boolean[] complex) {
        for (int i = 0; i < complex.length; i++) if (complex[i]) return false;
        return true;
    }

    private static int[] fixed(ColumnMetadata[] cols) {
        int[] out = new int[cols.length];
        for (int i = 0; i < cols.length; i++) out[i] = cols[i].isComplex() ? -1 : cols[i].type().fixedLength();
        return out;
    }

    private static boolean[] complex(ColumnMetadata[] cols) {
        boolean[] out = new boolean[cols.length];
        for (int i = 0; i < cols.length; i++) out[i] = cols[i].isComplex();
        return out;
    }

    public SerializationHeader header() { return header; }

    public Path dataPath() { return dataPath; }

    /** Length of the (uncompressed) Data.db stream. */
    public long length() { return length; }

    /** The buffer every current offset points into; valid until the next advance or seek. */
    public byte[] buffer() { return buf; }

    public Partition partition() { return partition; }

    public Row row() { return row; }

    public Marker marker() { return marker; }

    /** Stream offset of the next byte to decode. */
    public long position() { return bufStart + pos; }

    /**
     * Whether {@link #advance} stops at each row (static rows included) after its header: flags,
     * clustering, row size, liveness, row deletion and column set are then decoded, and the caller
     * must {@link #decodeBody} or {@link #skipBody} before the row's cells (or complex deletions) are
     * read and before the next advance. Off (the default), advance decodes whole rows.
     */
    public void deferRowBodies(boolean defer) {
        if (bodyPending) throw new IllegalStateException("a row body is pending");
        this.deferBodies = defer;
    }

    /** Whether the current row's body waits for {@link #decodeBody} or {@link #skipBody}. */
    public boolean isBodyPending() { return bodyPending; }

    /**
     * Decodes the pending body of the current row: complex deletions and cells, as advance does
     * without deferral. REQUIRES: {@link #isBodyPending()}.
     */
    public void decodeBody() {
        if (!bodyPending) throw new IllegalStateException("no row body pending");
        bodyPending = false;
        readRowBody();
    }

    /**
     * Steps over the pending body of the current row by its row size, decoding none of it: its
     * cells and complex deletions are then unknown ({@link Row#cellCount()} and the like refuse),
     * and nothing in the body is checked. The header stays readable until the next advance.
     * REQUIRES: {@link #isBodyPending()}.
     */
    public void skipBody() {
        if (!bodyPending) throw new IllegalStateException("no row body pending");
        bodyPending = false;
        row.skipped = true;
        pos = bodyEnd;
        row.endOffset = position();
    }

    /**
     * For the pending body of a row whose header has no complex column: the bytes of its cells if
     * every one is plain, as {@link Row#cellsPlain} means it (flags exactly USE_ROW_TIMESTAMP, a
     * value of the column's fixed length or after a one-byte length), not empty, and they end
     * exactly at the row's end; -1 otherwise. Reads each cell's flags and length only and moves
     * nothing: the body stays pending, for {@link #takePlainBody} or a decode or skip.
     * REQUIRES: {@link #isBodyPending()}.
     */
    public int plainBodyBytes() {
        if (!bodyPending) throw new IllegalStateException("no row body pending");
        final Row r = row;
        if (!(r.isStatic ? staticAllSimple : regularAllSimple)) return -1;
        final int[] fixedLengths = r.isStatic ? staticFixed : regularFixed;
        final int[] columnIndex = r.columnIndex;
        final byte[] b = buf;
        final int end = bodyEnd;
        int p = pos;
        for (int j = 0, n = r.columnCount; j < n; j++) {
            if (p >= end || b[p] != DataLayout.CELL_USE_ROW_TIMESTAMP) return -1;
            p++;
            int len = fixedLengths[columnIndex[j]];
            if (len < 0) {
                if (p >= end) return -1;
                len = b[p++]; // negative: a length of 128 or more, a longer vint
            }
            // An empty value after a length (rather than its flag) is left to the decode.
            if (len <= 0 || len > end - p) return -1;
            p += len;
        }
        if (p != end) return -1;
        plainBodyOf = r.offset;
        return end - pos;
    }

    /**
     * Takes the pending body that {@link #plainBodyBytes} just found plain without decoding it: the
     * row's cell count is its column count, and its cells are not there to read (as after
     * {@link #skipBody}, {@link Row#cellCount()} and the like refuse). REQUIRES: plainBodyBytes
     * accepted this row's body, still pending.
     */
    public void takePlainBody() {
        if (!bodyPending || plainBodyOf != row.offset) {
            throw new IllegalStateException("the body of the row at " + row.offset + " was not found plain");
        }
        bodyPending = false;
        plainBodyOf = -1;
        row.skipped = true;
        row.cellsPlain = true;
        row.cellCount = row.columnCount;
        pos = bodyEnd;
        row.endOffset = position();
    }

    /**
     * Moves to the partition that starts at stream offset {@code position} (from Index.db);
     * the next {@link #advance} returns its {@link #PARTITION_START}.
     */
    public void seek(long position) throws IOException {
        if (position < 0 || position > length) throw corrupt(position, "seek to " + position + " outside the data of " + length + " bytes");
        int chunk = (int) (position / chunks.chunkLength());
        bufStart = (long) chunk * chunks.chunkLength();
        mark = pos = limit = 0;
        nextChunk = chunk;
        state = BEFORE_PARTITION;
        bodyPending = false;
        int skip = (int) (position - bufStart);
        if (skip > 0) {
            ensure(skip, "seek");
            pos = skip;
        }
    }

    /**
     * Decodes the next item and returns what it is: {@link #PARTITION_START} (see {@link #partition()}),
     * {@link #ROW} (the static row first when the header has static columns; see {@link #row()}),
     * {@link #MARKER}, {@link #PARTITION_END}, or {@link #END} after the last partition.
     *
     * @throws CorruptSSTableException when the bytes contradict the format
     * @throws IOException when the file cannot be read
     */
    public int advance() throws IOException {
        if (bodyPending) {
            throw new IllegalStateException("advance past the row at " + row.offset + " of " + dataPath
                    + " whose body was neither decoded nor skipped");
        }
        switch (state) {
            case BEFORE_PARTITION:
                if (position() == length) {
                    state = DONE;
                    return END;
                }
                readPartitionHeader();
                state = header.hasStatics() ? EXPECT_STATIC : IN_PARTITION;
                return PARTITION_START;
            case EXPECT_STATIC: {
                mark = pos;
                long at = position();
                int flags = u8("static row flags");
                if ((flags & DataLayout.END_OF_PARTITION) != 0 || (flags & DataLayout.IS_MARKER) != 0
                        || (flags & DataLayout.EXTENSION_FLAG) == 0) {
                    throw corrupt(at, "flags 0x" + Integer.toHexString(flags) + " where the static row must be (the header has static columns)");
                }
                int ext = u8("static row extended flags");
                if ((ext & DataLayout.IS_STATIC) == 0) throw corrupt(at + 1, "extended flags 0x" + Integer.toHexString(ext) + " of the static row lack IS_STATIC");
                state = IN_PARTITION;
                readRow(flags, ext, at, true);
                return ROW;
            }
            case IN_PARTITION: {
                mark = pos;
                long at = position();
                int flags = u8("unfiltered flags");
                if ((flags & DataLayout.END_OF_PARTITION) != 0) {
                    if (flags != DataLayout.END_OF_PARTITION) throw corrupt(at, "flags 0x" + Integer.toHexString(flags) + " mix END_OF_PARTITION with others");
                    state = BEFORE_PARTITION;
                    partition.endOffset = position();
                    return PARTITION_END;
                }
                int ext = (flags & DataLayout.EXTENSION_FLAG) != 0 ? u8("extended flags") : 0;
                if ((flags & DataLayout.IS_MARKER) != 0) {
                    readMarker(at);
                    return MARKER;
                }
                if ((ext & DataLayout.IS_STATIC) != 0) throw corrupt(at, "a static row after the partition's first item");
                readRow(flags, ext, at, false);
                return ROW;
            }
            default:
                return END;
        }
    }

    // ---- window ------------------------------------------------------------------------------

    private CorruptSSTableException corrupt(long at, String reason) {
        return new CorruptSSTableException(dataPath, at, reason + where);
    }

    /** Makes {@code n} bytes from pos available in the window, keeping [mark, pos). */
    private void ensure(int n, String what) throws IOException {
        if (limit - pos >= n) return;
        long at = position();
        if (n < 0 || n > length - at) {
            throw corrupt(at, what + " needs " + (n < 0 ? Integer.toUnsignedString(n) : n) + " bytes but the data ends "
                    + (length - at) + " bytes later");
        }
        slowFill(n);
    }

    private void slowFill(int n) throws IOException {
        if (mark > 0) {
            System.arraycopy(buf, mark, buf, 0, limit - mark);
            bufStart += mark;
            pos -= mark;
            limit -= mark;
            mark = 0;
        }
        while (limit - pos < n) {
            int size = chunks.chunkSize(nextChunk);
            if (limit + size > buf.length) {
                byte[] bigger = new byte[(int) Math.min(Integer.MAX_VALUE - 16, Math.max(2L * buf.length, (long) limit + size))];
                System.arraycopy(buf, 0, bigger, 0, limit);
                buf = bigger;
            }
            limit += chunks.load(nextChunk++, buf, limit);
        }
    }

    private int u8(String what) throws IOException {
        ensure(1, what);
        return buf[pos++] & 0xFF;
    }

    /**
     * The vint at {@code pos} when it is one byte (0..127: most sizes, lengths and headers) and lies
     * below {@code bound}, consumed; -1, with nothing consumed, for the general decode to take.
     */
    private int oneByteVInt(int bound) {
        final int p = pos;
        if (p < bound) {
            final byte first = buf[p];
            if (first >= 0) {
                pos = p + 1;
                return first;
            }
        }
        return -1;
    }

    private long vint(String what) throws IOException {
        final int one = oneByteVInt(limit);
        if (one >= 0) return one;
        ensure(1, what);
        int size = VInt.sizeFromFirstByte(buf[pos]);
        ensure(size, what);
        long v = VInt.getUnsigned(buf, pos);
        pos += size;
        return v;
    }

    /** A length field: fits an int and what is left of the stream. */
    private int lengthField(String what) throws IOException {
        long at = position();
        long v = vint(what);
        if (v < 0 || v > length - position()) {
            throw corrupt(at, what + " length " + Long.toUnsignedString(v) + " exceeds the " + (length - position()) + " bytes left");
        }
        return (int) v;
    }

    // In-row reads: the row body is in the window, so only the row's own bound is checked.

    private void needInBody(int n, String what) {
        if (n < 0 || n > bodyEnd - pos) {
            throw corrupt(position(), what + " needs " + (n < 0 ? Long.toUnsignedString(n & 0xFFFFFFFFL) : n) + " bytes but the row has "
                    + (bodyEnd - pos) + " left");
        }
    }

    private int bodyU8(String what) {
        needInBody(1, what);
        return buf[pos++] & 0xFF;
    }

    private long bodyVInt(String what) {
        final int one = oneByteVInt(bodyEnd);
        if (one >= 0) return one;
        needInBody(1, what);
        int size = VInt.sizeFromFirstByte(buf[pos]);
        needInBody(size, what);
        long v = VInt.getUnsigned(buf, pos);
        pos += size;
        return v;
    }

    private int bodyVInt32(String what) {
        long at = position();
        long v = bodyVInt(what);
        if ((int) v != v) throw corrupt(at, what + " " + Long.toUnsignedString(v) + " does not fit a 32-bit vint");
        return (int) v;
    }

    private int bodyLength(String what) {
        long at = position();
        long v = bodyVInt(what);
        if (v < 0 || v > bodyEnd - pos) {
            throw corrupt(at, what + " length " + Long.toUnsignedString(v) + " exceeds the " + (bodyEnd - pos) + " bytes left in the row");
        }
        return (int) v;
    }

    private long bodyTimestamp(String what) {
        return bodyVInt(what) + minTimestamp;
    }

    private long bodyLocalDeletionTime(String what) {
        return bodyVInt32(what) + minLocalDeletionTime;
    }

    private int bodyTtl(String what) {
        return bodyVInt32(what) + minTtl;
    }

    /** DeletionTime.build: outside 0..MAX_DELETION_TIME is INVALID. */
    private static long deletionLdt(long ldt) {
        return ldt < 0 || ldt > MAX_DELETION_TIME ? INVALID_DELETION_TIME : ldt;
    }

    /** How a cell's or liveness' local deletion time is rebuilt (Cassandra's decodeLocalDeletionTime). */
    private long decodeLdt(long ldt, int ttl) {
        if (ldt >= ttl) return ldt;
        if (ldt < 0) return unsignedDeletionTime ? unsignedLdt((int) ldt) : INVALID_DELETION_TIME;
        return ttl == EXPIRED_LIVENESS_TTL ? ldt : INVALID_DELETION_TIME;
    }

    private static long unsignedLdt(int u) {
        return u == UNSIGNED_NO_DELETION_TIME ? NO_DELETION_TIME : u & 0xFFFFFFFFL;
    }

    // ---- partition header --------------------------------------------------------------------

    private void readPartitionHeader() throws IOException {
        mark = pos;
        long start = position();
        ensure(2, "partition key length");
        int keyLength = ((buf[pos] & 0xFF) << 8) | (buf[pos + 1] & 0xFF);
        pos += 2;
        ensure(keyLength, "partition key");
        partition.startOffset = start;
        partition.keyOffset = pos - mark;
        partition.keyLength = keyLength;
        pos += keyLength;
        long at = position();
        if (unsignedDeletionTime) {
            readPartitionDeletion(at);
        } else {
            readLegacyPartitionDeletion();
        }
        partition.headerLength = (int) (position() - start);
        partition.endOffset = -1;
    }

    /** oa: 0x80 (LIVE) or mfda:i64 ldt:u32. */
    private void readPartitionDeletion(long at) throws IOException {
        int first = u8("partition deletion");
        if ((first & DataLayout.PARTITION_DELETION_LIVE_BYTE) != 0) {
            if (first != DataLayout.PARTITION_DELETION_LIVE_BYTE) {
                throw corrupt(at, "partition deletion flags 0x" + Integer.toHexString(first) + " (LIVE must be exactly 0x80)");
            }
            partition.deletionTimestamp = NO_TIMESTAMP;
            partition.deletionLdt = NO_DELETION_TIME;
        } else {
            pos--;
            ensure(DataLayout.PARTITION_DELETION_DELETED_BYTES, "partition deletion");
            partition.deletionTimestamp = BoundedReader.getLong(buf, pos);
            partition.deletionLdt = unsignedLdt(BoundedReader.getInt(buf, pos + Long.BYTES));
            pos += DataLayout.PARTITION_DELETION_DELETED_BYTES;
        }
    }

    /** nb: ldt:i32 mfda:i64; (Integer.MAX_VALUE, Long.MIN_VALUE) is LIVE, a negative ldt is invalid. */
    private void readLegacyPartitionDeletion() throws IOException {
        ensure(DeletionTimeLayout.LEGACY_BYTES, "partition deletion");
        int ldt = BoundedReader.getInt(buf, pos);
        long mfda = BoundedReader.getLong(buf, pos + Integer.BYTES);
        pos += DeletionTimeLayout.LEGACY_BYTES;
        if (ldt == DeletionTimeLayout.LEGACY_LIVE_LOCAL_DELETION_TIME && mfda == NO_TIMESTAMP) {
            partition.deletionTimestamp = NO_TIMESTAMP;
            partition.deletionLdt = NO_DELETION_TIME;
        } else {
            partition.deletionTimestamp = mfda;
            partition.deletionLdt = deletionLdt(ldt);
        }
    }

    // ---- clustering ----------------------------------------------------------------------------

    /** Reads {@code size} clustering values in block form into the offset/length arrays (lengths -1 = null). */
    private void readClustering(int size, int[] offsets, int[] lengths) throws IOException {
        for (int blockStart = 0; blockStart < size; blockStart += DataLayout.CLUSTERING_BLOCK_SIZE) {
            long blockHeader = vint("clustering block header");
            int blockEnd = Math.min(size, blockStart + DataLayout.CLUSTERING_BLOCK_SIZE);
            for (int i = blockStart; i < blockEnd; i++) {
                long bits = blockHeader >>> (2 * (i - blockStart));
                if ((bits & 2) != 0) {
                    lengths[i] = -1;
                    offsets[i] = pos - mark;
                } else if ((bits & 1) != 0) {
                    lengths[i] = 0;
                    offsets[i] = pos - mark;
                } else {
                    int fixed = clusteringFixed[i];
                    int len = fixed >= 0 ? fixed : lengthField("clustering value");
                    ensure(len, "clustering value");
                    offsets[i] = pos - mark;
                    lengths[i] = len;
                    pos += len;
                }
            }
        }
    }

    // ---- markers -------------------------------------------------------------------------------

    private void readMarker(long at) throws IOException {
        Marker mk = marker;
        mk.offset = at;
        long kindAt = position();
        int kind = u8("marker kind");
        if (kind > ClusteringBound.EXCL_START_BOUND || kind == ClusteringBound.STATIC_CLUSTERING || kind == ClusteringBound.CLUSTERING) {
            throw corrupt(kindAt, "marker kind " + kind + " is not a bound or boundary");
        }
        mk.kind = kind;
        ensure(2, "marker clustering size");
        int size = ((buf[pos] & 0xFF) << 8) | (buf[pos + 1] & 0xFF);
        if (size > clusteringCount) throw corrupt(position(), "marker has " + size + " clustering values; the table has " + clusteringCount);
        pos += 2;
        mk.clusteringSize = size;
        readClustering(size, mk.clusteringOffset, mk.clusteringLength);
        // marker_size is computed, not measured, by Cassandra and can be 4 bytes short (far-future
        // deletion times), so it is read but not trusted; the deletions are decoded by their own vints.
        long markerSize = vint("marker size");
        long bodyStart = position();
        if (markerSize < 0 || markerSize > length - bodyStart) {
            throw corrupt(bodyStart, "marker size " + Long.toUnsignedString(markerSize) + " exceeds the data left");
        }
        // Bound the decode by what a marker body can hold: prev size + two deletions of two vints.
        int maxBody = (int) Math.min(length - bodyStart, 5L * VInt.MAX_SIZE_BYTES);
        ensure(maxBody, "marker");
        bodyEnd = pos + maxBody;
        bodyVInt("marker previous size");
        boolean boundary = kind == ClusteringBound.EXCL_END_INCL_START_BOUNDARY || kind == ClusteringBound.INCL_END_EXCL_START_BOUNDARY;
        mk.boundary = boundary;
        mk.firstTimestamp = bodyTimestamp("marker deletion timestamp");
        mk.firstLdt = deletionLdt(bodyLocalDeletionTime("marker deletion time"));
        if (boundary) {
            mk.secondTimestamp = bodyTimestamp("marker start deletion timestamp");
            mk.secondLdt = deletionLdt(bodyLocalDeletionTime("marker start deletion time"));
        }
        mk.endOffset = position();
    }

    // ---- rows ----------------------------------------------------------------------------------

    private void readRow(int flags, int ext, long at, boolean isStatic) throws IOException {
        Row r = row;
        r.offset = at;
        r.flags = flags;
        r.extFlags = ext;
        r.isStatic = isStatic;
        if (!isStatic) readClustering(clusteringCount, r.clusteringOffset, r.clusteringLength);
        r.clusteringSize = isStatic ? 0 : clusteringCount;
        long sizeAt = position();
        long rowSize = vint("row size");
        if (rowSize < 0 || rowSize > length - position()) {
            throw corrupt(sizeAt, "row size " + Long.toUnsignedString(rowSize) + " exceeds the " + (length - position()) + " bytes left");
        }
        ensure((int) rowSize, "row");
        bodyEnd = pos + (int) rowSize;
        r.prevSize = bodyVInt("previous unfiltered size");
        r.fieldsOffset = pos - mark;
        r.fieldsLength = bodyEnd - pos;
        r.complexDeletionTimeDropped = false;
        r.skipped = false;
        r.cellsPlain = false;

        if ((flags & DataLayout.HAS_TIMESTAMP) != 0) {
            long ts = bodyTimestamp("liveness timestamp");
            int ttl = (flags & DataLayout.HAS_TTL) != 0 ? bodyTtl("liveness ttl") : 0;
            if (ttl < 0) throw corrupt(position(), "negative liveness ttl " + ttl);
            long ldt = (flags & DataLayout.HAS_TTL) != 0 ? bodyLocalDeletionTime("liveness expiration time") : NO_DELETION_TIME;
            ldt = decodeLdt(ldt, ttl);
            r.livenessTimestamp = ts;
            r.livenessTtl = ttl;
            r.livenessExpiration = ttl == 0 ? NO_DELETION_TIME : ldt;
        } else {
            r.livenessTimestamp = NO_TIMESTAMP;
            r.livenessTtl = 0;
            r.livenessExpiration = NO_DELETION_TIME;
        }
        if ((flags & DataLayout.HAS_DELETION) != 0) {
            r.deletionTimestamp = bodyTimestamp("row deletion timestamp");
            r.deletionLdt = deletionLdt(bodyLocalDeletionTime("row deletion time"));
        } else {
            r.deletionTimestamp = NO_TIMESTAMP;
            r.deletionLdt = NO_DELETION_TIME;
        }
        readColumnSet(flags, (isStatic ? staticFixed : regularFixed).length);
        if (deferBodies) {
            bodyPending = true;
            return;
        }
        readRowBody();
    }

    /** The row's complex deletions and cells, from pos (after its column set) to the end of its body. */
    private void readRowBody() {
        final Row r = row;
        final int flags = r.flags;
        final int[] fixedLengths = r.isStatic ? staticFixed : regularFixed;
        final boolean[] complexColumns = r.isStatic ? staticComplex : regularComplex;
        final boolean hasComplexDeletion = (flags & DataLayout.HAS_COMPLEX_DELETION) != 0;
        final long rowTs = r.livenessTimestamp;
        final int rowTtl = r.livenessTtl;
        final long rowExp = r.livenessExpiration;
        if (r.isStatic ? staticAllSimple : regularAllSimple) {
            // No complex column: the j-th column is the j-th cell, with no deletion of its own.
            final int n = r.columnCount;
            if (n > r.cellFlags.length) r.growCells(n);
            final int[] columnIndex = r.columnIndex, firstCell = r.columnFirstCell, cellCount = r.columnCellCount;
            final long[] deletionTs = r.columnDeletionTimestamp, deletionLdt = r.columnDeletionLdt;
            for (int j = 0; j < n; j++) readCell(r, j, j, fixedLengths[columnIndex[j]], false, rowTs, rowTtl, rowExp);
            for (int j = r.simpleColumnsUpTo; j < n; j++) {
                firstCell[j] = j;
                cellCount[j] = 1;
                deletionTs[j] = NO_TIMESTAMP;
                deletionLdt[j] = NO_DELETION_TIME;
            }
            if (n > r.simpleColumnsUpTo) r.simpleColumnsUpTo = n;
            r.cellCount = n;
            // Any cell the general path read cut the prefix back below its own slot.
            r.cellsPlain = r.plainCellsUpTo >= n;
            endRowBody(r);
            return;
        }
        r.simpleColumnsUpTo = 0; // the loop below writes other values into the column arrays
        int cells = 0;
        for (int j = 0; j < r.columnCount; j++) {
            int column = r.columnIndex[j];
            r.columnFirstCell[j] = cells;
            if (!complexColumns[column]) {
                if (cells == r.cellFlags.length) r.growCells(cells + 1);
                readCell(r, cells++, j, fixedLengths[column], false, rowTs, rowTtl, rowExp);
                r.columnCellCount[j] = 1;
                r.columnDeletionTimestamp[j] = NO_TIMESTAMP;
                r.columnDeletionLdt[j] = NO_DELETION_TIME;
                continue;
            }
            if (hasComplexDeletion) {
                long ts = bodyTimestamp("complex deletion timestamp");
                long rawLdt = bodyLocalDeletionTime("complex deletion time");
                long ldt = deletionLdt(rawLdt);
                // Cassandra's row builder keeps a complex deletion only if its timestamp beats LIVE's,
                // so the LIVE deletions written for every complex column of such a row read as LIVE.
                r.columnDeletionTimestamp[j] = ts;
                r.columnDeletionLdt[j] = ts == NO_TIMESTAMP ? NO_DELETION_TIME : ldt;
                // A LIVE deletion's bytes hold LIVE's local deletion time, whose low 32 bits are all
                // ones; any other time next to a LIVE timestamp is dropped here.
                if (ts == NO_TIMESTAMP && (int) rawLdt != UNSIGNED_NO_DELETION_TIME) r.complexDeletionTimeDropped = true;
            } else {
                r.columnDeletionTimestamp[j] = NO_TIMESTAMP;
                r.columnDeletionLdt[j] = NO_DELETION_TIME;
            }
            long countAt = position();
            int count = bodyVInt32("complex cell count");
            if (count < 0 || count > bodyEnd - pos) {
                throw corrupt(countAt, "complex cell count " + count + " exceeds the " + (bodyEnd - pos) + " bytes left in the row");
            }
            if (cells + count > r.cellFlags.length) r.growCells(cells + count);
            for (int k = 0; k < count; k++) readCell(r, cells++, j, -1, true, rowTs, rowTtl, rowExp);
            r.columnCellCount[j] = count;
        }
        r.cellCount = cells;
        endRowBody(r);
    }

    /** The body must end where the row size said it does. */
    private void endRowBody(Row r) {
        if (pos != bodyEnd) {
            throw corrupt(position(), "row ends " + (bodyEnd - pos) + " bytes before its row size says");
        }
        r.endOffset = position();
    }

    /** Fills row.columnIndex with the header indices of the present columns. */
    private void readColumnSet(int flags, int n) {
        Row r = row;
        if ((flags & DataLayout.HAS_ALL_COLUMNS) != 0) {
            allColumns(r, n);
            return;
        }
        long at = position();
        long encoded = bodyVInt("column subset");
        if (encoded == 0) { // Cassandra's "all present"
            allColumns(r, n);
            return;
        }
        r.identityColumnsUpTo = 0; // a subset writes other indices into the slots
        if (n < DataLayout.LARGE_SUBSET_THRESHOLD) {
            if (n < 64 && (encoded >>> n) != 0) {
                throw corrupt(at, "column bitmap 0x" + Long.toHexString(encoded) + " names columns beyond the header's " + n);
            }
            int c = 0;
            for (int i = 0; i < n; i++) {
                if ((encoded & (1L << i)) == 0) r.columnIndex[c++] = i;
            }
            r.columnCount = c;
            return;
        }
        int delta = (int) encoded;
        if (encoded > n || delta < 0) throw corrupt(at, "column subset misses " + Long.toUnsignedString(encoded) + " of " + n + " columns");
        int present = n - delta;
        if (present < n / 2) {
            int last = -1;
            for (int i = 0; i < present; i++) {
                long idxAt = position();
                int idx = bodyVInt32("column index");
                if (idx <= last || idx >= n) throw corrupt(idxAt, "column index " + idx + " out of order or beyond " + n);
                r.columnIndex[i] = idx;
                last = idx;
            }
            r.columnCount = present;
        } else {
            int c = 0, idx = 0;
            for (int skipped = 0; skipped < delta; skipped++) {
                long idxAt = position();
                int missing = bodyVInt32("missing column index");
                if (missing < idx || missing >= n) throw corrupt(idxAt, "missing column index " + missing + " out of order or beyond " + n);
                while (idx < missing) r.columnIndex[c++] = idx++;
                idx++;
            }
            while (idx < n) r.columnIndex[c++] = idx++;
            r.columnCount = c;
        }
    }

    /** Every header column present: index j is column j, written only into slots that do not hold it yet. */
    private static void allColumns(Row r, int n) {
        if (n > r.identityColumnsUpTo) {
            final int[] index = r.columnIndex;
            for (int i = r.identityColumnsUpTo; i < n; i++) index[i] = i;
            r.identityColumnsUpTo = n;
        }
        r.columnCount = n;
    }

    private void readCell(Row r, int k, int column, int fixedLength, boolean complex, long rowTs, int rowTtl, long rowExp) {
        if (!complex && readPlainCell(r, k, column, fixedLength, rowTs)) return;
        if (k < r.plainCellsUpTo) r.plainCellsUpTo = k; // slot k gets this cell's own fields
        long at = position();
        int f = bodyU8("cell flags");
        boolean deleted = (f & DataLayout.CELL_IS_DELETED) != 0;
        boolean expiring = (f & DataLayout.CELL_IS_EXPIRING) != 0;
        boolean useRowTtl = (f & DataLayout.CELL_USE_ROW_TTL) != 0;
        long ts = (f & DataLayout.CELL_USE_ROW_TIMESTAMP) != 0 ? rowTs : bodyTimestamp("cell timestamp");
        long ldt = useRowTtl ? rowExp : (deleted || expiring ? bodyLocalDeletionTime("cell local deletion time") : NO_DELETION_TIME);
        int ttl = useRowTtl ? rowTtl : (expiring ? bodyTtl("cell ttl") : 0);
        r.cellPathOffset[k] = pos - mark;
        r.cellPathLength[k] = -1;
        if (complex) {
            int len = bodyLength("cell path");
            r.cellPathOffset[k] = pos - mark;
            r.cellPathLength[k] = len;
            pos += len;
        }
        r.cellValueOffset[k] = pos - mark;
        r.cellValueLength[k] = 0;
        if ((f & DataLayout.CELL_HAS_EMPTY_VALUE) == 0) {
            int len;
            if (fixedLength >= 0) {
                needInBody(fixedLength, "cell value");
                len = fixedLength;
            } else {
                len = bodyLength("cell value");
            }
            r.cellValueOffset[k] = pos - mark;
            r.cellValueLength[k] = len;
            pos += len;
        }
        if (ttl < 0) throw corrupt(at, "negative cell ttl " + ttl);
        ldt = decodeLdt(ldt, ttl);
        if (ldt != NO_DELETION_TIME && (ldt < 0 || ldt > 0xFFFFFFFFL)) {
            throw corrupt(at, "cell local deletion time " + ldt + " does not fit 32 unsigned bits");
        }
        r.cellFlags[k] = f;
        r.cellColumn[k] = column;
        r.cellTimestamp[k] = ts;
        r.cellTtl[k] = ttl;
        r.cellLdt[k] = ldt == 0xFFFFFFFFL ? NO_DELETION_TIME : ldt;
    }

    /**
     * The cell of a plain INSERT, decoded without the general path's branches: flags exactly
     * USE_ROW_TIMESTAMP (live, not expiring, a value, the row's timestamp), then the value, of the
     * column's fixed length or after a one-byte length. Leaves everything else, and anything that
     * does not fit in the row, to {@link #readCell}, which decodes or refuses it with its message:
     * {@code pos} moves only when this cell is taken. The fields are the general path's for such a
     * cell, but for the path offset, which a cell without a path leaves unset. Returns whether it
     * took the cell.
     */
    private boolean readPlainCell(Row r, int k, int column, int fixedLength, long rowTs) {
        final byte[] b = buf;
        final int p = pos, end = bodyEnd;
        if (p >= end || b[p] != DataLayout.CELL_USE_ROW_TIMESTAMP) return false;
        int v = p + 1, len;
        if (fixedLength >= 0) {
            len = fixedLength;
        } else {
            if (v >= end) return false;
            len = b[v++];
            if (len < 0) return false; // a length of 128 or more: a longer vint
        }
        if (len > end - v) return false;
        r.cellValueOffset[k] = v - mark;
        r.cellValueLength[k] = len;
        r.cellColumn[k] = column;
        r.cellTimestamp[k] = rowTs;
        if (k >= r.plainCellsUpTo) {
            r.cellFlags[k] = DataLayout.CELL_USE_ROW_TIMESTAMP;
            r.cellTtl[k] = 0;
            r.cellLdt[k] = NO_DELETION_TIME;
            r.cellPathLength[k] = -1;
            if (k == r.plainCellsUpTo) r.plainCellsUpTo = k + 1;
        }
        pos = v + len;
        return true;
    }

    @Override
    public void close() throws IOException {
        chunks.close();
    }

    // ---- flyweights ------------------------------------------------------------------------------

    /** The current partition's header; offsets are into {@link #buffer()}. */
    public final class Partition {
        long startOffset, endOffset;
        int keyOffset, keyLength, headerLength;
        long deletionTimestamp, deletionLdt;

        /** Stream offset of the partition's first byte (the key length). */
        public long startOffset() { return startOffset; }

        /** Stream offset after the end-of-partition byte, once {@link #PARTITION_END} was returned; -1 before. */
        public long endOffset() { return endOffset; }

        /** Key length field + key + partition deletion. */
        public int headerLength() { return headerLength; }

        /** Valid while the cursor is at this partition's PARTITION_START (the window may move after). */
        public int keyOffset() { return mark + keyOffset; }

        public int keyLength() { return keyLength; }

        public byte[] keyCopy() {
            return java.util.Arrays.copyOfRange(buf, mark + keyOffset, mark + keyOffset + keyLength);
        }

        public boolean isDeleted() { return deletionTimestamp != NO_TIMESTAMP || deletionLdt != NO_DELETION_TIME; }

        public long deletionTimestamp() { return deletionTimestamp; }

        public long deletionLocalTime() { return deletionLdt; }
    }

    /** Sets {@code out} to a clustering of {@code size} values at buffer offsets {@code mark + offsets[i]}; false if one is null. */
    private boolean fillClustering(ClusteringBuffer out, byte kind, int size, int[] offsets, int[] lengths) {
        out.reset(kind, size);
        boolean noNull = true;
        for (int i = 0; i < size; i++) {
            int length = lengths[i];
            if (length < 0) {
                out.set(i, null, 0, 0);
                noNull = false;
            } else {
                out.set(i, buf, mark + offsets[i], length);
            }
        }
        return noNull;
    }

    /** The current row (regular or static), its columns and cells. */
    public final class Row {
        long offset, endOffset;
        /** Window offset (from the item's start) of the first byte after prev_size, and the bytes from there to the row's end. */
        int fieldsOffset, fieldsLength;
        /** The row's prev_size: the size of the item before it in its partition. */
        long prevSize;
        /**
         * Whether a complex deletion was read as LIVE by its timestamp although its bytes held
         * another local deletion time: then the decoded fields do not encode back to these bytes.
         */
        boolean complexDeletionTimeDropped;
        /** Whether the body was stepped over ({@link #skipBody}): its cells are unknown. */
        boolean skipped;
        /**
         * Whether every cell of the row was read by the plain path: simple columns only, one cell
         * each, flags exactly USE_ROW_TIMESTAMP, the value after a one-byte length or of the column's
         * fixed length. False until the body is read.
         */
        boolean cellsPlain;
        int flags, extFlags;
        boolean isStatic;
        int clusteringSize;
        int[] clusteringOffset, clusteringLength;
        long livenessTimestamp, livenessExpiration;
        int livenessTtl;
        long deletionTimestamp, deletionLdt;
        int columnCount;
        int[] columnIndex, columnFirstCell, columnCellCount;
        long[] columnDeletionTimestamp, columnDeletionLdt;
        int cellCount;
        /**
         * Cell slots [0, plainCellsUpTo) hold a plain cell's constant fields (flags, ttl, local
         * deletion time, no path) from an earlier row, so the next plain cell there writes only what
         * varies; column slots [0, simpleColumnsUpTo) hold a simple column's (its one cell, no
         * deletion). A slot written with other values cuts its prefix back.
         */
        int plainCellsUpTo, simpleColumnsUpTo;
        /** Column slots [0, identityColumnsUpTo) hold their own index (every column present), as above. */
        int identityColumnsUpTo;
        int[] cellFlags = new int[INITIAL_CELLS], cellColumn = new int[INITIAL_CELLS], cellTtl = new int[INITIAL_CELLS];
        long[] cellTimestamp = new long[INITIAL_CELLS], cellLdt = new long[INITIAL_CELLS];
        int[] cellPathOffset = new int[INITIAL_CELLS], cellPathLength = new int[INITIAL_CELLS];
        int[] cellValueOffset = new int[INITIAL_CELLS], cellValueLength = new int[INITIAL_CELLS];
        private final Cell cell = new Cell(this);

        void growColumns(int n) {
            int m = Math.max(1, n);
            columnIndex = new int[m];
            columnFirstCell = new int[m];
            columnCellCount = new int[m];
            columnDeletionTimestamp = new long[m];
            columnDeletionLdt = new long[m];
            simpleColumnsUpTo = 0;
            identityColumnsUpTo = 0;
        }

        void growClustering(int n) {
            clusteringOffset = new int[n];
            clusteringLength = new int[n];
        }

        void growCells(int needed) {
            int n = Math.max(needed, cellFlags.length * 2);
            cellFlags = java.util.Arrays.copyOf(cellFlags, n);
            cellColumn = java.util.Arrays.copyOf(cellColumn, n);
            cellTtl = java.util.Arrays.copyOf(cellTtl, n);
            cellTimestamp = java.util.Arrays.copyOf(cellTimestamp, n);
            cellLdt = java.util.Arrays.copyOf(cellLdt, n);
            cellPathOffset = java.util.Arrays.copyOf(cellPathOffset, n);
            cellPathLength = java.util.Arrays.copyOf(cellPathLength, n);
            cellValueOffset = java.util.Arrays.copyOf(cellValueOffset, n);
            cellValueLength = java.util.Arrays.copyOf(cellValueLength, n);
        }

        public boolean isStatic() { return isStatic; }

        /** Refuses a read of what the body holds while it is pending or was skipped. */
        private void checkBody() {
            if (bodyPending || skipped) {
                throw new IllegalStateException("the body of the row at " + offset + " of " + dataPath
                        + (skipped ? " was skipped" : " is not decoded yet"));
            }
        }

        /** Whether the row's body was stepped over by {@link #skipBody}. */
        public boolean isBodySkipped() { return skipped; }

        /** Whether a present column is complex (from the header: known before the body is decoded). */
        public boolean hasComplexColumn() {
            if (isStatic ? staticAllSimple : regularAllSimple) return false; // the usual table: no column to look at
            final boolean[] complex = isStatic ? staticComplex : regularComplex;
            for (int j = 0; j < columnCount; j++) {
                if (complex[columnIndex[j]]) return true;
            }
            return false;
        }

        /** Cassandra's Row.isEmpty: no liveness, no deletion, no cell and no complex deletion. */
        public boolean isEmpty() {
            checkBody();
            if (hasLiveness() || isDeleted()) return false;
            for (int j = 0; j < columnCount; j++) {
                if (!isComplex(j) || columnCellCount[j] > 0 || columnDeletionTimestamp[j] != NO_TIMESTAMP) return false;
            }
            return true;
        }

        /** Stream offset of the row's flags byte, and after its last byte. */
        public long offset() { return offset; }

        /**
         * Offset in {@link #buffer()} of the row's first byte after its prev_size vint (liveness,
         * deletion, column subset and column data follow, to the row's end): what a copy of the row
         * can take as it is, since only row_size and prev_size depend on where the row lies.
         */
        public int fieldsOffset() { return mark + fieldsOffset; }

        /** Bytes from {@link #fieldsOffset()} to the row's end. */
        public int fieldsLength() { return fieldsLength; }

        /** The window offset every relative offset of the current item is taken from: the row's flags byte. */
        int base() { return mark; }

        /** The row's bytes from {@link #base()}, flags byte to last byte. */
        int length() { return fieldsOffset + fieldsLength; }

        public long endOffset() { return endOffset; }

        public int flags() { return flags; }

        public int extendedFlags() { return extFlags; }

        public boolean hasShadowableDeletion() { return (extFlags & DataLayout.HAS_SHADOWABLE_DELETION) != 0; }

        public int clusteringSize() { return clusteringSize; }

        public int clusteringOffset(int i) { return mark + clusteringOffset[i]; }

        /** -1 for a null component (not in rows written by Cassandra or us), 0 for an empty one. */
        public int clusteringLength(int i) { return clusteringLength[i]; }

        /**
         * Points {@code out} at this row's clustering (kind CLUSTERING), each value a range of the
         * cursor's buffer, valid until the cursor moves; false if a value is null (its source is then null).
         */
        public boolean clusteringInto(ClusteringBuffer out) {
            return fillClustering(out, ClusteringBound.CLUSTERING, clusteringSize, clusteringOffset, clusteringLength);
        }

        public boolean hasLiveness() { return livenessTimestamp != NO_TIMESTAMP; }

        public long livenessTimestamp() { return livenessTimestamp; }

        public int livenessTtl() { return livenessTtl; }

        public long livenessExpirationTime() { return livenessExpiration; }

        public boolean isDeleted() { return deletionTimestamp != NO_TIMESTAMP || deletionLdt != NO_DELETION_TIME; }

        public long deletionTimestamp() { return deletionTimestamp; }

        public long deletionLocalTime() { return deletionLdt; }

        /** Columns present in the row (a simple cell, or a complex column with a deletion and/or cells). */
        public int columnCount() { return columnCount; }

        /** Header index (among {@link SerializationHeader#staticColumns()} or {@code regularColumns()}) of present column j. */
        public int columnIndex(int j) { return columnIndex[j]; }

        public ColumnMetadata column(int j) {
            return (isStatic ? header.staticColumns() : header.regularColumns())[columnIndex[j]];
        }

        public boolean isComplex(int j) { return (isStatic ? staticComplex : regularComplex)[columnIndex[j]]; }

        /** Complex deletion of present column j, as Cassandra's row builder keeps it: LIVE unless its timestamp is set. */
        public long complexDeletionTimestamp(int j) {
            checkBody();
            return columnDeletionTimestamp[j];
        }

        public long complexDeletionLocalTime(int j) {
            checkBody();
            return columnDeletionLdt[j];
        }

        public int firstCell(int j) {
            checkBody();
            return columnFirstCell[j];
        }

        public int cellCount(int j) {
            checkBody();
            return columnCellCount[j];
        }

        /** All cells of the row, in column order then path order. Refused while the body is pending or skipped. */
        public int cellCount() {
            checkBody();
            return cellCount;
        }

        /** The flyweight re-wrapped at cell {@code k}; the same instance every call. */
        public Cell cell(int k) {
            cell.index = k;
            return cell;
        }
    }

    /** One cell of the current row. */
    public final class Cell {
        private final Row r;
        int index;

        Cell(Row r) { this.r = r; }

        public int flags() { return r.cellFlags[index]; }

        /** Index (into the row's present columns) of the cell's column. */
        public int columnSlot() { return r.cellColumn[index]; }

        public long timestamp() { return r.cellTimestamp[index]; }

        public int ttl() { return r.cellTtl[index]; }

        public long localDeletionTime() { return r.cellLdt[index]; }

        public boolean isTombstone() { return r.cellTtl[index] == 0 && r.cellLdt[index] != NO_DELETION_TIME; }

        public boolean isExpiring() { return r.cellTtl[index] != 0; }

        public boolean hasPath() { return r.cellPathLength[index] >= 0; }

        /** Where the path starts in {@link #buffer()}; meaningful only when {@link #hasPath()}. */
        public int pathOffset() { return mark + r.cellPathOffset[index]; }

        public int pathLength() { return r.cellPathLength[index]; }

        public int valueOffset() { return mark + r.cellValueOffset[index]; }

        public int valueLength() { return r.cellValueLength[index]; }
    }

    /** The current range tombstone marker. */
    public final class Marker {
        long offset, endOffset;
        int kind;
        boolean boundary;
        int clusteringSize;
        int[] clusteringOffset, clusteringLength;
        long firstTimestamp, firstLdt, secondTimestamp, secondLdt;

        public long offset() { return offset; }

        public long endOffset() { return endOffset; }

        /** The marker's {@link ClusteringBound} kind: a bound or a boundary, never a row or the static clustering. */
        public int kind() { return kind; }

        public boolean isBoundary() { return boundary; }

        public boolean isStart() { return kind == ClusteringBound.INCL_START_BOUND || kind == ClusteringBound.EXCL_START_BOUND; }

        public int clusteringSize() { return clusteringSize; }

        public int clusteringOffset(int i) { return mark + clusteringOffset[i]; }

        public int clusteringLength(int i) { return clusteringLength[i]; }

        /** As {@link Row#clusteringInto}, with the marker's bound kind. */
        public boolean clusteringInto(ClusteringBuffer out) {
            return fillClustering(out, (byte) kind, clusteringSize, clusteringOffset, clusteringLength);
        }

        /** A bound's deletion, or a boundary's ending deletion. */
        public long deletionTimestamp() { return firstTimestamp; }

        public long deletionLocalTime() { return firstLdt; }

        /** A boundary's starting deletion. */
        public long startDeletionTimestamp() { return secondTimestamp; }

        public long startDeletionLocalTime() { return secondLdt; }
    }
}

package dev.flushline.sstable;

import dev.flushline.data.ClusteringBuffer;
import dev.flushline.data.DeletionTime;
import dev.flushline.io.FixedBuffer;

import java.util.Arrays;

/**
 * The row index blocks of one partition, as every format's row index records them: the
 * partition's unfiltereds cut into blocks of at least {@code column_index_size} bytes, each with
 * its first and last clustering name, its offset and width in the partition, and the range
 * deletion still open at its end. What a format writes from them (BIG: the promoted index in an
 * Index.db entry) is its {@link PartitionIndexWriter}'s business; the cutting is shared, so it is
 * done here, on the partition writer's per-row path, with no call per row into a format.
 *
 * <p>A block closes after the unfiltered that takes it to {@code column_index_size} bytes (from the
 * block's start), and the last block also covers the end-of-partition byte. Offsets are relative
 * to the partition start.
 *
 * <p>Two forms, one per partition (the row source decides): names as references to {@code byte[][]}
 * clusterings (memtable rows, valid until the partition's index entry is written), or copied from
 * flyweights ({@link ClusteringBuffer}s of a cursor window that moves on) into buffers kept across
 * partitions. Arrays grow to the largest partition seen and are reused: nothing is allocated per
 * partition once they have grown.
 *
 * <p>Thread safety: none; owned by one partition writer.
 */
public final class RowIndexBlocks {
    public static final int DEFAULT_COLUMN_INDEX_SIZE_BYTES = 64 * 1024;

    private final int columnIndexSizeBytes;

    private int count;
    private byte[] firstKinds = new byte[8];
    private byte[][][] firstValues = new byte[8][][];
    private byte[] lastKinds = new byte[8];
    private byte[][][] lastValues = new byte[8][][];
    private long[] offsets = new long[8];
    private long[] widths = new long[8];
    private DeletionTime[] endOpen = new DeletionTime[8];

    private boolean blockOpen;
    private byte blockFirstKind;
    private byte[][] blockFirstValues;
    private long blockStart;
    private byte lastKind;
    private byte[][] lastVals;
    private DeletionTime openMarker = DeletionTime.LIVE;
    private long endOffset = -1;

    public RowIndexBlocks(int columnIndexSizeBytes) {
        this.columnIndexSizeBytes = columnIndexSizeBytes;
    }

    public void reset() {
        count = 0;
        endOffset = -1;
        blockOpen = false;
        openMarker = DeletionTime.LIVE;
        openTs = Long.MIN_VALUE;
        openLdt = Long.MAX_VALUE;
        blockFirstValues = null;
        lastVals = null;
        lastRef = lastBuf;
        flyweight = false;
    }

    /**
     * After writing an unfiltered that started at {@code startOffset} and ended at {@code endOffset}
     * (relative to the partition). {@code openAfter}: the range deletion still open after it.
     */
    public void added(byte kind, byte[][] values, long startOffset, long endOffset, DeletionTime openAfter) {
        if (!blockOpen) {
            blockOpen = true;
            blockFirstKind = kind;
            blockFirstValues = values;
            blockStart = startOffset;
        }
        lastKind = kind;
        lastVals = values;
        openMarker = openAfter;
        if (endOffset - blockStart >= columnIndexSizeBytes) {
            closeBlock(endOffset);
        }
    }

    // The flyweight form (compaction): the item's clustering lives in a cursor window that moves on,
    // so the first and last names of each block are copied into reusable buffers (one pair per
    // block, kept across partitions), and nothing is allocated per partition or row.
    private boolean flyweight;
    private ClusteringBuffer[] firstBufs = new ClusteringBuffer[0];
    private ClusteringBuffer[] lastBufs = new ClusteringBuffer[0];
    private final ClusteringBuffer blockFirstBuf = new ClusteringBuffer(4);
    private final ClusteringBuffer lastBuf = new ClusteringBuffer(4);
    /**
     * The last item's prefix: {@link #lastBuf}, a copy, or the caller's own buffer when the caller
     * holds it unchanged until its next call (see {@link #added(ClusteringBuffer, boolean, long, long,
     * long, long)}).
     */
    private ClusteringBuffer lastRef = lastBuf;
    private long openTs = Long.MIN_VALUE, openLdt = Long.MAX_VALUE;

    /**
     * As {@link #added(byte, byte[][], long, long, DeletionTime)}, for a flyweight prefix and open
     * deletion. {@code held}: the caller keeps {@code values} pointing at this item's bytes, unchanged,
     * until its next call here or {@link #finish} (a flush's row record, which is not re-wrapped
     * before then); the prefix is then kept by reference instead of being copied for every row.
     */
    public void added(ClusteringBuffer values, boolean held, long startOffset, long endOffset, long openAfterTs, long openAfterLdt) {
        flyweight = true;
        if (!blockOpen) {
            blockOpen = true;
            blockFirstKind = values.kind();
            blockFirstBuf.copyFrom(values);
            blockStart = startOffset;
        }
        if (held) {
            lastRef = values;
        } else {
            lastBuf.copyFrom(values);
            lastRef = lastBuf;
        }
        lastKind = values.kind();
        if (openAfterTs != openTs || openAfterLdt != openLdt) {
            openTs = openAfterTs;
            openLdt = openAfterLdt;
            openMarker = DeletionTime.of(openAfterTs, openAfterLdt);
        }
        if (endOffset - blockStart >= columnIndexSizeBytes) {
            closeBlock(endOffset);
        }
    }

    /**
     * The prefix last given to {@link #added(ClusteringBuffer, boolean, long, long, long, long)}: a copy,
     * or the caller's own buffer if it said it holds it; valid until the next such call or {@link #finish}.
     */
    public ClusteringBuffer lastAdded() {
        return lastRef;
    }

    private ClusteringBuffer pooled(ClusteringBuffer[] pool, int i) {
        if (pool[i] == null) pool[i] = new ClusteringBuffer(4);
        return pool[i];
    }

    /** After the end-of-partition byte; {@code endOffset} includes it. */
    public void finish(long endOffset) {
        this.endOffset = endOffset;
        if (blockOpen) closeBlock(endOffset);
    }

    private void closeBlock(long endOffset) {
        if (count == offsets.length) grow();
        if (flyweight) {
            if (count >= firstBufs.length) {
                firstBufs = Arrays.copyOf(firstBufs, Math.max(8, offsets.length));
                lastBufs = Arrays.copyOf(lastBufs, Math.max(8, offsets.length));
            }
            pooled(firstBufs, count).copyFrom(blockFirstBuf);
            pooled(lastBufs, count).copyFrom(lastRef);
        }
        firstKinds[count] = blockFirstKind;
        firstValues[count] = blockFirstValues;
        lastKinds[count] = lastKind;
        lastValues[count] = lastVals;
        offsets[count] = blockStart;
        widths[count] = endOffset - blockStart;
        endOpen[count] = openMarker;
        count++;
        blockOpen = false;
    }

    private void grow() {
        int n = offsets.length * 2;
        firstKinds = Arrays.copyOf(firstKinds, n);
        firstValues = Arrays.copyOf(firstValues, n);
        lastKinds = Arrays.copyOf(lastKinds, n);
        lastValues = Arrays.copyOf(lastValues, n);
        offsets = Arrays.copyOf(offsets, n);
        widths = Arrays.copyOf(widths, n);
        endOpen = Arrays.copyOf(endOpen, n);
    }

    /** Blocks of the partition. Valid after {@link #finish}. */
    public int blockCount() {
        return count;
    }

    /** Block {@code i}'s start, from the partition start. */
    public long blockOffset(int i) {
        return offsets[i];
    }

    /** Block {@code i}'s bytes. */
    public long blockWidth(int i) {
        return widths[i];
    }

    /** The range deletion open at the end of block {@code i}, or LIVE. */
    public DeletionTime openAfterBlock(int i) {
        return endOpen[i];
    }

    /**
     * Where the partition's unfiltereds end, from the partition start: the offset of its
     * end-of-partition byte. Valid after {@link #finish}.
     */
    public long endOffset() {
        return endOffset - 1;
    }

    // Block names one by one, for a format that encodes them itself (BTI's byte-comparable keys):
    // flyweight partitions hold them in buffers, the others as kind and value arrays.

    /** Block {@code i}'s first name as a buffer, or null when the partition's names are arrays. */
    public ClusteringBuffer firstBuffer(int i) {
        return flyweight ? firstBufs[i] : null;
    }

    /** Block {@code i}'s last name as a buffer, or null when the partition's names are arrays. */
    public ClusteringBuffer lastBuffer(int i) {
        return flyweight ? lastBufs[i] : null;
    }

    /** Block {@code i}'s first name's kind. REQUIRES: {@link #firstBuffer} is null. */
    public byte firstKind(int i) {
        return firstKinds[i];
    }

    /** Block {@code i}'s first name's values. REQUIRES: {@link #firstBuffer} is null. */
    public byte[][] firstValues(int i) {
        return firstValues[i];
    }

    /** Block {@code i}'s last name's kind. REQUIRES: {@link #lastBuffer} is null. */
    public byte lastKind(int i) {
        return lastKinds[i];
    }

    /** Block {@code i}'s last name's values. REQUIRES: {@link #lastBuffer} is null. */
    public byte[][] lastValues(int i) {
        return lastValues[i];
    }

    /** Bytes of block {@code i}'s first and last names in {@code layout}'s prefix-with-kind form. */
    public int namesSize(ClusteringLayout layout, int i) {
        if (flyweight) return layout.prefixSize(firstBufs[i]) + layout.prefixSize(lastBufs[i]);
        return layout.prefixSize(firstKinds[i], firstValues[i]) + layout.prefixSize(lastKinds[i], lastValues[i]);
    }

    /** Writes block {@code i}'s first and last names in {@code layout}'s prefix-with-kind form. */
    public void putNames(FixedBuffer out, ClusteringLayout layout, int i) {
        if (flyweight) {
            layout.putPrefix(out, firstBufs[i]);
            layout.putPrefix(out, lastBufs[i]);
        } else {
            layout.putPrefix(out, firstKinds[i], firstValues[i]);
            layout.putPrefix(out, lastKinds[i], lastValues[i]);
        }
    }
}

package dev.flushline.sstable;

import dev.flushline.data.ClusteringBuffer;
import dev.flushline.data.DeletionTime;
import dev.flushline.io.FixedBuffer;
import dev.flushline.io.VInt;

import java.util.Arrays;

/**
 * The promoted row index of one partition, stored in its Index.db entry: the partition's
 * unfiltereds cut into blocks of at least {@code column_index_size} bytes, each described by an
 * IndexInfo.
 *
 * <pre>
 * promoted_index := header_length:uvint partition_deletion(DeletionTimeLayout) block_count:uvint
 *                   index_info*  info_offset:i32*
 * index_info     := first_name last_name offset:uvint width:svint(width - 65536) has_open:bool [open:DeletionTimeLayout]
 * </pre>
 * Offsets are relative to the partition start; a block closes after the unfiltered that takes it
 * to {@code column_index_size} bytes, and the last block also covers the end-of-partition byte.
 * Only partitions with two or more blocks get a promoted index.
 *
 * <p>Arrays grow to the largest partition seen and are reused: nothing is allocated per partition
 * once they have grown. The first/last names are references into the memtable's rows, valid
 * until the partition's index entry is written.
 *
 * <p>Thread safety: none; owned by one flush writer.
 */
public final class RowIndexBuilder {
    public static final int DEFAULT_COLUMN_INDEX_SIZE_BYTES = 64 * 1024;
    static final long WIDTH_BASE = IndexLayout.WIDTH_BASE;

    private final int columnIndexSizeBytes;
    private final ClusteringLayout layout;
    private final SSTableVersion version;

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

    /** An oa index builder. */
    public RowIndexBuilder(ClusteringLayout layout, int columnIndexSizeBytes) {
        this(layout, columnIndexSizeBytes, SSTableVersion.OA);
    }

    /** {@code version} picks the encoding of the deletion times (partition, open markers) only. */
    public RowIndexBuilder(ClusteringLayout layout, int columnIndexSizeBytes, SSTableVersion version) {
        this.version = version;
        this.layout = layout;
        this.columnIndexSizeBytes = columnIndexSizeBytes;
    }

    public void reset() {
        count = 0;
        blockOpen = false;
        openMarker = DeletionTime.LIVE;
        openTs = Long.MIN_VALUE;
        openLdt = Long.MAX_VALUE;
        blockFirstValues = null;
        lastVals = null;
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
    private long openTs = Long.MIN_VALUE, openLdt = Long.MAX_VALUE;

    /** As {@link #added(byte, byte[][], long, long, DeletionTime)}, for a flyweight prefix and open deletion. */
    public void added(ClusteringBuffer values, long startOffset, long endOffset, long openAfterTs, long openAfterLdt) {
        flyweight = true;
        if (!blockOpen) {
            blockOpen = true;
            blockFirstKind = values.kind();
            blockFirstBuf.copyFrom(values);
            blockStart = startOffset;
        }
        lastBuf.copyFrom(values);
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

    private ClusteringBuffer pooled(ClusteringBuffer[] pool, int i) {
        if (pool[i] == null) pool[i] = new ClusteringBuffer(4);
        return pool[i];
    }

    /** After the end-of-partition byte; {@code endOffset} includes it. */
    public void finish(long endOffset) {
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
            pooled(lastBufs, count).copyFrom(lastBuf);
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

    public int blockCount() {
        return count;
    }

    /** Whether the index entry carries a promoted index. */
    public boolean isPromoted() {
        return count > 1;
    }

    private int namesSize(int i) {
        if (flyweight) return layout.prefixSize(firstBufs[i]) + layout.prefixSize(lastBufs[i]);
        return layout.prefixSize(firstKinds[i], firstValues[i]) + layout.prefixSize(lastKinds[i], lastValues[i]);
    }

    private int indexInfoSize(int i) {
        int size = namesSize(i)
                + VInt.sizeOfUnsigned(offsets[i]) + VInt.sizeOfSigned(widths[i] - WIDTH_BASE) + 1;
        if (!endOpen[i].isLive()) size += DeletionTimeLayout.size(version, endOpen[i]);
        return size;
    }

    /** Bytes of the promoted index (what promoted_size counts). REQUIRES: {@link #isPromoted()}. */
    public int promotedSize(long headerLength, DeletionTime partitionDeletion) {
        int size = VInt.sizeOfUnsigned(headerLength) + DeletionTimeLayout.size(version, partitionDeletion) + VInt.sizeOfUnsigned(count);
        for (int i = 0; i < count; i++) size += indexInfoSize(i) + Integer.BYTES;
        return size;
    }

    public void writePromoted(FixedBuffer out, long headerLength, DeletionTime partitionDeletion) {
        out.putUnsignedVInt(headerLength);
        DeletionTimeLayout.put(version, out, partitionDeletion);
        out.putUnsignedVInt(count);
        int infoStart = out.position();
        for (int i = 0; i < count; i++) {
            if (flyweight) {
                layout.putPrefix(out, firstBufs[i]);
                layout.putPrefix(out, lastBufs[i]);
            } else {
                layout.putPrefix(out, firstKinds[i], firstValues[i]);
                layout.putPrefix(out, lastKinds[i], lastValues[i]);
            }
            out.putUnsignedVInt(offsets[i]);
            out.putSignedVInt(widths[i] - WIDTH_BASE);
            boolean hasOpen = !endOpen[i].isLive();
            out.putBoolean(hasOpen);
            if (hasOpen) DeletionTimeLayout.put(version, out, endOpen[i]);
        }
        // The offsets table: each IndexInfo's offset from the first, recomputed from the same sizes.
        int infoOffset = 0;
        for (int i = 0; i < count; i++) {
            out.putInt(infoOffset);
            infoOffset += indexInfoSize(i);
        }
        if (out.position() - infoStart != infoOffset + 4 * count) {
            throw new IllegalStateException("IndexInfo sizes disagree with bytes written: " + infoOffset + " vs "
                    + (out.position() - infoStart - 4 * count));
        }
    }
}

package dev.flushline.sstable.big;

import dev.flushline.data.Cell;
import dev.flushline.io.VInt;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.sstable.BoundedReader;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.CorruptSSTableException;
import dev.flushline.sstable.DataLayout;
import dev.flushline.sstable.DeletionTimeLayout;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.SSTableVersion;

import java.nio.file.Path;

/**
 * Walks Index.db entries ({@link BigIndexLayout}) over the whole file in memory, decoding each
 * promoted row index's header and block offsets and widths (the clustering names are walked, not
 * kept). Every field is bounds-checked; a corrupt entry throws {@link CorruptSSTableException}
 * with its offset.
 *
 * <p>Thread safety: none.
 */
public final class IndexReader {
    private final BoundedReader in;
    private final int[] clusteringFixed;

    private long entryOffset;
    private int keyOffset, keyLength;
    private long dataPosition;
    private int promotedSize;
    private long headerLength;
    private long deletionTimestamp, deletionLdt;
    private int blockCount;
    private int openMarkers;
    private long[] blockOffsets = new long[8], blockWidths = new long[8];
    /** oa (1- or 12-byte deletion times, mfda first) or nb (always 12 bytes, ldt first). */
    private final boolean unsignedDeletionTime;

    /** The Index.db of {@code f}, in its version's deletion time layout. */
    public static IndexReader open(SSTableFiles f, ColumnMetadata[] clustering) throws java.io.IOException {
        return new IndexReader(f.path(Component.INDEX), f.readAll(Component.INDEX), clustering, f.version());
    }

    public IndexReader(Path file, byte[] bytes, ColumnMetadata[] clustering, SSTableVersion version) {
        this.unsignedDeletionTime = version.hasUnsignedDeletionTime();
        this.in = new BoundedReader(file, bytes);
        this.clusteringFixed = new int[clustering.length];
        for (int i = 0; i < clustering.length; i++) clusteringFixed[i] = clustering[i].type().fixedLength();
    }

    /** An IndexInfo's end-open marker: always 12 bytes when present (the oa LIVE form is never written there). */
    private void skipOpenMarker() {
        in.skip(unsignedDeletionTime ? DataLayout.PARTITION_DELETION_DELETED_BYTES : DeletionTimeLayout.LEGACY_BYTES, "open marker");
    }

    public Path file() { return in.file(); }

    public byte[] bytes() { return in.array(); }

    /** Positions the reader at the entry that starts at {@code offset} (from Summary.db). */
    public void seek(long offset) {
        if (offset < 0 || offset > in.limit()) throw in.corrupt(offset, "Index.db position " + offset + " outside the file");
        in.position((int) offset);
    }

    public boolean hasNext() { return in.hasRemaining(); }

    /** Decodes the next entry. REQUIRES: {@link #hasNext()}. */
    public void next() {
        entryOffset = in.fileOffset();
        keyLength = in.u16("index key length");
        long at = in.fileOffset();
        in.skip(keyLength, "index key");
        keyOffset = (int) at;
        dataPosition = in.unsignedVInt("data position");
        if (dataPosition < 0) throw in.corrupt(at + keyLength, "data position " + Long.toUnsignedString(dataPosition) + " is negative");
        long sizeAt = in.fileOffset();
        promotedSize = in.length(in.unsignedVInt("promoted index size"), sizeAt, "promoted index");
        blockCount = 0;
        openMarkers = 0;
        if (promotedSize == 0) return;
        int end = in.position() + promotedSize;
        headerLength = in.unsignedVInt("promoted header length");
        long delAt = in.fileOffset();
        if (!unsignedDeletionTime) {
            int ldt = in.i32("promoted deletion time");
            deletionTimestamp = in.i64("promoted deletion timestamp");
            if (ldt == DeletionTimeLayout.LEGACY_LIVE_LOCAL_DELETION_TIME && deletionTimestamp == Long.MIN_VALUE) {
                deletionLdt = Long.MAX_VALUE;
            } else {
                deletionLdt = ldt < 0 ? Cell.INVALID_DELETION_TIME : ldt;
            }
        } else {
            int first = in.u8("promoted partition deletion");
            if ((first & DataLayout.PARTITION_DELETION_LIVE_BYTE) != 0) {
                if (first != DataLayout.PARTITION_DELETION_LIVE_BYTE) throw in.corrupt(delAt, "partition deletion flags 0x" + Integer.toHexString(first));
                deletionTimestamp = Long.MIN_VALUE;
                deletionLdt = Long.MAX_VALUE;
            } else {
                in.position(in.position() - 1);
                deletionTimestamp = in.i64("promoted deletion timestamp");
                int ldt = in.i32("promoted deletion time");
                deletionLdt = ldt == -1 ? Long.MAX_VALUE : ldt & 0xFFFFFFFFL;
            }
        }
        long countAt = in.fileOffset();
        long count = in.unsignedVInt("index block count");
        if (count < 2 || count > (end - in.position()) / BigIndexLayout.INFO_OFFSET_BYTES) {
            throw in.corrupt(countAt, "index block count " + Long.toUnsignedString(count) + " does not fit the promoted index");
        }
        blockCount = (int) count;
        if (blockOffsets.length < blockCount) {
            blockOffsets = new long[blockCount];
            blockWidths = new long[blockCount];
        }
        int infoStart = in.position();
        int offsetsStart = end - BigIndexLayout.INFO_OFFSET_BYTES * blockCount;
        for (int b = 0; b < blockCount; b++) {
            int infoAt = in.position();
            skipPrefix();
            skipPrefix();
            blockOffsets[b] = in.unsignedVInt("index block offset");
            blockWidths[b] = VInt.unZigZag(in.unsignedVInt("index block width")) + BigIndexLayout.WIDTH_BASE;
            if (in.u8("index block open marker flag") != 0) {
                openMarkers++;
                skipOpenMarker();
            }
            if (in.position() > offsetsStart) throw in.corrupt(infoAt, "index block " + b + " runs into the offset table");
            int stored = BoundedReader.getInt(in.array(), offsetsStart + BigIndexLayout.INFO_OFFSET_BYTES * b);
            if (stored != infoAt - infoStart) {
                throw in.corrupt(offsetsStart + BigIndexLayout.INFO_OFFSET_BYTES * b, "index block " + b + " offset table says "
                        + stored + ", the block is at " + (infoAt - infoStart));
            }
        }
        if (in.position() != offsetsStart) throw in.corrupt(in.fileOffset(), "promoted index has " + (offsetsStart - in.position()) + " stray bytes");
        in.position(end);
    }

    private void skipPrefix() {
        long at = in.fileOffset();
        int kind = in.u8("clustering prefix kind");
        int size;
        if (kind == 4) {
            size = clusteringFixed.length;
        } else {
            if (kind > 7 || kind == 3) throw in.corrupt(at, "clustering prefix kind " + kind);
            size = in.u16("clustering prefix size");
            if (size > clusteringFixed.length) throw in.corrupt(at, "clustering prefix of " + size + " values; the table has " + clusteringFixed.length);
        }
        for (int blockStart = 0; blockStart < size; blockStart += DataLayout.CLUSTERING_BLOCK_SIZE) {
            long header = in.unsignedVInt("clustering block header");
            int blockEnd = Math.min(size, blockStart + DataLayout.CLUSTERING_BLOCK_SIZE);
            for (int i = blockStart; i < blockEnd; i++) {
                if (((header >>> (2 * (i - blockStart))) & 3) != 0) continue;
                if (clusteringFixed[i] >= 0) in.skip(clusteringFixed[i], "clustering value");
                else in.skipVIntBytes("clustering value");
            }
        }
    }

    public long entryOffset() { return entryOffset; }

    public int keyOffset() { return keyOffset; }

    public int keyLength() { return keyLength; }

    public long dataPosition() { return dataPosition; }

    public int promotedSize() { return promotedSize; }

    public long headerLength() { return headerLength; }

    public long deletionTimestamp() { return deletionTimestamp; }

    public long deletionLocalTime() { return deletionLdt; }

    /** 0 when the entry has no promoted index. */
    public int blockCount() { return blockCount; }

    /** How many of the current entry's index blocks end inside a range tombstone (carry an open marker). */
    public int openMarkerCount() { return openMarkers; }

    public long blockOffset(int b) { return blockOffsets[b]; }

    public long blockWidth(int b) { return blockWidths[b]; }
}

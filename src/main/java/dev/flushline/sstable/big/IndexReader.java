package dev.flushline.sstable.big;

import dev.flushline.data.Cell;
import dev.flushline.io.VInt;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.CorruptSSTableException;
import dev.flushline.sstable.DataLayout;
import dev.flushline.sstable.DeletionTimeLayout;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.SSTableVersion;
import dev.flushline.sstable.StreamingReader;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Walks Index.db entries ({@link BigIndexLayout}) streamed through a window of fixed size
 * ({@link StreamingReader}), so a walk holds the same memory whatever the file's size: each
 * entry's key is copied out into an array of this reader's own (grown only for a key longer than
 * any before), and each promoted row index is decoded as it streams past: its header, partition
 * deletion and block offsets and widths (the clustering names are walked, not kept), then the
 * table of IndexInfo offsets that ends it, checked against where each IndexInfo was found. Every
 * field is bounds-checked; a corrupt or truncated entry throws {@link CorruptSSTableException}
 * with the file and its offset.
 *
 * <p>Thread safety: none. Owns its file channel: {@link #close} it.
 */
public final class IndexReader implements AutoCloseable {
    /**
     * The window a walk streams Index.db through: one read per some thousand entries of a small
     * key, and small enough that a compaction of many inputs, which walks all their indexes at
     * once for its key count, holds little (four 64 KiB windows were a quarter of its 1 MiB).
     */
    public static final int WALK_WINDOW_BYTES = 16 * 1024;
    /**
     * The window of a lookup, which reads from a Summary.db sample to the key: at most an index
     * interval of entries, most of them a few dozen bytes.
     */
    public static final int LOOKUP_WINDOW_BYTES = 8 * 1024;

    /** An entry's key length is a u16. */
    private static final int MAX_KEY_BYTES = 0xFFFF;

    private final StreamingReader in;
    private final int[] clusteringFixed;

    private long entryOffset;
    private byte[] key = new byte[64];
    private int keyLength;
    private long dataPosition;
    private int promotedSize;
    private long headerLength;
    private long deletionTimestamp, deletionLdt;
    private int blockCount;
    private int openMarkers;
    private long[] blockOffsets = new long[8], blockWidths = new long[8];
    /** Where each IndexInfo of the current promoted index starts, relative to the first: what its offset table must say. */
    private long[] infoStarts = new long[8];
    /** oa (1- or 12-byte deletion times, mfda first) or nb (always 12 bytes, ldt first). */
    private final boolean unsignedDeletionTime;

    /** The Index.db of {@code f}, in its version's deletion time layout, through a window of {@code windowBytes}. */
    public static IndexReader open(SSTableFiles f, ColumnMetadata[] clustering, int windowBytes) throws IOException {
        StreamingReader in = StreamingReader.open(f, Component.INDEX, windowBytes);
        try {
            return new IndexReader(in, clustering, f.version());
        } catch (RuntimeException | Error e) {
            in.close();
            throw e;
        }
    }

    /** The Index.db of {@code f} for a walk from its start. */
    public static IndexReader open(SSTableFiles f, ColumnMetadata[] clustering) throws IOException {
        return open(f, clustering, WALK_WINDOW_BYTES);
    }

    private IndexReader(StreamingReader in, ColumnMetadata[] clustering, SSTableVersion version) {
        this.unsignedDeletionTime = version.hasUnsignedDeletionTime();
        this.in = in;
        this.clusteringFixed = new int[clustering.length];
        for (int i = 0; i < clustering.length; i++) clusteringFixed[i] = clustering[i].type().fixedLength();
    }

    /** An IndexInfo's end-open marker: always 12 bytes when present (the oa LIVE form is never written there). */
    private void skipOpenMarker() {
        in.skip(unsignedDeletionTime ? DataLayout.PARTITION_DELETION_DELETED_BYTES : DeletionTimeLayout.LEGACY_BYTES, "open marker");
    }

    public Path file() { return in.file(); }

    /** The file's length when it was opened. */
    public long fileLength() { return in.length(); }

    /** Positions the reader at the entry that starts at {@code offset} (from Summary.db). */
    public void seek(long offset) {
        if (offset < 0 || offset > in.length()) throw in.corrupt(offset, "Index.db position " + offset + " outside the file");
        in.seek(offset);
    }

    public boolean hasNext() { return in.hasRemaining(); }

    /** Decodes the next entry. REQUIRES: {@link #hasNext()}. */
    public void next() throws IOException {
        entryOffset = in.fileOffset();
        keyLength = in.u16("index key length");
        long at = in.fileOffset();
        if (key.length < keyLength) key = new byte[Math.min(MAX_KEY_BYTES, Math.max(keyLength, 2 * key.length))];
        in.read(key, 0, keyLength, "index key");
        dataPosition = in.unsignedVInt("data position");
        if (dataPosition < 0) throw in.corrupt(at + keyLength, "data position " + Long.toUnsignedString(dataPosition) + " is negative");
        long sizeAt = in.fileOffset();
        long size = in.length(in.unsignedVInt("promoted index size"), sizeAt, "promoted index");
        if (size > Integer.MAX_VALUE) throw in.corrupt(sizeAt, "promoted index of " + size + " bytes");
        promotedSize = (int) size;
        blockCount = 0;
        openMarkers = 0;
        if (promotedSize == 0) return;
        long end = in.fileOffset() + promotedSize;
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
            int first = in.peekU8("promoted partition deletion");
            if ((first & DataLayout.PARTITION_DELETION_LIVE_BYTE) != 0) {
                if (first != DataLayout.PARTITION_DELETION_LIVE_BYTE) throw in.corrupt(delAt, "partition deletion flags 0x" + Integer.toHexString(first));
                in.skip(1, "promoted partition deletion");
                deletionTimestamp = Long.MIN_VALUE;
                deletionLdt = Long.MAX_VALUE;
            } else {
                deletionTimestamp = in.i64("promoted deletion timestamp");
                int ldt = in.i32("promoted deletion time");
                deletionLdt = ldt == -1 ? Long.MAX_VALUE : ldt & 0xFFFFFFFFL;
            }
        }
        long countAt = in.fileOffset();
        long count = in.unsignedVInt("index block count");
        if (count < 2 || count > (end - in.fileOffset()) / BigIndexLayout.INFO_OFFSET_BYTES) {
            throw in.corrupt(countAt, "index block count " + Long.toUnsignedString(count) + " does not fit the promoted index");
        }
        blockCount = (int) count;
        if (blockOffsets.length < blockCount) growBlocks(blockCount);
        long infoStart = in.fileOffset();
        long offsetsStart = end - (long) BigIndexLayout.INFO_OFFSET_BYTES * blockCount;
        for (int b = 0; b < blockCount; b++) {
            long infoAt = in.fileOffset();
            skipPrefix();
            skipPrefix();
            blockOffsets[b] = in.unsignedVInt("index block offset");
            blockWidths[b] = VInt.unZigZag(in.unsignedVInt("index block width")) + BigIndexLayout.WIDTH_BASE;
            if (in.u8("index block open marker flag") != 0) {
                openMarkers++;
                skipOpenMarker();
            }
            if (in.fileOffset() > offsetsStart) throw in.corrupt(infoAt, "index block " + b + " runs into the offset table");
            infoStarts[b] = infoAt - infoStart;
        }
        if (in.fileOffset() != offsetsStart) throw in.corrupt(in.fileOffset(), "promoted index has " + (offsetsStart - in.fileOffset()) + " stray bytes");
        // The offset table follows the IndexInfos it points at, so it is checked once they have streamed past.
        for (int b = 0; b < blockCount; b++) {
            long tableAt = in.fileOffset();
            int stored = in.i32("index block offset table");
            if (stored != infoStarts[b]) {
                throw in.corrupt(tableAt, "index block " + b + " offset table says " + stored + ", the block is at " + infoStarts[b]);
            }
        }
    }

    /** Cold path: room for a promoted index of {@code n} blocks. */
    private void growBlocks(int n) {
        blockOffsets = new long[n];
        blockWidths = new long[n];
        infoStarts = new long[n];
    }

    private void skipPrefix() throws IOException {
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

    /** The array holding the current entry's key at {@link #keyOffset()}; overwritten by the next entry. */
    public byte[] keyArray() { return key; }

    public int keyOffset() { return 0; }

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

    @Override
    public void close() throws IOException {
        in.close();
    }
}

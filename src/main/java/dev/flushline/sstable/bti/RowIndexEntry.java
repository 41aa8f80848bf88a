package dev.flushline.sstable.bti;

import dev.flushline.io.VInt;
import dev.flushline.sstable.BoundedReader;
import dev.flushline.sstable.DataLayout;

import java.nio.file.Path;

/**
 * A flyweight over one Rows.db entry ({@link RowsLayout}): the partition's key, Data.db position,
 * row index trie root, block count and partition deletion, decoded with every field checked
 * against the file. Standalone deletion times are in oa's form, da's (see
 * {@code DeletionTimeLayout}): LIVE reads as timestamp {@link Long#MIN_VALUE} and local time
 * {@link Long#MAX_VALUE}, as the cursor reports a live partition.
 *
 * <p>Thread safety: none.
 */
final class RowIndexEntry {
    private final BoundedReader in;

    long entryOffset;
    int keyOffset, keyLength;
    long dataPosition;
    long root;
    int blockCount;
    long deletionTimestamp, deletionLocalTime;
    /** The offset just past the entry. */
    long end;

    RowIndexEntry(Path file, byte[] bytes) {
        this.in = new BoundedReader(file, bytes);
    }

    byte[] bytes() { return in.array(); }

    Path file() { return in.file(); }

    /** Decodes the entry at {@code position}. */
    void read(long position) {
        if (position < 0 || position >= in.limit()) {
            throw in.corrupt(Math.max(0, Math.min(position, in.limit())), "row index entry position " + position
                    + " is outside Rows.db's " + in.limit() + " bytes");
        }
        in.position((int) position);
        entryOffset = position;
        long at = in.fileOffset();
        keyLength = in.length(in.u16("row index entry key length"), at, "row index entry key");
        keyOffset = in.position();
        in.skip(keyLength, "row index entry key");
        long base = in.fileOffset();
        dataPosition = in.unsignedVInt("row index entry data position");
        if (dataPosition < 0) throw in.corrupt(base, "data position " + Long.toUnsignedString(dataPosition) + " is negative");
        at = in.fileOffset();
        long delta = VInt.unZigZag(in.unsignedVInt("row index trie root"));
        root = base + delta;
        if (delta >= 0 || root < 0) {
            throw in.corrupt(at, "row index trie root " + root + " is not before its entry at " + entryOffset);
        }
        at = in.fileOffset();
        blockCount = in.unsignedVInt32("row index block count");
        if (blockCount < RowsLayout.MIN_BLOCKS) {
            throw in.corrupt(at, "row index block count " + blockCount + " (an entry is written for " + RowsLayout.MIN_BLOCKS
                    + " or more blocks)");
        }
        readDeletion("partition deletion");
        deletionTimestamp = timestamp;
        deletionLocalTime = localTime;
        end = in.fileOffset();
    }

    private long timestamp, localTime;

    /** Reads a standalone deletion time at the reader's position into {@link #timestamp} and {@link #localTime}. */
    private void readDeletion(String what) {
        long at = in.fileOffset();
        int first = in.u8(what);
        if ((first & DataLayout.PARTITION_DELETION_LIVE_BYTE) != 0) {
            if (first != DataLayout.PARTITION_DELETION_LIVE_BYTE) throw in.corrupt(at, what + " flags 0x" + Integer.toHexString(first));
            timestamp = Long.MIN_VALUE;
            localTime = Long.MAX_VALUE;
            return;
        }
        in.position(in.position() - 1);
        timestamp = in.i64(what + " timestamp");
        int ldt = in.i32(what + " local deletion time");
        localTime = ldt == -1 ? Long.MAX_VALUE : ldt & 0xFFFFFFFFL;
    }

    /**
     * Decodes a row index payload at {@code at} (array offset) with payload flags {@code flags}:
     * its offset into {@link #blockOffset}, its open deletion (or LIVE) into {@link #openTimestamp}
     * and {@link #openLocalTime}. REQUIRES: flags != 0.
     */
    void readBlock(int at, int flags) {
        int width = RowsLayout.offsetBytes(flags);
        if (width == 0) throw in.corrupt(at, "row index payload flags 0x" + Integer.toHexString(flags) + " give no offset");
        in.position(at);
        in.skip(width, "row index block offset");
        blockOffset = SizedInts.read(in.array(), at, width);
        if (RowsLayout.hasOpenMarker(flags)) {
            readDeletion("row index open marker");
            if (timestamp == Long.MIN_VALUE) throw in.corrupt(at + width, "row index open marker is LIVE");
            openTimestamp = timestamp;
            openLocalTime = localTime;
        } else {
            openTimestamp = Long.MIN_VALUE;
            openLocalTime = Long.MAX_VALUE;
        }
    }

    long blockOffset;
    long openTimestamp, openLocalTime;
}

package dev.flushline.sstable.big;

import dev.flushline.data.DeletionTime;
import dev.flushline.io.FixedBuffer;
import dev.flushline.io.SyncedFileOutput;
import dev.flushline.io.VInt;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.ClusteringLayout;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.DeletionTimeLayout;
import dev.flushline.sstable.Descriptor;
import dev.flushline.sstable.PartitionIndexWriter;
import dev.flushline.sstable.RowIndexBlocks;
import dev.flushline.sstable.SSTableVersion;

import java.io.DataOutputStream;
import java.io.IOException;

/**
 * The BIG partition index of one sstable being written: an Index.db entry per partition (with a
 * promoted row index when the partition has two or more row index blocks) streamed to the file
 * as the partitions come, and the Summary.db sample of those entries, written at the end with the
 * first and last keys. Layouts: {@link BigIndexLayout}; the deletion times take the version's
 * {@link DeletionTimeLayout} form, the block names {@link ClusteringLayout}'s prefix-with-kind form.
 *
 * <p>Each entry is sized from the same layout as it is written ({@code promotedSize} and
 * {@code writePromoted} walk the same blocks) and checked against the bytes written. Nothing is
 * allocated per partition once the entry buffer has grown to the largest entry.
 *
 * <p>Thread safety: none; owned by the sstable's writer.
 */
public final class BigIndexWriter implements PartitionIndexWriter {
    private static final int SUMMARY_BLOCK_BYTES = 64 * 1024;

    private final Descriptor descriptor;
    private final SSTableVersion version;
    private final ClusteringLayout layout;
    private final SyncedFileOutput index;
    private final SummaryBuilder summary;
    private FixedBuffer entry = new FixedBuffer(4096);

    /** Creates Index.db in {@code descriptor}'s staging directory. */
    public BigIndexWriter(Descriptor descriptor, TableSchema schema) throws IOException {
        this.descriptor = descriptor;
        this.version = descriptor.version();
        this.layout = new ClusteringLayout(schema);
        this.summary = new SummaryBuilder(schema.minIndexInterval());
        this.index = new SyncedFileOutput(descriptor.stagingPath(Component.INDEX), SyncedFileOutput.DEFAULT_BLOCK_BYTES);
    }

    @Override
    public void add(byte[] key, int keyLength, long keyHash1, long keyHash2, long dataPosition, long headerLength,
                    long deletionTimestamp, long deletionLocalTime, RowIndexBlocks blocks) throws IOException {
        long indexPosition = index.position();
        int promoted = blocks.blockCount() > 1 ? promotedSize(blocks, headerLength, deletionTimestamp, deletionLocalTime) : 0;
        int size = BigIndexLayout.KEY_LENGTH_BYTES + keyLength + VInt.sizeOfUnsigned(dataPosition) + VInt.sizeOfUnsigned(promoted)
                + promoted;
        if (entry.capacity() < size) {
            entry = new FixedBuffer(Math.max(size, entry.capacity() * 2));
        }
        FixedBuffer out = entry;
        out.clear();
        out.putShort(keyLength);
        out.putBytes(key, 0, keyLength);
        out.putUnsignedVInt(dataPosition);
        out.putUnsignedVInt(promoted);
        if (promoted > 0) writePromoted(out, blocks, headerLength, deletionTimestamp, deletionLocalTime);
        FixedBuffer.checkWritten("Index.db entry", size, out.position());
        index.write(out.array(), 0, size);
        summary.maybeAdd(key, 0, keyLength, indexPosition);
    }

    private int indexInfoSize(RowIndexBlocks blocks, int i) {
        int size = blocks.namesSize(layout, i) + VInt.sizeOfUnsigned(blocks.blockOffset(i))
                + VInt.sizeOfSigned(blocks.blockWidth(i) - BigIndexLayout.WIDTH_BASE) + 1;
        DeletionTime open = blocks.openAfterBlock(i);
        if (!open.isLive()) size += DeletionTimeLayout.size(version, open);
        return size;
    }

    /** Bytes of the promoted index (what promoted_size counts). REQUIRES: two or more blocks. */
    private int promotedSize(RowIndexBlocks blocks, long headerLength, long deletionTimestamp, long deletionLocalTime) {
        int count = blocks.blockCount();
        int size = VInt.sizeOfUnsigned(headerLength) + DeletionTimeLayout.size(version, deletionTimestamp, deletionLocalTime)
                + VInt.sizeOfUnsigned(count);
        for (int i = 0; i < count; i++) size += indexInfoSize(blocks, i) + BigIndexLayout.INFO_OFFSET_BYTES;
        return size;
    }

    private void writePromoted(FixedBuffer out, RowIndexBlocks blocks, long headerLength, long deletionTimestamp,
                               long deletionLocalTime) {
        int count = blocks.blockCount();
        out.putUnsignedVInt(headerLength);
        DeletionTimeLayout.put(version, out, deletionTimestamp, deletionLocalTime);
        out.putUnsignedVInt(count);
        int infoStart = out.position();
        for (int i = 0; i < count; i++) {
            blocks.putNames(out, layout, i);
            out.putUnsignedVInt(blocks.blockOffset(i));
            out.putSignedVInt(blocks.blockWidth(i) - BigIndexLayout.WIDTH_BASE);
            DeletionTime open = blocks.openAfterBlock(i);
            boolean hasOpen = !open.isLive();
            out.putBoolean(hasOpen);
            if (hasOpen) DeletionTimeLayout.put(version, out, open);
        }
        // The offsets table: each IndexInfo's offset from the first, recomputed from the same sizes.
        int infoOffset = 0;
        for (int i = 0; i < count; i++) {
            out.putInt(infoOffset);
            infoOffset += indexInfoSize(blocks, i);
        }
        if (out.position() - infoStart != infoOffset + BigIndexLayout.INFO_OFFSET_BYTES * count) {
            throw new IllegalStateException("IndexInfo sizes disagree with bytes written: " + infoOffset + " vs "
                    + (out.position() - infoStart - BigIndexLayout.INFO_OFFSET_BYTES * count));
        }
    }

    @Override
    public void finishPartitions() throws IOException {
        index.sync();
        index.close();
    }

    @Override
    public void finish(byte[] firstKey, byte[] lastKey) throws IOException {
        try (SyncedFileOutput f = new SyncedFileOutput(descriptor.stagingPath(Component.SUMMARY), SUMMARY_BLOCK_BYTES)) {
            DataOutputStream out = new DataOutputStream(f.asOutputStream());
            summary.serialize(out, firstKey, lastKey);
            out.flush();
            f.sync();
        }
    }

    @Override
    public void abort() {
        index.abort();
    }
}

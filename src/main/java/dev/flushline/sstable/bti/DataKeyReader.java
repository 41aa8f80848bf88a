package dev.flushline.sstable.bti;

import dev.flushline.sstable.CorruptSSTableException;
import dev.flushline.sstable.DataChunks;

import java.io.IOException;
import java.util.Arrays;

/**
 * Reads the partition key at a Data.db position (u16 length + bytes, how every partition starts),
 * through the file's chunks (decompressed and CRC-checked by {@link DataChunks}): where
 * Partitions.db points into Data.db it holds only a prefix of the key, and the key itself is there.
 * Keeps the last chunk it loaded, so keys read in partition order load each chunk about once.
 *
 * <p>Thread safety: none.
 */
final class DataKeyReader implements AutoCloseable {
    private final DataChunks chunks;
    private byte[] chunk;
    private int loaded = -1;
    private int loadedSize;
    private byte[] key = new byte[64];
    private int keyLength;

    DataKeyReader(DataChunks chunks) {
        this.chunks = chunks;
        this.chunk = new byte[chunks.chunkLength()];
    }

    /** Reads the key of the partition at {@code position}; then see {@link #key()} and {@link #keyLength()}. */
    void read(long position) throws IOException {
        long length = chunks.length();
        if (position < 0 || position + PartitionsLayout.KEY_LENGTH_BYTES > length) {
            throw new CorruptSSTableException(chunks.dataPath(), Math.max(0, Math.min(position, length)), "partition position "
                    + position + " is outside Data.db's " + length + " bytes");
        }
        int high = byteAt(position), low = byteAt(position + 1);
        int n = (high << 8) | low;
        if (position + PartitionsLayout.KEY_LENGTH_BYTES + n > length) {
            throw new CorruptSSTableException(chunks.dataPath(), position, "partition key of " + n + " bytes runs past Data.db's end");
        }
        if (key.length < n) key = new byte[Math.max(n, key.length * 2)];
        long p = position + PartitionsLayout.KEY_LENGTH_BYTES;
        int copied = 0;
        while (copied < n) {
            int c = (int) ((p + copied) / chunks.chunkLength());
            load(c);
            int inChunk = (int) (p + copied - (long) c * chunks.chunkLength());
            int take = Math.min(n - copied, loadedSize - inChunk);
            System.arraycopy(chunk, inChunk, key, copied, take);
            copied += take;
        }
        keyLength = n;
    }

    private int byteAt(long position) throws IOException {
        int c = (int) (position / chunks.chunkLength());
        load(c);
        return chunk[(int) (position - (long) c * chunks.chunkLength())] & 0xFF;
    }

    private void load(int c) throws IOException {
        if (c == loaded) return;
        loaded = -1; // a failed load leaves nothing cached
        loadedSize = chunks.load(c, chunk, 0);
        loaded = c;
    }

    byte[] key() { return key; }

    int keyLength() { return keyLength; }

    /** Whether the key read last equals {@code other[offset, offset + length)}. */
    boolean keyEquals(byte[] other, int offset, int length) {
        return Arrays.equals(key, 0, keyLength, other, offset, offset + length);
    }

    @Override
    public void close() throws IOException {
        chunks.close();
    }
}

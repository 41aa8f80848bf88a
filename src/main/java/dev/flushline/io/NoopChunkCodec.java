package dev.flushline.io;

/**
 * Cassandra's NoopCompressor: the chunk stored as it is, in the compressed layout (chunk offsets
 * and a CRC per chunk). What a flush writes for a compressed table under
 * {@code flush_compression: none}, and what a table may name itself.
 */
public final class NoopChunkCodec extends ChunkCodec {
    public static final String NAME = "NoopCompressor";

    @Override
    public String compressorName() { return NAME; }

    @Override
    public int maxCompressedLength(int uncompressedLength) {
        return uncompressedLength;
    }

    @Override
    public int compress(byte[] src, int srcOffset, int length, byte[] dst, int dstOffset) {
        System.arraycopy(src, srcOffset, dst, dstOffset, length);
        return length;
    }

    @Override
    public void decompress(byte[] src, int srcOffset, int length, byte[] dst, int dstOffset, int expectedLength)
            throws ChunkCodecException {
        if (length != expectedLength) {
            throw new ChunkCodecException("uncompressed (Noop) block of " + length + " bytes, expected " + expectedLength);
        }
        System.arraycopy(src, srcOffset, dst, dstOffset, length);
    }
}

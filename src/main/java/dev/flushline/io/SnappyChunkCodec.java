package dev.flushline.io;

import java.io.IOException;

import org.xerial.snappy.Snappy;

/**
 * Cassandra's SnappyCompressor through snappy-java's native library: each chunk is one raw
 * snappy block (a varint of the uncompressed length, then the elements), no framing.
 *
 * <p>snappy-java trusts the length a block declares when it writes the output, so a block is
 * decompressed only once that length is checked to be the expected one. No native state is held.
 */
public final class SnappyChunkCodec extends ChunkCodec {
    public static final String NAME = "SnappyCompressor";

    public SnappyChunkCodec() {
        try {
            Snappy.getNativeLibraryVersion(); // as Cassandra's create() does: fail here, not mid-flush
        } catch (Error | RuntimeException e) {
            throw new IllegalStateException("SnappyCompressor needs snappy-java's native library, which does not load on this"
                    + " platform: " + e, e);
        }
    }

    @Override
    public String compressorName() { return NAME; }

    @Override
    public int maxCompressedLength(int uncompressedLength) {
        return Snappy.maxCompressedLength(uncompressedLength);
    }

    @Override
    public int compress(byte[] src, int srcOffset, int length, byte[] dst, int dstOffset) {
        try {
            return Snappy.compress(src, srcOffset, length, dst, dstOffset);
        } catch (IOException e) {
            // Compressing into a buffer of maxCompressedLength cannot fail; an error here is a bug.
            throw new IllegalStateException("snappy compression failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void decompress(byte[] src, int srcOffset, int length, byte[] dst, int dstOffset, int expectedLength)
            throws ChunkCodecException {
        try {
            int declared = Snappy.uncompressedLength(src, srcOffset, length);
            if (declared != expectedLength) {
                throw new ChunkCodecException("snappy block declares " + declared + " uncompressed bytes, expected " + expectedLength);
            }
            int n = Snappy.uncompress(src, srcOffset, length, dst, dstOffset);
            if (n != expectedLength) {
                throw new ChunkCodecException("snappy block decompresses to " + n + " bytes, expected " + expectedLength);
            }
        } catch (ChunkCodecException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw new ChunkCodecException("snappy block does not decompress: " + e.getMessage(), e);
        }
    }
}

package dev.flushline.io;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;

/**
 * Cassandra's ZstdCompressor through zstd-jni: each chunk is one zstd frame at the table's
 * {@code compression_level}, with the frame's content checksum on (as Cassandra writes it).
 *
 * <p>Cassandra makes a fresh compression context per chunk; this codec keeps one context per
 * sstable, set up once with the same level and checksum flag. zstd starts every frame from a
 * reset session, so the frames are the same bytes, and the flush allocates nothing per chunk.
 * The contexts are native memory, created on first use (a reader needs no compression context)
 * and freed by {@link #close()}.
 */
public final class ZstdChunkCodec extends ChunkCodec {
    public static final String NAME = "ZstdCompressor";

    private final int level;
    private ZstdCompressCtx compressCtx;
    private ZstdDecompressCtx decompressCtx;

    public ZstdChunkCodec(int level) {
        this.level = level;
    }

    public int level() { return level; }

    @Override
    public String compressorName() { return NAME; }

    @Override
    public int maxCompressedLength(int uncompressedLength) {
        return (int) Zstd.compressBound(uncompressedLength);
    }

    @Override
    public int compress(byte[] src, int srcOffset, int length, byte[] dst, int dstOffset) {
        ZstdCompressCtx c = compressCtx;
        if (c == null) c = compressCtx = new ZstdCompressCtx().setLevel(level).setChecksum(true);
        return c.compressByteArray(dst, dstOffset, dst.length - dstOffset, src, srcOffset, length);
    }

    @Override
    public void decompress(byte[] src, int srcOffset, int length, byte[] dst, int dstOffset, int expectedLength)
            throws ChunkCodecException {
        ZstdDecompressCtx d = decompressCtx;
        if (d == null) d = decompressCtx = new ZstdDecompressCtx();
        int n;
        try {
            n = d.decompressByteArray(dst, dstOffset, expectedLength, src, srcOffset, length);
        } catch (ZstdException e) {
            throw new ChunkCodecException("zstd frame does not decompress to " + expectedLength + " bytes: " + e.getMessage(), e);
        }
        if (n != expectedLength) {
            throw new ChunkCodecException("zstd frame decompresses to " + n + " bytes, expected " + expectedLength);
        }
    }

    @Override
    public void close() {
        if (compressCtx != null) {
            compressCtx.close();
            compressCtx = null;
        }
        if (decompressCtx != null) {
            decompressCtx.close();
            decompressCtx = null;
        }
    }
}

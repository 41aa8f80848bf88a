package dev.flushline.io;

import java.nio.ByteBuffer;

import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

/**
 * Cassandra's LZ4Compressor through lz4-java's fastest implementation: the fast compressor, or
 * the high (HC) one at a level of 1..17 ({@code lz4_compressor_type: high}).
 *
 * <pre>
 *   +0   u32 LITTLE-endian uncompressed length   (LENGTH_PREFIX_BYTES)
 *   +4   LZ4 block, no frame header
 * </pre>
 *
 * <p>lz4-java's compressors and decompressors are stateless; this class holds no native state.
 */
public final class Lz4ChunkCodec extends ChunkCodec {
    public static final String NAME = "LZ4Compressor";
    public static final int LENGTH_PREFIX_BYTES = 4;

    private static final LZ4Factory FACTORY = LZ4Factory.fastestInstance();
    private static final LZ4Compressor FAST = FACTORY.fastCompressor();
    /** The safe decompressor never reads or writes out of bounds on a bad block. */
    private static final LZ4SafeDecompressor DECOMPRESSOR = FACTORY.safeDecompressor();

    private final LZ4Compressor compressor;

    /** The fast compressor, the table default. */
    public Lz4ChunkCodec() {
        this.compressor = FAST;
    }

    /** The high compressor at {@code level} (1..17) when {@code high}, else the fast one. */
    public Lz4ChunkCodec(boolean high, int level) {
        this.compressor = high ? FACTORY.highCompressor(level) : FAST;
    }

    @Override
    public String compressorName() { return NAME; }

    @Override
    public int maxCompressedLength(int uncompressedLength) {
        return LENGTH_PREFIX_BYTES + compressor.maxCompressedLength(uncompressedLength);
    }

    @Override
    public int compress(byte[] src, int srcOffset, int length, byte[] dst, int dstOffset) {
        dst[dstOffset] = (byte) length;
        dst[dstOffset + 1] = (byte) (length >>> 8);
        dst[dstOffset + 2] = (byte) (length >>> 16);
        dst[dstOffset + 3] = (byte) (length >>> 24);
        int blockStart = dstOffset + LENGTH_PREFIX_BYTES;
        return LENGTH_PREFIX_BYTES + compressor.compress(src, srcOffset, length, dst, blockStart, dst.length - blockStart);
    }

    @Override
    public void decompress(byte[] src, int srcOffset, int length, byte[] dst, int dstOffset, int expectedLength)
            throws ChunkCodecException {
        checkPrefix(length, length < LENGTH_PREFIX_BYTES ? 0 : (src[srcOffset] & 0xFF) | ((src[srcOffset + 1] & 0xFF) << 8)
                | ((src[srcOffset + 2] & 0xFF) << 16) | ((src[srcOffset + 3] & 0xFF) << 24), expectedLength);
        try {
            checkDecompressed(DECOMPRESSOR.decompress(src, srcOffset + LENGTH_PREFIX_BYTES, length - LENGTH_PREFIX_BYTES, dst,
                    dstOffset, expectedLength), expectedLength);
        } catch (LZ4Exception e) {
            throw notDecompressed(e);
        }
    }

    /**
     * As {@link #decompress(byte[], int, int, byte[], int, int)}, from {@code src[srcOffset, srcOffset + length)} by
     * absolute index (a read-only mapping of Data.db: the block is read where the page cache holds it) into the
     * array behind {@code dst}. Neither buffer's position or limit is used or changed.
     */
    public void decompress(ByteBuffer src, int srcOffset, int length, ByteBuffer dst, int dstOffset, int expectedLength)
            throws ChunkCodecException {
        checkPrefix(length, length < LENGTH_PREFIX_BYTES ? 0 : (src.get(srcOffset) & 0xFF) | ((src.get(srcOffset + 1) & 0xFF) << 8)
                | ((src.get(srcOffset + 2) & 0xFF) << 16) | ((src.get(srcOffset + 3) & 0xFF) << 24), expectedLength);
        try {
            checkDecompressed(DECOMPRESSOR.decompress(src, srcOffset + LENGTH_PREFIX_BYTES, length - LENGTH_PREFIX_BYTES, dst,
                    dstOffset, expectedLength), expectedLength);
        } catch (LZ4Exception e) {
            throw notDecompressed(e);
        }
    }

    /** Cassandra's block: a little-endian i32 of the uncompressed length, then the LZ4 block. */
    private static void checkPrefix(int length, int declared, int expectedLength) throws ChunkCodecException {
        if (length < LENGTH_PREFIX_BYTES) {
            throw new ChunkCodecException("LZ4 block of " + length + " bytes has no length prefix");
        }
        if (declared != expectedLength) {
            throw new ChunkCodecException("LZ4 block declares " + Integer.toUnsignedString(declared)
                    + " uncompressed bytes, expected " + expectedLength);
        }
    }

    private static ChunkCodecException notDecompressed(LZ4Exception e) {
        return new ChunkCodecException("LZ4 block does not decompress: " + e.getMessage(), e);
    }

    private static void checkDecompressed(int n, int expectedLength) throws ChunkCodecException {
        if (n != expectedLength) {
            throw new ChunkCodecException("LZ4 block decompresses to " + n + " bytes, expected " + expectedLength);
        }
    }
}

package dev.flushline.io;

/**
 * One of Cassandra's five sstable compressors, as the chunked Data.db layout uses it
 * ({@link DataFileLayout}): a chunk of logical bytes in, one compressed block out, and back.
 * Each final subclass makes exactly the bytes of its Cassandra counterpart, through the library
 * Cassandra itself uses at the release it depends on.
 *
 * <p>The codec is chosen once per sstable. The chunk loops ({@link CompressedDataSink} writing,
 * the sstable reader's chunk loader reading) do not call the abstract methods: they split on the
 * concrete class with {@link #compress(ChunkCodec, byte[], int, int, byte[], int)} and
 * {@link #decompress(ChunkCodec, byte[], int, int, byte[], int, int)}, so every call site in a
 * loop names one final class and the JIT binds it statically, whatever codecs the JVM has seen.
 *
 * <p>Thread safety: none. A codec may hold native state (a zstd context, a zlib stream), so each
 * writer or reader owns its own instance and {@link #close()}s it.
 */
public abstract sealed class ChunkCodec implements AutoCloseable
        permits Lz4ChunkCodec, ZstdChunkCodec, SnappyChunkCodec, DeflateChunkCodec, NoopChunkCodec {

    ChunkCodec() {}

    /** The simple class name Cassandra stores in CompressionInfo.db, e.g. {@code LZ4Compressor}. */
    public abstract String compressorName();

    /**
     * Room the compressed form of {@code uncompressedLength} bytes may need: Cassandra's
     * {@code initialCompressedBufferLength} for this compressor.
     */
    public abstract int maxCompressedLength(int uncompressedLength);

    /**
     * Compresses {@code src[srcOffset, srcOffset + length)} into {@code dst} from {@code dstOffset}
     * and returns the compressed length. REQUIRES: {@link #maxCompressedLength} bytes of room.
     */
    public abstract int compress(byte[] src, int srcOffset, int length, byte[] dst, int dstOffset);

    /**
     * Decompresses the block {@code src[srcOffset, srcOffset + length)} into {@code dst} from
     * {@code dstOffset}, which must come to exactly {@code expectedLength} bytes.
     * REQUIRES: {@code expectedLength} bytes of room. Never writes outside that room, whatever the
     * block holds.
     *
     * @throws ChunkCodecException if the block is not a valid block of this codec, or holds
     *         another number of bytes
     */
    public abstract void decompress(byte[] src, int srcOffset, int length, byte[] dst, int dstOffset, int expectedLength)
            throws ChunkCodecException;

    /** Releases native state, if any. Idempotent; the codec must not be used afterwards. */
    @Override
    public void close() {}

    /** {@link #compress}, split by concrete class for the chunk loop. */
    public static int compress(ChunkCodec codec, byte[] src, int srcOffset, int length, byte[] dst, int dstOffset) {
        if (codec instanceof Lz4ChunkCodec) return ((Lz4ChunkCodec) codec).compress(src, srcOffset, length, dst, dstOffset);
        if (codec instanceof ZstdChunkCodec) return ((ZstdChunkCodec) codec).compress(src, srcOffset, length, dst, dstOffset);
        if (codec instanceof SnappyChunkCodec) return ((SnappyChunkCodec) codec).compress(src, srcOffset, length, dst, dstOffset);
        if (codec instanceof DeflateChunkCodec) return ((DeflateChunkCodec) codec).compress(src, srcOffset, length, dst, dstOffset);
        return ((NoopChunkCodec) codec).compress(src, srcOffset, length, dst, dstOffset);
    }

    /** {@link #decompress}, split by concrete class for the chunk loop. */
    public static void decompress(ChunkCodec codec, byte[] src, int srcOffset, int length, byte[] dst, int dstOffset,
                                  int expectedLength) throws ChunkCodecException {
        if (codec instanceof Lz4ChunkCodec) {
            ((Lz4ChunkCodec) codec).decompress(src, srcOffset, length, dst, dstOffset, expectedLength);
        } else if (codec instanceof ZstdChunkCodec) {
            ((ZstdChunkCodec) codec).decompress(src, srcOffset, length, dst, dstOffset, expectedLength);
        } else if (codec instanceof SnappyChunkCodec) {
            ((SnappyChunkCodec) codec).decompress(src, srcOffset, length, dst, dstOffset, expectedLength);
        } else if (codec instanceof DeflateChunkCodec) {
            ((DeflateChunkCodec) codec).decompress(src, srcOffset, length, dst, dstOffset, expectedLength);
        } else {
            ((NoopChunkCodec) codec).decompress(src, srcOffset, length, dst, dstOffset, expectedLength);
        }
    }
}

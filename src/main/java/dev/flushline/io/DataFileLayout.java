package dev.flushline.io;

/**
 * The physical layer of Data.db and its companions (CRC.db or CompressionInfo.db, Digest.crc32),
 * in one place.
 *
 * <pre>
 * Uncompressed: Data.db = logical bytes.
 *   CRC.db            = i32 CRC_CHUNK_BYTES, then per CRC_CHUNK_BYTES of Data.db (last shorter) i32 CRC32
 *
 * Compressed (LZ4), per chunk of chunkLength logical bytes (last shorter):
 *   +0                       u32 LITTLE-endian uncompressed length   (LZ4_LENGTH_PREFIX_BYTES)
 *   +4                       LZ4 block, no frame header
 *   +4+blockLength           i32 BIG-endian CRC32 over [+0, +4+blockLength)   (CHUNK_CRC_BYTES)
 *   CompressionInfo.db = utf compressor name, i32 option count, i32 chunk length,
 *                        i32 max compressed length, i64 uncompressed length, i32 chunk count,
 *                        chunk count x i64 chunk offset (offset of each chunk's length prefix)
 *
 * Digest.crc32 = ASCII decimal of the unsigned CRC32 of the whole Data.db as written, no newline.
 * </pre>
 */
public final class DataFileLayout {
    private DataFileLayout() {}

    /** CRC.db granularity: Cassandra's default SequentialWriter buffer (64 KiB). */
    public static final int CRC_CHUNK_BYTES = 64 * 1024;

    /** Table default chunk_length_in_kb = 16 in Cassandra 5.0.9. */
    public static final int DEFAULT_COMPRESSION_CHUNK_BYTES = 16 * 1024;

    public static final int LZ4_LENGTH_PREFIX_BYTES = 4;
    public static final int CHUNK_CRC_BYTES = 4;

    /** {@code getClass().getSimpleName()} of Cassandra's compressor, as stored in CompressionInfo.db. */
    public static final String LZ4_COMPRESSOR_NAME = "LZ4Compressor";

    /**
     * max_compressed_length when min_compress_ratio is 0 (the table default): chunks are always
     * stored compressed. A smaller value stores a chunk raw when its compressed size reaches it.
     */
    public static final int UNBOUNDED_MAX_COMPRESSED_LENGTH = Integer.MAX_VALUE;

    /** Bytes of one chunk offset in CompressionInfo.db. */
    public static final int CHUNK_OFFSET_BYTES = Long.BYTES;

    /** CompressionInfo.db bytes before the chunk offsets, for a compressor with no options. */
    public static int compressionInfoHeaderSizeBytes(String compressorName) {
        return FixedBuffer.sizeOfUtf(compressorName)
                + Integer.BYTES                    // option count (0: we write no option pairs)
                + Integer.BYTES                    // chunk length
                + Integer.BYTES                    // max compressed length
                + Long.BYTES                       // uncompressed data length
                + Integer.BYTES;                   // chunk count
    }

    /** Compression ratio "not compressed" as Statistics.db stores it. */
    public static final double NO_COMPRESSION_RATIO = -1.0;
}

package dev.flushline.io;

/**
 * The physical layer of Data.db and its companions (CRC.db or CompressionInfo.db, Digest.crc32),
 * in one place.
 *
 * <pre>
 * Uncompressed: Data.db = logical bytes.
 *   CRC.db            = i32 CRC_CHUNK_BYTES, then per CRC_CHUNK_BYTES of Data.db (last shorter) i32 CRC32
 *
 * Compressed, per chunk of chunkLength logical bytes (last shorter):
 *   +0                       the codec's block (see each ChunkCodec), or the raw chunk (below)
 *   +blockLength             i32 BIG-endian CRC32 over [+0, +blockLength)   (CHUNK_CRC_BYTES)
 *   A block that would reach the max compressed length is replaced by the raw chunk, zero-padded
 *   up to the max compressed length when shorter (only the last chunk can be); a reader tells the
 *   two apart by length alone: on disk, raw means blockLength >= max compressed length.
 *
 *   CompressionInfo.db = utf compressor name, i32 option count, option count x (utf name, utf value),
 *                        i32 chunk length, i32 max compressed length, i64 uncompressed length,
 *                        i32 chunk count, chunk count x i64 chunk offset (where each block starts)
 *
 * Digest.crc32 = ASCII decimal of the unsigned CRC32 of the whole Data.db as written, no newline.
 * </pre>
 *
 * <p>What Cassandra's own writers add, and readers must take: an sstable written through a
 * compaction, scrub or upgrade is synced once before it is finished, and the finish flushes the
 * (then empty) buffer again, so it may end with one more chunk that holds no logical bytes: an
 * empty block and its CRC, one more chunk offset, or one more CRC.db entry (0, the CRC of nothing).
 */
public final class DataFileLayout {
    private DataFileLayout() {}

    /** CRC.db granularity: Cassandra's default SequentialWriter buffer (64 KiB). */
    public static final int CRC_CHUNK_BYTES = 64 * 1024;

    /** Table default chunk_length_in_kb = 16 in Cassandra 5.0.9. */
    public static final int DEFAULT_COMPRESSION_CHUNK_BYTES = 16 * 1024;

    public static final int CHUNK_CRC_BYTES = 4;

    /**
     * max_compressed_length when min_compress_ratio is 0 (the table default): chunks are always
     * stored compressed. A smaller value stores a chunk raw when its compressed size reaches it.
     */
    public static final int UNBOUNDED_MAX_COMPRESSED_LENGTH = Integer.MAX_VALUE;

    /** Bytes of one chunk offset in CompressionInfo.db. */
    public static final int CHUNK_OFFSET_BYTES = Long.BYTES;

    /** CompressionInfo.db bytes before the chunk offsets. {@code optionPairs}: name, value, name, value... */
    public static int compressionInfoHeaderSizeBytes(String compressorName, String[] optionPairs) {
        int options = 0;
        for (String s : optionPairs) options += FixedBuffer.sizeOfUtf(s);
        return FixedBuffer.sizeOfUtf(compressorName)
                + Integer.BYTES                    // option count
                + options                          // the pairs
                + Integer.BYTES                    // chunk length
                + Integer.BYTES                    // max compressed length
                + Long.BYTES                       // uncompressed data length
                + Integer.BYTES;                   // chunk count
    }

    /** Compression ratio "not compressed" as Statistics.db stores it. */
    public static final double NO_COMPRESSION_RATIO = -1.0;
}

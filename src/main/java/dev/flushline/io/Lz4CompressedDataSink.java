package dev.flushline.io;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32;

import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;

/**
 * LZ4-chunked Data.db plus CompressionInfo.db and Digest.crc32, byte-identical to Cassandra
 * 5.0.9's CompressedSequentialWriter with its LZ4Compressor (layout in {@link DataFileLayout}).
 *
 * <p>What Cassandra does, and we mirror: the logical stream is cut into chunks of exactly
 * {@code chunkLengthBytes} (last shorter). Each chunk is compressed by lz4-java's
 * {@code fastestInstance().fastCompressor()} behind a 4-byte little-endian length; the per-chunk
 * CRC32 covers that prefix plus the block, and is written big-endian after it. The Digest CRC covers
 * the whole file including those per-chunk CRCs. The compression ratio counts prefix + block
 * (not the CRCs) over logical bytes. A zero-length stream still produces one (empty) chunk, because
 * Cassandra compresses its buffer once at prepare even when empty; CompressionInfo.db then has
 * chunk count 1, which its reader requires.
 *
 * <p>If {@code maxCompressedLengthBytes} is below {@link DataFileLayout#UNBOUNDED_MAX_COMPRESSED_LENGTH}
 * (min_compress_ratio set), a chunk whose prefix + block reaches it is stored raw, zero-padded to
 * that length when shorter, again as Cassandra does. The table default never does this.
 *
 * <p>Memory: the staging chunk, the compressed staging array and the chunk-offset array are
 * allocated once per sink (offsets grow by doubling per chunk count, not per write).
 *
 * <p>Thread safety: none (see {@link DataSink}). The shared lz4-java compressor is stateless.
 */
public final class Lz4CompressedDataSink extends DataSink {
    /** lz4-java compressors are stateless and thread-safe; Cassandra picks the same one. */
    private static final LZ4Compressor COMPRESSOR = LZ4Factory.fastestInstance().fastCompressor();
    private static final int INITIAL_CHUNK_OFFSETS = 128;
    private static final int COMPRESSION_INFO_BLOCK_BYTES = 64 * 1024;

    private final int chunkLengthBytes;
    private final int maxCompressedLengthBytes;
    private final CRC32 chunkCrc = new CRC32();
    /** Logical bytes of the current chunk, [0, stagingFillBytes). */
    private final byte[] staging;
    /** [LE length][LZ4 block or raw chunk][BE CRC]: one write per chunk. */
    private final byte[] compressed;
    private final int maxBlockBytes;
    private int stagingFillBytes;
    private long[] chunkOffsets = new long[INITIAL_CHUNK_OFFSETS];
    private int chunkCount;
    private long uncompressedFlushedBytes;
    /** Sum of prefix + block (or raw) lengths: the numerator of the compression ratio. */
    private long compressedBytes;
    private boolean compressionInfoWritten;

    /** Table defaults: 16 KiB chunks, unbounded max compressed length. */
    public Lz4CompressedDataSink(Path dataPath, Path compressionInfoPath, Path digestPath) throws IOException {
        this(dataPath, compressionInfoPath, digestPath, DataFileLayout.DEFAULT_COMPRESSION_CHUNK_BYTES,
                DataFileLayout.UNBOUNDED_MAX_COMPRESSED_LENGTH, SyncedFileOutput.DEFAULT_BLOCK_BYTES);
    }

    /**
     * REQUIRES: {@code chunkLengthBytes} is a power of two (Cassandra rejects others), and
     * {@code maxCompressedLengthBytes} is either unbounded or in (0, chunkLengthBytes].
     * Creates {@code dataPath} now; CompressionInfo.db and Digest.crc32 (if non-null) at finish.
     */
    public Lz4CompressedDataSink(Path dataPath, Path compressionInfoPath, Path digestPath,
                                 int chunkLengthBytes, int maxCompressedLengthBytes, int blockBytes) throws IOException {
        // Arguments are checked before the superclass creates Data.db.
        super(dataPath, compressionInfoPath, digestPath, checked(chunkLengthBytes, maxCompressedLengthBytes, blockBytes));
        this.chunkLengthBytes = chunkLengthBytes;
        this.maxCompressedLengthBytes = maxCompressedLengthBytes;
        this.staging = new byte[chunkLengthBytes];
        this.maxBlockBytes = COMPRESSOR.maxCompressedLength(chunkLengthBytes);
        // Room for the largest block, or a raw chunk (<= chunk length <= max block), plus both 4-byte fields.
        this.compressed = new byte[DataFileLayout.LZ4_LENGTH_PREFIX_BYTES + maxBlockBytes + DataFileLayout.CHUNK_CRC_BYTES];
    }

    private static int checked(int chunkLengthBytes, int maxCompressedLengthBytes, int blockBytes) {
        if (chunkLengthBytes <= 0 || Integer.bitCount(chunkLengthBytes) != 1) {
            throw new IllegalArgumentException("chunk length must be a positive power of 2: " + chunkLengthBytes);
        }
        if (maxCompressedLengthBytes != DataFileLayout.UNBOUNDED_MAX_COMPRESSED_LENGTH
                && (maxCompressedLengthBytes <= 0 || maxCompressedLengthBytes > chunkLengthBytes)) {
            throw new IllegalArgumentException("max compressed length " + maxCompressedLengthBytes
                    + " must be unbounded or in (0, chunk length " + chunkLengthBytes + "]");
        }
        return blockBytes;
    }

    public int chunkLengthBytes() { return chunkLengthBytes; }

    @Override
    public void write(byte[] src, int offset, int length) throws IOException {
        if ((offset | length) < 0 || length > src.length - offset) {
            throw new IndexOutOfBoundsException("src length " + src.length + " offset " + offset + " length " + length);
        }
        ensureWritable();
        final int chunkLength = chunkLengthBytes;
        int off = offset;
        int left = length;
        while (left > 0) {
            if (stagingFillBytes == 0 && left >= chunkLength) {
                // A whole chunk is available in the caller's array: compress it from there and
                // skip the staging copy.
                writeChunk(src, off, chunkLength);
                off += chunkLength;
                left -= chunkLength;
                continue;
            }
            int n = Math.min(left, chunkLength - stagingFillBytes);
            System.arraycopy(src, off, staging, stagingFillBytes, n);
            stagingFillBytes += n;
            off += n;
            left -= n;
            if (stagingFillBytes == chunkLength) {
                writeChunk(staging, 0, chunkLength);
                stagingFillBytes = 0;
            }
        }
    }

    @Override
    public long uncompressedPosition() {
        return uncompressedFlushedBytes + stagingFillBytes;
    }

    /** Physical Data.db bytes so far (complete chunks only). */
    public long compressedPosition() {
        return data.position();
    }

    @Override
    public void finish() throws IOException {
        ensureWritable();
        try {
            if (stagingFillBytes > 0 || chunkCount == 0) {
                writeChunk(staging, 0, stagingFillBytes);
                stagingFillBytes = 0;
            }
            data.sync();
            data.close();
            writeCompressionInfo();
            completeWithDigest();
        } catch (IOException | RuntimeException | Error e) {
            abort();
            throw e;
        }
    }

    @Override
    void abortCompanion() {
        if (compressionInfoWritten) {
            SyncedFileOutput.deleteQuietly(companionPath);
        }
    }

    /** Same arithmetic as Cassandra's MetadataCollector.addCompressionRatio. */
    @Override
    public double compressionRatio() {
        if (!finished) {
            throw new IllegalStateException("compression ratio is known only after finish(): " + dataPath);
        }
        return (double) compressedBytes / uncompressedFlushedBytes;
    }

    public int chunkCount() { return chunkCount; }

    /** Compresses {@code src[offset, offset+length)} as one chunk and appends it with its CRC. */
    private void writeChunk(byte[] src, int offset, int length) throws IOException {
        final byte[] out = compressed;
        addChunkOffset(data.position());
        out[0] = (byte) length;
        out[1] = (byte) (length >>> 8);
        out[2] = (byte) (length >>> 16);
        out[3] = (byte) (length >>> 24);
        int blockBytes = COMPRESSOR.compress(src, offset, length, out, DataFileLayout.LZ4_LENGTH_PREFIX_BYTES, maxBlockBytes);
        int storedBytes = DataFileLayout.LZ4_LENGTH_PREFIX_BYTES + blockBytes;
        if (storedBytes >= maxCompressedLengthBytes) {
            storedBytes = storeRaw(src, offset, length);
        }
        chunkCrc.reset();
        chunkCrc.update(out, 0, storedBytes);
        int crc = (int) chunkCrc.getValue();
        out[storedBytes] = (byte) (crc >>> 24);
        out[storedBytes + 1] = (byte) (crc >>> 16);
        out[storedBytes + 2] = (byte) (crc >>> 8);
        out[storedBytes + 3] = (byte) crc;
        data.write(out, 0, storedBytes + DataFileLayout.CHUNK_CRC_BYTES);
        compressedBytes += storedBytes;
        uncompressedFlushedBytes += length;
    }

    /**
     * Cold path (only with a bounded max compressed length): the chunk is stored uncompressed, with
     * no length prefix, zero-padded up to the max compressed length if shorter (only the last chunk
     * can be). Returns the stored length.
     */
    private int storeRaw(byte[] src, int offset, int length) {
        System.arraycopy(src, offset, compressed, 0, length);
        if (length >= maxCompressedLengthBytes) {
            return length;
        }
        Arrays.fill(compressed, length, maxCompressedLengthBytes, (byte) 0);
        return maxCompressedLengthBytes;
    }

    private void addChunkOffset(long offsetBytes) {
        if (chunkCount == chunkOffsets.length) {
            chunkOffsets = Arrays.copyOf(chunkOffsets, chunkCount * 2);
        }
        chunkOffsets[chunkCount++] = offsetBytes;
    }

    private void writeCompressionInfo() throws IOException {
        int headerBytes = DataFileLayout.compressionInfoHeaderSizeBytes(DataFileLayout.LZ4_COMPRESSOR_NAME);
        SyncedFileOutput out = new SyncedFileOutput(companionPath, COMPRESSION_INFO_BLOCK_BYTES, false);
        compressionInfoWritten = true;
        try {
            FixedBuffer buf = new FixedBuffer(COMPRESSION_INFO_BLOCK_BYTES);
            buf.putUtf(DataFileLayout.LZ4_COMPRESSOR_NAME);
            buf.putInt(0); // option count: Cassandra's default LZ4 parameters carry no options
            buf.putInt(chunkLengthBytes);
            buf.putInt(maxCompressedLengthBytes);
            buf.putLong(uncompressedFlushedBytes);
            buf.putInt(chunkCount);
            FixedBuffer.checkWritten("CompressionInfo.db header", headerBytes, buf.position());
            final long[] offsets = chunkOffsets;
            final int count = chunkCount;
            for (int i = 0; i < count; i++) {
                if (buf.remaining() < DataFileLayout.CHUNK_OFFSET_BYTES) {
                    out.write(buf.array(), 0, buf.position());
                    buf.clear();
                }
                buf.putLong(offsets[i]);
            }
            out.write(buf.array(), 0, buf.position());
            FixedBuffer.checkWritten("CompressionInfo.db", headerBytes + (long) count * DataFileLayout.CHUNK_OFFSET_BYTES,
                    out.position());
            out.sync();
            out.close();
        } catch (IOException | RuntimeException | Error e) {
            out.abort();
            throw e;
        }
    }
}

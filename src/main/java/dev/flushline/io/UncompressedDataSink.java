package dev.flushline.io;

import java.io.IOException;
import java.nio.file.Path;
import java.util.zip.CRC32;

/**
 * Uncompressed Data.db (written through) plus CRC.db and Digest.crc32, as Cassandra's
 * ChecksummedSequentialWriter produces them (layout in {@link DataFileLayout}).
 *
 * <p>CRC.db is appended as each 64 KiB chunk of Data.db completes, so it needs no per-chunk
 * memory. Like Cassandra, an empty Data.db still gets one (empty-chunk, value 0) CRC entry,
 * because Cassandra flushes its buffer once at prepare even when it is empty.
 *
 * <p>Thread safety: none (see {@link DataSink}).
 */
public final class UncompressedDataSink extends DataSink {
    private static final int CRC_FILE_BLOCK_BYTES = 8 * 1024;

    private final SyncedFileOutput crcFile;
    private final CRC32 chunkCrc = new CRC32();
    /** Bytes of the current CRC chunk already fed to {@link #chunkCrc}: 0..CRC_CHUNK_BYTES-1 between writes. */
    private int chunkFillBytes;
    private int chunkCount;

    /**
     * Creates {@code dataPath} and {@code crcPath} (both must not exist). {@code digestPath} may be
     * null; otherwise it is created by {@link #finish()}.
     */
    public UncompressedDataSink(Path dataPath, Path crcPath, Path digestPath) throws IOException {
        this(dataPath, crcPath, digestPath, SyncedFileOutput.DEFAULT_BLOCK_BYTES);
    }

    public UncompressedDataSink(Path dataPath, Path crcPath, Path digestPath, int blockBytes) throws IOException {
        super(dataPath, crcPath, digestPath, blockBytes);
        SyncedFileOutput crc = null;
        try {
            crc = new SyncedFileOutput(crcPath, CRC_FILE_BLOCK_BYTES);
            crc.writeInt(DataFileLayout.CRC_CHUNK_BYTES);
        } catch (IOException | RuntimeException | Error e) {
            data.abort();
            if (crc != null) crc.abort();
            throw e;
        }
        this.crcFile = crc;
    }

    @Override
    public void write(byte[] src, int offset, int length) throws IOException {
        ensureWritable();
        // Piece by piece, cut at the 64 KiB chunk boundaries of the file: each piece is checksummed
        // and then copied while it is still in this core's cache. The digest comes from the chunk
        // CRCs (endCrcChunk), not from another pass over the bytes.
        int off = offset;
        int left = length;
        while (left > 0) {
            int n = Math.min(left, DataFileLayout.CRC_CHUNK_BYTES - chunkFillBytes);
            chunkCrc.update(src, off, n);
            data.write(src, off, n);
            chunkFillBytes += n;
            off += n;
            left -= n;
            if (chunkFillBytes == DataFileLayout.CRC_CHUNK_BYTES) {
                endCrcChunk();
            }
        }
    }

    @Override
    public long uncompressedPosition() {
        return data.position();
    }

    @Override
    public void finish() throws IOException {
        ensureWritable();
        try {
            if (chunkFillBytes > 0 || chunkCount == 0) {
                endCrcChunk();
            }
            data.sync();
            data.close();
            crcFile.sync();
            crcFile.close();
            completeWithDigest();
        } catch (IOException | RuntimeException | Error e) {
            abort();
            throw e;
        }
    }

    @Override
    void abortCompanion() {
        crcFile.abort();
    }

    @Override
    public double compressionRatio() {
        return DataFileLayout.NO_COMPRESSION_RATIO;
    }

    private void endCrcChunk() throws IOException {
        int crc = (int) chunkCrc.getValue();
        digestAppend(crc, chunkFillBytes);
        crcFile.writeInt(crc);
        chunkCrc.reset();
        chunkFillBytes = 0;
        chunkCount++;
    }
}

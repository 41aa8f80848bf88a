package dev.flushline.io;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32;

/**
 * Chunk-compressed Data.db plus CompressionInfo.db and Digest.crc32, byte-identical to Cassandra
 * 5.0.9's CompressedSequentialWriter with the same compressor and parameters (layout in
 * {@link DataFileLayout}). The codec is chosen once, at construction.
 *
 * <p>What Cassandra does, and we mirror: the logical stream is cut into chunks of exactly
 * {@code chunkLengthBytes} (last shorter). Each chunk is compressed into one block; if the block
 * reaches {@code maxCompressedLengthBytes} (a table's min_compress_ratio) the chunk is stored raw
 * instead, zero-padded up to that length when shorter. The per-chunk CRC32 covers what was
 * stored and follows it big-endian. The Digest CRC covers the whole file including those CRCs.
 * The compression ratio counts stored bytes (not the CRCs) over logical bytes. A zero-length
 * stream still produces one (empty) chunk, because Cassandra compresses its buffer once at
 * prepare even when empty; CompressionInfo.db then has chunk count 1, which its reader requires.
 *
 * <p>Memory: the staging chunk and the output array are allocated per sink and grow by doubling
 * (the staging chunk up to the chunk length, so a 1 GiB chunk length costs a small sstable
 * nothing); nothing is allocated per chunk or per write once they have grown. Chunk offsets are
 * not kept: each is appended to CompressionInfo.db as its chunk is written, after a header whose
 * uncompressed length and chunk count are filled in at {@link #finish()}, so what a sink holds
 * does not grow with the sstable. The chunk loop calls the codec through {@link ChunkCodec#compress(ChunkCodec, byte[],
 * int, int, byte[], int)}, one final class per call site.
 *
 * <p>Thread safety: none (see {@link DataSink}). The sink owns the codec and closes it.
 */
public final class CompressedDataSink extends DataSink {
    private static final int INITIAL_STAGING_BYTES = 64 * 1024;
    /** CompressionInfo.db's write block: one write per 1,024 chunk offsets. */
    private static final int COMPRESSION_INFO_BLOCK_BYTES = 8 * 1024;
    /** The header's last two fields, filled in at finish: uncompressed length (i64) and chunk count (i32). */
    private static final int COMPRESSION_INFO_COUNTS_BYTES = Long.BYTES + Integer.BYTES;

    private final ChunkCodec codec;
    private final String[] optionPairs;
    private final int chunkLengthBytes;
    private final int maxCompressedLengthBytes;
    private final CRC32 chunkCrc = new CRC32();
    /** Logical bytes of the current chunk, [0, stagingFillBytes); grows up to the chunk length. */
    private byte[] staging;
    /** [block or raw chunk][BE CRC]: one write per chunk. */
    private byte[] out;
    private int stagingFillBytes;
    /** CompressionInfo.db, open from construction: header (counts to be filled in), then each chunk's offset. */
    private final SyncedFileOutput info;
    private final int infoHeaderBytes;
    private int chunkCount;
    private long uncompressedFlushedBytes;
    /** Sum of stored block (or raw) lengths: the numerator of the compression ratio. */
    private long compressedBytes;
    private boolean compressionInfoWritten;
    private boolean codecClosed;

    /** LZ4 (fast) with the table defaults: 16 KiB chunks, unbounded max compressed length, no options. */
    public CompressedDataSink(Path dataPath, Path compressionInfoPath, Path digestPath) throws IOException {
        this(dataPath, compressionInfoPath, digestPath, new Lz4ChunkCodec(), new String[0],
                DataFileLayout.DEFAULT_COMPRESSION_CHUNK_BYTES, DataFileLayout.UNBOUNDED_MAX_COMPRESSED_LENGTH,
                SyncedFileOutput.DEFAULT_BLOCK_BYTES);
    }

    /**
     * REQUIRES: {@code chunkLengthBytes} is a power of two (Cassandra rejects others), and
     * {@code maxCompressedLengthBytes} is either unbounded or in [0, chunkLengthBytes].
     * {@code optionPairs} (name, value, ...) are written into CompressionInfo.db as given.
     * Creates {@code dataPath} now; CompressionInfo.db and Digest.crc32 (if non-null) at finish.
     * Takes ownership of {@code codec}, closing it even if this constructor fails.
     */
    public CompressedDataSink(Path dataPath, Path compressionInfoPath, Path digestPath, ChunkCodec codec, String[] optionPairs,
                              int chunkLengthBytes, int maxCompressedLengthBytes, int blockBytes) throws IOException {
        // Arguments are checked before the superclass creates Data.db.
        super(dataPath, compressionInfoPath, digestPath, checked(codec, optionPairs, chunkLengthBytes, maxCompressedLengthBytes, blockBytes));
        this.codec = codec;
        this.optionPairs = optionPairs.clone();
        this.chunkLengthBytes = chunkLengthBytes;
        this.maxCompressedLengthBytes = maxCompressedLengthBytes;
        this.staging = new byte[Math.min(chunkLengthBytes, INITIAL_STAGING_BYTES)];
        this.out = new byte[outBytesFor(staging.length)];
        this.infoHeaderBytes = DataFileLayout.compressionInfoHeaderSizeBytes(codec.compressorName(), this.optionPairs);
        SyncedFileOutput i = null;
        try {
            i = new SyncedFileOutput(compressionInfoPath, COMPRESSION_INFO_BLOCK_BYTES);
            compressionInfoWritten = true;
            writeCompressionInfoHeader(i);
        } catch (IOException | RuntimeException | Error e) {
            if (i != null) i.abort();
            compressionInfoWritten = false;
            abort();
            throw e;
        }
        this.info = i;
    }

    /** The header, with zero for the uncompressed length and chunk count (known at finish). */
    private void writeCompressionInfoHeader(SyncedFileOutput file) throws IOException {
        FixedBuffer buf = new FixedBuffer(infoHeaderBytes);
        buf.putUtf(codec.compressorName());
        buf.putInt(optionPairs.length / 2);
        for (String s : optionPairs) buf.putUtf(s);
        buf.putInt(chunkLengthBytes);
        buf.putInt(maxCompressedLengthBytes);
        buf.putLong(0);
        buf.putInt(0);
        FixedBuffer.checkWritten("CompressionInfo.db header", infoHeaderBytes, buf.position());
        file.write(buf.array(), 0, buf.position());
    }

    private static int checked(ChunkCodec codec, String[] optionPairs, int chunkLengthBytes, int maxCompressedLengthBytes,
                               int blockBytes) {
        String problem = null;
        if (chunkLengthBytes <= 0 || Integer.bitCount(chunkLengthBytes) != 1) {
            problem = "chunk length must be a positive power of 2: " + chunkLengthBytes;
        } else if (maxCompressedLengthBytes != DataFileLayout.UNBOUNDED_MAX_COMPRESSED_LENGTH
                && (maxCompressedLengthBytes < 0 || maxCompressedLengthBytes > chunkLengthBytes)) {
            problem = "max compressed length " + maxCompressedLengthBytes + " must be unbounded or in [0, chunk length "
                    + chunkLengthBytes + "]";
        } else if (optionPairs.length % 2 != 0) {
            problem = "compression options come in name/value pairs: " + Arrays.toString(optionPairs);
        }
        if (problem != null) {
            codec.close();
            throw new IllegalArgumentException(problem);
        }
        return blockBytes;
    }

    /** Room for a chunk of {@code chunkBytes}: its largest block or its raw form, plus the CRC. */
    private int outBytesFor(int chunkBytes) {
        int raw = maxCompressedLengthBytes == DataFileLayout.UNBOUNDED_MAX_COMPRESSED_LENGTH ? 0 : maxCompressedLengthBytes;
        return Math.max(codec.maxCompressedLength(chunkBytes), Math.max(chunkBytes, raw)) + DataFileLayout.CHUNK_CRC_BYTES;
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
            if (stagingFillBytes == staging.length) growStaging();
            int n = Math.min(left, staging.length - stagingFillBytes);
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

    /** Cold path: a chunk length above the initial staging size, and a chunk that has filled it. */
    private void growStaging() {
        staging = Arrays.copyOf(staging, (int) Math.min(chunkLengthBytes, 2L * staging.length));
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
            closeCodec();
            writeCompressionInfo();
            completeWithDigest();
        } catch (IOException | RuntimeException | Error e) {
            abort();
            throw e;
        }
    }

    @Override
    void abortCompanion() {
        try {
            closeCodec();
        } catch (RuntimeException inUse) {
            // Only if an interrupted abort left the I/O thread inside a compress call: zstd refuses to
            // free a context in use; leaving it is a leak of one context, not a crash.
        }
        if (compressionInfoWritten) {
            if (info != null) info.abort(); // closes and deletes; null only while the constructor fails
            SyncedFileOutput.deleteQuietly(companionPath);
        }
    }

    private void closeCodec() {
        if (!codecClosed) {
            codecClosed = true;
            codec.close();
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
        byte[] o = out;
        if (o.length < length + DataFileLayout.CHUNK_CRC_BYTES || o.length < codec.maxCompressedLength(length) + DataFileLayout.CHUNK_CRC_BYTES) {
            o = out = new byte[outBytesFor(length)]; // cold: the first whole chunk above the initial staging size
        }
        addChunkOffset(data.position());
        int storedBytes = ChunkCodec.compress(codec, src, offset, length, o, 0);
        if (storedBytes >= maxCompressedLengthBytes) {
            storedBytes = storeRaw(src, offset, length);
        }
        chunkCrc.reset();
        chunkCrc.update(o, 0, storedBytes);
        int crc = (int) chunkCrc.getValue();
        o[storedBytes] = (byte) (crc >>> 24);
        o[storedBytes + 1] = (byte) (crc >>> 16);
        o[storedBytes + 2] = (byte) (crc >>> 8);
        o[storedBytes + 3] = (byte) crc;
        // The digest covers the block and its CRC: the CRC of both is the chunk CRC carried on
        // over four more bytes, appended to the digest without another pass over the block.
        chunkCrc.update(o, storedBytes, DataFileLayout.CHUNK_CRC_BYTES);
        int stored = storedBytes + DataFileLayout.CHUNK_CRC_BYTES;
        digestAppend((int) chunkCrc.getValue(), stored); // a few hundred ns a chunk
        data.write(o, 0, stored);
        compressedBytes += storedBytes;
        uncompressedFlushedBytes += length;
    }

    /**
     * Cold path (only with a bounded max compressed length): the chunk is stored uncompressed,
     * zero-padded up to the max compressed length if shorter (only the last chunk can be).
     * Returns the stored length.
     */
    private int storeRaw(byte[] src, int offset, int length) {
        System.arraycopy(src, offset, out, 0, length);
        if (length >= maxCompressedLengthBytes) {
            return length;
        }
        Arrays.fill(out, length, maxCompressedLengthBytes, (byte) 0);
        return maxCompressedLengthBytes;
    }

    private void addChunkOffset(long offsetBytes) throws IOException {
        info.writeLong(offsetBytes);
        chunkCount++;
    }

    /** Fills in the header's uncompressed length and chunk count, after the offsets streamed out; syncs and closes. */
    private void writeCompressionInfo() throws IOException {
        FixedBuffer counts = new FixedBuffer(COMPRESSION_INFO_COUNTS_BYTES);
        counts.putLong(uncompressedFlushedBytes);
        counts.putInt(chunkCount);
        FixedBuffer.checkWritten("CompressionInfo.db", infoHeaderBytes + (long) chunkCount * DataFileLayout.CHUNK_OFFSET_BYTES,
                info.position());
        info.writeAt(infoHeaderBytes - COMPRESSION_INFO_COUNTS_BYTES, counts.array(), 0, counts.position());
        info.sync();
        info.close();
    }
}

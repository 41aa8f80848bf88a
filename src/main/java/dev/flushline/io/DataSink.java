package dev.flushline.io;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Takes the LOGICAL (uncompressed) Data.db byte stream in writes of any size and produces the
 * physical Data.db plus its companion (CRC.db or CompressionInfo.db) and, if a path was given,
 * Digest.crc32.
 *
 * <p>Lifecycle: construct (creates Data.db and, for the uncompressed sink, CRC.db with CREATE_NEW),
 * {@code write}* , then exactly one of {@link #finish()} or {@link #abort()}. {@link #close()} after
 * finish is a no-op and otherwise aborts, so try-with-resources never leaves half files behind.
 * The caller owns naming (temporary names) and publishing (rename + {@link
 * SyncedFileOutput#syncDirectory}).
 *
 * <p>Thread safety: none; one flush writer thread owns a sink.
 */
public sealed interface DataSink extends AutoCloseable permits UncompressedDataSink, Lz4CompressedDataSink {

    /** Appends {@code src[offset, offset+length)} to the logical stream. Allocates nothing. */
    void write(byte[] src, int offset, int length) throws IOException;

    /** Logical bytes accepted so far: the position Index.db and Summary.db record. */
    long uncompressedPosition();

    /**
     * Flushes the last (short) chunk, writes the companion file and Digest.crc32, and fsyncs every
     * file this sink created. After it returns the files are durable under their current names.
     */
    void finish() throws IOException;

    /** Closes and deletes every file this sink created. Never throws; idempotent. */
    void abort();

    /** Aborts unless {@link #finish()} completed. */
    @Override
    void close();

    Path dataPath();

    /** CRC.db for the uncompressed sink, CompressionInfo.db for the compressed one. */
    Path companionPath();

    /** Where Digest.crc32 goes, or null when the caller asked for none. */
    Path digestPath();

    /** CRC32 of the whole physical Data.db. REQUIRES: {@link #finish()} completed. */
    long digestCrc32();

    /**
     * The ratio Statistics.db stores: compressed bytes (length prefix + block, per-chunk CRCs
     * excluded) / uncompressed bytes; {@link DataFileLayout#NO_COMPRESSION_RATIO} when uncompressed.
     * REQUIRES: {@link #finish()} completed.
     */
    double compressionRatio();
}

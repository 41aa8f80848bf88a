package dev.flushline.io;

import java.nio.charset.StandardCharsets;

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
public abstract sealed class DataSink implements AutoCloseable, BlockSink permits UncompressedDataSink, CompressedDataSink {
    final Path dataPath;
    final Path companionPath;
    final Path digestPath;
    final SyncedFileOutput data;
    boolean finished;
    boolean aborted;
    /** Only a digest file we created may be deleted: CREATE_NEW failing means it is someone else's. */
    private boolean digestWritten;
    private long digestCrc32 = -1;
    /**
     * CRC32 of the physical Data.db so far, built from the CRCs of its pieces as each is written
     * ({@link #digestAppend}), which the sinks compute anyway for CRC.db or the chunk checksums.
     */
    private int runningDigest;
    /** The last piece length appended and its shift: a sink's pieces mostly share one length (a full chunk). */
    private long shiftBytes = -1;
    private int shift;

    /**
     * Creates Data.db ({@code dataPath}, which must not exist), with O_DIRECT where the file system
     * takes it ({@link SyncedFileOutput#forData}).
     */
    DataSink(Path dataPath, Path companionPath, Path digestPath, int blockBytes) throws IOException {
        this.dataPath = dataPath;
        this.companionPath = companionPath;
        this.digestPath = digestPath;
        this.data = SyncedFileOutput.forData(dataPath, blockBytes);
    }

    /**
     * Records that the next {@code bytes} bytes of the physical Data.db, written in this order, have
     * CRC32 {@code crc}. The shift for a length is computed once for a run of pieces of that length.
     */
    final void digestAppend(int crc, long bytes) {
        if (bytes != shiftBytes) {
            shift = Crc32Combine.shiftFor(bytes);
            shiftBytes = bytes;
        }
        runningDigest = Crc32Combine.append(runningDigest, crc, shift);
    }

    /** Appends {@code src[offset, offset+length)} to the logical stream. Allocates nothing. */
    public abstract void write(byte[] src, int offset, int length) throws IOException;

    /** Logical bytes accepted so far: the position a partition index records. */
    public abstract long uncompressedPosition();

    /**
     * Flushes the last (short) chunk, writes the companion file and Digest.crc32, and fsyncs every
     * file this sink created. After it returns the files are durable under their current names.
     */
    public abstract void finish() throws IOException;

    /**
     * The ratio Statistics.db stores: compressed bytes (length prefix + block, per-chunk CRCs
     * excluded) / uncompressed bytes; {@link DataFileLayout#NO_COMPRESSION_RATIO} when uncompressed.
     * REQUIRES: {@link #finish()} completed.
     */
    public abstract double compressionRatio();

    /** Deletes (or aborts) the companion file, if this sink created it. Never throws. */
    abstract void abortCompanion();

    /**
     * The last step of {@link #finish()}, once Data.db and the companion are synced: records the
     * whole-file CRC and writes it as Digest.crc32 (ASCII decimal), if a path was given.
     */
    final void completeWithDigest() throws IOException {
        long digest = runningDigest & 0xFFFFFFFFL;
        if (digestPath != null) {
            byte[] text = Long.toString(digest).getBytes(StandardCharsets.US_ASCII);
            SyncedFileOutput.writeSmallFile(digestPath, text, 0, text.length);
            digestWritten = true;
        }
        digestCrc32 = digest;
        finished = true;
    }

    /** Closes and deletes every file this sink created. Never throws; idempotent. */
    public final void abort() {
        if (aborted) {
            return;
        }
        aborted = true;
        finished = false;
        data.abort();
        abortCompanion();
        if (digestWritten) {
            SyncedFileOutput.deleteQuietly(digestPath);
        }
    }

    /** Aborts unless {@link #finish()} completed. */
    @Override
    public final void close() {
        if (!finished) {
            abort();
        }
    }

    public final Path dataPath() { return dataPath; }

    /** CRC.db for the uncompressed sink, CompressionInfo.db for the compressed one. */
    public final Path companionPath() { return companionPath; }

    /** Where Digest.crc32 goes, or null when the caller asked for none. */
    public final Path digestPath() { return digestPath; }

    /** CRC32 of the whole physical Data.db. REQUIRES: {@link #finish()} completed. */
    public final long digestCrc32() {
        if (!finished) {
            throw new IllegalStateException("digest is known only after finish(): " + dataPath);
        }
        return digestCrc32;
    }

    final void ensureWritable() {
        if (finished || aborted) {
            throw new IllegalStateException((finished ? "finished: " : "aborted: ") + dataPath);
        }
    }
}

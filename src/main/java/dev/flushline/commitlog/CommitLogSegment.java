package dev.flushline.commitlog;

import dev.flushline.io.SyncedFileOutput;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One segment file being written: the header, then framed entries appended at
 * {@link #writtenBytes()} until the next one does not fit (see {@link SegmentLayout}).
 *
 * <p>Thread safety: {@link #append} is called by {@link CommitLog} under its append lock, one
 * writer at a time; {@link #force} may run concurrently from the syncer (FileChannel allows a
 * force alongside writes). {@link #writtenBytes()} is volatile so the syncer reads a value whose
 * bytes were all handed to the kernel first.
 */
final class CommitLogSegment {
    private final long id;
    private final Path path;
    private final FileChannel channel;
    private final int capacityBytes;
    private final byte[] entryHeader = new byte[SegmentLayout.ENTRY_HEADER_BYTES];
    private final byte[] entryTrailer = new byte[SegmentLayout.PAYLOAD_CRC_BYTES];
    private final ByteBuffer[] frame = new ByteBuffer[3];
    private volatile int writtenBytes;
    /** Set once the segment was forced for the last time and closed; a late force may then be skipped. */
    private volatile boolean retired;

    private CommitLogSegment(long id, Path path, FileChannel channel, int capacityBytes) {
        this.id = id;
        this.path = path;
        this.channel = channel;
        this.capacityBytes = capacityBytes;
        this.writtenBytes = SegmentLayout.HEADER_BYTES;
        frame[0] = ByteBuffer.wrap(entryHeader);
        frame[2] = ByteBuffer.wrap(entryTrailer);
    }

    /**
     * Creates the segment file at its full size with its header, and makes both the file and its
     * directory entry durable before any entry goes in: a segment that replay cannot find or
     * identify must never hold an acknowledged write.
     */
    static CommitLogSegment create(Path dir, long id, int capacityBytes, SegmentChannels channels) throws IOException {
        Path path = dir.resolve(SegmentLayout.fileName(id));
        FileChannel ch = channels.open(path);
        try {
            ByteBuffer h = ByteBuffer.wrap(SegmentLayout.header(id));
            while (h.hasRemaining()) ch.write(h);
            // Sparse: unwritten space reads as zeros, the "end of log" mark, without writing it.
            try (java.io.RandomAccessFile raf = new java.io.RandomAccessFile(path.toFile(), "rw")) {
                raf.setLength(capacityBytes);
            }
            ch.position(SegmentLayout.HEADER_BYTES);
            ch.force(true);
            SyncedFileOutput.syncDirectory(dir);
        } catch (IOException | RuntimeException e) {
            try {
                ch.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            SyncedFileOutput.deleteQuietly(path);
            throw e;
        }
        return new CommitLogSegment(id, path, ch, capacityBytes);
    }

    long id() { return id; }

    Path path() { return path; }

    int writtenBytes() { return writtenBytes; }

    boolean hasRoom(int entryBytes) {
        return entryBytes <= capacityBytes - writtenBytes;
    }

    /**
     * Writes one entry: length, length CRC, the payload array itself (no copy of ours), payload
     * CRC. Returns the offset just after it. REQUIRES: the caller's append lock; {@link #hasRoom}.
     */
    int append(byte[] payload, int payloadCrc) throws IOException {
        SegmentLayout.putInt(entryHeader, SegmentLayout.LENGTH_OFFSET, payload.length);
        SegmentLayout.putInt(entryHeader, SegmentLayout.LENGTH_CRC_OFFSET, SegmentLayout.lengthCrc(payload.length));
        SegmentLayout.putInt(entryTrailer, 0, payloadCrc);
        frame[0].clear();
        frame[1] = ByteBuffer.wrap(payload);
        frame[2].clear();
        long left = SegmentLayout.entryBytes(payload.length);
        while (left > 0) {
            left -= channel.write(frame);
        }
        frame[1] = null;
        int end = writtenBytes + SegmentLayout.entryBytes(payload.length);
        writtenBytes = end;
        return end;
    }

    /** fdatasync: the file was created at full size, so no metadata needs to change for the data to be found. */
    void force() throws IOException {
        channel.force(false);
    }

    /** Forces one last time and closes; later {@link #force} calls from a lagging syncer are no-ops. */
    void retire() throws IOException {
        try {
            channel.force(false);
        } finally {
            retired = true;
            channel.close();
        }
    }

    boolean isRetired() { return retired; }

    /** Closes without forcing (failure and test paths). */
    void closeQuietly() {
        retired = true;
        try {
            channel.close();
        } catch (IOException ignored) {
            // Already failing or shutting down; the file is replayed from what reached the kernel.
        }
    }
}

package dev.flushline.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32;

/**
 * A new file written sequentially through one direct block buffer, with explicit durability.
 *
 * <p>The file is created with CREATE_NEW: a leftover from a crashed run is an error, never silently
 * overwritten. Bytes reach the kernel when the block fills or on {@link #flush()}; they are durable
 * only after {@link #sync()} ({@code force(true)}), and a rename into place is durable only after
 * {@link #syncDirectory(Path)} of the parent.
 *
 * <p>The block is a direct buffer so {@code FileChannel.write} does not copy through a temporary
 * direct buffer of its own: one copy from the caller's array, then the kernel. It is JDK-managed
 * (freed by its cleaner), so it is not counted by {@link NativeMemory}.
 *
 * <p>Optionally keeps a running CRC32 of every byte written, in order (Digest.crc32 is the CRC of
 * the whole Data.db as written).
 *
 * <p>Thread safety: none; one writer thread. Invariant: {@link #position()} = bytes accepted so far =
 * bytes in the file after the next flush.
 */
public final class SyncedFileOutput implements AutoCloseable {
    public static final int DEFAULT_BLOCK_BYTES = 1 << 20;

    private final Path path;
    private final FileChannel channel;
    private final ByteBuffer block;
    private final CRC32 crc; // null when no running checksum was requested
    private final byte[] intScratch = new byte[Integer.BYTES];
    private long positionBytes;
    private boolean closed;

    /**
     * Creates {@code path} (must not exist) with a block buffer of {@code blockBytes}.
     * {@code withCrc32} turns on the running CRC32 returned by {@link #crc32()}.
     */
    public SyncedFileOutput(Path path, int blockBytes, boolean withCrc32) throws IOException {
        if (blockBytes <= 0) {
            throw new IllegalArgumentException("blockBytes must be > 0: " + blockBytes);
        }
        this.path = path;
        this.channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        ByteBuffer b;
        try {
            b = ByteBuffer.allocateDirect(blockBytes);
        } catch (Throwable t) {
            closeAndDeleteQuietly(channel, path, t);
            throw t;
        }
        this.block = b;
        this.crc = withCrc32 ? new CRC32() : null;
    }

    public Path path() { return path; }

    /** Bytes written so far, including those still in the block. */
    public long position() { return positionBytes; }

    public void write(byte[] src, int offset, int length) throws IOException {
        if ((offset | length) < 0 || length > src.length - offset) {
            throw new IndexOutOfBoundsException("src length " + src.length + " offset " + offset + " length " + length);
        }
        ensureOpen();
        if (crc != null) {
            crc.update(src, offset, length);
        }
        final ByteBuffer b = block;
        int off = offset;
        int left = length;
        while (left > 0) {
            if (!b.hasRemaining()) {
                drainBlock();
            }
            int n = Math.min(left, b.remaining());
            b.put(src, off, n);
            off += n;
            left -= n;
        }
        positionBytes += length;
    }

    /** Writes {@code value} big-endian (as {@code DataOutput.writeInt}). */
    public void writeInt(int value) throws IOException {
        byte[] s = intScratch;
        s[0] = (byte) (value >>> 24);
        s[1] = (byte) (value >>> 16);
        s[2] = (byte) (value >>> 8);
        s[3] = (byte) value;
        write(s, 0, Integer.BYTES);
    }

    /** Writes {@code value} big-endian (as {@code DataOutput.writeLong}). */
    public void writeLong(long value) throws IOException {
        writeInt((int) (value >>> 32));
        writeInt((int) value);
    }

    /**
     * Overwrites {@code src[offset, offset+length)} at file offset {@code position}, inside what
     * was already written: for a header whose counts are known only at the end (CompressionInfo.db
     * streams its chunk offsets and fills in their count last). Flushes the block first. Not with
     * a running CRC32, which covers the bytes in the order they were written.
     */
    public void writeAt(long position, byte[] src, int offset, int length) throws IOException {
        ensureOpen();
        if (crc != null) {
            throw new IllegalStateException("an overwrite would leave the running CRC32 of " + path + " wrong");
        }
        if ((offset | length) < 0 || length > src.length - offset || position < 0 || position > positionBytes - length) {
            throw new IndexOutOfBoundsException(path + ": " + length + " bytes at " + position + " are not inside the "
                    + positionBytes + " written");
        }
        drainBlock();
        ByteBuffer w = ByteBuffer.wrap(src, offset, length);
        while (w.hasRemaining()) {
            channel.write(w, position + (w.position() - offset));
        }
    }

    /** CRC32 of everything written so far. REQUIRES: constructed with {@code withCrc32}. */
    public long crc32() {
        if (crc == null) {
            throw new IllegalStateException("no running CRC32 requested for " + path);
        }
        return crc.getValue();
    }

    /** Hands buffered bytes to the kernel (not durable yet). */
    public void flush() throws IOException {
        ensureOpen();
        drainBlock();
    }

    /** Flushes and forces data and metadata to the device. */
    public void sync() throws IOException {
        flush();
        channel.force(true);
    }

    /**
     * Flushes buffered bytes and closes. Does NOT fsync: call {@link #sync()} first when the file
     * must survive a crash. Idempotent.
     */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        try {
            drainBlock();
        } finally {
            closed = true;
            channel.close();
        }
    }

    /**
     * This file as an OutputStream (for a DataOutputStream over a component written field by
     * field), without an intermediate array; closing the stream does not close the file.
     */
    public java.io.OutputStream asOutputStream() {
        return new java.io.OutputStream() {
            private final byte[] one = new byte[1];

            @Override
            public void write(int b) throws IOException {
                one[0] = (byte) b;
                SyncedFileOutput.this.write(one, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                SyncedFileOutput.this.write(b, off, len);
            }
        };
    }

    /** Closes without flushing and deletes the file; never throws (cleanup path). */
    public void abort() {
        closed = true;
        closeAndDeleteQuietly(channel, path, null);
    }

    /**
     * Fsyncs a directory so that creates and renames inside it are durable. Works on Linux (a
     * directory can be opened read-only as a FileChannel and forced).
     */
    public static void syncDirectory(Path dir) throws IOException {
        try (FileChannel dirChannel = FileChannel.open(dir, StandardOpenOption.READ)) {
            dirChannel.force(true);
        }
    }

    /**
     * Creates {@code path} (must not exist) holding exactly {@code src[offset, offset+length)}, and
     * fsyncs it. For small companion files (Digest.crc32, CompressionInfo.db); not for hot paths.
     */
    public static void writeSmallFile(Path path, byte[] src, int offset, int length) throws IOException {
        ByteBuffer wrapped = ByteBuffer.wrap(src, offset, length);
        // Opened outside the try: if CREATE_NEW fails the existing file is not ours to delete.
        FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        try {
            while (wrapped.hasRemaining()) {
                ch.write(wrapped);
            }
            ch.force(true);
            ch.close();
        } catch (IOException | RuntimeException | Error e) {
            closeAndDeleteQuietly(ch, path, e);
            throw e;
        }
    }

    /** Deletes {@code path} if it exists; null is allowed; never throws (cleanup path). */
    public static void deleteQuietly(Path path) {
        if (path == null) {
            return;
        }
        try {
            Files.deleteIfExists(path);
        } catch (IOException | RuntimeException e) {
            // Cleanup is best effort: the caller is already failing, and the temporary name marks
            // the file as garbage for the startup sweep.
        }
    }

    private void drainBlock() throws IOException {
        final ByteBuffer b = block;
        b.flip();
        while (b.hasRemaining()) {
            channel.write(b);
        }
        b.clear();
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("closed: " + path);
        }
    }

    private static void closeAndDeleteQuietly(FileChannel channel, Path path, Throwable primary) {
        try {
            channel.close();
        } catch (IOException | RuntimeException e) {
            if (primary != null) primary.addSuppressed(e);
        }
        try {
            Files.deleteIfExists(path);
        } catch (IOException | RuntimeException e) {
            if (primary != null) primary.addSuppressed(e);
        }
    }
}

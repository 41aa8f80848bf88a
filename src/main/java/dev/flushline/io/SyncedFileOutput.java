package dev.flushline.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import com.sun.nio.file.ExtendedOpenOption;

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
 * <p><b>Direct I/O</b> ({@link #direct}). A large file written once and read later (Data.db) can
 * bypass the page cache: the block goes from its buffer to the device ({@code O_DIRECT}), with no
 * copy into page-cache pages and no page allocation per 4 KiB in the writing thread. On a virtual
 * machine whose freed memory goes back to the host, each new page-cache page is a host page fault;
 * writing 256 MiB buffered then costs 0.1 to 1.3 s of the writer's system time, direct 0.02 to
 * 0.07 s. The price: the file is not in the page cache for its first reads. O_DIRECT needs the
 * buffer, the file offset and the length aligned to the file system's block ({@link #alignment}):
 * <pre>
 *   file:  | block 0 (aligned, full) | block 1 ... | tail: [0, t) data, [t, roundUp(t)) zeros |
 *          ^ 0                                      ^ directOffset           truncated to position()
 * </pre>
 * Full blocks are written whole. The tail (fewer than {@link #alignment} bytes after the last
 * aligned boundary) stays in the buffer until {@link #sync()} or {@link #close()}, which write it
 * padded with zeros and then truncate the file to {@link #position()}; a later write rewrites that
 * last block in place, so the file always ends at {@code position()} once synced or closed. A file
 * system that refuses O_DIRECT (or reports an odd block size) gets the buffered path; {@link
 * #isDirect()} tells which one a file took.
 *
 * <p>Thread safety: none; one writer thread. Invariant: {@link #position()} = bytes accepted so far =
 * bytes in the file after the next flush (in direct mode, after the next sync or close).
 */
public final class SyncedFileOutput implements AutoCloseable {
    public static final int DEFAULT_BLOCK_BYTES = 1 << 20;

    /** Smallest alignment used for O_DIRECT: a 4 KiB page satisfies 512-byte and 4 KiB devices. */
    static final int MIN_DIRECT_ALIGNMENT = 4096;
    /** Largest file-system block accepted for O_DIRECT; a larger or odd report means buffered I/O. */
    static final int MAX_DIRECT_ALIGNMENT = 1 << 16;

    /**
     * Whether {@link #forData} writes with O_DIRECT: on unless the JVM runs with
     * {@code -Dflushline.io.direct=false}. Read once; every Data.db of the process takes it.
     */
    public static final boolean DIRECT_DATA = !"false".equalsIgnoreCase(System.getProperty("flushline.io.direct", "true"));

    private static final OpenOption[] CREATE = {StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE};
    private static final OpenOption[] REOPEN_DIRECT = {StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT};

    private final Path path;
    private final FileChannel channel;
    private final ByteBuffer block;
    private final byte[] intScratch = new byte[Integer.BYTES];
    /** O_DIRECT alignment in bytes, or 0 for buffered I/O. A power of two when not 0. */
    private final int alignment;
    /** Direct mode: the file offset of the block's byte 0, a multiple of {@link #alignment}. */
    private long directOffset;
    /**
     * Direct mode: {@link #position()} when the file last ended exactly there (tail written,
     * truncated), or -1. Lets {@link #close()} after {@link #sync()} skip rewriting the same tail.
     */
    private long directEndsAt = -1;
    private long positionBytes;
    private boolean closed;

    /** Creates {@code path} (must not exist) with a block buffer of {@code blockBytes}. */
    public SyncedFileOutput(Path path, int blockBytes) throws IOException {
        if (blockBytes <= 0) {
            throw new IllegalArgumentException("blockBytes must be > 0: " + blockBytes);
        }
        this.path = path;
        this.channel = FileChannel.open(path, CREATE);
        ByteBuffer b;
        try {
            b = ByteBuffer.allocateDirect(blockBytes);
        } catch (Throwable t) {
            closeAndDeleteQuietly(channel, path, t);
            throw t;
        }
        this.block = b;
        this.alignment = 0;
    }

    private SyncedFileOutput(Path path, FileChannel channel, ByteBuffer block, int alignment) {
        this.path = path;
        this.channel = channel;
        this.block = block;
        this.alignment = alignment;
    }

    /**
     * Creates {@code path} (must not exist) for writing with O_DIRECT if its file system allows it,
     * else buffered as the constructor does. The block is rounded up to a multiple of the
     * alignment. The file is created first without O_DIRECT and then reopened with it, so a file
     * system that refuses O_DIRECT cannot leave an empty file of unknown origin behind.
     */
    public static SyncedFileOutput direct(Path path, int blockBytes) throws IOException {
        if (blockBytes <= 0) {
            throw new IllegalArgumentException("blockBytes must be > 0: " + blockBytes);
        }
        FileChannel.open(path, CREATE).close();
        FileChannel ch = null;
        try {
            int align = directAlignment(path);
            if (align != 0) {
                try {
                    ch = FileChannel.open(path, REOPEN_DIRECT);
                } catch (IOException | UnsupportedOperationException refused) {
                    align = 0; // this file system does not take O_DIRECT: buffered below
                }
            }
            if (ch == null) {
                ch = FileChannel.open(path, StandardOpenOption.WRITE);
            }
            int bytes = align == 0 ? blockBytes : roundUp(blockBytes, align);
            ByteBuffer b = align == 0 ? ByteBuffer.allocateDirect(bytes)
                    : ByteBuffer.allocateDirect(bytes + align).alignedSlice(align);
            b.limit(bytes);
            return new SyncedFileOutput(path, ch, b.slice(), align);
        } catch (Throwable t) {
            if (ch != null) {
                closeAndDeleteQuietly(ch, path, t);
            } else {
                deleteQuietly(path);
            }
            throw t;
        }
    }

    /**
     * A Data.db: written once, sequentially, and large, so it goes through {@link #direct} unless
     * {@link #DIRECT_DATA} is off.
     */
    public static SyncedFileOutput forData(Path path, int blockBytes) throws IOException {
        return DIRECT_DATA ? direct(path, blockBytes) : new SyncedFileOutput(path, blockBytes);
    }

    /** The O_DIRECT alignment for a file at {@code path}, or 0 when its file store gives no usable one. */
    private static int directAlignment(Path path) {
        long fsBlock;
        try {
            fsBlock = Files.getFileStore(path).getBlockSize();
        } catch (IOException | UnsupportedOperationException e) {
            return 0;
        }
        if (fsBlock <= 0 || fsBlock > MAX_DIRECT_ALIGNMENT || Long.bitCount(fsBlock) != 1) {
            return 0;
        }
        return Math.max(MIN_DIRECT_ALIGNMENT, (int) fsBlock);
    }

    private static int roundUp(int n, int align) {
        return (n + align - 1) & -align;
    }

    public Path path() { return path; }

    /** True when this file is written with O_DIRECT. */
    public boolean isDirect() { return alignment != 0; }

    /** The O_DIRECT alignment in bytes, or 0 for buffered I/O. */
    public int alignment() { return alignment; }

    /** Bytes written so far, including those still in the block. */
    public long position() { return positionBytes; }

    public void write(byte[] src, int offset, int length) throws IOException {
        if ((offset | length) < 0 || length > src.length - offset) {
            throw new IndexOutOfBoundsException("src length " + src.length + " offset " + offset + " length " + length);
        }
        ensureOpen();
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
     * streams its chunk offsets and fills in their count last). Flushes the block first.
     */
    public void writeAt(long position, byte[] src, int offset, int length) throws IOException {
        ensureOpen();
        if (alignment != 0) {
            throw new IllegalStateException("an overwrite of " + path + " would need an aligned read-modify-write under O_DIRECT");
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

    /**
     * Hands buffered bytes to the kernel (not durable yet). In direct mode the tail after the last
     * aligned boundary stays buffered until {@link #sync()} or {@link #close()}.
     */
    public void flush() throws IOException {
        ensureOpen();
        drainBlock();
    }

    /** Flushes and forces data and metadata to the device. */
    public void sync() throws IOException {
        ensureOpen();
        if (alignment != 0) {
            writeDirectTail();
        } else {
            drainBlock();
        }
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
            if (alignment != 0) {
                writeDirectTail();
            } else {
                drainBlock();
            }
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
        if (alignment != 0) {
            drainAligned(b);
            return;
        }
        b.flip();
        while (b.hasRemaining()) {
            channel.write(b);
        }
        b.clear();
    }

    /**
     * Direct mode: writes the block's whole aligned blocks at {@link #directOffset} and moves the
     * tail (under one alignment) to the buffer's start. A full block is written whole, tail 0.
     */
    private void drainAligned(ByteBuffer b) throws IOException {
        final int filled = b.position();
        final int whole = filled & -alignment;
        if (whole == 0) {
            return;
        }
        writeFully(b, 0, whole, directOffset);
        directOffset += whole;
        final int tail = filled - whole;
        if (tail > 0) {
            // At most alignment-1 bytes, once per flush: not a per-write cost.
            for (int i = 0; i < tail; i++) {
                b.put(i, b.get(whole + i));
            }
        }
        b.position(tail);
    }

    /**
     * Direct mode: writes every buffered byte, the tail padded with zeros to the alignment, then
     * truncates the file to {@link #position()}. The tail stays buffered at {@link #directOffset},
     * so a later write rewrites that block with more bytes in it.
     */
    private void writeDirectTail() throws IOException {
        if (directEndsAt == positionBytes) {
            return;
        }
        final ByteBuffer b = block;
        drainAligned(b);
        final int tail = b.position();
        if (tail > 0) {
            final int padded = roundUp(tail, alignment);
            for (int i = tail; i < padded; i++) {
                b.put(i, (byte) 0);
            }
            writeFully(b, 0, padded, directOffset);
            b.position(tail);
        }
        channel.truncate(positionBytes);
        directEndsAt = positionBytes;
    }

    /** Writes {@code b[from, to)} at file offset {@code at}, leaving {@code b}'s position and limit as they were. */
    private void writeFully(ByteBuffer b, int from, int to, long at) throws IOException {
        final int savedPosition = b.position();
        final int savedLimit = b.limit();
        b.limit(to).position(from);
        try {
            while (b.hasRemaining()) {
                channel.write(b, at + (b.position() - from));
            }
        } finally {
            b.limit(savedLimit).position(savedPosition);
        }
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

package dev.flushline.sstable;

import dev.flushline.io.VInt;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Big-endian reads of one component file streamed through a window of fixed size, with the same
 * checks as {@link BoundedReader}: a read past the end of the file, or a length field larger than
 * what is left of it, is a {@link CorruptSSTableException} naming the file and the offset of the
 * field, never an allocation sized by the field. For components that grow with the sstable (BIG's
 * Index.db, CompressionInfo.db), which a reader must not hold whole in memory.
 *
 * <p>The window is refilled when a read needs bytes it does not hold: what is left of it moves
 * to its start and the rest is read from the file. So every field this reads must fit the window
 * (the largest is a 9-byte vint); longer byte runs are copied out with {@link #read} or passed
 * over with {@link #skip}, which cross refills. Nothing is allocated after {@link #open}.
 *
 * <p>The file's length is taken at open: a file that grows meanwhile is not read past it, one that
 * shrinks is reported as ending early.
 *
 * <p>Thread safety: none; one reader per walk. Owns its channel; {@link #close} releases it.
 */
public final class StreamingReader implements AutoCloseable {
    /** The largest fixed-size field a caller reads: a vint. */
    private static final int LARGEST_FIELD_BYTES = 9;

    private final Path file;
    private final FileChannel channel;
    private final long length;
    private final byte[] window;
    /** A view of {@link #window} for the channel's reads, made once. */
    private final ByteBuffer view;
    /** File offset of window[0]. */
    private long windowStart;
    private int pos, limit;

    private StreamingReader(Path file, FileChannel channel, long length, int windowBytes) {
        this.file = file;
        this.channel = channel;
        this.length = length;
        this.window = new byte[windowBytes];
        this.view = ByteBuffer.wrap(window);
    }

    /**
     * Opens component {@code c} of {@code files} for reading from its start through a window of
     * {@code windowBytes}. Refuses a component that is not a regular file, as every component read does.
     */
    public static StreamingReader open(SSTableFiles files, Component c, int windowBytes) throws IOException {
        if (windowBytes < LARGEST_FIELD_BYTES) throw new IllegalArgumentException("window of " + windowBytes + " bytes");
        Path p = files.path(c);
        SSTableFiles.requireRegularFile(p);
        FileChannel ch = FileChannel.open(p, StandardOpenOption.READ);
        try {
            return new StreamingReader(p, ch, ch.size(), windowBytes);
        } catch (IOException | RuntimeException | Error e) {
            ch.close();
            throw e;
        }
    }

    public Path file() { return file; }

    /** The file's length when it was opened. */
    public long length() { return length; }

    /** The file offset of the next byte. */
    public long fileOffset() { return windowStart + pos; }

    /** Bytes of the file after {@link #fileOffset()}. */
    public long remaining() { return length - fileOffset(); }

    public boolean hasRemaining() { return fileOffset() < length; }

    /** Moves to {@code offset}; the window is kept if it holds that offset. */
    public void seek(long offset) {
        if (offset < 0 || offset > length) throw corrupt(fileOffset(), "position " + offset + " outside the " + length + "-byte file");
        if (offset >= windowStart && offset <= windowStart + limit) {
            pos = (int) (offset - windowStart);
        } else {
            windowStart = offset;
            pos = 0;
            limit = 0;
        }
    }

    public CorruptSSTableException corrupt(long fileOffset, String reason) {
        return new CorruptSSTableException(file, fileOffset, reason);
    }

    /** Makes the window hold {@code n} bytes from the position. REQUIRES: n <= LARGEST_FIELD_BYTES. */
    private void need(int n, String what) throws IOException {
        if (limit - pos >= n) return;
        if (remaining() < n) {
            throw corrupt(fileOffset(), what + " needs " + n + " bytes but only " + remaining() + " remain");
        }
        refill(n);
    }

    /** Cold path: moves the unread bytes to the window's start and reads until it holds at least {@code n}. */
    private void refill(int n) throws IOException {
        int left = limit - pos;
        System.arraycopy(window, pos, window, 0, left);
        windowStart += pos;
        pos = 0;
        limit = left;
        int room = (int) Math.min(window.length, length - windowStart);
        view.clear().position(limit).limit(room);
        while (limit < n) {
            int r = channel.read(view, windowStart + limit);
            if (r < 0) {
                throw corrupt(windowStart + limit, "the file ends after " + (windowStart + limit) + " of the " + length
                        + " bytes it had when opened");
            }
            limit += r;
        }
    }

    public int u8(String what) throws IOException {
        need(1, what);
        return window[pos++] & 0xFF;
    }

    /** The next byte, without moving past it. */
    public int peekU8(String what) throws IOException {
        need(1, what);
        return window[pos] & 0xFF;
    }

    public int u16(String what) throws IOException {
        need(2, what);
        int v = ((window[pos] & 0xFF) << 8) | (window[pos + 1] & 0xFF);
        pos += 2;
        return v;
    }

    public int i32(String what) throws IOException {
        need(4, what);
        int v = BoundedReader.getInt(window, pos);
        pos += 4;
        return v;
    }

    public long i64(String what) throws IOException {
        need(8, what);
        long v = BoundedReader.getLong(window, pos);
        pos += 8;
        return v;
    }

    public long unsignedVInt(String what) throws IOException {
        need(1, what);
        int size = VInt.sizeFromFirstByte(window[pos]);
        need(size, what);
        long v = VInt.getUnsigned(window, pos);
        pos += size;
        return v;
    }

    /** A non-negative length that fits in what remains of the file. */
    public long length(long value, long at, String what) {
        if (value < 0 || value > remaining()) {
            throw corrupt(at, what + " length " + Long.toUnsignedString(value) + " exceeds the " + remaining() + " bytes left");
        }
        return value;
    }

    /** Passes over {@code n} bytes. */
    public void skip(long n, String what) {
        if (n < 0 || n > remaining()) {
            throw corrupt(fileOffset(), what + " needs " + n + " bytes but only " + remaining() + " remain");
        }
        if (n <= limit - pos) {
            pos += (int) n;
        } else {
            windowStart = fileOffset() + n;
            pos = 0;
            limit = 0;
        }
    }

    /** Passes over a bytes_v value (uvint length, then the bytes), and returns its length. */
    public long skipVIntBytes(String what) throws IOException {
        long at = fileOffset();
        long n = length(unsignedVInt(what), at, what);
        skip(n, what);
        return n;
    }

    /** Copies the next {@code n} bytes into {@code dst[offset, offset + n)}. */
    public void read(byte[] dst, int offset, int n, String what) throws IOException {
        if (n < 0 || n > remaining()) {
            throw corrupt(fileOffset(), what + " needs " + n + " bytes but only " + remaining() + " remain");
        }
        int done = 0;
        while (done < n) {
            if (pos == limit) refill(1);
            int chunk = Math.min(n - done, limit - pos);
            System.arraycopy(window, pos, dst, offset + done, chunk);
            pos += chunk;
            done += chunk;
        }
    }

    /** Java's writeUTF: u16 byte count + modified UTF-8 (ASCII in everything we read). */
    public String utf(String what) throws IOException {
        long at = fileOffset();
        int n = (int) length(u16(what), at, what);
        byte[] b = new byte[n];
        read(b, 0, n, what);
        return new String(b, java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}

package dev.flushline.sstable;

import dev.flushline.io.VInt;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Big-endian reads over a byte array holding (part of) one component file, each checked against
 * the array's limit first: a read past it, or a length field larger than what is left, is a
 * {@link CorruptSSTableException} naming the file and the offset of the field, never an
 * allocation sized by the field. For the small components read whole (Statistics, Summary,
 * CRC, Filter; BTI's Partitions.db); {@link StreamingReader} reads those that grow with the data.
 *
 * <p>Thread safety: none; one reader per component pass.
 */
public final class BoundedReader {
    private final Path file;
    private final byte[] bytes;
    /** File offset of bytes[0], for messages. */
    private final long baseOffset;
    private final int limit;
    private int pos;

    public BoundedReader(Path file, byte[] bytes, int start, int limit, long baseOffset) {
        this.file = file;
        this.bytes = bytes;
        this.pos = start;
        this.limit = limit;
        this.baseOffset = baseOffset;
    }

    public BoundedReader(Path file, byte[] bytes) {
        this(file, bytes, 0, bytes.length, 0);
    }

    public Path file() { return file; }

    public byte[] array() { return bytes; }

    public int position() { return pos; }

    public void position(int p) {
        if (p < 0 || p > limit) throw corrupt(fileOffset(pos), "position " + (baseOffset + p) + " outside the component");
        pos = p;
    }

    public int limit() { return limit; }

    public int remaining() { return limit - pos; }

    public boolean hasRemaining() { return pos < limit; }

    /** The file offset of the next byte. */
    public long fileOffset() { return baseOffset + pos; }

    private long fileOffset(int p) { return baseOffset + p; }

    public CorruptSSTableException corrupt(long fileOffset, String reason) {
        return new CorruptSSTableException(file, fileOffset, reason);
    }

    private void need(int n, String what) {
        if (n < 0 || n > limit - pos) {
            throw corrupt(fileOffset(pos), what + " needs " + n + " bytes but only " + (limit - pos) + " remain");
        }
    }

    public int u8(String what) {
        need(1, what);
        return bytes[pos++] & 0xFF;
    }

    public int u16(String what) {
        need(2, what);
        int v = ((bytes[pos] & 0xFF) << 8) | (bytes[pos + 1] & 0xFF);
        pos += 2;
        return v;
    }

    public int i32(String what) {
        need(4, what);
        int v = getInt(bytes, pos);
        pos += 4;
        return v;
    }

    public long i64(String what) {
        need(8, what);
        long v = getLong(bytes, pos);
        pos += 8;
        return v;
    }

    /** Little-endian i32 (Summary.db offsets, the LZ4 length prefix). */
    public int i32LittleEndian(String what) {
        need(4, what);
        int v = (bytes[pos] & 0xFF) | ((bytes[pos + 1] & 0xFF) << 8) | ((bytes[pos + 2] & 0xFF) << 16) | ((bytes[pos + 3] & 0xFF) << 24);
        pos += 4;
        return v;
    }

    public long i64LittleEndian(String what) {
        need(8, what);
        long v = 0;
        for (int i = 7; i >= 0; i--) v = (v << 8) | (bytes[pos + i] & 0xFFL);
        pos += 8;
        return v;
    }

    public long unsignedVInt(String what) {
        need(1, what);
        int size = VInt.sizeFromFirstByte(bytes[pos]);
        need(size, what);
        long v = VInt.getUnsigned(bytes, pos);
        pos += size;
        return v;
    }

    /** Cassandra's readUnsignedVInt32: the value must fit an int once sign-extended. */
    public int unsignedVInt32(String what) {
        long at = fileOffset();
        long v = unsignedVInt(what);
        if ((int) v != v) throw corrupt(at, what + " " + Long.toUnsignedString(v) + " does not fit a 32-bit vint");
        return (int) v;
    }

    /** A non-negative length that fits in what remains of the component. */
    public int length(long value, long at, String what) {
        if (value < 0 || value > limit - pos) {
            throw corrupt(at, what + " length " + Long.toUnsignedString(value) + " exceeds the " + (limit - pos) + " bytes left");
        }
        return (int) value;
    }

    /** uvint length, checked; returns the length and leaves the position at the first byte. */
    public int vintLength(String what) {
        long at = fileOffset();
        return length(unsignedVInt(what), at, what);
    }

    public void skip(int n, String what) {
        need(n, what);
        pos += n;
    }

    /** A bytes_v value's length, after skipping it: the bytes are at {@code position() - length}. */
    public int skipVIntBytes(String what) {
        int n = vintLength(what);
        pos += n;
        return n;
    }

    public byte[] vintBytes(String what) {
        int n = vintLength(what);
        byte[] out = java.util.Arrays.copyOfRange(bytes, pos, pos + n);
        pos += n;
        return out;
    }

    public String vintString(String what) {
        int n = vintLength(what);
        String s = new String(bytes, pos, n, StandardCharsets.UTF_8);
        pos += n;
        return s;
    }

    /** Java's writeUTF: u16 byte count + modified UTF-8 (ASCII in everything we read). */
    public String utf(String what) {
        long at = fileOffset();
        int n = length(u16(what), at, what);
        String s = new String(bytes, pos, n, StandardCharsets.UTF_8);
        pos += n;
        return s;
    }

    public static int getInt(byte[] b, int off) {
        return ((b[off] & 0xFF) << 24) | ((b[off + 1] & 0xFF) << 16) | ((b[off + 2] & 0xFF) << 8) | (b[off + 3] & 0xFF);
    }

    public static long getLong(byte[] b, int off) {
        return ((long) getInt(b, off) << 32) | (getInt(b, off + 4) & 0xFFFFFFFFL);
    }
}

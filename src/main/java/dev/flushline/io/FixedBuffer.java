package dev.flushline.io;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A write cursor over a fixed {@code byte[]}: {@code position} is where the next byte goes and
 * {@code limit} is the first index that may not be written. It never grows. Writing past the limit
 * throws {@link IndexOutOfBoundsException} naming position, limit and the request, because in the
 * "compute size, then write exactly that" discipline an overflow means a serializer bug, and a
 * silent grow would hide it.
 *
 * <p>Typical use: {@code int start = buf.position(); write...;
 * FixedBuffer.checkWritten("Row", expected, buf.position() - start);}
 *
 * <p>Multi-byte values are big-endian (Java {@code DataOutput}) unless the method name ends in
 * {@code LE}. The BIG format's index summary is the only little-endian user.
 *
 * <p>Thread safety: none; one writer thread owns a buffer. The backing array is exposed via
 * {@link #array()} so the bytes can go to a sink without another copy.
 *
 * <p>Invariant: {@code 0 <= position <= limit <= array.length}.
 */
public final class FixedBuffer {
    private static final VarHandle SHORT_BE = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT_BE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** {@code DataOutput.writeUTF} stores the encoded length in an unsigned 16-bit prefix. */
    public static final int UTF_LENGTH_PREFIX_BYTES = 2;
    public static final int MAX_UTF_ENCODED_BYTES = 0xFFFF;

    private byte[] array;
    private int position;
    private int limit;
    /**
     * False only for {@link #exactlySized}: there the caller computed the exact size, the array has
     * exactly that capacity, and an overrun is still loud (the JVM's array bounds checks throw
     * IndexOutOfBoundsException) and the caller compares written with computed bytes. So the
     * per-put capacity check, which a growing buffer cannot avoid, is skipped.
     */
    private final boolean checked;

    /** An owned buffer of {@code capacityBytes}, position 0, limit = capacity. */
    public FixedBuffer(int capacityBytes) {
        this(new byte[capacityBytes]);
    }

    /** Writes into the caller's array from 0 up to its length. */
    public FixedBuffer(byte[] array) {
        this(array, true);
    }

    private FixedBuffer(byte[] array, boolean checked) {
        this.array = array;
        this.position = 0;
        this.limit = array.length;
        this.checked = checked;
    }

    /**
     * A cursor over an array allocated to exactly the size about to be written. REQUIRES: the
     * caller checks {@code position() == array.length} afterwards; an overrun throws the JVM's
     * IndexOutOfBoundsException instead of this class's own message.
     */
    public static FixedBuffer exactlySized(byte[] array) {
        return new FixedBuffer(array, false);
    }

    /** Re-points this cursor at {@code array[position..limit)}; lets a flyweight be reused per record. */
    public void wrap(byte[] array, int position, int limit) {
        if (position < 0 || position > limit || limit > array.length) {
            throw new IndexOutOfBoundsException("wrap: position " + position + " limit " + limit
                    + " array length " + array.length);
        }
        this.array = array;
        this.position = position;
        this.limit = limit;
    }

    /** Position 0, limit = capacity; the bytes are not zeroed. */
    public void clear() {
        position = 0;
        limit = array.length;
    }

    public byte[] array() { return array; }

    public int position() { return position; }

    public int limit() { return limit; }

    public int capacity() { return array.length; }

    public int remaining() { return limit - position; }

    public void position(int newPosition) {
        if (newPosition < 0 || newPosition > limit) {
            throw new IndexOutOfBoundsException("position " + newPosition + " outside [0, limit " + limit + "]");
        }
        position = newPosition;
    }

    public void limit(int newLimit) {
        if (newLimit < position || newLimit > array.length) {
            throw new IndexOutOfBoundsException("limit " + newLimit + " outside [position " + position
                    + ", capacity " + array.length + "]");
        }
        limit = newLimit;
    }

    /** Throws unless {@code bytes} more bytes fit below the limit. */
    public void ensureRemaining(int bytes) {
        // Written as a subtraction so a huge request cannot overflow into a pass.
        if (checked && (bytes < 0 || bytes > limit - position)) {
            throw overflow(bytes);
        }
    }

    /**
     * The "reserve exactly N, write, check" rule: throws {@link SerializationSizeMismatchException}
     * naming {@code structure} and both numbers unless they are equal.
     */
    public static void checkWritten(String structure, long expectedBytes, long actualBytes) {
        if (expectedBytes != actualBytes) {
            throw new SerializationSizeMismatchException(structure, expectedBytes, actualBytes);
        }
    }

    public void putByte(int value) {
        ensureRemaining(1);
        array[position++] = (byte) value;
    }

    public void putBoolean(boolean value) {
        putByte(value ? 1 : 0);
    }

    public void putShort(int value) {
        ensureRemaining(Short.BYTES);
        SHORT_BE.set(array, position, (short) value);
        position += Short.BYTES;
    }

    public void putInt(int value) {
        ensureRemaining(Integer.BYTES);
        INT_BE.set(array, position, value);
        position += Integer.BYTES;
    }

    public void putLong(long value) {
        ensureRemaining(Long.BYTES);
        LONG_BE.set(array, position, value);
        position += Long.BYTES;
    }

    public void putIntLE(int value) {
        ensureRemaining(Integer.BYTES);
        INT_LE.set(array, position, value);
        position += Integer.BYTES;
    }

    public void putLongLE(long value) {
        ensureRemaining(Long.BYTES);
        LONG_LE.set(array, position, value);
        position += Long.BYTES;
    }

    /** Raw IEEE-754 bits, as {@code DataOutput.writeFloat} (NaN payload preserved). */
    public void putFloat(float value) {
        putInt(Float.floatToRawIntBits(value));
    }

    /** Raw IEEE-754 bits, as {@code DataOutput.writeDouble} (NaN payload preserved). */
    public void putDouble(double value) {
        putLong(Double.doubleToRawLongBits(value));
    }

    public void putUnsignedVInt(long value) {
        int sizeBytes = VInt.sizeOfUnsigned(value);
        ensureRemaining(sizeBytes);
        position = VInt.putUnsigned(array, position, value, sizeBytes);
    }

    public void putSignedVInt(long value) {
        ensureRemaining(VInt.sizeOfSigned(value));
        position = VInt.putSigned(array, position, value);
    }

    /** Cassandra's writeUnsignedVInt32: sign-extends, so a negative int writes 9 bytes. */
    public void putUnsignedVInt32(int value) {
        putUnsignedVInt((long) value);
    }

    /** Cassandra's writeVInt32: sign-extends, then zig-zag. */
    public void putSignedVInt32(int value) {
        putSignedVInt((long) value);
    }

    public void putBytes(byte[] src, int srcOffset, int length) {
        ensureRemaining(length);
        copySmallOrBulk(src, srcOffset, array, position, length);
        position += length;
    }

    /** Below this, copies go 8 bytes at a time inline instead of through the arraycopy stub. */
    static final int SMALL_COPY_BYTES = 32;

    /**
     * Copies {@code length} bytes. Flushes copy millions of short values (16-byte texts, 8-byte
     * longs); for those the fixed cost of the arraycopy stub call dominated the serializer's
     * profile, so short copies use word-sized loads and stores.
     * REQUIRES: both ranges in bounds (checked by the callers' limits and Java's array checks).
     */
    public static void copySmallOrBulk(byte[] src, int srcOffset, byte[] dst, int dstOffset, int length) {
        if (length > SMALL_COPY_BYTES) {
            System.arraycopy(src, srcOffset, dst, dstOffset, length);
            return;
        }
        if ((srcOffset | length) < 0 || srcOffset + length > src.length) {
            throw new IndexOutOfBoundsException("src " + src.length + " offset " + srcOffset + " length " + length);
        }
        int i = 0;
        for (; i + Long.BYTES <= length; i += Long.BYTES) {
            LONG_LE.set(dst, dstOffset + i, (long) LONG_LE.get(src, srcOffset + i));
        }
        for (; i < length; i++) {
            dst[dstOffset + i] = src[srcOffset + i];
        }
    }

    /** Bytes {@link #putUtf} writes for {@code s}: the 2-byte length plus modified UTF-8. */
    public static int sizeOfUtf(String s) {
        return UTF_LENGTH_PREFIX_BYTES + modifiedUtf8Length(s);
    }

    /**
     * Java modified UTF-8 with a u16 length prefix, byte-identical to {@code DataOutput.writeUTF}:
     * U+0000 is two bytes (C0 80) and supplementary characters are two 3-byte surrogates.
     */
    public void putUtf(String s) {
        int encodedLength = modifiedUtf8Length(s);
        if (encodedLength > MAX_UTF_ENCODED_BYTES) {
            throw new IllegalArgumentException("writeUTF: encoded string too long: " + encodedLength + " bytes");
        }
        ensureRemaining(UTF_LENGTH_PREFIX_BYTES + encodedLength);
        byte[] a = array;
        int p = position;
        a[p++] = (byte) (encodedLength >>> 8);
        a[p++] = (byte) encodedLength;
        int charCount = s.length();
        for (int i = 0; i < charCount; i++) {
            char c = s.charAt(i);
            if (c >= 0x0001 && c <= 0x007F) {
                a[p++] = (byte) c;
            } else if (c <= 0x07FF) {
                a[p++] = (byte) (0xC0 | (c >> 6));
                a[p++] = (byte) (0x80 | (c & 0x3F));
            } else {
                a[p++] = (byte) (0xE0 | (c >> 12));
                a[p++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                a[p++] = (byte) (0x80 | (c & 0x3F));
            }
        }
        position = p;
    }

    private static int modifiedUtf8Length(String s) {
        int charCount = s.length();
        int encodedLength = charCount;
        for (int i = 0; i < charCount; i++) {
            char c = s.charAt(i);
            if (c == 0 || c > 0x007F) {
                encodedLength += c > 0x07FF ? 2 : 1;
            }
        }
        return encodedLength;
    }

    private IndexOutOfBoundsException overflow(int requestedBytes) {
        return new IndexOutOfBoundsException("FixedBuffer overflow: need " + requestedBytes + " bytes at position "
                + position + " but limit is " + limit + " (remaining " + (limit - position) + ")");
    }
}

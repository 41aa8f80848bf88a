package dev.flushline.schema;

import java.util.Arrays;

/**
 * A growable arena that serialized values are appended to, for writers that hand values on as
 * {@code (array, offset, length)} without a byte array per value. A value is contiguous in
 * {@link #array()} from the offset {@link #position()} had before it was written. When full, the
 * arena moves to a bigger array with the same content; the old array is never written again, so a
 * reference taken before stays valid. {@link #reset()} starts over in the current array: REQUIRES
 * nothing still reads a value written before it.
 *
 * <p>Thread safety: none; owned by one writer.
 */
public final class ValueBuffer {
    private byte[] array;
    private int position;

    public ValueBuffer(int initialBytes) {
        array = new byte[Math.max(16, initialBytes)];
    }

    public byte[] array() { return array; }

    public int position() { return position; }

    public void reset() { position = 0; }

    /** Room for {@code bytes} more bytes at {@link #position()}. */
    public void ensure(int bytes) {
        if (array.length - position < bytes) {
            long want = Math.max((long) array.length * 2, (long) position + bytes);
            if (want > Integer.MAX_VALUE - 8) throw new IllegalStateException("value arena beyond 2 GiB: " + want + " bytes");
            array = Arrays.copyOf(array, (int) want);
        }
    }

    public void putByte(int v) {
        ensure(1);
        array[position++] = (byte) v;
    }

    public void putShort(int v) {
        ensure(2);
        array[position] = (byte) (v >>> 8);
        array[position + 1] = (byte) v;
        position += 2;
    }

    public void putInt(int v) {
        ensure(4);
        byte[] a = array;
        int p = position;
        a[p] = (byte) (v >>> 24);
        a[p + 1] = (byte) (v >>> 16);
        a[p + 2] = (byte) (v >>> 8);
        a[p + 3] = (byte) v;
        position = p + 4;
    }

    public void putLong(long v) {
        putInt((int) (v >>> 32));
        putInt((int) v);
    }

    public void putBytes(byte[] src, int offset, int length) {
        ensure(length);
        System.arraycopy(src, offset, array, position, length);
        position += length;
    }

    /** Writes {@code count} bytes the caller filled directly into {@link #array()} after {@link #ensure}. */
    public void advance(int count) {
        position += count;
    }
}

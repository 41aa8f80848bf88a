package dev.flushline.data;

import java.util.Arrays;

/**
 * A reusable clustering prefix (a row's clustering or a range tombstone bound) whose values are
 * byte ranges in other buffers, typically an sstable cursor's window: {@code kind} (a
 * {@link ClusteringBound} kind byte, {@link ClusteringBound#CLUSTERING} for a row), {@code size}
 * values, value i at {@code source(i)[offset(i), offset(i) + length(i))}.
 *
 * <p>{@link #copyFrom} makes the buffer self-contained: it copies the values into an arena this
 * buffer owns, which grows only when a bigger prefix comes, so keeping "the previous prefix"
 * allocates nothing in the steady state.
 *
 * <p>Thread safety: none; a flyweight owned by one thread. The ranges are valid only as long as
 * the buffers they point into hold those bytes (for a cursor, until its next advance).
 */
public final class ClusteringBuffer {
    private byte kind = ClusteringBound.CLUSTERING;
    private int size;
    private byte[][] source;
    private int[] offset;
    private int[] length;
    private byte[] arena = new byte[64];

    public ClusteringBuffer(int capacity) {
        int n = Math.max(1, capacity);
        source = new byte[n][];
        offset = new int[n];
        length = new int[n];
    }

    /** Starts a prefix of {@code size} values; set each with {@link #set}. */
    public void reset(byte kind, int size) {
        if (size > source.length) {
            source = Arrays.copyOf(source, size);
            offset = Arrays.copyOf(offset, size);
            length = Arrays.copyOf(length, size);
        }
        this.kind = kind;
        this.size = size;
    }

    public void set(int i, byte[] src, int off, int len) {
        source[i] = src;
        offset[i] = off;
        length[i] = len;
    }

    /** Points this buffer at {@code values} (no copy), with {@code kind}; returns it. */
    public ClusteringBuffer wrap(byte kind, byte[][] values) {
        reset(kind, values.length);
        for (int i = 0; i < values.length; i++) set(i, values[i], 0, values[i].length);
        return this;
    }

    public void setKind(byte kind) {
        this.kind = kind;
    }

    public byte kind() { return kind; }

    public int size() { return size; }

    public byte[] source(int i) { return source[i]; }

    public int offset(int i) { return offset[i]; }

    public int length(int i) { return length[i]; }

    /**
     * Whether {@code other} holds the same kind and the same bytes in each value: stricter than
     * comparing equal, since equal values may differ in bytes (decimal 1.0 and 1.00).
     */
    public boolean sameBytes(ClusteringBuffer other) {
        if (other.kind != kind || other.size != size) return false;
        for (int i = 0; i < size; i++) {
            if (!Arrays.equals(source[i], offset[i], offset[i] + length[i],
                    other.source[i], other.offset[i], other.offset[i] + other.length[i])) {
                return false;
            }
        }
        return true;
    }

    /** Copies {@code other}'s kind and values into this buffer's own arena. */
    public void copyFrom(ClusteringBuffer other) {
        int n = other.size;
        int total = 0;
        for (int i = 0; i < n; i++) total += other.length[i];
        if (total > arena.length) arena = new byte[Math.max(total, 2 * arena.length)];
        reset(other.kind, n);
        int at = 0;
        for (int i = 0; i < n; i++) {
            int len = other.length[i];
            System.arraycopy(other.source[i], other.offset[i], arena, at, len);
            set(i, arena, at, len);
            at += len;
        }
    }

    /** The values as arrays of their own (allocates; for the few places that keep a prefix). */
    public byte[][] toArrays() {
        byte[][] out = new byte[size][];
        for (int i = 0; i < size; i++) out[i] = Arrays.copyOfRange(source[i], offset[i], offset[i] + length[i]);
        return out;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Clustering{kind=").append(kind).append(", [");
        for (int i = 0; i < size; i++) {
            if (i > 0) sb.append(", ");
            sb.append(Hex.of(source[i], offset[i], length[i]));
        }
        return sb.append("]}").toString();
    }
}

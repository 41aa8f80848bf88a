package dev.flushline.data;

import java.util.Arrays;

/**
 * A partition key with its Murmur3 token (Cassandra's DecoratedKey). Orders by token (signed), then
 * by key bytes (unsigned), which is the order of partitions in every sstable.
 *
 * <p>Thread safety: immutable; the key array is owned and never modified.
 */
public final class PartitionKey implements Comparable<PartitionKey> {
    private final long token;
    private final byte[] key;

    private PartitionKey(long token, byte[] key) {
        this.token = token;
        this.key = key;
    }

    /** Takes ownership of {@code key}: the serialized key (CompositeType bytes for composite keys). */
    public static PartitionKey of(byte[] key) {
        return new PartitionKey(Murmur3.token(key, 0, key.length), key);
    }

    /** The largest component of a composite key, and the largest key: lengths are unsigned 16-bit. */
    public static final int MAX_COMPONENT_BYTES = 0xFFFF;
    /** Per component of a composite key: the u16 length before its bytes and the end-of-component byte after. */
    public static final int COMPONENT_OVERHEAD_BYTES = 3;

    /**
     * The serialized key of the column values {@code components} (each non-null, in key order):
     * one column's bytes as they are (the array itself, not a copy), several as Cassandra's
     * CompositeType encodes them: per component a u16 length, the bytes, and an end-of-component
     * byte 0. Checks no component is longer than {@link #MAX_COMPONENT_BYTES}; the caller checks
     * the whole key's length (and names the columns).
     */
    public static byte[] compose(byte[][] components) {
        if (components.length == 1) return components[0];
        int size = 0;
        for (int i = 0; i < components.length; i++) size += COMPONENT_OVERHEAD_BYTES + checkedLength(components[i].length, i);
        byte[] key = new byte[size];
        int p = 0;
        for (int i = 0; i < components.length; i++) p = putComponent(key, p, components[i], 0, components[i].length);
        return key;
    }

    /**
     * Writes one component of a composite key at {@code offset} of {@code dst} (which has room for
     * {@code length + COMPONENT_OVERHEAD_BYTES}) and returns the offset after it: for callers that
     * build keys in a reused array without allocating.
     */
    public static int putComponent(byte[] dst, int offset, byte[] value, int valueOffset, int length) {
        checkedLength(length, -1);
        dst[offset] = (byte) (length >>> 8);
        dst[offset + 1] = (byte) length;
        System.arraycopy(value, valueOffset, dst, offset + 2, length);
        dst[offset + 2 + length] = 0; // end-of-component
        return offset + COMPONENT_OVERHEAD_BYTES + length;
    }

    /**
     * The components of a composite key, the inverse of {@link #compose}: for component i,
     * {@code out[2i]} is its offset in {@code key} and {@code out[2i + 1]} its length; its
     * end-of-component byte, where the key holds one, is {@code key[out[2i] + out[2i + 1]]}. Reads
     * at most {@code componentCount} components, stops after one whose end-of-component byte is
     * not 0 (a bound rather than a key) and before one the key cuts short; returns how many it read.
     * REQUIRES: {@code out.length >= 2 * componentCount}.
     */
    public static int decompose(byte[] key, int componentCount, int[] out) {
        int p = 0, n = 0;
        while (n < componentCount && p + 2 <= key.length) {
            int length = ((key[p] & 0xFF) << 8) | (key[p + 1] & 0xFF);
            p += 2;
            if (p + length > key.length) break;
            out[2 * n] = p;
            out[2 * n + 1] = length;
            n++;
            p += length;
            if (p >= key.length || key[p++] != 0) break;
        }
        return n;
    }

    private static int checkedLength(int length, int component) {
        if (length > MAX_COMPONENT_BYTES) {
            throw new IllegalArgumentException("partition key component " + (component >= 0 ? component + " " : "") + "is " + length
                    + " bytes, longer than the maximum of " + MAX_COMPONENT_BYTES);
        }
        return length;
    }

    /** A search key that sorts before every real key with this token (for range lookups). */
    public static PartitionKey minimumForToken(long token) {
        return new PartitionKey(token, null);
    }

    public long token() { return token; }

    /** The key bytes themselves. Do not modify. */
    public byte[] key() { return key; }

    @Override
    public int compareTo(PartitionKey o) {
        int c = Long.compare(token, o.token);
        if (c != 0) return c;
        if (key == null || o.key == null) {
            return key == null ? (o.key == null ? 0 : -1) : 1;
        }
        return Arrays.compareUnsigned(key, o.key);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PartitionKey && ((PartitionKey) o).token == token && Arrays.equals(key, ((PartitionKey) o).key);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(token);
    }

    @Override
    public String toString() {
        return "PartitionKey{token=" + token + ", key=" + (key == null ? "min" : Hex.of(key)) + '}';
    }
}

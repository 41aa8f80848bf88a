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

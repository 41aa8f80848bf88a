package dev.flushline.data;

import dev.flushline.schema.TableSchema;

/**
 * One acknowledged unit of write: a partition update of one table. It is appended to the commit
 * log before it reaches a memtable.
 *
 * <p>Thread safety: immutable, apart from the cached serialization, which is a benign race: every
 * thread that serializes computes the same bytes, and a reader sees either null or a complete
 * array (the field is volatile, so the array's contents are published with the reference).
 */
public final class Mutation {
    private final TableSchema table;
    private final PartitionUpdate update;
    /** The commit log's exact-size serialization, kept so a retried append does not serialize again. */
    private volatile byte[] serialized;

    public Mutation(TableSchema table, PartitionUpdate update) {
        this.table = table;
        this.update = update;
    }

    public TableSchema table() { return table; }

    public PartitionUpdate update() { return update; }

    public PartitionKey key() { return update.key(); }

    /** The cached serialized form, or null if no serializer stored one yet. Do not modify. */
    public byte[] cachedSerialization() { return serialized; }

    /** Stores the serialized form; the caller hands over the array and must not modify it again. */
    public void cacheSerialization(byte[] bytes) { this.serialized = bytes; }

    @Override
    public String toString() {
        return "Mutation{" + table + ", " + update + '}';
    }
}

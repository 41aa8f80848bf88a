package dev.flushline.data;

import dev.flushline.schema.TableSchema;

/**
 * One acknowledged unit of write: a partition update of one table. It is appended to the commit
 * log before it reaches a memtable.
 *
 * <p>Thread safety: immutable.
 */
public final class Mutation {
    private final TableSchema table;
    private final PartitionUpdate update;

    public Mutation(TableSchema table, PartitionUpdate update) {
        this.table = table;
        this.update = update;
    }

    public TableSchema table() { return table; }

    public PartitionUpdate update() { return update; }

    public PartitionKey key() { return update.key(); }

    @Override
    public String toString() {
        return "Mutation{" + table + ", " + update + '}';
    }
}

package dev.flushline.sstable;

/**
 * The verifier's check of a format's partition index against Data.db: {@link SSTableVerifier}
 * walks Data.db and tells the check about each partition as it goes, and the check compares what
 * its index holds for it (BIG: the Index.db entry, its promoted index, the Summary.db sample).
 * A mismatch throws {@link CorruptSSTableException} naming the index file and offset.
 *
 * <p>Granularity: calls per partition, never per row.
 *
 * <p>Life cycle: the verifier closes the check when it is done, passed or not; a check may hold
 * files open (BIG streams Index.db; BTI re-reads wide partitions through a cursor of its own).
 *
 * <p>Thread safety: none; one per verification.
 */
public interface PartitionIndexCheck extends AutoCloseable {
    /**
     * The partition with ordinal {@code ordinal} (0 for the first) starts at {@code dataPosition}
     * with key {@code key[keyOffset, keyOffset + keyLength)} and the given partition deletion.
     */
    void partition(long ordinal, byte[] key, int keyOffset, int keyLength, long dataPosition, long deletionTimestamp,
                   long deletionLocalTime) throws java.io.IOException;

    /**
     * The current partition ends at {@code partitionEnd} (after its end-of-partition byte); its
     * header and static row end at {@code afterStatic}.
     */
    void partitionEnd(long partitionStart, long afterStatic, long partitionEnd);

    /** Data.db ended after {@code partitions} partitions (first and last keys null when none). */
    void end(long partitions, byte[] firstKey, byte[] lastKey) throws java.io.IOException;

    /** Releases what the check holds open; nothing by default. */
    @Override
    default void close() throws java.io.IOException {}
}

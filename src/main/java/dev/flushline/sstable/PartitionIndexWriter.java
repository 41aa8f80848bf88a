package dev.flushline.sstable;


import java.io.IOException;

/**
 * What a format writes beside the shared components: its partition index (BIG: Index.db and
 * Summary.db). {@link SSTableWriter} makes one per sstable from its version's
 * {@link SSTableFormat} and tells it about each partition after the partition's bytes are in
 * Data.db; everything else (Data.db, statistics, filter, digest, compression, TOC, publishing) is
 * shared and stays with the writer.
 *
 * <p>Granularity: one call per partition, never per row or cell. The row index blocks are cut on
 * the per-row path by the shared {@link RowIndexBlocks} and handed over whole with the partition.
 * The call is an interface call per partition, which is free beside the partition's rows; and
 * with one implementation loaded (one format in use) the JIT sees a single receiver there.
 *
 * <p>Files: written under the descriptor's staging names; the writer fsyncs and publishes them
 * with the rest. Life cycle: {@link #add} per partition in Data.db order, then
 * {@link #finishPartitions} when Data.db ends, then {@link #finish} before publishing; or
 * {@link #abort} at any point.
 *
 * <p>Thread safety: none; owned by the sstable's writer thread.
 */
public interface PartitionIndexWriter {
    /**
     * Indexes the partition just written at {@code dataPosition} (uncompressed Data.db offset).
     * {@code keyHash1} and {@code keyHash2}: the key's Murmur3 hash128 halves (h1, h2), which the
     * sstable writer computes once per partition for the bloom filter; a format that needs the
     * token takes it from h1 ({@code Murmur3.tokenOfHash}) rather than hashing the key again.
     * {@code headerLength}: bytes of its header and static row; {@code blocks}: its row index
     * blocks, finished; {@code deletionTimestamp} and {@code deletionLocalTime}: its partition
     * deletion (LIVE: Long.MIN_VALUE, Long.MAX_VALUE). {@code key[0, keyLength)} and {@code blocks}
     * may change after the call.
     */
    void add(byte[] key, int keyLength, long keyHash1, long keyHash2, long dataPosition, long headerLength, long deletionTimestamp,
             long deletionLocalTime, RowIndexBlocks blocks) throws IOException;

    /** Ends (flushes, fsyncs and closes) what was written partition by partition. */
    void finishPartitions() throws IOException;

    /**
     * Writes, fsynced, what needs every partition first (BIG: Summary.db with the first and last
     * keys). REQUIRES: {@link #finishPartitions}, and at least one partition.
     */
    void finish(byte[] firstKey, byte[] lastKey) throws IOException;

    /** Closes whatever is open; the caller deletes the staging directory. Never throws. */
    void abort();
}

package dev.flushline.sstable.bti;

/**
 * Rows.db, the BTI format's row index: for each partition whose rows span two or more index
 * blocks, in partition order, a trie ({@link TrieNodeLayout}) over its blocks followed by the
 * partition's entry, which Partitions.db points to.
 *
 * <pre>
 * Rows.db := (row_index_trie entry)*
 *   entry := key_length:u16 key
 *            data_position:uvint            the partition's offset in Data.db
 *            root_delta:vint                the trie's root = (offset of data_position) + root_delta
 *            block_count:uvint32            index blocks (two or more; the trie has one entry more)
 *            partition_deletion             (DeletionTimeLayout, in the version's form)
 *
 * row index trie: one entry per block, keyed by a separator of clustering prefixes in
 *   byte-comparable form: the first block's is empty (the root's payload); each later one's is
 *   the shortest key greater than the previous block's last clustering and not greater than the
 *   block's first. One more entry after the last block, keyed just past its last clustering,
 *   holds the offset where the partition's rows end.
 *
 * payload of a node with payload flags f:
 *   offset:(f & OFFSET_BYTES_MASK) bytes, signed big-endian   from the partition's start in Data.db:
 *                                                             the block's first row or marker (the
 *                                                             end entry: the end-of-partition byte)
 *   [open_deletion]  when f & OPEN_MARKER_FLAG                the range deletion open where the block
 *                                                             starts (DeletionTimeLayout, deleted form)
 * </pre>
 * The blocks are cut as the partition is written, when a block's rows reach the block size
 * ({@link #DEFAULT_BLOCK_BYTES} unless column_index_size is set); the first block starts after
 * the partition header and static row.
 *
 * <p>Thread safety: stateless.
 */
public final class RowsLayout {
    private RowsLayout() {}

    /** A payload's flags: the offset's width in the low three bits... */
    public static final int OFFSET_BYTES_MASK = 0x7;
    /** ...and this bit when an open range deletion follows the offset. */
    public static final int OPEN_MARKER_FLAG = 0x8;
    /** Cassandra 5.0's BTI row index granularity when column_index_size is not set. */
    public static final int DEFAULT_BLOCK_BYTES = 16 * 1024;
    /** A partition gets an entry (and a trie) only with at least this many blocks. */
    public static final int MIN_BLOCKS = 2;
    /** The u16 length before the key. */
    public static final int KEY_LENGTH_BYTES = 2;

    public static int offsetBytes(int flags) {
        return flags & OFFSET_BYTES_MASK;
    }

    public static boolean hasOpenMarker(int flags) {
        return (flags & OPEN_MARKER_FLAG) != 0;
    }
}

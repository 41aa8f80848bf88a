package dev.flushline.sstable.big;

/**
 * The BIG format's partition index: Index.db and Summary.db byte layouts, in one place for their
 * writer and readers. They are the same in oa and nb except for the deletion times in Index.db,
 * which take the version's {@code DeletionTimeLayout} form (nb: always 12 bytes, local deletion
 * time first). Clustering names use {@code ClusteringLayout}'s prefix-with-kind form.
 *
 * <pre>
 * Index.db   := entry*                                   (one per partition, in Data.db order)
 *   entry          := key_len:u16 key data_position:uvint promoted_size:uvint [promoted_index]
 *   promoted_index := header_length:uvint partition_deletion(DeletionTimeLayout) block_count:uvint
 *                     index_info* info_offset:i32*          (info offsets from the first index_info)
 *   index_info     := first_name last_name (ClusteringLayout prefix with kind)
 *                     offset:uvint width:svint(width - WIDTH_BASE) has_open:bool [open:DeletionTimeLayout]
 *
 * Summary.db := min_index_interval:i32 entry_count:i32 offheap_size:i64 sampling_level:i32
 *               size_at_full_sampling:i32                                    (SUMMARY_HEADER_BYTES)
 *               entry_count x offset:u32 LE (from the start of the offsets)   (SUMMARY_OFFSET_BYTES)
 *               entry_count x (key bytes, index_position:i64 LE)             (SUMMARY_POSITION_BYTES)
 *               first_key: i32 length + bytes, last_key: i32 length + bytes  (SUMMARY_KEY_LENGTH_BYTES)
 * </pre>
 * A promoted index is written only for a partition of two or more row index blocks; its offsets
 * are relative to the partition start, and the last block also covers the end-of-partition byte.
 */
public final class BigIndexLayout {
    private BigIndexLayout() {}

    /** IndexInfo widths are stored relative to the default column index size. */
    public static final long WIDTH_BASE = 64 * 1024;
    /** Each IndexInfo's offset in the promoted index's trailing offset table. */
    public static final int INFO_OFFSET_BYTES = 4;
    /** An entry's key length. */
    public static final int KEY_LENGTH_BYTES = 2;

    public static final int SUMMARY_HEADER_BYTES = 4 + 4 + 8 + 4 + 4;
    public static final int SUMMARY_OFFSET_BYTES = 4;
    public static final int SUMMARY_POSITION_BYTES = 8;
    public static final int SUMMARY_KEY_LENGTH_BYTES = 4;
}

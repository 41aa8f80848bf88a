package dev.flushline.sstable;

/**
 * Flag bytes of Data.db (oa), in one place. See oa-format.md §3.2 and §3.8.
 *
 * <pre>
 * partition  := key_len:u16 key  partition_deletion  [static_row]  unfiltered*  END_OF_PARTITION
 * row        := flags [ext_flags] [clustering] row_size:uvint prev_size:uvint
 *               [liveness] [row_deletion] [column_bitmap] column_data*
 * marker     := IS_MARKER kind:u8 size:u16 [prefix blocks] marker_size:uvint prev_size:uvint deletion+
 * cell       := cell_flags [ts_delta] [ldt_delta] [ttl_delta] [path:bytes_v] [value]
 * </pre>
 */
public final class DataLayout {
    private DataLayout() {}

    // Unfiltered (row / marker) flags.
    public static final int END_OF_PARTITION = 0x01;
    public static final int IS_MARKER = 0x02;
    public static final int HAS_TIMESTAMP = 0x04;
    public static final int HAS_TTL = 0x08;
    public static final int HAS_DELETION = 0x10;
    public static final int HAS_ALL_COLUMNS = 0x20;
    public static final int HAS_COMPLEX_DELETION = 0x40;
    public static final int EXTENSION_FLAG = 0x80;

    // Extended flags (second byte, present iff EXTENSION_FLAG).
    public static final int IS_STATIC = 0x01;
    public static final int HAS_SHADOWABLE_DELETION = 0x02;

    // Cell flags.
    public static final int CELL_IS_DELETED = 0x01;
    public static final int CELL_IS_EXPIRING = 0x02;
    public static final int CELL_HAS_EMPTY_VALUE = 0x04;
    public static final int CELL_USE_ROW_TIMESTAMP = 0x08;
    public static final int CELL_USE_ROW_TTL = 0x10;

    /** Partition keys are written with a u16 length. */
    public static final int MAX_KEY_LENGTH = 0xFFFF;

    /** Column subsets of at least this many columns use the large-subset encoding (§3.6). */
    public static final int LARGE_SUBSET_THRESHOLD = 64;

    /** Clustering prefixes are written in blocks of this many components, one header vint each. */
    public static final int CLUSTERING_BLOCK_SIZE = 32;

    /** The partition deletion's LIVE form: one byte whose top bit is set (oa, CASSANDRA-18648). */
    public static final int PARTITION_DELETION_LIVE_BYTE = 0x80;
    /** The partition deletion's deleted form: i64 markedForDeleteAt + u32 localDeletionTime. */
    public static final int PARTITION_DELETION_DELETED_BYTES = Long.BYTES + Integer.BYTES;
}

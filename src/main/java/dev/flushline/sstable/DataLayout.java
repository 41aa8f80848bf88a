package dev.flushline.sstable;

/**
 * Flag bytes of Data.db (oa and nb), in one place, and the logical layout they mark. Data.db is the
 * partitions in token order, with no file header or footer. The two versions differ only in the
 * partition deletion ({@link DeletionTimeLayout}) and in what a local deletion time delta may hold:
 * nb's are signed 32-bit seconds (at most 2147483646), oa's unsigned.
 *
 * <pre>
 * partition  := key_len:u16 key  partition_deletion  [static_row]  unfiltered*  END_OF_PARTITION
 * row        := flags [ext_flags] [clustering] row_size:uvint prev_size:uvint
 *               [liveness] [row_deletion] [column_bitmap] column_data*
 * marker     := IS_MARKER kind:u8 size:u16 [prefix blocks] marker_size:uvint prev_size:uvint deletion+
 * cell       := cell_flags [ts_delta] [ldt_delta] [ttl_delta] [path:bytes_v] [value]
 * complex    := [complex_deletion] cell_count:uvint cell*
 * </pre>
 *
 * <ul>
 *   <li>partition_deletion: {@link DeletionTimeLayout}. The static row is present in every
 *       partition iff the header has static columns, even when the partition has no static data.
 *   <li>ext_flags is written iff the row is static or its deletion is shadowable; markers never
 *       have it. The static row has no clustering and prev_size 0.
 *   <li>row_size counts the bytes after its own vint to the end of the row (prev_size included);
 *       prev_size is the size of the previous unfiltered of the partition, or for the first one
 *       its offset from the partition start.
 *   <li>liveness (iff HAS_TIMESTAMP): ts delta, then, iff HAS_TTL, ttl delta and ldt delta (TTL
 *       first, unlike cells). row_deletion (iff HAS_DELETION): ts delta, ldt delta.
 *   <li>column_bitmap (iff not HAS_ALL_COLUMNS), over the header's columns of the row's kind
 *       (n of them, p present): below {@link #LARGE_SUBSET_THRESHOLD} columns one uvint whose bit
 *       i is set when column i is MISSING; from it on, uvint n - p, then the ascending indices
 *       (uvint) of the present columns if p < n / 2, else of the missing ones.
 *   <li>cell fields, in order: ts delta unless USE_ROW_TIMESTAMP; ldt delta iff deleted or
 *       expiring and not USE_ROW_TTL; ttl delta iff expiring and not USE_ROW_TTL; the path iff
 *       the column is complex; the value unless HAS_EMPTY_VALUE (a simple column's fixed-length
 *       value raw, else bytes_v; a complex column's value always bytes_v).
 *   <li>complex_deletion (ts delta, ldt delta) is written for every complex column of the row iff
 *       the row has HAS_COMPLEX_DELETION, a LIVE one included (encoded from timestamp
 *       Long.MIN_VALUE and local deletion time Long.MAX_VALUE).
 *   <li>A marker with a bound kind carries one deletion time, a boundary kind two (first the one
 *       that ends, then the one that starts). marker_size counts the bytes after its own vint.
 * </ul>
 * Deltas are taken from {@link EncodingStats}.
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

    /** Column subsets of at least this many columns use the large-subset encoding (see the class comment). */
    public static final int LARGE_SUBSET_THRESHOLD = 64;

    /** Clustering prefixes are written in blocks of this many components, one header vint each. */
    public static final int CLUSTERING_BLOCK_SIZE = 32;

    /** The partition deletion's LIVE form in oa: the single byte 0x80, whose top bit marks it as LIVE. */
    public static final int PARTITION_DELETION_LIVE_BYTE = 0x80;
    /** The partition deletion's deleted form: i64 markedForDeleteAt + u32 localDeletionTime. */
    public static final int PARTITION_DELETION_DELETED_BYTES = Long.BYTES + Integer.BYTES;
}

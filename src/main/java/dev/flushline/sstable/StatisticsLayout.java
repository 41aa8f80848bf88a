package dev.flushline.sstable;

/**
 * Statistics.db's container (Cassandra's MetadataSerializer, checksummed since {@code na}), in one
 * place for the writer and the reader.
 *
 * <pre>
 * +0                      count:i32                      (COMPONENT_COUNT when we write)
 * +4                      crc32(count):u32
 * +8                      count x (type:i32 offset:i32)  (TOC_ENTRY_BYTES each, type order)
 * +8+8*count              crc32(count + toc):u32         (running: the CRC is not reset after the first one)
 * firstComponentOffset    per component in type order: bytes, then crc32(bytes):u32
 *
 * VALIDATION := partitioner:utf  bloom_fp_chance:f64
 * COMPACTION := hll:bytes_i
 * STATS      := partition sizes, cells per partition (EstimatedHistogram), commit log upper bound
 *               (i64 i32), min/max timestamp (i64 i64), min/max ldt (u32 u32), min/max ttl (i32 i32),
 *               compression ratio (f64), tombstone histogram, level (i32), repairedAt (i64),
 *               clustering types (uvint count + bytes_v), covered slice (two bounds), legacy counter
 *               shards (bool), total columns set, total rows (i64 i64), commit log lower bound (i64 i32),
 *               commit log intervals (i32 n + n x (i64 i32 i64 i32)), pending repair (u8 [+16]),
 *               transient (bool), originating host id (u8 [+16]), has partition deletions (bool),
 *               first key, last key (bytes_v), token space coverage (f64), padding
 * HEADER     := {@link SerializationHeader}
 * </pre>
 * That STATS is oa's. nb's differs in four places (see {@link StatisticsWriter}): min/max ldt as
 * signed i32 (none = Integer.MAX_VALUE), the tombstone histogram as (f64, i64) per bin without
 * padding, min/max clustering values (i32 count + (u16 length, bytes)* each) in place of the
 * clustering types and covered slice, and no fields after the originating host id.
 * A component's length is the distance to the next component's offset (the last one's: to the
 * end of the file) minus its CRC; a reader ignores trailing bytes inside a component.
 */
public final class StatisticsLayout {
    private StatisticsLayout() {}

    public static final int VALIDATION = 0;
    public static final int COMPACTION = 1;
    public static final int STATS = 2;
    public static final int HEADER = 3;
    public static final int COMPONENT_COUNT = 4;

    public static final int CRC_BYTES = 4;
    public static final int COUNT_BYTES = 4;
    /** type:i32 offset:i32 */
    public static final int TOC_ENTRY_BYTES = 8;

    /** Offset of the first component for a container of {@code count} components. */
    public static int firstComponentOffset(int count) {
        return COUNT_BYTES + CRC_BYTES + TOC_ENTRY_BYTES * count + CRC_BYTES;
    }

    /** The only partitioner Flushline writes and reads. */
    public static final String PARTITIONER = "org.apache.cassandra.dht.Murmur3Partitioner";

    /** Marker bytes of the optional fields (pending repair, originating host id): absent / present. */
    public static final int OPTIONAL_ABSENT = 0;
    public static final int UUID_BYTES = 16;
}

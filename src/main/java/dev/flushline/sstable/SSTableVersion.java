package dev.flushline.sstable;

import dev.flushline.data.Cell;

/**
 * The sstable versions Flushline reads and writes, each of one {@link SSTableFormat}
 * (oa and nb are BIG's, da is BTI's). The version is chosen once per sstable (by the caller, never by global state) and
 * travels with its {@link Descriptor}; every layout that differs between versions asks it at
 * partition, index-entry or component granularity, never per cell, because nothing in a cell's or
 * a row's bytes depends on it. The format, and so the partition index, comes from the version.
 *
 * <p>How {@code nb} (Cassandra 4.0, and what Cassandra 5.0 writes and accepts in
 * {@code storage_compatibility_mode: CASSANDRA_4}) differs from {@code oa} (Cassandra 5.0):
 * <ul>
 *   <li>Local deletion times are signed 32-bit seconds, so the latest one is 2147483646
 *       (2038-01-19T03:14:06Z, one below Integer.MAX_VALUE, which means "none"); oa stores them
 *       unsigned, up to 2106. Cassandra in that mode refuses a TTL that expires later; a read of a
 *       negative value in an nb row, cell or deletion yields an invalid deletion time.</li>
 *   <li>A standalone deletion time (partition deletion in Data.db and Index.db, index block open
 *       markers) is always 12 bytes, local deletion time first; oa has a 1-byte LIVE form and puts
 *       the timestamp first (see {@link DeletionTimeLayout}).</li>
 *   <li>Statistics.db STATS: min/max local deletion time as signed ints capped at 2147483646
 *       (none = Integer.MAX_VALUE); the tombstone histogram as (f64 point, i64 count) per bin; the
 *       min/max clustering as two lists of values instead of the clustering types plus a covered
 *       slice; and no partition-deletion marker, first/last key or token space coverage at the
 *       end (see {@link StatisticsWriter}).</li>
 *   <li>Everything else is the same: Data.db rows, cells and markers (deltas against the same
 *       EncodingStats), the HEADER component, Index.db apart from its deletion times, Summary,
 *       Filter (the same bloom filter format since na), CompressionInfo, CRC, Digest and TOC.
 *       File names start with the version.</li>
 * </ul>
 *
 * <p>How {@code da} (Cassandra 5.0's BTI format) differs from {@code oa}: only in its partition
 * index, Partitions.db and Rows.db in place of Index.db and Summary.db (see {@link SSTableFormat#BTI}).
 * Cassandra 5.0.9 gives da oa's feature set (unsigned local deletion times, the 1-byte LIVE
 * standalone deletion, improved min/max clustering, the partition-deletion marker, the key range
 * and token space coverage in STATS, originating host id, metadata checksums; the one flag that
 * differs, "accurate min/max", is read only with the legacy min/max lists neither has), so Data.db,
 * Statistics.db, Filter.db, CompressionInfo.db, CRC.db and Digest.crc32 of a da sstable are byte
 * for byte those of the oa sstable of the same data.
 *
 * <p>Thread safety: immutable.
 */
public enum SSTableVersion {
    OA("oa", SSTableFormat.BIG, true, Cell.MAX_DELETION_TIME, "2106-02-07T06:28:13Z"),
    NB("nb", SSTableFormat.BIG, false, Integer.MAX_VALUE - 1, "2038-01-19T03:14:06Z"),
    DA("da", SSTableFormat.BTI, true, Cell.MAX_DELETION_TIME, "2106-02-07T06:28:13Z");

    private final String id;
    private final SSTableFormat format;
    private final boolean unsignedDeletionTime;
    private final long maxLocalDeletionTime;
    private final String maxLocalDeletionTimeText;

    SSTableVersion(String id, SSTableFormat format, boolean unsignedDeletionTime, long maxLocalDeletionTime,
                   String maxLocalDeletionTimeText) {
        this.id = id;
        this.format = format;
        this.unsignedDeletionTime = unsignedDeletionTime;
        this.maxLocalDeletionTime = maxLocalDeletionTime;
        this.maxLocalDeletionTimeText = maxLocalDeletionTimeText;
    }

    /** The two letters file names start with. */
    public String id() { return id; }

    /** The format of sstables of this version: what their partition index is. */
    public SSTableFormat format() { return format; }

    /** How the file names of one sstable of this version start: {@code oa-<generation>-big-}. */
    public String fileNamePrefix(String generation) {
        return id + "-" + generation + "-" + format.id() + "-";
    }

    /**
     * Local deletion times (expiry, tombstones) are stored as unsigned ints, and standalone deletion
     * times in oa's form (see {@link DeletionTimeLayout}): oa and da; nb's are signed.
     */
    public boolean hasUnsignedDeletionTime() { return unsignedDeletionTime; }

    /**
     * The latest local deletion time this version stores and reads back (expiry of a TTL, or a
     * tombstone's deletion time), in seconds since the epoch.
     */
    public long maxLocalDeletionTime() { return maxLocalDeletionTime; }

    /** {@link #maxLocalDeletionTime} as an ISO-8601 instant, for messages. */
    public String maxLocalDeletionTimeText() { return maxLocalDeletionTimeText; }

    /** The version whose file names start with {@code id}, or null. */
    public static SSTableVersion fromId(String id) {
        SSTableVersion[] all = values();
        for (int i = 0; i < all.length; i++) {
            if (all[i].id.equals(id)) return all[i];
        }
        return null;
    }

    /** {@code oa|nb|da}: every version read, for file name patterns. */
    public static String choices() {
        return alternatives(values());
    }

    /** The names of {@code values} joined by '|'. */
    static String alternatives(Object[] values) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < values.length; i++) {
            if (i > 0) b.append('|');
            b.append(values[i]);
        }
        return b.toString();
    }

    @Override
    public String toString() {
        return id;
    }
}

package dev.flushline.sstable;

import dev.flushline.data.Cell;
import dev.flushline.data.DeletionTime;
import dev.flushline.io.FixedBuffer;

/**
 * The encoding of a standalone DeletionTime, used for the partition deletion in Data.db and
 * Index.db and for IndexInfo end-open markers. It depends on the sstable version:
 *
 * <pre>
 * oa:  LIVE    := 0x80                                           (1 byte)
 *      deleted := markedForDeleteAt:i64  localDeletionTime:u32   (12 bytes; top bit of the first byte clear)
 * nb:  any     := localDeletionTime:i32  markedForDeleteAt:i64   (12 bytes)
 *      LIVE    := Integer.MAX_VALUE  Long.MIN_VALUE
 * </pre>
 *
 * <p>oa: a reader takes a first byte with the top bit set as LIVE (and requires it to be exactly
 * 0x80), so a negative markedForDeleteAt cannot be written readably; Cassandra 5.0.9 writes it
 * anyway and then fails to read the file. We refuse it.
 *
 * <p>nb: the local deletion time is a signed int; Cassandra writes "none" (LIVE's) as
 * Integer.MAX_VALUE and caps any other value at Integer.MAX_VALUE - 1. A reader takes exactly
 * (Integer.MAX_VALUE, Long.MIN_VALUE) as LIVE. Every value Flushline writes in nb is at most
 * {@link SSTableVersion#maxLocalDeletionTime()}, so the cap never changes a value. A negative
 * markedForDeleteAt is readable in this form and is written (a compaction of nb inputs may carry
 * one); the memtable still refuses it at the input, so that what a load accepts does not depend on
 * the version.
 *
 * <p>The version is looked at once per partition or index entry, never per cell.
 */
public final class DeletionTimeLayout {
    private DeletionTimeLayout() {}

    /** Every nb standalone deletion time: i32 local deletion time + i64 timestamp. */
    public static final int LEGACY_BYTES = Integer.BYTES + Long.BYTES;
    /** nb: the local deletion time of LIVE (Cassandra's "no deletion time" as a signed int). */
    public static final int LEGACY_LIVE_LOCAL_DELETION_TIME = Integer.MAX_VALUE;
    /** nb: the largest other local deletion time Cassandra writes (it caps larger values here). */
    public static final int LEGACY_MAX_LOCAL_DELETION_TIME = Integer.MAX_VALUE - 1;

    public static int size(SSTableVersion version, DeletionTime d) {
        return size(version, d.markedForDeleteAt(), d.localDeletionTime());
    }

    /** {@link #size(SSTableVersion, DeletionTime)} of the deletion (markedForDeleteAt, localDeletionTime), without the object. */
    public static int size(SSTableVersion version, long markedForDeleteAt, long localDeletionTime) {
        if (!version.hasUnsignedDeletionTime()) return LEGACY_BYTES;
        return isLive(markedForDeleteAt, localDeletionTime) ? 1 : DataLayout.PARTITION_DELETION_DELETED_BYTES;
    }

    public static void put(SSTableVersion version, FixedBuffer out, DeletionTime d) {
        put(version, out, d.markedForDeleteAt(), d.localDeletionTime());
    }

    /**
     * {@link #put(SSTableVersion, FixedBuffer, DeletionTime)} of the deletion (markedForDeleteAt,
     * localDeletionTime): what a merge that keeps deletions as two longs writes without making an
     * object per partition.
     */
    public static void put(SSTableVersion version, FixedBuffer out, long markedForDeleteAt, long localDeletionTime) {
        boolean live = isLive(markedForDeleteAt, localDeletionTime);
        if (!version.hasUnsignedDeletionTime()) {
            putLegacy(out, live, markedForDeleteAt, localDeletionTime);
            return;
        }
        if (live) {
            out.putByte(DataLayout.PARTITION_DELETION_LIVE_BYTE);
            return;
        }
        checkWritable(markedForDeleteAt, localDeletionTime);
        out.putLong(markedForDeleteAt);
        out.putInt((int) localDeletionTime);
    }

    private static boolean isLive(long markedForDeleteAt, long localDeletionTime) {
        return markedForDeleteAt == Long.MIN_VALUE && localDeletionTime == Long.MAX_VALUE;
    }

    private static void putLegacy(FixedBuffer out, boolean live, long markedForDeleteAt, long localDeletionTime) {
        if (live) {
            out.putInt(LEGACY_LIVE_LOCAL_DELETION_TIME);
            out.putLong(Long.MIN_VALUE);
            return;
        }
        out.putInt(legacyLocalDeletionTime(localDeletionTime));
        out.putLong(markedForDeleteAt);
    }

    /** Cassandra's signed-int form of a local deletion time: "none" as Integer.MAX_VALUE, others capped below it. */
    public static int legacyLocalDeletionTime(long ldt) {
        if (ldt == Cell.NO_DELETION_TIME) return LEGACY_LIVE_LOCAL_DELETION_TIME;
        return (int) Math.min(ldt, LEGACY_MAX_LOCAL_DELETION_TIME);
    }

    /** Throws if {@code d} cannot be written in oa's standalone form and read back. */
    public static void checkWritable(DeletionTime d) {
        checkWritable(d.markedForDeleteAt(), d.localDeletionTime());
    }

    private static void checkWritable(long markedForDeleteAt, long localDeletionTime) {
        if (!isLive(markedForDeleteAt, localDeletionTime) && markedForDeleteAt < 0) {
            throw new IllegalArgumentException("a partition deletion with negative timestamp " + markedForDeleteAt
                    + " cannot be read back from an oa sstable (its top bit collides with the LIVE marker)");
        }
    }
}

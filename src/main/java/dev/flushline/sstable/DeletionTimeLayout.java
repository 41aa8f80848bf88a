package dev.flushline.sstable;

import dev.flushline.data.DeletionTime;
import dev.flushline.io.FixedBuffer;

/**
 * The oa encoding of a standalone DeletionTime (new in oa; earlier versions always wrote 12
 * bytes), used for the partition deletion in Data.db and Index.db and for IndexInfo end-open
 * markers:
 *
 * <pre>
 * LIVE     := 0x80                                        (1 byte)
 * deleted  := markedForDeleteAt:i64  localDeletionTime:u32 (12 bytes; top bit of the first byte clear)
 * </pre>
 *
 * A reader takes a first byte with the top bit set as LIVE (and requires it to be exactly 0x80),
 * so a negative markedForDeleteAt cannot be written readably; Cassandra 5.0.5 writes it anyway
 * and then fails to read the file. We refuse it.
 */
public final class DeletionTimeLayout {
    private DeletionTimeLayout() {}

    public static int size(DeletionTime d) {
        return d.isLive() ? 1 : DataLayout.PARTITION_DELETION_DELETED_BYTES;
    }

    public static void put(FixedBuffer out, DeletionTime d) {
        if (d.isLive()) {
            out.putByte(DataLayout.PARTITION_DELETION_LIVE_BYTE);
            return;
        }
        checkWritable(d);
        out.putLong(d.markedForDeleteAt());
        out.putInt((int) d.localDeletionTime());
    }

    /** Throws if {@code d} cannot be written in the oa standalone form and read back. */
    public static void checkWritable(DeletionTime d) {
        if (!d.isLive() && d.markedForDeleteAt() < 0) {
            throw new IllegalArgumentException("a partition deletion with negative timestamp " + d.markedForDeleteAt()
                    + " cannot be read back from an oa sstable (its top bit collides with the LIVE marker)");
        }
    }
}

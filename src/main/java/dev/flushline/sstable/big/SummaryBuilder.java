package dev.flushline.sstable.big;

import java.io.DataOutput;
import java.io.IOException;
import java.util.Arrays;

/**
 * Builds Summary.db at full sampling, matching Cassandra 5.0.9's IndexSummaryBuilder,
 * IndexSummary.serializer and the first/last key tail IndexSummaryComponent.save writes (layout:
 * {@link BigIndexLayout}).
 *
 * <pre>
 *   min_index_interval:i32  entry_count:i32  offheap_size:i64  sampling_level:i32  size_at_full_sampling:i32
 *   entry_count x offset:u32 LITTLE-endian   (from the start of the offsets, so the first is 4 * entry_count)
 *   entry_count x (key bytes, index_position:i64 LITTLE-endian)
 *   first_key: i32 length + bytes            last_key: i32 length + bytes
 * </pre>
 * offheap_size = 4 * entry_count + entry bytes; size_at_full_sampling = ceil(partitions / interval).
 *
 * <p>Call {@link #maybeAdd} for every partition in write order: it samples ordinals 0, interval,
 * 2 * interval, ... and copies only those keys. Like Cassandra, it stops sampling (for good) if
 * the entries would pass 2 GiB. Not thread-safe; the non-sampling calls do not allocate.
 */
public final class SummaryBuilder {
    public static final int DEFAULT_MIN_INDEX_INTERVAL = 128;
    /** Downsampling.BASE_SAMPLING_LEVEL: we always write at full sampling. */
    public static final int FULL_SAMPLING_LEVEL = 128;
    private static final int HEADER_BYTES = BigIndexLayout.SUMMARY_HEADER_BYTES;
    private static final int OFFSET_BYTES = BigIndexLayout.SUMMARY_OFFSET_BYTES;
    private static final int POSITION_BYTES = BigIndexLayout.SUMMARY_POSITION_BYTES;
    private static final int KEY_LENGTH_BYTES = BigIndexLayout.SUMMARY_KEY_LENGTH_BYTES;
    private static final int INITIAL_ENTRY_BYTES = 1024;
    private static final int INITIAL_ENTRIES = 16;

    private final int minIndexInterval;
    private byte[] entryBytes = new byte[INITIAL_ENTRY_BYTES];
    private int entryBytesLength;
    private int[] entryOffsets = new int[INITIAL_ENTRIES]; // relative to the start of the entries
    private int entryCount;
    private long partitionCount;
    private long nextSampleOrdinal;

    public SummaryBuilder() {
        this(DEFAULT_MIN_INDEX_INTERVAL);
    }

    /**
     * REQUIRES: minIndexInterval > 0 and equal to the table's min_index_interval (the reader
     * deletes and rebuilds a summary whose interval differs).
     */
    public SummaryBuilder(int minIndexInterval) {
        if (minIndexInterval <= 0) {
            throw new IllegalArgumentException("minIndexInterval must be > 0: " + minIndexInterval);
        }
        this.minIndexInterval = minIndexInterval;
    }

    public void maybeAdd(byte[] key, long indexPosition) {
        maybeAdd(key, 0, key.length, indexPosition);
    }

    /** indexPosition: offset of this partition's entry in Index.db. */
    public void maybeAdd(byte[] key, int offset, int length, long indexPosition) {
        if (partitionCount == nextSampleOrdinal) {
            // Cassandra skips the entry when it would pass 2 GiB and never samples again.
            if ((long) entryBytesLength + length + POSITION_BYTES <= Integer.MAX_VALUE) {
                addEntry(key, offset, length, indexPosition);
                nextSampleOrdinal = partitionCount + minIndexInterval;
            }
        }
        partitionCount++;
    }

    private void addEntry(byte[] key, int offset, int length, long indexPosition) {
        if (entryCount == entryOffsets.length) {
            entryOffsets = Arrays.copyOf(entryOffsets, entryCount * 2);
        }
        int needed = entryBytesLength + length + POSITION_BYTES;
        if (needed > entryBytes.length) {
            entryBytes = Arrays.copyOf(entryBytes, (int) Math.min(Integer.MAX_VALUE - 8,
                    Math.max((long) needed, 2L * entryBytes.length)));
        }
        entryOffsets[entryCount++] = entryBytesLength;
        System.arraycopy(key, offset, entryBytes, entryBytesLength, length);
        int p = entryBytesLength + length;
        for (int i = 0; i < POSITION_BYTES; i++) {
            entryBytes[p + i] = (byte) (indexPosition >>> (i << 3));
        }
        entryBytesLength = p + POSITION_BYTES;
    }

    public int entryCount() {
        return entryCount;
    }

    public long partitionCount() {
        return partitionCount;
    }

    public long serializedSize(byte[] firstKey, byte[] lastKey) {
        return HEADER_BYTES + (long) entryCount * OFFSET_BYTES + entryBytesLength
                + KEY_LENGTH_BYTES + firstKey.length + KEY_LENGTH_BYTES + lastKey.length;
    }

    /** REQUIRES: at least one partition was added (Cassandra cannot build an empty summary). */
    public void serialize(DataOutput out, byte[] firstKey, byte[] lastKey) throws IOException {
        if (entryCount == 0) {
            throw new IllegalStateException("Summary.db needs at least one partition");
        }
        int offsetsBytes = entryCount * OFFSET_BYTES;
        out.writeInt(minIndexInterval);
        out.writeInt(entryCount);
        out.writeLong((long) offsetsBytes + entryBytesLength);
        out.writeInt(FULL_SAMPLING_LEVEL);
        out.writeInt((int) Math.ceil(partitionCount / (double) minIndexInterval));
        for (int i = 0; i < entryCount; i++) {
            out.writeInt(Integer.reverseBytes(entryOffsets[i] + offsetsBytes));
        }
        out.write(entryBytes, 0, entryBytesLength);
        out.writeInt(firstKey.length);
        out.write(firstKey);
        out.writeInt(lastKey.length);
        out.write(lastKey);
    }
}

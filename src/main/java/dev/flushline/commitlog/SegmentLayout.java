package dev.flushline.commitlog;

import java.util.zip.CRC32;

/**
 * The bytes of a commit log segment file, {@code CommitLog-<segment id>.log}, in one place.
 *
 * <pre>
 * Segment header (big-endian), written and fsynced before the segment takes any entry:
 *  0               4               8                              16              20
 * +---------------+---------------+-------------------------------+---------------+
 * |  magic "FLCL" |  version u32  |  segment id u64               |  CRC32 of 0..16|
 * +---------------+---------------+-------------------------------+---------------+
 *
 * Entries follow back to back from HEADER_BYTES; an entry never spans two segments:
 *  0               4               8                       8+length        12+length
 * +---------------+---------------+-----------------------+---------------+
 * |  length u32   | CRC32(length) | payload: MutationLayout |CRC32(payload)|
 * +---------------+---------------+-----------------------+---------------+
 * </pre>
 *
 * <p>The file is created at its full size (sparse), so unwritten space reads as zeros. A length
 * and length CRC that are both zero is therefore "nothing written here": the end of the log.
 * CRC32 of a zero length is 0x2144DF1C, so a real entry can never look like that. The separate
 * length CRC is what makes a torn or flipped length detectable before we trust it to find the
 * payload and the next entry.
 *
 * <p>A commit log position is (segment id, offset just after an entry's payload CRC): Cassandra's
 * convention, "everything before here".
 */
public final class SegmentLayout {
    private SegmentLayout() {}

    public static final int MAGIC = 0x464C434C; // "FLCL"
    public static final int VERSION = 1;

    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = MAGIC_OFFSET + Integer.BYTES;
    public static final int SEGMENT_ID_OFFSET = VERSION_OFFSET + Integer.BYTES;
    public static final int HEADER_CRC_OFFSET = SEGMENT_ID_OFFSET + Long.BYTES;
    public static final int HEADER_BYTES = HEADER_CRC_OFFSET + Integer.BYTES;

    public static final int LENGTH_OFFSET = 0;
    public static final int LENGTH_CRC_OFFSET = LENGTH_OFFSET + Integer.BYTES;
    public static final int PAYLOAD_OFFSET = LENGTH_CRC_OFFSET + Integer.BYTES;
    /** Length and its CRC, before the payload. */
    public static final int ENTRY_HEADER_BYTES = PAYLOAD_OFFSET;
    public static final int PAYLOAD_CRC_BYTES = Integer.BYTES;
    /** Bytes an entry adds around its payload. */
    public static final int ENTRY_OVERHEAD_BYTES = ENTRY_HEADER_BYTES + PAYLOAD_CRC_BYTES;

    public static final String FILE_PREFIX = "CommitLog-";
    public static final String FILE_SUFFIX = ".log";

    public static String fileName(long segmentId) {
        return FILE_PREFIX + segmentId + FILE_SUFFIX;
    }

    /** The id in a segment file name, or -1 if the name is not a segment's. */
    public static long idOf(String fileName) {
        if (!fileName.startsWith(FILE_PREFIX) || !fileName.endsWith(FILE_SUFFIX)) return -1;
        try {
            long id = Long.parseLong(fileName.substring(FILE_PREFIX.length(), fileName.length() - FILE_SUFFIX.length()));
            return id < 0 ? -1 : id;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    public static int entryBytes(int payloadLength) {
        return ENTRY_OVERHEAD_BYTES + payloadLength;
    }

    /** CRC32 over the 4 big-endian bytes of {@code length}. */
    public static int lengthCrc(int length) {
        CRC32 crc = new CRC32();
        crc.update(length >>> 24);
        crc.update(length >>> 16);
        crc.update(length >>> 8);
        crc.update(length);
        return (int) crc.getValue();
    }

    public static int crc(byte[] src, int offset, int length) {
        CRC32 crc = new CRC32();
        crc.update(src, offset, length);
        return (int) crc.getValue();
    }

    static void putInt(byte[] dst, int offset, int v) {
        dst[offset] = (byte) (v >>> 24);
        dst[offset + 1] = (byte) (v >>> 16);
        dst[offset + 2] = (byte) (v >>> 8);
        dst[offset + 3] = (byte) v;
    }

    static void putLong(byte[] dst, int offset, long v) {
        putInt(dst, offset, (int) (v >>> 32));
        putInt(dst, offset + Integer.BYTES, (int) v);
    }

    static int getInt(byte[] src, int offset) {
        return ((src[offset] & 0xFF) << 24) | ((src[offset + 1] & 0xFF) << 16) | ((src[offset + 2] & 0xFF) << 8)
                | (src[offset + 3] & 0xFF);
    }

    static long getLong(byte[] src, int offset) {
        return ((long) getInt(src, offset) << 32) | (getInt(src, offset + Integer.BYTES) & 0xFFFF_FFFFL);
    }

    /** The segment header for {@code segmentId}. */
    static byte[] header(long segmentId) {
        byte[] h = new byte[HEADER_BYTES];
        putInt(h, MAGIC_OFFSET, MAGIC);
        putInt(h, VERSION_OFFSET, VERSION);
        putLong(h, SEGMENT_ID_OFFSET, segmentId);
        putInt(h, HEADER_CRC_OFFSET, crc(h, 0, HEADER_CRC_OFFSET));
        return h;
    }
}

package dev.flushline.commitlog;

import dev.flushline.data.CommitLogPosition;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.CRC32;

/**
 * Reads the entries of one segment file for replay and decides what damage means:
 * <ul>
 *   <li>zeros where the next entry would start: the end of the log, clean;</li>
 *   <li>a damaged entry (length CRC, bounds or payload CRC) with no intact entry anywhere after
 *       it: a torn tail from a crash mid-write; replay stops there and reports it;</li>
 *   <li>a damaged entry followed by an intact one: corruption in the middle. Replay stops with a
 *       {@link CommitLogCorruptionException} naming the file and offset, unless
 *       {@code skipCorrupt}, which skips exactly the damaged byte range and reports it.</li>
 * </ul>
 * Searching for an intact entry after damage tries every later offset, checking the length CRC
 * first; that costs a CRC of 4 bytes per offset and runs only on damaged segments.
 *
 * <p>Thread safety: none; replay runs on the thread that opens the log.
 */
final class SegmentReader {
    /** Receives each intact entry's payload; {@code end} is the entry's commit log position. */
    interface EntryConsumer {
        void accept(byte[] src, int payloadOffset, int payloadLength, CommitLogPosition end, Path segment, int entryOffset)
                throws IOException;
    }

    /** The largest byte[] a JVM allocates: segment sizes are ints, so no segment is larger. */
    static final long MAX_SEGMENT_FILE_BYTES = Integer.MAX_VALUE - 8;

    private SegmentReader() {}

    /**
     * Delivers the entries of {@code file} whose position is after {@code after} (a flushed-up-to
     * marker; entries at or before it are in sstables). Returns the number delivered; appends
     * warnings (torn tail, skipped ranges, unreadable header) to {@code warnings}.
     */
    static int read(Path file, long expectedId, CommitLogPosition after, boolean skipCorrupt, EntryConsumer consumer,
                    List<String> warnings) throws IOException {
        long size = Files.size(file);
        if (size > MAX_SEGMENT_FILE_BYTES) {
            // Not a segment this log wrote (their size is an int); reading it would fail with an
            // OutOfMemoryError, or take gigabytes of heap.
            throw new IOException("commit log segment " + file + " is " + size + " bytes, larger than any segment ("
                    + MAX_SEGMENT_FILE_BYTES + "); refusing to read it");
        }
        byte[] b = Files.readAllBytes(file);
        long id;
        int pos = SegmentLayout.HEADER_BYTES;
        if (b.length < SegmentLayout.HEADER_BYTES
                || SegmentLayout.getInt(b, SegmentLayout.MAGIC_OFFSET) != SegmentLayout.MAGIC
                || SegmentLayout.getInt(b, SegmentLayout.HEADER_CRC_OFFSET) != SegmentLayout.crc(b, 0, SegmentLayout.HEADER_CRC_OFFSET)) {
            // The header is fsynced before the segment takes an entry, so a segment without a
            // valid header and without an intact entry never held an acknowledged write: a crash
            // hit its creation.
            int next = findNextValid(b, SegmentLayout.HEADER_BYTES);
            if (next < 0) {
                warnings.add("commit log segment " + file + " has no valid header (crash while creating it); nothing to replay in it");
                return 0;
            }
            // Intact entries behind a damaged header were acknowledged: the header was damaged
            // after the fact. Only an explicit skipCorrupt replays them, trusting the id in the
            // file name, because the header's own id can no longer be checked against it.
            if (!skipCorrupt) {
                throw new CommitLogCorruptionException(file, 0, next, "bad segment header");
            }
            warnings.add("skipped corrupt bytes [0, " + next + ") of commit log segment " + file
                    + " (bad segment header; its id is taken from the file name); any mutations in that range are lost");
            id = expectedId;
            pos = next;
        } else {
            int version = SegmentLayout.getInt(b, SegmentLayout.VERSION_OFFSET);
            id = SegmentLayout.getLong(b, SegmentLayout.SEGMENT_ID_OFFSET);
            if (version != SegmentLayout.VERSION) {
                throw new IOException("commit log segment " + file + " has format version " + version + ", this build reads " + SegmentLayout.VERSION);
            }
            if (id != expectedId) {
                throw new IOException("commit log segment " + file + " says it is segment " + id + ", its name says " + expectedId);
            }
        }
        int delivered = 0;
        final int fileLength = b.length;
        while (true) {
            if (fileLength - pos < SegmentLayout.ENTRY_HEADER_BYTES) {
                if (!allZero(b, pos, fileLength)) {
                    warnings.add("truncated torn tail of commit log segment " + file + " at byte offset " + pos
                            + " (" + (fileLength - pos) + " bytes of a partial entry header)");
                }
                return delivered;
            }
            int length = SegmentLayout.getInt(b, pos + SegmentLayout.LENGTH_OFFSET);
            int lengthCrc = SegmentLayout.getInt(b, pos + SegmentLayout.LENGTH_CRC_OFFSET);
            String damage;
            if (length == 0 && lengthCrc == 0) {
                if (allZero(b, pos, fileLength)) return delivered; // the clean end of the log
                damage = "zeros where an entry should start";
            } else if (lengthCrc != SegmentLayout.lengthCrc(length)) {
                damage = "length CRC mismatch";
            } else if (length <= 0 || length > fileLength - pos - SegmentLayout.ENTRY_OVERHEAD_BYTES) {
                damage = "length " + length + " runs past the end of the segment";
            } else if (SegmentLayout.getInt(b, pos + SegmentLayout.PAYLOAD_OFFSET + length)
                    != SegmentLayout.crc(b, pos + SegmentLayout.PAYLOAD_OFFSET, length)) {
                damage = "payload CRC mismatch";
            } else {
                int end = pos + SegmentLayout.entryBytes(length);
                CommitLogPosition endPosition = new CommitLogPosition(id, end);
                if (endPosition.compareTo(after) > 0) {
                    consumer.accept(b, pos + SegmentLayout.PAYLOAD_OFFSET, length, endPosition, file, pos);
                    delivered++;
                }
                pos = end;
                continue;
            }
            int next = findNextValid(b, pos + 1);
            if (next < 0) {
                warnings.add("truncated torn tail of commit log segment " + file + " at byte offset " + pos + " ("
                        + damage + "; " + (fileLength - pos) + " bytes to the end of the segment ignored)");
                return delivered;
            }
            if (!skipCorrupt) {
                throw new CommitLogCorruptionException(file, pos, next, damage);
            }
            warnings.add("skipped corrupt bytes [" + pos + ", " + next + ") of commit log segment " + file + " (" + damage
                    + "); any mutations in that range are lost");
            pos = next;
        }
    }

    private static boolean allZero(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) if (b[i] != 0) return false;
        return true;
    }

    /** The first offset at or after {@code from} where an intact entry starts, or -1. */
    static int findNextValid(byte[] b, int from) {
        CRC32 crc = new CRC32();
        final int last = b.length - SegmentLayout.ENTRY_OVERHEAD_BYTES - 1;
        for (int p = from; p <= last; p++) {
            int length = SegmentLayout.getInt(b, p);
            if (length <= 0 || length > b.length - p - SegmentLayout.ENTRY_OVERHEAD_BYTES) continue;
            crc.reset();
            crc.update(b, p, Integer.BYTES);
            if ((int) crc.getValue() != SegmentLayout.getInt(b, p + SegmentLayout.LENGTH_CRC_OFFSET)) continue;
            if (SegmentLayout.getInt(b, p + SegmentLayout.PAYLOAD_OFFSET + length)
                    == SegmentLayout.crc(b, p + SegmentLayout.PAYLOAD_OFFSET, length)) {
                return p;
            }
        }
        return -1;
    }
}

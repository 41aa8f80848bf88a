package dev.flushline.commitlog;

import dev.flushline.data.CommitLogPosition;
import dev.flushline.io.SyncedFileOutput;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The durable "flushed up to" position of a commit log directory: every entry whose position is
 * at or before it is in published sstables, so replay starts after it and older segments may go.
 *
 * <pre>
 * flushed-up-to (24 bytes, big-endian):
 *  0               4               8                              16              20              24
 * +---------------+---------------+-------------------------------+---------------+---------------+
 * |  magic "FLFU" |  version u32  |  segment id u64               | position u32  | CRC32 of 0..20|
 * +---------------+---------------+-------------------------------+---------------+---------------+
 * </pre>
 *
 * Written as {@code flushed-up-to.tmp}, fsynced, renamed over the old one atomically, then the
 * directory is fsynced: a crash leaves the old marker or the new one, never a mix.
 *
 * <p>Thread safety: static methods; {@link CommitLog} serializes the writers.
 */
final class FlushedMarker {
    static final String FILE_NAME = "flushed-up-to";
    static final String TEMP_NAME = FILE_NAME + ".tmp";

    static final int MAGIC = 0x464C4655; // "FLFU"
    static final int VERSION = 1;
    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = MAGIC_OFFSET + Integer.BYTES;
    static final int SEGMENT_ID_OFFSET = VERSION_OFFSET + Integer.BYTES;
    static final int POSITION_OFFSET = SEGMENT_ID_OFFSET + Long.BYTES;
    static final int CRC_OFFSET = POSITION_OFFSET + Integer.BYTES;
    static final int BYTES = CRC_OFFSET + Integer.BYTES;

    private FlushedMarker() {}

    /** The marker in {@code dir}, or {@link CommitLogPosition#NONE} if there is none yet. */
    static CommitLogPosition read(Path dir) throws IOException {
        Path p = dir.resolve(FILE_NAME);
        if (!Files.exists(p)) return CommitLogPosition.NONE;
        byte[] b = Files.readAllBytes(p);
        if (b.length != BYTES || SegmentLayout.getInt(b, MAGIC_OFFSET) != MAGIC
                || SegmentLayout.getInt(b, CRC_OFFSET) != SegmentLayout.crc(b, 0, CRC_OFFSET)) {
            // Only a rename ever puts this file in place, so damage here is not a crash artefact.
            throw new IOException("damaged commit log marker " + p + " (" + b.length + " bytes); refusing to guess what is flushed");
        }
        int version = SegmentLayout.getInt(b, VERSION_OFFSET);
        if (version != VERSION) throw new IOException("commit log marker " + p + " has version " + version);
        return new CommitLogPosition(SegmentLayout.getLong(b, SEGMENT_ID_OFFSET), SegmentLayout.getInt(b, POSITION_OFFSET));
    }

    static void write(Path dir, CommitLogPosition position) throws IOException {
        byte[] b = new byte[BYTES];
        SegmentLayout.putInt(b, MAGIC_OFFSET, MAGIC);
        SegmentLayout.putInt(b, VERSION_OFFSET, VERSION);
        SegmentLayout.putLong(b, SEGMENT_ID_OFFSET, position.segmentId());
        SegmentLayout.putInt(b, POSITION_OFFSET, position.position());
        SegmentLayout.putInt(b, CRC_OFFSET, SegmentLayout.crc(b, 0, CRC_OFFSET));
        Path tmp = dir.resolve(TEMP_NAME);
        Files.deleteIfExists(tmp);
        SyncedFileOutput.writeSmallFile(tmp, b, 0, b.length);
        Files.move(tmp, dir.resolve(FILE_NAME), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        SyncedFileOutput.syncDirectory(dir);
    }
}

package dev.flushline.sstable;

import java.nio.file.Path;

/**
 * An sstable component whose bytes contradict the oa format or each other. Carries the file and
 * the byte offset in it where the contradiction was found (for Data.db: the offset in the
 * uncompressed stream when the file is compressed, which the message says).
 */
public final class CorruptSSTableException extends RuntimeException {
    private final Path file;
    private final long offset;
    private final String reason;

    public CorruptSSTableException(Path file, long offset, String reason) {
        super(file + ": " + reason + " at byte offset " + offset);
        this.file = file;
        this.offset = offset;
        this.reason = reason;
    }

    public CorruptSSTableException(Path file, long offset, String reason, Throwable cause) {
        this(file, offset, reason);
        initCause(cause);
    }

    public Path file() { return file; }

    public long offset() { return offset; }

    public String reason() { return reason; }
}

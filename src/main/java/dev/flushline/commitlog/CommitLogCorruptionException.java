package dev.flushline.commitlog;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A segment holds a damaged entry followed by intact ones, so the damage is not a torn tail from
 * a crash and replay cannot simply stop there: acknowledged writes may follow it. Names the file
 * and the byte range; replay with {@code skipCorrupt} skips exactly that range instead.
 */
public final class CommitLogCorruptionException extends IOException {
    private static final long serialVersionUID = 1L;

    private final Path segment;
    private final long offset;
    private final long nextValidOffset;

    public CommitLogCorruptionException(Path segment, long offset, long nextValidOffset, String what) {
        super("corrupt commit log entry in " + segment + " at byte offset " + offset + " (" + what + ")"
                + (nextValidOffset >= 0 ? "; valid entries resume at offset " + nextValidOffset : "")
                + "; to skip it, replay with --skip-corrupt (load) or skipCorrupt (CommitLog.Options)");
        this.segment = segment;
        this.offset = offset;
        this.nextValidOffset = nextValidOffset;
    }

    public Path segment() { return segment; }

    public long offset() { return offset; }

    /** Where the next intact entry starts, or -1. */
    public long nextValidOffset() { return nextValidOffset; }
}

package dev.flushline.sstable;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Writing one sstable failed. Names the sstable (its Data.db path as it would have been
 * published), the phase the writer was in, and the root cause, so that a log line built from it
 * tells an operator which file, what step and why (for example "No space left on device").
 * Nothing of the sstable is visible when this is thrown: the writer aborts before it propagates.
 */
public final class SSTableWriteException extends IOException {
    /** The steps of writing one sstable, in order. */
    public enum Phase {
        /** Taking a generation and creating its staging directory. */
        RESERVE,
        /** Opening the component files. */
        CREATE,
        /** Serializing partitions into Data.db and the partition index (BIG: Index.db). */
        WRITE_DATA,
        /** Flushing and fsyncing Data.db (with its checksums or compression info) and the partition index's per-partition file. */
        FINISH_DATA,
        /** Writing and fsyncing the rest of the partition index (BIG: Summary.db), Filter, Statistics and TOC. */
        WRITE_COMPONENTS,
        /** Renaming the components into the table directory. */
        PUBLISH
    }

    private final Path sstable;
    private final Phase phase;

    public SSTableWriteException(Path sstable, Phase phase, Throwable cause) {
        super("writing " + sstable + " failed in phase " + phase + ": " + rootCauseText(cause), cause);
        this.sstable = sstable;
        this.phase = phase;
    }

    public Path sstable() { return sstable; }

    public Phase phase() { return phase; }

    /** The innermost cause's message: what the operating system or the check said (a full disk named as ENOSPC). */
    public static String rootCauseText(Throwable t) {
        Throwable root = t;
        for (int depth = 0; root.getCause() != null && root.getCause() != root && depth < 32; depth++) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + dev.flushline.io.IoErrors.describe(t));
    }
}

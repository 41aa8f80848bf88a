package dev.flushline.sstable;

import java.nio.file.Path;
import java.util.List;

/**
 * What recovery did with one transaction log left by a process that died: completed it (the log
 * was committed, so the rest of its inputs were deleted) or rolled it back (not committed, so its
 * outputs were deleted), and then deleted the log.
 *
 * @param logFile        the log, now deleted
 * @param operation      the operation named in the log's file name, e.g. "compaction"
 * @param committed      true: completed (inputs removed); false: rolled back (outputs removed)
 * @param sstables       sstables of the removed side that still had files
 * @param removedFiles   every file deleted, the log included
 */
public record RecoveredTransaction(Path logFile, String operation, boolean committed, int sstables, List<Path> removedFiles) {
    public RecoveredTransaction {
        removedFiles = List.copyOf(removedFiles);
    }

    /** The operator's line, e.g. "completed an interrupted compaction: removed 2 inputs (oa_txn_...log)". */
    public String message() {
        return (committed ? "completed an interrupted " + operation + ": removed " + sstables + " inputs"
                : "rolled back an interrupted " + operation + ": removed " + sstables + " outputs")
                + " (" + logFile.getFileName() + ")";
    }

    @Override
    public String toString() {
        return message();
    }
}

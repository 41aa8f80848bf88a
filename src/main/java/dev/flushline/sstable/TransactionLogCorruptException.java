package dev.flushline.sstable;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A transaction log that cannot be trusted: a record other than the last one does not parse or
 * fails its checksum, a record is duplicated, COMMIT or ABORT is not the last line, or the files of
 * a REMOVE record are not the ones it recorded. Names the log file and the 1-based line. Nothing is
 * deleted for such a log (neither we nor Cassandra guess which side of the transaction to keep); an
 * operator has to look at it.
 */
public final class TransactionLogCorruptException extends IOException {
    private final Path logFile;
    private final int lineNumber;

    TransactionLogCorruptException(Path logFile, int lineNumber, String what) {
        super(logFile + " line " + lineNumber + ": " + what);
        this.logFile = logFile;
        this.lineNumber = lineNumber;
    }

    public Path logFile() { return logFile; }

    /** 1-based. */
    public int lineNumber() { return lineNumber; }
}

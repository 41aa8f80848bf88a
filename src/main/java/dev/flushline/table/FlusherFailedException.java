package dev.flushline.table;

import java.io.IOException;

/**
 * The {@link Flusher} is in its failed state: a flush failed and kept failing through every retry
 * its {@link Flusher.FailurePolicy} allows. Every writer waiting for memory, and every later write,
 * gets this exception; the cause is the last flush failure (usually an
 * {@link dev.flushline.sstable.SSTableWriteException} naming the sstable and the phase). The
 * memtables that were not flushed are still held; {@link Flusher#retryFailedFlushes()} leaves the
 * failed state once the operator has fixed the cause.
 */
public final class FlusherFailedException extends IOException {
    public FlusherFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}

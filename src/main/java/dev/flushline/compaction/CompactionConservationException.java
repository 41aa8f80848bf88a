package dev.flushline.compaction;

/**
 * A compaction's cell counts do not balance: cells read differ from cells written plus cells
 * merged away plus cells purged. This is a bug or corruption, not a warning: nothing is published.
 */
public final class CompactionConservationException extends IllegalStateException {
    public CompactionConservationException(String message) {
        super(message);
    }
}

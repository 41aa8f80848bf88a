package dev.flushline.table;

import org.slf4j.Logger;

import java.util.function.Consumer;

/**
 * Where a table part's lines go: a flush that failed, the replay summary, a compaction done, what an
 * open removed or left alone. To the caller's line hook when one was given (the command line prints
 * them, tests collect them), else to the SLF4J logger of the class that speaks, so that a program
 * using the library decides where they go and which levels it keeps; the library writes nothing to
 * standard output or error itself.
 *
 * <p>The two receive the same words differently. A hook gets each line as the command line has
 * always printed it: a warning starts with {@code "WARN "}, a failure with {@code "ERROR "}. The
 * logger gets the line without that prefix, at the level it names, with the Throwable attached where
 * there is one: a logging backend prints the level (and the stack trace) itself, and would otherwise
 * say it twice.
 *
 * <p>Lines are few (one per flush attempt, compaction or open), never one per row or cell; so no
 * level check guards them. Thread safety: as the hook is; SLF4J loggers may be called from any thread.
 */
final class LogLines {
    private final Logger logger;
    private final Consumer<String> hook;

    /** {@code hook} null: the lines go to {@code logger}. */
    LogLines(Logger logger, Consumer<String> hook) {
        this.logger = logger;
        this.hook = hook;
    }

    /** What is worth knowing and needs no action: a summary, a compaction done, leftovers removed. */
    void info(String line) {
        if (hook != null) hook.accept(line);
        else logger.info(line);
    }

    /** Something to look at, though nothing failed; {@code cause} may be null. */
    void warn(String line, Throwable cause) {
        if (hook != null) hook.accept("WARN " + line);
        else if (cause != null) logger.warn(line, cause);
        else logger.warn(line);
    }

    /**
     * A file in the table's directory that no writer of ours left, which is neither read nor deleted:
     * a warning to a logger, though its hook line has never carried the prefix ("left alone: ...").
     */
    void leftAlone(String line) {
        if (hook != null) hook.accept(line);
        else logger.warn(line);
    }

    /** A failure; {@code cause} may be null. */
    void error(String line, Throwable cause) {
        if (hook != null) hook.accept("ERROR " + line);
        else if (cause != null) logger.error(line, cause);
        else logger.error(line);
    }
}

package dev.flushline.cli;

import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The command line's logging. The library logs through SLF4J and ships no backend; the command line
 * ships slf4j-jdk14 in lib/ (an optional dependency, so programs using the library never get it),
 * which hands each line to java.util.logging, and {@link #install} configures that when the
 * process starts:
 * <ul>
 * <li>{@code dev.flushline} and below: info and up, each line on standard error as the command line
 *     has always printed the library's lines: the message alone, after {@code "ERROR "} at error
 *     (SEVERE) and {@code "WARN "} at warn (WARNING); no time, logger name or stack trace, so that
 *     scripts reading standard error see the words they always saw.</li>
 * <li>every other logger (a library the command line loads, such as cassandra-all beside
 *     {@code bench --against}): warnings and up, in java.util.logging's own format.</li>
 * </ul>
 * A JVM started with its own java.util.logging configuration
 * ({@code -Djava.util.logging.config.file=} or {@code .class=}) keeps it: nothing is installed.
 *
 * <p>The commands print their own output (flush lines, summaries, the lines of the table they run,
 * through its line hooks) on the streams given to {@code Main.run}; this is for what the library
 * logs on its own. Thread safety: {@link #install} once, from main, before any command runs; the
 * handler may then be called from any thread (PrintStream is synchronized).
 */
public final class CliLogging {
    /**
     * Held for the life of the process: java.util.logging keeps loggers weakly, and a logger that
     * is collected and made again has lost the level and handler set here.
     */
    private static final Logger FLUSHLINE = Logger.getLogger("dev.flushline");
    private static final Logger ROOT = Logger.getLogger("");

    private CliLogging() {}

    /** Configures java.util.logging as the class comment says; returns false if the JVM was given its own configuration. */
    public static boolean install() {
        if (System.getProperty("java.util.logging.config.file") != null || System.getProperty("java.util.logging.config.class") != null) {
            return false;
        }
        ROOT.setLevel(Level.WARNING);
        for (Handler h : FLUSHLINE.getHandlers()) FLUSHLINE.removeHandler(h);
        FLUSHLINE.setLevel(Level.INFO);
        FLUSHLINE.setUseParentHandlers(false);
        FLUSHLINE.addHandler(new StandardErrorHandler());
        return true;
    }

    /** The line the command line prints for {@code record}: the message, after the level's word at warn and error. */
    static String line(LogRecord record, Formatter formatter) {
        String message = formatter.formatMessage(record);
        int level = record.getLevel().intValue();
        if (level >= Level.SEVERE.intValue()) return "ERROR " + message;
        if (level >= Level.WARNING.intValue()) return "WARN " + message;
        return message;
    }

    /**
     * Prints each record on the standard error of the moment (System.err read at each record, so a
     * test that replaces it sees the lines), one line each, flushed at once.
     */
    static final class StandardErrorHandler extends Handler {
        StandardErrorHandler() {
            setLevel(Level.ALL);
            setFormatter(new Formatter() {
                @Override
                public String format(LogRecord record) {
                    return line(record, this) + System.lineSeparator();
                }
            });
        }

        @Override
        public void publish(LogRecord record) {
            if (!isLoggable(record)) return;
            String text;
            try {
                text = getFormatter().format(record);
            } catch (RuntimeException e) {
                reportError(null, e, java.util.logging.ErrorManager.FORMAT_FAILURE);
                return;
            }
            java.io.PrintStream err = System.err;
            err.print(text);
            err.flush();
        }

        @Override
        public void flush() {
            System.err.flush();
        }

        @Override
        public void close() {
            flush();
        }
    }
}

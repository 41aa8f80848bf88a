package dev.flushline.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the command line's java.util.logging configuration prints (slf4j-jdk14 maps SLF4J's error,
 * warn, info and debug to SEVERE, WARNING, INFO and FINE; the end-to-end run through SLF4J is
 * SLF4JClassPathTest's). The JVM's configuration is put back after each test.
 */
class CliLoggingTest {
    private final Logger flushline = Logger.getLogger("dev.flushline");
    private final Logger root = Logger.getLogger("");
    private Level rootLevel, flushlineLevel;
    private Handler[] flushlineHandlers;
    private boolean useParents;
    private PrintStream err;
    private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

    @BeforeEach
    void save() {
        rootLevel = root.getLevel();
        flushlineLevel = flushline.getLevel();
        flushlineHandlers = flushline.getHandlers();
        useParents = flushline.getUseParentHandlers();
        err = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        System.setErr(err);
        for (Handler h : flushline.getHandlers()) flushline.removeHandler(h);
        for (Handler h : flushlineHandlers) flushline.addHandler(h);
        flushline.setUseParentHandlers(useParents);
        flushline.setLevel(flushlineLevel);
        root.setLevel(rootLevel);
    }

    @Test
    void theLibrarysLinesAreWordedAsTheCommandLineAlwaysPrintedThem() {
        assertTrue(CliLogging.install());
        Logger flusher = Logger.getLogger("dev.flushline.table.Flusher");
        flusher.log(Level.SEVERE, "flush of ks.t failed (attempt 1 of 4): disk full; retrying in 100 ms", new IOException("disk full"));
        Logger.getLogger("dev.flushline.table.DurableTable").log(Level.WARNING, "could not record commit log release: x");
        Logger.getLogger("dev.flushline.table.Table").log(Level.INFO, "Removed leftovers of an interrupted flush: [a]");
        flusher.log(Level.FINE, "Completed flushing ...: debug, not shown");
        // another library's info (cassandra-all beside bench --against): below the warnings kept
        Logger.getLogger("org.apache.cassandra.db.ColumnFamilyStore").log(Level.INFO, "Enqueuing flush of ...");
        assertEquals("ERROR flush of ks.t failed (attempt 1 of 4): disk full; retrying in 100 ms\n"
                + "WARN could not record commit log release: x\n"
                + "Removed leftovers of an interrupted flush: [a]\n", captured.toString(StandardCharsets.UTF_8).replace(System.lineSeparator(), "\n"),
                "the message after the level's word at warn and error, no stack trace, nothing below info");
        assertFalse(flushline.getUseParentHandlers(), "not also printed by the root's console handler");
    }

    @Test
    void aJvmGivenItsOwnConfigurationKeepsIt() {
        System.setProperty("java.util.logging.config.file", "/nonexistent/logging.properties");
        try {
            assertFalse(CliLogging.install());
            assertEquals(flushlineHandlers.length, flushline.getHandlers().length, "nothing installed");
            assertEquals(rootLevel, root.getLevel());
        } finally {
            System.clearProperty("java.util.logging.config.file");
        }
    }
}

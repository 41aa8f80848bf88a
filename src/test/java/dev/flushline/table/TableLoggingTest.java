package dev.flushline.table;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.flush.FlushJob;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Without line hooks the table's lines are SLF4J events: logged by the class that says them, at
 * the level the hook line's prefix names (info when it has none; warn for a file left alone), with
 * the prefix left out of the message and the cause attached to failures. With hooks, the hooks get
 * the lines and SLF4J gets nothing. The tests' SLF4J backend is logback (cassandra-all's); events
 * are caught by a list appender on {@code dev.flushline}, opened to debug (and kept off the console) for the test.
 */
class TableLoggingTest {
    @TempDir
    Path tmp;

    private final ch.qos.logback.classic.Logger flushline = (ch.qos.logback.classic.Logger) LoggerFactory.getLogger("dev.flushline");
    private final ListAppender<ILoggingEvent> events = new ListAppender<>();
    private Level levelBefore;

    @BeforeEach
    void catchEvents() {
        levelBefore = flushline.getLevel();
        flushline.setLevel(Level.DEBUG);
        flushline.setAdditive(false); // caught here, not also printed by the console appender of logback-test.xml
        events.start();
        flushline.addAppender(events);
    }

    @AfterEach
    void stopCatching() {
        flushline.detachAppender(events);
        flushline.setAdditive(true);
        flushline.setLevel(levelBefore);
    }

    /** The events so far, one "LEVEL logger: message" line each, and their throwables beside. */
    private List<String> lines() {
        List<String> out = new ArrayList<>();
        synchronized (events.list) {
            for (ILoggingEvent e : events.list) out.add(e.getLevel() + " " + e.getLoggerName() + ": " + e.getFormattedMessage());
        }
        return out;
    }

    static final TableSchema SCHEMA = CqlParser.parse(LoggingProbe.CQL);

    /** A removable leftover of ours (lock file beside it) and another writer's sstable without TOC.txt. */
    private static Path plantLeftovers(Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.write(dir.resolve("oa-6-big-Data.db"), new byte[] {2});
        Files.createFile(dir.resolve(".flushline-oa-6.lock"));
        return Files.write(dir.resolve("oa-5-big-Data.db"), new byte[] {1});
    }

    @Test
    void openSaysWhatItRemovedAndLeftAloneThroughTheTablesLogger() throws Exception {
        Path dir = tmp.resolve("t");
        Path foreign = plantLeftovers(dir);
        try (Table t = Table.open(TableOptions.builder().schema(SCHEMA).directory(dir).build())) {
            t.apply(new RandomUpdates(SCHEMA, 1, 1_750_000_000L, 10, 2).next());
        }
        List<String> lines = lines();
        assertTrue(lines.size() >= 2, lines.toString());
        assertTrue(lines.get(0).startsWith("INFO dev.flushline.table.Table: Removed leftovers of an interrupted flush: [")
                && lines.get(0).contains("oa-6-big-Data.db"), lines.toString());
        assertEquals("WARN dev.flushline.table.Table: " + dev.flushline.sstable.Leftovers.describe(foreign), lines.get(1));
        // then the flush at close, at debug: its log line
        for (String l : lines.subList(2, lines.size())) assertTrue(l.startsWith("DEBUG dev.flushline.table.Flusher: Completed flushing "), l);
        assertEquals(3, lines.size(), "one flush at close: " + lines);
    }

    @Test
    void theReplaySummaryIsInfoOfTheDurableTable() throws Exception {
        TableOptions o = TableOptions.builder().schema(SCHEMA).dataDir(tmp.resolve("data"))
                .commitLog(tmp.resolve("cl"), "batch", false).build();
        try (Table t = Table.open(o)) {
            t.apply(new RandomUpdates(SCHEMA, 2, 1_750_000_000L, 10, 2).next());
        }
        assertTrue(lines().contains("INFO dev.flushline.table.DurableTable: Replayed 0 mutations from 0 segments"), lines().toString());
    }

    @Test
    void aFailedFlushIsAnErrorWithItsCause() throws Exception {
        IOException injected = new IOException("injected: No space left on device");
        Flusher.FlushRunner failing = (m, o, d, p) -> {
            throw injected;
        };
        Flusher f = new Flusher(() -> new SkipListMemtable(SCHEMA, AllocationMode.UNSLABBED_HEAP),
                FlushJob.Options.simple(Files.createDirectories(tmp.resolve("f"))), Flusher.Limits.forMemtableSize(64L << 20),
                null, failing, new Flusher.FailurePolicy(1, 1, 1), null);
        f.apply(new RandomUpdates(SCHEMA, 3, 1_750_000_000L, 10, 2).next());
        assertThrows(FlusherFailedException.class, f::forceFlush);
        f.abandon();
        List<ILoggingEvent> errors;
        synchronized (events.list) {
            errors = new ArrayList<>(events.list);
        }
        assertEquals(3, errors.size(), lines().toString());
        String[] expected = {"flush of ks.p failed (attempt 1 of 2): ", "flush of ks.p failed (attempt 2 of 2): ",
                "flusher of ks.p stopped after 2 failed attempts; writes are refused until the cause is fixed: "};
        for (int i = 0; i < 3; i++) {
            ILoggingEvent e = errors.get(i);
            assertEquals(Level.ERROR, e.getLevel());
            assertEquals(Flusher.class.getName(), e.getLoggerName());
            assertTrue(e.getFormattedMessage().startsWith(expected[i]) && e.getFormattedMessage().contains("injected: No space left on device"),
                    e.getFormattedMessage());
            assertNotNull(e.getThrowableProxy(), "the cause is attached: " + e.getFormattedMessage());
            assertEquals(IOException.class.getName(), e.getThrowableProxy().getClassName());
            assertEquals(injected.getMessage(), e.getThrowableProxy().getMessage());
        }
        assertTrue(errors.get(0).getFormattedMessage().endsWith("; retrying in 1 ms"), errors.get(0).getFormattedMessage());
    }

    @Test
    void compactionsAreInfoOfBackgroundCompactions() throws Exception {
        BackgroundCompactions.Settings s = TableCompactionTest.settings("stcs");
        s.threads = 1;
        TableOptions o = TableOptions.builder().schema(SCHEMA).dataDir(tmp.resolve("data"))
                .allocation(AllocationMode.UNSLABBED_HEAP).memtableSizeBytes(16 * 1024).compaction(s).build();
        BackgroundCompactions bc;
        try (Table t = Table.open(o)) {
            bc = t.compactions();
            RandomUpdates gen = new RandomUpdates(SCHEMA, 4, 1_750_000_000L, 400, 8);
            for (int flush = 0; flush < 6; flush++) {
                for (int i = 0; i < 200; i++) t.apply(gen.next());
                t.flush();
            }
            bc.awaitQuiescent();
        }
        assertEquals(0, bc.failedCompactions(), String.valueOf(bc.failure()));
        assertTrue(bc.compactionsDone() >= 1, "compacted: " + bc.compactionsDone());
        long compacted = 0;
        for (String l : lines()) if (l.startsWith("INFO dev.flushline.table.BackgroundCompactions: Compacted (")) compacted++;
        assertEquals(bc.compactionsDone(), compacted, lines().toString());
    }

    @Test
    void withHooksTheHooksGetTheLinesAndSLF4JNothing() throws Exception {
        Path dir = tmp.resolve("t");
        Path foreign = plantLeftovers(dir);
        List<String> info = Collections.synchronizedList(new ArrayList<>()), log = Collections.synchronizedList(new ArrayList<>());
        try (Table t = Table.open(TableOptions.builder().schema(SCHEMA).directory(dir).info(info::add).log(log::add).build())) {
            PartitionUpdate u = new RandomUpdates(SCHEMA, 5, 1_750_000_000L, 10, 2).next();
            t.apply(u);
        }
        assertEquals(1, info.size(), info.toString());
        assertTrue(info.get(0).startsWith("Removed leftovers of an interrupted flush: ["), info.toString());
        assertEquals(List.of(dev.flushline.sstable.Leftovers.describe(foreign)), log, "the line as it always was, without a level word");
        for (String l : lines()) assertTrue(l.startsWith("DEBUG dev.flushline.table.Flusher: Completed flushing "), "only the flush's debug line: " + l);
    }
}

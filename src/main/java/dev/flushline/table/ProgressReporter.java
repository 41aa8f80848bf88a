package dev.flushline.table;

import dev.flushline.schema.ValueText;
import dev.flushline.flush.FlushProgress;
import dev.flushline.table.Flusher;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Shows the progress of long flushes on stderr (stdout carries the flush log lines): a bar redrawn
 * in place on a terminal, or a line every {@link #LINE_INTERVAL_MILLIS} otherwise. Flushes shorter
 * than {@link #QUIET_MILLIS} show nothing.
 *
 * <p>Thread safety: runs on its own daemon thread, reading the Flusher's volatile progress.
 */
public final class ProgressReporter {
    static final long QUIET_MILLIS = 2_000;
    static final long LINE_INTERVAL_MILLIS = 5_000;
    private static final long TICK_MILLIS = 250;
    private static final int BAR_WIDTH = 30;

    private final Flusher flusher;
    private final String table;
    private final PrintStream err;
    private final boolean terminal;
    private final Thread thread;
    private volatile boolean stopped;

    public ProgressReporter(Flusher flusher, String table, PrintStream err) {
        this.flusher = flusher;
        this.table = table;
        this.err = err;
        this.terminal = System.console() != null && err == System.err;
        this.thread = new Thread(this::loop, "flushline-progress");
        this.thread.setDaemon(true);
    }

    public void start() {
        thread.start();
    }

    public void stop() {
        stopped = true;
        thread.interrupt();
        try {
            thread.join(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void loop() {
        FlushProgress seen = null;
        long since = 0, lastLine = 0;
        boolean drawn = false;
        while (!stopped) {
            try {
                Thread.sleep(TICK_MILLIS);
            } catch (InterruptedException e) {
                break;
            }
            FlushProgress p = flusher.runningFlush();
            long now = System.currentTimeMillis();
            if (p != seen) {
                if (drawn && terminal) err.print("\r" + " ".repeat(BAR_WIDTH + 60) + "\r");
                drawn = false;
                seen = p;
                since = now;
                lastLine = now;
            }
            if (p == null || now - since < QUIET_MILLIS) continue;
            String text = String.format(Locale.ROOT, "flushing %s: %3.0f%% (%d/%d partitions, %s)", table,
                    100 * p.fraction(), p.partitionsDone(), p.partitionsTotal(), ValueText.mib(p.bytesDone()));
            if (terminal) {
                int filled = (int) Math.round(p.fraction() * BAR_WIDTH);
                err.print("\r[" + "#".repeat(filled) + " ".repeat(BAR_WIDTH - filled) + "] " + text);
                err.flush();
                drawn = true;
            } else if (now - lastLine >= LINE_INTERVAL_MILLIS) {
                err.println(text);
                lastLine = now;
            }
        }
        if (drawn && terminal) err.print("\r" + " ".repeat(BAR_WIDTH + 60) + "\r");
    }
}

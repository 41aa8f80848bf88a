package dev.flushline.table;

import dev.flushline.schema.ValueText;
import dev.flushline.flush.FlushProgress;
import dev.flushline.ops.InputFiles;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Shows the progress of a long load on stderr (stdout carries the flush log lines): how far the
 * input has been read (its bytes against the file's length, lines, and lines and MiB per second
 * over the last few seconds), and the flush that is running, if any, with its partitions. A bar is
 * redrawn in place on a terminal; otherwise a line is printed every {@link #LINE_INTERVAL_MILLIS}.
 * Reading shorter than {@link #QUIET_MILLIS}, and flushes shorter than that, show nothing.
 *
 * <p>Thread safety: runs on its own daemon thread, reading the Flusher's volatile progress, the
 * input {@link InputFiles.Meter}'s volatile count and {@link Input#linesRead}'s volatile count.
 */
public final class ProgressReporter {
    static final long QUIET_MILLIS = 2_000;
    static final long LINE_INTERVAL_MILLIS = 5_000;
    /** Rates are taken over the last 2.5 to 5 seconds: recent enough to show a slow-down, long enough to be steady. */
    static final long RATE_WINDOW_MILLIS = 2_500;
    private static final long TICK_MILLIS = 250;
    private static final int BAR_WIDTH = 30;

    /**
     * The input being read: its name, the meter of the file under it, and the lines taken so far,
     * which the reading side publishes ({@link #linesRead}) every so many lines rather than each.
     */
    public static final class Input {
        private final String name;
        private final InputFiles.Meter meter;
        private volatile long lines;

        public Input(String name, InputFiles.Meter meter) {
            this.name = name;
            this.meter = meter;
        }

        /** The lines read so far. One writer thread; called every few dozen lines, not per line. */
        public void linesRead(long lines) {
            this.lines = lines;
        }
    }

    private final Flusher flusher;
    private final String table;
    private final long quietMillis;
    private final long lineIntervalMillis;
    private final Input input;
    private final PrintStream err;
    private final boolean terminal;
    private final Thread thread;
    private volatile boolean stopped;

    /** Flushes only. */
    public ProgressReporter(Flusher flusher, String table, PrintStream err) {
        this(flusher, table, null, err);
    }

    /** The reading of {@code input} (null: none) and the flushes of {@code flusher}. */
    public ProgressReporter(Flusher flusher, String table, Input input, PrintStream err) {
        this(flusher, table, input, err, QUIET_MILLIS, LINE_INTERVAL_MILLIS);
    }

    /** With other intervals, for tests. */
    ProgressReporter(Flusher flusher, String table, Input input, PrintStream err, long quietMillis, long lineIntervalMillis) {
        this.quietMillis = quietMillis;
        this.lineIntervalMillis = lineIntervalMillis;
        this.flusher = flusher;
        this.table = table;
        this.input = input;
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
        long begun = System.currentTimeMillis();
        FlushProgress seen = null;
        long flushSince = 0, lastLine = begun;
        boolean drawn = false;
        // Two samples of the input: rates are measured from the older one, which is 2.5 to 5 s old.
        long oldMillis = begun, oldBytes = 0, oldLines = 0, newMillis = begun, newBytes = 0, newLines = 0;
        while (!stopped) {
            try {
                Thread.sleep(TICK_MILLIS);
            } catch (InterruptedException e) {
                break;
            }
            long now = System.currentTimeMillis();
            FlushProgress p = flusher.runningFlush();
            if (p != seen) {
                seen = p;
                flushSince = now;
            }
            boolean showFlush = p != null && now - flushSince >= quietMillis;
            String inputText = null;
            double fraction = showFlush ? p.fraction() : -1;
            if (input != null && now - begun >= quietMillis) {
                long bytes = input.meter.bytesRead(), lines = input.lines, size = input.meter.size();
                if (now - newMillis >= RATE_WINDOW_MILLIS) {
                    oldMillis = newMillis;
                    oldBytes = newBytes;
                    oldLines = newLines;
                    newMillis = now;
                    newBytes = bytes;
                    newLines = lines;
                }
                double seconds = Math.max(1, now - oldMillis) / 1000.0;
                inputText = inputText(input.name, bytes, size, lines, (lines - oldLines) / seconds, (bytes - oldBytes) / seconds);
                if (size > 0) fraction = Math.min(1.0, (double) bytes / size);
            }
            String flushText = showFlush ? String.format(Locale.ROOT, "flushing %s: %3.0f%% (%d/%d partitions, %s)", table,
                    100 * p.fraction(), p.partitionsDone(), p.partitionsTotal(), ValueText.mib(p.bytesDone())) : null;
            if (inputText == null && flushText == null) {
                if (drawn && terminal) clear();
                drawn = false;
                continue;
            }
            if (terminal) {
                String text = inputText == null ? flushText : flushText == null ? inputText : inputText + "; " + flushText;
                if (drawn) clear();
                if (fraction >= 0) {
                    int filled = (int) Math.round(fraction * BAR_WIDTH);
                    err.print("\r[" + "#".repeat(filled) + " ".repeat(BAR_WIDTH - filled) + "] " + text);
                } else {
                    err.print("\r" + text);
                }
                err.flush();
                drawn = true;
            } else if (now - lastLine >= lineIntervalMillis) {
                if (inputText != null) err.println(inputText);
                if (flushText != null) err.println(flushText);
                lastLine = now;
            }
        }
        if (drawn && terminal) clear();
    }

    private void clear() {
        err.print("\r" + " ".repeat(BAR_WIDTH + 160) + "\r");
    }

    /**
     * {@code reading ops.jsonl: 35% of 3,412.000MiB, 1234567 lines (310000 lines/s, 45.1 MiB/s)}; without
     * a length (stdin, a pipe) the bytes read instead of the share.
     */
    static String inputText(String name, long bytes, long size, long lines, double linesPerSecond, double bytesPerSecond) {
        String where = size > 0
                ? String.format(Locale.ROOT, "%3.0f%% of %s", 100.0 * Math.min(bytes, size) / size, ValueText.mib(size))
                : ValueText.mib(bytes);
        return String.format(Locale.ROOT, "reading %s: %s, %d lines (%.0f lines/s, %.1f MiB/s)", name, where, lines, linesPerSecond,
                bytesPerSecond / (1024.0 * 1024.0));
    }
}

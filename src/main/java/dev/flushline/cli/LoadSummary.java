package dev.flushline.cli;

import dev.flushline.ops.BadInputException;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What {@code load --json} prints: the {@link JsonSummary} with the load's members. Without
 * {@code --json} every method does nothing, so the load calls them unconditionally.
 *
 * <pre>
 * {"command":"load", "status":S, "input":FILE, "table":"ks.t", "directory":DIR,
 *  "sstables":[{"path":Data.db, "bytes":N, "partitions":N, "rows":N}, ...],
 *  "operations":N, "lines_read":N, "no_ops":N, "flushes":N, "partitions":N, "rows":N, "data_bytes":N,
 *  "bad_lines":{"count":N, "skipped":N, "first":[{"source":FILE, "line":N, "message":...}, ...]},
 *  "stopped_at":{"source":FILE, "line":N} (only when a bad line stopped the load),
 *  "notes":[lines about leftovers removed or left alone, replay], "placed":[...] (with --ring),
 *  "wall_ms":N, "cpu_ms":N, "error":... (when S is not 0)}
 * </pre>
 * {@code partitions} and {@code rows} are what the flushes wrote (a partition in two flushes counts
 * twice); {@code first} holds the first {@link JsonSummary#FIRST_FEW} bad lines.
 *
 * <p>Thread safety: {@link #flushed} and {@link #note} are called on the flush thread while the
 * loading thread calls the others; every method is synchronized.
 */
final class LoadSummary {
    private final JsonSummary json;
    private long partitions, rows, dataBytes, badLines, skipped;
    private final List<Object> firstBadLines = new java.util.ArrayList<>();

    private LoadSummary(JsonSummary json) {
        this.json = json;
    }

    static LoadSummary ifRequested(String[] argv) {
        return new LoadSummary(JsonSummary.ifRequested("load", argv));
    }

    PrintStream humanOut(PrintStream out, PrintStream err) {
        return JsonSummary.humanOut(json, out, err);
    }

    synchronized void started(String input, String table) {
        if (json == null) return;
        json.put("input", input);
        json.put("table", table);
        json.list("sstables");
    }

    synchronized void flushed(Path dataPath, long bytes, long flushPartitions, long flushRows) {
        if (json == null) return;
        Map<String, Object> m = JsonSummary.object();
        m.put("path", dataPath.toString());
        m.put("bytes", bytes);
        m.put("partitions", flushPartitions);
        m.put("rows", flushRows);
        json.list("sstables").add(m);
        partitions += flushPartitions;
        rows += flushRows;
        dataBytes += bytes;
    }

    synchronized void badLine(BadInputException e) {
        if (json == null) return;
        if (++badLines > JsonSummary.FIRST_FEW) return;
        Map<String, Object> m = JsonSummary.object();
        m.put("source", e.source());
        m.put("line", e.lineNumber());
        m.put("message", e.getMessage());
        firstBadLines.add(m);
    }

    synchronized void note(String line) {
        if (json != null) json.list("notes").add(line);
    }

    /** The load's end, with the numbers of its summary line. */
    synchronized void loaded(long operations, long linesRead, long skipped, long noOps, long flushes, Path directory,
                             BadInputException stop) {
        if (json == null) return;
        json.put("directory", directory.toString());
        json.put("operations", operations);
        json.put("lines_read", linesRead);
        json.put("no_ops", noOps);
        json.put("flushes", flushes);
        if (stop != null) {
            Map<String, Object> m = JsonSummary.object();
            m.put("source", stop.source());
            m.put("line", stop.lineNumber());
            json.put("stopped_at", m);
        }
        this.skipped = skipped;
    }

    synchronized void placed(dev.flushline.sstable.ReplicaPlacement.Result r) {
        RingOption.placed(r, json);
    }

    /** Prints {@code message} on stderr and records it as the summary's error. */
    synchronized void error(PrintStream err, String message) {
        JsonSummary.report(json, err, message);
    }

    synchronized int finish(int status, PrintStream out) {
        if (json == null) return status;
        // What was published, also when the load failed part way.
        json.put("partitions", partitions);
        json.put("rows", rows);
        json.put("data_bytes", dataBytes);
        Map<String, Object> m = JsonSummary.object();
        m.put("count", badLines);
        m.put("skipped", skipped);
        m.put("first", firstBadLines);
        json.put("bad_lines", m);
        return json.finish(status, out);
    }
}

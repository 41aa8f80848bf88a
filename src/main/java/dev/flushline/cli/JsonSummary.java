package dev.flushline.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import java.io.IOException;
import java.io.PrintStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one JSON object that {@code load}, {@code compact} and {@code verify} print on stdout with
 * {@code --json}, for scripts: whatever happens (success, bad input, an I/O failure, a usage error)
 * stdout holds exactly this object on one line, and the human lines the command would have printed
 * on stdout go to stderr instead. It always has {@code command}, {@code status} (the exit status),
 * {@code wall_ms}, and {@code cpu_ms} (the process's CPU time over the command, when the JVM reports
 * it) and, when the status is not 0, {@code error} (the message also printed on stderr; the first,
 * if there were several). Each command adds its own members (see its --help).
 *
 * <p>The members are collected as a tree of maps (in insertion order), lists, strings, numbers and
 * booleans, and written once at the end with jackson-core's generator. This is run-once code, off
 * every hot path.
 *
 * <p>Thread safety: not thread-safe, except {@link #add} to a list made by {@link #list}, which
 * callers on flush threads (the load's onFlushed) synchronize on that list.
 */
final class JsonSummary {
    /** The flag, as the commands take it: {@code --json}. */
    static final String FLAG = "json";
    /** How many refused lines (or findings) the summary quotes in full; the count covers all. */
    static final int FIRST_FEW = 10;

    private final Map<String, Object> root = new LinkedHashMap<>();
    private final long startNanos = System.nanoTime();
    private final long startCpuNanos = processCpuNanos();

    private JsonSummary(String command) {
        root.put("command", command);
        root.put("status", null); // filled in by finish; first after the command, for a reader's eye
    }

    /** A summary if {@code argv} holds {@code --json} (before any parsing, so a usage error is reported too), else null. */
    static JsonSummary ifRequested(String command, String[] argv) {
        for (String a : argv) {
            if (a.equals("--" + FLAG)) return new JsonSummary(command);
        }
        return null;
    }

    /** Where the human lines go: stderr with --json (stdout is the summary's), else stdout. */
    static PrintStream humanOut(JsonSummary s, PrintStream out, PrintStream err) {
        return s == null ? out : err;
    }

    void put(String name, Object value) {
        root.put(name, value instanceof Path ? value.toString() : value);
    }

    /** The list under {@code name}, created empty on first use. */
    @SuppressWarnings("unchecked")
    List<Object> list(String name) {
        return (List<Object>) root.computeIfAbsent(name, k -> new ArrayList<>());
    }

    /** A fresh object, for a list element or a member. */
    static Map<String, Object> object() {
        return new LinkedHashMap<>();
    }

    /** Records the message of a failure; the first one is the summary's {@code error}. */
    void error(String message) {
        root.putIfAbsent("error", message);
    }

    /**
     * Writes the object, with {@code status}, the wall time and the CPU time, as one line on
     * {@code out}; returns {@code status}.
     */
    int finish(int status, PrintStream out) {
        root.put("status", status);
        root.put("wall_ms", (System.nanoTime() - startNanos) / 1_000_000);
        long cpu = processCpuNanos();
        if (cpu >= 0 && startCpuNanos >= 0) root.put("cpu_ms", (cpu - startCpuNanos) / 1_000_000);
        if (status != 0) root.putIfAbsent("error", "exit status " + status);
        out.println(toJson(root));
        out.flush();
        return status;
    }

    /** {@code s.finish(status, out)}, or {@code status} when no summary was asked for. */
    static int finish(JsonSummary s, int status, PrintStream out) {
        return s == null ? status : s.finish(status, out);
    }

    /** Records {@code message} in the summary (if any) and prints it on stderr. */
    static void report(JsonSummary s, PrintStream err, String message) {
        err.println(message);
        if (s != null) s.error(message);
    }

    static String toJson(Object value) {
        StringWriter w = new StringWriter();
        try (JsonGenerator g = new JsonFactory().createGenerator(w)) {
            write(g, value);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return w.toString();
    }

    private static void write(JsonGenerator g, Object v) throws IOException {
        if (v == null) {
            g.writeNull();
        } else if (v instanceof Map) {
            g.writeStartObject();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                g.writeFieldName(e.getKey().toString());
                write(g, e.getValue());
            }
            g.writeEndObject();
        } else if (v instanceof List) {
            g.writeStartArray();
            for (Object x : (List<?>) v) write(g, x);
            g.writeEndArray();
        } else if (v instanceof Long || v instanceof Integer) {
            g.writeNumber(((Number) v).longValue());
        } else if (v instanceof Double) {
            g.writeNumber((Double) v);
        } else if (v instanceof Boolean) {
            g.writeBoolean((Boolean) v);
        } else {
            g.writeString(v.toString());
        }
    }

    /** The CPU time of the whole process (every thread, GC included), or -1 when the JVM does not say. */
    private static long processCpuNanos() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
        }
        return -1;
    }
}

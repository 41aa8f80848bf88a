package dev.flushline.bench;

import dev.flushline.schema.ValueText;

import java.io.IOException;

/**
 * The bench workload as the text {@code flushline load} reads, in its two formats: JSON Lines inserts
 * and CSV rows with a header, the same rows and values in both (those {@link BenchCommand#fill} puts
 * in a memtable). One source for the benchmark module (its parse and allocation benchmarks, and the
 * load beside CQLSSTableWriter) and for the tests that hold the load's fast paths to this workload, so
 * that what is measured and what is tested are the same lines.
 *
 * <p>Thread safety: stateless; the sinks are called on the caller's thread.
 */
public final class BenchInputs {
    private BenchInputs() {}

    /** Takes each line a method here builds, without its line end; the builder is reused, so copy what is kept. */
    @FunctionalInterface
    public interface LineSink {
        void line(CharSequence line) throws IOException;
    }

    /** Takes each row {@link #rows} makes: its key, write time and value texts (the array is reused, the strings are not). */
    @FunctionalInterface
    public interface RowSink {
        void row(long pk, long ck, long timestampMicros, String[] values) throws IOException;
    }

    /**
     * The workload's first {@code count} rows, in row order: pk, ck, the row's timestamp (one microsecond
     * apart from the bench's base) and its printable ASCII values from the bench's seeded xorshift
     * (see {@link BenchCommand#VALUE_SEED}).
     */
    public static void rows(BenchCommand.Workload w, long count, RowSink sink) throws IOException {
        long seed = BenchCommand.VALUE_SEED;
        long ts = BenchCommand.BASE_TIMESTAMP_MICROS;
        char[] value = new char[w.valueBytes];
        String[] values = new String[w.valueColumns];
        for (long i = 0; i < count; i++) {
            for (int c = 0; c < w.valueColumns; c++) {
                for (int k = 0; k < value.length; k++) {
                    seed ^= seed << 13;
                    seed ^= seed >>> 7;
                    seed ^= seed << 17;
                    value[k] = (char) ('!' + (int) ((seed >>> 33) % 94));
                }
                values[c] = new String(value);
            }
            sink.row(i / w.rowsPerPartition, i % w.rowsPerPartition, ts++, values);
        }
    }

    /**
     * The first {@code count} rows as JSON Lines inserts, one a line, at each row's timestamp:
     * {@code {"op":"insert","timestamp":T,"values":{"pk":P,"ck":C,"v1":"...",...}}}, JSON's escapes for
     * {@code "} and {@code \}; about 200 bytes a line with the default workload.
     */
    public static void jsonLines(BenchCommand.Workload w, long count, LineSink sink) throws IOException {
        StringBuilder sb = new StringBuilder(256);
        rows(w, count, (p, r, ts, values) -> {
            sb.setLength(0);
            sb.append("{\"op\":\"insert\",\"timestamp\":").append(ts).append(",\"values\":{\"pk\":").append(p)
                    .append(",\"ck\":").append(r);
            for (int c = 1; c <= values.length; c++) {
                sb.append(",\"v").append(c).append("\":");
                ValueText.appendQuoted(sb, values[c - 1]);
            }
            sb.append("}}");
            sink.line(sb);
        });
    }

    /**
     * The CSV header line, {@code pk,ck,v1,...}, then the first {@code count} rows, one a line, in cqlsh
     * COPY's default dialect (delimiter {@code ,}, quote {@code "}, escape {@code \}): a value bare,
     * or in quotes with {@code \"} and {@code \\} escaped when it holds a comma, a quote or a
     * backslash; about 100 bytes a line. The rows carry no timestamp: the load gives one with
     * {@code --timestamp}.
     */
    public static void csvLines(BenchCommand.Workload w, long count, LineSink sink) throws IOException {
        StringBuilder sb = new StringBuilder(256);
        sb.append("pk,ck");
        for (int c = 1; c <= w.valueColumns; c++) sb.append(",v").append(c);
        sink.line(sb);
        rows(w, count, (p, r, ts, values) -> {
            sb.setLength(0);
            sb.append(p).append(',').append(r);
            for (String v : values) {
                sb.append(',');
                if (v.indexOf(',') < 0 && v.indexOf('"') < 0 && v.indexOf('\\') < 0) {
                    sb.append(v);
                } else {
                    sb.append('"').append(v.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
                }
            }
            sink.line(sb);
        });
    }
}

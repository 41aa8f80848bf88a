package dev.flushline.cli;

import dev.flushline.data.Cell;
import dev.flushline.ops.CsvOptions;
import dev.flushline.ops.CsvReader;
import dev.flushline.schema.TableSchema;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * {@code --format csv} of {@code load} and the options that go with it: the CSV dialect
 * ({@code --delimiter --quote --escape}, as cqlsh's COPY options), the columns
 * ({@code --columns}, {@code --header}), nulls ({@code --null}, {@code --nulls}), and the write
 * time and TTL every row takes ({@code --timestamp}, {@code --ttl}).
 */
final class CsvOption {
    static final String FORMAT = "format";
    static final Set<String> OPTIONS = Set.of(FORMAT, "columns", "header", "delimiter", "quote", "escape", "null", "nulls", "timestamp", "ttl");

    static final String HELP =
            "  --format jsonl|csv            the input's format (default jsonl). csv: one row per record, each an\n"
          + "                                INSERT of its columns, as cqlsh's COPY FROM loads it (see below)\n"
          + "  --columns C1,C2,...           csv: the columns of the fields, in order; the file then has no header\n"
          + "                                line unless --header true\n"
          + "  --header true|false           csv: the first line names the columns (default true without --columns;\n"
          + "                                with --columns a header line is skipped unread). --header false and no\n"
          + "                                --columns: the table's columns, partition key, clustering, then the\n"
          + "                                others by name, as COPY without a column list\n"
          + "  --delimiter C                 csv: the field delimiter, one character or \\t (default ,)\n"
          + "  --quote C                     csv: the quote character (default \")\n"
          + "  --escape C|none               csv: the escape character inside and outside quotes (default \\; the\n"
          + "                                quote character or none: quotes are only doubled)\n"
          + "  --null STRING                 csv: a field equal to STRING is null (default: the empty field)\n"
          + "  --nulls tombstone|unset       csv: what a null field writes: a tombstone, as cqlsh's COPY FROM and an\n"
          + "                                INSERT with null do (default), or nothing, as DSBulk's nullToUnset\n"
          + "  --timestamp MICROS            csv: the write time of every row (default: the clock when the load\n"
          + "                                starts, one value for the run, printed on stderr to repeat the load)\n"
          + "  --ttl SECONDS                 csv: the TTL of every row (default: the table's default_time_to_live;\n"
          + "                                0 = none)\n";

    static final String VALUES_HELP =
            "CSV values (--format csv): as cqlsh's COPY TO writes them. text and ascii as they are (never unquoted\n"
          + "or trimmed); other types as their CQL literal without quotes: 42, 1.5, NaN, True, 0xcafe, a uuid,\n"
          + "2024-01-31 10:00:00.000+0000 (or milliseconds), 2024-01-31, 10:00:00.123, 1h30m, 127.0.0.1;\n"
          + "collections, tuples, UDTs and vectors as CQL literals: [1, 2], {'a', 'b'}, {'k': 1}, (1, 'x'),\n"
          + "{street: 'Main', zip: 75001}, [0.5, 1.0]. A field equal to the null marker is null (refused in a\n"
          + "primary key column); with --null set, an empty field is '' for text, an empty blob, false for a\n"
          + "boolean and null otherwise. A record of the wrong number of fields or a value that does not fit its\n"
          + "column is a bad line, reported as FILE:LINE: column 'c' (type): detail.\n";

    private CsvOption() {}

    /** Whether {@code --format csv} is chosen; the CSV options without it are a usage error. */
    static boolean chosen(Args a) throws UsageException {
        boolean csv = a.choice(FORMAT, "jsonl", "jsonl", "csv").equals("csv");
        if (!csv) {
            for (String o : OPTIONS) {
                if (!o.equals(FORMAT) && a.has(o)) {
                    throw new UsageException("--" + o + " is an option of --format csv (a JSON Lines operation carries its own values"
                            + (o.equals("timestamp") || o.equals("ttl") ? ", timestamp and ttl" : "") + ")");
                }
            }
        }
        return csv;
    }

    /** The clock as microseconds since the epoch: the default write time of a CSV load. */
    static long clockMicros() {
        Instant now = Instant.now();
        return Math.addExact(Math.multiplyExact(now.getEpochSecond(), 1_000_000L), now.getNano() / 1000);
    }

    /**
     * The options of a CSV load of {@code schema}, with {@code defaultTimestampMicros} unless
     * {@code --timestamp} gives one; {@code nowSeconds} and {@code maxLocalDeletionTime} bound the TTL.
     */
    static CsvOptions read(Args a, TableSchema schema, long defaultTimestampMicros, long nowSeconds, long maxLocalDeletionTime,
                           String maxLocalDeletionTimeText) throws UsageException {
        // Long.MIN_VALUE marks "no timestamp" in cells, and a collection's overwrite is written at timestamp - 1.
        long ts = a.longValue("timestamp", defaultTimestampMicros, Long.MIN_VALUE + 2, Long.MAX_VALUE);
        CsvOptions.Builder b = CsvOptions.builder(ts);
        if (a.has("ttl")) {
            int ttl = a.intValue("ttl", 0, 0, Cell.MAX_TTL);
            if (ttl > 0 && nowSeconds + ttl > maxLocalDeletionTime) {
                throw new UsageException("--ttl " + ttl + ": expires after the latest expiration the output can store ("
                        + maxLocalDeletionTimeText + ") from --now " + nowSeconds);
            }
            b.ttlSeconds(ttl);
        }
        if (a.has("columns")) {
            List<String> names = split(a.required("columns"));
            try {
                CsvReader.resolveColumns(schema, names, "--columns");
            } catch (IllegalArgumentException e) {
                throw new UsageException(e.getMessage());
            }
            b.columns(names);
        }
        if (a.has("header")) b.header(Boolean.parseBoolean(a.choice("header", "true", "true", "false")));
        b.delimiter(character(a, "delimiter", ','));
        b.quote(character(a, "quote", '"'));
        if (a.has("escape")) b.escape(a.required("escape").equals("none") ? CsvOptions.NO_ESCAPE : character(a, "escape", '\\'));
        if (a.has("null")) b.nullMarker(a.required("null"));
        b.nullsUnset(a.choice("nulls", "tombstone", "tombstone", "unset").equals("unset"));
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new UsageException("--format csv: " + e.getMessage());
        }
    }

    /** Column names separated by commas; a name in double quotes may hold commas (a quote doubled inside). */
    static List<String> split(String s) throws UsageException {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"') quoted = !quoted;
            if (c == ',' && !quoted) {
                out.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        if (quoted) throw new UsageException("--columns " + s + ": a double quote is not closed");
        out.add(cur.toString());
        return out;
    }

    /** One character, or an escape for it: \t (tab). */
    private static char character(Args a, String name, char defaultValue) throws UsageException {
        if (!a.has(name)) return defaultValue;
        String v = a.required(name);
        if (v.equals("\\t")) return '\t';
        if (v.length() != 1) throw new UsageException("--" + name + " '" + v + "' is not one character (\\t for a tab)");
        return v.charAt(0);
    }
}

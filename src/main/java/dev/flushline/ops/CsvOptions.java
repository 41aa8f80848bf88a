package dev.flushline.ops;

import dev.flushline.data.Cell;

import java.util.List;

/**
 * How {@link CsvReader} reads a CSV file: its dialect, its columns, what a null field writes, and
 * the write time and TTL of its rows (a CSV line carries neither). The defaults are cqlsh
 * {@code COPY FROM}'s (delimiter {@code ,}, quote {@code "}, escape {@code \}, null marker the
 * empty string, a null written as a tombstone), except the header, which is read by default (as
 * DSBulk does; COPY's {@code HEADER} is false unless given).
 *
 * <p>Thread safety: immutable; the builder is not thread-safe.
 */
public final class CsvOptions {
    /** {@link #escape} when there is no escape character (only doubled quotes inside quotes). */
    public static final int NO_ESCAPE = -1;
    /** {@link #ttlSeconds} when the table's default_time_to_live applies. */
    public static final int TABLE_TTL = -1;

    /** The columns of the fields, in order; null: from the header line (or, without one, the table's columns). */
    public final List<String> columns;
    /** Whether the first line is a header: it names the columns, or with {@link #columns} is skipped. */
    public final boolean header;
    public final char delimiter;
    public final char quote;
    /** The escape character, or {@link #NO_ESCAPE}. */
    public final int escape;
    /** A field equal to this is null (compared after unquoting, so {@code ""} equals the empty marker). */
    public final String nullMarker;
    /** A null field writes nothing (DSBulk's nullToUnset) instead of a tombstone (cqlsh COPY FROM). */
    public final boolean nullsUnset;
    /** The write time of every row, in microseconds. */
    public final long timestampMicros;
    /** The TTL of every row, or {@link #TABLE_TTL}. */
    public final int ttlSeconds;

    private CsvOptions(Builder b) {
        this.columns = b.columns == null ? null : List.copyOf(b.columns);
        this.header = b.header;
        this.delimiter = b.delimiter;
        this.quote = b.quote;
        this.escape = b.escape;
        this.nullMarker = b.nullMarker;
        this.nullsUnset = b.nullsUnset;
        this.timestampMicros = b.timestampMicros;
        this.ttlSeconds = b.ttlSeconds;
    }

    /** Options with the defaults and rows written at {@code timestampMicros}. */
    public static Builder builder(long timestampMicros) {
        return new Builder(timestampMicros);
    }

    public static final class Builder {
        private List<String> columns;
        private Boolean header;
        private char delimiter = ',';
        private char quote = '"';
        private int escape = '\\';
        private String nullMarker = "";
        private boolean nullsUnset;
        private final long timestampMicros;
        private int ttlSeconds = TABLE_TTL;

        private Builder(long timestampMicros) {
            this.timestampMicros = timestampMicros;
        }

        /** The columns of the fields; with them the file has no header line unless {@link #header} says so. */
        public Builder columns(List<String> names) {
            this.columns = names;
            return this;
        }

        public Builder header(boolean present) {
            this.header = present;
            return this;
        }

        public Builder delimiter(char c) {
            this.delimiter = c;
            return this;
        }

        public Builder quote(char c) {
            this.quote = c;
            return this;
        }

        /** An escape character, or {@link #NO_ESCAPE}; the quote character itself means none (as COPY takes it). */
        public Builder escape(int c) {
            this.escape = c;
            return this;
        }

        public Builder nullMarker(String marker) {
            if (marker == null) throw new IllegalArgumentException("the null marker may be empty, not null");
            this.nullMarker = marker;
            return this;
        }

        public Builder nullsUnset(boolean unset) {
            this.nullsUnset = unset;
            return this;
        }

        /** 0 .. 630720000 (Cassandra's limit, 20 years), or {@link #TABLE_TTL}; 0 means none, as USING TTL 0. */
        public Builder ttlSeconds(int ttl) {
            this.ttlSeconds = ttl;
            return this;
        }

        /** @throws IllegalArgumentException naming the conflict: line ends or a character used twice in the dialect. */
        public CsvOptions build() {
            if (header == null) header = columns == null;
            if (escape == quote) escape = NO_ESCAPE;
            check("delimiter", delimiter);
            check("quote", quote);
            if (escape != NO_ESCAPE) check("escape", (char) escape);
            if (delimiter == quote) throw new IllegalArgumentException("the delimiter and the quote are the same character, " + show(quote));
            if (escape == delimiter) throw new IllegalArgumentException("the delimiter and the escape are the same character, " + show(delimiter));
            if (columns != null && columns.isEmpty()) throw new IllegalArgumentException("no columns given");
            if (ttlSeconds != TABLE_TTL && (ttlSeconds < 0 || ttlSeconds > Cell.MAX_TTL)) {
                throw new IllegalArgumentException("the TTL " + ttlSeconds + " is out of range (0.." + Cell.MAX_TTL + " seconds)");
            }
            return new CsvOptions(this);
        }

        private static void check(String what, char c) {
            if (c == '\n' || c == '\r') throw new IllegalArgumentException("the " + what + " may not be a line end");
        }
    }

    /** A dialect character for messages: printable as itself in quotes, else its code. */
    static String show(int c) {
        if (c == NO_ESCAPE) return "none";
        if (c == '\t') return "'\\t' (tab)";
        return c >= 0x20 && c < 0x7F ? "'" + (char) c + "'" : String.format("U+%04X", c);
    }
}

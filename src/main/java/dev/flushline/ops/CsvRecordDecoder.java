package dev.flushline.ops;

import dev.flushline.data.InsertBuffer;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlType;
import dev.flushline.schema.ValueChars;

import java.io.IOException;

/**
 * The fast path of {@link CsvReader}: reads the common record, one line of fields of native types,
 * in place in the reader's window ({@link CsvChars}) and decodes it straight into an
 * {@link InsertBuffer}, with no String per field, no value model and no Row or Cell objects.
 *
 * <p>It takes a record or declines it, never refuses it: anything it does not read exactly as
 * jackson's tokenizer and {@link CsvReader#value} with {@link dev.flushline.schema.ValueCodec} do (a
 * record over several lines, quoting jackson calls malformed, the wrong number of fields, a value
 * of another form or out of range, a null key, a type it does not decode, a window too small, a
 * failure of the input) makes {@link #take} return {@link #DECLINED} with the record unread, and the
 * reader hands it to jackson and the value model, which build the same mutation or word the error.
 *
 * <p>Tokens, as jackson's tokenizer reads them (quote, delimiter and escape from {@link CsvOptions}):
 * before a record, spaces and line ends are skipped (blank lines, and the leading spaces of the
 * record's first field); a field is unquoted up to a delimiter or a line end, with the escape char
 * taking the next char as it is ({@code \0 \n \r \t} as NUL, LF, CR, tab); or quoted, with the quote
 * doubled or escaped inside, and after the closing quote only chars up to space (skipped) before the
 * delimiter or the line end. A line ends at LF, CR or CRLF; the end of the input ends it too. Right
 * after a record jackson skips to the next record's first char, and a failure of the input there
 * loses the record; so this reader takes a record only once it has read that far too.
 *
 * <p>Values, per column (see {@link CsvReader#value} for the rules and {@link ValueChars} for the
 * forms): the null marker is null (a tombstone, or nothing with nulls unset; declined in a primary
 * key column); an empty field under another marker is '' for text and ascii, an empty blob, false,
 * and null for the rest; text and ascii as they are; every other type trimmed of whitespace and in
 * printable ASCII, then: boolean, tinyint, smallint, int, bigint, varint and decimal (up to 18
 * digits), float and double (when exact without big arithmetic), blob, uuid, timeuuid, inet, date,
 * time and timestamp (with an offset) as {@link ValueChars} takes them. Duration, counter, and every
 * collection, tuple, UDT and vector decline (the reader does not try when the columns hold one).
 *
 * <p>Thread safety: not thread-safe; one per reader.
 */
final class CsvRecordDecoder {
    static final int TAKEN = 1, DECLINED = 0, END = -1;

    /** Kinds of column; a record with a column of another type is declined. */
    private static final int UNSUPPORTED = 0, TEXT = 1, ASCII = 2, BOOLEAN = 3, BLOB = 4, INT8 = 5, INT16 = 6, INT32 = 7,
            INT64 = 8, VARINT = 9, DECIMAL = 10, FLOAT = 11, DOUBLE = 12, TIMESTAMP = 13, DATE = 14, TIME = 15, UUID = 16,
            TIMEUUID = 17, INET = 18;
    /** {@link #peek} where the next char cannot be had: the window is full, or the input failed. */
    private static final int CANNOT = -2;
    private static final int EOF = -1;

    private final CsvChars input;
    private final OperationDecoder decoder;
    private final char delimiter;
    private final char quote;
    private final int escape;
    private final char[] nullMarker;
    private final boolean nullsUnset;
    private final long timestampMicros;
    /** The rows' TTL: the option's, else the table's default. */
    private final int ttl;
    private final int maxFieldChars;
    /** Per field: the column's slot in an InsertBuffer, its kind, whether it is in the primary key. */
    private final int[] slot;
    private final int[] kind;
    private final boolean[] key;
    private final boolean usable;

    /** The fields of the record being read, unescaped: field i is fieldChars[i == 0 ? 0 : fieldEnd[i - 1], fieldEnd[i]). */
    private char[] fieldChars = new char[256];
    private final int[] fieldEnd;
    /** The next char to read: an index into the window, whose start is input.pos (moved by a fill). */
    private int next;

    /** After {@link #take}: line ends passed in the blank lines before the record (whatever the outcome). */
    int linesBefore;
    /** After {@link #take}: chars skipped on the record's line before its first char, or, with no line end passed, in all. */
    int columnsBefore;
    /** After {@link #take} returned TAKEN: line ends passed from the record's start to the next record's first char. */
    int linesAfter;
    /** After {@link #take} returned TAKEN: chars before the next record's first char on its line (all passed, if no line end). */
    int columnsAfter;

    CsvRecordDecoder(CsvChars input, OperationDecoder decoder, CsvOptions options, ColumnMetadata[] columns, int maxFieldChars) {
        this.input = input;
        this.decoder = decoder;
        this.delimiter = options.delimiter;
        this.quote = options.quote;
        this.escape = options.escape;
        this.nullMarker = options.nullMarker.toCharArray();
        this.nullsUnset = options.nullsUnset;
        this.timestampMicros = options.timestampMicros;
        this.ttl = options.ttlSeconds == CsvOptions.TABLE_TTL ? decoder.schema().defaultTimeToLiveSeconds() : options.ttlSeconds;
        this.maxFieldChars = maxFieldChars;
        InsertBuffer layout = new InsertBuffer(decoder.schema());
        int n = columns.length;
        this.slot = new int[n];
        this.kind = new int[n];
        this.key = new boolean[n];
        this.fieldEnd = new int[n];
        boolean all = true;
        for (int i = 0; i < n; i++) {
            ColumnMetadata c = columns[i];
            slot[i] = layout.slotOf(c);
            kind[i] = c.isComplex() ? UNSUPPORTED : kindOf(c.type().kind());
            key[i] = c.role() == ColumnMetadata.Role.PARTITION_KEY || c.role() == ColumnMetadata.Role.CLUSTERING;
            all &= kind[i] != UNSUPPORTED;
        }
        this.usable = all;
    }

    private static int kindOf(CqlType.Kind k) {
        switch (k) {
            case TEXT: return TEXT;
            case ASCII: return ASCII;
            case BOOLEAN: return BOOLEAN;
            case BLOB: return BLOB;
            case TINYINT: return INT8;
            case SMALLINT: return INT16;
            case INT: return INT32;
            case BIGINT: return INT64;
            case VARINT: return VARINT;
            case DECIMAL: return DECIMAL;
            case FLOAT: return FLOAT;
            case DOUBLE: return DOUBLE;
            case TIMESTAMP: return TIMESTAMP;
            case DATE: return DATE;
            case TIME: return TIME;
            case UUID: return UUID;
            case TIMEUUID: return TIMEUUID;
            case INET: return INET;
            default: return UNSUPPORTED;
        }
    }

    /** Whether every column is of a type this decoder takes: if not, every record would be declined. */
    boolean usable() {
        return usable;
    }

    // ---------------------------------------------------------------------------------------
    // reading the window

    /** The char at {@link #next}, {@link #EOF}, or {@link #CANNOT}. */
    private int peek() {
        final CsvChars in = input;
        if (next < in.limit) return in.chars[next];
        return peekAfterFill();
    }

    private int peekAfterFill() {
        final CsvChars in = input;
        int ahead = next - in.pos;
        int r;
        try {
            r = in.fill();
        } catch (IOException e) {
            return CANNOT; // kept by the window: jackson meets it where it reads this far
        }
        next = in.pos + ahead;
        if (r > 0) return in.chars[next];
        return r < 0 ? EOF : CANNOT;
    }

    /**
     * Copies the run of chars from {@link #next} that need no decision, up to {@code stop} (the
     * delimiter, or the quote inside quotes), the escape, a line end or the end of the window, into
     * the field chars at {@code out}; returns the new end there. The char it stopped at is left for
     * the per-char steps, which alone fill the window, unescape and end fields.
     */
    private int plainRun(int out, char stop) {
        final char[] w = input.chars;
        final int limit = input.limit, escape = this.escape;
        final int from = next;
        int i = from;
        while (i < limit) {
            final char c = w[i];
            if (c == stop || c == '\n' || c == '\r' || c == escape) break;
            i++;
        }
        final int n = i - from;
        if (n == 0) return out;
        if (out + n > fieldChars.length) fieldChars = java.util.Arrays.copyOf(fieldChars, Math.max(out + n, 2 * fieldChars.length));
        System.arraycopy(w, from, fieldChars, out, n);
        next = i;
        return out + n;
    }

    private void append(int at, char c) {
        if (at == fieldChars.length) fieldChars = java.util.Arrays.copyOf(fieldChars, 2 * at);
        fieldChars[at] = c;
    }

    private static char unescaped(int c) {
        switch (c) {
            case '0': return '\0';
            case 'n': return '\n';
            case 'r': return '\r';
            case 't': return '\t';
            default: return (char) c;
        }
    }

    /**
     * Skips spaces and line ends from {@link #next}, counting into {@code linesBefore} or
     * {@code linesAfter} (per {@code before}); returns the char it stopped at, EOF, or CANNOT.
     */
    private int skipBlanks(boolean before) {
        int lines = 0, columns = 0;
        int c;
        while (true) {
            c = peek();
            if (c == ' ') {
                columns++;
                next++;
            } else if (c == '\n') {
                lines++;
                columns = 0;
                next++;
            } else if (c == '\r') {
                next++;
                int lf = peek();
                if (lf == CANNOT) {
                    next--; // stop before the CR: whether an LF follows it is not known
                    c = CANNOT;
                    break;
                }
                if (lf == '\n') next++;
                lines++;
                columns = 0;
            } else {
                break;
            }
        }
        if (before) {
            linesBefore = lines;
            columnsBefore = columns;
        } else {
            linesAfter += lines;
            columnsAfter = lines > 0 ? columns : columnsAfter + columns;
        }
        return c;
    }

    // ---------------------------------------------------------------------------------------
    // a record

    /**
     * Reads the next record into {@code into}: {@link #TAKEN} (the window then stands at the next
     * record's first char, or the end), {@link #END} (only blank lines were left), or {@link #DECLINED}
     * (the window stands at the record's first char: the blank lines before it are passed). See the
     * fields for the lines passed.
     */
    int take(InsertBuffer into) {
        final CsvChars in = input;
        next = in.pos;
        linesAfter = 0;
        columnsAfter = 0;
        int first = skipBlanks(true);
        in.pos = next; // blank lines are no record: passed whatever comes next
        if (first == EOF) return END;
        if (first == CANNOT) return DECLINED;
        if (!fields() || !values(into)) return DECLINED;
        // the line end, then the blank lines up to the next record, as jackson reads ahead after a record
        int c = peek();
        if (c == '\r' || c == '\n') {
            next++;
            linesAfter = 1;
            if (c == '\r') {
                int lf = peek();
                if (lf == CANNOT) return DECLINED;
                if (lf == '\n') next++;
            }
            if (skipBlanks(false) == CANNOT) return DECLINED;
        } else if (c != EOF) {
            return DECLINED;
        }
        in.pos = next;
        return TAKEN;
    }

    /** What {@link #endOf} finds. */
    private static final int NOT_AN_END = 0, ENDS_RECORD = 1, ENDS_FIELD = 2;

    /** Whether char {@code c} (just peeked) ends a field: the line end or the input's (not consumed), the delimiter (consumed). */
    private int endOf(int c) {
        if (c == EOF || c == '\r' || c == '\n') return ENDS_RECORD;
        if (c != delimiter) return NOT_AN_END;
        next++;
        return ENDS_FIELD;
    }

    /** The char after an escape, unescaped and consumed; -1 (decline) where the line or the input ends instead. */
    private int escaped() {
        int c = peek();
        if (c < 0 || c == '\r' || c == '\n') return -1;
        next++;
        return unescaped(c);
    }

    /** Tokenizes the record at {@link #next} into the fields; false to decline. Stops at its line end (or the end). */
    private boolean fields() {
        final int columns = fieldEnd.length;
        int out = 0, n = 0;
        while (true) {
            if (n == columns) return false; // more fields than columns: the value model's message
            final int start = out;
            int c = peek(), end;
            if (c == quote) {
                next++;
                while (true) {
                    out = plainRun(out, quote);
                    c = peek();
                    if (c < 0 || c == '\r' || c == '\n') return false; // no closing quote on this line
                    next++;
                    if (c == quote) {
                        if (peek() != quote) break;
                        next++; // a doubled quote
                    } else if (c == escape && (c = escaped()) < 0) {
                        return false;
                    }
                    append(out++, (char) c);
                }
                // after the closing quote: blanks up to the delimiter or the line end; anything else is malformed
                while ((end = endOf(c = peek())) == NOT_AN_END) {
                    if (c == CANNOT || c > ' ') return false;
                    next++;
                }
            } else {
                out = plainRun(out, delimiter);
                c = peek();
                while ((end = endOf(c)) == NOT_AN_END) {
                    if (c == CANNOT) return false;
                    next++;
                    if (c == escape && (c = escaped()) < 0) return false;
                    append(out++, (char) c);
                    out = plainRun(out, delimiter);
                    c = peek();
                }
            }
            if (out - start > maxFieldChars) return false;
            fieldEnd[n++] = out;
            if (end == ENDS_RECORD) return n == columns;
        }
    }

    /** The fields into {@code into}'s slots, then the insert's timestamp and TTL; false to decline. */
    private boolean values(InsertBuffer into) {
        into.clear();
        final char[] f = fieldChars;
        for (int i = 0, from = 0; i < fieldEnd.length; from = fieldEnd[i++]) {
            if (!value(into, i, f, from, fieldEnd[i])) return false;
        }
        return InsertDecoder.finish(into, decoder, timestampMicros, ttl);
    }

    private boolean isNullMarker(char[] f, int from, int to) {
        final char[] m = nullMarker;
        if (to - from != m.length) return false;
        for (int i = 0; i < m.length; i++) {
            if (f[from + i] != m[i]) return false;
        }
        return true;
    }

    /** Field {@code i}, {@code f[from, to)}, into its column's slot; false to decline. */
    private boolean value(InsertBuffer into, int i, char[] f, int from, int to) {
        final int k = kind[i];
        final int s = slot[i];
        if (isNullMarker(f, from, to)) return putNull(into, i);
        if (from == to) {
            // another marker is in use: COPY FROM converts "" where it can, else inserts null
            switch (k) {
                case TEXT:
                case ASCII:
                case BLOB:
                    into.set(s, into.reserve(0), 0);
                    return true;
                case BOOLEAN: {
                    int at = into.reserve(1);
                    into.bytes()[at] = 0; // false
                    into.set(s, at, 1);
                    return true;
                }
                default:
                    return putNull(into, i);
            }
        }
        if (k == TEXT || k == ASCII) return InsertDecoder.putText(into, s, f, from, to, k == ASCII);
        // every other type: its literal, trimmed of whitespace (String.strip), in printable ASCII
        while (from < to && isAsciiWhitespace(f[from])) from++;
        while (to > from && isAsciiWhitespace(f[to - 1])) to--;
        if (from == to) return false; // "only spaces": the value model's message
        for (int x = from; x < to; x++) {
            if (f[x] < ' ' || f[x] > '~') return false;
        }
        if (k == BLOB && to - from >= 2 && f[from] == '0' && f[from + 1] == 'X') f[from + 1] = 'x'; // as CsvReader.value reads it
        final int at = into.reserve(k == BLOB ? (to - from) / 2 : ValueChars.MAX_FIXED_BYTES);
        final byte[] b = into.bytes();
        int n;
        switch (k) {
            case BOOLEAN: n = bool(f, from, to, b, at); break;
            case BLOB: n = ValueChars.blob(f, from, to, b, at); break;
            case INT8: n = ValueChars.integer(f, from, to, Byte.MIN_VALUE, Byte.MAX_VALUE, 1, b, at); break;
            case INT16: n = ValueChars.integer(f, from, to, Short.MIN_VALUE, Short.MAX_VALUE, 2, b, at); break;
            case INT32: n = ValueChars.integer(f, from, to, Integer.MIN_VALUE, Integer.MAX_VALUE, 4, b, at); break;
            case INT64: n = ValueChars.integer(f, from, to, Long.MIN_VALUE, Long.MAX_VALUE, 8, b, at); break;
            case VARINT: n = ValueChars.varint(f, from, to, b, at); break;
            case DECIMAL: n = ValueChars.decimal(f, from, to, b, at); break;
            case FLOAT: {
                float x = ValueChars.exactFloat(f, from, to);
                n = Float.isNaN(x) ? ValueChars.DECLINED : ValueChars.bigEndian(Float.floatToRawIntBits(x), 4, b, at);
                break;
            }
            case DOUBLE: {
                double x = ValueChars.exactDouble(f, from, to);
                n = Double.isNaN(x) ? ValueChars.DECLINED : ValueChars.bigEndian(Double.doubleToRawLongBits(x), 8, b, at);
                break;
            }
            case TIMESTAMP: n = ValueChars.timestamp(f, from, to, b, at); break;
            case DATE: n = ValueChars.date(f, from, to, b, at); break;
            case TIME: n = ValueChars.time(f, from, to, b, at); break;
            case UUID: n = ValueChars.uuid(f, from, to, b, at); break;
            case TIMEUUID: {
                n = ValueChars.uuid(f, from, to, b, at);
                if (n > 0 && ValueChars.uuidVersion(b, at) != 1) n = ValueChars.DECLINED;
                break;
            }
            case INET: n = ValueChars.inet(f, from, to, b, at); break;
            default: n = ValueChars.DECLINED;
        }
        if (n < 0) return false;
        into.trim(at + n);
        into.set(s, at, n);
        return true;
    }

    /** A null field: declined in the primary key (the value model words it); nothing with nulls unset; else a tombstone. */
    private boolean putNull(InsertBuffer into, int i) {
        if (key[i]) return false;
        if (!nullsUnset) into.set(slot[i], 0, InsertBuffer.NULL);
        return true;
    }

    /** ValueCodec's boolean text: true or false in any case (ASCII here; Unicode case folding is the value model's). */
    private static int bool(char[] f, int from, int to, byte[] out, int at) {
        int n = to - from;
        if (n == 4 && equalsIgnoreAsciiCase(f, from, "true")) return ValueChars.bigEndian(1, 1, out, at);
        if (n == 5 && equalsIgnoreAsciiCase(f, from, "false")) return ValueChars.bigEndian(0, 1, out, at);
        return ValueChars.DECLINED;
    }

    private static boolean equalsIgnoreAsciiCase(char[] f, int from, String lower) {
        for (int i = 0; i < lower.length(); i++) {
            if ((f[from + i] | 0x20) != lower.charAt(i)) return false;
        }
        return true;
    }

    /** The ASCII chars String.strip drops (Character.isWhitespace): tab, LF, VT, FF, CR, the four separators, space. */
    private static boolean isAsciiWhitespace(char c) {
        return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20);
    }
}

package dev.flushline.ops;

import dev.flushline.data.InsertBuffer;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.TableSchema;
import dev.flushline.schema.ValueChars;

import java.nio.charset.StandardCharsets;

/**
 * The first of {@link OperationReader}'s paths: the plainest lines of the commonest operation,
 * scanned byte by byte straight into an {@link InsertBuffer}, without a tokenizer in between.
 * A bulk file is millions of lines of one shape ({@code {"op":"insert","timestamp":T,"values":{...}}}),
 * and on such lines jackson-core's token machinery (a state per token, the name table, a char
 * buffer per string) costs more than the bytes do.
 *
 * <p>It takes a line or declines it, never refuses it. It takes only a strict subset of JSON and of
 * {@link InsertDecoder}'s inserts, and declines everything else to that decoder (and so to the
 * value model, which words every message):
 * <pre>
 *   line    = ws '{' ws member (ws ',' ws member)* ws '}' blank*
 *   member  = "op" ':' "insert"  |  "timestamp" ':' int  |  "ttl" ':' int  |  "values" ':' values
 *   values  = '{' ws '}'  |  '{' ws name ws ':' ws value (ws ',' ws name ws ':' ws value)* ws '}'
 *   value   = int | string | true | false | null          (by the column's kind, as InsertDecoder)
 *   int     = '-'? ('0' | [1-9][0-9]*)                    (at most 19 digits, within a long,
 *                                                          not followed by '.', 'e' or 'E')
 *   string  = '"' (byte other than '"', '\' or a control character | '\' one of " \ / b f n r t)* '"'
 *   name    = '"' (byte other than '"', '\' or a control character)* '"'
 *   ws      = (space | tab | CR)*     blank = space | tab | CR
 * </pre>
 * Every such line is valid JSON with the one meaning jackson gives it, so what is taken is exactly
 * what {@link InsertDecoder} takes from jackson's tokens (the same kinds, ranges and checks, the same
 * {@link InsertDecoder#finishInsert}); it is checked against the value model on random and broken lines
 * by {@code InsertScannerTest}. Declined here: {@code \}{@code u} escapes (surrogates need the
 * pairing check), numbers with a fraction or exponent, names with escapes, anything unknown or
 * repeated.
 *
 * <p>REQUIRES: the line's bytes are strict UTF-8 (the reader checks every line before any path
 * sees it), so a string's bytes without escapes are the UTF-8 of its value as they are.
 *
 * <p>Thread safety: not thread-safe; one per reader.
 */
final class InsertScanner {
    /** The operation's names with their closing quote: matched in place, a name ends where its quote does. */
    private static final byte[] OP = ascii("op\""), TIMESTAMP = ascii("timestamp\""), TTL = ascii("ttl\""),
            VALUES = ascii("values\""), INSERT = ascii("\"insert\""), TRUE = ascii("true"), FALSE = ascii("false"),
            NULL = ascii("null");
    /** Names remembered by their position in "values": a file names its columns in the same order on every line. */
    private static final int NAME_CACHE = 64;
    /**
     * Per integer kind (InsertDecoder's INT8..INT64, which are 1..4): its range and width. A table, not a
     * case each, keeps {@link #value} small enough for the compiler to inline.
     */
    private static final long[] INT_MIN = {0, Byte.MIN_VALUE, Short.MIN_VALUE, Integer.MIN_VALUE, Long.MIN_VALUE};
    private static final long[] INT_MAX = {0, Byte.MAX_VALUE, Short.MAX_VALUE, Integer.MAX_VALUE, Long.MAX_VALUE};
    private static final int[] INT_BYTES = {0, 1, 2, 4, 8};
    /** What follows a member: {@link #afterMember}. */
    private static final int MORE = 1, CLOSED = 0, DECLINED = -1;
    /** Decimal digits that always fit in a long (10^18 - 1 &lt; 2^63). */
    private static final int MAX_SAFE_DIGITS = 18;

    private final OperationDecoder decoder;
    private final TableSchema schema;
    private final int staticBase;
    /** Per slot of an {@link InsertBuffer} of the table: the kind of its column ({@link InsertDecoder}'s kinds). */
    private final int[] kind;
    /** The slot named at each position of "values" last time, by the name's bytes and its closing quote; null = not seen yet. */
    private final byte[][] nameAt = new byte[NAME_CACHE][];
    private final int[] slotAt = new int[NAME_CACHE];

    // The line being scanned: b[p, end), and the buffer it goes into.
    private byte[] b;
    private int p;
    private int end;
    private InsertBuffer buffer;
    /** The value of the last {@link #integer} that returned true. */
    private long number;

    InsertScanner(OperationDecoder decoder, int[] kind) {
        this.decoder = decoder;
        this.schema = decoder.schema();
        this.kind = kind;
        this.staticBase = schema.partitionKeyColumns().length + schema.clusteringColumns().length;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Decodes {@code line[start, end)} into {@code into} (a buffer of this scanner's table) and returns
     * true, or returns false if the line is not one this scanner takes ({@code into} then holds anything).
     */
    boolean decode(byte[] line, int start, int end, InsertBuffer into) {
        this.b = line;
        this.p = start;
        this.end = end;
        this.buffer = into;
        skipBlanks();
        if (!take('{')) return false;
        into.clear();
        boolean haveOp = false, haveTimestamp = false, haveTtl = false, haveValues = false;
        long timestamp = 0, ttlGiven = 0;
        skipBlanks();
        while (true) {
            if (!take('"')) return false;
            // Any other name, or one with an escape, is not the scanner's: no constant matches it.
            final byte[] name = takes(VALUES) ? VALUES : takes(OP) ? OP : takes(TIMESTAMP) ? TIMESTAMP : takes(TTL) ? TTL : null;
            if (name == null || !colon()) return false;
            if (name == VALUES) {
                if (haveValues || !take('{') || !values()) return false;
                haveValues = true;
            } else if (name == OP) {
                if (haveOp || !takes(INSERT)) return false;
                haveOp = true;
            } else if (name == TIMESTAMP) {
                if (haveTimestamp || !integer()) return false;
                timestamp = number;
                haveTimestamp = true;
            } else {
                if (haveTtl || !integer()) return false;
                ttlGiven = number;
                haveTtl = true;
            }
            final int next = afterMember();
            if (next == CLOSED) break;
            if (next != MORE) return false;
        }
        skipBlanks();
        if (p != end) return false;
        if (!haveOp || !haveTimestamp || !haveValues) return false;
        return InsertDecoder.finishInsert(into, decoder, timestamp, haveTtl, ttlGiven);
    }

    /** The members of "values", into their slots; false to decline. REQUIRES: p is past its '{'. */
    private boolean values() {
        skipBlanks();
        if (p < end && b[p] == '}') {
            p++;
            return true;
        }
        int ordinal = 0;
        while (true) {
            if (!take('"')) return false;
            final int slot = slotOfName(ordinal++);
            if (slot < 0 || buffer.length(slot) != InsertBuffer.ABSENT) return false; // unknown, or a duplicate
            if (!colon() || !value(slot)) return false;
            final int next = afterMember();
            if (next == CLOSED) return true;
            if (next != MORE) return false;
        }
    }

    /** The ':' between a member's name and its value, with the blanks around it; false if it is not there. */
    private boolean colon() {
        skipBlanks();
        if (!take(':')) return false;
        skipBlanks();
        return true;
    }

    /**
     * After a member's value, the same in the operation and in "values": a ',' and the blanks after it
     * ({@link #MORE}), the object's '}' ({@link #CLOSED}), or anything else ({@link #DECLINED}).
     */
    private int afterMember() {
        skipBlanks();
        if (p >= end) return DECLINED;
        final byte c = b[p++];
        if (c == '}') return CLOSED;
        if (c != ',') return DECLINED;
        skipBlanks();
        return MORE;
    }

    /**
     * The slot of the column whose name starts at p (past its opening quote), the name at {@code ordinal}
     * of "values", moving p past its closing quote; -1 if there is no such column or the name has an escape.
     */
    private int slotOfName(int ordinal) {
        if (ordinal < NAME_CACHE) {
            final byte[] known = nameAt[ordinal];
            if (known != null && takes(known)) return slotAt[ordinal];
        }
        final int name = p;
        final int nameEnd = plainStringEnd();
        if (nameEnd < 0) return -1;
        // The bytes are strict UTF-8 without escapes: the name as it is.
        ColumnMetadata c = schema.column(new String(b, name, nameEnd - name, StandardCharsets.UTF_8));
        int slot = c == null ? -1 : buffer.slotOf(c);
        if (ordinal < NAME_CACHE) {
            nameAt[ordinal] = java.util.Arrays.copyOfRange(b, name, nameEnd + 1); // with its closing quote
            slotAt[ordinal] = slot;
        }
        return slot;
    }

    private boolean value(int slot) {
        final int k = kind[slot];
        if (k == InsertDecoder.UNSUPPORTED || p >= end) return false;
        final byte c = b[p];
        if (c == 'n') {
            if (slot < staticBase || !takes(NULL)) return false; // null in the primary key: refused by the value model
            buffer.set(slot, 0, InsertBuffer.NULL);
            return true;
        }
        if (k <= InsertDecoder.INT64) return integer(slot, INT_MIN[k], INT_MAX[k], INT_BYTES[k]); // INT8..INT64
        switch (k) {
            // An integer literal converts once, as the value model's BigInteger floatValue and doubleValue round.
            case InsertDecoder.FLOAT32: return integer() && putLong(slot, Float.floatToRawIntBits((float) number), 4);
            case InsertDecoder.FLOAT64: return integer() && putLong(slot, Double.doubleToRawLongBits((double) number), 8);
            case InsertDecoder.TEXT: return c == '"' && string(slot, false);
            case InsertDecoder.ASCII: return c == '"' && string(slot, true);
            case InsertDecoder.BOOLEAN:
                if (c == 't') return takes(TRUE) && putLong(slot, 1, 1);
                return c == 'f' && takes(FALSE) && putLong(slot, 0, 1);
            default: return false;
        }
    }

    private boolean integer(int slot, long min, long max, int bytes) {
        return integer() && number >= min && number <= max && putLong(slot, number, bytes);
    }

    /**
     * A JSON integer at p into {@link #number}: false (declined) for anything else, for more than 19
     * digits or a value past a long, and for a number that goes on with a fraction or an exponent.
     * Accumulated negative, as Long.parseLong does, so that Long.MIN_VALUE is reached without overflow.
     */
    private boolean integer() {
        final byte[] b = this.b;
        int i = p;
        final boolean negative = i < end && b[i] == '-';
        if (negative) i++;
        final int first = i;
        // Up to 18 digits cannot pass a long; a 19th is checked against its bound.
        final int fast = Math.min(end, first + MAX_SAFE_DIGITS);
        long x = 0;
        while (i < fast) {
            final int d = b[i] - '0';
            if (d < 0 || d > 9) break;
            x = x * 10 + d;
            i++;
        }
        final int digits = i - first;
        if (digits == 0 || (digits > 1 && b[first] == '0')) return false; // no digit, or a leading zero (not JSON)
        if (i < end) {
            int c = b[i];
            if (i == fast && c >= '0' && c <= '9') {
                final int d = c - '0';
                // |value| = 10x + d, at most 2^63 - 1, or 2^63 when negative (Long.MIN_VALUE).
                if (x > Long.MAX_VALUE / 10 || (x == Long.MAX_VALUE / 10 && d > (negative ? 8 : 7))) return false;
                x = x * 10 + d; // wraps to Long.MIN_VALUE for -9223372036854775808, whose negation is itself
                i++;
                if (i < end) c = b[i];
                if (i < end && c >= '0' && c <= '9') return false; // twenty digits or more
            }
            if (i < end && (c == '.' || c == 'e' || c == 'E')) return false; // a fraction or exponent: not an integer
        }
        number = negative ? -x : x;
        p = i;
        return true;
    }

    /** {@code x}'s low {@code bytes} bytes, big-endian, as the slot's value. */
    private boolean putLong(int slot, long x, int bytes) {
        final InsertBuffer into = buffer;
        final int at = into.reserve(bytes);
        into.set(slot, at, ValueChars.bigEndian(x, bytes, into.bytes(), at));
        return true;
    }

    /**
     * The string at p (on its opening quote) as the slot's bytes: as they are where it has no escape,
     * else with its short escapes decoded; declines a {@code \}{@code u} escape, a raw control
     * character, a missing closing quote, and (for ascii) a byte past 0x7F.
     */
    private boolean string(int slot, boolean ascii) {
        final byte[] b = this.b;
        final int end = this.end;
        final int start = ++p;
        int i = start, escapes = 0;
        long any = 0; // every byte taken, or-ed: a byte past 0x7F sets a high bit
        while (true) {
            if (i + Long.BYTES <= end) {
                // Eight bytes at a time up to the first quote, backslash or control character.
                final long w = ByteWords.word(b, i);
                final long stop = ByteWords.bytesEqualTo(w, ByteWords.QUOTES) | ByteWords.bytesEqualTo(w, ByteWords.BACKSLASHES)
                        | ByteWords.bytesBelow(w, ByteWords.SPACES);
                if (stop == 0) {
                    any |= w;
                    i += Long.BYTES;
                    continue;
                }
                final int k = ByteWords.firstMarked(stop);
                any |= w & ((1L << (8 * k)) - 1); // the bytes before it
                i += k;
            } else if (i >= end) {
                return false; // no closing quote on the line
            }
            final int c = b[i];
            if (c == '"') break;
            if (c == '\\') {
                if (i + 1 >= end || unescaped(b[i + 1]) < 0) return false;
                escapes++;
                i += 2;
                continue;
            }
            if (c >= 0 && c < 0x20) return false;
            any |= c;
            i++;
        }
        if (ascii && (any & ByteWords.HIGH_BITS) != 0) return false;
        put(slot, start, i, escapes);
        p = i + 1;
        return true;
    }

    /** The string {@code b[from, to)} holding {@code escapes} checked escapes, decoded into the slot. */
    private void put(int slot, int from, int to, int escapes) {
        final InsertBuffer into = buffer;
        final int n = to - from - escapes; // each escape is two bytes for one
        final int at = into.reserve(n);
        final byte[] out = into.bytes();
        if (escapes == 0) {
            System.arraycopy(b, from, out, at, n);
        } else {
            unescape(b, from, to, out, at);
        }
        into.set(slot, at, n);
    }

    /**
     * {@code b[from, to)}, whose escapes were checked, into {@code out} at {@code at} with each escape
     * decoded. Its own method, as {@link #put} is, so that {@link #string} stays small enough for the
     * compiler to inline where it is called for every value.
     */
    private static void unescape(byte[] b, int from, int to, byte[] out, int at) {
        int o = at;
        for (int j = from; j < to; j++) {
            final byte c = b[j];
            out[o++] = c == '\\' ? unescaped(b[++j]) : c;
        }
    }

    /** The byte a short JSON escape stands for, {@code \} and then {@code c}; -1 for a backslash-u and anything else. */
    private static byte unescaped(byte c) {
        switch (c) {
            case '"': return '"';
            case '\\': return '\\';
            case '/': return '/';
            case 'b': return '\b';
            case 'f': return '\f';
            case 'n': return '\n';
            case 'r': return '\r';
            case 't': return '\t';
            default: return -1;
        }
    }

    /**
     * Past the name string whose first byte is at p: returns where its closing quote is and moves p past
     * it, or -1 if it has an escape or a raw control character or does not end on the line.
     */
    private int plainStringEnd() {
        final byte[] b = this.b;
        for (int i = p; i < end; i++) {
            final int c = b[i];
            if (c == '"') {
                p = i + 1;
                return i;
            }
            if (c == '\\' || (c >= 0 && c < 0x20)) return -1;
        }
        return -1;
    }

    /**
     * Whether {@code word} is at p; if so, moves p past it. For the literals, jackson's check that no
     * name character follows is the caller's: only blanks and then ',' or '}' may.
     */
    private boolean takes(byte[] word) {
        final int n = word.length;
        if (end - p < n) return false;
        final byte[] b = this.b;
        final int at = p;
        for (int i = 0; i < n; i++) {
            if (b[at + i] != word[i]) return false;
        }
        p = at + n;
        return true;
    }

    private boolean take(char c) {
        if (p < end && b[p] == c) {
            p++;
            return true;
        }
        return false;
    }

    private void skipBlanks() {
        final byte[] b = this.b;
        int i = p;
        while (i < end) {
            final byte c = b[i];
            if (c != ' ' && c != '\t' && c != '\r') break;
            i++;
        }
        p = i;
    }
}

package dev.flushline.ops;

import dev.flushline.schema.ValueText;
import dev.flushline.schema.ValueCodec;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict RFC 8259 JSON parser for one line of an operations file. {@link OperationReader}
 * parses with jackson-core (faster from file bytes to mutations) and calls this parser only on a
 * line it refuses, for the message: the wording and the column of the first error. It stays
 * public for callers that hold one operation as a String. It produces the value model
 * {@code ValueCodec} takes: {@code String}, {@code BigDecimal} for every number (so no digit is
 * lost), {@code Boolean}, {@code List<Object>}, {@code Map<String, Object>} in input order, and
 * {@code null} for JSON null.
 *
 * <p>Refused, with the 1-based column of the offending character: anything outside the grammar
 * (single quotes, trailing commas, comments, NaN, leading zeros, unescaped control characters,
 * lone surrogate escapes), a duplicate key in an object (Cassandra's Jackson would keep the last
 * one silently; a load tool should not guess), nesting deeper than {@link #MAX_DEPTH}, a number
 * longer than {@link ValueCodec#MAX_NUMBER_CHARS} (BigDecimal parses in quadratic time: a
 * million digits would take half a minute), and
 * anything but whitespace after the value.
 *
 * <p>Thread safety: not thread-safe; one instance per reader, reused line after line.
 */
public final class JsonParser {
    /** Far deeper than any operation needs (map of list is depth 4); bounds the recursion. */
    public static final int MAX_DEPTH = 64;

    private String s;
    private int pos;
    private int depth;
    private final StringBuilder sb = new StringBuilder(64);

    /** @throws JsonSyntaxException naming the column (1-based) where the text stops being JSON. */
    public Object parse(String text) throws JsonSyntaxException {
        s = text;
        pos = 0;
        depth = 0;
        skipWhitespace();
        Object v = value();
        skipWhitespace();
        if (pos < s.length()) {
            throw error("unexpected " + describe(pos) + " after the end of the JSON value");
        }
        s = null;
        return v;
    }

    private Object value() throws JsonSyntaxException {
        if (pos >= s.length()) throw error("unexpected end of line, expected a value");
        char c = s.charAt(pos);
        switch (c) {
            case '{': return object();
            case '[': return array();
            case '"': return string();
            case 't': literal("true"); return Boolean.TRUE;
            case 'f': literal("false"); return Boolean.FALSE;
            case 'n': literal("null"); return null;
            default:
                if (c == '-' || (c >= '0' && c <= '9')) return number();
                throw error("unexpected " + describe(pos) + ", expected a value");
        }
    }

    private Map<String, Object> object() throws JsonSyntaxException {
        enter();
        pos++; // '{'
        Map<String, Object> m = new LinkedHashMap<>();
        skipWhitespace();
        if (peek() == '}') {
            pos++;
            depth--;
            return m;
        }
        while (true) {
            skipWhitespace();
            if (peek() != '"') throw error("unexpected " + describe(pos) + ", expected a string key");
            int keyColumn = pos + 1;
            String key = string();
            skipWhitespace();
            if (peek() != ':') throw error("unexpected " + describe(pos) + ", expected ':' after a key");
            pos++;
            skipWhitespace();
            Object v = value();
            if (m.containsKey(key)) {
                throw new JsonSyntaxException(keyColumn, "duplicate key " + ValueText.display(key));
            }
            m.put(key, v);
            skipWhitespace();
            char c = peek();
            if (c == ',') {
                pos++;
            } else if (c == '}') {
                pos++;
                depth--;
                return m;
            } else {
                throw error("unexpected " + describe(pos) + ", expected ',' or '}'");
            }
        }
    }

    private List<Object> array() throws JsonSyntaxException {
        enter();
        pos++; // '['
        List<Object> list = new ArrayList<>();
        skipWhitespace();
        if (peek() == ']') {
            pos++;
            depth--;
            return list;
        }
        while (true) {
            skipWhitespace();
            list.add(value());
            skipWhitespace();
            char c = peek();
            if (c == ',') {
                pos++;
            } else if (c == ']') {
                pos++;
                depth--;
                return list;
            } else {
                throw error("unexpected " + describe(pos) + ", expected ',' or ']'");
            }
        }
    }

    private void enter() throws JsonSyntaxException {
        if (++depth > MAX_DEPTH) throw error("nested deeper than " + MAX_DEPTH + " levels");
    }

    private String string() throws JsonSyntaxException {
        int start = ++pos; // past the opening quote
        // fast path: no escapes
        while (pos < s.length()) {
            char c = s.charAt(pos);
            if (c == '"') return s.substring(start, pos++);
            if (c == '\\' || c < 0x20) break;
            pos++;
        }
        sb.setLength(0);
        sb.append(s, start, pos);
        while (true) {
            if (pos >= s.length()) throw new JsonSyntaxException(start, "unterminated string");
            char c = s.charAt(pos);
            if (c == '"') {
                pos++;
                return sb.toString();
            }
            if (c < 0x20) throw error("unescaped control character U+" + hex4(c) + " in a string");
            if (c != '\\') {
                sb.append(c);
                pos++;
                continue;
            }
            int escapeAt = pos;
            pos++;
            if (pos >= s.length()) throw new JsonSyntaxException(start, "unterminated string");
            char e = s.charAt(pos++);
            switch (e) {
                case '"': sb.append('"'); break;
                case '\\': sb.append('\\'); break;
                case '/': sb.append('/'); break;
                case 'b': sb.append('\b'); break;
                case 'f': sb.append('\f'); break;
                case 'n': sb.append('\n'); break;
                case 'r': sb.append('\r'); break;
                case 't': sb.append('\t'); break;
                case 'u': {
                    char u = hexEscape(escapeAt);
                    if (Character.isHighSurrogate(u)) {
                        if (pos + 1 < s.length() && s.charAt(pos) == '\\' && s.charAt(pos + 1) == 'u') {
                            int lowAt = pos;
                            pos += 2; // past the "\\u" of the low surrogate, as hexEscape requires
                            char low = hexEscape(lowAt);
                            if (!Character.isLowSurrogate(low)) {
                                throw new JsonSyntaxException(lowAt + 1, "\\u" + hex4(u) + " is not followed by a low surrogate");
                            }
                            sb.append(u).append(low);
                        } else {
                            throw new JsonSyntaxException(escapeAt + 1, "lone surrogate \\u" + hex4(u));
                        }
                    } else if (Character.isLowSurrogate(u)) {
                        throw new JsonSyntaxException(escapeAt + 1, "lone surrogate \\u" + hex4(u));
                    } else {
                        sb.append(u);
                    }
                    break;
                }
                default:
                    throw new JsonSyntaxException(escapeAt + 1, "invalid escape \\" + e);
            }
        }
    }

    /** Reads the 4 hex digits after "\\u"; REQUIRES: pos is just past the 'u'. */
    private char hexEscape(int escapeAt) throws JsonSyntaxException {
        if (pos + 4 > s.length()) throw new JsonSyntaxException(escapeAt + 1, "\\u needs 4 hex digits");
        int v = 0;
        for (int i = 0; i < 4; i++) {
            int d = Character.digit(s.charAt(pos + i), 16);
            if (d < 0) throw new JsonSyntaxException(escapeAt + 1, "\\u needs 4 hex digits");
            v = (v << 4) | d;
        }
        pos += 4;
        return (char) v;
    }

    private boolean fractionOrExponent(int start, int end) {
        for (int i = start; i < end; i++) {
            char c = s.charAt(i);
            if (c == '.' || c == 'e' || c == 'E') return true;
        }
        return false;
    }

    private BigDecimal number() throws JsonSyntaxException {
        int start = pos;
        if (peek() == '-') pos++;
        char c = peek();
        if (c == '0') {
            pos++;
            if (isDigit(peek())) throw new JsonSyntaxException(pos, "leading zero in a number"); // at the zero
        } else if (isDigit(c)) {
            while (isDigit(peek())) pos++;
        } else {
            throw error("unexpected " + describe(pos) + ", expected a digit");
        }
        if (peek() == '.') {
            pos++;
            if (!isDigit(peek())) throw error("unexpected " + describe(pos) + ", expected a digit after '.'");
            while (isDigit(peek())) pos++;
        }
        c = peek();
        if (c == 'e' || c == 'E') {
            pos++;
            c = peek();
            if (c == '+' || c == '-') pos++;
            if (!isDigit(peek())) throw error("unexpected " + describe(pos) + ", expected a digit in the exponent");
            while (isDigit(peek())) pos++;
        }
        if (pos - start > ValueCodec.MAX_NUMBER_CHARS) {
            throw new JsonSyntaxException(start + 1, "number of " + (pos - start) + " chars, longer than the "
                    + ValueCodec.MAX_NUMBER_CHARS + " this reader takes");
        }
        try {
            BigDecimal d = new BigDecimal(s.substring(start, pos));
            if (d.signum() == 0 && s.charAt(start) == '-' && fractionOrExponent(start, pos)) {
                return new ValueCodec.NegativeZero(d.scale()); // -0.0 keeps its sign for float/double
            }
            return d;
        } catch (NumberFormatException | ArithmeticException e) {
            // only an exponent beyond int range gets here
            throw new JsonSyntaxException(start + 1, "number out of range: " + ValueText.cut(s.substring(start, pos)));
        }
    }

    private void literal(String word) throws JsonSyntaxException {
        if (!s.startsWith(word, pos)) throw error("unexpected " + describe(pos) + ", expected a value");
        pos += word.length();
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /** The character at pos, or 0 at the end of the line (never valid where peek() is tested). */
    private char peek() {
        return pos < s.length() ? s.charAt(pos) : 0;
    }

    private void skipWhitespace() {
        while (pos < s.length()) {
            char c = s.charAt(pos);
            if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return;
            pos++;
        }
    }

    private String describe(int at) {
        if (at >= s.length()) return "end of line";
        char c = s.charAt(at);
        if (c < 0x20 || c == 0x7F) return "character U+" + hex4(c);
        return "'" + c + "'";
    }

    private static String hex4(char c) {
        String h = Integer.toHexString(c).toUpperCase(java.util.Locale.ROOT);
        return "0000".substring(h.length()) + h;
    }

    private JsonSyntaxException error(String message) {
        return new JsonSyntaxException(pos + 1, message);
    }
}

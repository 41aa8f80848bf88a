package dev.flushline.schema;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Strict JSON text (RFC 8259) to the value model {@link ValueCodec} takes: String, BigDecimal
 * (a {@link ValueCodec.NegativeZero} for -0.0), Boolean, List, Map in input order, null.
 *
 * <p>Needed below the operations reader for one case only: a map whose key type is not native
 * (a frozen collection, a tuple, a UDT, a vector). A JSON object's keys are strings, so such a key
 * is written as JSON text inside the key string, e.g. {@code {"[1,2]": "v"}} for a
 * {@code map<frozen<list<int>>, text>}, and Cassandra's {@code fromJSONObject} decodes it the
 * same way. Refused: anything outside the grammar, duplicate object keys, nesting deeper than
 * {@link #MAX_DEPTH}, numbers longer than {@link ValueCodec#MAX_NUMBER_CHARS} chars.
 *
 * <p>Thread safety: stateless; each call parses with its own state.
 */
final class JsonText {
    static final int MAX_DEPTH = 64;

    private final String s;
    private int pos;
    private int depth;

    private JsonText(String s) {
        this.s = s;
    }

    /** @throws ValueException naming the 1-based column where the text stops being JSON. */
    static Object parse(String text) {
        JsonText p = new JsonText(text);
        p.space();
        Object v = p.value();
        p.space();
        if (p.pos < text.length()) throw p.error("unexpected text after the JSON value");
        return v;
    }

    private Object value() {
        if (pos >= s.length()) throw error("expected a value");
        char c = s.charAt(pos);
        switch (c) {
            case '{': return object();
            case '[': return array();
            case '"': return string();
            case 't': return word("true", Boolean.TRUE);
            case 'f': return word("false", Boolean.FALSE);
            case 'n': return word("null", null);
            default:
                if (c == '-' || (c >= '0' && c <= '9')) return number();
                throw error("expected a value");
        }
    }

    private Object word(String w, Object v) {
        if (!s.startsWith(w, pos)) throw error("expected a value");
        pos += w.length();
        return v;
    }

    private void enter() {
        if (++depth > MAX_DEPTH) throw error("nested deeper than " + MAX_DEPTH + " levels");
    }

    private Map<String, Object> object() {
        enter();
        pos++;
        Map<String, Object> m = new LinkedHashMap<>();
        space();
        if (peek() == '}') {
            pos++;
            depth--;
            return m;
        }
        while (true) {
            space();
            if (peek() != '"') throw error("expected a string key");
            int at = pos;
            String k = string();
            space();
            if (peek() != ':') throw error("expected ':'");
            pos++;
            space();
            Object v = value();
            if (m.containsKey(k)) {
                pos = at;
                throw error("duplicate key " + ValueText.display(k));
            }
            m.put(k, v);
            space();
            char c = peek();
            pos++;
            if (c == '}') {
                depth--;
                return m;
            }
            if (c != ',') {
                pos--;
                throw error("expected ',' or '}'");
            }
        }
    }

    private List<Object> array() {
        enter();
        pos++;
        List<Object> l = new ArrayList<>();
        space();
        if (peek() == ']') {
            pos++;
            depth--;
            return l;
        }
        while (true) {
            space();
            l.add(value());
            space();
            char c = peek();
            pos++;
            if (c == ']') {
                depth--;
                return l;
            }
            if (c != ',') {
                pos--;
                throw error("expected ',' or ']'");
            }
        }
    }

    private String string() {
        pos++;
        StringBuilder sb = new StringBuilder();
        while (true) {
            if (pos >= s.length()) throw error("unterminated string");
            char c = s.charAt(pos++);
            if (c == '"') return sb.toString();
            if (c < 0x20) {
                pos--;
                throw error("unescaped control character in a string");
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            if (pos >= s.length()) throw error("unterminated string");
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
                    if (pos + 4 > s.length()) throw error("\\u needs 4 hex digits");
                    int v = 0;
                    for (int i = 0; i < 4; i++) {
                        int d = Character.digit(s.charAt(pos + i), 16);
                        if (d < 0) throw error("\\u needs 4 hex digits");
                        v = (v << 4) | d;
                    }
                    pos += 4;
                    sb.append((char) v);
                    break;
                }
                default:
                    pos -= 2;
                    throw error("invalid escape \\" + e);
            }
        }
    }

    private BigDecimal number() {
        int start = pos;
        if (peek() == '-') pos++;
        if (peek() == '0') {
            pos++;
            if (isDigit(peek())) throw error("leading zero in a number");
        } else if (isDigit(peek())) {
            while (isDigit(peek())) pos++;
        } else {
            throw error("expected a digit");
        }
        boolean fractionOrExponent = false;
        if (peek() == '.') {
            pos++;
            fractionOrExponent = true;
            if (!isDigit(peek())) throw error("expected a digit after '.'");
            while (isDigit(peek())) pos++;
        }
        if (peek() == 'e' || peek() == 'E') {
            pos++;
            fractionOrExponent = true;
            if (peek() == '+' || peek() == '-') pos++;
            if (!isDigit(peek())) throw error("expected a digit in the exponent");
            while (isDigit(peek())) pos++;
        }
        if (pos - start > ValueCodec.MAX_NUMBER_CHARS) {
            throw error("a number longer than " + ValueCodec.MAX_NUMBER_CHARS + " chars");
        }
        try {
            BigDecimal d = new BigDecimal(s.substring(start, pos));
            if (d.signum() == 0 && s.charAt(start) == '-' && fractionOrExponent) return new ValueCodec.NegativeZero(d.scale());
            return d;
        } catch (NumberFormatException | ArithmeticException e) {
            pos = start;
            throw error("number out of range");
        }
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private char peek() {
        return pos < s.length() ? s.charAt(pos) : 0;
    }

    private void space() {
        while (pos < s.length()) {
            char c = s.charAt(pos);
            if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return;
            pos++;
        }
    }

    private ValueException error(String why) {
        return new ValueException(ValueText.display(s) + " is not JSON (" + why + " at column " + (Math.min(pos, s.length()) + 1) + ")");
    }
}

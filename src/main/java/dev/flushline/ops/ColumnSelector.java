package dev.flushline.ops;

import dev.flushline.schema.ValueText;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlType;
import dev.flushline.schema.TableSchema;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A column, or a part of one, as an operation names it in {@code "set"} and in a delete's
 * {@code "columns"}, the way CQL writes it: {@code v} (the column), {@code addr.city} (a field of
 * a UDT column), {@code prefs['k']} (an element of a collection column: a map key, a set
 * element, a list index). Names are taken as stored, as elsewhere in operations; a name holding
 * '.', '[' or '"' is written in double quotes ({@code "a.b".c}, a quote doubled). The element is
 * a CQL literal of the collection's key or element type: {@code 'text'} (a quote doubled),
 * numbers, {@code true}/{@code false}, UUIDs, {@code 0x} blobs, and for frozen keys
 * {@code (tuple)}, {@code [list]}, {@code {set}}, {@code {map: entries}}, {@code {udt: fields}};
 * {@link #literalValue} turns it into the value model ValueCodec takes.
 *
 * <p>A name that is a column of the table is that column, whatever characters it holds.
 *
 * <p>Thread safety: immutable.
 */
final class ColumnSelector {
    enum Kind { COLUMN, FIELD, ELEMENT }

    final ColumnMetadata column;
    final Kind kind;
    /** FIELD: the field's name. */
    final String field;
    /** ELEMENT: the literal's text, as written between the brackets. */
    final String literal;

    private ColumnSelector(ColumnMetadata column, Kind kind, String field, String literal) {
        this.column = column;
        this.kind = kind;
        this.field = field;
        this.literal = literal;
    }

    /** The selector {@code text} names, or null if its column is not in the table. @throws IllegalArgumentException if malformed. */
    static ColumnSelector parse(TableSchema schema, String text) {
        ColumnMetadata whole = schema.column(text);
        if (whole != null) return new ColumnSelector(whole, Kind.COLUMN, null, null);
        int[] at = {0};
        String name = name(text, at, "a column name");
        ColumnMetadata c = schema.column(name);
        if (c == null) return null;
        if (at[0] == text.length()) return new ColumnSelector(c, Kind.COLUMN, null, null);
        char next = text.charAt(at[0]);
        if (next == '.') {
            at[0]++;
            String field = name(text, at, "a field name after '.'");
            if (at[0] != text.length()) throw new IllegalArgumentException("unexpected '" + text.charAt(at[0]) + "' after field '" + field + "'");
            return new ColumnSelector(c, Kind.FIELD, field, null);
        }
        if (next == '[') {
            if (!text.endsWith("]") || text.length() - at[0] < 3) {
                throw new IllegalArgumentException("expected a literal in brackets after '" + name + "', as " + name + "['k']");
            }
            return new ColumnSelector(c, Kind.ELEMENT, null, text.substring(at[0] + 1, text.length() - 1).strip());
        }
        throw new IllegalArgumentException("unexpected '" + next + "' after column '" + name + "' (expected .field or [element])");
    }

    private static String name(String s, int[] at, String what) {
        int p = at[0];
        if (p < s.length() && s.charAt(p) == '"') {
            StringBuilder sb = new StringBuilder();
            p++;
            while (true) {
                if (p >= s.length()) throw new IllegalArgumentException("unterminated quoted name");
                char c = s.charAt(p++);
                if (c == '"') {
                    if (p < s.length() && s.charAt(p) == '"') {
                        sb.append('"');
                        p++;
                        continue;
                    }
                    break;
                }
                sb.append(c);
            }
            at[0] = p;
            return sb.toString();
        }
        int start = p;
        while (p < s.length() && s.charAt(p) != '.' && s.charAt(p) != '[') p++;
        if (p == start) throw new IllegalArgumentException("expected " + what);
        at[0] = p;
        return s.substring(start, p);
    }

    // ---------------------------------------------------------------------------------------
    // CQL literals

    /**
     * The value model of a CQL literal of {@code type} (String, BigDecimal, Boolean, List, Map),
     * for ValueCodec. @throws IllegalArgumentException naming what is wrong.
     */
    static Object literalValue(String text, CqlType type) {
        Literal l = new Literal(text);
        l.space();
        Object v = l.value(type, 0);
        l.space();
        if (l.pos != text.length()) throw new IllegalArgumentException("unexpected text after the literal at index " + l.pos);
        return v;
    }

    private static final class Literal {
        final String s;
        int pos;

        Literal(String s) {
            this.s = s;
        }

        void space() {
            while (pos < s.length() && Character.isWhitespace(s.charAt(pos))) pos++;
        }

        char peek() {
            return pos < s.length() ? s.charAt(pos) : 0;
        }

        void expect(char c) {
            space();
            if (peek() != c) throw new IllegalArgumentException("expected '" + c + "' at index " + pos);
            pos++;
        }

        Object value(CqlType t, int depth) {
            if (depth > 32) throw new IllegalArgumentException("literal nested too deep");
            space();
            char c = peek();
            if (c == '\'') return string();
            switch (t.kind()) {
                case LIST:
                case VECTOR:
                    return sequence('[', ']', t.elementType(), depth);
                case SET:
                    return sequence('{', '}', t.elementType(), depth);
                case TUPLE: {
                    List<Object> out = new ArrayList<>();
                    expect('(');
                    for (int i = 0; ; i++) {
                        if (i >= t.size()) throw new IllegalArgumentException("more components than the " + t.size() + " of " + t);
                        out.add(nullOr(t.component(i), depth));
                        space();
                        if (peek() == ',') {
                            pos++;
                            continue;
                        }
                        expect(')');
                        return out;
                    }
                }
                case MAP: {
                    Map<String, Object> out = new LinkedHashMap<>();
                    expect('{');
                    space();
                    if (peek() == '}') {
                        pos++;
                        return out;
                    }
                    while (true) {
                        Object k = value(t.elementType(), depth + 1);
                        expect(':');
                        Object v = value(t.valueType(), depth + 1);
                        // map keys are strings in the value model: a native key's literal text, any other key as JSON text
                        out.put(t.elementType().isNative() ? String.valueOf(k) : ValueText.json(k), v);
                        space();
                        if (peek() == ',') {
                            pos++;
                            continue;
                        }
                        expect('}');
                        return out;
                    }
                }
                case UDT: {
                    Map<String, Object> out = new LinkedHashMap<>();
                    expect('{');
                    space();
                    if (peek() == '}') {
                        pos++;
                        return out;
                    }
                    while (true) {
                        space();
                        String field;
                        if (peek() == '"') {
                            int[] at = {pos};
                            field = '"' + name(s, at, "a field name") + '"'; // quoted: case kept, as JSON keys say it
                            pos = at[0];
                        } else {
                            int start = pos;
                            while (pos < s.length() && (Character.isLetterOrDigit(s.charAt(pos)) || s.charAt(pos) == '_')) pos++;
                            if (pos == start) throw new IllegalArgumentException("expected a field name at index " + pos);
                            field = s.substring(start, pos);
                        }
                        expect(':');
                        int i = t.fieldIndex(field.startsWith("\"") ? field.substring(1, field.length() - 1) : field.toLowerCase(java.util.Locale.US));
                        if (i < 0) throw new IllegalArgumentException("type " + t.typeName() + " has no field " + field);
                        out.put(field, nullOr(t.component(i), depth));
                        space();
                        if (peek() == ',') {
                            pos++;
                            continue;
                        }
                        expect('}');
                        return out;
                    }
                }
                default:
                    return scalar();
            }
        }

        Object nullOr(CqlType t, int depth) {
            space();
            if (s.startsWith("null", pos) && !Character.isLetterOrDigit(pos + 4 < s.length() ? s.charAt(pos + 4) : ' ')) {
                pos += 4;
                return null;
            }
            return value(t, depth + 1);
        }

        List<Object> sequence(char open, char close, CqlType element, int depth) {
            List<Object> out = new ArrayList<>();
            expect(open);
            space();
            if (peek() == close) {
                pos++;
                return out;
            }
            while (true) {
                out.add(value(element, depth + 1));
                space();
                if (peek() == ',') {
                    pos++;
                    continue;
                }
                expect(close);
                return out;
            }
        }

        String string() {
            StringBuilder sb = new StringBuilder();
            pos++;
            while (true) {
                if (pos >= s.length()) throw new IllegalArgumentException("unterminated string");
                char c = s.charAt(pos++);
                if (c == '\'') {
                    if (peek() == '\'') {
                        sb.append('\'');
                        pos++;
                        continue;
                    }
                    return sb.toString();
                }
                sb.append(c);
            }
        }

        /** A bare constant: a number (its text as a BigDecimal), true/false, a UUID, a 0x blob, NaN, Infinity. */
        Object scalar() {
            int start = pos;
            while (pos < s.length()) {
                char c = s.charAt(pos);
                if (Character.isLetterOrDigit(c) || c == '-' || c == '+' || c == '.' || c == '_') pos++;
                else break;
            }
            String w = s.substring(start, pos);
            if (w.isEmpty()) throw new IllegalArgumentException("expected a literal at index " + start);
            if (w.equalsIgnoreCase("true")) return Boolean.TRUE;
            if (w.equalsIgnoreCase("false")) return Boolean.FALSE;
            if (w.equals("NaN") || w.equals("Infinity") || w.equals("-Infinity")) return w;
            if (w.startsWith("0x") || w.startsWith("0X")) return "0x" + w.substring(2);
            if (w.length() == 36 && w.charAt(8) == '-' && w.charAt(13) == '-') return w; // a UUID
            try {
                return new BigDecimal(w);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + ValueText.cut(w) + "' is not a CQL literal (quote text as 'text')");
            }
        }
    }
}

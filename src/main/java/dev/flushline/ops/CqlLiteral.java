package dev.flushline.ops;

import dev.flushline.schema.CqlType;
import dev.flushline.schema.ValueText;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A CQL literal of a known type, read into the value model ValueCodec takes (String, BigDecimal,
 * Boolean, List, Map, null). Two dialects:
 *
 * <ul>
 *   <li><b>CQL</b> ({@link #parse}), for the element of an operation's selector ({@code prefs['k']}):
 *       {@code 'text'} (a quote doubled), numbers, {@code true}/{@code false}, UUIDs, {@code 0x}
 *       blobs, {@code (tuple)}, {@code [list]}, {@code {set}}, {@code {map: entries}},
 *       {@code {udt: fields}}; a bare number is a BigDecimal, a bare boolean a Boolean.
 *   <li><b>COPY</b> ({@link #parseCopy}), for a composite value in a CSV field, as cqlsh's
 *       {@code COPY TO} writes one and {@code COPY FROM} reads it: the same grammar, and
 *       <ul>
 *         <li>a bare word is kept as its text (a String), so that ValueCodec reads it as Cassandra's
 *             {@code fromString} reads a literal: a decimal keeps every digit, a float is rounded once;
 *         <li>bare dates, times and durations, as COPY TO writes them inside collections
 *             ({@code [2024-01-31, 10:00:00.000000000, 1h30m]}); text, ascii and inet stay quoted;
 *         <li>{@code null} in any case, an empty component, or the null marker is a null tuple component
 *             or UDT field ({@code {a: , b: 'x'}} is how COPY TO writes a null field with the empty
 *             marker); a bare {@code null} elsewhere is a null that ValueCodec refuses by name;
 *         <li>a bare UDT field name is matched exactly first (COPY TO writes names as they are, without
 *             CQL's double quotes), then lowercased as CQL reads it;
 *         <li>a quoted empty string is refused for a type that is not text-like, as COPY FROM refuses
 *             empty values inside composites.
 *       </ul>
 * </ul>
 * Whitespace between tokens is skipped. Nesting is bounded ({@link #MAX_DEPTH}).
 *
 * <p>Thread safety: a parse is one object on one thread; the static methods are safe.
 */
final class CqlLiteral {
    /** Deepest nesting taken: deeper input is refused, not a stack overflow. */
    static final int MAX_DEPTH = 32;

    private final String s;
    /** The COPY dialect; {@link #nullMarker} is its null marker (never null in that dialect). */
    private final boolean copy;
    private final String nullMarker;
    private int pos;

    private CqlLiteral(String s, boolean copy, String nullMarker) {
        this.s = s;
        this.copy = copy;
        this.nullMarker = nullMarker;
    }

    /** The value model of the CQL literal {@code text} of {@code type}. @throws IllegalArgumentException naming what is wrong. */
    static Object parse(String text, CqlType type) {
        return new CqlLiteral(text, false, null).whole(type);
    }

    /**
     * The value model of {@code text}, a COPY literal of the composite {@code type} (a collection,
     * tuple, UDT or vector), with {@code nullMarker} the CSV's null marker.
     * @throws IllegalArgumentException naming what is wrong and where (index in {@code text}).
     */
    static Object parseCopy(String text, CqlType type, String nullMarker) {
        if (nullMarker == null) throw new IllegalArgumentException("the COPY dialect needs a null marker");
        return new CqlLiteral(text, true, nullMarker).whole(type);
    }

    private Object whole(CqlType type) {
        space();
        if (pos == s.length()) throw new IllegalArgumentException("expected a literal, found nothing");
        Object v = value(type, 0);
        space();
        if (pos != s.length()) throw new IllegalArgumentException("unexpected text after the literal at index " + pos);
        return v;
    }

    private void space() {
        while (pos < s.length() && Character.isWhitespace(s.charAt(pos))) pos++;
    }

    private char peek() {
        return pos < s.length() ? s.charAt(pos) : 0;
    }

    private void expect(char c) {
        space();
        if (peek() != c) {
            throw new IllegalArgumentException("expected '" + c + "' at index " + pos
                    + (pos < s.length() ? ", found '" + s.charAt(pos) + "'" : ", found the end"));
        }
        pos++;
    }

    private Object value(CqlType t, int depth) {
        if (depth > MAX_DEPTH) throw new IllegalArgumentException("literal nested deeper than " + MAX_DEPTH + " levels");
        space();
        char c = peek();
        if (c == '\'') return quoted(t);
        if (copy && nullKeyword()) return null;
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
                    out.add(component(t.component(i), depth, ')'));
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
                    int keyAt = pos;
                    Object k = value(t.elementType(), depth + 1);
                    if (k == null) throw new IllegalArgumentException("null at index " + keyAt + " is not allowed as a key of " + a(t));
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
                    String key = fieldKey(t);
                    expect(':');
                    int i = t.fieldIndex(unquotedKey(key));
                    out.put(key, component(t.component(i), depth, '}'));
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
                return copy ? bareWord(t) : scalar();
        }
    }

    /**
     * The key of a UDT field in the value model (ValueCodec resolves it as Cassandra does: a key in
     * double quotes is the name inside them, any other key is lowercased); the field must exist.
     */
    private String fieldKey(CqlType t) {
        if (peek() == '"') {
            int[] at = {pos};
            String name = quotedName(at);
            pos = at[0];
            if (t.fieldIndex(name) < 0) throw new IllegalArgumentException("type " + t.typeName() + " has no field \"" + name + "\"");
            return '"' + name + '"';
        }
        int start = pos;
        while (pos < s.length() && (Character.isLetterOrDigit(s.charAt(pos)) || s.charAt(pos) == '_')) pos++;
        if (pos == start) throw new IllegalArgumentException("expected a field name at index " + pos);
        String name = s.substring(start, pos);
        // COPY TO writes a field's name as it is; CQL lowercases a bare name
        if (copy && t.fieldIndex(name) >= 0) return '"' + name + '"';
        String lowered = name.toLowerCase(Locale.US);
        if (t.fieldIndex(lowered) < 0) throw new IllegalArgumentException("type " + t.typeName() + " has no field " + name);
        return copy ? '"' + lowered + '"' : name;
    }

    private static String unquotedKey(String key) {
        return key.startsWith("\"") ? key.substring(1, key.length() - 1) : key.toLowerCase(Locale.US);
    }

    /** A name in double quotes starting at at[0] (a quote doubled inside); moves at[0] past it. */
    private String quotedName(int[] at) {
        return quotedName(s, at);
    }

    /** A name in double quotes in {@code s} starting at at[0] (a quote doubled inside); moves at[0] past it. */
    static String quotedName(String s, int[] at) {
        StringBuilder sb = new StringBuilder();
        int p = at[0] + 1;
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

    /** A tuple component or UDT field: a value, or null (see the class comment for the COPY forms of null). */
    private Object component(CqlType t, int depth, char close) {
        space();
        if (copy) {
            char c = peek();
            if (c == ',' || c == close) return null; // an empty component
            if (!nullMarker.isEmpty() && s.startsWith(nullMarker, pos)) {
                int after = pos + nullMarker.length();
                int p = after;
                while (p < s.length() && Character.isWhitespace(s.charAt(p))) p++;
                if (p < s.length() && (s.charAt(p) == ',' || s.charAt(p) == close)) {
                    pos = after;
                    return null;
                }
            }
        } else if (s.startsWith("null", pos) && !Character.isLetterOrDigit(pos + 4 < s.length() ? s.charAt(pos + 4) : ' ')) {
            pos += 4;
            return null;
        }
        return value(t, depth + 1);
    }

    /** At a bare {@code null} (any case): consumes it. */
    private boolean nullKeyword() {
        if (!s.regionMatches(true, pos, "null", 0, 4)) return false;
        int after = pos + 4;
        if (after < s.length() && (Character.isLetterOrDigit(s.charAt(after)) || s.charAt(after) == '_')) return false;
        pos = after;
        return true;
    }

    private List<Object> sequence(char open, char close, CqlType element, int depth) {
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

    /** 'text' with a quote doubled inside; in COPY, empty only for the types whose literal is text. */
    private String quoted(CqlType t) {
        int start = pos;
        StringBuilder sb = new StringBuilder();
        pos++;
        while (true) {
            if (pos >= s.length()) throw new IllegalArgumentException("unterminated quoted string starting at index " + start);
            char c = s.charAt(pos++);
            if (c == '\'') {
                if (peek() == '\'') {
                    sb.append('\'');
                    pos++;
                    continue;
                }
                break;
            }
            sb.append(c);
        }
        if (copy && sb.length() == 0 && !emptyAllowed(t)) {
            throw new IllegalArgumentException("empty value '' at index " + start + "; " + a(t) + " inside a composite may not be empty");
        }
        return sb.toString();
    }

    /** The type with its article, as messages say it: "an int", "a uuid". */
    static String a(CqlType t) {
        String name = t.toString();
        return ("aeio".indexOf(name.charAt(0)) >= 0 ? "an " : "a ") + name;
    }

    private static boolean emptyAllowed(CqlType t) {
        CqlType.Kind k = t.kind();
        return k == CqlType.Kind.TEXT || k == CqlType.Kind.ASCII || k == CqlType.Kind.BLOB;
    }

    /** CQL: a bare constant, a number as a BigDecimal, true/false as a Boolean, a UUID, a 0x blob, NaN, Infinity. */
    private Object scalar() {
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

    /**
     * COPY: a bare word of a native type, as its text. A word is letters, digits and {@code + - . _};
     * a time also takes two ':' (hh:mm:ss), a duration any ':' (its ISO form). Text, ascii and inet
     * are quoted in COPY's composites, as in CQL.
     */
    private String bareWord(CqlType t) {
        CqlType.Kind k = t.kind();
        int start = pos;
        int colons = k == CqlType.Kind.TIME ? 2 : k == CqlType.Kind.DURATION ? Integer.MAX_VALUE : 0;
        while (pos < s.length()) {
            char c = s.charAt(pos);
            if (Character.isLetterOrDigit(c) || c == '-' || c == '+' || c == '.' || c == '_') {
                pos++;
            } else if (c == ':' && colons > 0) {
                colons--;
                pos++;
            } else {
                break;
            }
        }
        String w = s.substring(start, pos);
        if (w.isEmpty()) {
            throw new IllegalArgumentException("expected a literal at index " + start
                    + (start < s.length() ? ", found '" + s.charAt(start) + "'" : ", found the end"));
        }
        if (k == CqlType.Kind.TEXT || k == CqlType.Kind.ASCII || k == CqlType.Kind.INET) {
            throw new IllegalArgumentException("'" + ValueText.cut(w) + "' at index " + start + " is not quoted: " + a(t)
                    + " inside a composite is written in single quotes, as '" + ValueText.cut(w) + "'");
        }
        if (w.startsWith("0X")) return "0x" + w.substring(2);
        return w;
    }
}

package dev.flushline.cassandra6;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One protocol line between the benchmark parent and this child: a word, then {@code key=value} fields, all
 * separated by tabs. Values escape backslash, tab, newline and carriage return as {@code \\ \t \n \r}, so any
 * text (a path, an exception message) fits on one line. The parent's copy of this class
 * (dev.flushline.compare.Cassandra6Child.Wire) must encode the same way; the smoke check runs both.
 *
 * <p>Immutable once built; not thread-safe while building.
 */
final class Wire {
    final String word;
    final Map<String, String> fields;

    private Wire(String word, Map<String, String> fields) {
        this.word = word;
        this.fields = fields;
    }

    static Wire of(String word) {
        return new Wire(word, new LinkedHashMap<>());
    }

    Wire put(String key, Object value) {
        fields.put(key, String.valueOf(value));
        return this;
    }

    String get(String key) {
        String v = fields.get(key);
        if (v == null) throw new IllegalArgumentException("request '" + word + "' lacks field '" + key + "'");
        return v;
    }

    String get(String key, String dflt) {
        String v = fields.get(key);
        return v == null ? dflt : v;
    }

    long getLong(String key) {
        String v = get(key);
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("request '" + word + "' field '" + key + "' is not a number: '" + v + "'");
        }
    }

    int getInt(String key) {
        long v = getLong(key);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("request '" + word + "' field '" + key + "' is out of int range: " + v);
        }
        return (int) v;
    }

    String encode() {
        StringBuilder sb = new StringBuilder(64).append(word);
        for (Map.Entry<String, String> e : fields.entrySet()) {
            sb.append('\t').append(e.getKey()).append('=');
            escape(e.getValue(), sb);
        }
        return sb.toString();
    }

    static Wire decode(String line) {
        String[] parts = line.split("\t", -1);
        Wire w = of(parts[0]);
        for (int i = 1; i < parts.length; i++) {
            int eq = parts[i].indexOf('=');
            if (eq <= 0) throw new IllegalArgumentException("malformed field " + i + " in line '" + line + "'");
            w.fields.put(parts[i].substring(0, eq), unescape(parts[i].substring(eq + 1)));
        }
        return w;
    }

    private static void escape(String s, StringBuilder sb) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\\': sb.append("\\\\"); break;
                case '\t': sb.append("\\t"); break;
                case '\n': sb.append("\\n"); break;
                case '\r': sb.append("\\r"); break;
                default: sb.append(c);
            }
        }
    }

    private static String unescape(String s) {
        if (s.indexOf('\\') < 0) return s;
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '\\' || i + 1 == s.length()) {
                sb.append(c);
                continue;
            }
            char n = s.charAt(++i);
            sb.append(n == 't' ? '\t' : n == 'n' ? '\n' : n == 'r' ? '\r' : n);
        }
        return sb.toString();
    }
}

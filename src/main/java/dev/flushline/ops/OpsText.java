package dev.flushline.ops;

import java.math.BigDecimal;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * JSON text for messages and for the CLI's JSON output: quoting, and a compact rendering of a
 * parsed value that is cut short when long (a 70 KB key must not flood the terminal).
 *
 * <p>Thread safety: stateless.
 */
public final class OpsText {
    private OpsText() {}

    /** Longest rendering of a value in a message, in chars, before it is cut with "...". */
    public static final int MAX_DISPLAY_CHARS = 80;

    /** A JSON string literal: quotes, backslashes and control characters escaped. */
    public static String quote(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2);
        appendQuoted(sb, s);
        return sb.toString();
    }

    public static void appendQuoted(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') sb.append('\\').append(c);
            else if (c == '\n') sb.append("\\n");
            else if (c == '\t') sb.append("\\t");
            else if (c == '\r') sb.append("\\r");
            else if (c < 0x20) sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            else sb.append(c);
        }
        sb.append('"');
    }

    /** A name from the input (a column or field that the table lacks), cut as {@link #display} cuts. */
    public static String cut(String name) {
        if (name.length() <= MAX_DISPLAY_CHARS) return name;
        return name.substring(0, MAX_DISPLAY_CHARS) + "... (" + name.length() + " chars)";
    }

    /** The value as JSON, cut to {@link #MAX_DISPLAY_CHARS} with its full length noted. */
    public static String display(Object v) {
        StringBuilder sb = new StringBuilder();
        append(sb, v);
        if (sb.length() <= MAX_DISPLAY_CHARS) return sb.toString();
        return sb.substring(0, MAX_DISPLAY_CHARS) + "... (" + sb.length() + " chars)";
    }

    /** The value as JSON text, whole (a map key of a composite type is JSON text, as Cassandra reads it). */
    static String toJson(Object v) {
        StringBuilder sb = new StringBuilder();
        append(sb, v);
        return sb.toString();
    }

    private static void append(StringBuilder sb, Object v) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof String) {
            appendQuoted(sb, (String) v);
        } else if (v instanceof BigDecimal) {
            sb.append(((BigDecimal) v).toString());
        } else if (v instanceof List) {
            sb.append('[');
            boolean first = true;
            for (Object e : (List<?>) v) {
                if (!first) sb.append(',');
                first = false;
                append(sb, e);
            }
            sb.append(']');
        } else if (v instanceof Map) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                if (!first) sb.append(',');
                first = false;
                appendQuoted(sb, String.valueOf(e.getKey()));
                sb.append(':');
                append(sb, e.getValue());
            }
            sb.append('}');
        } else {
            sb.append(v);
        }
    }
}

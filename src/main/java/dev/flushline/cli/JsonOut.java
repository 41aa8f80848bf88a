package dev.flushline.cli;

import dev.flushline.schema.ValueText;
import java.io.IOException;
import java.io.Writer;

/**
 * A JSON writer that lays its output out exactly as sstabledump does: Jackson's generator with a
 * DefaultPrettyPrinter whose object and array indenters are sstabledump's "compact" indenters
 * (a toggle between newline-plus-indentation and a single space), or, for JSON Lines, Jackson's
 * minimal printer with one partition per line. The same calls in the same order, including the
 * compact toggles, produce the same bytes, except that {@link #endLine} ends the document and
 * every JSON Lines line with a newline, where sstabledump ends its output without one (a text
 * file's last line ends with a newline; scripts read line by line).
 *
 * <p>Layout rules (pretty mode): "{" / "[" raise the nesting level; the first member or element
 * is preceded by an indentation, later ones by "," and an indentation; a field name is followed by
 * " : "; "}" / "]" lower the level and are preceded by an indentation, or by one space when the
 * container is empty. An indentation is a newline and two spaces per level, or one space when
 * that container kind's indenter is compact.
 *
 * <p>Thread safety: none.
 */
final class JsonOut {
    private final Writer out;
    private final boolean pretty;
    private final String lineSeparator;
    private int nesting;
    boolean objectCompact, arrayCompact;

    // Write context stack: kind (0 root, 1 array, 2 object), entry count, and whether a field name waits for its value.
    private int[] kind = new int[32];
    private int[] count = new int[32];
    private int depth;
    private boolean afterFieldName;

    JsonOut(Writer out, boolean pretty, String lineSeparator) {
        this.out = out;
        this.pretty = pretty;
        this.lineSeparator = lineSeparator;
        kind[0] = 0;
    }

    private void indent(boolean compact) throws IOException {
        if (compact) {
            out.write(' ');
            return;
        }
        out.write(lineSeparator);
        for (int i = 0; i < nesting; i++) out.write("  ");
    }

    /** What Jackson's generator does before any value: separators by context. */
    private void beforeValue() throws IOException {
        switch (kind[depth]) {
            case 1:
                if (count[depth] > 0) {
                    out.write(',');
                    if (pretty) indent(arrayCompact);
                } else if (pretty) {
                    indent(arrayCompact);
                }
                break;
            default:
                // Root values: JSON Lines ends each one's line itself (endLine), so that the last line ends too.
                if (count[0] > 0 && pretty) out.write(' ');
                break;
        }
        count[depth]++;
    }

    private void push(int k) {
        if (++depth == kind.length) {
            kind = java.util.Arrays.copyOf(kind, depth * 2);
            count = java.util.Arrays.copyOf(count, depth * 2);
        }
        kind[depth] = k;
        count[depth] = 0;
    }

    void startObject() throws IOException {
        beforeFieldOrElement();
        push(2);
        if (pretty) nesting++;
        out.write('{');
    }

    void endObject() throws IOException {
        int n = count[depth];
        depth--;
        if (pretty) {
            nesting--;
            if (n > 0) indent(objectCompact);
            else out.write(' ');
        }
        out.write('}');
    }

    void startArray() throws IOException {
        beforeFieldOrElement();
        push(1);
        if (pretty) nesting++;
        out.write('[');
    }

    void endArray() throws IOException {
        int n = count[depth];
        depth--;
        if (pretty) {
            nesting--;
            if (n > 0) indent(arrayCompact);
            else out.write(' ');
        }
        out.write(']');
    }

    void fieldName(String name) throws IOException {
        if (count[depth] > 0) {
            out.write(',');
            if (pretty) indent(objectCompact);
        } else if (pretty) {
            indent(objectCompact);
        }
        count[depth]++;
        afterFieldName = true;
        writeQuoted(name);
    }

    /** Field values do not count again: the member was counted with its name. */
    private void beforeFieldOrElement() throws IOException {
        if (kind[depth] == 2) {
            if (!afterFieldName) throw new IllegalStateException("value without a field name");
            afterFieldName = false;
            out.write(pretty ? " : " : ":");
        } else {
            beforeValue();
        }
    }

    void string(String s) throws IOException {
        beforeFieldOrElement();
        writeQuoted(s);
    }

    void number(long v) throws IOException {
        beforeFieldOrElement();
        out.write(Long.toString(v));
    }

    void bool(boolean v) throws IOException {
        beforeFieldOrElement();
        out.write(v ? "true" : "false");
    }

    void raw(String json) throws IOException {
        beforeFieldOrElement();
        out.write(json);
    }

    /** Ends a line of JSON Lines (after each root value), or the one pretty document. */
    void endLine() throws IOException {
        out.write(pretty ? lineSeparator : "\n");
    }

    void flush() throws IOException {
        out.flush();
    }

    private void writeQuoted(String s) throws IOException {
        out.write('"');
        out.write(ValueText.escape(s));
        out.write('"');
    }

}

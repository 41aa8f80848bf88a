package dev.flushline.ops;

import dev.flushline.schema.ValueText;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlType;
import dev.flushline.schema.TableSchema;


/**
 * A column, or a part of one, as an operation names it in {@code "set"} and in a delete's
 * {@code "columns"}, the way CQL writes it: {@code v} (the column), {@code addr.city} (a field of
 * a UDT column), {@code prefs['k']} (an element of a collection column: a map key, a set
 * element, a list index). Names are taken as stored, as elsewhere in operations; a name holding
 * '.', '[' or '"' is written in double quotes ({@code "a.b".c}, a quote doubled). The element is
 * a CQL literal of the collection's key or element type: {@code 'text'} (a quote doubled),
 * numbers, {@code true}/{@code false}, UUIDs, {@code 0x} blobs, and for frozen keys
 * {@code (tuple)}, {@code [list]}, {@code {set}}, {@code {map: entries}}, {@code {udt: fields}};
 * {@link #literalValue} ({@link CqlLiteral}) turns it into the value model ValueCodec takes.
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
        if (p < s.length() && s.charAt(p) == '"') return CqlLiteral.quotedName(s, at);
        int start = p;
        while (p < s.length() && s.charAt(p) != '.' && s.charAt(p) != '[') p++;
        if (p == start) throw new IllegalArgumentException("expected " + what);
        at[0] = p;
        return s.substring(start, p);
    }

    /**
     * The value model of a CQL literal of {@code type} (String, BigDecimal, Boolean, List, Map),
     * for ValueCodec. @throws IllegalArgumentException naming what is wrong.
     */
    static Object literalValue(String text, CqlType type) {
        return CqlLiteral.parse(text, type);
    }
}

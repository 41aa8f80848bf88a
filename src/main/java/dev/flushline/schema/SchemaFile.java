package dev.flushline.schema;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * What a schema file defines, as {@link CqlParser#parseSchema} read it: the tables and the
 * user-defined types, in file order, and the statements it skipped (indexes, views, functions,
 * aggregates, triggers), for messages.
 *
 * <p>Thread safety: immutable.
 */
public final class SchemaFile {
    private final List<TableSchema> tables;
    private final List<CqlType> types;
    private final List<String> skipped;
    /** The end of the file, where "no table" is reported. */
    private final int endLine;
    private final int endColumn;

    SchemaFile(List<TableSchema> tables, List<CqlType> types, List<String> skipped, CqlParser.Token end) {
        this.tables = Collections.unmodifiableList(new ArrayList<>(tables));
        this.types = Collections.unmodifiableList(new ArrayList<>(types));
        this.skipped = Collections.unmodifiableList(new ArrayList<>(skipped));
        this.endLine = end.line;
        this.endColumn = end.column;
    }

    public List<TableSchema> tables() {
        return tables;
    }

    /** The user-defined types (non-frozen, as defined), in definition order. */
    public List<CqlType> types() {
        return types;
    }

    /** The statements skipped, as "CREATE INDEX at line 7". */
    public List<String> skipped() {
        return skipped;
    }

    /** The only table. @throws SchemaException if there is none, or several (naming them). */
    public TableSchema onlyTable() {
        if (tables.size() == 1) return tables.get(0);
        if (tables.isEmpty()) {
            throw CqlParser.error(endLine, endColumn, "the schema defines no table (expected a CREATE TABLE statement"
                    + (skipped.isEmpty() ? "" : "; skipped " + String.join(", ", skipped)) + ")");
        }
        throw new SchemaException("the schema defines " + tables.size() + " tables (" + names() + "); choose one with --table NAME");
    }

    /**
     * The table named {@code name}: {@code t} or {@code ks.t}, each part as CQL spells a name
     * (unquoted is lowercased, "quoted" keeps its case).
     * @throws SchemaException if no table (or more than one, for a bare name in several keyspaces) has it, listing the tables
     */
    public TableSchema table(String name) {
        String[] parts = splitName(name);
        TableSchema found = null;
        for (TableSchema t : tables) {
            if (!t.name().equals(parts[1]) || (parts[0] != null && !t.keyspace().equals(parts[0]))) continue;
            if (found != null) {
                throw new SchemaException("table '" + name + "' is in several keyspaces (" + names() + "); give it as ks.table");
            }
            found = t;
        }
        if (found == null) {
            throw new SchemaException("the schema defines no table '" + name + "'"
                    + (tables.isEmpty() ? "; it defines no table at all" : "; it defines " + names()));
        }
        return found;
    }

    private String names() {
        StringBuilder sb = new StringBuilder();
        for (TableSchema t : tables) sb.append(sb.length() == 0 ? "" : ", ").append(t.keyspace()).append('.').append(t.name());
        return sb.toString();
    }

    /** {keyspace or null, table}, each unquoted and lowercased, or unquoted keeping case. */
    static String[] splitName(String name) {
        List<String> parts = new ArrayList<>();
        StringBuilder sb = new StringBuilder();
        boolean quoted = false, wasQuoted = false;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (quoted) {
                if (c == '"') {
                    if (i + 1 < name.length() && name.charAt(i + 1) == '"') {
                        sb.append('"');
                        i++;
                    } else {
                        quoted = false;
                    }
                } else {
                    sb.append(c);
                }
            } else if (c == '"') {
                quoted = true;
                wasQuoted = true;
            } else if (c == '.') {
                parts.add(wasQuoted ? sb.toString() : sb.toString().toLowerCase(Locale.ROOT));
                sb.setLength(0);
                wasQuoted = false;
            } else {
                sb.append(c);
            }
        }
        parts.add(wasQuoted ? sb.toString() : sb.toString().toLowerCase(Locale.ROOT));
        if (parts.size() > 2 || quoted) throw new SchemaException("'" + name + "' is not a table name (t or ks.t)");
        return parts.size() == 2 ? new String[] {parts.get(0), parts.get(1)} : new String[] {null, parts.get(0)};
    }
}

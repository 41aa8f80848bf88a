package dev.flushline.schema;

/**
 * Parses one CQL {@code CREATE TABLE} statement into a {@link TableSchema}.
 */
public final class CqlParser {
    private CqlParser() {}

    /** @throws SchemaException naming the construct and its position (line, column) in the statement. */
    public static TableSchema parse(String cql) {
        throw new UnsupportedOperationException("TODO(schema helper)");
    }
}

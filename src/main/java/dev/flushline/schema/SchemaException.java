package dev.flushline.schema;

/** A CQL statement we cannot accept. The message names the construct and where it stands. */
public final class SchemaException extends RuntimeException {
    public SchemaException(String message) {
        super(message);
    }
}

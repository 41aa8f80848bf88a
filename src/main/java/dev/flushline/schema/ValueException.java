package dev.flushline.schema;

/**
 * A JSON value that does not fit its column's type. The message names the value and the type,
 * e.g. {@code "abc" is not an int}; the caller prefixes where it stands (file, line, column).
 */
public final class ValueException extends RuntimeException {
    public ValueException(String message) {
        super(message);
    }

    ValueException(String message, Throwable cause) {
        super(message, cause);
    }
}

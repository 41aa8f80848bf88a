package dev.flushline.ops;

/** Text that is not JSON; {@link #column()} is 1-based, in UTF-16 chars of the line. */
public final class JsonSyntaxException extends Exception {
    private final int column;

    public JsonSyntaxException(int column, String message) {
        super(message);
        this.column = column;
    }

    public int column() {
        return column;
    }
}

package dev.flushline.ops;

/**
 * One bad line of an operations file. {@link #getMessage()} names where it stands, as
 * {@code ops.jsonl:LINE: detail}; {@link #detail()} is the part after the line number.
 * Nothing of the line was applied when this is thrown.
 */
public final class BadInputException extends Exception {
    private final String source;
    private final long lineNumber;
    private final String detail;
    private final boolean skippable;

    public BadInputException(String source, long lineNumber, String detail) {
        this(source, lineNumber, detail, true);
    }

    /** {@code skippable}: false when reading cannot go on past this line (undecodable bytes). */
    public BadInputException(String source, long lineNumber, String detail, boolean skippable) {
        super(source + ":" + lineNumber + ": " + detail);
        this.source = source;
        this.lineNumber = lineNumber;
        this.detail = detail;
        this.skippable = skippable;
    }

    public boolean skippable() { return skippable; }

    public String source() { return source; }

    public long lineNumber() { return lineNumber; }

    public String detail() { return detail; }
}

package dev.flushline.io;

/**
 * A serializer wrote a different number of bytes than its {@code serializedSize} promised. This is
 * a bug in the serializer, never an I/O condition, so it is unchecked and must not be swallowed: the
 * bytes already written are wrong, and the sstable being built must be aborted.
 */
public final class SerializationSizeMismatchException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    private final String structure;
    private final long expectedBytes;
    private final long actualBytes;

    public SerializationSizeMismatchException(String structure, long expectedBytes, long actualBytes) {
        super(structure + ": serialized size mismatch, expected " + expectedBytes + " bytes but wrote "
                + actualBytes + " bytes");
        this.structure = structure;
        this.expectedBytes = expectedBytes;
        this.actualBytes = actualBytes;
    }

    public String structure() { return structure; }

    public long expectedBytes() { return expectedBytes; }

    public long actualBytes() { return actualBytes; }
}

package dev.flushline.sstable;

import java.nio.file.Path;

/**
 * An sstable this reader must not try to read: another version or format than {@code oa-*-big},
 * a name that is not an sstable component, or a table schema that does not match its header.
 * Refused before any of its data is decoded.
 */
public final class IncompatibleSSTableException extends RuntimeException {
    private final Path file;

    public IncompatibleSSTableException(Path file, String reason) {
        super(file + ": " + reason);
        this.file = file;
    }

    public Path file() { return file; }
}

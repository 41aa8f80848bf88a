package dev.flushline.io;

import java.io.IOException;

/** A compressed block that its codec cannot turn back into the chunk it should hold; the reader adds file and offset. */
public final class ChunkCodecException extends IOException {
    private static final long serialVersionUID = 1L;

    public ChunkCodecException(String message) {
        super(message);
    }

    public ChunkCodecException(String message, Throwable cause) {
        super(message, cause);
    }
}

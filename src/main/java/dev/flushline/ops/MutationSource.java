package dev.flushline.ops;

import dev.flushline.data.InsertBuffer;
import dev.flushline.data.Mutation;

import java.io.Closeable;
import java.io.IOException;

/**
 * An input of {@code flushline load} read as a stream of {@link Mutation}s, one input record at a
 * time: {@link OperationReader} (JSON Lines) or {@link CsvReader} (CSV). The load chooses one and
 * treats both alike.
 *
 * <p>A bad record throws {@link BadInputException} naming {@code source:line}; if it is
 * {@linkplain BadInputException#skippable() skippable} the source stays usable and the next call
 * goes on with the following record, otherwise the input cannot be read past it.
 *
 * <p>Thread safety: one thread reads; {@link #abandon} may be called from any thread.
 */
public interface MutationSource extends Closeable {
    /** The next record's mutation, or null at the end of the input (and on every call after it). */
    Mutation next() throws IOException, BadInputException;

    /**
     * The next record as {@link #next()} gives it, or, where the source can decode it so (a plain insert
     * of JSON Lines), decoded into {@code into} and {@code into} itself returned: no objects per record.
     * {@code into} is then the caller's to read until it passes it here again. The default decodes
     * nothing into buffers. REQUIRES: {@code into} came from {@link #newInsertBuffer()}.
     */
    default Object next(InsertBuffer into) throws IOException, BadInputException {
        return next();
    }

    /** A buffer for {@link #next(InsertBuffer)}, or null if this source never fills one. */
    default InsertBuffer newInsertBuffer() {
        return null;
    }

    /** The (first) line of the record last returned or refused, 1-based; 0 before the first. */
    long lineNumber();

    /** Valid records that changed nothing, up to the one last returned. */
    long noOps();

    /** Bytes taken from the input so far, including what is buffered ahead: a bound on what a caller holds. */
    long bytesRead();

    /** The input's name in messages, e.g. {@code ops.jsonl} or {@code <stdin>}. */
    String source();

    /**
     * Makes the reading thread stop at its next read of the input (with an IOException) instead of
     * going on; for a caller on another thread that no longer wants what is read. Any thread.
     */
    void abandon();
}

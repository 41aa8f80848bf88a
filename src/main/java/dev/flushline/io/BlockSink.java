package dev.flushline.io;

import java.io.IOException;

/**
 * Where {@link PipelinedDataOutput}'s I/O thread sends each full block. {@link DataSink} is the only
 * production implementation; the interface exists so that the pipeline depends on nothing but the
 * one call it makes, and so that its tests can plug in sinks that record, block or fail while
 * {@link DataSink} itself stays sealed.
 *
 * <p>Thread safety: called only from the pipeline's I/O thread.
 */
interface BlockSink {
    /** Appends {@code src[offset, offset+length)}; the array is reused once this returns. */
    void write(byte[] src, int offset, int length) throws IOException;
}

package dev.flushline.commitlog;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * How a segment file is opened: the one place the commit log gets its channels from, so that a
 * failure of the channel itself (a disk that goes away, an fsync that fails) can be produced by a
 * caller in this package that keeps the channels it hands out. The log only ever uses
 * {@link #CREATE_NEW}.
 *
 * <p>Thread safety: implementations are called under the log's append lock.
 */
interface SegmentChannels {
    /** Opens {@code path}, which must not exist yet, for reading and writing. */
    FileChannel open(Path path) throws IOException;

    SegmentChannels CREATE_NEW = path -> FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
            StandardOpenOption.READ);
}

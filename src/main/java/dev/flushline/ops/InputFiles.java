package dev.flushline.ops;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * Opens a command's input file: {@code -} is stdin; any other name is opened as a file (a regular
 * file, a FIFO, a {@code /dev/fd/N} pipe). Gzip input is decompressed as it is read, streaming:
 * a name ending in {@code .gz}, or a regular file that starts with gzip's magic bytes (1f 8b).
 * stdin and unnamed pipes are read as they are (nothing is peeked at), so they behave as before;
 * pipe them through {@code zcat} if they are compressed.
 *
 * <p>Corrupt or cut gzip data surfaces as a {@link CorruptInputException} from {@code read}, so that
 * a reader can name the line it was reading (OperationReader does: {@code file:line}).
 *
 * <p>{@link #openMetered} also says how far the reading has got in the file itself (compressed bytes for
 * gzip), and how long the file is when it is a regular file, for a progress report on another thread.
 *
 * <p>Thread safety: the stream returned is for one reading thread; its {@link Meter} may be read by
 * any thread.
 */
public final class InputFiles {
    private InputFiles() {}

    /** Decompression's input and output buffers: large, so that each read of the file and of the inflater is a big one. */
    static final int GZIP_BUFFER_BYTES = 1 << 16;

    /** A read of gzip data that is not valid gzip (corrupt, cut short, or another format behind a .gz name). */
    public static final class CorruptInputException extends IOException {
        CorruptInputException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** {@code input} ("-" = {@code stdin}), decompressed if it is gzip (see the class comment). */
    public static InputStream open(String input, InputStream stdin) throws IOException {
        if (input.equals("-")) return stdin;
        Path p = Path.of(input);
        if (input.endsWith(".gz") || (Files.isRegularFile(p) && startsWithGzipMagic(p))) return new Gunzip(Files.newInputStream(p));
        // Plain input: the stream as it was before gzip was read, with nothing between the file and the reader's own buffer.
        return Files.newInputStream(p);
    }

    /** An opened input and the meter of the file under it. */
    public record Opened(InputStream stream, Meter meter) {}

    /**
     * As {@link #open}, with a {@link Meter} of the bytes taken from the file (or stdin, or the pipe)
     * itself: below the decompression, so that they compare with the file's length.
     */
    public static Opened openMetered(String input, InputStream stdin) throws IOException {
        if (input.equals("-")) {
            Meter m = new Meter(stdin, -1);
            return new Opened(m, m);
        }
        Path p = Path.of(input);
        boolean regular = Files.isRegularFile(p);
        boolean gzip = input.endsWith(".gz") || (regular && startsWithGzipMagic(p));
        Meter m = new Meter(Files.newInputStream(p), regular ? Files.size(p) : -1);
        return new Opened(gzip ? new Gunzip(m) : m, m);
    }

    /**
     * Counts the bytes read through it. One thread reads; {@link #bytesRead} is a volatile that
     * the reading thread alone writes (so the increment is not a lost update), once per read call:
     * a read fills a large buffer, so the store costs nothing per line.
     */
    public static final class Meter extends InputStream {
        private final InputStream in;
        private final long size;
        private volatile long bytesRead;

        Meter(InputStream in, long size) {
            this.in = in;
            this.size = size;
        }

        /** Bytes read so far: any thread. */
        public long bytesRead() {
            return bytesRead;
        }

        /** The file's length when it was opened, or -1 for stdin, a pipe or a FIFO. */
        public long size() {
            return size;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b >= 0) bytesRead = bytesRead + 1;
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, len);
            if (n > 0) bytesRead = bytesRead + n;
            return n;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }

    /** Whether a regular file starts with 1f 8b: peeked through a stream of its own, so that the plain path stays unwrapped. */
    private static boolean startsWithGzipMagic(Path p) throws IOException {
        try (InputStream in = Files.newInputStream(p)) {
            byte[] b = in.readNBytes(2);
            return b.length == 2 && b[0] == 0x1f && (b[1] & 0xFF) == 0x8b;
        }
    }

    /**
     * GZIPInputStream behind a stream that starts it at the first read (it reads the gzip header
     * when made, so that a header that is not gzip's is reported where the data is read, like
     * any other corruption) and turns its format errors into {@link CorruptInputException}.
     */
    private static final class Gunzip extends InputStream {
        private final InputStream raw;
        private GZIPInputStream gz;

        Gunzip(InputStream raw) {
            this.raw = raw;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            try {
                if (gz == null) gz = new GZIPInputStream(raw, GZIP_BUFFER_BYTES);
                return gz.read(b, off, len);
            } catch (ZipException e) {
                throw new CorruptInputException((gz == null ? "not gzip data (" : "corrupt gzip data (") + e.getMessage() + ")", e);
            } catch (EOFException e) {
                throw new CorruptInputException(gz == null ? "not gzip data (too short for a gzip header)"
                        : "the gzip data ends early (a cut file?)", e);
            }
        }

        @Override
        public void close() throws IOException {
            if (gz != null) gz.close();
            else raw.close();
        }
    }
}

package dev.flushline.ops;

import dev.flushline.data.Mutation;
import dev.flushline.schema.TableSchema;

import java.io.ByteArrayInputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Streams an operations file (JSON Lines, see OperationDecoder) as {@link Mutation}s, one line at a
 * time: blank lines and lines whose first non-blank characters are {@code //} are skipped, every
 * other line is one operation.
 *
 * <p>A bad line throws {@link BadInputException} naming {@code source:line}; the reader stays
 * usable and the next call continues with the following line, so a caller may skip bad lines.
 * Lines are split on bytes and decoded one by one, so text that is not UTF-8 is bad input on
 * exactly the line (and byte) where it appears. Line ends: LF or CRLF.
 *
 * <p>Thread safety: not thread-safe; one thread reads.
 */
public final class OperationReader implements Closeable {
    private final InputStream in;
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    /**
     * The longest line accepted, in bytes. A line is held whole in memory while it is decoded, so
     * without a bound one unterminated or runaway line (a binary file given by mistake, a
     * generator stuck in a loop) would exhaust the heap instead of being refused by line number.
     * 64 MiB is four times the largest mutation Cassandra accepts with its default 32 MiB commit
     * log segments, so no operation Cassandra would take is refused.
     */
    public static final int DEFAULT_MAX_LINE_BYTES = 64 << 20;

    private final int maxLineBytes;
    private byte[] lineBytes = new byte[4096];
    /** Our own read buffer: InputStream.read() per byte would take a lock per byte. */
    private final byte[] buffer = new byte[1 << 16];
    private int bufferPosition;
    private int bufferLimit;
    private boolean endOfInput;
    private CharBuffer chars = CharBuffer.allocate(4096);
    private final String source;
    private final OperationDecoder decoder;
    private final JsonParser parser = new JsonParser();
    private long lineNumber;
    private long operations;
    private long noOps;

    /** {@code source} names the input in messages, e.g. {@code ops.jsonl} or {@code <stdin>}. */
    public OperationReader(TableSchema schema, InputStream in, String source, long nowSeconds) {
        this(schema, in, source, new OperationDecoder(schema, nowSeconds));
    }

    /** Reads with {@code decoder} (its clock and expiry limit). */
    public OperationReader(TableSchema schema, InputStream in, String source, OperationDecoder decoder) {
        this(in, source, decoder, DEFAULT_MAX_LINE_BYTES);
    }

    /** As above, refusing lines longer than {@code maxLineBytes} (without the line end). */
    public OperationReader(InputStream in, String source, OperationDecoder decoder, int maxLineBytes) {
        if (maxLineBytes < 1) throw new IllegalArgumentException("maxLineBytes must be positive: " + maxLineBytes);
        this.in = in;
        this.source = source;
        this.decoder = decoder;
        this.maxLineBytes = maxLineBytes;
    }

    /** Reads {@code input} ("-" = stdin); messages name it as given, stdin as {@code <stdin>}. */
    public static OperationReader open(TableSchema schema, String input, InputStream stdin, long nowSeconds) throws IOException {
        return open(schema, input, stdin, new OperationDecoder(schema, nowSeconds));
    }

    /** As above, decoding with {@code decoder}. */
    public static OperationReader open(TableSchema schema, String input, InputStream stdin, OperationDecoder decoder) throws IOException {
        InputStream s = input.equals("-") ? stdin : Files.newInputStream(Path.of(input));
        return new OperationReader(schema, s, input.equals("-") ? "<stdin>" : input, decoder);
    }

    /** Test and API convenience: operations from a string. */
    public static OperationReader ofString(TableSchema schema, String text, String source, long nowSeconds) {
        return new OperationReader(schema, new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), source, nowSeconds);
    }

    /**
     * The next operation's mutation, or null at the end of the input. Operations that change
     * nothing (e.g. adding an empty list) are counted in {@link #noOps()} and skipped.
     */
    public Mutation next() throws IOException, BadInputException {
        while (true) {
            String line = readLine();
            if (line == null) return null;
            if (lineNumber == 1 && !line.isEmpty() && line.charAt(0) == '\uFEFF') line = line.substring(1);
            if (isSkipped(line)) continue;
            Object parsed;
            try {
                parsed = parser.parse(line);
            } catch (JsonSyntaxException e) {
                throw new BadInputException(source, lineNumber, "malformed JSON at column " + e.column() + ": " + e.getMessage());
            }
            Mutation m;
            try {
                m = decoder.decode(parsed);
            } catch (OperationDecoder.BadOperation e) {
                throw new BadInputException(source, lineNumber, e.getMessage());
            }
            operations++;
            if (m == null) {
                noOps++;
                continue;
            }
            return m;
        }
    }

    /** The next line without its LF / CRLF, decoded as strict UTF-8; null at the end. */
    private String readLine() throws IOException, BadInputException {
        int n = 0;
        long total = 0; // the whole line's length, also past maxLineBytes while it is skipped
        boolean any = false;
        while (true) {
            if (bufferPosition == bufferLimit) {
                if (endOfInput || !fill()) break;
            }
            any = true;
            int end = bufferPosition;
            final byte[] buf = buffer;
            final int limit = bufferLimit;
            while (end < limit && buf[end] != '\n') end++;
            int len = end - bufferPosition;
            total += len;
            // One byte of slack for the CR of a CRLF line end, which is not part of the line.
            if (total <= (long) maxLineBytes + 1) {
                if (n + len > lineBytes.length) {
                    lineBytes = java.util.Arrays.copyOf(lineBytes, (int) Math.min((long) maxLineBytes + 1, Math.max(n + len, 2L * lineBytes.length)));
                }
                System.arraycopy(buf, bufferPosition, lineBytes, n, len);
                n += len;
            }
            if (end < limit) {
                bufferPosition = end + 1; // past the LF
                break;
            }
            bufferPosition = limit;
        }
        if (!any) return null;
        lineNumber++;
        if (n > 0 && lineBytes[n - 1] == '\r' && total == n) {
            n--;
            total--;
        }
        if (total > maxLineBytes) {
            // The rest of the line has been consumed, so the next call starts at the next line.
            throw new BadInputException(source, lineNumber, "line is " + total + " bytes long, over the limit of "
                    + maxLineBytes + " bytes (a missing line end, or not a JSON Lines file?)");
        }
        if (chars.capacity() < n) chars = CharBuffer.allocate(Math.max(n, chars.capacity() * 2));
        chars.clear();
        ByteBuffer bytes = ByteBuffer.wrap(lineBytes, 0, n);
        utf8.reset();
        CoderResult r = utf8.decode(bytes, chars, true);
        if (!r.isError()) r = utf8.flush(chars);
        if (r.isError()) {
            throw new BadInputException(source, lineNumber, "not valid UTF-8 at byte " + (bytes.position() + 1) + " of the line");
        }
        chars.flip();
        return chars.toString();
    }

    private boolean fill() throws IOException {
        int r = in.read(buffer, 0, buffer.length);
        if (r <= 0) {
            // read() never returns 0 for a non-empty array unless at the end
            endOfInput = true;
            return false;
        }
        bufferPosition = 0;
        bufferLimit = r;
        return true;
    }

    static boolean isSkipped(String line) {
        int i = 0, n = line.length();
        while (i < n) {
            char c = line.charAt(i);
            if (c != ' ' && c != '\t' && c != '\r') break;
            i++;
        }
        return i == n || line.startsWith("//", i);
    }

    /** The line of the last operation returned or refused (1-based; 0 before the first). */
    public long lineNumber() { return lineNumber; }

    /** Valid operations read so far, no-ops included. */
    public long operations() { return operations; }

    /** Valid operations that changed nothing. */
    public long noOps() { return noOps; }

    public String source() { return source; }

    @Override
    public void close() throws IOException {
        in.close();
    }
}

package dev.flushline.ops;

import dev.flushline.data.Mutation;
import dev.flushline.schema.TableSchema;

import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Streams an operations file (JSON Lines, cli-contract.md) as {@link Mutation}s, one line at a
 * time: blank lines and lines whose first non-blank characters are {@code //} are skipped, every
 * other line is one operation.
 *
 * <p>A bad line throws {@link BadInputException} naming {@code source:line}; the reader stays
 * usable and the next call continues with the following line, so a caller may skip bad lines.
 * Text that is not UTF-8 is bad input on the line where it appears.
 *
 * <p>Thread safety: not thread-safe; one thread reads.
 */
public final class OperationReader implements Closeable {
    private final BufferedReader in;
    private final String source;
    private final OperationDecoder decoder;
    private final JsonParser parser = new JsonParser();
    private long lineNumber;
    private long operations;
    private long noOps;

    /** {@code source} names the input in messages, e.g. {@code ops.jsonl} or {@code <stdin>}. */
    public OperationReader(TableSchema schema, BufferedReader in, String source, long nowSeconds) {
        this.in = in;
        this.source = source;
        this.decoder = new OperationDecoder(schema, nowSeconds);
    }

    /** Reads {@code input} ("-" = stdin) as strict UTF-8; messages name it as given. */
    public static OperationReader open(TableSchema schema, String input, InputStream stdin, long nowSeconds) throws IOException {
        InputStream s = input.equals("-") ? stdin : Files.newInputStream(Path.of(input));
        InputStreamReader r = new InputStreamReader(s, StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT));
        return new OperationReader(schema, new BufferedReader(r, 1 << 16), input.equals("-") ? "<stdin>" : input, nowSeconds);
    }

    /**
     * The next operation's mutation, or null at the end of the input. Operations that change
     * nothing (e.g. adding an empty list) are counted in {@link #noOps()} and skipped.
     */
    public Mutation next() throws IOException, BadInputException {
        while (true) {
            String line;
            try {
                line = in.readLine();
            } catch (CharacterCodingException e) {
                lineNumber++;
                // The decoder cannot resynchronise inside a stream: this ends the input.
                throw new BadInputException(source, lineNumber, "the input is not valid UTF-8 (" + e.getMessage() + ")", false);
            }
            if (line == null) return null;
            lineNumber++;
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

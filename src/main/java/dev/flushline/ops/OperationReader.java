package dev.flushline.ops;

import dev.flushline.schema.ValueText;
import dev.flushline.data.InsertBuffer;
import dev.flushline.data.Mutation;
import dev.flushline.schema.TableSchema;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.ContentReference;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.io.IOContext;
import com.fasterxml.jackson.core.json.UTF8StreamJsonParser;
import com.fasterxml.jackson.core.sym.ByteQuadsCanonicalizer;
import com.fasterxml.jackson.core.util.BufferRecycler;
import dev.flushline.schema.ValueCodec;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * Streams an operations file (JSON Lines, see OperationDecoder) as {@link Mutation}s, one line at a
 * time: blank lines and lines whose first non-blank characters are {@code //} are skipped, every
 * other line is one operation.
 *
 * <p>A bad line throws {@link BadInputException} naming {@code source:line}; the reader stays
 * usable and the next call continues with the following line, so a caller may skip bad lines.
 * Lines are split on bytes and checked one by one as strict UTF-8, so text that is not UTF-8 is
 * bad input on exactly the line (and byte) where it appears. Line ends: LF or CRLF.
 *
 * <p>Parsing: jackson-core's UTF-8 byte parser runs over each line's bytes in place (no String
 * per line), and {@link #value} builds the value model {@code OperationDecoder} takes:
 * {@code LinkedHashMap} in key order, {@code ArrayList}, {@code String}, {@code BigDecimal} for
 * every number (built from the number's chars, so no digit is lost), {@code Boolean}, null. On
 * top of jackson's grammar this reader refuses what a load should not guess at: duplicate keys,
 * nesting deeper than {@link JsonParser#MAX_DEPTH}, numbers longer than
 * {@link ValueCodec#MAX_NUMBER_CHARS} chars or out of BigDecimal's range, lone surrogate escapes
 * (jackson passes them through as unpaired UTF-16), and anything after the line's one value.
 *
 * <p>The fast path: before any of that, a line is offered to {@link InsertScanner}, which decodes
 * the plainest inserts straight from the line's bytes, and then to {@link InsertDecoder}, which
 * decodes an insert of simple columns of the everyday types from the tokens of one reused parser
 * ({@link LineJsonParser}); neither builds a value model. Each takes a line only when it gives the
 * very mutation the value model would; anything else it declines and the line goes on to the next
 * path, so what is accepted, refused and said does not depend on the path a line took.
 *
 * <p>Messages: a refused line is rare, so its message comes from the slow path: the line is
 * decoded to a String and {@link JsonParser} names the first offending column (1-based, in
 * UTF-16 chars of the line) in the wording this reader has always used. Only if that parser
 * takes a line jackson refused is jackson's own message given, at jackson's column.
 *
 * <p>Thread safety: not thread-safe; one thread reads.
 */
public final class OperationReader implements MutationSource {
    private final InputStream in;
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
    /** The last line read was refused for its length before its end: the next read skips the rest of it first. */
    private boolean skippingOverlongLine;
    /** Set by {@link #abandon} from another thread; checked before each read of the input. */
    private volatile boolean abandoned;
    /** The current line is lineBytes[0, lineLength). */
    private int lineLength;
    /** Whether the current line may hold an escaped surrogate (a backslash, u, d), so its strings need the pairing check. */
    private boolean surrogateEscapes;
    private final String source;
    private final OperationDecoder decoder;
    /** The slow path for messages only: the wording and column of a refused line's first error. */
    private JsonParser messageParser;

    /**
     * jackson's defaults, less interning (names are never compared by identity, and map keys
     * are data: interning every one would fill the JVM's string table) and less the hash-flood
     * check (it throws IllegalStateException, which would end the load instead of refusing a line).
     */
    private static final int SYMBOL_FEATURES = JsonFactory.Feature.collectDefaults()
            & ~JsonFactory.Feature.INTERN_FIELD_NAMES.getMask()
            & ~JsonFactory.Feature.FAIL_ON_SYMBOL_HASH_OVERFLOW.getMask();
    private static final int PARSER_FEATURES = com.fasterxml.jackson.core.JsonParser.Feature.collectDefaults();
    /**
     * No limits from jackson's side: a line is already bounded by {@link #maxLineBytes}, and this reader
     * refuses long numbers and deep nesting itself, with messages that name the column. jackson's own
     * defaults (numbers of 1,000 chars, strings of 20 M chars) would refuse values Cassandra accepts.
     */
    private static final StreamReadConstraints UNCONSTRAINED = StreamReadConstraints.builder()
            .maxNumberLength(Integer.MAX_VALUE).maxStringLength(Integer.MAX_VALUE).maxNameLength(Integer.MAX_VALUE)
            .maxNestingDepth(Integer.MAX_VALUE).maxDocumentLength(-1).maxTokenCount(-1).build();
    /**
     * The names table is started afresh when it holds more names than this. A line's parser
     * copies the shared table before its first new name, so with map keys (which are data,
     * new on most lines) an ever-growing table would cost a copy of it per line; the schema's
     * names fit well within the bound and are relearned in one line after a reset.
     */
    private final int maxSharedNames;
    private ByteQuadsCanonicalizer names = ByteQuadsCanonicalizer.createRoot();
    /** One reader, one thread: jackson's char buffers are recycled from line to line through this. */
    private final BufferRecycler recycler = new BufferRecycler();
    /** The fast path: most lines are decoded from the tokens of one reused parser, without a value model. */
    private final InsertDecoder insertDecoder;
    /** Ahead of it, the plainest of those lines straight from their bytes. */
    private final InsertScanner insertScanner;
    private boolean scanner = true;
    private long scanned;
    /** Created at the first line, and again when its names table passes {@link #maxSharedNames}. */
    private LineJsonParser lineParser;
    private boolean fastPath = true;
    /** Where {@link #next()} decodes fast-path lines before it builds their mutation. */
    private InsertBuffer ownBuffer;
    private long fastTaken;
    private long lineNumber;
    private long operations;
    private long noOps;
    private long bytesRead;

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
        TableSchema t = decoder.schema();
        int columns = t.partitionKeyColumns().length + t.clusteringColumns().length + t.staticColumns().length
                + t.regularColumns().length;
        this.maxSharedNames = 64 + 2 * columns;
        this.insertDecoder = new InsertDecoder(decoder);
        this.insertScanner = new InsertScanner(decoder, insertDecoder.kinds());
    }

    /**
     * Turns the fast path ({@link InsertDecoder}) off or on: off, every line goes through the value
     * model. For tests that hold both paths to the same result.
     */
    void fastPath(boolean on) {
        this.fastPath = on;
    }

    /**
     * Turns the scanner ({@link InsertScanner}, the first step of the fast path) off or on: off, the
     * fast path decodes every line from jackson's tokens. For tests that hold the two to the same result.
     */
    void scanner(boolean on) {
        this.scanner = on;
    }

    /** Lines the fast path decoded (tests: that it took the lines they mean it to). */
    long fastTaken() {
        return fastTaken;
    }

    /** Of those, the lines the scanner decoded. */
    long scanned() {
        return scanned;
    }

    /**
     * Reads {@code input} ("-" = stdin), decompressing gzip (see {@link InputFiles}); messages name it
     * as given, stdin as {@code <stdin>}.
     */
    public static OperationReader open(TableSchema schema, String input, InputStream stdin, long nowSeconds) throws IOException {
        return open(schema, input, stdin, new OperationDecoder(schema, nowSeconds));
    }

    /** As above, decoding with {@code decoder}. */
    public static OperationReader open(TableSchema schema, String input, InputStream stdin, OperationDecoder decoder) throws IOException {
        return new OperationReader(schema, InputFiles.open(input, stdin), input.equals("-") ? "<stdin>" : input, decoder);
    }

    /** Test and API convenience: operations from a string. */
    public static OperationReader ofString(TableSchema schema, String text, String source, long nowSeconds) {
        return new OperationReader(schema, new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), source, nowSeconds);
    }

    /**
     * The next operation's mutation, or null at the end of the input. Operations that change
     * nothing (e.g. adding an empty list) are counted in {@link #noOps()} and skipped.
     */
    @Override
    public Mutation next() throws IOException, BadInputException {
        if (ownBuffer == null) ownBuffer = new InsertBuffer(decoder.schema());
        Object item = next(ownBuffer);
        return item == ownBuffer ? ownBuffer.toMutation() : (Mutation) item;
    }

    /** As {@link #next()}, but a line the fast path takes is decoded into {@code into}, which is returned. */
    @Override
    public Object next(InsertBuffer into) throws IOException, BadInputException {
        while (true) {
            if (!readLine()) return null;
            int start = 0;
            if (lineNumber == 1 && lineLength >= 3 && lineBytes[0] == (byte) 0xEF && lineBytes[1] == (byte) 0xBB
                    && lineBytes[2] == (byte) 0xBF) {
                start = 3; // the byte order mark U+FEFF some editors put at the start of a file
            }
            if (isSkipped(lineBytes, start, lineLength)) continue;
            if (fastPath && scanner && insertScanner.decode(lineBytes, start, lineLength, into)) {
                scanned++;
                fastTaken++;
                operations++;
                return into;
            }
            // The scanner declines every backslash-u escape; past it, an escaped surrogate needs the pairing
            // check of the value model's path.
            surrogateEscapes = mayHoldSurrogateEscape(lineBytes, lineLength);
            if (fastPath && !surrogateEscapes && insertDecoder.decode(lineParser(start, lineLength), into)) {
                fastTaken++;
                operations++;
                return into;
            }
            Object parsed = parse(start, lineLength);
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

    @Override
    public InsertBuffer newInsertBuffer() {
        return new InsertBuffer(decoder.schema());
    }

    /** Refused by this reader's rules beyond jackson's grammar; the message comes from the slow path. */
    private static final class Refused extends Exception {
        Refused(String reason) {
            super(reason, null, false, false);
        }
    }

    /** The reused parser, pointed at lineBytes[start, end). */
    private LineJsonParser lineParser(int start, int end) {
        LineJsonParser p = lineParser;
        if (p == null || p.nameCount() > maxSharedNames) {
            if (names.size() > maxSharedNames) names = ByteQuadsCanonicalizer.createRoot();
            p = LineJsonParser.create(UNCONSTRAINED, recycler, PARSER_FEATURES, names.makeChild(SYMBOL_FEATURES));
            lineParser = p;
        }
        p.reset(lineBytes, start, end);
        return p;
    }

    /** The one JSON value of lineBytes[start, end), in the value model; REQUIRES: the bytes are valid UTF-8. */
    private Object parse(int start, int end) throws BadInputException {
        if (names.size() > maxSharedNames) names = ByteQuadsCanonicalizer.createRoot();
        IOContext context = new IOContext(UNCONSTRAINED, recycler, ContentReference.unknown(), false);
        com.fasterxml.jackson.core.JsonParser parser = new UTF8StreamJsonParser(context, PARSER_FEATURES, null, null,
                names.makeChild(SYMBOL_FEATURES), lineBytes, start, end, 0, false);
        try {
            Object v = value(parser, parser.nextToken(), 0);
            if (parser.nextToken() != null) throw new Refused("more than one JSON value on the line");
            return v;
        } catch (JsonProcessingException e) {
            throw malformed(start, end, e.getOriginalMessage(), e.getLocation());
        } catch (Refused e) {
            throw malformed(start, end, e.getMessage(), null);
        } catch (IOException e) {
            // Input from a byte array: any other IOException is a parse problem as well.
            throw malformed(start, end, String.valueOf(e.getMessage()), null);
        } finally {
            try {
                parser.close(); // returns the char buffers to the recycler, merges new names into the table
            } catch (IOException ignored) {
                // nothing to close: the input is a byte array
            }
        }
    }

    /**
     * The value that starts at token {@code t}, nested in {@code depth} arrays and objects;
     * the parser ends on the value's last token.
     */
    private Object value(com.fasterxml.jackson.core.JsonParser parser, JsonToken t, int depth) throws IOException, Refused {
        if (t == null) throw new Refused("unexpected end of line, expected a value");
        switch (t) {
            case START_OBJECT: {
                if (depth >= JsonParser.MAX_DEPTH) throw new Refused("nested deeper than " + JsonParser.MAX_DEPTH + " levels");
                LinkedHashMap<String, Object> m = new LinkedHashMap<>();
                JsonToken n;
                while ((n = parser.nextToken()) == JsonToken.FIELD_NAME) {
                    String key = parser.getCurrentName();
                    if (surrogateEscapes && !pairedSurrogates(key)) throw new Refused("lone surrogate");
                    Object v = value(parser, parser.nextToken(), depth + 1);
                    if (m.containsKey(key)) throw new Refused("duplicate key " + ValueText.display(key));
                    m.put(key, v);
                }
                if (n != JsonToken.END_OBJECT) throw new Refused("unexpected " + n + " in an object");
                return m;
            }
            case START_ARRAY: {
                if (depth >= JsonParser.MAX_DEPTH) throw new Refused("nested deeper than " + JsonParser.MAX_DEPTH + " levels");
                List<Object> list = new ArrayList<>();
                JsonToken n;
                while ((n = parser.nextToken()) != JsonToken.END_ARRAY) list.add(value(parser, n, depth + 1));
                return list;
            }
            case VALUE_STRING: {
                String s = parser.getText();
                if (surrogateEscapes && !pairedSurrogates(s)) throw new Refused("lone surrogate");
                return s;
            }
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT:
                return number(parser);
            case VALUE_TRUE: return Boolean.TRUE;
            case VALUE_FALSE: return Boolean.FALSE;
            case VALUE_NULL: return null;
            default: throw new Refused("unexpected " + t + ", expected a value");
        }
    }

    /** The current number token as a BigDecimal, built from its chars (no String). */
    private static BigDecimal number(com.fasterxml.jackson.core.JsonParser parser) throws IOException, Refused {
        final int length = parser.getTextLength();
        // BigDecimal parses in quadratic time: a million digits would take half a minute.
        if (length > ValueCodec.MAX_NUMBER_CHARS) throw new Refused("number of " + length + " chars");
        final char[] chars = parser.getTextCharacters();
        final int offset = parser.getTextOffset();
        BigDecimal d;
        try {
            d = new BigDecimal(chars, offset, length);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new Refused("number out of range"); // only an exponent beyond int range gets here
        }
        if (d.signum() == 0 && chars[offset] == '-' && fractionOrExponent(chars, offset, offset + length)) {
            return new ValueCodec.NegativeZero(d.scale()); // -0.0 keeps its sign for float/double
        }
        return d;
    }

    private static boolean fractionOrExponent(char[] c, int from, int to) {
        for (int i = from; i < to; i++) {
            char x = c[i];
            if (x == '.' || x == 'e' || x == 'E') return true;
        }
        return false;
    }

    /** Whether every surrogate in {@code s} is half of a pair (jackson decodes escapes without checking). */
    private static boolean pairedSurrogates(String s) {
        final int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 == n || !Character.isLowSurrogate(s.charAt(i + 1))) return false;
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The message of a refused line lineBytes[start, end): our parser's wording and column; if
     * it takes the line, {@code reason} at {@code location}'s column (or the first).
     */
    private BadInputException malformed(int start, int end, String reason, JsonLocation location) {
        String text = new String(lineBytes, start, end - start, StandardCharsets.UTF_8);
        if (messageParser == null) messageParser = new JsonParser();
        try {
            messageParser.parse(text);
        } catch (JsonSyntaxException e) {
            return new BadInputException(source, lineNumber, "malformed JSON at column " + e.column() + ": " + e.getMessage());
        }
        int column = 1;
        if (location != null && location.getByteOffset() >= 0) {
            column = 1 + charsIn(lineBytes, start, (int) Math.min(end, start + location.getByteOffset()));
        }
        return new BadInputException(source, lineNumber, "malformed JSON at column " + column + ": " + ValueText.cut(reason));
    }

    /** UTF-16 chars in the valid UTF-8 bytes b[from, to): one per lead byte, two for a 4-byte sequence. */
    private static int charsIn(byte[] b, int from, int to) {
        int n = 0;
        for (int i = from; i < to; i++) {
            int x = b[i] & 0xFF;
            if ((x & 0xC0) != 0x80) n += x >= 0xF0 ? 2 : 1;
        }
        return n;
    }

    /**
     * Reads the next line, without its LF / CRLF, into lineBytes[0, lineLength) and checks it is
     * strict UTF-8; false at the end of the input.
     *
     * <p>A line longer than {@link #maxLineBytes} is refused as soon as its length passes the limit,
     * not at its end: input without line ends (a binary file, {@code /dev/zero} on stdin) would
     * otherwise be read for ever before anything is said. The rest of that line is skipped at the next
     * call, which returns the line after it.
     */
    private boolean readLine() throws IOException, BadInputException {
        try {
            return readLineOrCorrupt();
        } catch (InputFiles.CorruptInputException e) {
            // Compressed input that stops decompressing: the line being read is where the input went bad,
            // and nothing after it can be read.
            endOfInput = true;
            bufferPosition = bufferLimit;
            skippingOverlongLine = false;
            throw new BadInputException(source, lineNumber + 1, e.getMessage(), false);
        }
    }

    private boolean readLineOrCorrupt() throws IOException, BadInputException {
        if (skippingOverlongLine) {
            if (!skipToLineEnd()) return false;
            skippingOverlongLine = false;
        }
        int n = 0;
        boolean any = false;
        while (true) {
            if (bufferPosition == bufferLimit) {
                if (endOfInput || !fill()) break;
            }
            any = true;
            final byte[] buf = buffer;
            final int limit = bufferLimit;
            int end = lineEnd(buf, bufferPosition, limit);
            int len = end - bufferPosition;
            // One byte of slack for the CR of a CRLF line end, which is not part of the line.
            if ((long) n + len > (long) maxLineBytes + 1) {
                bufferPosition = end;
                lineNumber++;
                skippingOverlongLine = true;
                throw new BadInputException(source, lineNumber, "line is longer than the limit of " + maxLineBytes
                        + " bytes (a missing line end, or not a JSON Lines file?)");
            }
            if (n + len > lineBytes.length) {
                lineBytes = java.util.Arrays.copyOf(lineBytes, (int) Math.min((long) maxLineBytes + 1, Math.max(n + len, 2L * lineBytes.length)));
            }
            System.arraycopy(buf, bufferPosition, lineBytes, n, len);
            n += len;
            if (end < limit) {
                bufferPosition = end + 1; // past the LF
                break;
            }
            bufferPosition = limit;
        }
        if (!any) return false;
        lineNumber++;
        if (n > 0 && lineBytes[n - 1] == '\r') n--;
        if (n > maxLineBytes) {
            throw new BadInputException(source, lineNumber, "line is longer than the limit of " + maxLineBytes
                    + " bytes (a missing line end, or not a JSON Lines file?)");
        }
        lineLength = n;
        int bad = checkUtf8(lineBytes, n);
        if (bad >= 0) {
            // gzip's magic bytes at the start of stdin or a pipe, which are read as they are (see InputFiles)
            boolean gzip = lineNumber == 1 && n >= 2 && lineBytes[0] == 0x1f && (lineBytes[1] & 0xFF) == 0x8b;
            throw new BadInputException(source, lineNumber, "not valid UTF-8 at byte " + (bad + 1) + " of the line"
                    + (gzip ? " (gzip data? stdin and pipes are not decompressed: pipe it through zcat, or give the file)" : ""));
        }
        return true;
    }

    /** Skips past the next LF; false if the input ended first. */
    private boolean skipToLineEnd() throws IOException {
        while (true) {
            if (bufferPosition == bufferLimit) {
                if (endOfInput || !fill()) return false;
            }
            final int limit = bufferLimit;
            int end = lineEnd(buffer, bufferPosition, limit);
            if (end < limit) {
                bufferPosition = end + 1;
                return true;
            }
            bufferPosition = limit;
        }
    }

    /**
     * The index of the first byte of b[0, n) where strict UTF-8 (RFC 3629: shortest forms only,
     * no surrogates, nothing past U+10FFFF) stops, or -1 if it is all valid.
     */
    private static int checkUtf8(byte[] b, int n) {
        int i = 0;
        while (i < n) {
            // Sixteen ASCII bytes at a time: nothing in them can be invalid, and the byte-wise steps
            // below always stop on a character boundary.
            if (i + 2 * Long.BYTES <= n && ((ByteWords.word(b, i) | ByteWords.word(b, i + Long.BYTES)) & ByteWords.HIGH_BITS) == 0) {
                i += 2 * Long.BYTES;
                continue;
            }
            int x = b[i];
            if (x >= 0) {
                i++;
                continue;
            }
            x &= 0xFF;
            int length, min2 = 0x80, max2 = 0xBF;
            if (x >= 0xC2 && x <= 0xDF) {
                length = 2;
            } else if (x >= 0xE0 && x <= 0xEF) {
                length = 3;
                if (x == 0xE0) min2 = 0xA0;      // shorter forms are overlong
                else if (x == 0xED) max2 = 0x9F; // U+D800..U+DFFF are surrogates
            } else if (x >= 0xF0 && x <= 0xF4) {
                length = 4;
                if (x == 0xF0) min2 = 0x90;
                else if (x == 0xF4) max2 = 0x8F; // past U+10FFFF
            } else {
                return i; // a continuation byte without a lead, an overlong 2-byte lead, or 0xF5..0xFF
            }
            if (i + length > n) return i;
            int second = b[i + 1] & 0xFF;
            if (second < min2 || second > max2) return i;
            for (int k = 2; k < length; k++) {
                if ((b[i + k] & 0xC0) != 0x80) return i;
            }
            i += length;
        }
        return -1;
    }

    /**
     * Whether b[0, n), valid UTF-8, may hold an escaped surrogate: a backslash, then u, then d or D.
     * A backslash and the ASCII character it escapes are taken as a pair, as JSON reads them: text
     * holding a backslash and then "ud" is not taken for a surrogate escape (its lines would leave the
     * fast path for nothing), and a real escape is found after any escaped backslash. Asked only of
     * the lines the scanner declined, which takes no such escape.
     */
    private static boolean mayHoldSurrogateEscape(byte[] b, int n) {
        int i = 0;
        while (i < n) {
            if (i + Long.BYTES <= n && ByteWords.bytesEqualTo(ByteWords.word(b, i), ByteWords.BACKSLASHES) == 0) {
                i += Long.BYTES;
                continue;
            }
            if (b[i] == '\\' && i + 1 < n && b[i + 1] >= 0) {
                if (b[i + 1] == 'u' && i + 2 < n && (b[i + 2] | 0x20) == 'd') return true;
                i += 2;
                continue;
            }
            i++;
        }
        return false;
    }

    /** The index of the first LF in {@code buf[from, limit)}, or {@code limit}; eight bytes at a time. */
    private static int lineEnd(byte[] buf, int from, int limit) {
        int i = from;
        while (i + Long.BYTES <= limit) {
            long m = ByteWords.bytesEqualTo(ByteWords.word(buf, i), ByteWords.NEWLINES);
            if (m != 0) return i + ByteWords.firstMarked(m);
            i += Long.BYTES;
        }
        while (i < limit && buf[i] != '\n') i++;
        return i;
    }

    private boolean fill() throws IOException {
        if (abandoned) throw new IOException("reading " + source + " was abandoned");
        int r = in.read(buffer, 0, buffer.length);
        if (r <= 0) {
            // read() never returns 0 for a non-empty array unless at the end
            endOfInput = true;
            return false;
        }
        bufferPosition = 0;
        bufferLimit = r;
        bytesRead += r;
        return true;
    }

    /** Blank (spaces, tabs, CRs) or a comment: the first non-blank bytes of b[from, to) are {@code //}. */
    static boolean isSkipped(byte[] b, int from, int to) {
        int i = from;
        while (i < to) {
            byte c = b[i];
            if (c != ' ' && c != '\t' && c != '\r') break;
            i++;
        }
        return i == to || (i + 1 < to && b[i] == '/' && b[i + 1] == '/');
    }

    /** The line of the last operation returned or refused (1-based; 0 before the first). */
    @Override
    public long lineNumber() { return lineNumber; }

    /** Valid operations read so far, no-ops included. */
    public long operations() { return operations; }

    /** Valid operations that changed nothing. */
    @Override
    public long noOps() { return noOps; }

    /**
     * Bytes taken from the input so far: what this reader has buffered, so up to one read buffer
     * (64 KiB) past the end of the last line returned. A bound on how much input a caller holds.
     */
    @Override
    public long bytesRead() { return bytesRead; }

    @Override
    public String source() { return source; }

    /**
     * Makes the reading thread stop at its next read of the input (with an IOException) instead of
     * going on: for a caller on another thread that no longer wants what is read, when the reader may
     * be deep in a line that never ends. Any thread; a read already blocked in the input returns first.
     */
    @Override
    public void abandon() {
        abandoned = true;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}

package dev.flushline.ops;

import dev.flushline.data.InsertBuffer;
import dev.flushline.data.Mutation;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlType;
import dev.flushline.schema.TableSchema;
import dev.flushline.schema.ValueText;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.dataformat.csv.CsvFactory;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Streams a CSV file as {@link Mutation}s, as {@code cqlsh COPY FROM} loads one: each record is an
 * {@code INSERT} of one row ({@code INSERT INTO ks.t (c1, c2, ...) VALUES (...) USING TIMESTAMP T
 * [AND TTL S]}), so the row gets liveness; the write time and TTL come from {@link CsvOptions},
 * the same for every row.
 *
 * <p><b>Records.</b> jackson-dataformat-csv tokenizes the input: fields separated by the delimiter,
 * a field in quotes may hold delimiters and line ends, and inside quotes a quote is written doubled
 * or escaped. The escape character (default {@code \}) takes the next character as it is, except
 * {@code \n}, {@code \r}, {@code \t} and {@code \0}, which are LF, CR, tab and NUL (cqlsh's Python
 * reader would give the letter). Lines end in LF, CRLF or CR; blank lines are skipped; a byte
 * order mark at the start is dropped. The input must be strict UTF-8 ({@link CheckedUtf8Input}).
 * A record's line is the line where it starts.
 *
 * <p><b>Columns.</b> From {@link CsvOptions#columns}, else from the header line, else the table's
 * columns in cqlsh's order (partition key, clustering, then the others by name). A header names
 * each field's column: exactly as the column is named, or in double quotes, or in any case if the
 * lowercased name is the column's (as CQL reads an unquoted name). An unknown column, a column
 * named twice or a missing primary key column refuses the whole input before any row is read.
 *
 * <p><b>Values</b> ({@link #value}): a field equal to the null marker is null, which writes a
 * tombstone, or nothing with {@link CsvOptions#nullsUnset}; a primary key column cannot be null.
 * With a marker that is not empty, an empty field is the empty string for text and ascii, an empty
 * blob, {@code false} for a boolean (as COPY FROM converts it) and null for every other type (as
 * COPY FROM inserts null for an empty field it cannot convert). Otherwise a field is the value's
 * text as cqlsh's {@code COPY TO} writes it: text and ascii as they are (never unquoted or trimmed),
 * other native types as their CQL literal without quotes ({@code 42}, {@code 0xcafe},
 * {@code 2024-01-31 10:00:00.000+0000}, {@code True}; spaces around them are dropped), and
 * collections, tuples, UDTs and vectors as CQL literals ({@code [1, 2]}, {@code {'a': 1}},
 * {@code (1, 'x')}, {@code {street: 'Main', zip: 75001}}), read by {@link CqlLiteral#parseCopy}.
 *
 * <p>A bad record throws {@link BadInputException} naming {@code source:line}; a record of the wrong
 * length, a value that does not fit its column, or a field of malformed quoting is skippable (the
 * reader goes on with the next record); bytes that are not UTF-8, a field longer than
 * {@link #MAX_FIELD_CHARS} and a quote never closed are not.
 *
 * <p><b>The fast path.</b> Most records are read by {@link CsvRecordDecoder} in place, in a window of
 * the input's chars ({@link CsvChars}), and decoded straight into an {@link InsertBuffer} with no object
 * per field ({@link #next(InsertBuffer)}). It takes a record only when it gives the very mutation the
 * path above would; anything else it leaves where it is, and jackson's tokenizer reads it from the
 * same window, with the value model: so what is accepted, refused and said does not depend on the
 * path a record took ({@code CsvFastPathTest} holds the two to the same outcomes on random inputs).
 * jackson is handed the window's chars a line at a time. A parser is made where the fast path leaves
 * a record, kept while the records after it are left too, and dropped when the fast path takes one
 * again; it counts lines and columns from where it was made, which this reader turns into the
 * input's. An input whose first bytes jackson would read as UTF-16 or UTF-32 (a NUL among its first
 * two) is read by jackson from its bytes alone, as every input was before there was a fast path.
 *
 * <p>Thread safety: not thread-safe; one thread reads ({@link #abandon} from any).
 */
public final class CsvReader implements MutationSource {
    /**
     * The longest field taken, in chars: a field is held whole while it is read, so a quote that is
     * never closed would otherwise read the rest of the input into memory. As the longest line of a
     * JSON Lines input, it is far above any value Cassandra takes in one mutation.
     */
    public static final int MAX_FIELD_CHARS = OperationReader.DEFAULT_MAX_LINE_BYTES;

    /**
     * Blank lines skipped; no limits from jackson's side but the field length (the input is a
     * stream of records, each bounded by its fields and its count of them by the table).
     */
    private static final CsvFactory FACTORY = factory(MAX_FIELD_CHARS);

    private static CsvFactory factory(int maxFieldChars) {
        return CsvFactory.builder()
                .enable(CsvParser.Feature.SKIP_EMPTY_LINES)
                .streamReadConstraints(StreamReadConstraints.builder().maxStringLength(maxFieldChars)
                        .maxNumberLength(Integer.MAX_VALUE).maxNameLength(Integer.MAX_VALUE).maxNestingDepth(Integer.MAX_VALUE)
                        .maxDocumentLength(-1).maxTokenCount(-1).build())
                .build();
    }

    /** Marks a null field in {@link #value}'s result. */
    private static final Object NULL = new Object();

    private final CheckedUtf8Input input;
    /** The input's chars, which the fast path and jackson share; null when jackson reads the bytes itself (see the class comment). */
    private final CsvChars chars;
    /** Makes jackson's parsers, each with {@link #dialect}. */
    private final CsvFactory factory;
    private final CsvSchema dialect;
    /**
     * The tokenizer of the records the fast path leaves; null while it holds none. Over {@link #chars}
     * it starts at line {@link #parserFirstLine}, column {@link #parserFirstColumn} + 1 of the input.
     */
    private CsvParser parser;
    private long parserFirstLine = 1;
    private int parserFirstColumn;
    /** jackson holds one char the window took back ({@link CsvChars#takeBack}): the parser can go on if the fast path leaves the record. */
    private boolean parserParked;
    /** The line of the window's next char, and the chars before it on that line, while no parser holds the input. */
    private long nextLine = 1;
    private int nextColumn;
    /** The fast path: null if jackson reads every record (its bytes alone, or columns of types the fast path does not take). */
    private CsvRecordDecoder fast;
    private InsertBuffer ownBuffer;
    private long fastTaken;
    private final String source;
    private final OperationDecoder decoder;
    private final CsvOptions options;
    private final int maxFieldChars;
    /** The column of each field. */
    private final ColumnMetadata[] columns;
    private final String[] fields;
    private final BigDecimal timestamp;
    private final BigDecimal ttl;
    private long lineNumber;
    private long noOps;
    /** Between a record's start and end tokens. */
    private boolean inRecord;
    /** The end of the input, or a failure that reading cannot go on past: next() returns null from now on. */
    private boolean ended;

    /**
     * Reads {@code in}, named {@code source} in messages; reads the header line now if there is one.
     * @throws BadInputException (not skippable) if the header or the columns cannot be loaded: nothing of the input is
     *         loaded then; the caller closes {@code in}.
     * @throws IllegalArgumentException if {@link CsvOptions#columns} does not fit the table (see {@link #resolveColumns})
     */
    public CsvReader(InputStream in, String source, OperationDecoder decoder, CsvOptions options) throws IOException, BadInputException {
        this(in, source, decoder, options, MAX_FIELD_CHARS);
    }

    /** As above, refusing fields longer than {@code maxFieldChars} (tests). */
    CsvReader(InputStream in, String source, OperationDecoder decoder, CsvOptions options, int maxFieldChars)
            throws IOException, BadInputException {
        this(in, source, decoder, options, maxFieldChars, true);
    }

    /** As above; without {@code fastPath}, jackson reads every record from the bytes and the value model decodes it (tests). */
    CsvReader(InputStream in, String source, OperationDecoder decoder, CsvOptions options, int maxFieldChars, boolean fastPath)
            throws IOException, BadInputException {
        this.maxFieldChars = maxFieldChars;
        this.input = new CheckedUtf8Input(in, source);
        this.source = source;
        this.decoder = decoder;
        this.options = options;
        TableSchema schema = decoder.schema();
        CsvSchema d = CsvSchema.emptySchema().withColumnSeparator(options.delimiter).withQuoteChar(options.quote);
        this.dialect = options.escape == CsvOptions.NO_ESCAPE ? d.withoutEscapeChar() : d.withEscapeChar((char) options.escape);
        this.factory = maxFieldChars == MAX_FIELD_CHARS ? FACTORY : factory(maxFieldChars);
        if (fastPath) {
            this.chars = charsUnlessWide(new CsvChars(input));
        } else {
            this.chars = null;
            parser = factory.createParser(input);
            parser.setSchema(dialect);
        }
        this.timestamp = BigDecimal.valueOf(options.timestampMicros);
        this.ttl = options.ttlSeconds == CsvOptions.TABLE_TTL ? null : BigDecimal.valueOf(options.ttlSeconds);
        ColumnMetadata[] cols;
        if (options.columns != null) {
            cols = resolveColumns(schema, options.columns, "--columns");
            if (options.header) skipHeader();
        } else if (options.header) {
            cols = readHeader(schema);
        } else {
            cols = tableOrder(schema);
        }
        this.columns = cols;
        this.fields = new String[cols == null ? 0 : cols.length];
        if (chars != null && cols != null) {
            CsvRecordDecoder f = new CsvRecordDecoder(chars, decoder, options, cols, maxFieldChars);
            if (f.usable()) fast = f;
        }
        afterSlowRecord();
    }

    /**
     * {@code c}, or null if jackson reads this input's bytes as UTF-16 or UTF-32: it guesses so, without a
     * byte order mark, from a NUL among the first two bytes (its encoding detection). Drops a UTF-8 byte
     * order mark where jackson does (at the start of an input of four bytes or more).
     */
    private CsvChars charsUnlessWide(CsvChars c) throws IOException {
        int n = c.peekBytes(4);
        if (n >= 2 && (c.peekedByte(0) == 0 || c.peekedByte(1) == 0)) {
            parser = factory.createParser(c.undecodedInput());
            parser.setSchema(dialect);
            return null;
        }
        if (n >= 4 && c.peekedByte(0) == (byte) 0xEF && c.peekedByte(1) == (byte) 0xBB && c.peekedByte(2) == (byte) 0xBF) c.skipBytes(3);
        return c;
    }

    /** Records the fast path took (tests: that it took the records they mean it to). */
    long fastTaken() {
        return fastTaken;
    }

    /** Reads {@code input} ("-" = stdin); messages name it as given, stdin as {@code <stdin>}. Closes it if it cannot start. */
    public static CsvReader open(String input, InputStream stdin, OperationDecoder decoder, CsvOptions options)
            throws IOException, BadInputException {
        InputStream s = InputFiles.open(input, stdin); // gzip decompressed as it is read, as for JSON Lines
        try {
            return new CsvReader(s, input.equals("-") ? "<stdin>" : input, decoder, options);
        } catch (IOException | BadInputException | RuntimeException | Error e) {
            try {
                s.close();
            } catch (IOException x) {
                e.addSuppressed(x);
            }
            throw e;
        }
    }

    /** Test and API convenience: a CSV text. */
    public static CsvReader ofString(String text, String source, OperationDecoder decoder, CsvOptions options)
            throws IOException, BadInputException {
        return new CsvReader(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), source, decoder, options);
    }

    // ---------------------------------------------------------------------------------------
    // columns

    /**
     * The table's columns in the order cqlsh's COPY takes them without a column list: the partition
     * key and clustering columns in order, then the static and regular columns by name (UTF-8 byte order).
     */
    public static ColumnMetadata[] tableOrder(TableSchema schema) {
        List<ColumnMetadata> out = new ArrayList<>(Arrays.asList(schema.partitionKeyColumns()));
        out.addAll(Arrays.asList(schema.clusteringColumns()));
        List<ColumnMetadata> rest = new ArrayList<>(Arrays.asList(schema.staticColumns()));
        rest.addAll(Arrays.asList(schema.regularColumns()));
        rest.sort((a, b) -> Arrays.compareUnsigned(a.nameBytes(), b.nameBytes()));
        out.addAll(rest);
        return out.toArray(new ColumnMetadata[0]);
    }

    /**
     * The columns {@code names} give, in order: each name as the column is named, or in double
     * quotes, or lowercased as CQL reads an unquoted name. Every primary key column must be there,
     * no column twice.
     * @throws IllegalArgumentException naming the problem, prefixed by {@code what}
     */
    public static ColumnMetadata[] resolveColumns(TableSchema schema, List<String> names, String what) {
        ColumnMetadata[] out = new ColumnMetadata[names.size()];
        for (int i = 0; i < out.length; i++) {
            String raw = names.get(i), name = raw.strip();
            if (name.isEmpty()) throw new IllegalArgumentException(what + ": column " + (i + 1) + " has no name");
            ColumnMetadata c = column(schema, name);
            if (c == null) {
                throw new IllegalArgumentException(what + ": " + ValueText.display(raw) + " is not a column of table " + schema
                        + " (its columns: " + names(tableOrder(schema)) + ")");
            }
            for (int j = 0; j < i; j++) {
                if (out[j] == c) {
                    throw new IllegalArgumentException(what + ": column '" + c.name() + "' is named twice (columns " + (j + 1)
                            + " and " + (i + 1) + ")");
                }
            }
            out[i] = c;
        }
        for (ColumnMetadata[] key : new ColumnMetadata[][] {schema.partitionKeyColumns(), schema.clusteringColumns()}) {
            for (ColumnMetadata k : key) {
                if (!Arrays.asList(out).contains(k)) {
                    throw new IllegalArgumentException(what + ": the " + (k.role() == ColumnMetadata.Role.PARTITION_KEY
                            ? "partition key" : "clustering") + " column '" + k.name() + "' (" + k.type() + ") is missing; every row gives "
                            + "the whole primary key (" + names(primaryKey(schema)) + ")");
                }
            }
        }
        return out;
    }

    private static ColumnMetadata column(TableSchema schema, String name) {
        ColumnMetadata c = schema.column(name);
        if (c != null) return c;
        if (name.length() >= 2 && name.startsWith("\"") && name.endsWith("\"")) {
            return schema.column(name.substring(1, name.length() - 1).replace("\"\"", "\""));
        }
        return schema.column(name.toLowerCase(Locale.ROOT));
    }

    private static ColumnMetadata[] primaryKey(TableSchema schema) {
        List<ColumnMetadata> out = new ArrayList<>(Arrays.asList(schema.partitionKeyColumns()));
        out.addAll(Arrays.asList(schema.clusteringColumns()));
        return out.toArray(new ColumnMetadata[0]);
    }

    private static String names(ColumnMetadata[] cs) {
        StringBuilder sb = new StringBuilder();
        for (ColumnMetadata c : cs) sb.append(sb.length() == 0 ? "" : ", ").append(c.name());
        return sb.toString();
    }

    private ColumnMetadata[] readHeader(TableSchema schema) throws IOException, BadInputException {
        List<String> names = new ArrayList<>();
        if (!readRecord(names)) return null; // an empty input: no rows to load
        try {
            return resolveColumns(schema, names, "header");
        } catch (IllegalArgumentException e) {
            throw new BadInputException(source, lineNumber, e.getMessage() + "; nothing was loaded", false);
        }
    }

    private void skipHeader() throws IOException, BadInputException {
        readRecord(new ArrayList<>());
    }

    // ---------------------------------------------------------------------------------------
    // records

    /**
     * Reads the next record's fields into {@code into} (cleared first); false at the end of the
     * input. Refuses what the tokenizer refuses, see {@link #malformed}.
     */
    private boolean readRecord(List<String> into) throws IOException, BadInputException {
        into.clear();
        JsonToken t = token();
        if (t == null) return false;
        expectStart(t);
        while ((t = token()) == JsonToken.VALUE_STRING) into.add(parser.getText());
        expectEnd(t);
        return true;
    }

    /** The next record into {@link #fields}: its number of fields (those past the columns are counted, not kept), or -1 at the end. */
    private int readRecord() throws IOException, BadInputException {
        JsonToken t = token();
        if (t == null) return -1;
        expectStart(t);
        final String[] f = fields;
        int n = 0;
        while ((t = token()) == JsonToken.VALUE_STRING) {
            if (n < f.length) f[n] = parser.getText();
            n++;
        }
        expectEnd(t);
        return n;
    }

    private void expectStart(JsonToken t) {
        if (t != JsonToken.START_ARRAY) throw new IllegalStateException("the CSV tokenizer gave " + t + " where a record starts");
        lineNumber = inputLine(parser.currentLocation().getLineNr());
        inRecord = true;
    }

    /** The input's line of the parser's line {@code parserLine}. */
    private long inputLine(long parserLine) {
        return parserFirstLine + parserLine - 1;
    }

    /** The input's column (1-based) of the parser's column {@code parserColumn} on its line {@code parserLine}. */
    private long inputColumn(long parserLine, long parserColumn) {
        return parserLine == 1 ? parserFirstColumn + parserColumn : parserColumn;
    }

    /** A parser over the window from its next char, the start of a record (or of the input). */
    private CsvParser startParser() throws IOException {
        chars.startHandouts();
        CsvParser p = factory.createParser(chars.reader());
        p.setSchema(dialect);
        parser = p;
        parserFirstLine = nextLine;
        parserFirstColumn = nextColumn;
        parserParked = false;
        return p;
    }

    /**
     * After jackson read a record (or the header) to its end: where the fast path can read on, the
     * parser gives back the char it read ahead and is parked, and the window's line and column are
     * the parser's; else the parser goes on with the next record.
     */
    private void afterSlowRecord() throws IOException {
        if (fast == null || parser == null || ended || parserParked || inRecord) return;
        int held = parser.releaseBuffered(HELD);
        if (!chars.takeBack(held)) return;
        JsonLocation at = parser.currentLocation();
        nextLine = inputLine(at.getLineNr());
        nextColumn = (int) inputColumn(at.getLineNr(), at.getColumnNr()) - 1;
        parserParked = true;
        parkedChars = held;
    }

    /** How many chars jackson holds unread: {@link CsvParser#releaseBuffered} writes them here, which only counts. */
    private static final java.io.Writer HELD = java.io.Writer.nullWriter();
    /** What the parked parser holds (0 or 1 chars), to be handed back if it goes on. */
    private int parkedChars;

    private void expectEnd(JsonToken t) {
        if (t != JsonToken.END_ARRAY) throw new IllegalStateException("the CSV tokenizer gave " + t + " inside a record");
        inRecord = false;
    }

    /** The next token; the tokenizer's refusals as bad input of the current record. */
    private JsonToken token() throws IOException, BadInputException {
        CsvParser p = parser;
        if (p == null) p = startParser();
        try {
            return p.nextToken();
        } catch (CheckedUtf8Input.MalformedUtf8Exception e) {
            ended = true;
            throw new BadInputException(source, e.line, "not valid UTF-8 at byte " + e.byteInLine + " of the line", false);
        } catch (StreamConstraintsException e) {
            ended = true;
            throw new BadInputException(source, recordLine(), "a field longer than the limit of " + maxFieldChars
                    + " chars (a quote that is never closed?)", false);
        } catch (JsonProcessingException e) {
            throw malformed(e);
        }
    }

    /** The line of the record being read (where it started), or the tokenizer's line between records. */
    private long recordLine() {
        return inRecord ? lineNumber : inputLine(parser.currentLocation().getLineNr());
    }

    /**
     * A quoting error inside a record (text after a closing quote, an escape at the very end, a
     * quote never closed): the rest of the record is skipped, so that the next call starts at the
     * next record. Not skippable if the tokenizer cannot find that next record.
     */
    private BadInputException malformed(JsonProcessingException e) throws IOException {
        String reason = e.getOriginalMessage();
        JsonLocation at = e.getLocation();
        long line = recordLine();
        lineNumber = line;
        if (reason != null && reason.startsWith("Missing closing quote")) {
            ended = true;
            return new BadInputException(source, line, "a quoted field of the record that starts on this line is not closed "
                    + "before the end of the input", false);
        }
        // jackson's column is the one after the character its message names
        String where = at == null ? "" : " at line " + inputLine(at.getLineNr()) + ", column "
                + Math.max(1, inputColumn(at.getLineNr(), at.getColumnNr()) - 1);
        String detail = "malformed CSV" + where + ": " + reason + " (quote " + CsvOptions.show(options.quote)
                + ", delimiter " + CsvOptions.show(options.delimiter) + ", escape " + CsvOptions.show(options.escape) + ")";
        try {
            JsonToken t;
            do {
                t = parser.nextToken();
            } while (t != null && t != JsonToken.END_ARRAY);
            if (t == null) ended = true;
            inRecord = false;
        } catch (JsonProcessingException | CheckedUtf8Input.MalformedUtf8Exception again) {
            ended = true;
            return new BadInputException(source, line, detail + "; the records after it cannot be read", false);
        }
        return new BadInputException(source, line, detail);
    }

    @Override
    public Mutation next() throws IOException, BadInputException {
        if (fast != null) {
            if (ownBuffer == null) ownBuffer = new InsertBuffer(decoder.schema());
            Object item = next(ownBuffer);
            return item == ownBuffer ? ownBuffer.toMutation() : (Mutation) item;
        }
        while (true) {
            if (ended || columns == null) return null;
            Mutation m = record();
            if (m != null || ended) return m;
            noOps++; // an insert always writes its row's liveness, so this is not expected
        }
    }

    /** As {@link #next()}, but a record the fast path takes is decoded into {@code into}, which is returned. */
    @Override
    public Object next(InsertBuffer into) throws IOException, BadInputException {
        while (true) {
            if (ended || columns == null) return null;
            if (fast != null && (parser == null || parserParked)) {
                int r = fast.take(into);
                passed(fast.linesBefore, fast.columnsBefore);
                if (r == CsvRecordDecoder.END) {
                    ended = true;
                    return null;
                }
                if (r == CsvRecordDecoder.TAKEN) {
                    lineNumber = nextLine;
                    passed(fast.linesAfter, fast.columnsAfter);
                    dropParser();
                    fastTaken++;
                    return into;
                }
                if (parserParked) {
                    chars.giveBack(parkedChars); // the parser goes on from the char it holds
                    parserParked = false;
                }
            }
            Mutation m;
            try {
                m = record();
            } finally {
                afterSlowRecord();
            }
            if (m != null || ended) return m;
            noOps++; // an insert always writes its row's liveness, so this is not expected
        }
    }

    @Override
    public InsertBuffer newInsertBuffer() {
        return fast == null ? null : new InsertBuffer(decoder.schema());
    }

    /** The window passed {@code lines} line ends and then {@code columns} chars (with no line end: {@code columns} more). */
    private void passed(int lines, int columns) {
        if (lines > 0) {
            nextLine += lines;
            nextColumn = columns;
        } else {
            nextColumn += columns;
        }
    }

    /** The fast path took a record where a parked parser was: it is dropped (its buffers go back to jackson's pool). */
    private void dropParser() throws IOException {
        CsvParser p = parser;
        if (p == null) return;
        parser = null;
        parserParked = false;
        p.close();
    }

    /** The next record's mutation, or null if it changes nothing; at the end of the input sets {@link #ended}. */
    private Mutation record() throws IOException, BadInputException {
        final ColumnMetadata[] cols = columns;
        int n = readRecord();
        if (n < 0) {
            ended = true;
            return null;
        }
        if (n != cols.length) {
            throw new BadInputException(source, lineNumber, "the record has " + n + (n == 1 ? " field" : " fields") + ", expected "
                    + cols.length + " (" + names(cols) + ")");
        }
        Map<String, Object> values = new LinkedHashMap<>(2 * cols.length);
        for (int i = 0; i < cols.length; i++) {
            ColumnMetadata c = cols[i];
            Object v;
            try {
                v = value(c.type(), fields[i], options.nullMarker);
            } catch (IllegalArgumentException e) {
                throw new BadInputException(source, lineNumber, "column '" + c.name() + "' (" + c.type() + "): " + e.getMessage());
            }
            if (v == NULL) {
                if (c.role() == ColumnMetadata.Role.PARTITION_KEY || c.role() == ColumnMetadata.Role.CLUSTERING) {
                    throw new BadInputException(source, lineNumber, "column '" + c.name() + "' (" + c.type() + "): "
                            + (options.nullMarker.isEmpty() ? "the empty field is null" : "the field is the null marker "
                            + ValueText.display(options.nullMarker) + ", null") + ", which a primary key column cannot be"
                            + (options.nullMarker.isEmpty() ? " (to load empty strings, choose another null marker with --null)" : ""));
                }
                if (options.nullsUnset) continue;
                v = null;
            }
            values.put(c.name(), v);
        }
        Map<String, Object> op = new LinkedHashMap<>(8);
        op.put("op", "insert");
        op.put("timestamp", timestamp);
        if (ttl != null) op.put("ttl", ttl);
        op.put("values", values);
        try {
            return decoder.decode(op);
        } catch (OperationDecoder.BadOperation e) {
            throw new BadInputException(source, lineNumber, e.getMessage());
        }
    }

    /**
     * The value model of one field of a column of type {@code t} (see the class comment), or
     * {@link #NULL}. @throws IllegalArgumentException saying why the field is not a value of the type.
     */
    static Object value(CqlType t, String field, String nullMarker) {
        if (field.equals(nullMarker)) return NULL;
        CqlType.Kind k = t.kind();
        if (field.isEmpty()) {
            // a marker other than "" is in use: COPY FROM converts "" where it can, else inserts null
            switch (k) {
                case TEXT:
                case ASCII:
                case BOOLEAN:
                    return "";
                case BLOB:
                    return "0x";
                default:
                    return NULL;
            }
        }
        switch (k) {
            case TEXT:
            case ASCII:
                return field;
            case LIST:
            case SET:
            case MAP:
            case TUPLE:
            case UDT:
            case VECTOR: {
                Object v;
                try {
                    v = CqlLiteral.parseCopy(field, t, nullMarker);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(ValueText.display(field) + " is not " + CqlLiteral.a(t) + " (" + e.getMessage() + ")");
                }
                if (v == null) {
                    throw new IllegalArgumentException(ValueText.display(field) + " is not " + CqlLiteral.a(t) + " (a null value is written as the "
                            + "null marker, " + (nullMarker.isEmpty() ? "an empty field" : ValueText.display(nullMarker)) + ")");
                }
                return v;
            }
            default: {
                String s = field.strip();
                if (s.isEmpty()) throw new IllegalArgumentException(ValueText.display(field) + " is not " + CqlLiteral.a(t) + " (only spaces)");
                if (k == CqlType.Kind.BLOB && s.startsWith("0X")) return "0x" + s.substring(2);
                return s;
            }
        }
    }

    @Override
    public long lineNumber() { return lineNumber; }

    @Override
    public long noOps() { return noOps; }

    @Override
    public long bytesRead() { return input.bytesRead(); }

    @Override
    public String source() { return source; }

    @Override
    public void abandon() { input.abandon(); }

    @Override
    public void close() throws IOException {
        try {
            if (parser != null) parser.close();
        } finally {
            input.close();
        }
    }
}

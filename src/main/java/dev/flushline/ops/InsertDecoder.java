package dev.flushline.ops;

import dev.flushline.data.Cell;
import dev.flushline.data.InsertBuffer;
import dev.flushline.data.PartitionKey;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlType;
import dev.flushline.schema.TableSchema;
import dev.flushline.schema.ValueChars;

import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;

/**
 * The fast path of {@link OperationReader}: decodes the common operation, an {@code insert} of
 * simple columns of the everyday types, straight from jackson-core's tokens into an
 * {@link InsertBuffer}, with no value model (no map per line, no String per name or text value, no
 * BigDecimal per number) and no Row or Cell objects.
 *
 * <p>It takes a line or declines it, never refuses it: anything it does not handle exactly as
 * {@link OperationDecoder} does (another op, a collection or other type, a value in another form,
 * a duplicate or unknown name, a number out of range, a key too long, bad JSON) makes
 * {@link #decode} return false, and the reader decodes the line again through the value model,
 * which builds the same mutation or words the error. So an accepted line means exactly the
 * mutation the value model gives (checked by {@code InsertDecoderTest} on random lines), and a
 * message is never worded here.
 *
 * <p>Taken, per column of {@code "values"}: tinyint, smallint, int, bigint and timestamp from a
 * JSON integer; float and double from a JSON integer, or from a JSON number with a fraction or
 * exponent whose value converts exactly (see {@link #exactDouble}); text and varchar from a
 * string; ascii from a string of ASCII; boolean from true or false; null (a cell tombstone) in
 * a column outside the primary key. {@code "timestamp"} and {@code "ttl"} from JSON integers.
 * The operation's fields come in any order (the timestamp may follow the values), so the values
 * are serialized into the buffer's slots as they come, and the buffer is finished at the end.
 *
 * <p>Thread safety: not thread-safe; one per reader.
 */
final class InsertDecoder {
    /** Kinds of column the fast path takes; anything else declines the line. INT8..INT64 are 1..4 by width: InsertScanner indexes its tables with them. */
    static final int UNSUPPORTED = 0, INT8 = 1, INT16 = 2, INT32 = 3, INT64 = 4, FLOAT32 = 5, FLOAT64 = 6,
            TEXT = 7, ASCII = 8, BOOLEAN = 9;
    private static final char[] INSERT = "insert".toCharArray();
    /** Longer number texts go to the value model: none of the types here takes them. */
    private static final int MAX_INTEGER_CHARS = 20;
    private static final int MAX_FLOAT_CHARS = 40;

    private final OperationDecoder decoder;
    private final TableSchema schema;
    private final int staticBase;
    /** Per slot of an {@link InsertBuffer} of the table: the kind of its column. */
    private final int[] kind;
    /** The buffer of the line being decoded. */
    private InsertBuffer buffer;

    InsertDecoder(OperationDecoder decoder) {
        this.decoder = decoder;
        this.schema = decoder.schema();
        InsertBuffer layout = new InsertBuffer(schema);
        this.kind = new int[layout.slotCount()];
        ColumnMetadata[][] groups = {schema.partitionKeyColumns(), schema.clusteringColumns(), schema.staticColumns(),
                schema.regularColumns()};
        for (ColumnMetadata[] g : groups) {
            for (ColumnMetadata c : g) kind[layout.slotOf(c)] = c.isComplex() ? UNSUPPORTED : kindOf(c.type().kind());
        }
        this.staticBase = schema.partitionKeyColumns().length + schema.clusteringColumns().length;
    }

    /** Per slot of an {@link InsertBuffer} of the table, the kind of its column: shared with {@link InsertScanner}, never written. */
    int[] kinds() {
        return kind;
    }

    private static int kindOf(CqlType.Kind k) {
        switch (k) {
            case TINYINT: return INT8;
            case SMALLINT: return INT16;
            case INT: return INT32;
            case BIGINT:
            case TIMESTAMP: return INT64;
            case FLOAT: return FLOAT32;
            case DOUBLE: return FLOAT64;
            case TEXT: return TEXT;
            case ASCII: return ASCII;
            case BOOLEAN: return BOOLEAN;
            default: return UNSUPPORTED;
        }
    }

    /**
     * Decodes the line {@code p} was reset to into {@code into} (a buffer of this decoder's table) and
     * returns true, or returns false if the fast path declines the line (the parser is then anywhere
     * in the line, and {@code into} holds anything; the caller resets both for the next line).
     */
    boolean decode(LineJsonParser p, InsertBuffer into) {
        buffer = into;
        try {
            return decodeOrDecline(p, into);
        } catch (IOException e) {
            return false; // bad JSON, or a number jackson refuses: the value model words it
        }
    }

    private boolean decodeOrDecline(LineJsonParser p, InsertBuffer into) throws IOException {
        if (p.nextToken() != JsonToken.START_OBJECT) return false;
        into.clear();
        boolean haveOp = false, haveTimestamp = false, haveTtl = false, haveValues = false;
        long timestamp = 0, ttlGiven = 0;
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            final String name = p.currentName();
            final JsonToken v = p.nextToken();
            if (name.equals("values")) {
                if (haveValues || v != JsonToken.START_OBJECT || !values(p)) return false;
                haveValues = true;
            } else if (name.equals("op")) {
                if (haveOp || v != JsonToken.VALUE_STRING || !isInsert(p)) return false;
                haveOp = true;
            } else if (name.equals("timestamp")) {
                if (haveTimestamp || v != JsonToken.VALUE_NUMBER_INT || p.getTextLength() > MAX_INTEGER_CHARS) return false;
                timestamp = p.getLongValue();
                haveTimestamp = true;
            } else if (name.equals("ttl")) {
                if (haveTtl || v != JsonToken.VALUE_NUMBER_INT || p.getTextLength() > MAX_INTEGER_CHARS) return false;
                ttlGiven = p.getLongValue();
                haveTtl = true;
            } else {
                return false;
            }
        }
        if (t != JsonToken.END_OBJECT || !p.onlyBlanksAfterValue()) return false;
        if (!haveOp || !haveTimestamp || !haveValues) return false;
        return finishInsert(into, decoder, timestamp, haveTtl, ttlGiven);
    }

    /**
     * Completes the buffer of an insert operation whose "timestamp" and "values" were given, with its
     * "ttl" if {@code haveTtl} (declined outside 0..Cell.MAX_TTL, as the value model refuses it) or
     * else the table's default; see {@link #finish}. The scanner's lines end here too.
     */
    static boolean finishInsert(InsertBuffer into, OperationDecoder decoder, long timestamp, boolean haveTtl, long ttlGiven) {
        int ttl;
        if (haveTtl) {
            if (ttlGiven < 0 || ttlGiven > Cell.MAX_TTL) return false;
            ttl = (int) ttlGiven;
        } else {
            ttl = decoder.schema().defaultTimeToLiveSeconds();
        }
        return finish(into, decoder, timestamp, ttl);
    }

    private static boolean isInsert(LineJsonParser p) throws IOException {
        if (p.getTextLength() != INSERT.length) return false;
        final char[] c = p.getTextCharacters();
        final int o = p.getTextOffset();
        for (int i = 0; i < INSERT.length; i++) {
            if (c[o + i] != INSERT[i]) return false;
        }
        return true;
    }

    /** The members of "values", into their slots; false to decline. REQUIRES: p is on its START_OBJECT. */
    private boolean values(LineJsonParser p) throws IOException {
        JsonToken t;
        int ordinal = 0;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            ColumnMetadata c = column(p.currentName(), ordinal++);
            if (c == null) return false;
            final int slot = buffer.slotOf(c);
            if (buffer.length(slot) != InsertBuffer.ABSENT) return false; // a duplicate name: the value model refuses it
            if (!value(p, p.nextToken(), slot)) return false;
        }
        return t == JsonToken.END_OBJECT;
    }

    // The column of the member at each position of "values", by the name's identity: jackson hands out one
    // canonical String per distinct field name, and the lines of a file name their columns in the same order,
    // so a hit costs a reference compare where a schema lookup hashes and compares the name. A miss (another
    // order, or a name jackson made anew) looks the name up and remembers it; the answer is the schema's either way.
    private final String[] nameAt = new String[NAME_CACHE];
    private final ColumnMetadata[] columnAt = new ColumnMetadata[NAME_CACHE];
    private static final int NAME_CACHE = 64;

    private ColumnMetadata column(String name, int ordinal) {
        if (ordinal >= NAME_CACHE) return schema.column(name);
        if (nameAt[ordinal] == name) return columnAt[ordinal];
        ColumnMetadata c = schema.column(name);
        nameAt[ordinal] = name;
        columnAt[ordinal] = c;
        return c;
    }

    private boolean value(LineJsonParser p, JsonToken t, int slot) throws IOException {
        final int k = kind[slot];
        if (k == UNSUPPORTED) return false;
        if (t == JsonToken.VALUE_NULL) {
            if (slot < staticBase) return false; // null in the primary key: refused by the value model
            buffer.set(slot, 0, InsertBuffer.NULL);
            return true;
        }
        switch (k) {
            case INT8: return integer(p, t, slot, Byte.MIN_VALUE, Byte.MAX_VALUE, 1);
            case INT16: return integer(p, t, slot, Short.MIN_VALUE, Short.MAX_VALUE, 2);
            case INT32: return integer(p, t, slot, Integer.MIN_VALUE, Integer.MAX_VALUE, 4);
            case INT64: return integer(p, t, slot, Long.MIN_VALUE, Long.MAX_VALUE, 8);
            case FLOAT32:
            case FLOAT64: return floating(p, t, slot, k == FLOAT32);
            case TEXT: return t == JsonToken.VALUE_STRING && text(p, slot, false);
            case ASCII: return t == JsonToken.VALUE_STRING && text(p, slot, true);
            case BOOLEAN:
                if (t != JsonToken.VALUE_TRUE && t != JsonToken.VALUE_FALSE) return false;
                return putLong(slot, t == JsonToken.VALUE_TRUE ? 1 : 0, 1);
            default: return false;
        }
    }

    private boolean integer(LineJsonParser p, JsonToken t, int slot, long min, long max, int bytes) throws IOException {
        if (t != JsonToken.VALUE_NUMBER_INT || p.getTextLength() > MAX_INTEGER_CHARS) return false;
        long x = p.getLongValue(); // beyond a long: jackson throws, and the value model says "out of range"
        if (x < min || x > max) return false;
        return putLong(slot, x, bytes);
    }

    /**
     * The value model's float and double: an integer literal converts once (as BigInteger's
     * floatValue and doubleValue round), a literal with fraction or exponent becomes the nearest
     * double (for float, that double rounded to float, as Cassandra's Jackson does).
     */
    private boolean floating(LineJsonParser p, JsonToken t, int slot, boolean isFloat) throws IOException {
        double d;
        if (t == JsonToken.VALUE_NUMBER_INT) {
            if (p.getTextLength() > MAX_INTEGER_CHARS) return false;
            long x = p.getLongValue();
            if (isFloat) return putLong(slot, Float.floatToRawIntBits((float) x), 4); // long to float rounds once
            d = (double) x;
        } else if (t == JsonToken.VALUE_NUMBER_FLOAT) {
            if (p.getTextLength() > MAX_FLOAT_CHARS) return false;
            d = exactDouble(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
            if (Double.isNaN(d)) return false;
            if (isFloat) return putLong(slot, Float.floatToRawIntBits((float) d), 4);
        } else {
            return false;
        }
        return putLong(slot, Double.doubleToRawLongBits(d), 8);
    }

    /** {@link ValueChars#exactDouble} of {@code c[from, from + length)}: the value model's double of a JSON number, or NaN. */
    static double exactDouble(char[] c, int from, int length) {
        return ValueChars.exactDouble(c, from, from + length);
    }

    /** {@code x}'s low {@code bytes} bytes, big-endian, as the slot's value. */
    private boolean putLong(int slot, long x, int bytes) {
        final InsertBuffer into = buffer;
        int at = into.reserve(bytes);
        into.set(slot, at, ValueChars.bigEndian(x, bytes, into.bytes(), at));
        return true;
    }

    /** The string token as UTF-8 into the slot (or ASCII, declining a char past 0x7F); declines a lone surrogate. */
    private boolean text(LineJsonParser p, int slot, boolean ascii) throws IOException {
        final int n = p.rawString(ascii);
        if (n >= 0) {
            final InsertBuffer into = buffer;
            final int at = into.reserve(n);
            System.arraycopy(p.input(), p.rawStart(), into.bytes(), at, n);
            into.set(slot, at, n);
            return true;
        }
        return putText(buffer, slot, p.getTextCharacters(), p.getTextOffset(), p.getTextOffset() + p.getTextLength(), ascii);
    }

    /** {@code c[from, to)} as UTF-8 (or ASCII) into {@code slot} of {@code into}, as {@link ValueChars#utf8} takes it; false to decline. */
    static boolean putText(InsertBuffer into, int slot, char[] c, int from, int to, boolean ascii) {
        int at = into.reserve(3 * (to - from)); // a char is at most 3 bytes; a pair of surrogates is 4 for 2 chars
        int n = ValueChars.utf8(c, from, to, ascii, into.bytes(), at);
        if (n < 0) return false;
        into.trim(at + n);
        into.set(slot, at, n);
        return true;
    }

    /**
     * Completes the buffer, an insert at {@code timestamp} with {@code ttl} (0..Cell.MAX_TTL, the table's
     * default already applied), or declines where {@code decoder}'s value model would refuse the
     * operation: a reserved timestamp, an expiry past the output's limit, a key column missing, an
     * empty partition key, a key or clustering value too long. The CSV fast path completes its rows here too.
     */
    static boolean finish(InsertBuffer into, OperationDecoder decoder, long timestamp, int ttl) {
        // Long.MIN_VALUE marks "no timestamp", and MIN + 1 - 1 would be it for a collection overwrite.
        if (timestamp <= Long.MIN_VALUE + 1) return false;
        final long now = decoder.nowSeconds();
        if (ttl != Cell.NO_TTL && now + ttl > decoder.maxLocalDeletionTime()) return false;
        final int maxKey = OperationDecoder.MAX_KEY_BYTES;
        final int keyColumns = into.schema().partitionKeyColumns().length;
        final int keyEnd = keyColumns + into.schema().clusteringColumns().length;
        int keyBytes = 0;
        for (int s = 0; s < keyEnd; s++) {
            // a static-only insert (no clustering) is the value model's, as is a missing key column
            int n = into.length(s);
            if (n == InsertBuffer.ABSENT || n > maxKey) return false;
            if (s < keyColumns) keyBytes += PartitionKey.COMPONENT_OVERHEAD_BYTES + n;
        }
        if (keyColumns == 1 ? into.length(0) == 0 : keyBytes > maxKey) return false; // empty, or too long together
        into.finish(timestamp, ttl, ttl == Cell.NO_TTL ? Cell.NO_DELETION_TIME : now + ttl, now);
        return true;
    }
}

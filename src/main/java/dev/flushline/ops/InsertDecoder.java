package dev.flushline.ops;

import dev.flushline.data.Cell;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.Mutation;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.Row;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlType;
import dev.flushline.schema.TableSchema;

import com.fasterxml.jackson.core.JsonToken;

import java.io.IOException;
import java.util.List;

/**
 * The fast path of {@link OperationReader}: decodes the common operation, an {@code insert} of
 * simple columns of the everyday types, straight from jackson-core's tokens, with no value model
 * (no map per line, no String per name or text value, no BigDecimal per number).
 *
 * <p>It takes a line or declines it, never refuses it: anything it does not handle exactly as
 * {@link OperationDecoder} does (another op, a collection or other type, a value in another form,
 * a duplicate or unknown name, a number out of range, a key too long, bad JSON) makes
 * {@link #decode} return null, and the reader decodes the line again through the value model,
 * which builds the same mutation or words the error. So an accepted line gives exactly the
 * mutation the value model gives (checked by {@code InsertDecoderTest} on random lines), and a
 * message is never worded here.
 *
 * <p>Taken, per column of {@code "values"}: tinyint, smallint, int, bigint and timestamp from a
 * JSON integer; float and double from a JSON integer, or from a JSON number with a fraction or
 * exponent whose value converts exactly (see {@link #exactDouble}); text and varchar from a
 * string; ascii from a string of ASCII; boolean from true or false; null (a cell tombstone) in
 * a column outside the primary key. {@code "timestamp"} and {@code "ttl"} from JSON integers.
 *
 * <p>Values are gathered in one reused byte array while the line is parsed (the operation's
 * fields come in any order, and the timestamp may follow the values), then the mutation is built.
 *
 * <p>Thread safety: not thread-safe; one per reader.
 */
final class InsertDecoder {
    /** Kinds of column the fast path takes; anything else declines the line. */
    private static final int UNSUPPORTED = 0, INT8 = 1, INT16 = 2, INT32 = 3, INT64 = 4, FLOAT32 = 5, FLOAT64 = 6,
            TEXT = 7, ASCII = 8, BOOLEAN = 9;
    /** A slot that holds JSON null. */
    private static final int NULL_LENGTH = -1;
    private static final ComplexColumn[] NO_COMPLEX = new ComplexColumn[0];
    private static final char[] INSERT = "insert".toCharArray();
    /** Longer number texts go to the value model: none of the types here takes them. */
    private static final int MAX_INTEGER_CHARS = 20;
    private static final int MAX_FLOAT_CHARS = 40;

    private final OperationDecoder decoder;
    private final TableSchema schema;
    private final int partitionKeyCount;
    private final int clusteringCount;
    private final int staticCount;
    /** Slot of a column: partition key, then clustering, static, regular columns, each by position. */
    private final int staticBase;
    private final int regularBase;
    private final int[] kind;
    private final ColumnMetadata[] slotColumn;
    /** Where each slot's value is in {@link #values}, if {@link #seenOn} is the current line's stamp. */
    private final int[] valueOffset;
    private final int[] valueLength;
    private final int[] seenOn;
    private int stamp;
    private byte[] values = new byte[512];
    private int valuesEnd;

    InsertDecoder(OperationDecoder decoder) {
        this.decoder = decoder;
        this.schema = decoder.schema();
        ColumnMetadata[] pk = schema.partitionKeyColumns(), ck = schema.clusteringColumns(),
                st = schema.staticColumns(), rg = schema.regularColumns();
        this.partitionKeyCount = pk.length;
        this.clusteringCount = ck.length;
        this.staticCount = st.length;
        this.staticBase = pk.length + ck.length;
        this.regularBase = staticBase + st.length;
        int slots = regularBase + rg.length;
        this.kind = new int[slots];
        this.slotColumn = new ColumnMetadata[slots];
        this.valueOffset = new int[slots];
        this.valueLength = new int[slots];
        this.seenOn = new int[slots];
        ColumnMetadata[][] groups = {pk, ck, st, rg};
        int s = 0;
        for (ColumnMetadata[] g : groups) {
            for (ColumnMetadata c : g) {
                slotColumn[s] = c;
                kind[s] = c.isComplex() ? UNSUPPORTED : kindOf(c.type().kind());
                s++;
            }
        }
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

    private int slotOf(ColumnMetadata c) {
        switch (c.role()) {
            case PARTITION_KEY: return c.position();
            case CLUSTERING: return partitionKeyCount + c.position();
            case STATIC: return staticBase + c.position();
            default: return regularBase + c.position();
        }
    }

    /**
     * The mutation of the line {@code p} was reset to, or null if the fast path declines it (the
     * parser is then anywhere in the line; the caller resets it for the next).
     */
    Mutation decode(LineJsonParser p) {
        try {
            return decodeOrDecline(p);
        } catch (IOException e) {
            return null; // bad JSON, or a number jackson refuses: the value model words it
        }
    }

    private Mutation decodeOrDecline(LineJsonParser p) throws IOException {
        if (p.nextToken() != JsonToken.START_OBJECT) return null;
        if (++stamp == 0) {
            java.util.Arrays.fill(seenOn, 0);
            stamp = 1;
        }
        valuesEnd = 0;
        boolean haveOp = false, haveTimestamp = false, haveTtl = false, haveValues = false;
        long timestamp = 0, ttlGiven = 0;
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            final String name = p.currentName();
            final JsonToken v = p.nextToken();
            if (name.equals("values")) {
                if (haveValues || v != JsonToken.START_OBJECT || !values(p)) return null;
                haveValues = true;
            } else if (name.equals("op")) {
                if (haveOp || v != JsonToken.VALUE_STRING || !isInsert(p)) return null;
                haveOp = true;
            } else if (name.equals("timestamp")) {
                if (haveTimestamp || v != JsonToken.VALUE_NUMBER_INT || p.getTextLength() > MAX_INTEGER_CHARS) return null;
                timestamp = p.getLongValue();
                haveTimestamp = true;
            } else if (name.equals("ttl")) {
                if (haveTtl || v != JsonToken.VALUE_NUMBER_INT || p.getTextLength() > MAX_INTEGER_CHARS) return null;
                ttlGiven = p.getLongValue();
                haveTtl = true;
            } else {
                return null;
            }
        }
        if (t != JsonToken.END_OBJECT || !p.onlyBlanksAfterValue()) return null;
        if (!haveOp || !haveTimestamp || !haveValues) return null;
        // Long.MIN_VALUE marks "no timestamp", and MIN + 1 - 1 would be it for a collection overwrite.
        if (timestamp <= Long.MIN_VALUE + 1) return null;
        int ttl;
        if (haveTtl) {
            if (ttlGiven < 0 || ttlGiven > Cell.MAX_TTL) return null;
            ttl = (int) ttlGiven;
        } else {
            ttl = schema.defaultTimeToLiveSeconds();
        }
        final long now = decoder.nowSeconds();
        if (ttl != Cell.NO_TTL && now + ttl > decoder.maxLocalDeletionTime()) return null;
        return build(timestamp, ttl, now);
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
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            ColumnMetadata c = schema.column(p.currentName());
            if (c == null) return false;
            final int slot = slotOf(c);
            if (seenOn[slot] == stamp) return false; // a duplicate name: the value model refuses it
            seenOn[slot] = stamp;
            if (!value(p, p.nextToken(), slot)) return false;
        }
        return t == JsonToken.END_OBJECT;
    }

    private boolean value(LineJsonParser p, JsonToken t, int slot) throws IOException {
        final int k = kind[slot];
        if (k == UNSUPPORTED) return false;
        if (t == JsonToken.VALUE_NULL) {
            if (slot < staticBase) return false; // null in the primary key: refused by the value model
            valueLength[slot] = NULL_LENGTH;
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

    private static final double[] POWERS_OF_TEN = {
            1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
            1e19, 1e20, 1e21, 1e22};

    /**
     * The nearest double to the JSON number {@code c[from, from + length)}, or NaN when it cannot be had
     * exactly without big arithmetic (the value model then converts it). Exact when the significant
     * digits fit in 15 decimal digits (so the integer is exact in a double) and the power of ten is at
     * most 22 either way (so it is exact too): one multiplication or division of two exact doubles is
     * then correctly rounded, the same double as BigDecimal.doubleValue. A zero keeps its sign.
     * REQUIRES: the text is a JSON number (jackson checked the grammar).
     */
    static double exactDouble(char[] c, int from, int length) {
        final int end = from + length;
        int i = from;
        boolean negative = false;
        if (c[i] == '-') {
            negative = true;
            i++;
        }
        long digits = 0;
        int significant = 0, scale = 0;
        for (; i < end; i++) {
            char x = c[i];
            if (x == '.' || x == 'e' || x == 'E') break;
            if (digits != 0 || x != '0') {
                if (++significant > 15) return Double.NaN;
                digits = digits * 10 + (x - '0');
            }
        }
        if (i < end && c[i] == '.') {
            for (i++; i < end; i++) {
                char x = c[i];
                if (x == 'e' || x == 'E') break;
                scale++;
                if (digits != 0 || x != '0') {
                    if (++significant > 15) return Double.NaN;
                    digits = digits * 10 + (x - '0');
                }
            }
        }
        int exponent = 0;
        if (i < end) {
            i++; // 'e' or 'E'
            boolean negativeExponent = false;
            if (c[i] == '+' || c[i] == '-') {
                negativeExponent = c[i] == '-';
                i++;
            }
            for (; i < end; i++) {
                exponent = exponent * 10 + (c[i] - '0');
                if (exponent > 400) return Double.NaN;
            }
            if (negativeExponent) exponent = -exponent;
        }
        int power = exponent - scale;
        double d = (double) digits;
        if (digits == 0) {
            d = 0.0;
        } else if (power >= 0) {
            if (power > 22) return Double.NaN;
            d *= POWERS_OF_TEN[power];
        } else {
            if (-power > 22) return Double.NaN;
            d /= POWERS_OF_TEN[-power];
        }
        return negative ? -d : d;
    }

    /** {@code x}'s low {@code bytes} bytes, big-endian, as the slot's value. */
    private boolean putLong(int slot, long x, int bytes) {
        int at = reserve(bytes);
        final byte[] b = values;
        for (int i = bytes - 1; i >= 0; i--) {
            b[at + i] = (byte) x;
            x >>= 8;
        }
        valueOffset[slot] = at;
        valueLength[slot] = bytes;
        return true;
    }

    /** The string token as UTF-8 into the slot (or ASCII, declining a char past 0x7F); declines a lone surrogate. */
    private boolean text(LineJsonParser p, int slot, boolean ascii) throws IOException {
        final int n = p.getTextLength();
        final char[] c = p.getTextCharacters();
        final int from = p.getTextOffset();
        int at = reserve(3 * n); // a char is at most 3 bytes; a pair of surrogates is 4 for 2 chars
        final int start = at;
        final byte[] b = values;
        for (int i = from, end = from + n; i < end; i++) {
            char x = c[i];
            if (x < 0x80) {
                b[at++] = (byte) x;
            } else if (ascii) {
                return false;
            } else if (x < 0x800) {
                b[at++] = (byte) (0xC0 | (x >> 6));
                b[at++] = (byte) (0x80 | (x & 0x3F));
            } else if (Character.isSurrogate(x)) {
                if (!Character.isHighSurrogate(x) || i + 1 == end || !Character.isLowSurrogate(c[i + 1])) return false;
                int cp = Character.toCodePoint(x, c[++i]);
                b[at++] = (byte) (0xF0 | (cp >> 18));
                b[at++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                b[at++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                b[at++] = (byte) (0x80 | (cp & 0x3F));
            } else {
                b[at++] = (byte) (0xE0 | (x >> 12));
                b[at++] = (byte) (0x80 | ((x >> 6) & 0x3F));
                b[at++] = (byte) (0x80 | (x & 0x3F));
            }
        }
        valuesEnd = at;
        valueOffset[slot] = start;
        valueLength[slot] = at - start;
        return true;
    }

    /** Room for {@code bytes} more at the end of {@link #values}; returns where they start and moves the end past them. */
    private int reserve(int bytes) {
        int at = valuesEnd;
        if (at + bytes > values.length) {
            values = java.util.Arrays.copyOf(values, Math.max(at + bytes, 2 * values.length));
        }
        valuesEnd = at + bytes;
        return at;
    }

    private boolean seen(int slot) {
        return seenOn[slot] == stamp;
    }

    private byte[] copy(int slot) {
        return java.util.Arrays.copyOfRange(values, valueOffset[slot], valueOffset[slot] + valueLength[slot]);
    }

    /** The mutation of the gathered values, or null where the value model would refuse the operation. */
    private Mutation build(long timestamp, int ttl, long now) {
        final int maxKey = OperationDecoder.MAX_KEY_BYTES;
        int keyBytes = 0;
        for (int s = 0; s < partitionKeyCount; s++) {
            if (!seen(s) || valueLength[s] > maxKey) return null;
            keyBytes += PartitionKey.COMPONENT_OVERHEAD_BYTES + valueLength[s];
        }
        byte[][] clusteringValues = new byte[clusteringCount][];
        for (int i = 0; i < clusteringCount; i++) {
            // a static-only insert (no clustering) is the value model's, as is a missing clustering column
            int s = partitionKeyCount + i;
            if (!seen(s) || valueLength[s] > maxKey) return null;
            clusteringValues[i] = copy(s);
        }
        byte[] key;
        if (partitionKeyCount == 1) {
            if (valueLength[0] == 0) return null; // an empty partition key
            key = copy(0);
        } else {
            if (keyBytes > maxKey) return null;
            key = new byte[keyBytes];
            int at = 0;
            for (int s = 0; s < partitionKeyCount; s++) {
                at = PartitionKey.putComponent(key, at, values, valueOffset[s], valueLength[s]);
            }
        }
        final long expiration = ttl == Cell.NO_TTL ? Cell.NO_DELETION_TIME : now + ttl;
        Row staticRow = null;
        if (staticCount > 0) {
            Cell[] cells = cells(staticBase, staticCount, schema.staticComplexStart(), timestamp, ttl, expiration, now);
            if (cells != null) {
                int complex = staticCount - schema.staticComplexStart();
                staticRow = new Row(true, null, Cell.NO_TIMESTAMP, Cell.NO_TTL, Cell.NO_DELETION_TIME, DeletionTime.LIVE,
                        cells, complex == 0 ? NO_COMPLEX : new ComplexColumn[complex]);
            }
        }
        final int regularCount = slotColumn.length - regularBase;
        Cell[] cells = cells(regularBase, regularCount, schema.regularComplexStart(), timestamp, ttl, expiration, now);
        if (cells == null) cells = new Cell[schema.regularComplexStart()];
        int complex = regularCount - schema.regularComplexStart();
        Row row = new Row(false, clusteringValues, timestamp, ttl, expiration, DeletionTime.LIVE, cells,
                complex == 0 ? NO_COMPLEX : new ComplexColumn[complex]);
        return new Mutation(schema, new PartitionUpdate(PartitionKey.of(key), DeletionTime.LIVE, List.of(), staticRow,
                List.of(row)));
    }

    /** The cells of the given slots, indexed by column position; null if none of them was given. */
    private Cell[] cells(int base, int count, int simpleCount, long timestamp, int ttl, long expiration, long now) {
        Cell[] cells = null;
        for (int i = 0; i < count; i++) {
            int s = base + i;
            if (!seen(s)) continue;
            // only simple columns get here (a complex one declined the line), and they come first
            if (cells == null) cells = new Cell[simpleCount];
            Cell c;
            if (valueLength[s] == NULL_LENGTH) c = Cell.tombstone(timestamp, now, null);
            else if (ttl == Cell.NO_TTL) c = Cell.live(timestamp, copy(s), null);
            else c = Cell.expiring(timestamp, ttl, expiration, copy(s), null);
            cells[i] = c;
        }
        return cells;
    }
}

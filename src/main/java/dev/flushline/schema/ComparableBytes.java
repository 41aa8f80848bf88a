package dev.flushline.schema;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * The byte-comparable form of serialized values, per type: byte strings whose unsigned
 * lexicographic order is the type's order ({@link CqlType#compare}), and of which none is a
 * prefix of another's continuation in a sequence. This is version OSS50 of Cassandra's
 * byte-comparable encoding, the one BTI tries (Rows.db's row index) are keyed with, byte for byte,
 * with Cassandra's own departures from its comparators kept: NaNs sort by their bits (one with
 * the sign bit set first), and a null tuple component ties with an empty one that has no form
 * (both 3E). The sequences that hold these forms (a clustering prefix, with its kind) are their
 * user's business.
 *
 * <p>A writer: {@link #putValue} appends a value's form to a buffer this object owns, which grows
 * to the largest form seen and is reused, so that nothing is allocated per value after warm-up.
 *
 * <pre>
 * v = the value's serialized bytes, not empty unless said
 *
 *   int, smallint, tinyint, timestamp   v, first byte ^ 0x80        (two's complement -> offset binary)
 *   bigint                              svarint(v as a long)         (see below)
 *   varint, fewer than 7 significant    svarint(its value)           (significant: after leading bytes that
 *   varint, 7 or more significant       sign  length  bytes           repeat a 00 or FF first byte)
 *                                       sign: 00 negative, FF positive; length: uvarint(significant - 7),
 *                                       each byte ^ FF when negative; bytes: the significant bytes as they are
 *   float, double                       sign bit clear: v | 0x80 on the first byte; set: every bit of v flipped
 *   boolean                             00 false, 01 true (any non-zero byte is true)
 *   date, time                          v                            (unsigned, fixed length)
 *   uuid                                msb' (8 bytes)  lsb (8 bytes)
 *                                       msb' of version 1: time_hi time_mid time_low (version nibble on top);
 *                                       other versions: version nibble, time_low, time_mid, time_hi's 12 bits
 *   timeuuid (version 1 only)           msb' as version 1, then lsb with each byte ^ 0x80 (signed byte order)
 *   text, ascii, blob, inet             escaped(v), also for an empty v (then 00)
 *   decimal, zero                       80
 *   decimal, other                      head  exponent  digits  00
 *                                       value = sign * 0.digits * 100^e, the base-100 digits paired from the
 *                                       unscaled value's decimal digits, after a 0 when 10^(digits - scale)
 *                                       is an odd power of 10;
 *                                       m = e, or -e for a negative value; k = bytes of |m| (0..4);
 *                                       head = (positive ? 80 : 00) + 40 + (m < 0 ? -k : k);
 *                                       exponent = the low k bytes of m, big-endian;
 *                                       digits, positive: 80 + d for each base-100 digit up to the last non-zero;
 *                                       negative (as 0.q - 1 with q the complement to 1): 7F - d1 (one digit: 80 - d1),
 *                                       then 80 + 99 - d for the middle ones, 80 + 100 - d for the last
 *   list, set                           per element: 40 form | 3E (no form);  then 38
 *   map                                 per key, per value: as list elements;  then 38
 *   tuple, UDT                          per component up to the last non-null one: 40 form | 3E (null, no form);
 *                                       then 38 (components missing from a short value are null)
 *   vector                              per element: 40 form | 3E (no form);  then 38
 *   empty v of any other type but vector no form: {@link #putValue} writes nothing and returns false
 *
 * escaped(v): v's bytes, except that after a 00 the next byte is preceded by FF (ESCAPED_0_DONE) if
 *   it is not 00, or replaced by FE (ESCAPED_0_CONT) if it is; then 00 (ESCAPE), or FE if v ends in 00.
 *   e.g. 41 00 00 42 -> 41 00 FE FF 42 00;  41 00 -> 41 00 FE
 * svarint(x): n = 1 + bits(x ^ sign(x)) / 7 bytes, up to 8: the low 8n bits of x with their top n
 *   bits (all copies of the sign) inverted: 0 -> 80, -1 -> 7F, 64 -> C0 40, -65 -> 3F BF. From 56
 *   bits on, 9 bytes: FF (positive) or 00, then x with its top bit inverted. A longer form is larger
 *   for positives and smaller for negatives, so byte order is numeric order.
 * uvarint(x): x in n = 1 + (bits(x) - 1) / 7 bytes, the first starting with n - 1 one bits and a zero.
 * </pre>
 * Inside a list, set, map, tuple, UDT or vector, an element with no form (an empty int, say) is
 * marked 3E, as a null tuple component is. A list, set or map element that is null (a negative
 * length, which Cassandra never stores and could not encode) is refused. So is an empty vector,
 * anywhere (Cassandra fails on it), and inside a vector an empty smallint, tinyint, date, time,
 * list, set or map, which Cassandra's element validation refuses there (it also checks text
 * encodings and inet lengths there, which change no form; {@link ValueValidator} checks those).
 *
 * <p>Duration and counter have no form here: neither can be part of a primary key (nor, for
 * durations, be nested in a key column's type), and Cassandra never builds one for them in a
 * row index. {@link #putValue} refuses them by name.
 *
 * <p>Thread safety: none; one writer per thread.
 */
public final class ComparableBytes {
    /** Marks the end of an escaped byte string; real 00 bytes are escaped. */
    public static final int ESCAPE = 0x00;
    public static final int ESCAPED_0_CONT = 0xFE;
    public static final int ESCAPED_0_DONE = 0xFF;
    /** Before each component of a sequence that has a form. */
    public static final int NEXT_COMPONENT = 0x40;
    /** A clustering component with no form (an empty int, say), ascending. */
    public static final int NEXT_COMPONENT_EMPTY = 0x3F;
    /** A clustering component with no form in a descending column: after every value, as empty sorts there. */
    public static final int NEXT_COMPONENT_EMPTY_REVERSED = 0x41;
    /** A null component (of a tuple or clustering), or a collection element with no form. */
    public static final int NEXT_COMPONENT_NULL = 0x3E;
    /** Ends a sequence: below every NEXT_COMPONENT marker, so a shorter sequence sorts first. */
    public static final int TERMINATOR = 0x38;

    private static final int POSITIVE_DECIMAL_HEADER = 0x80;
    private static final int NEGATIVE_DECIMAL_HEADER = 0x00;
    private static final int DECIMAL_EXPONENT_LENGTH_HEADER = 0x40;
    /** A varint with at least this many significant bytes takes the long form. */
    private static final int VARINT_LONG_FORM_BYTES = 7;
    private static final long DECIMAL_CHUNK = 1_000_000_000L;
    private static final int DECIMAL_CHUNK_DIGITS = 9;

    private byte[] buf = new byte[256];
    private int length;
    /** How many vectors the value being written is inside: their elements are checked as Cassandra validates them. */
    private int vectorDepth;

    // Decimal scratch, grown to the largest unscaled value seen: its magnitude in 32-bit limbs
    // (big-endian), its base-10^9 chunks (least significant first), its decimal digits.
    private int[] limbs = new int[8];
    private int[] chunks = new int[8];
    private byte[] digits = new byte[64];

    /** Empties the buffer; the next form starts at 0. */
    public void clear() {
        length = 0;
    }

    /** Bytes written since {@link #clear}. */
    public int length() {
        return length;
    }

    /** The buffer: {@code bytes()[0, length())}; valid until the next write (which may replace it). */
    public byte[] bytes() {
        return buf;
    }

    /** Appends one byte. */
    public void put(int b) {
        ensure(1);
        buf[length++] = (byte) b;
    }

    /** Overwrites the byte at {@code at}, e.g. a marker put before a form that turned out to be none. */
    public void set(int at, int b) {
        buf[at] = (byte) b;
    }

    /**
     * Flips every bit of the bytes from {@code from} to the end: a descending column's form is its
     * type's form inverted, which reverses the order (prefixes included, as escaped forms end in
     * 00 or FE and sequences follow a form with a separator below FE).
     */
    public void invert(int from) {
        byte[] b = buf;
        for (int i = from, n = length; i < n; i++) b[i] = (byte) ~b[i];
    }

    /**
     * Appends the form of {@code t}'s value {@code v[off, off + len)}. Returns false, having
     * written nothing, when the value has no form (empty, for every type but text, ascii, blob
     * and inet): the caller marks that in its sequence.
     * @throws IllegalArgumentException naming the type and the value when the bytes are not a
     *         value of the type that Cassandra could encode, or the type cannot be encoded
     */
    public boolean putValue(CqlType t, byte[] v, int off, int len) {
        CqlType.Kind kind = t.kind();
        switch (kind) {
            case ASCII:
            case TEXT:
            case BLOB:
            case INET:
                putEscaped(v, off, len);
                return true;
            default:
                break;
        }
        if (len == 0) {
            if (kind == CqlType.Kind.DURATION || kind == CqlType.Kind.COUNTER) throw noForm(t);
            if (kind == CqlType.Kind.VECTOR) throw bad(t, v, off, len, "is empty, which a vector never is (Cassandra cannot encode it)");
            if (vectorDepth > 0 && emptyRefusedInVector(kind)) {
                throw bad(t, v, off, len, "is empty inside a vector, where Cassandra validates the elements and refuses it");
            }
            return false;
        }
        switch (kind) {
            case INT: putSignFlipped(t, v, off, len, 4); return true;
            case SMALLINT: putSignFlipped(t, v, off, len, 2); return true;
            case TINYINT: putSignFlipped(t, v, off, len, 1); return true;
            case TIMESTAMP: putSignFlipped(t, v, off, len, 8); return true;
            case BIGINT:
                checkLength(t, v, off, len, 8);
                putSignedVarLong(CqlTypes.readLong(v, off));
                return true;
            case VARINT: putVarint(v, off, len); return true;
            case FLOAT: putFloat(t, v, off, len, 4); return true;
            case DOUBLE: putFloat(t, v, off, len, 8); return true;
            case BOOLEAN:
                checkLength(t, v, off, len, 1);
                put(v[off] != 0 ? 1 : 0);
                return true;
            case DATE: putRaw(t, v, off, len, 4); return true;
            case TIME: putRaw(t, v, off, len, 8); return true;
            case UUID: putUuid(t, v, off, len); return true;
            case TIMEUUID: putTimeUuid(t, v, off, len); return true;
            case DECIMAL: putDecimal(t, v, off, len); return true;
            case LIST:
            case SET: putListOrSet(t, v, off, len); return true;
            case MAP: putMap(t, v, off, len); return true;
            case TUPLE:
            case UDT: putTuple(t, v, off, len); return true;
            case VECTOR: putVector(t, v, off, len); return true;
            default: throw noForm(t);
        }
    }

    // ---- natives -------------------------------------------------------------------------------

    private void putEscaped(byte[] v, int off, int len) {
        ensure(2L * len + 1);
        byte[] b = buf;
        int p = length;
        boolean afterZero = false;
        for (int i = off, end = off + len; i < end; i++) {
            byte x = v[i];
            if (afterZero) {
                if (x == 0) {
                    b[p++] = (byte) ESCAPED_0_CONT;
                    continue;
                }
                b[p++] = (byte) ESCAPED_0_DONE;
            }
            b[p++] = x;
            afterZero = x == 0;
        }
        b[p++] = (byte) (afterZero ? ESCAPED_0_CONT : ESCAPE);
        length = p;
    }

    private void putSignFlipped(CqlType t, byte[] v, int off, int len, int size) {
        checkLength(t, v, off, len, size);
        ensure(size);
        System.arraycopy(v, off, buf, length, size);
        buf[length] ^= (byte) 0x80;
        length += size;
    }

    private void putRaw(CqlType t, byte[] v, int off, int len, int size) {
        checkLength(t, v, off, len, size);
        ensure(size);
        System.arraycopy(v, off, buf, length, size);
        length += size;
    }

    /** IEEE order as bytes: positives above negatives, and a negative's magnitude inverted. */
    private void putFloat(CqlType t, byte[] v, int off, int len, int size) {
        checkLength(t, v, off, len, size);
        ensure(size);
        byte[] b = buf;
        int p = length;
        if (v[off] < 0) {
            for (int i = 0; i < size; i++) b[p + i] = (byte) ~v[off + i];
        } else {
            System.arraycopy(v, off, b, p, size);
            b[p] |= (byte) 0x80;
        }
        length = p + size;
    }

    private void putUuid(CqlType t, byte[] v, int off, int len) {
        checkLength(t, v, off, len, 16);
        long msb = CqlTypes.readLong(v, off);
        long version = (msb >>> 12) & 0xF;
        long ordered = version == 1
                ? timeOrderedMsb(msb)
                : (version << 60) | ((msb >>> 4) & 0x0FFF_FFFF_FFFF_F000L) | (msb & 0xFFFL);
        putLong(ordered);
        putLong(CqlTypes.readLong(v, off + 8));
    }

    private void putTimeUuid(CqlType t, byte[] v, int off, int len) {
        checkLength(t, v, off, len, 16);
        long msb = CqlTypes.readLong(v, off);
        int version = (int) ((msb >>> 12) & 0xF);
        if (version != 1) throw bad(t, v, off, len, "is of version " + version + "; a timeuuid must be version 1");
        putLong(timeOrderedMsb(msb));
        // signed bytes compare as unsigned ones once their top bits are flipped
        putLong(CqlTypes.readLong(v, off + 8) ^ 0x8080_8080_8080_8080L);
    }

    /** A version-1 UUID's msb with its 60-bit timestamp high to low: time_hi (under the version), time_mid, time_low. */
    private static long timeOrderedMsb(long msb) {
        return (msb << 48) | ((msb << 16) & 0xFFFF_0000_0000L) | (msb >>> 32);
    }

    private void putLong(long x) {
        ensure(8);
        byte[] b = buf;
        int p = length;
        for (int i = 0; i < 8; i++) b[p + i] = (byte) (x >>> (56 - 8 * i));
        length = p + 8;
    }

    /** svarint (see the class comment): 1 to 9 bytes, order-preserving, prefix-free. */
    private void putSignedVarLong(long x) {
        long negativeMask = x >> 63;
        long magnitude = x ^ negativeMask;
        int bits = 64 - Long.numberOfLeadingZeros(magnitude | 1);
        int n = bits / 7 + 1;
        ensure(9);
        byte[] b = buf;
        int p = length;
        if (n >= 9) {
            b[p++] = (byte) ~negativeMask;
            long w = (magnitude | Long.MIN_VALUE) ^ negativeMask;
            for (int i = 0; i < 8; i++) b[p + i] = (byte) (w >>> (56 - 8 * i));
            length = p + 8;
            return;
        }
        long lengthBits = (-0x100L >> n) & 0xFF; // the sign bit and n - 1 more ones, in the top byte
        long w = (magnitude | (lengthBits << (8 * n - 8))) ^ negativeMask;
        for (int i = n - 1; i >= 0; i--) b[p++] = (byte) (w >>> (8 * i));
        length = p;
    }

    /** uvarint (see the class comment), each byte XORed with {@code xor}. */
    private void putUnsignedVarInt(long x, int xor) {
        int bitsMinusOne = 63 - Long.numberOfLeadingZeros(x | 1);
        int extra = bitsMinusOne / 7;
        ensure(extra + 1);
        byte[] b = buf;
        int p = length;
        int lengthBits = -256 >> extra;
        b[p++] = (byte) (((x >>> (8 * extra)) | lengthBits) ^ xor);
        for (int i = extra - 1; i >= 0; i--) b[p++] = (byte) ((x >>> (8 * i)) ^ xor);
        length = p;
    }

    /**
     * varint: the short form (svarint) below 7 significant bytes, else sign, length and the bytes.
     * Significant bytes start after any leading bytes that repeat a 00 or FF first byte.
     * A non-minimal value with more than 8 bytes but fewer than 7 significant ones (which no
     * Cassandra writer produces) gets the short form of its value here; Cassandra 5.0.9 fails an
     * assertion on it.
     */
    private void putVarint(byte[] v, int off, int len) {
        byte first = v[off];
        int p = 0;
        if (first == 0 || first == -1) {
            // stops at the first byte that differs from the first, or at the last byte
            while (p + 1 < len) {
                if (v[off + ++p] != first) break;
            }
        }
        int significant = len - p;
        if (significant < VARINT_LONG_FORM_BYTES) {
            long x = first < 0 ? -1L : 0L;
            for (int i = p; i < len; i++) x = (x << 8) | (v[off + i] & 0xFF);
            putSignedVarLong(x);
            return;
        }
        int signFill = first < 0 ? 0xFF : 0x00;
        put(signFill ^ 0xFF);
        putUnsignedVarInt(significant - VARINT_LONG_FORM_BYTES, signFill);
        ensure(significant);
        System.arraycopy(v, off + p, buf, length, significant);
        length += significant;
    }

    // ---- decimal -------------------------------------------------------------------------------

    /**
     * decimal (see the class comment), from the value's decimal digits, without BigDecimal: the
     * unscaled magnitude is cut into base-10^9 chunks in reused scratch arrays.
     */
    private void putDecimal(CqlType t, byte[] v, int off, int len) {
        if (len < 5) throw bad(t, v, off, len, "has no unscaled value after its 4-byte scale");
        int scale = CqlTypes.readInt(v, off);
        int uOff = off + 4, uLen = len - 4;
        boolean negative = v[uOff] < 0;
        int precision = decimalDigits(v, uOff, uLen, negative);
        if (precision == 0) {
            put(POSITIVE_DECIMAL_HEADER);
            return;
        }
        // value = 0.d1..dP * 10^(P - scale); make the power of 10 even (a power of 100) by
        // rounding (scale - P) down to even, which puts one 0 digit in front when it was odd.
        long shift = (long) scale - precision;
        long evenShift = shift & ~1L;
        boolean leadingZero = evenShift != shift;
        int exponent = (int) (-evenShift >> 1);
        int modulated = negative ? -exponent : exponent;
        int exponentBytes = 4 - Integer.numberOfLeadingZeros(Math.abs(modulated)) / 8;
        put(DECIMAL_EXPONENT_LENGTH_HEADER + (modulated < 0 ? -exponentBytes : exponentBytes)
                + (negative ? NEGATIVE_DECIMAL_HEADER : POSITIVE_DECIMAL_HEADER));
        for (int i = exponentBytes - 1; i >= 0; i--) put(modulated >> (8 * i));

        // The mantissa's digits: an optional leading 0, then d1..dP without trailing zeros, in pairs.
        byte[] d = digits;
        int lead = leadingZero ? 1 : 0;
        int last = precision - 1;
        while (d[last] == 0) last--;
        int count = lead + last + 1;
        int pairs = (count + 1) / 2;
        ensure(pairs + 1);
        byte[] b = buf;
        int p = length;
        for (int j = 0; j < pairs; j++) {
            int hi = digitAt(d, 2 * j - lead, last);
            int lo = digitAt(d, 2 * j + 1 - lead, last);
            int pair = 10 * hi + lo;
            int out;
            if (!negative) out = 0x80 + pair;
            else if (pairs == 1) out = 0x80 - pair;
            else if (j == 0) out = 0x7F - pair;
            else if (j == pairs - 1) out = 0x80 + 100 - pair;
            else out = 0x80 + 99 - pair;
            b[p++] = (byte) out;
        }
        b[p++] = 0x00;
        length = p;
    }

    /** Digit {@code i} of the mantissa's digits {@code d[0..last]}, 0 outside them (the leading and padding zeros). */
    private static int digitAt(byte[] d, int i, int last) {
        return i < 0 || i > last ? 0 : d[i];
    }

    /**
     * Writes the decimal digits of the magnitude of the two's-complement integer
     * {@code v[off, off + len)} into {@link #digits}, most significant first, and returns how
     * many (0 for zero).
     */
    private int decimalDigits(byte[] v, int off, int len, boolean negative) {
        int n = (len + 3) / 4;
        if (limbs.length < n) limbs = new int[Math.max(n, 2 * limbs.length)];
        int[] m = limbs;
        // big-endian 32-bit limbs, the first padded with the sign
        int fill = negative ? -1 : 0;
        int head = len - 4 * (n - 1);
        int at = off;
        int first = fill;
        for (int i = 0; i < head; i++) first = (first << 8) | (v[at++] & 0xFF);
        m[0] = first;
        for (int k = 1; k < n; k++, at += 4) m[k] = CqlTypes.readInt(v, at);
        if (negative) {
            // magnitude = ~x + 1
            boolean carry = true;
            for (int k = n - 1; k >= 0; k--) {
                int w = ~m[k];
                if (carry) {
                    w++;
                    carry = w == 0;
                }
                m[k] = w;
            }
        }
        int top = 0;
        while (top < n && m[top] == 0) top++;
        if (top == n) return 0;

        int maxChunks = (int) ((32L * (n - top)) / 29) + 2; // 10^9 > 2^29
        if (chunks.length < maxChunks) chunks = new int[Math.max(maxChunks, 2 * chunks.length)];
        int[] c = chunks;
        int chunkCount = 0;
        while (top < n) {
            long rem = 0;
            for (int k = top; k < n; k++) {
                long cur = (rem << 32) | (m[k] & 0xFFFF_FFFFL);
                long q = cur / DECIMAL_CHUNK;
                m[k] = (int) q;
                rem = cur - q * DECIMAL_CHUNK;
            }
            c[chunkCount++] = (int) rem;
            while (top < n && m[top] == 0) top++;
        }

        int maxDigits = chunkCount * DECIMAL_CHUNK_DIGITS;
        if (digits.length < maxDigits) digits = new byte[Math.max(maxDigits, 2 * digits.length)];
        byte[] d = digits;
        int count = 0;
        int highest = c[chunkCount - 1];
        int highestDigits = 1;
        for (int x = highest; x >= 10; x /= 10) highestDigits++;
        for (int i = highestDigits - 1, x = highest; i >= 0; i--, x /= 10) d[count + i] = (byte) (x % 10);
        count += highestDigits;
        for (int j = chunkCount - 2; j >= 0; j--) {
            int x = c[j];
            for (int i = DECIMAL_CHUNK_DIGITS - 1; i >= 0; i--, x /= 10) d[count + i] = (byte) (x % 10);
            count += DECIMAL_CHUNK_DIGITS;
        }
        return count;
    }

    // ---- composites ----------------------------------------------------------------------------

    /** A collection element or map key/value: 40 and its form, or 3E when it has none. */
    private void putElement(CqlType t, byte[] v, int off, int len) {
        int marker = length;
        put(NEXT_COMPONENT);
        if (!putValue(t, v, off, len)) set(marker, NEXT_COMPONENT_NULL);
    }

    private void putListOrSet(CqlType t, byte[] v, int off, int len) {
        int end = off + len;
        int count = collectionCount(t, v, off, len);
        CqlType element = t.elementType();
        int p = off + 4;
        for (int i = 0; i < count; i++) {
            int l = elementLength(t, v, off, len, p, i);
            putElement(element, v, p + 4, l);
            p += 4 + l;
        }
        if (p != end) throw bad(t, v, off, len, "has " + (end - p) + " bytes after its last element");
        put(TERMINATOR);
    }

    private void putMap(CqlType t, byte[] v, int off, int len) {
        int end = off + len;
        int count = collectionCount(t, v, off, len);
        CqlType key = t.elementType(), value = t.valueType();
        int p = off + 4;
        for (int i = 0; i < count; i++) {
            int l = elementLength(t, v, off, len, p, i);
            putElement(key, v, p + 4, l);
            p += 4 + l;
            l = elementLength(t, v, off, len, p, i);
            putElement(value, v, p + 4, l);
            p += 4 + l;
        }
        if (p != end) throw bad(t, v, off, len, "has " + (end - p) + " bytes after its last entry");
        put(TERMINATOR);
    }

    private static int collectionCount(CqlType t, byte[] v, int off, int len) {
        if (len < 4) throw bad(t, v, off, len, "has no element count");
        int count = CqlTypes.readInt(v, off);
        if (count < 0) throw bad(t, v, off, len, "has a negative element count " + count);
        return count;
    }

    /** The length of element {@code i} whose length field is at {@code p}, checked against the value's end. */
    private static int elementLength(CqlType t, byte[] v, int off, int len, int p, int i) {
        int end = off + len;
        if (end - p < 4) throw bad(t, v, off, len, "ends inside element " + i);
        int l = CqlTypes.readInt(v, p);
        if (l < 0) throw bad(t, v, off, len, "has a null element " + i + ", which has no byte-comparable form");
        if (l > end - p - 4) throw bad(t, v, off, len, "has element " + i + " of " + l + " bytes beyond its end");
        return l;
    }

    /**
     * A tuple or UDT: its components while the value has bytes (a short value's missing ones are
     * null), trailing nulls dropped, then the terminator.
     */
    private void putTuple(CqlType t, byte[] v, int off, int len) {
        int end = off + len;
        int p = off;
        int afterLastNonNull = length;
        for (int i = 0, n = t.size(); i < n && p < end; i++) {
            if (end - p < 4) throw bad(t, v, off, len, "ends inside the length of component " + i);
            int l = CqlTypes.readInt(v, p);
            p += 4;
            if (l < 0) {
                put(NEXT_COMPONENT_NULL);
                continue;
            }
            if (l > end - p) throw bad(t, v, off, len, "has component " + i + " of " + l + " bytes beyond its end");
            putElement(t.component(i), v, p, l);
            p += l;
            afterLastNonNull = length;
        }
        if (p != end) throw bad(t, v, off, len, "has " + (end - p) + " bytes after its last component");
        length = afterLastNonNull;
        put(TERMINATOR);
    }

    /**
     * Whether Cassandra's validator of the type refuses an empty value, as it validates the
     * elements of a vector (and everything inside them) when it splits one, though nowhere else
     * on the way to a byte-comparable form.
     */
    private static boolean emptyRefusedInVector(CqlType.Kind kind) {
        switch (kind) {
            case SMALLINT:
            case TINYINT:
            case DATE:
            case TIME:
            case LIST:
            case SET:
            case MAP:
            case VECTOR:
                return true;
            default:
                return false;
        }
    }

    private void putVector(CqlType t, byte[] v, int off, int len) {
        vectorDepth++;
        try {
            putVectorElements(t, v, off, len);
        } finally {
            vectorDepth--;
        }
    }

    private void putVectorElements(CqlType t, byte[] v, int off, int len) {
        CqlType e = t.elementType();
        int n = t.dimension();
        int fixed = e.fixedLength();
        int end = off + len;
        int p = off;
        for (int i = 0; i < n; i++) {
            int l;
            if (fixed >= 0) {
                l = fixed;
            } else {
                if (p >= end || end - p < CqlTypes.sizeOfUnsignedVIntAt(v, p)) {
                    throw bad(t, v, off, len, "ends inside the length of element " + i);
                }
                long ll = CqlTypes.readUnsignedVInt(v, p);
                p += CqlTypes.sizeOfUnsignedVIntAt(v, p);
                if (ll < 0 || ll > end - p) {
                    throw bad(t, v, off, len, "has element " + i + " of " + Long.toUnsignedString(ll) + " bytes beyond its end");
                }
                l = (int) ll;
            }
            if (l > end - p) throw bad(t, v, off, len, "ends inside element " + i);
            putElement(e, v, p, l);
            p += l;
        }
        if (p != end) throw bad(t, v, off, len, "has " + (end - p) + " bytes after its " + n + " elements");
        put(TERMINATOR);
    }

    // ---- buffer and errors ---------------------------------------------------------------------

    private void ensure(long more) {
        if (length + more > buf.length) grow(more);
    }

    private void grow(long more) {
        long needed = length + more;
        if (needed > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("a byte-comparable form of more than " + (Integer.MAX_VALUE - 8) + " bytes");
        }
        buf = Arrays.copyOf(buf, (int) Math.min(Integer.MAX_VALUE - 8, Math.max(needed, 2L * buf.length)));
    }

    private static void checkLength(CqlType t, byte[] v, int off, int len, int size) {
        if (len != size) throw bad(t, v, off, len, "has " + len + " bytes; a " + t + " has " + size);
    }

    private static IllegalArgumentException noForm(CqlType t) {
        return new IllegalArgumentException(t + " has no byte-comparable form: it cannot be part of a primary key");
    }

    private static final int MAX_SHOWN_BYTES = 64;

    private static IllegalArgumentException bad(CqlType t, byte[] v, int off, int len, String what) {
        int shown = Math.min(len, MAX_SHOWN_BYTES);
        String hex = HexFormat.of().formatHex(v, off, off + shown) + (shown < len ? "..." : "");
        return new IllegalArgumentException(t + " value 0x" + hex + " " + what);
    }
}

package dev.flushline.schema;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;

/**
 * Per-type facts and value orders for {@link CqlType}: fixed lengths, marshal names and
 * comparators of serialized values, all in one place.
 *
 * <p>Every comparator returns a value with the same sign as cassandra-all 5.0.9's
 * {@code AbstractType.compare} for the marshal type, on every value Cassandra accepts. Where
 * Cassandra would throw (an empty smallint/tinyint, a non-version-1 timeuuid) we still return an
 * answer: empty first, otherwise the plain order. The comparators allocate nothing, except
 * {@code decimal} when an unscaled value needs more than 64 bits (slow path, see
 * {@link #compareDecimal}).
 *
 * <p>Thread safety: stateless.
 */
final class CqlTypes {
    private CqlTypes() {}

    private static final String PREFIX = "org.apache.cassandra.db.marshal.";

    /** -1 = variable length, as {@code AbstractType.VARIABLE_LENGTH}. */
    static int fixedLength(CqlType t) {
        switch (t.kind()) {
            case BIGINT:
            case TIMESTAMP:
            case DOUBLE:
                return 8;
            case INT:
            case FLOAT:
                return 4;
            case BOOLEAN:
                return 1;
            case UUID:
            case TIMEUUID:
                return 16;
            case VECTOR: {
                // VectorType: fixed when its element type is; CqlType.vector keeps the product in range
                int e = t.elementType().fixedLength();
                return e > 0 ? e * t.dimension() : -1;
            }
            // date (SimpleDateType), time (TimeType), smallint (ShortType) and tinyint (ByteType)
            // hold 4, 8, 2 and 1 bytes, but 5.0.9 does not override valueLengthIfFixed() for them,
            // so they are written with a length like any variable-length type. Nor do tuples,
            // UDTs, durations and counters.
            default:
                return -1;
        }
    }

    /**
     * Cassandra's {@code AbstractType.toString(ignoreFreezing)}: a frozen collection or UDT is
     * wrapped in {@code FrozenType(...)} unless {@code ignoreFreezing}, and everything inside a
     * frozen type is printed ignoring freezing; tuples are never wrapped and print their
     * components ignoring freezing; a vector passes {@code ignoreFreezing} on to its element and
     * separates the dimension with {@code " , "}; a UDT prints its keyspace, its name and each
     * field name as hex of their UTF-8 bytes.
     */
    static String marshalName(CqlType t, boolean ignoreFreezing) {
        switch (t.kind()) {
            case ASCII: return PREFIX + "AsciiType";
            case BIGINT: return PREFIX + "LongType";
            case BLOB: return PREFIX + "BytesType";
            case BOOLEAN: return PREFIX + "BooleanType";
            case DATE: return PREFIX + "SimpleDateType";
            case DECIMAL: return PREFIX + "DecimalType";
            case DOUBLE: return PREFIX + "DoubleType";
            case FLOAT: return PREFIX + "FloatType";
            case INET: return PREFIX + "InetAddressType";
            case INT: return PREFIX + "Int32Type";
            case SMALLINT: return PREFIX + "ShortType";
            case TEXT: return PREFIX + "UTF8Type";
            case TIME: return PREFIX + "TimeType";
            case TIMESTAMP: return PREFIX + "TimestampType";
            case TIMEUUID: return PREFIX + "TimeUUIDType";
            case TINYINT: return PREFIX + "ByteType";
            case UUID: return PREFIX + "UUIDType";
            case VARINT: return PREFIX + "IntegerType";
            case DURATION: return PREFIX + "DurationType";
            case COUNTER: return PREFIX + "CounterColumnType";
            case TUPLE: {
                StringBuilder sb = new StringBuilder(PREFIX).append("TupleType(");
                for (int i = 0; i < t.size(); i++) sb.append(i == 0 ? "" : ",").append(marshalName(t.component(i), true));
                return sb.append(')').toString();
            }
            case VECTOR:
                return PREFIX + "VectorType(" + marshalName(t.elementType(), ignoreFreezing) + " , " + t.dimension() + ")";
            default:
                break;
        }
        boolean wrap = !ignoreFreezing && t.isFrozen();
        boolean inner = ignoreFreezing || t.isFrozen();
        StringBuilder sb = new StringBuilder();
        if (wrap) sb.append(PREFIX).append("FrozenType(");
        switch (t.kind()) {
            case LIST: sb.append(PREFIX).append("ListType(").append(marshalName(t.elementType(), inner)); break;
            case SET: sb.append(PREFIX).append("SetType(").append(marshalName(t.elementType(), inner)); break;
            case MAP:
                sb.append(PREFIX).append("MapType(").append(marshalName(t.elementType(), inner))
                        .append(',').append(marshalName(t.valueType(), inner));
                break;
            case UDT:
                sb.append(PREFIX).append("UserType(").append(t.keyspace()).append(',').append(hex(CqlType.utf8(t.typeName())));
                for (int i = 0; i < t.size(); i++) {
                    sb.append(',').append(hex(CqlType.utf8(t.fieldName(i)))).append(':').append(marshalName(t.component(i), inner));
                }
                break;
            default:
                throw new AssertionError(t.kind());
        }
        sb.append(')');
        if (wrap) sb.append(')');
        return sb.toString();
    }

    private static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder(2 * b.length);
        for (byte x : b) sb.append(Character.forDigit((x >> 4) & 0xF, 16)).append(Character.forDigit(x & 0xF, 16));
        return sb.toString();
    }

    static int compare(CqlType t, byte[] a, int aOffset, int aLength, byte[] b, int bOffset, int bLength) {
        // Empty sorts first for every type (Cassandra's CUSTOM comparators special-case it; for the
        // byte-order types it falls out of the unsigned compare).
        if (aLength == 0 || bLength == 0) {
            return aLength == 0 ? (bLength == 0 ? 0 : -1) : 1;
        }
        switch (t.kind()) {
            case ASCII:
            case TEXT:
            case BLOB:
            case INET:
            case DURATION: // DurationType compares bytes (it is never a key, but may sit in a tuple that is)
            case COUNTER: // never compared: a counter is not a key, nor inside another type
            case DATE: // unsigned days with the epoch at 2^31: byte order is date order
            case TIME: // nanos of day, never negative: byte order is time order
                return Arrays.compareUnsigned(a, aOffset, aOffset + aLength, b, bOffset, bOffset + bLength);
            case INT:
            case BIGINT:
            case TIMESTAMP:
            case SMALLINT:
                return signedFirstByteThenUnsigned(a, aOffset, aLength, b, bOffset, bLength);
            case TINYINT:
                return a[aOffset] - b[bOffset];
            case BOOLEAN:
                return (a[aOffset] == 0 ? 0 : 1) - (b[bOffset] == 0 ? 0 : 1);
            case DOUBLE:
                return Double.compare(Double.longBitsToDouble(readLong(a, aOffset)),
                        Double.longBitsToDouble(readLong(b, bOffset)));
            case FLOAT:
                return Float.compare(Float.intBitsToFloat(readInt(a, aOffset)),
                        Float.intBitsToFloat(readInt(b, bOffset)));
            case UUID:
                return compareUuid(a, aOffset, b, bOffset);
            case TIMEUUID:
                return compareTimeUuid(a, aOffset, b, bOffset);
            case VARINT:
                return compareVarint(a, aOffset, aLength, b, bOffset, bLength);
            case DECIMAL:
                return compareDecimal(a, aOffset, aLength, b, bOffset, bLength);
            case LIST:
            case SET:
                return compareListOrSet(t.elementType(), a, aOffset, b, bOffset);
            case MAP:
                return compareMap(t.elementType(), t.valueType(), a, aOffset, b, bOffset);
            case TUPLE:
            case UDT:
                return compareTuple(t, a, aOffset, aLength, b, bOffset, bLength);
            case VECTOR:
                return t.elementType().fixedLength() > 0
                        ? compareFixedVector(t, a, aOffset, b, bOffset)
                        : compareVariableVector(t, a, aOffset, b, bOffset);
            default:
                throw new AssertionError(t);
        }
    }

    /** Int32Type/LongType/ShortType order: sign byte signed, the rest (and the length) unsigned. */
    private static int signedFirstByteThenUnsigned(byte[] a, int aOffset, int aLength, byte[] b, int bOffset, int bLength) {
        // Two values of one width in that order are two's complement big-endian numbers: compared as
        // such without the byte walk (a merge compares clusterings once per row version).
        if (aLength == bLength) {
            if (aLength == Integer.BYTES) return Integer.compare(readInt(a, aOffset), readInt(b, bOffset));
            if (aLength == Long.BYTES) return Long.compare(readLong(a, aOffset), readLong(b, bOffset));
        }
        int diff = a[aOffset] - b[bOffset];
        if (diff != 0) return diff;
        return Arrays.compareUnsigned(a, aOffset, aOffset + aLength, b, bOffset, bOffset + bLength);
    }

    /** See {@link CqlType#signedOrderWidth()}: the widths at which compare's case above takes the numbers. */
    static int signedOrderWidth(CqlType t) {
        switch (t.kind()) {
            case INT: return Integer.BYTES;
            case BIGINT:
            case TIMESTAMP: return Long.BYTES;
            default: return 0;
        }
    }

    static long signedOrderValue(int width, byte[] a, int off) {
        return width == Integer.BYTES ? readInt(a, off) : readLong(a, off);
    }

    static long readLong(byte[] a, int off) {
        return ((long) readInt(a, off) << 32) | (readInt(a, off + 4) & 0xFFFFFFFFL);
    }

    static int readInt(byte[] a, int off) {
        return (a[off] << 24) | ((a[off + 1] & 0xFF) << 16) | ((a[off + 2] & 0xFF) << 8) | (a[off + 3] & 0xFF);
    }

    private static int version(long msb) {
        return (int) ((msb >>> 12) & 0xF);
    }

    /**
     * A version-1 UUID's msb rearranged so that its 60-bit timestamp reads high to low:
     * time_hi (with the version nibble on top), time_mid, time_low.
     */
    private static long timeOrderedMsb(long msb) {
        return (msb << 48) | ((msb << 16) & 0xFFFF_0000_0000L) | (msb >>> 32);
    }

    /**
     * UUIDType: version first; version 1 by timestamp; other versions by msb unsigned; then the
     * lsb unsigned. REQUIRES: both values are 16 bytes.
     */
    private static int compareUuid(byte[] a, int aOffset, byte[] b, int bOffset) {
        long msbA = readLong(a, aOffset), msbB = readLong(b, bOffset);
        int va = version(msbA), vb = version(msbB);
        if (va != vb) return va - vb;
        int c = va == 1
                ? Long.compare(timeOrderedMsb(msbA), timeOrderedMsb(msbB))
                : Long.compareUnsigned(msbA, msbB);
        if (c != 0) return c;
        return Long.compareUnsigned(readLong(a, aOffset + 8), readLong(b, bOffset + 8));
    }

    /**
     * TimeUUIDType: by timestamp, then the lsb as SIGNED bytes (UUIDType compares them unsigned;
     * TimeUUIDType keeps its older signed order, because existing data is sorted by it).
     * Flipping the top bit of bytes 1..7 turns a signed per-byte compare into one long compare
     * (byte 0 is already compared signed by Long.compare). REQUIRES: both values are 16 bytes.
     */
    private static int compareTimeUuid(byte[] a, int aOffset, byte[] b, int bOffset) {
        int c = Long.compare(timeOrderedMsb(readLong(a, aOffset)), timeOrderedMsb(readLong(b, bOffset)));
        if (c != 0) return c;
        long lsbA = readLong(a, aOffset + 8) ^ 0x0080_8080_8080_8080L;
        long lsbB = readLong(b, bOffset + 8) ^ 0x0080_8080_8080_8080L;
        return Long.compare(lsbA, lsbB);
    }

    /**
     * Index of the first significant byte of a two's-complement big-endian integer: leading
     * 0x00 (or 0xFF) bytes that only repeat the sign of the next byte are skipped.
     * REQUIRES: length >= 1.
     */
    private static int firstSignificant(byte[] v, int offset, int length) {
        int i = offset;
        int last = offset + length - 1;
        while (i < last && ((v[i] == 0 && v[i + 1] >= 0) || (v[i] == -1 && v[i + 1] < 0))) {
            i++;
        }
        return i;
    }

    /** Numeric order of two non-empty two's-complement big-endian integers of any length. */
    static int compareVarint(byte[] a, int aOffset, int aLength, byte[] b, int bOffset, int bLength) {
        int ia = firstSignificant(a, aOffset, aLength);
        int ib = firstSignificant(b, bOffset, bLength);
        boolean negA = a[ia] < 0, negB = b[ib] < 0;
        if (negA != negB) return negA ? -1 : 1;
        int lenA = aOffset + aLength - ia, lenB = bOffset + bLength - ib;
        if (lenA != lenB) {
            // Same sign: more significant bytes means a larger magnitude.
            return negA ? Integer.compare(lenB, lenA) : Integer.compare(lenA, lenB);
        }
        int diff = a[ia] - b[ib];
        if (diff != 0) return diff;
        return Arrays.compareUnsigned(a, ia + 1, ia + lenA, b, ib + 1, ib + lenB);
    }

    private static int signum(byte[] v, int offset, int length) {
        if (v[offset] < 0) return -1;
        for (int i = offset; i < offset + length; i++) {
            if (v[i] != 0) return 1;
        }
        return 0;
    }

    private static final long[] POW10 = new long[19];

    static {
        POW10[0] = 1;
        for (int i = 1; i < POW10.length; i++) POW10[i] = POW10[i - 1] * 10;
    }

    /**
     * DecimalType: numeric order (BigDecimal.compareTo, so 1.0 == 1.00). Value layout: int32
     * scale, then the unscaled value as a two's-complement big-endian integer. Fast paths, no
     * allocation: different signs; equal scales; both unscaled values within 64 bits. Only other
     * cases build BigDecimals. REQUIRES: both values hold at least 5 bytes (Cassandra cannot
     * read a decimal with an empty unscaled part either).
     */
    static int compareDecimal(byte[] a, int aOffset, int aLength, byte[] b, int bOffset, int bLength) {
        int scaleA = readInt(a, aOffset), scaleB = readInt(b, bOffset);
        int ua = aOffset + 4, ub = bOffset + 4;
        int ula = aLength - 4, ulb = bLength - 4;
        int sa = signum(a, ua, ula), sb = signum(b, ub, ulb);
        if (sa != sb) return Integer.compare(sa, sb);
        if (sa == 0) return 0;
        if (scaleA == scaleB) return compareVarint(a, ua, ula, b, ub, ulb);
        int ia = firstSignificant(a, ua, ula), ib = firstSignificant(b, ub, ulb);
        int lenA = ua + ula - ia, lenB = ub + ulb - ib;
        if (lenA <= 8 && lenB <= 8) {
            long va = readSignExtended(a, ia, lenA), vb = readSignExtended(b, ib, lenB);
            // value = unscaled * 10^-scale; bring the one with the smaller scale up to the other.
            long d = (long) scaleA - scaleB;
            return d > 0 ? compareScaledUp(va, vb, d) : -compareScaledUp(vb, va, -d);
        }
        return slowDecimal(a, ua, ula, scaleA).compareTo(slowDecimal(b, ub, ulb, scaleB));
    }

    /** Compares x with y * 10^d. REQUIRES: d > 0, x and y of the same non-zero sign. */
    private static int compareScaledUp(long x, long y, long d) {
        if (d < POW10.length) {
            long p = POW10[(int) d];
            long lo = y * p;
            long hi = Math.multiplyHigh(y, p);
            if (hi == (lo >> 63)) return Long.compare(x, lo);
        }
        // |y * 10^d| does not fit in a long, so it is beyond |x|: its sign decides.
        return y > 0 ? -1 : 1;
    }

    private static long readSignExtended(byte[] v, int offset, int length) {
        long r = v[offset]; // sign-extends
        for (int i = 1; i < length; i++) r = (r << 8) | (v[offset + i] & 0xFF);
        return r;
    }

    private static BigDecimal slowDecimal(byte[] v, int offset, int length, int scale) {
        return new BigDecimal(new BigInteger(v, offset, length), scale);
    }

    /**
     * Frozen list/set (same code for a non-frozen type's whole value): element by element, then
     * the shorter collection first. Layout: int32 count, then per element int32 length + bytes.
     * A negative length (a null element, which Cassandra never stores) compares as empty.
     */
    private static int compareListOrSet(CqlType element, byte[] a, int aOffset, byte[] b, int bOffset) {
        int sizeA = readInt(a, aOffset), sizeB = readInt(b, bOffset);
        int pa = aOffset + 4, pb = bOffset + 4;
        int n = Math.min(sizeA, sizeB);
        for (int i = 0; i < n; i++) {
            int la = Math.max(readInt(a, pa), 0), lb = Math.max(readInt(b, pb), 0);
            int c = compare(element, a, pa + 4, la, b, pb + 4, lb);
            if (c != 0) return c;
            pa += 4 + la;
            pb += 4 + lb;
        }
        return Integer.compare(sizeA, sizeB);
    }

    /** Frozen map: key, then value, entry by entry; then the smaller map first. */
    private static int compareMap(CqlType key, CqlType value, byte[] a, int aOffset, byte[] b, int bOffset) {
        int sizeA = readInt(a, aOffset), sizeB = readInt(b, bOffset);
        int pa = aOffset + 4, pb = bOffset + 4;
        int n = Math.min(sizeA, sizeB);
        for (int i = 0; i < n; i++) {
            int la = Math.max(readInt(a, pa), 0), lb = Math.max(readInt(b, pb), 0);
            int c = compare(key, a, pa + 4, la, b, pb + 4, lb);
            if (c != 0) return c;
            pa += 4 + la;
            pb += 4 + lb;
            la = Math.max(readInt(a, pa), 0);
            lb = Math.max(readInt(b, pb), 0);
            c = compare(value, a, pa + 4, la, b, pb + 4, lb);
            if (c != 0) return c;
            pa += 4 + la;
            pb += 4 + lb;
        }
        return Integer.compare(sizeA, sizeB);
    }

    /**
     * TupleType (and UserType) order: component by component while both values have bytes left;
     * a null component sorts before a non-null one and equals another null; then, when one value
     * ran out, it is equal to the other if all the other's remaining components are null, else
     * smaller. (A UDT written with fewer fields than its type has compares as if the missing
     * ones were null.) REQUIRES: both values non-empty.
     */
    private static int compareTuple(CqlType t, byte[] a, int aOffset, int aLength, byte[] b, int bOffset, int bLength) {
        int pa = aOffset, pb = bOffset;
        int endA = aOffset + aLength, endB = bOffset + bLength;
        int n = t.size();
        for (int i = 0; pa < endA && pb < endB && i < n; i++) {
            int sa = readInt(a, pa), sb = readInt(b, pb);
            pa += 4;
            pb += 4;
            if (sa < 0) {
                if (sb < 0) continue;
                return -1;
            }
            if (sb < 0) return 1;
            int c = compare(t.component(i), a, pa, sa, b, pb, sb);
            if (c != 0) return c;
            pa += sa;
            pb += sb;
        }
        boolean restANull = remainingAreNull(a, pa, endA), restBNull = remainingAreNull(b, pb, endB);
        if (restANull && restBNull) return 0;
        if (pa == endA) return restBNull ? 0 : -1;
        return restANull ? 0 : 1;
    }

    private static boolean remainingAreNull(byte[] v, int p, int end) {
        while (p < end) {
            if (readInt(v, p) >= 0) return false;
            p += 4;
        }
        return true;
    }

    /** VectorType of a fixed-length element type: element by element (none of those types compares by bytes). */
    private static int compareFixedVector(CqlType t, byte[] a, int aOffset, byte[] b, int bOffset) {
        CqlType e = t.elementType();
        int len = e.fixedLength();
        for (int i = 0, n = t.dimension(); i < n; i++) {
            int c = compare(e, a, aOffset + i * len, len, b, bOffset + i * len, len);
            if (c != 0) return c;
        }
        return 0;
    }

    /** VectorType of a variable-length element type: element by element, each behind an unsigned vint length. */
    private static int compareVariableVector(CqlType t, byte[] a, int aOffset, byte[] b, int bOffset) {
        CqlType e = t.elementType();
        int pa = aOffset, pb = bOffset;
        for (int i = 0, n = t.dimension(); i < n; i++) {
            long la = readUnsignedVInt(a, pa), lb = readUnsignedVInt(b, pb);
            pa += sizeOfUnsignedVInt(la);
            pb += sizeOfUnsignedVInt(lb);
            int c = compare(e, a, pa, (int) la, b, pb, (int) lb);
            if (c != 0) return c;
            pa += (int) la;
            pb += (int) lb;
        }
        return 0;
    }

    /**
     * Cassandra's unsigned vint: the count of leading 1 bits of the first byte is the number of
     * extra bytes; the value follows, big-endian, in the remaining bits.
     */
    static long readUnsignedVInt(byte[] v, int p) {
        int first = v[p];
        if (first >= 0) return first;
        int extra = Integer.numberOfLeadingZeros(~first & 0xFF) - 24;
        long r = first & (0xFF >> extra);
        for (int i = 1; i <= extra; i++) r = (r << 8) | (v[p + i] & 0xFF);
        return r;
    }

    /** Bytes of the unsigned vint that starts at {@code v[p]}, from its first byte. */
    static int sizeOfUnsignedVIntAt(byte[] v, int p) {
        return 1 + Integer.numberOfLeadingZeros(~v[p] & 0xFF) - 24;
    }

    /** A signed vint's value from its unsigned (zigzag) form. */
    static long zigzagDecode(long n) {
        return (n >>> 1) ^ -(n & 1);
    }

    static long zigzagEncode(long x) {
        return (x << 1) ^ (x >> 63);
    }

    /** Bytes of {@code x} as an unsigned vint: 7 value bits per byte up to 8 bytes, 9 bytes for 57 bits and more. */
    static int sizeOfUnsignedVInt(long x) {
        int magnitude = Long.numberOfLeadingZeros(x | 1);
        return (639 - magnitude * 9) >> 6;
    }

    /** Appends {@code x} as an unsigned vint. */
    static void writeUnsignedVInt(java.io.ByteArrayOutputStream out, long x) {
        int size = sizeOfUnsignedVInt(x);
        if (size == 1) {
            out.write((int) x);
            return;
        }
        int extra = size - 1;
        byte[] b = new byte[size];
        for (int i = size - 1; i >= 1; i--) {
            b[i] = (byte) x;
            x >>>= 8;
        }
        // the first byte: 'extra' one bits, a zero (unless 8 extra bytes), then the top value bits
        b[0] = (byte) ((0xFF << (8 - extra)) | (size == 9 ? 0 : (int) x));
        out.write(b, 0, size);
    }
}

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
            // date (SimpleDateType), time (TimeType), smallint (ShortType) and tinyint (ByteType)
            // hold 4, 8, 2 and 1 bytes, but 5.0.9 does not override valueLengthIfFixed() for them,
            // so they are written with a length like any variable-length type.
            default:
                return -1;
        }
    }

    static String marshalName(CqlType t) {
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
            default: break;
        }
        // Cassandra spells a frozen collection FrozenType(<Collection>Type(...)); the parameters
        // are native here, so they never carry a FrozenType of their own.
        String params = t.kind() == CqlType.Kind.MAP
                ? "(" + marshalName(t.elementType()) + "," + marshalName(t.valueType()) + ")"
                : "(" + marshalName(t.elementType()) + ")";
        String base = PREFIX + (t.kind() == CqlType.Kind.LIST ? "ListType"
                : t.kind() == CqlType.Kind.SET ? "SetType" : "MapType") + params;
        return t.isFrozen() ? PREFIX + "FrozenType(" + base + ")" : base;
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
            default:
                throw new AssertionError(t);
        }
    }

    /** Int32Type/LongType/ShortType order: sign byte signed, the rest (and the length) unsigned. */
    private static int signedFirstByteThenUnsigned(byte[] a, int aOffset, int aLength, byte[] b, int bOffset, int bLength) {
        int diff = a[aOffset] - b[bOffset];
        if (diff != 0) return diff;
        return Arrays.compareUnsigned(a, aOffset, aOffset + aLength, b, bOffset, bOffset + bLength);
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
}

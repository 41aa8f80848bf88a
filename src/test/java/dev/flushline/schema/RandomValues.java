package dev.flushline.schema;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;

/** Test helper: random serialized values of every type, biased towards edge cases. */
final class RandomValues {
    private final Random rnd;

    RandomValues(long seed) {
        this.rnd = new Random(seed);
    }

    Random random() {
        return rnd;
    }

    /** Serialized value of {@code t}; may be empty where Cassandra allows it. */
    byte[] value(CqlType t, boolean allowEmpty) {
        boolean emptyOk = allowEmpty && t.kind() != CqlType.Kind.SMALLINT && t.kind() != CqlType.Kind.TINYINT
                && t.kind() != CqlType.Kind.VECTOR;
        if (emptyOk && rnd.nextInt(12) == 0) return new byte[0];
        switch (t.kind()) {
            case ASCII: return asciiString().getBytes(StandardCharsets.US_ASCII);
            case TEXT: return textString().getBytes(StandardCharsets.UTF_8);
            case BLOB: return bytes(rnd.nextInt(6));
            case INET: return bytes(rnd.nextBoolean() ? 4 : 16);
            case BOOLEAN: return new byte[] {(byte) (rnd.nextInt(3) == 0 ? rnd.nextInt(256) : rnd.nextInt(2))};
            case TINYINT: return new byte[] {(byte) edgyLong()};
            case SMALLINT: return ByteBuffer.allocate(2).putShort((short) edgyLong()).array();
            case INT: return ByteBuffer.allocate(4).putInt((int) edgyLong()).array();
            case DATE: return ByteBuffer.allocate(4).putInt((int) edgyLong()).array();
            case BIGINT:
            case TIMESTAMP: return ByteBuffer.allocate(8).putLong(edgyLong()).array();
            case TIME: return ByteBuffer.allocate(8).putLong(Math.floorMod(edgyLong(), 86_400_000_000_000L)).array();
            case FLOAT: return ByteBuffer.allocate(4).putFloat(edgyFloat()).array();
            case DOUBLE: return ByteBuffer.allocate(8).putDouble(edgyDouble()).array();
            case UUID: return uuid(rnd.nextInt(6) == 0 ? rnd.nextInt(16) : 1 + rnd.nextInt(4));
            case TIMEUUID: return uuid(1);
            case VARINT: return varint(bigInteger());
            case DECIMAL: {
                BigInteger unscaled = bigInteger();
                int scale = rnd.nextInt(5) == 0 ? rnd.nextInt() : rnd.nextInt(41) - 20;
                byte[] u = varint(unscaled);
                return ByteBuffer.allocate(4 + u.length).putInt(scale).put(u).array();
            }
            case LIST:
            case SET: {
                int n = rnd.nextInt(4);
                byte[][] es = new byte[n][];
                for (int i = 0; i < n; i++) es[i] = value(t.elementType(), true);
                return collection(es);
            }
            case MAP: {
                int n = rnd.nextInt(4);
                byte[][] es = new byte[2 * n][];
                for (int i = 0; i < n; i++) {
                    es[2 * i] = value(t.elementType(), true);
                    es[2 * i + 1] = value(t.valueType(), true);
                }
                byte[] out = collection(es);
                ByteBuffer.wrap(out).putInt(0, n);
                return out;
            }
            case DURATION: return duration();
            case TUPLE:
            case UDT: {
                // nulls, and now and then fewer components than the type has (a value written before fields were added)
                int n = rnd.nextInt(8) == 0 ? 1 + rnd.nextInt(t.size()) : t.size();
                java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
                for (int i = 0; i < n; i++) {
                    if (rnd.nextInt(5) == 0) {
                        out.writeBytes(new byte[] {-1, -1, -1, -1});
                        continue;
                    }
                    byte[] v = value(t.component(i), true);
                    out.writeBytes(ByteBuffer.allocate(4).putInt(v.length).array());
                    out.writeBytes(v);
                }
                return out.toByteArray();
            }
            case VECTOR: {
                CqlType e = t.elementType();
                boolean emptyElements = e.kind() == CqlType.Kind.TEXT || e.kind() == CqlType.Kind.ASCII || e.kind() == CqlType.Kind.BLOB;
                java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
                for (int i = 0; i < t.dimension(); i++) {
                    byte[] v = value(e, emptyElements);
                    if (e.fixedLength() < 0) CqlTypes.writeUnsignedVInt(out, v.length);
                    out.writeBytes(v);
                }
                return out.toByteArray();
            }
            default: throw new AssertionError(t);
        }
    }

    /** Months, days and nanoseconds of one sign, as zigzag vints. */
    byte[] duration() {
        int sign = rnd.nextInt(3) - 1;
        long months = sign == 0 ? 0 : sign * (long) (rnd.nextBoolean() ? rnd.nextInt(30) : rnd.nextInt(Integer.MAX_VALUE));
        long days = sign == 0 ? 0 : sign * (long) (rnd.nextBoolean() ? rnd.nextInt(40) : rnd.nextInt(Integer.MAX_VALUE));
        long nanos = sign == 0 ? 0 : sign * (rnd.nextBoolean() ? (long) rnd.nextInt(100_000) : rnd.nextLong() & Long.MAX_VALUE);
        if (sign != 0 && rnd.nextBoolean()) months = 0;
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        CqlTypes.writeUnsignedVInt(out, CqlTypes.zigzagEncode(months));
        CqlTypes.writeUnsignedVInt(out, CqlTypes.zigzagEncode(days));
        CqlTypes.writeUnsignedVInt(out, CqlTypes.zigzagEncode(nanos));
        return out.toByteArray();
    }

    static byte[] collection(byte[][] elements) {
        int size = 4;
        for (byte[] e : elements) size += 4 + e.length;
        ByteBuffer bb = ByteBuffer.allocate(size).putInt(elements.length);
        for (byte[] e : elements) bb.putInt(e.length).put(e);
        return bb.array();
    }

    byte[] bytes(int n) {
        byte[] b = new byte[n];
        rnd.nextBytes(b);
        if (rnd.nextBoolean() && n > 0) b[0] = (byte) (rnd.nextBoolean() ? 0 : 0xFF);
        return b;
    }

    String asciiString() {
        int n = rnd.nextInt(5);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) sb.append((char) rnd.nextInt(128));
        return sb.toString();
    }

    String textString() {
        int n = rnd.nextInt(5);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            int k = rnd.nextInt(4);
            if (k == 0) sb.append((char) ('a' + rnd.nextInt(3)));
            else if (k == 1) sb.append((char) (0x80 + rnd.nextInt(0x700)));
            else if (k == 2) sb.appendCodePoint(0x10000 + rnd.nextInt(0x1000));
            else sb.append((char) rnd.nextInt(0x80));
        }
        return sb.toString();
    }

    long edgyLong() {
        switch (rnd.nextInt(6)) {
            case 0: return rnd.nextInt(7) - 3;
            case 1: return new long[] {Long.MIN_VALUE, Long.MAX_VALUE, Integer.MIN_VALUE, Integer.MAX_VALUE,
                    Short.MIN_VALUE, Short.MAX_VALUE, Byte.MIN_VALUE, Byte.MAX_VALUE, 255, 256, -256}[rnd.nextInt(11)];
            case 2: return rnd.nextInt(1000) - 500;
            case 3: return rnd.nextInt();
            default: return rnd.nextLong();
        }
    }

    float edgyFloat() {
        switch (rnd.nextInt(4)) {
            case 0: return new float[] {Float.NaN, -0.0f, 0.0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY,
                    Float.MIN_VALUE, -Float.MIN_VALUE, Float.MAX_VALUE, 1f, -1f}[rnd.nextInt(10)];
            case 1: return Float.intBitsToFloat(rnd.nextInt());
            default: return (rnd.nextInt(200) - 100) / 4f;
        }
    }

    double edgyDouble() {
        switch (rnd.nextInt(4)) {
            case 0: return new double[] {Double.NaN, -0.0, 0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
                    Double.MIN_VALUE, -Double.MIN_VALUE, Double.MAX_VALUE, 1, -1,
                    Double.longBitsToDouble(0x7ff8000000000001L)}[rnd.nextInt(11)];
            case 1: return Double.longBitsToDouble(rnd.nextLong());
            default: return (rnd.nextInt(200) - 100) / 4.0;
        }
    }

    byte[] uuid(int version) {
        byte[] b = bytes(16);
        if (rnd.nextInt(4) == 0) {
            // share the time fields so the lsb decides
            for (int i = 0; i < 8; i++) b[i] = (byte) (i * 17);
        }
        b[6] = (byte) ((b[6] & 0x0F) | (version << 4));
        return b;
    }

    BigInteger bigInteger() {
        switch (rnd.nextInt(5)) {
            case 0: return BigInteger.valueOf(rnd.nextInt(7) - 3);
            case 1: return BigInteger.valueOf(edgyLong());
            case 2: return new BigInteger(rnd.nextInt(200) + 1, rnd).negate();
            default: return new BigInteger(rnd.nextInt(200) + 1, rnd);
        }
    }

    /** Two's complement, sometimes with redundant sign bytes in front (still a valid value). */
    byte[] varint(BigInteger v) {
        byte[] min = v.toByteArray();
        int pad = rnd.nextInt(6) == 0 ? 1 + rnd.nextInt(3) : 0;
        byte[] out = new byte[min.length + pad];
        byte fill = (byte) (v.signum() < 0 ? 0xFF : 0);
        for (int i = 0; i < pad; i++) out[i] = fill;
        System.arraycopy(min, 0, out, pad, min.length);
        return out;
    }

    BigDecimal bigDecimal() {
        return new BigDecimal(bigInteger(), rnd.nextInt(41) - 20);
    }
}

package dev.flushline.schema;

import org.apache.cassandra.db.marshal.AbstractType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertEquals;

class CqlTypeCompareTest {

    @BeforeAll
    static void init() {
        CassandraOracle.init();
    }

    @Test
    void signOfCompareMatchesCassandraForEveryType() {
        RandomValues rv = new RandomValues(42);
        for (CqlType t : CassandraOracle.allTypes()) {
            AbstractType<?> c = CassandraOracle.typeOf(t);
            // a non-frozen collection's value is never compared as a whole; only frozen ones.
            if (t.isMultiCell() || t.isCounter()) continue;
            int rounds = t.isNative() ? 3000 : 400;
            for (int i = 0; i < rounds; i++) {
                byte[] a = rv.value(t, true);
                byte[] b = rv.random().nextInt(10) == 0 ? a.clone() : rv.value(t, true);
                check(t, c, a, b);
                check(t, c, b, a);
            }
        }
    }

    @Test
    void decimalsOfDifferentScalesCompareNumerically() {
        RandomValues rv = new RandomValues(7);
        CqlType t = CqlType.of(CqlType.Kind.DECIMAL);
        AbstractType<?> c = CassandraOracle.typeOf(t);
        for (int i = 0; i < 20000; i++) {
            java.math.BigDecimal x = rv.bigDecimal();
            // same number at another scale, and a near neighbour
            java.math.BigDecimal y = rv.random().nextBoolean() ? x.setScale(x.scale() + rv.random().nextInt(5))
                    : x.add(java.math.BigDecimal.ONE.movePointLeft(rv.random().nextInt(30)));
            check(t, c, dec(x), dec(y));
            check(t, c, dec(y), dec(x));
        }
    }

    @Test
    void reversedColumnFlipsTheOrder() {
        CqlType t = CqlType.of(CqlType.Kind.INT);
        ColumnMetadata asc = new ColumnMetadata("c", t, ColumnMetadata.Role.CLUSTERING, 0, false);
        ColumnMetadata desc = new ColumnMetadata("c", t, ColumnMetadata.Role.CLUSTERING, 0, true);
        byte[] one = {0, 0, 0, 1}, two = {0, 0, 0, 2};
        assertEquals(-1, Integer.signum(asc.compareClustering(one, two)));
        assertEquals(1, Integer.signum(desc.compareClustering(one, two)));
    }

    @Test
    void compareHonoursOffsets() {
        CqlType t = CqlType.of(CqlType.Kind.BIGINT);
        byte[] buf = new byte[20];
        ByteBuffer.wrap(buf).putLong(2, -5).putLong(11, 7);
        assertEquals(-1, Integer.signum(t.compare(buf, 2, 8, buf, 11, 8)));
        assertEquals(1, Integer.signum(t.compare(buf, 11, 8, buf, 2, 8)));
        assertEquals(1, Integer.signum(t.compare(buf, 11, 8, buf, 2, 0)));
    }

    private static byte[] dec(java.math.BigDecimal d) {
        byte[] u = d.unscaledValue().toByteArray();
        return ByteBuffer.allocate(4 + u.length).putInt(d.scale()).put(u).array();
    }

    /**
     * The integer types at the edges of each byte, where a compare that mixes up signed and
     * unsigned bytes goes wrong: every pair of such values, of each width, against Cassandra.
     */
    @Test
    void integersAtByteEdgesCompareAsCassandraCompares() {
        long[] edges = {Long.MIN_VALUE, Integer.MIN_VALUE, Short.MIN_VALUE, -0x81, -0x80, -0x7F, -0x100, -0xFF, -2, -1, 0, 1,
                0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 0x7FFFFF, 0x800000, 0xFFFFFF, 0x1000000,
                Short.MAX_VALUE, Integer.MAX_VALUE, 0x80000000L, 0xFFFFFFFFL, 0x100000000L, Long.MAX_VALUE};
        CqlType.Kind[] kinds = {CqlType.Kind.SMALLINT, CqlType.Kind.INT, CqlType.Kind.BIGINT, CqlType.Kind.TIMESTAMP};
        int[] widths = {Short.BYTES, Integer.BYTES, Long.BYTES, Long.BYTES};
        for (int k = 0; k < kinds.length; k++) {
            CqlType t = CqlType.of(kinds[k]);
            AbstractType<?> c = CassandraOracle.typeOf(t);
            for (long x : edges) {
                for (long y : edges) check(t, c, bigEndian(x, widths[k]), bigEndian(y, widths[k]));
            }
        }
    }

    private static byte[] bigEndian(long v, int width) {
        byte[] out = new byte[width];
        for (int i = width - 1; i >= 0; i--, v >>= 8) out[i] = (byte) v;
        return out;
    }

    private static void check(CqlType t, AbstractType<?> c, byte[] a, byte[] b) {
        int expected = Integer.signum(c.compare(ByteBuffer.wrap(a), ByteBuffer.wrap(b)));
        // also at a non-zero offset, to catch offset bugs
        byte[] pa = new byte[a.length + 3];
        System.arraycopy(a, 0, pa, 3, a.length);
        int actual = Integer.signum(t.compare(pa, 3, a.length, b, 0, b.length));
        if (expected != actual) {
            assertEquals(expected, actual, t + ": compare(" + HexFormat.of().formatHex(a) + ", "
                    + HexFormat.of().formatHex(b) + ")");
        }
    }
}

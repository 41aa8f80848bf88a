package dev.flushline.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.SplittableRandom;

import org.apache.cassandra.utils.vint.VIntCoding;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class VIntTest {
    private static final long[] EDGES = {
        0, 1, 63, 64, 127, 128, 255, 256, 16383, 16384, (1L << 21) - 1, 1L << 21, (1L << 28) - 1, 1L << 28,
        (1L << 35) - 1, 1L << 35, (1L << 42) - 1, 1L << 42, (1L << 49) - 1, 1L << 49, (1L << 56) - 1, 1L << 56,
        (1L << 63) - 1, Long.MIN_VALUE, -1, -2, -64, -65, Integer.MAX_VALUE, Integer.MIN_VALUE,
        (long) Integer.MAX_VALUE + 1, 0xFFFF_FFFFL,
    };

    @BeforeAll
    static void init() {
        CassandraClient.init();
    }

    /** A value drawn so that every encoded size 1..9 is hit often, not just 9. */
    private static long randomValue(SplittableRandom r) {
        int bits = r.nextInt(65);
        long v = bits == 0 ? 0 : r.nextLong() >>> (64 - bits);
        return r.nextInt(8) == 0 ? -v : v;
    }

    private static byte[] ours(long v, boolean signed) {
        byte[] buf = new byte[VInt.MAX_SIZE_BYTES + 3];
        int start = 3; // a non-zero offset checks that offsets are honoured
        int end = signed ? VInt.putSigned(buf, start, v) : VInt.putUnsigned(buf, start, v);
        assertEquals(signed ? VInt.sizeOfSigned(v) : VInt.sizeOfUnsigned(v), end - start, "size vs written for " + v);
        return Arrays.copyOfRange(buf, start, end);
    }

    private static byte[] cassandraUnsigned(long v) {
        ByteBuffer bb = ByteBuffer.allocate(16);
        VIntCoding.writeUnsignedVInt(v, bb);
        return Arrays.copyOf(bb.array(), bb.position());
    }

    private static byte[] cassandraSigned(long v) {
        ByteBuffer bb = ByteBuffer.allocate(16);
        VIntCoding.writeVInt(v, bb);
        return Arrays.copyOf(bb.array(), bb.position());
    }

    private static void checkAgainstCassandra(long v) {
        byte[] unsigned = ours(v, false);
        assertArrayEquals(cassandraUnsigned(v), unsigned, "unsigned " + v);
        assertEquals(VIntCoding.computeUnsignedVIntSize(v), VInt.sizeOfUnsigned(v), "unsigned size " + v);
        assertEquals(v, VInt.getUnsigned(unsigned, 0), "unsigned round trip " + v);
        assertEquals(unsigned.length, VInt.sizeFromFirstByte(unsigned[0]));

        byte[] signed = ours(v, true);
        assertArrayEquals(cassandraSigned(v), signed, "signed " + v);
        assertEquals(VIntCoding.computeVIntSize(v), VInt.sizeOfSigned(v), "signed size " + v);
        assertEquals(v, VInt.getSigned(signed, 0), "signed round trip " + v);
        assertEquals(v, VIntCoding.getVInt(ByteBuffer.wrap(signed), 0), "Cassandra decodes ours " + v);
    }

    @Test
    void edgesMatchCassandra() {
        for (long v : EDGES) {
            checkAgainstCassandra(v);
            checkAgainstCassandra(v + 1);
            checkAgainstCassandra(v - 1);
        }
    }

    @Test
    void randomValuesMatchCassandra() {
        SplittableRandom r = new SplittableRandom(42);
        for (int i = 0; i < 200_000; i++) {
            checkAgainstCassandra(randomValue(r));
        }
    }

    @Test
    void int32VariantsSignExtendLikeCassandra() {
        SplittableRandom r = new SplittableRandom(7);
        int[] edges = {0, 1, -1, 127, 128, Integer.MAX_VALUE, Integer.MIN_VALUE, -128, 1 << 30};
        for (int i = 0; i < 50_000 + edges.length; i++) {
            int v = i < edges.length ? edges[i] : (int) randomValue(r);
            byte[] buf = new byte[VInt.MAX_SIZE_BYTES];
            int end = VInt.putUnsignedInt32(buf, 0, v);
            ByteBuffer expected = ByteBuffer.allocate(16);
            VIntCoding.writeUnsignedVInt32(v, expected);
            assertArrayEquals(Arrays.copyOf(expected.array(), expected.position()), Arrays.copyOf(buf, end), "uvint32 " + v);
            assertEquals(end, VInt.sizeOfUnsignedInt32(v));
            assertEquals(v, VInt.getUnsignedInt32(buf, 0));
            assertEquals(v, VIntCoding.getUnsignedVInt32(ByteBuffer.wrap(buf), 0));

            end = VInt.putSignedInt32(buf, 0, v);
            expected.clear();
            VIntCoding.writeVInt32(v, expected);
            assertArrayEquals(Arrays.copyOf(expected.array(), expected.position()), Arrays.copyOf(buf, end), "vint32 " + v);
            assertEquals(end, VInt.sizeOfSignedInt32(v));
        }
        // The trap itself: a negative int is 9 bytes, ff then the sign-extended long.
        assertEquals(9, VInt.sizeOfUnsignedInt32(-1));
        byte[] buf = new byte[9];
        VInt.putUnsignedInt32(buf, 0, -2);
        assertEquals("fffffffffffffffffe", HexFormat.of().formatHex(buf));
    }

    @Test
    void uvint32OutOfIntRangeIsRejected() {
        byte[] buf = new byte[9];
        VInt.putUnsigned(buf, 0, 1L << 32);
        assertThrows(IllegalStateException.class, () -> VInt.getUnsignedInt32(buf, 0));
    }

    @Test
    void specTable() {
        Object[][] table = {
            {0L, "00"}, {127L, "7f"}, {128L, "8080"}, {255L, "80ff"}, {16383L, "bfff"}, {16384L, "c04000"},
            {(1L << 21) - 1, "dfffff"}, {1L << 21, "e0200000"}, {1L << 28, "f010000000"},
            {1L << 35, "f80800000000"}, {1L << 42, "fc040000000000"}, {1L << 49, "fe02000000000000"},
            {(1L << 56) - 1, "feffffffffffffff"}, {1L << 56, "ff0100000000000000"},
            {Long.MAX_VALUE, "ff7fffffffffffffff"}, {-1L, "ffffffffffffffffff"},
        };
        for (Object[] row : table) {
            assertEquals(row[1], HexFormat.of().formatHex(ours((Long) row[0], false)), "unsigned " + row[0]);
        }
        Object[][] signed = {{0L, "00"}, {-1L, "01"}, {1L, "02"}, {-2L, "03"}, {63L, "7e"}, {-64L, "7f"}, {64L, "8080"}};
        for (Object[] row : signed) {
            assertEquals(row[1], HexFormat.of().formatHex(ours((Long) row[0], true)), "signed " + row[0]);
        }
    }

    @Test
    void sizeFromFirstByteCoversAllPrefixes() {
        int[] firstBytes = {0x00, 0x7f, 0x80, 0xbf, 0xc0, 0xe0, 0xf0, 0xf8, 0xfc, 0xfe, 0xff};
        int[] sizes = {1, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9};
        for (int i = 0; i < firstBytes.length; i++) {
            assertEquals(sizes[i], VInt.sizeFromFirstByte((byte) firstBytes[i]), "first byte " + firstBytes[i]);
        }
    }
}

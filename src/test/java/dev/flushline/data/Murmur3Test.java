package dev.flushline.data;

import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.utils.MurmurHash;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class Murmur3Test {
    @BeforeAll
    static void initCassandra() {
        // Through the oracle, which sets client mode up the way every other test in this JVM needs
        // (calling clientInitialization() directly first would freeze a different setup).
        dev.flushline.oracle.CassandraOracle.init();
    }

    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replace(" ", ""));
    }

    @Test
    void specTokenVectors() {
        assertEquals(-4069959284402364209L, Murmur3.token(hex("00000001"), 0, 4));
        assertEquals(-3248873570005575792L, Murmur3.token(hex("00000002"), 0, 4));
        assertEquals(9010454139840013625L, Murmur3.token(hex("00000003"), 0, 4));
        assertEquals(-8074529310846540294L, Murmur3.token("k1".getBytes(StandardCharsets.UTF_8), 0, 2));
        assertEquals(-6979169580508520651L, Murmur3.token(hex("ff8001"), 0, 3));
        byte[] k17 = hex("90 01 02 03 04 05 06 07 08 a0 b0 c0 d0 e0 f0 fe 81");
        assertEquals(-2029947042477867687L, Murmur3.token(k17, 0, 17));
    }

    @Test
    void specHash2_64Vectors() {
        assertEquals(-7574626209810019595L, Murmur3.hash2_64(hex("ff8001"), 0, 3, 0));
        assertEquals(838080175696613776L, Murmur3.hash2_64("k1".getBytes(StandardCharsets.UTF_8), 0, 2, 0));
        byte[] k17 = hex("90 01 02 03 04 05 06 07 08 a0 b0 c0 d0 e0 f0 fe 81");
        assertEquals(-1135353322952406630L, Murmur3.hash2_64(k17, 0, 17, 0));
    }

    @Test
    void emptyKeyIsMinimumToken() {
        assertEquals(Long.MIN_VALUE, Murmur3.token(new byte[0], 0, 0));
        assertEquals(Murmur3Partitioner.instance.getToken(ByteBuffer.allocate(0)).token,
                Murmur3.token(new byte[3], 2, 0));
    }

    // Every tail length 0..40 (incl. bytes >= 0x80, which sign-extend), at a non-zero array offset,
    // against Cassandra's own ByteBuffer code; several seeds and hash2_64 seeds.
    @Test
    void matchesCassandraForEveryLengthAndOffset() {
        long[] ours = new long[2];
        long[] theirs = new long[2];
        for (int seed = 0; seed < 40; seed++) {
            Random random = new Random(seed);
            for (int length = 0; length <= 40; length++) {
                int offset = random.nextInt(5);
                byte[] buffer = new byte[offset + length + 3];
                random.nextBytes(buffer);
                if (seed == 0) {
                    java.util.Arrays.fill(buffer, (byte) 0xff);
                }
                ByteBuffer bb = ByteBuffer.wrap(buffer, offset, length).slice();
                String what = "seed " + seed + " length " + length;

                long expectedToken = Murmur3Partitioner.instance.getToken(bb).token;
                assertEquals(expectedToken, Murmur3.token(buffer, offset, length), what);

                Murmur3.hash128(buffer, offset, length, ours);
                MurmurHash.hash3_x64_128(bb, 0, length, 0, theirs);
                assertArrayEquals(theirs, ours, what);
                assertEquals(expectedToken, Murmur3.tokenOfHash(ours[0], length), what);

                long hashSeed = seed == 1 ? 0x1_0000_0007L : random.nextLong();
                assertEquals(MurmurHash.hash2_64(bb, 0, length, 0), Murmur3.hash2_64(buffer, offset, length, 0), what);
                assertEquals(MurmurHash.hash2_64(bb, 0, length, hashSeed),
                        Murmur3.hash2_64(buffer, offset, length, hashSeed), what);
            }
        }
    }
}

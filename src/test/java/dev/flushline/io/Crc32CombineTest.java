package dev.flushline.io;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The digest built from parts must equal java.util.zip.CRC32 over the whole, for any cut. */
class Crc32CombineTest {

    private static int crc(byte[] b, int off, int len) {
        CRC32 c = new CRC32();
        c.update(b, off, len);
        return (int) c.getValue();
    }

    @Test
    void partsCombineToTheCrcOfTheWhole() {
        SplittableRandom random = new SplittableRandom(20261205);
        byte[] data = new byte[300_000];
        for (int i = 0; i < data.length; i++) data[i] = (byte) random.nextInt();
        for (int round = 0; round < 200; round++) {
            int length = random.nextInt(data.length + 1);
            int digest = 0;
            int at = 0;
            while (at < length) {
                int piece = Math.min(length - at, random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(70_000));
                digest = Crc32Combine.combine(digest, crc(data, at, piece), piece);
                at += piece;
            }
            assertEquals(crc(data, 0, length), digest, "length " + length + ", round " + round);
        }
    }

    @Test
    void aZeroLengthPartChangesNothing() {
        assertEquals(0x12345678, Crc32Combine.combine(0x12345678, 0, 0));
        assertEquals(0x9abcdef0, Crc32Combine.combine(0, 0x9abcdef0, 77));
    }

    @Test
    void shiftsPastTwoToTheThirtyTwoBitsAreRight() {
        // A shift of 2^29 bytes or more (2^32 bits) uses the table past its 32 entries: check it
        // against one built by repeated squaring of a smaller shift: 2^k bytes twice is 2^(k+1).
        for (int k = 20; k < 40; k++) {
            int half = Crc32Combine.shiftFor(1L << k);
            assertEquals(Crc32Combine.multModP(half, half), Crc32Combine.shiftFor(1L << (k + 1)), "2^" + (k + 1) + " bytes");
        }
        // And a shift by n then m bytes is a shift by n + m.
        long n = 3_000_000_017L, m = 5_123_456_789L;
        assertEquals(Crc32Combine.multModP(Crc32Combine.shiftFor(n), Crc32Combine.shiftFor(m)), Crc32Combine.shiftFor(n + m));
    }
}

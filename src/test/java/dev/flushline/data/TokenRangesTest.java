package dev.flushline.data;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TokenRangesTest {
    static void assertCoversTheRing(TokenRanges r) {
        assertEquals(Long.MIN_VALUE, r.lo(0));
        assertEquals(Long.MAX_VALUE, r.hi(r.size() - 1));
        for (int i = 0; i < r.size(); i++) {
            assertTrue(r.lo(i) <= r.hi(i), "range " + i + " is empty");
            if (i > 0) assertEquals(r.hi(i - 1) + 1, r.lo(i), "gap or overlap before range " + i);
        }
    }

    @Test
    void evenRangesAreTheFlushRanges() {
        for (int n : new int[] {1, 2, 3, 7, 16, 256, 1000}) {
            TokenRanges ours = TokenRanges.even(n);
            TokenRanges flush = TokenRanges.even(n);
            assertEquals(flush.size(), ours.size());
            for (int i = 0; i < n; i++) {
                assertEquals(flush.lo(i), ours.lo(i), n + " ranges, range " + i);
                assertEquals(flush.hi(i), ours.hi(i), n + " ranges, range " + i);
            }
            assertCoversTheRing(ours);
        }
    }

    @Test
    void vnodeRangesAreDeterministicPerSeedAndCoverTheRing() {
        for (long seed : new long[] {0, 1, 42, -7}) {
            for (int n : new int[] {1, 4, 16, 256}) {
                TokenRanges a = TokenRanges.vnodes(n, seed);
                assertEquals(a, TokenRanges.vnodes(n, seed));
                assertEquals(n + 1, a.size(), "the wrapping range is two pieces");
                assertCoversTheRing(a);
                long[] tokens = TokenRanges.vnodeTokens(n, seed);
                // Each token ends a range: it owns (previous token, token].
                for (int i = 0; i < n; i++) {
                    assertEquals(tokens[i], a.hi(i), "seed " + seed + " token " + i);
                    assertEquals(i, a.indexOf(tokens[i]));
                    assertEquals(i + 1, a.indexOf(tokens[i] + 1));
                }
            }
        }
        assertNotEquals(TokenRanges.vnodes(16, 1), TokenRanges.vnodes(16, 2));
        assertArrayEquals(TokenRanges.vnodeTokens(8, 99), TokenRanges.vnodeTokens(8, 99));
    }

    @Test
    void findsTheRangeOfATokenAndOfASpan() {
        TokenRanges r = TokenRanges.fromSplits(new long[] {-100, 0, 100});
        assertEquals(0, r.indexOf(Long.MIN_VALUE));
        assertEquals(0, r.indexOf(-101));
        assertEquals(1, r.indexOf(-100));
        assertEquals(2, r.indexOf(0));
        assertEquals(3, r.indexOf(Long.MAX_VALUE));
        assertEquals(1, r.rangeOf(-100, -1));
        assertEquals(TokenRanges.SPANNING, r.rangeOf(-100, 0));
        assertEquals(3, r.rangesTouched(-150, 50));
        assertArrayEquals(new long[] {-100, 0}, r.boundariesWithin(-150, 50));
        assertArrayEquals(new long[] {0}, r.boundariesWithin(-1, 0));
        assertArrayEquals(new long[0], r.boundariesWithin(0, 99));
        assertArrayEquals(new long[] {-100, 0, 100}, r.boundariesWithin(Long.MIN_VALUE, Long.MAX_VALUE));
        assertThrows(IllegalArgumentException.class, () -> TokenRanges.fromSplits(new long[] {5, 5}));
        assertThrows(IllegalArgumentException.class, () -> TokenRanges.fromSplits(new long[] {Long.MIN_VALUE}));
        assertThrows(IllegalArgumentException.class, () -> TokenRanges.even(0));
    }

    @Test
    void indexOfAgreesWithALinearScan() {
        long seed = 77;
        Random random = new Random(seed);
        TokenRanges r = TokenRanges.vnodes(64, seed);
        for (int i = 0; i < 10_000; i++) {
            long t = random.nextLong();
            int linear = 0;
            while (linear < r.size() - 1 && t > r.hi(linear)) linear++;
            assertEquals(linear, r.indexOf(t), "token " + t);
            assertTrue(r.lo(linear) <= t && t <= r.hi(linear));
        }
        assertFalse(r.rangeOf(r.lo(5), r.hi(5)) == TokenRanges.SPANNING);
        assertEquals(TokenRanges.SPANNING, r.rangeOf(r.lo(5), r.hi(5) + 1));
    }
}

package dev.flushline.data;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The composite key codec: decompose undoes compose, and stops where a key is cut short or is a bound. */
class PartitionKeyCompositeTest {
    @Test
    void decomposeUndoesCompose() {
        Random r = new Random(7);
        for (int round = 0; round < 500; round++) {
            int n = 2 + r.nextInt(4);
            byte[][] parts = new byte[n][];
            for (int i = 0; i < n; i++) {
                parts[i] = new byte[r.nextInt(5) == 0 ? 0 : r.nextInt(40)];
                r.nextBytes(parts[i]);
            }
            byte[] key = PartitionKey.compose(parts);
            int[] out = new int[2 * n];
            assertEquals(n, PartitionKey.decompose(key, n, out));
            for (int i = 0; i < n; i++) {
                assertArrayEquals(parts[i], Arrays.copyOfRange(key, out[2 * i], out[2 * i] + out[2 * i + 1]), "component " + i);
                assertEquals(0, key[out[2 * i] + out[2 * i + 1]], "end-of-component");
            }
            // cut short inside the last component: only the whole ones before it are read
            if (parts[n - 1].length > 0) {
                byte[] cut = Arrays.copyOf(key, out[2 * (n - 1)] + parts[n - 1].length - 1);
                assertEquals(n - 1, PartitionKey.decompose(cut, n, new int[2 * n]));
            }
        }
    }

    @Test
    void aNonZeroEndOfComponentEndsTheKey() {
        byte[] key = PartitionKey.compose(new byte[][] {{1}, {2}, {3}});
        key[3] = 1; // the first component's end-of-component: a bound after it
        int[] out = new int[6];
        assertEquals(1, PartitionKey.decompose(key, 3, out));
        assertEquals(2, out[0]);
        assertEquals(1, out[1]);
    }

    @Test
    void aComponentOverSixtyFourKibibytesIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> PartitionKey.compose(new byte[][] {new byte[1], new byte[0x10000]}));
    }
}

package dev.flushline.sstable;

import com.clearspring.analytics.stream.cardinality.HyperLogLogPlus;
import org.apache.cassandra.utils.MurmurHash;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class CardinalityEstimatorTest {
    private static final int[] KEY_COUNTS = {0, 1, 3, 1000, 1536, 1537, 1538, 3074, 6143, 6144, 6145, 7683, 20000};

    static byte[] serialize(CardinalityEstimator estimator) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int expectedSize = estimator.serializedSize();
        estimator.serialize(new DataOutputStream(bytes));
        assertEquals(expectedSize, bytes.size(), "serializedSize vs bytes written");
        return bytes.toByteArray();
    }

    @Test
    void specVectors() throws IOException {
        CardinalityEstimator ints = new CardinalityEstimator();
        for (int i = 1; i <= 3; i++) {
            byte[] key = ByteBuffer.allocate(4).putInt(i).array();
            ints.offerKey(key, 0, 4);
        }
        assertEquals("fffffffe0d190103a28dfb09becebb08f0aa8401", HexFormat.of().formatHex(serialize(ints)));

        CardinalityEstimator strings = new CardinalityEstimator();
        strings.offerKey("k1".getBytes(StandardCharsets.UTF_8), 0, 2);
        strings.offerKey("k2".getBytes(StandardCharsets.UTF_8), 0, 2);
        assertEquals("fffffffe0d190102d48bba01e4c08b10", HexFormat.of().formatHex(serialize(strings)));
    }

    // Random keys hashed both ways: covers the sparse format, the 1537-entry merges, the switch
    // to registers and the final merge, with several seeds per count.
    @Test
    void randomKeysMatchStreamLib() throws IOException {
        for (int keyCount : KEY_COUNTS) {
            for (int seed = 0; seed < 3; seed++) {
                Random random = new Random(seed * 31L + keyCount);
                CardinalityEstimator ours = new CardinalityEstimator();
                HyperLogLogPlus theirs = new HyperLogLogPlus(13, 25);
                byte[] key = new byte[24];
                for (int i = 0; i < keyCount; i++) {
                    int length = 1 + random.nextInt(key.length);
                    random.nextBytes(key);
                    ours.offerKey(key, 0, length);
                    theirs.offerHashed(MurmurHash.hash2_64(ByteBuffer.wrap(key, 0, length), 0, length, 0));
                }
                assertArrayEquals(theirs.getBytes(), serialize(ours), "keys " + keyCount + " seed " + seed);
            }
        }
    }

    // Hashes drawn from a few sparse indexes, a third of them with the 12 low index bits zero
    // (run-length entries), half with the top bit set (negative encoded ints): exercises equal
    // indexes in one batch and across batches, and stream-lib's signed raw-value merge order.
    @Test
    void collidingAndFlaggedHashesMatchStreamLib() throws IOException {
        int[] counts = {5, 1537, 1600, 5000, 9300, 15000};
        for (int count : counts) {
            for (int seed = 0; seed < 4; seed++) {
                Random random = new Random(1000L * seed + count);
                long[] indexes = new long[200 + random.nextInt(3000)];
                for (int i = 0; i < indexes.length; i++) {
                    long index = random.nextInt(1 << 25);
                    if (random.nextInt(3) == 0) {
                        index &= ~0xfffL;
                    }
                    indexes[i] = index;
                }
                CardinalityEstimator ours = new CardinalityEstimator();
                HyperLogLogPlus theirs = new HyperLogLogPlus(13, 25);
                for (int i = 0; i < count; i++) {
                    long index = indexes[random.nextInt(indexes.length)];
                    // rest: random, or mostly zero for long runs (up to 52, more than 5 bits)
                    long rest = random.nextBoolean() ? random.nextLong() >>> 25
                            : (random.nextLong() >>> 25) >>> random.nextInt(40);
                    long hash = (index << 39) | rest;
                    ours.offerHashed(hash);
                    theirs.offerHashed(hash);
                }
                assertArrayEquals(theirs.getBytes(), serialize(ours), "count " + count + " seed " + seed);
            }
        }
    }

    @Test
    void serializingTwiceGivesSameBytesAndCompactionFraming() throws IOException {
        CardinalityEstimator ours = new CardinalityEstimator();
        Random random = new Random(7);
        for (int i = 0; i < 2000; i++) {
            ours.offerHashed(random.nextLong());
        }
        byte[] first = serialize(ours);
        byte[] second = serialize(ours);
        assertArrayEquals(first, second);

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int size = ours.compactionComponentSize();
        ours.serializeCompactionComponent(new DataOutputStream(bytes));
        byte[] component = bytes.toByteArray();
        assertEquals(size, component.length);
        assertEquals(first.length, ByteBuffer.wrap(component).getInt());
        assertArrayEquals(first, Arrays.copyOfRange(component, 4, component.length));
    }
}

package dev.flushline.sstable;

import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.io.util.DataOutputBuffer;
import org.apache.cassandra.utils.FilterFactory;
import org.apache.cassandra.utils.IFilter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BloomFilterBuilderTest {
    @BeforeAll
    static void initCassandra() {
        DatabaseDescriptor.clientInitialization();
    }

    static byte[] serialize(BloomFilterBuilder filter) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        filter.serialize(new DataOutputStream(bytes));
        assertEquals(filter.serializedSize(), bytes.size(), "serializedSize vs bytes written");
        return bytes.toByteArray();
    }

    /** Cassandra's own filter for the same parameters and keys, in the oa ("new") format. */
    static byte[] cassandraBytes(long expectedKeys, double fpChance, byte[][] keys) throws IOException {
        IFilter filter = FilterFactory.getFilter(expectedKeys, fpChance);
        try (DataOutputBuffer out = new DataOutputBuffer()) {
            for (byte[] key : keys) {
                filter.add(Murmur3Partitioner.instance.decorateKey(ByteBuffer.wrap(key)));
            }
            filter.serialize(out, false);
            assertEquals(filter.serializedSize(false), out.getLength());
            return out.toByteArray();
        } finally {
            filter.close();
        }
    }

    private static byte[] intKey(int value) {
        return ByteBuffer.allocate(4).putInt(value).array();
    }

    @Test
    void specVectors() throws IOException {
        BloomFilterBuilder three = new BloomFilterBuilder(0, 0.01);
        for (int i = 1; i <= 3; i++) {
            three.add(intKey(i), 0, 4);
        }
        assertEquals("0000000500000001" + "122002c840322200", HexFormat.of().formatHex(serialize(three)));

        BloomFilterBuilder one = new BloomFilterBuilder(10, 0.01);
        one.add(intKey(1), 0, 4);
        assertEquals("0000000500000002" + "1000000000202000" + "0000004040000000",
                HexFormat.of().formatHex(serialize(one)));
    }

    // fp chances across the table, incl. >= 0.393 (Cassandra's swapped 2 hashes / 1 bucket) and a
    // value needing the K relaxation; key counts 0, 1, 10, 10000; keys 0..40 bytes incl. empty.
    @Test
    void randomKeysMatchCassandra() throws IOException {
        double[] fpChances = {0.01, 0.1, 0.0001, 0.05, 0.2, 0.393, 0.5, 0.99, 6.71e-05};
        long[] expectedKeyCounts = {0, 1, 10, 10_000};
        for (double fp : fpChances) {
            for (long expected : expectedKeyCounts) {
                Random random = new Random(Double.hashCode(fp) * 31L + expected);
                int keyCount = expected == 0 ? 1 + random.nextInt(300) : (int) expected;
                byte[][] keys = new byte[keyCount][];
                BloomFilterBuilder ours = new BloomFilterBuilder(expected, fp);
                for (int i = 0; i < keyCount; i++) {
                    keys[i] = new byte[random.nextInt(41)];
                    random.nextBytes(keys[i]);
                    ours.add(keys[i], 0, keys[i].length);
                }
                assertArrayEquals(cassandraBytes(expected, fp, keys), serialize(ours), "fp " + fp + " n " + expected);
                for (byte[] key : keys) {
                    assertTrue(ours.mightContain(key, 0, key.length));
                }
            }
        }
    }

    @Test
    void hashCountsAndSizes() {
        assertEquals(5, new BloomFilterBuilder(100, 0.01).hashCount());
        assertEquals(3, new BloomFilterBuilder(100, 0.1).hashCount());
        assertEquals(2, new BloomFilterBuilder(100, 0.5).hashCount());
        // 0.01: 10 buckets per key + 20 bits -> 1020 bits -> 16 words
        assertEquals(16, new BloomFilterBuilder(100, 0.01).wordCount());
        // >= 0.393: 1 bucket per key: 120 bits -> 2 words
        assertEquals(2, new BloomFilterBuilder(100, 0.4).wordCount());
        assertFalse(BloomFilterBuilder.isFilterWritten(1.0));
        assertThrows(IllegalArgumentException.class, () -> new BloomFilterBuilder(10, 1.0));
        assertThrows(IllegalArgumentException.class, () -> new BloomFilterBuilder(10, 1e-6));
    }

    @Test
    void keyAtArrayOffset() throws IOException {
        byte[] buffer = {9, 9, 0, 0, 0, 1, 9};
        BloomFilterBuilder atOffset = new BloomFilterBuilder(10, 0.01);
        atOffset.add(buffer, 2, 4);
        assertArrayEquals(cassandraBytes(10, 0.01, new byte[][] {intKey(1)}), serialize(atOffset));
    }
}

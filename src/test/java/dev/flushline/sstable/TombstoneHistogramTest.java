package dev.flushline.sstable;

import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.io.util.DataOutputBuffer;
import org.apache.cassandra.utils.streamhist.StreamingTombstoneHistogramBuilder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.HexFormat;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class TombstoneHistogramTest {
    private static final long BASE_SECONDS = 1_750_000_000L;

    @BeforeAll
    static void initCassandra() {
        DatabaseDescriptor.clientInitialization();
    }

    static byte[] serialize(TombstoneHistogram histogram) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int size = histogram.serializedSize();
        histogram.serialize(new DataOutputStream(bytes));
        assertEquals(size, bytes.size(), "serializedSize vs bytes written");
        return bytes.toByteArray();
    }

    /** The builder exactly as MetadataCollector creates it, serialized with the oa serializer. */
    static StreamingTombstoneHistogramBuilder cassandraBuilder() {
        return new StreamingTombstoneHistogramBuilder(100, 100_000, 60);
    }

    static byte[] cassandraBytes(StreamingTombstoneHistogramBuilder builder) throws IOException {
        org.apache.cassandra.utils.streamhist.TombstoneHistogram histogram = builder.build();
        try (DataOutputBuffer out = new DataOutputBuffer()) {
            org.apache.cassandra.utils.streamhist.TombstoneHistogram.HistogramSerializer.instance.serialize(histogram, out);
            return out.toByteArray();
        }
    }

    private static void compare(Random random, int distinctMinutes, int updates, long spreadSeconds, String what)
            throws IOException {
        // Exactly distinctMinutes distinct rounded points, each seen first in a random order.
        long minuteAligned = BASE_SECONDS - BASE_SECONDS % 60;
        long spacingSeconds = Math.max(60, spreadSeconds / distinctMinutes / 60 * 60);
        long[] pool = new long[distinctMinutes];
        for (int i = 0; i < distinctMinutes; i++) {
            pool[i] = minuteAligned + spacingSeconds * i - random.nextInt(60);
        }
        for (int i = distinctMinutes - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            long swap = pool[i];
            pool[i] = pool[j];
            pool[j] = swap;
        }
        TombstoneHistogram ours = new TombstoneHistogram();
        StreamingTombstoneHistogramBuilder theirs = cassandraBuilder();
        for (int i = 0; i < Math.max(updates, distinctMinutes); i++) {
            long point = i < distinctMinutes ? pool[i] : pool[random.nextInt(distinctMinutes)];
            if (random.nextInt(20) == 0) {
                int count = 1 + random.nextInt(50);
                ours.update(point, count);
                theirs.update(point, count);
            } else {
                ours.update(point);
                theirs.update(point);
            }
        }
        byte[] expected = cassandraBytes(theirs);
        byte[] actual = serialize(ours);
        assertArrayEquals(expected, actual, what);
        int bins = ours.binCount();
        assertEquals(theirs.build().size(), bins, what);
        assertEquals(4 * bins, ours.statsPaddingBytes());
    }

    @Test
    void specSingleMinuteVector() throws IOException {
        TombstoneHistogram ours = new TombstoneHistogram();
        for (int i = 0; i < 20; i++) {
            ours.update(1_750_000_001L);
        }
        assertEquals("0000000100000001" + String.format("%016x", 1_750_000_020L) + "00000014",
                HexFormat.of().formatHex(serialize(ours)));
    }

    @Test
    void emptyHistogram() throws IOException {
        TombstoneHistogram ours = new TombstoneHistogram();
        assertArrayEquals(cassandraBytes(cassandraBuilder()), serialize(ours));
        assertEquals(0, ours.binCount());
        assertEquals(0, ours.statsPaddingBytes());
    }

    @Test
    void capAtMaxDeletionTime() throws IOException {
        long[] points = {dev.flushline.data.Cell.MAX_DELETION_TIME, dev.flushline.data.Cell.MAX_DELETION_TIME - 1,
            dev.flushline.data.Cell.MAX_DELETION_TIME - 50, 4294967280L, 0, 59, 60, 61};
        TombstoneHistogram ours = new TombstoneHistogram();
        StreamingTombstoneHistogramBuilder theirs = cassandraBuilder();
        for (long point : points) {
            ours.update(point);
            theirs.update(point);
        }
        byte[] actual = serialize(ours);
        assertArrayEquals(cassandraBytes(theirs), actual);
        assertEquals(dev.flushline.data.Cell.MAX_DELETION_TIME, ours.binPoint(ours.binCount() - 1));
    }

    @Test
    void fewDistinctMinutes() throws IOException {
        for (int seed = 0; seed < 20; seed++) {
            Random random = new Random(seed);
            compare(random, 1 + random.nextInt(10), 1 + random.nextInt(2000), 3600, "seed " + seed);
        }
    }

    @Test
    void exactlyOneHundredAndJustOver() throws IOException {
        for (int seed = 0; seed < 20; seed++) {
            compare(new Random(seed), 100, 500 + seed, 100 * 60, "100 distinct, seed " + seed);
            compare(new Random(seed), 101, 500 + seed, 101 * 60 * 7, "101 distinct, seed " + seed);
            compare(new Random(seed), 102, 3000, 86400, "102 distinct, seed " + seed);
        }
    }

    // Thousands of distinct minutes: many merges, with the spool's slot order deciding which.
    @Test
    void thousandsOfDistinctMinutes() throws IOException {
        for (int seed = 0; seed < 8; seed++) {
            Random random = new Random(seed);
            int distinct = 1000 + random.nextInt(5000);
            compare(random, distinct, distinct * 3, 86400L * 30, "seed " + seed + " distinct " + distinct);
        }
    }

    // Raw random seconds over a year: > 100 000 distinct minutes overflows the spool (flushes
    // mid-stream), and uneven gaps make the closest-pair choice matter.
    @Test
    void spoolOverflowAndRandomSeconds() throws IOException {
        for (int seed = 0; seed < 3; seed++) {
            Random random = new Random(seed);
            TombstoneHistogram ours = new TombstoneHistogram();
            StreamingTombstoneHistogramBuilder theirs = cassandraBuilder();
            int updates = seed == 0 ? 300_000 : 20_000;
            for (int i = 0; i < updates; i++) {
                long point = BASE_SECONDS + (long) (random.nextDouble() * random.nextDouble() * 86400L * 365 * 2);
                ours.update(point);
                theirs.update(point);
            }
            assertArrayEquals(cassandraBytes(theirs), serialize(ours), "seed " + seed);
        }
    }
}

package dev.flushline.sstable;

import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.io.util.DataOutputBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class EstimatedHistogramTest {
    @BeforeAll
    static void initCassandra() {
        DatabaseDescriptor.clientInitialization();
    }

    static byte[] serialize(EstimatedHistogram histogram) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        histogram.serialize(new DataOutputStream(bytes));
        assertEquals(histogram.serializedSize(), bytes.size(), "serializedSize vs bytes written");
        return bytes.toByteArray();
    }

    static byte[] cassandraBytes(org.apache.cassandra.utils.EstimatedHistogram histogram) throws IOException {
        try (DataOutputBuffer out = new DataOutputBuffer()) {
            org.apache.cassandra.utils.EstimatedHistogram.serializer.serialize(histogram, out);
            assertEquals(org.apache.cassandra.utils.EstimatedHistogram.serializer.serializedSize(histogram), out.getLength());
            return out.toByteArray();
        }
    }

    @Test
    void bucketLayoutsMatchCassandra() {
        EstimatedHistogram partitionSize = EstimatedHistogram.forPartitionSize();
        EstimatedHistogram cells = EstimatedHistogram.forCellsPerPartition();
        assertEquals(156, partitionSize.bucketCount());
        assertEquals(119, cells.bucketCount());
        long[] theirs = new org.apache.cassandra.utils.EstimatedHistogram(155).getBucketOffsets();
        for (int i = 0; i < theirs.length; i++) {
            assertEquals(theirs[i], partitionSize.bucketOffset(i), "offset " + i);
        }
        assertEquals(1, partitionSize.bucketOffset(0));
        assertEquals(2, partitionSize.bucketOffset(1));
    }

    // Values cover <= 0, exact offsets, between offsets, and past the last offset (overflow).
    @Test
    void randomValuesMatchCassandraBytes() throws IOException {
        int[] offsetCounts = {EstimatedHistogram.PARTITION_SIZE_OFFSETS, EstimatedHistogram.CELLS_PER_PARTITION_OFFSETS};
        for (int offsetCount : offsetCounts) {
            for (int seed = 0; seed < 20; seed++) {
                Random random = new Random(seed);
                EstimatedHistogram ours = new EstimatedHistogram(offsetCount);
                org.apache.cassandra.utils.EstimatedHistogram theirs =
                        new org.apache.cassandra.utils.EstimatedHistogram(offsetCount);
                long last = theirs.getBucketOffsets()[offsetCount - 1];
                int values = random.nextInt(2000);
                for (int i = 0; i < values; i++) {
                    long value;
                    switch (random.nextInt(5)) {
                        case 0: value = random.nextInt(3) - 1; break;
                        case 1: value = theirs.getBucketOffsets()[random.nextInt(offsetCount)]; break;
                        case 2: value = last + 1 + random.nextInt(1000); break;
                        case 3: value = random.nextLong(); break;
                        default: value = (long) Math.exp(random.nextDouble() * Math.log(last)); break;
                    }
                    if (random.nextInt(10) == 0) {
                        long count = random.nextInt(1000);
                        ours.add(value, count);
                        theirs.add(value, count);
                    } else {
                        ours.add(value);
                        theirs.add(value);
                    }
                }
                assertArrayEquals(cassandraBytes(theirs), serialize(ours), "offsets " + offsetCount + " seed " + seed);
                assertEquals(theirs.overflowCount(), ours.overflowCount());
            }
        }
    }
}

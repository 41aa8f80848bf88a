package dev.flushline.sstable.big;

import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.db.DecoratedKey;
import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.io.sstable.format.big.IndexSummaryComponent;
import org.apache.cassandra.io.sstable.indexsummary.IndexSummary;
import org.apache.cassandra.io.sstable.indexsummary.IndexSummaryBuilder;
import org.apache.cassandra.io.util.File;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class SummaryBuilderTest {
    @TempDir
    Path tempDir;

    @BeforeAll
    static void initCassandra() {
        DatabaseDescriptor.clientInitialization();
    }

    static byte[] serialize(SummaryBuilder summary, byte[] first, byte[] last) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        summary.serialize(new DataOutputStream(bytes), first, last);
        assertEquals(summary.serializedSize(first, last), bytes.size(), "serializedSize vs bytes written");
        return bytes.toByteArray();
    }

    /** Cassandra's builder fed the same keys and positions, saved as BigTableWriter saves it. */
    byte[] cassandraBytes(byte[][] keys, long[] positions, String name) throws IOException {
        DecoratedKey[] decorated = new DecoratedKey[keys.length];
        for (int i = 0; i < keys.length; i++) {
            decorated[i] = Murmur3Partitioner.instance.decorateKey(ByteBuffer.wrap(keys[i]));
        }
        Path path = tempDir.resolve(name + "-Summary.db");
        try (IndexSummaryBuilder builder = new IndexSummaryBuilder(keys.length, 128, 128)) {
            for (int i = 0; i < keys.length; i++) {
                builder.maybeAddEntry(decorated[i], positions[i]);
            }
            builder.prepareToCommit();
            try (IndexSummary summary = builder.build(Murmur3Partitioner.instance)) {
                new IndexSummaryComponent(summary, decorated[0], decorated[keys.length - 1])
                        .save(new File(path), false);
            }
        }
        return Files.readAllBytes(path);
    }

    @Test
    void specOnePartitionVector() throws IOException {
        SummaryBuilder summary = new SummaryBuilder();
        byte[] k1 = "k1".getBytes(StandardCharsets.UTF_8);
        summary.maybeAdd(k1, 0);
        byte[] k2 = "k2".getBytes(StandardCharsets.UTF_8);
        assertEquals("00000080" + "00000001" + "000000000000000e" + "00000080" + "00000001" + "04000000"
                        + "6b31" + "0000000000000000" + "000000026b31" + "000000026b32",
                HexFormat.of().formatHex(serialize(summary, k1, k2)));
    }

    // Partition counts on both sides of the sampling interval, variable key lengths (incl. empty),
    // index positions past 4 GiB (the little-endian i64) at random array offsets.
    @Test
    void matchesCassandraForPartitionCounts() throws IOException {
        int[] partitionCounts = {1, 2, 127, 128, 129, 255, 256, 257, 1000};
        for (int partitions : partitionCounts) {
            for (int seed = 0; seed < 3; seed++) {
                Random random = new Random(seed * 7919L + partitions);
                byte[][] keys = new byte[partitions][];
                long[] positions = new long[partitions];
                long position = seed == 2 ? 5_000_000_000L : 0;
                SummaryBuilder ours = new SummaryBuilder();
                for (int i = 0; i < partitions; i++) {
                    keys[i] = new byte[random.nextInt(30)];
                    random.nextBytes(keys[i]);
                    positions[i] = position;
                    position += 2 + keys[i].length + 1 + random.nextInt(40);
                    int offset = random.nextInt(3);
                    byte[] buffer = new byte[offset + keys[i].length];
                    System.arraycopy(keys[i], 0, buffer, offset, keys[i].length);
                    ours.maybeAdd(buffer, offset, keys[i].length, positions[i]);
                }
                assertEquals((partitions + 127) / 128, ours.entryCount());
                byte[] expected = cassandraBytes(keys, positions, partitions + "-" + seed);
                assertArrayEquals(expected, serialize(ours, keys[0], keys[partitions - 1]),
                        "partitions " + partitions + " seed " + seed);
            }
        }
    }

    @Test
    void emptySummaryIsRejected() {
        SummaryBuilder summary = new SummaryBuilder();
        assertThrows(IllegalStateException.class, () -> serialize(summary, new byte[0], new byte[0]));
    }
}

package dev.flushline.sstable.bti;

import dev.flushline.data.ClusteringBound;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.Murmur3;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.Descriptor;
import dev.flushline.sstable.RowIndexBlocks;
import dev.flushline.sstable.SSTableVersion;
import org.apache.cassandra.db.BufferDecoratedKey;
import org.apache.cassandra.db.DecoratedKey;
import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.io.util.File;
import org.apache.cassandra.io.util.FileHandle;
import org.apache.cassandra.io.util.SequentialWriter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Partitions.db from {@link BtiIndexWriter} against Cassandra 5.0.9's {@code PartitionIndexBuilder}
 * for keys whose tokens are chosen rather than hashed: runs of keys sharing one token (a Murmur3
 * collision, which random keys never produce, so the flush comparisons never reach the path that
 * compares whole keys), and neighbouring tokens that share 0 to 7 leading bytes (the distinguishing
 * point taken from the tokens alone). The writer is handed each token as the key's h1, as the
 * sstable writer hands it the hash it computed for the bloom filter; the hash byte still comes
 * from the key's own h2, as Cassandra's does.
 */
class BtiIndexWriterTest {
    private static final String CQL = "CREATE TABLE ks.t (pk blob, ck int, v int, PRIMARY KEY (pk, ck))";

    @TempDir
    Path dir;

    @BeforeAll
    static void cassandra() {
        CassandraOracle.init();
    }

    /** One partition: its chosen token, key bytes and Data.db position. */
    record Key(long token, byte[] bytes, long dataPosition) {}

    @Test
    void keysOfOneTokenAndTokensSharingLeadingBytesIndexAsCassandras() throws Exception {
        for (long seed : new long[] {1, 2, 3, 4, 5}) {
            Random random = new Random(seed);
            List<Key> keys = keys(random, 3000);
            int sameToken = 0;
            for (int i = 1; i < keys.size(); i++) if (keys.get(i).token() == keys.get(i - 1).token()) sameToken++;
            assertTrue(sameToken > 500, "seed " + seed + ": " + sameToken + " neighbours of one token");
            byte[] ours = writeOurs(keys, "ours-" + seed);
            byte[] theirs = writeCassandras(keys, dir.resolve("theirs-" + seed + "-Partitions.db"));
            assertSameBytes(theirs, ours, "seed " + seed + ", " + keys.size() + " keys");
        }
    }

    @Test
    void oneKeyAndTwoKeysOfOneToken() throws Exception {
        List<Key> one = List.of(new Key(5, new byte[] {1, 0, 2}, 0));
        assertSameBytes(writeCassandras(one, dir.resolve("one-Partitions.db")), writeOurs(one, "one"), "one key");
        List<Key> two = List.of(new Key(-7, new byte[] {0, 0}, 0), new Key(-7, new byte[] {0, 0, 0}, 40));
        assertSameBytes(writeCassandras(two, dir.resolve("two-Partitions.db")), writeOurs(two, "two"), "a key and its extension, one token");
    }

    /**
     * {@code n} distinct keys in partition order (token, then key bytes unsigned): tokens come in
     * groups that share a random number of leading bytes, a third of them held by 2 to 5 keys; key
     * bytes are short and full of zeros, so the escapes of the byte-comparable form are exercised.
     */
    private static List<Key> keys(Random random, int n) {
        List<long[]> tokens = new ArrayList<>();
        long base = random.nextLong();
        while (tokens.size() < n) {
            int shared = random.nextInt(8); // leading bytes kept from the previous token
            long mask = shared == 0 ? 0 : -1L << (64 - 8 * shared);
            base = (base & mask) | (random.nextLong() & ~mask);
            if (base == Long.MIN_VALUE) continue; // the partitioner's minimum: no key has it
            int copies = random.nextInt(3) == 0 ? 2 + random.nextInt(4) : 1;
            for (int c = 0; c < copies; c++) tokens.add(new long[] {base});
        }
        List<Key> keys = new ArrayList<>();
        for (long[] t : tokens) {
            byte[] k = new byte[1 + random.nextInt(6)];
            for (int i = 0; i < k.length; i++) k[i] = random.nextInt(3) == 0 ? 0 : (byte) random.nextInt(256);
            keys.add(new Key(t[0], k, 0));
        }
        keys.sort((a, b) -> a.token() != b.token() ? Long.compare(a.token(), b.token()) : Arrays.compareUnsigned(a.bytes(), b.bytes()));
        List<Key> distinct = new ArrayList<>();
        long position = 0;
        for (Key k : keys) {
            Key last = distinct.isEmpty() ? null : distinct.get(distinct.size() - 1);
            if (last != null && last.token() == k.token() && Arrays.equals(last.bytes(), k.bytes())) continue;
            distinct.add(new Key(k.token(), k.bytes(), position));
            position += 1 + random.nextInt(100_000);
        }
        return distinct;
    }

    private byte[] writeOurs(List<Key> keys, String name) throws IOException {
        TableSchema schema = CqlParser.parse(CQL);
        Descriptor d = Descriptor.reserveNext(dir.resolve(name), SSTableVersion.DA);
        RowIndexBlocks oneBlock = new RowIndexBlocks(RowIndexBlocks.DEFAULT_COLUMN_INDEX_SIZE_BYTES);
        oneBlock.added(ClusteringBound.CLUSTERING, new byte[][] {{0, 0, 0, 1}}, 0, 10, DeletionTime.LIVE);
        oneBlock.finish(11);
        BtiIndexWriter w = new BtiIndexWriter(d, schema);
        long[] hash = new long[2];
        for (Key k : keys) {
            Murmur3.hash128(k.bytes(), 0, k.bytes().length, hash);
            w.add(k.bytes(), k.bytes().length, k.token(), hash[1], k.dataPosition(), 0, Long.MIN_VALUE, Long.MAX_VALUE, oneBlock);
        }
        w.finishPartitions();
        w.finish(keys.get(0).bytes(), keys.get(keys.size() - 1).bytes());
        byte[] bytes = Files.readAllBytes(d.stagingPath(Component.PARTITION_INDEX));
        d.releaseReservation();
        return bytes;
    }

    /**
     * Cassandra's Partitions.db of these keys, from its {@code PartitionIndexBuilder} (package-private,
     * so reached by reflection) over a {@code SequentialWriter}, as its BTI sstable writer drives it.
     */
    private static byte[] writeCassandras(List<Key> keys, Path path) throws Exception {
        Class<?> builderClass = Class.forName("org.apache.cassandra.io.sstable.format.bti.PartitionIndexBuilder");
        Constructor<?> make = builderClass.getDeclaredConstructor(SequentialWriter.class, FileHandle.Builder.class);
        Method addEntry = builderClass.getDeclaredMethod("addEntry", DecoratedKey.class, long.class);
        Method complete = builderClass.getDeclaredMethod("complete");
        Method close = builderClass.getDeclaredMethod("close");
        make.setAccessible(true);
        addEntry.setAccessible(true);
        complete.setAccessible(true);
        close.setAccessible(true);
        File file = new File(path);
        try (SequentialWriter writer = new SequentialWriter(file)) {
            Object builder = make.newInstance(writer, new FileHandle.Builder(file));
            try {
                for (Key k : keys) {
                    addEntry.invoke(builder, new BufferDecoratedKey(new Murmur3Partitioner.LongToken(k.token()),
                            ByteBuffer.wrap(k.bytes())), ~k.dataPosition());
                }
                complete.invoke(builder);
            } finally {
                close.invoke(builder);
            }
            return Files.readAllBytes(path);
        }
    }

    private static void assertSameBytes(byte[] theirs, byte[] ours, String what) {
        int n = Math.min(theirs.length, ours.length);
        for (int i = 0; i < n; i++) {
            if (theirs[i] != ours[i]) {
                throw new AssertionError(what + ": Partitions.db differs first at byte " + i + " of " + theirs.length
                        + " (Cassandra 0x" + Integer.toHexString(theirs[i] & 0xFF) + ", ours 0x" + Integer.toHexString(ours[i] & 0xFF) + ")");
            }
        }
        assertEquals(theirs.length, ours.length, what + ": Partitions.db lengths");
    }
}

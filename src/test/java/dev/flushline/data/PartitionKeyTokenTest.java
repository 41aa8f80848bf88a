package dev.flushline.data;

import dev.flushline.oracle.CassandraOracle;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.testing.RandomUpdates;
import org.apache.cassandra.db.DecoratedKey;
import org.apache.cassandra.db.marshal.ByteBufferAccessor;
import org.apache.cassandra.db.marshal.CompositeType;
import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.utils.ByteBufferUtil;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Partition keys: our token and our partition order against Murmur3Partitioner and DecoratedKey,
 * for single and composite keys (whose bytes must equal CompositeType's).
 */
class PartitionKeyTokenTest {
    @BeforeAll
    static void init() {
        CassandraOracle.init();
    }

    static long theirToken(byte[] key) {
        return ((Murmur3Partitioner.LongToken) Murmur3Partitioner.instance.getToken(ByteBuffer.wrap(key))).token;
    }

    @Test
    void tokenMatchesMurmur3PartitionerOnRandomKeys() {
        Random r = new Random(1);
        for (int i = 0; i < 20_000; i++) {
            byte[] key = new byte[r.nextInt(70)];
            r.nextBytes(key);
            assertEquals(theirToken(key), PartitionKey.of(key).token(), () -> Hex.of(key));
        }
        assertEquals(Long.MIN_VALUE, PartitionKey.of(new byte[0]).token(), "empty key");
    }

    @Test
    void compositeKeyBytesAndTokensMatchCompositeType() {
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse("CREATE TABLE ks.c (p1 int, p2 text, p3 blob, v int, PRIMARY KEY ((p1, p2, p3)))");
        Random r = new Random(2);
        for (int i = 0; i < 5_000; i++) {
            byte[][] parts = {ByteBuffer.allocate(4).putInt(r.nextInt()).array(), randomBytes(r, 12), randomBytes(r, 300)};
            byte[] ours = RandomUpdates.partitionKeyBytes(schema, parts);
            ByteBuffer theirs = CompositeType.build(ByteBufferAccessor.instance,
                    ByteBuffer.wrap(parts[0]), ByteBuffer.wrap(parts[1]), ByteBuffer.wrap(parts[2]));
            assertArrayEquals(ByteBufferUtil.getArray(theirs), ours);
            assertEquals(theirToken(ours), PartitionKey.of(ours).token());
            byte[] put = new byte[ours.length + 1];
            int at = 1;
            for (byte[] part : parts) at = PartitionKey.putComponent(put, at, part, 0, part.length);
            assertEquals(put.length, at, "putComponent's end offset");
            assertArrayEquals(ours, java.util.Arrays.copyOfRange(put, 1, put.length), "putComponent at an offset");
        }
    }

    static byte[] randomBytes(Random r, int max) {
        byte[] b = new byte[r.nextInt(max)];
        r.nextBytes(b);
        return b;
    }

    @Test
    void orderIsTokenThenUnsignedKeyBytesAsDecoratedKey() {
        Random r = new Random(3);
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) keys.add(randomBytes(r, 6));
        // Short keys from a small space: many equal pairs, the rest ordered by token (distinct keys
        // with equal tokens do not occur in practice, so the key-bytes tie-break is seen via equality).
        for (int i = 0; i < 20_000; i++) {
            byte[] a = keys.get(r.nextInt(keys.size())), b = keys.get(r.nextInt(keys.size()));
            DecoratedKey da = Murmur3Partitioner.instance.decorateKey(ByteBuffer.wrap(a));
            DecoratedKey db = Murmur3Partitioner.instance.decorateKey(ByteBuffer.wrap(b));
            int expected = Integer.signum(da.compareTo(db));
            assertEquals(expected, Integer.signum(PartitionKey.of(a).compareTo(PartitionKey.of(b))), Hex.of(a) + " vs " + Hex.of(b));
            assertEquals(expected == 0, PartitionKey.of(a).equals(PartitionKey.of(b)));
        }
        // The minimum search key for a token sorts before every real key with that token and after
        // every key with a smaller token.
        for (byte[] k : keys) {
            PartitionKey pk = PartitionKey.of(k);
            assertTrue(PartitionKey.minimumForToken(pk.token()).compareTo(pk) < 0);
            assertTrue(pk.compareTo(PartitionKey.minimumForToken(pk.token())) > 0);
            if (pk.token() != Long.MAX_VALUE) assertTrue(PartitionKey.minimumForToken(pk.token() + 1).compareTo(pk) > 0);
        }
    }
}

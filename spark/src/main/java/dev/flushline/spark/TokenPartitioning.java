package dev.flushline.spark;

import dev.flushline.data.Murmur3;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.TokenRanges;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlType;
import dev.flushline.schema.JavaValues;
import dev.flushline.schema.TableSchema;
import dev.flushline.schema.ValueCodec;

import org.apache.spark.unsafe.hash.Murmur3_x86_32;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.Arrays;

/**
 * Token arithmetic of the bulk writer: the Murmur3 token of a partition key given as Java values,
 * the contiguous token ranges (range {@code i} of {@code n} is
 * {@code [TokenRanges.startToken(i, n), TokenRanges.startToken(i + 1, n))}, the last one ending
 * at Long.MAX_VALUE inclusive), and the bucket keys that make Spark's hash partitioning send
 * range {@code i} to Spark partition {@code i}.
 *
 * <p>Why bucket keys: a path-based DataSource V2 write can ask Spark to cluster rows by columns of
 * the input but cannot name a function of its own (that needs a function catalog), and Spark's
 * only exact partitioner for a column is {@code pmod(murmur3_x86_32(value, 42), n)}. Giving each
 * range a small int whose hash lands on the range's own index makes that partitioner exact: no
 * two ranges share a task, and every range has one. The writer checks each row's token against
 * its task's range, so a Spark whose hash partitioning ever differs fails loudly instead of
 * writing overlapping ranges.
 *
 * <p>Thread safety: stateless.
 */
final class TokenPartitioning {
    /** The seed of Spark's {@code Murmur3Hash} expression, which HashPartitioning uses. */
    static final int SPARK_HASH_SEED = 42;

    private TokenPartitioning() {}

    /** The serialized partition key: the single column's bytes, or CompositeType's encoding of several. */
    static byte[] partitionKey(TableSchema schema, Object[] javaValues) {
        ColumnMetadata[] pk = schema.partitionKeyColumns();
        if (pk.length == 1) return encode(pk[0], javaValues[0]);
        byte[][] components = new byte[pk.length][];
        for (int i = 0; i < pk.length; i++) {
            components[i] = encode(pk[i], javaValues[i]);
            if (components[i].length > PartitionKey.MAX_COMPONENT_BYTES) {
                throw new IllegalArgumentException("partition key column '" + pk[i].name() + "' is longer than " + PartitionKey.MAX_COMPONENT_BYTES + " bytes");
            }
        }
        return PartitionKey.compose(components);
    }

    private static byte[] encode(ColumnMetadata c, Object javaValue) {
        if (javaValue == null) throw new IllegalArgumentException("partition key column '" + c.name() + "' is null");
        CqlType t = c.type();
        // The common key types straight to their bytes (big-endian, as Cassandra serializes them);
        // the rest through the writer's own codec.
        switch (t.kind()) {
            case INT:
                if (javaValue instanceof Integer) return ByteBuffer.allocate(4).putInt((Integer) javaValue).array();
                break;
            case BIGINT:
                if (javaValue instanceof Long) return ByteBuffer.allocate(8).putLong((Long) javaValue).array();
                break;
            case TEXT:
                if (javaValue instanceof String) return ((String) javaValue).getBytes(StandardCharsets.UTF_8);
                break;
            case UUID:
                if (javaValue instanceof UUID) {
                    UUID u = (UUID) javaValue;
                    return ByteBuffer.allocate(16).putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits()).array();
                }
                break;
            default:
                break;
        }
        return ValueCodec.encode(t, JavaValues.toCodecInput(t, javaValue));
    }

    /** The key bytes through the writer's codec only: what {@link #partitionKey} must agree with. */
    static byte[] encodeWithCodec(CqlType t, Object javaValue) {
        return ValueCodec.encode(t, JavaValues.toCodecInput(t, javaValue));
    }

    static long token(TableSchema schema, Object[] javaValues) {
        byte[] key = partitionKey(schema, javaValues);
        return Murmur3.token(key, 0, key.length);
    }

    /** The first token of each of the n ranges (starts[0] = Long.MIN_VALUE). */
    static long[] starts(int n) {
        long[] starts = new long[n];
        for (int i = 0; i < n; i++) starts[i] = TokenRanges.startToken(i, n);
        return starts;
    }

    /** The range holding {@code token}: the last i with starts[i] <= token. */
    static int rangeOf(long[] starts, long token) {
        int i = Arrays.binarySearch(starts, token);
        return i >= 0 ? i : -i - 2;
    }

    /** The last token of range i (inclusive). */
    static long lastToken(long[] starts, int i) {
        return i + 1 < starts.length ? starts[i + 1] - 1 : Long.MAX_VALUE;
    }

    /** For each of n partitions, the smallest int k >= 0 that Spark's hash partitioning into n sends there. */
    static int[] bucketKeys(int n) {
        int[] keys = new int[n];
        Arrays.fill(keys, -1);
        int found = 0;
        for (int k = 0; found < n; k++) {
            if (k < 0) throw new IllegalStateException("no bucket keys found for " + n + " partitions");
            int p = sparkPartition(k, n);
            if (keys[p] < 0) {
                keys[p] = k;
                found++;
            }
        }
        return keys;
    }

    /** The partition Spark's HashPartitioning(Seq(intColumn), n) gives the value k. */
    static int sparkPartition(int k, int n) {
        int h = Murmur3_x86_32.hashInt(k, SPARK_HASH_SEED);
        int m = h % n;
        return m < 0 ? m + n : m;
    }
}

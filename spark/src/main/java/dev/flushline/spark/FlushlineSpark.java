package dev.flushline.spark;

import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.CqlType;
import dev.flushline.schema.TableSchema;

import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.catalyst.CatalystTypeConverters;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

import java.math.BigDecimal;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * The bulk writer's entry point for output split into contiguous token ranges:
 *
 * <pre>{@code
 * FlushlineSpark.write(df, Map.of("table", "CREATE TABLE ks.t (...)", "path", "/out", "ranges", "64"));
 * }</pre>
 *
 * <p>{@link #partitionByTokenRange} adds two columns to the DataFrame: the Murmur3 token of each
 * row's partition key ({@value #TOKEN_COLUMN}) and the bucket key of the token's range
 * ({@value #BUCKET_COLUMN}). When the flushline data source sees them, it asks Spark to
 * hash-partition by the bucket key into exactly {@code ranges} partitions and to sort each by
 * token, which puts token range {@code i} (and only it) into Spark partition {@code i}; see
 * {@link TokenPartitioning}. Without them, {@code df.write.format("flushline")} still writes, but
 * each task's output spans the whole ring (see the README).
 *
 * <p>Thread safety: stateless.
 */
public final class FlushlineSpark {
    /** The column holding the Murmur3 token of the row's partition key (bigint). */
    public static final String TOKEN_COLUMN = "_flushline_token";
    /** The column whose hash partitioning sends each token range to its own Spark partition (int). */
    public static final String BUCKET_COLUMN = "_flushline_bucket";

    private FlushlineSpark() {}

    /**
     * Writes {@code df} with the flushline data source, one output directory per token range.
     * {@code options} are those of the data source; {@code ranges} defaults to the DataFrame's
     * number of partitions.
     */
    public static void write(Dataset<Row> df, Map<String, String> options) {
        Map<String, String> o = new HashMap<>(options);
        WriteOptions parsed = WriteOptions.parse(o);
        if (parsed.ring() != null) {
            // The ring's ranges, one task each; the data source reads the ring again from the same option.
            partitionByTokenRange(df, parsed.tableCql, parsed.starts()).write().format("flushline").mode("append").options(o).save();
            return;
        }
        int ranges = parsed.ranges > 0 ? parsed.ranges : Math.max(1, df.rdd().getNumPartitions());
        o.put(WriteOptions.RANGES, Integer.toString(ranges));
        partitionByTokenRange(df, parsed.tableCql, ranges).write().format("flushline").mode("append").options(o).save();
    }

    /**
     * {@code df} with the token and bucket columns for {@code ranges} token ranges of the table's
     * ring; write it with the same {@code ranges} option.
     */
    public static Dataset<Row> partitionByTokenRange(Dataset<Row> df, String createTableCql, int ranges) {
        if (ranges < 1) throw new IllegalArgumentException("ranges must be at least 1: " + ranges);
        return partitionByTokenRange(df, createTableCql, TokenPartitioning.starts(ranges));
    }

    /** As {@link #partitionByTokenRange(Dataset, String, int)}, for the token ranges that start at {@code starts} (starts[0] = Long.MIN_VALUE). */
    static Dataset<Row> partitionByTokenRange(Dataset<Row> df, String createTableCql, long[] starts) {
        TableSchema schema = CqlParser.parse(createTableCql);
        ColumnMetadata[] pk = schema.partitionKeyColumns();
        StructType dfSchema = df.schema();
        Column[] keyColumns = new Column[pk.length];
        String[] sparkTypes = new String[pk.length];
        boolean[] accepted = new boolean[pk.length];
        for (int i = 0; i < pk.length; i++) {
            String name = pk[i].name();
            if (!java.util.Arrays.asList(dfSchema.fieldNames()).contains(name)) {
                throw new IllegalArgumentException("flushline: the DataFrame has no column '" + name + "' for the partition key of "
                        + schema.keyspace() + "." + schema.name() + " (its columns: " + String.join(", ", dfSchema.fieldNames()) + ")");
            }
            StructField f = dfSchema.apply(name);
            sparkTypes[i] = f.dataType().simpleString();
            accepted[i] = ColumnConverter.accepts(pk[i].type(), f.dataType());
            CompositeConverters.refuseMismatch(name, pk[i].type(), f.dataType());
            keyColumns[i] = functions.col(name);
        }
        UserDefinedFunction token = functions.udf(new TokenOf(createTableCql, sparkTypes, accepted), DataTypes.LongType);
        UserDefinedFunction bucket = functions.udf(new BucketOf(starts), DataTypes.IntegerType);
        return df.withColumn(TOKEN_COLUMN, token.apply(functions.struct(keyColumns)))
                .withColumn(BUCKET_COLUMN, bucket.apply(functions.col(TOKEN_COLUMN)));
    }

    /** The token of a row's partition key, from the struct of its key columns. */
    private static final class TokenOf implements UDF1<Row, Long> {
        private static final long serialVersionUID = 1L;
        private final String tableCql;
        private final String[] sparkTypes;
        /** Per key column: whether its Spark type is one its CQL type is written from. */
        private final boolean[] accepted;
        private transient TableSchema schema;
        private transient Object[] values;
        /** Per key column of a type with parameters (a frozen collection, tuple, UDT): its converter, as the writer's; else null. */
        private transient ColumnConverter[] converters;
        /** Per such column: Spark's conversion of its external value (a Row, a Seq, a Map) back to the internal one. */
        private transient scala.Function1<Object, Object>[] toInternal;

        TokenOf(String tableCql, String[] sparkTypes, boolean[] accepted) {
            this.tableCql = tableCql;
            this.sparkTypes = sparkTypes;
            this.accepted = accepted;
        }

        @Override
        public Long call(Row key) {
            if (schema == null) init(key.schema());
            ColumnMetadata[] pk = schema.partitionKeyColumns();
            for (int i = 0; i < pk.length; i++) {
                if (key.isNullAt(i)) throw new IllegalArgumentException("partition key column '" + pk[i].name() + "' is null");
                if (!accepted[i]) {
                    Object v = key.get(i);
                    throw new IllegalArgumentException("column '" + pk[i].name() + "' is CQL " + pk[i].type() + ", which a Spark " + sparkTypes[i]
                            + " column cannot fill (first value: " + (v instanceof byte[] ? "0x" + dev.flushline.data.Hex.of((byte[]) v) : v)
                            + "); " + ColumnConverter.expected(pk[i].type()));
                }
                values[i] = converters[i] == null ? javaValue(pk[i], key.get(i))
                        : converters[i].convert(new GenericInternalRow(new Object[] {toInternal[i].apply(key.get(i))}), 0);
            }
            return TokenPartitioning.token(schema, values);
        }

        @SuppressWarnings("unchecked")
        private void init(StructType keyStruct) {
            schema = CqlParser.parse(tableCql);
            ColumnMetadata[] pk = schema.partitionKeyColumns();
            values = new Object[pk.length];
            converters = new ColumnConverter[pk.length];
            toInternal = new scala.Function1[pk.length];
            for (int i = 0; i < pk.length; i++) {
                if (pk[i].type().isNative() || !accepted[i]) continue;
                // The value's bytes as the writer will write them: the same converter, on the internal form.
                DataType t = keyStruct.fields()[i].dataType();
                converters[i] = ColumnConverter.of(pk[i].name(), pk[i].type(), t);
                toInternal[i] = CatalystTypeConverters.createToCatalystConverter(t);
            }
        }
    }

    /** The bucket key of a token's range. */
    private static final class BucketOf implements UDF1<Long, Integer> {
        private static final long serialVersionUID = 1L;
        private final long[] starts;
        private transient int[] keys;

        BucketOf(long[] starts) {
            this.starts = starts.clone();
        }

        @Override
        public Integer call(Long token) {
            if (keys == null) keys = TokenPartitioning.bucketKeys(starts.length);
            return keys[TokenPartitioning.rangeOf(starts, token)];
        }
    }

    /** A Spark external (Row) value of a key column as the Java object the writer takes for its CQL type. */
    static Object javaValue(ColumnMetadata c, Object v) {
        CqlType t = c.type();
        switch (t.kind()) {
            case UUID:
            case TIMEUUID:
                try {
                    return UUID.fromString((String) v);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("column '" + c.name() + "' (CQL " + t + ", Spark string): value '" + v + "' is not a UUID");
                }
            case INET:
                try {
                    return InetAddress.getByName((String) v);
                } catch (UnknownHostException e) {
                    throw new IllegalArgumentException("column '" + c.name() + "' (CQL " + t + ", Spark string): value '" + v + "' is not an address");
                }
            case VARINT:
                return ((BigDecimal) v).toBigIntegerExact();
            case BLOB:
                return ByteBuffer.wrap((byte[]) v);
            case TIMESTAMP:
                return v instanceof java.sql.Timestamp ? ((java.sql.Timestamp) v).toInstant() : (Instant) v;
            case DATE:
                return v instanceof java.sql.Date ? ((java.sql.Date) v).toLocalDate() : (LocalDate) v;
            default:
                return v; // String, Integer, Long, Short, Byte, Float, Double, Boolean, BigDecimal, Long (time)
        }
    }
}

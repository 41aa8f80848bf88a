package dev.flushline.spark;

import org.apache.spark.sql.connector.expressions.SortDirection;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The driver-side planning, without a Spark session. */
class WritePlanTest {
    static StructField f(String name, org.apache.spark.sql.types.DataType t) {
        return DataTypes.createStructField(name, t, true);
    }

    static Map<String, String> options(String table) {
        Map<String, String> o = new HashMap<>();
        o.put("table", table);
        o.put("path", "/nonexistent/out");
        o.put("ranges", "4");
        return o;
    }

    static StructType withTokens(StructField... fields) {
        StructType s = new StructType(fields);
        return s.add(f(FlushlineSpark.TOKEN_COLUMN, DataTypes.LongType)).add(f(FlushlineSpark.BUCKET_COLUMN, DataTypes.IntegerType));
    }

    @Test
    void orderingIsTokenThenTheKeyThenTheClusteringPrefixSparkOrdersAsCassandra() {
        String table = "CREATE TABLE ks.t (pk int, a text, b bigint, c uuid, d int, v text, PRIMARY KEY (pk, a, b, c, d))"
                + " WITH CLUSTERING ORDER BY (a ASC, b DESC, c ASC, d ASC)";
        StructType input = withTokens(f("pk", DataTypes.IntegerType), f("a", DataTypes.StringType), f("b", DataTypes.LongType),
                f("c", DataTypes.StringType), f("d", DataTypes.IntegerType), f("v", DataTypes.StringType));
        FlushlineWrite w = new FlushlineWrite(WriteOptions.parse(options(table)), input, "q1");
        SortOrder[] order = w.requiredOrdering();
        assertEquals(4, order.length, "token, pk, a, b; the uuid c (a Spark string) ends the prefix");
        assertEquals(FlushlineSpark.TOKEN_COLUMN, order[0].expression().toString());
        assertEquals("pk", order[1].expression().toString());
        assertEquals("a", order[2].expression().toString());
        assertEquals(SortDirection.ASCENDING, order[2].direction());
        assertEquals("b", order[3].expression().toString());
        assertEquals(SortDirection.DESCENDING, order[3].direction());
        assertEquals(4, w.requiredNumPartitions());
    }

    @Test
    void onlyTablesWhoseRowsSparkSortsCompletelyTakeTheSortedWriter() {
        StructType keyed = withTokens(f("pk", DataTypes.IntegerType), f("c", DataTypes.StringType), f("v", DataTypes.LongType));
        assertTrue(plan("CREATE TABLE ks.t (pk int, c text, v bigint, PRIMARY KEY (pk, c)) WITH CLUSTERING ORDER BY (c DESC)", keyed).writesSorted());
        assertFalse(plan("CREATE TABLE ks.t (pk int, c uuid, v bigint, PRIMARY KEY (pk, c))", keyed).writesSorted(), "uuid clustering from a string");
        assertFalse(plan("CREATE TABLE ks.t (pk int, c text, v bigint static, PRIMARY KEY (pk, c))", keyed).writesSorted(), "static column");
        assertFalse(plan("CREATE TABLE ks.t (pk int, c text, v bigint, PRIMARY KEY (pk, c)) WITH default_time_to_live = 60", keyed).writesSorted(),
                "default TTL");
        StructType withList = withTokens(f("pk", DataTypes.IntegerType), f("c", DataTypes.StringType),
                f("v", DataTypes.createArrayType(DataTypes.LongType)));
        assertFalse(plan("CREATE TABLE ks.t (pk int, c text, v list<bigint>, PRIMARY KEY (pk, c))", withList).writesSorted(), "non-frozen list");
        assertTrue(plan("CREATE TABLE ks.t (pk int, c text, v frozen<list<bigint>>, PRIMARY KEY (pk, c))", withList).writesSorted(), "frozen list");
        StructType plain = new StructType(new StructField[] {f("pk", DataTypes.IntegerType), f("c", DataTypes.StringType), f("v", DataTypes.LongType)});
        assertFalse(plan("CREATE TABLE ks.t (pk int, c text, v bigint, PRIMARY KEY (pk, c))", plain).writesSorted(), "not split by token range");
    }

    static WritePlan plan(String table, StructType input) {
        return new WritePlan(WriteOptions.parse(options(table)), input, "q");
    }

    @Test
    void withoutTokenColumnsThePartitionKeyClustersAndNothingIsSorted() {
        String table = "CREATE TABLE ks.t (p1 int, p2 text, c int, PRIMARY KEY ((p1, p2), c))";
        StructType input = new StructType(new StructField[] {f("p1", DataTypes.IntegerType), f("p2", DataTypes.StringType), f("c", DataTypes.IntegerType)});
        FlushlineWrite w = new FlushlineWrite(WriteOptions.parse(options(table)), input, "q2");
        assertEquals(0, w.requiredOrdering().length);
        assertTrue(w.requiredDistribution().toString().contains("p1") && w.requiredDistribution().toString().contains("p2"),
                w.requiredDistribution().toString());
    }

    @Test
    void refusalsNameWhatIsWrong() {
        String table = "CREATE TABLE ks.t (pk int, ck int, v text, PRIMARY KEY (pk, ck))";
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new FlushlineWrite(WriteOptions.parse(options(table)),
                new StructType(new StructField[] {f("pk", DataTypes.IntegerType), f("v", DataTypes.StringType)}), "q"));
        assertTrue(e.getMessage().contains("[ck]"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new FlushlineWrite(WriteOptions.parse(options(table)),
                new StructType(new StructField[] {f("pk", DataTypes.IntegerType), f("ck", DataTypes.IntegerType), f("extra", DataTypes.StringType)}), "q"));
        assertTrue(e.getMessage().contains("'extra'"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new FlushlineWrite(WriteOptions.parse(options(table)),
                new StructType(new StructField[] {f("pk", DataTypes.IntegerType), f("ck", DataTypes.IntegerType), f("ttl", DataTypes.StringType)}), "q"));
        assertTrue(e.getMessage().contains("'ttl'") && e.getMessage().contains("string"), e.getMessage());
        Map<String, String> bad = options(table);
        bad.put("compression", "zstd");
        e = assertThrows(IllegalArgumentException.class, () -> WriteOptions.parse(bad));
        assertTrue(e.getMessage().contains("'compression'") && e.getMessage().contains("zstd"), e.getMessage());
        Map<String, String> unknown = options(table);
        unknown.put("rangez", "3");
        e = assertThrows(IllegalArgumentException.class, () -> WriteOptions.parse(unknown));
        assertTrue(e.getMessage().contains("'rangez'"), e.getMessage());
    }

    /** The key encodings taken without the codec equal the codec's, so tokens equal the writer's. */
    @Test
    void fastKeyEncodingsEqualTheCodecs() {
        dev.flushline.schema.TableSchema schema = dev.flushline.schema.CqlParser.parse(
                "CREATE TABLE ks.t (a int, b bigint, c text, d uuid, v int, PRIMARY KEY ((a, b, c, d)))");
        java.util.Random r = new java.util.Random(16_020L);
        for (int i = 0; i < 2000; i++) {
            Object[] key = {r.nextInt(), r.nextLong(), "k\u00e9" + r.nextInt(), new java.util.UUID(r.nextLong(), r.nextLong())};
            dev.flushline.schema.ColumnMetadata[] pk = schema.partitionKeyColumns();
            java.io.ByteArrayOutputStream expected = new java.io.ByteArrayOutputStream();
            for (int j = 0; j < pk.length; j++) {
                byte[] b = TokenPartitioning.encodeWithCodec(pk[j].type(), key[j]);
                expected.write(b.length >>> 8);
                expected.write(b.length);
                expected.write(b, 0, b.length);
                expected.write(0);
            }
            assertEquals(dev.flushline.data.Hex.of(expected.toByteArray()), dev.flushline.data.Hex.of(TokenPartitioning.partitionKey(schema, key)),
                    "seed 16020, key " + i);
            for (int j = 0; j < pk.length; j++) {
                dev.flushline.schema.TableSchema single = dev.flushline.schema.CqlParser.parse(
                        "CREATE TABLE ks.s (k " + pk[j].type() + " PRIMARY KEY, v int)");
                assertEquals(dev.flushline.data.Hex.of(TokenPartitioning.encodeWithCodec(pk[j].type(), key[j])),
                        dev.flushline.data.Hex.of(TokenPartitioning.partitionKey(single, new Object[] {key[j]})), "seed 16020, " + pk[j].type());
            }
        }
    }

    @Test
    void bucketKeysSendEachRangeToItsOwnPartition() {
        for (int n = 1; n <= 300; n++) {
            int[] keys = TokenPartitioning.bucketKeys(n);
            for (int r = 0; r < n; r++) {
                assertEquals(r, TokenPartitioning.sparkPartition(keys[r], n), "n=" + n + " range " + r);
                // and Spark's own partitioner for a clustered write of an int column agrees
                org.apache.spark.sql.catalyst.expressions.Expression lit =
                        org.apache.spark.sql.catalyst.expressions.Literal.create(keys[r], DataTypes.IntegerType);
                org.apache.spark.sql.catalyst.plans.physical.HashPartitioning hp = new org.apache.spark.sql.catalyst.plans.physical.HashPartitioning(
                        scala.jdk.javaapi.CollectionConverters.asScala(java.util.List.of(lit)).toSeq(), n);
                assertEquals(r, hp.partitionIdExpression().eval(null), "Spark's HashPartitioning, n=" + n + " range " + r);
            }
        }
        long[] starts = TokenPartitioning.starts(5);
        assertEquals(0, TokenPartitioning.rangeOf(starts, Long.MIN_VALUE));
        assertEquals(4, TokenPartitioning.rangeOf(starts, Long.MAX_VALUE));
        for (int i = 1; i < 5; i++) {
            assertEquals(i, TokenPartitioning.rangeOf(starts, starts[i]));
            assertEquals(i - 1, TokenPartitioning.rangeOf(starts, starts[i] - 1));
            assertEquals(starts[i] - 1, TokenPartitioning.lastToken(starts, i - 1));
        }
    }
}

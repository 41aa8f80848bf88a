package dev.flushline.ops;

import dev.flushline.data.Row;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import org.apache.cassandra.cql3.QueryOptions;
import org.apache.cassandra.db.marshal.AbstractType;
import org.apache.cassandra.db.marshal.DoubleType;
import org.apache.cassandra.db.marshal.FloatType;
import org.apache.cassandra.utils.JsonUtils;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * float and double values out of their range, as {@code INSERT ... JSON} stores them in Cassandra
 * 5.0.9: a number too large for a float (3.5e38) or a double (1e400) becomes infinity, and one too
 * small becomes zero, with no error; the same as a string. {@code flushline load} must store the
 * same bytes (the README says so), so that a load and the INSERT it stands for agree.
 */
class FloatRangeTest {
    static final TableSchema T = CqlParser.parse("CREATE TABLE ks.f (pk int PRIMARY KEY, f float, d double)");

    @BeforeAll
    static void init() {
        CassandraOracle.init();
    }

    static byte[] ours(String column, String json) throws Exception {
        String line = "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":1,\"" + column + "\":" + json + "}}";
        OperationReader r = OperationReader.ofString(T, line, "ops.jsonl", 1_750_000_000L);
        Row row = r.next().update().rows().get(0);
        return OperationReaderTest.cell(T, row, column).valueBytes();
    }

    static byte[] cassandra(AbstractType<?> type, String json) {
        ByteBuffer bb = type.fromJSONObject(JsonUtils.decodeJson(json)).bindAndGet(QueryOptions.DEFAULT);
        byte[] out = new byte[bb.remaining()];
        bb.duplicate().get(out);
        return out;
    }

    @Test
    void outOfRangeValuesAreStoredAsCassandrasInsertJsonStoresThem() throws Exception {
        String[] floats = {"3.5e38", "-3.5e38", "1e39", "1e-50", "-1e-50", "\"3.5e38\"", "\"1e-50\"", "3.4028235e38", "1.4e-45"};
        for (String json : floats) {
            byte[] expected = cassandra(FloatType.instance, json);
            assertArrayEquals(expected, ours("f", json), "float " + json);
        }
        assertEquals(Float.POSITIVE_INFINITY, ByteBuffer.wrap(ours("f", "3.5e38")).getFloat(), "what Cassandra stores");
        assertEquals(0f, ByteBuffer.wrap(ours("f", "1e-50")).getFloat());
        String[] doubles = {"1e400", "-1e400", "1e-400", "\"1e400\"", "1.7976931348623157e308", "4.9e-324"};
        for (String json : doubles) {
            byte[] expected = cassandra(DoubleType.instance, json);
            assertArrayEquals(expected, ours("d", json), "double " + json);
        }
        assertEquals(Double.NEGATIVE_INFINITY, ByteBuffer.wrap(ours("d", "-1e400")).getDouble(), "what Cassandra stores");
    }
}

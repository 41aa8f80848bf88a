package dev.flushline.data;

import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The order key a merge compares clusterings by must order them exactly as the comparator does:
 * for every type and direction it is offered for, over random values and the extremes; and it is
 * offered only where that holds (one clustering column of int, bigint or timestamp, a row's full-width
 * value), never for bounds, empty values, other types or several clustering columns.
 */
class ClusteringOrderKeyTest {
    private static final String[] KEYED = {"int", "bigint", "timestamp"};

    @Test
    void theKeyOrdersAsTheComparatorDoes() {
        Random random = new Random(42);
        for (String type : KEYED) {
            for (String order : new String[] {"ASC", "DESC"}) {
                TableSchema schema = CqlParser.parse("CREATE TABLE ks.t (pk int, ck " + type + ", v int, PRIMARY KEY (pk, ck)) "
                        + "WITH CLUSTERING ORDER BY (ck " + order + ")");
                ClusteringComparator comparator = new ClusteringComparator(schema);
                int width = type.equals("int") ? 4 : 8;
                long[] values = new long[200];
                values[0] = width == 4 ? Integer.MIN_VALUE : Long.MIN_VALUE;
                values[1] = width == 4 ? Integer.MAX_VALUE : Long.MAX_VALUE;
                values[2] = 0;
                values[3] = -1;
                for (int i = 4; i < values.length; i++) values[i] = width == 4 ? random.nextInt() : random.nextLong();
                ClusteringBuffer a = new ClusteringBuffer(1), b = new ClusteringBuffer(1);
                for (long x : values) {
                    for (long y : values) {
                        byte[] bx = bytes(x, width), by = bytes(y, width);
                        a.wrap(ClusteringBound.CLUSTERING, new byte[][] {bx});
                        b.wrap(ClusteringBound.CLUSTERING, new byte[][] {by});
                        String what = type + " " + order + " " + x + " vs " + y;
                        assertTrue(comparator.hasOrderKey(a), what);
                        assertEquals(Integer.signum(comparator.compare(a, b)),
                                Integer.signum(Long.compare(comparator.orderKey(a), comparator.orderKey(b))), what);
                    }
                }
            }
        }
    }

    @Test
    void noKeyWhereTheComparatorWouldOrderOtherwise() {
        ClusteringBuffer c = new ClusteringBuffer(2);
        TableSchema ints = CqlParser.parse("CREATE TABLE ks.t (pk int, ck int, v int, PRIMARY KEY (pk, ck))");
        ClusteringComparator keyed = new ClusteringComparator(ints);
        assertFalse(keyed.hasOrderKey(c.wrap(ClusteringBound.CLUSTERING, new byte[][] {new byte[0]})), "an empty value");
        assertFalse(keyed.hasOrderKey(c.wrap(ClusteringBound.INCL_START_BOUND, new byte[][] {bytes(7, 4)})), "a bound");
        assertFalse(keyed.hasOrderKey(c.wrap(ClusteringBound.INCL_START_BOUND, new byte[0][])), "an empty bound");
        for (String cql : new String[] {
                "CREATE TABLE ks.t (pk int, ck text, v int, PRIMARY KEY (pk, ck))",
                "CREATE TABLE ks.t (pk int, ck smallint, v int, PRIMARY KEY (pk, ck))",
                "CREATE TABLE ks.t (pk int, ck double, v int, PRIMARY KEY (pk, ck))",
                "CREATE TABLE ks.t (pk int, ck int, ck2 int, v int, PRIMARY KEY (pk, ck, ck2))"}) {
            ClusteringComparator other = new ClusteringComparator(CqlParser.parse(cql));
            c.wrap(ClusteringBound.CLUSTERING, new byte[][] {bytes(7, 4)});
            assertFalse(other.hasOrderKey(c), cql);
        }
    }

    private static byte[] bytes(long v, int width) {
        return width == 4 ? ByteBuffer.allocate(4).putInt((int) v).array() : ByteBuffer.allocate(8).putLong(v).array();
    }
}

package dev.flushline.schema;

import org.apache.cassandra.db.marshal.AbstractType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CqlTypeNamesTest {

    @BeforeAll
    static void init() {
        CassandraOracle.init();
    }

    @Test
    void marshalNamesAndFixedLengthsMatchCassandra() {
        int checked = 0;
        for (CqlType t : CassandraOracle.allTypes()) {
            AbstractType<?> c = CassandraOracle.typeOf(t);
            assertEquals(c.toString(), t.marshalName(), "marshal name of " + t);
            assertEquals(c.valueLengthIfFixed(), t.fixedLength(), "fixed length of " + t);
            assertEquals(c.isMultiCell(), t.isMultiCell(), "multi-cell of " + t);
            checked++;
        }
        assertTrue(checked > 300);
    }

    @Test
    void compositeSpotChecks() {
        String m = "org.apache.cassandra.db.marshal.";
        // a UDT prints its keyspace, then its name and each field name in hex; frozen wraps it in FrozenType and
        // everything inside a frozen type is printed ignoring freezing
        assertEquals(m + "FrozenType(" + m + "UserType(ks,706f696e74,78:" + m + "DoubleType,79:" + m + "DoubleType))",
                CassandraOracle.POINT.freeze().marshalName());
        assertEquals(m + "UserType(ks,61646472657373,737472656574:" + m + "UTF8Type,7a6970:" + m + "Int32Type,74616773:" + m
                + "ListType(" + m + "UTF8Type))", CassandraOracle.ADDRESS.marshalName());
        // tuples are never wrapped, and print what they hold ignoring freezing
        assertEquals(m + "TupleType(" + m + "Int32Type," + m + "ListType(" + m + "Int32Type))",
                CqlType.tuple(java.util.List.of(CassandraOracle.INT, CqlType.list(CassandraOracle.INT, false))).marshalName());
        // vectors: " , " before the dimension; fixed length when the element's is
        assertEquals(m + "VectorType(" + m + "FloatType , 4096)", CqlType.vector(CassandraOracle.FLOAT, 4096).marshalName());
        assertEquals(16384, CqlType.vector(CassandraOracle.FLOAT, 4096).fixedLength());
        assertEquals(-1, CqlType.vector(CassandraOracle.TEXT, 2).fixedLength());
        // a non-frozen list of frozen UDTs wraps the element
        assertEquals(m + "ListType(" + m + "FrozenType(" + m + "UserType(ks,706f696e74,78:" + m + "DoubleType,79:" + m + "DoubleType)))",
                CqlType.list(CassandraOracle.POINT.freeze(), false).marshalName());
        assertEquals(m + "DurationType", CqlType.of(CqlType.Kind.DURATION).marshalName());
        assertEquals(m + "CounterColumnType", CqlType.of(CqlType.Kind.COUNTER).marshalName());
    }

    @Test
    void varcharIsText() {
        assertEquals(CassandraOracle.typeOf(CqlType.of(CqlType.Kind.TEXT)).toString(),
                org.apache.cassandra.schema.CQLTypeParser.parse("ks", "varchar",
                        org.apache.cassandra.schema.Types.none()).toString());
    }

    @Test
    void reversedClusteringNamesMatchCassandra() {
        for (CqlType t : CassandraOracle.allTypes()) {
            if (t.isMultiCell()) continue; // cannot be a clustering column
            ColumnMetadata c = new ColumnMetadata("c", t, ColumnMetadata.Role.CLUSTERING, 0, true);
            AbstractType<?> r = CassandraOracle.reversed(CassandraOracle.typeOf(t));
            assertEquals(r.toString(), c.marshalName(), "reversed " + t);
            assertEquals(r.valueLengthIfFixed(), t.fixedLength());
        }
    }

    @Test
    void spotChecks() {
        // One might expect fixed lengths (4, 8, 2, 1 bytes); cassandra-all 5.0.9 treats them as variable.
        assertEquals(-1, CqlType.of(CqlType.Kind.DATE).fixedLength());
        assertEquals(-1, CqlType.of(CqlType.Kind.TIME).fixedLength());
        assertEquals(-1, CqlType.of(CqlType.Kind.SMALLINT).fixedLength());
        assertEquals(-1, CqlType.of(CqlType.Kind.TINYINT).fixedLength());
        assertEquals(16, CqlType.of(CqlType.Kind.TIMEUUID).fixedLength());
        assertEquals("org.apache.cassandra.db.marshal.FrozenType(org.apache.cassandra.db.marshal.MapType("
                        + "org.apache.cassandra.db.marshal.UTF8Type,org.apache.cassandra.db.marshal.Int32Type))",
                CqlType.map(CqlType.of(CqlType.Kind.TEXT), CqlType.of(CqlType.Kind.INT), true).marshalName());
    }
}

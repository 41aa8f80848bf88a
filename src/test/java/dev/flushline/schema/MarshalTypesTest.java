package dev.flushline.schema;

import dev.flushline.testing.Compressions;
import dev.flushline.testing.RandomSchemas;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MarshalTypes reads back every marshal name a column type has, as Cassandra spells it; CqlPrinter
 * prints every schema so that CqlParser reads it back equal, with identifiers quoted as Cassandra
 * quotes them.
 */
class MarshalTypesTest {

    /** Random types of every kind, nested: Cassandra's spelling of each reads back into a type spelled the same. */
    @Test
    void readsBackCassandrasSpellingOfRandomTypes() {
        CassandraOracle.init();
        Random r = new Random(42);
        int composite = 0;
        for (int i = 0; i < 3000; i++) {
            CqlType t = TypeGen.any(r, 4, true);
            String theirs = CassandraOracle.typeOf(t).toString();
            assertEquals(t.marshalName(), theirs, t.toString());
            CqlType back = MarshalTypes.parse(theirs);
            assertEquals(theirs, back.marshalName(), t.toString());
            assertEquals(t, back, theirs);
            // Without the package, as Cassandra's own type parser also takes them.
            assertEquals(theirs, MarshalTypes.parse(theirs.replace(MarshalTypes.PACKAGE, "")).marshalName(), theirs);
            if (!t.isNative()) composite++;
        }
        assertTrue(composite > 1500, "composite types: " + composite);
    }

    @Test
    void keysAndClusterings() {
        String p = MarshalTypes.PACKAGE;
        assertEquals(List.of(CqlType.of(CqlType.Kind.INT), CqlType.of(CqlType.Kind.TEXT)),
                MarshalTypes.parsePartitionKey(p + "CompositeType(" + p + "Int32Type," + p + "UTF8Type)"));
        assertEquals(List.of(CqlType.of(CqlType.Kind.BLOB)), MarshalTypes.parsePartitionKey(p + "BytesType"));
        String desc = p + "ReversedType(" + p + "TimestampType)";
        assertTrue(MarshalTypes.isReversed(desc));
        assertEquals(CqlType.of(CqlType.Kind.TIMESTAMP), MarshalTypes.parseClustering(desc));
        assertEquals(CqlType.of(CqlType.Kind.TIMESTAMP), MarshalTypes.parseClustering(p + "TimestampType"));
        assertTrue(!MarshalTypes.isReversed(p + "TimestampType"));
    }

    @Test
    void refusesWhatTablesDoNotUseByName() {
        String p = MarshalTypes.PACKAGE;
        for (String bad : new String[] {p + "DateType", p + "DynamicCompositeType(a=>" + p + "Int32Type)", p + "LexicalUUIDType",
                "com.example.MyType", p + "ReversedType(" + p + "Int32Type)", p + "ListType(" + p + "Int32Type", p + "Int32Type(x)",
                p + "FrozenType(" + p + "Int32Type)", p + "ListType(" + p + "SetType(" + p + "Int32Type))", "", p + "VectorType(" + p
                + "FloatType , x)", p + "UserType(ks,6162,zz:" + p + "Int32Type)"}) {
            MarshalTypes.Refused e = assertThrows(MarshalTypes.Refused.class, () -> MarshalTypes.parse(bad), bad);
            assertTrue(e.getMessage().startsWith("type "), e.getMessage());
        }
    }

    /** Every random schema, with every codec and the options a schema keeps, prints as CQL that parses back equal. */
    @Test
    void printedSchemasParseBackEqual() {
        for (long seed = 1; seed <= 60; seed++) {
            String cql = Compressions.with(RandomSchemas.randomTable(seed), Compressions.ALL[(int) (seed % Compressions.ALL.length)]);
            if (seed % 4 == 0) cql += " AND gc_grace_seconds = 60 AND default_time_to_live = 7 AND bloom_filter_fp_chance = 0.2"
                    + " AND min_index_interval = 64 AND max_index_interval = 4096"
                    + " AND compaction = {'class': 'SizeTieredCompactionStrategy', 'only_purge_repaired_tombstones': 'true'}"
                    + " AND id = 5a1c395e-b41f-11e5-9f22-ba0be0483c18";
            TableSchema t = CqlParser.parse(cql);
            String printed = CqlPrinter.schema(t);
            TableSchema back = CqlParser.parse(printed);
            assertEquals(describe(t), describe(back), cql + "\n---\n" + printed);
            assertEquals(printed, CqlPrinter.schema(back), "printing is stable");
        }
    }

    static String describe(TableSchema t) {
        StringBuilder sb = new StringBuilder(t.keyspace() + "." + t.name() + " " + t.id() + "\n");
        for (ColumnMetadata[] g : new ColumnMetadata[][] {t.partitionKeyColumns(), t.clusteringColumns(), t.staticColumns(), t.regularColumns()}) {
            for (ColumnMetadata c : g) sb.append(c.role()).append(' ').append(c.name()).append(' ').append(c.type()).append(' ')
                    .append(c.marshalName()).append('\n');
        }
        return sb.append(t.compressionParams()).append(" bf=").append(t.bloomFilterFpChance()).append(" mii=").append(t.minIndexInterval())
                .append(" maxii=").append(t.maxIndexInterval()).append(" ttl=").append(t.defaultTimeToLiveSeconds()).append(" gc=")
                .append(t.gcGraceSeconds()).append(" opr=").append(t.onlyPurgeRepairedTombstones()).toString();
    }

    /** Our reserved words are Cassandra 5.0.9's, and a name is quoted exactly when Cassandra's maybeQuote quotes it. */
    @Test
    void quotesAsCassandraQuotes() throws Exception {
        CassandraOracle.init();
        java.lang.reflect.Field f = Class.forName("org.apache.cassandra.cql3.ReservedKeywords").getDeclaredField("reservedKeywords");
        f.setAccessible(true);
        Set<String> theirs = new TreeSet<>();
        for (Object o : (Set<?>) f.get(null)) theirs.add(o.toString().toLowerCase(java.util.Locale.ROOT));
        assertEquals(theirs, new TreeSet<>(CqlPrinter.RESERVED));
        for (String name : new String[] {"a", "from", "From", "key", "type", "a b", "x\"y", "_x", "1a", "é", "select", "ttl", "pk0", ""}) {
            assertEquals(org.apache.cassandra.cql3.ColumnIdentifier.maybeQuote(name), CqlPrinter.identifier(name), name);
        }
    }

    /** A compressed chunk bound reads back to the same bound through Cassandra's ceil(chunk / ratio). */
    @Test
    void minCompressRatioRoundTrips() {
        for (int chunk = 1024; chunk <= 1 << 20; chunk *= 2) {
            for (int max = 1; max <= chunk; max += 1 + max / 7) {
                double ratio = CqlPrinter.minCompressRatio(chunk, max);
                assertEquals(max, CompressionParams.maxCompressedLength(chunk, ratio), chunk + " / " + max);
                assertEquals(max, CompressionParams.maxCompressedLength(chunk, Double.parseDouble(Double.toString(ratio))), chunk + " / " + max);
            }
        }
    }
}

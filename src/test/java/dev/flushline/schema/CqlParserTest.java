package dev.flushline.schema;

import org.apache.cassandra.cql3.statements.schema.CreateTableStatement;
import org.apache.cassandra.schema.TableMetadata;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CqlParserTest {

    @BeforeAll
    static void init() {
        CassandraOracle.init();
    }

    static final String[] VALID = {
            "CREATE TABLE stress.stress_table (pk bigint, ck int, v1 text, v2 text, v3 text, v4 text, v5 text, PRIMARY KEY (pk, ck))",
            "create table ks.t (k int primary key, v text)",
            "CREATE TABLE IF NOT EXISTS ks.t (\n  p1 int,\n  p2 text,\n  c1 timeuuid,\n  c2 date,\n  s1 int STATIC,\n"
                    + "  s2 set<text> static,\n  v map<text, blob>,\n  PRIMARY KEY ((p1, p2), c1, c2)\n)"
                    + " WITH CLUSTERING ORDER BY (c1 DESC, c2 ASC) AND compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': 64};",
            "CREATE TABLE \"KS\".\"MixedCase\" (\"Key\" text, \"a\"\"b\" int, Other INT, PRIMARY KEY (\"Key\", \"a\"\"b\"))"
                    + " WITH CLUSTERING ORDER BY (\"a\"\"b\" DESC)",
            "CREATE TABLE ks.all_types (k frozen<map<text, int>>, c1 frozen<set<uuid>>, c2 frozen<list<varint>>, c3 decimal,"
                    + " a ascii, b bigint, bl blob, bo boolean, d date, de decimal, do double, f float, i inet, n int,"
                    + " sm smallint, t text, vc varchar, ti time, ts timestamp, tu timeuuid, tt tinyint, u uuid, vi varint,"
                    + " l list<int>, s set<timestamp>, m map<int, blob>, fl frozen<list<text>>, fm frozen<map<uuid, double>>,"
                    + " PRIMARY KEY (k, c1, c2, c3)) WITH compression = {'enabled': 'false'} AND comment = 'hi'"
                    + " AND gc_grace_seconds = 10 AND compaction = {'class': 'SizeTieredCompactionStrategy'}",
            "-- a comment\nCREATE TABLE ks.t2 (k int, c int, zz int, aa int, \"B\" int, b list<int>, a map<int,int>, PRIMARY KEY (k, c))"
                    + " /* block */ WITH id = 5a1c395e-b41f-11e5-9f22-ba0be0483c18 // trailing\n",
            "CREATE TABLE ks.t3 (k int, c1 int, c2 int, v int, PRIMARY KEY (k, c1, c2)) WITH CLUSTERING ORDER BY (c1 DESC)",
            "CREATE TABLE ks.t4 (k int PRIMARY KEY, v int) WITH compression = {} AND bloom_filter_fp_chance = 0.05"
                    + " AND default_time_to_live = 100 AND min_index_interval = 64",
    };

    @Test
    void matchesCassandraOnValidStatements() {
        for (String cql : VALID) {
            TableSchema ours = CqlParser.parse(cql);
            TableMetadata theirs = CreateTableStatement.parse(cql, ours.keyspace()).build();
            assertEquals(theirs.keyspace, ours.keyspace(), cql);
            assertEquals(theirs.name, ours.name(), cql);
            compare(theirs.partitionKeyColumns(), ours.partitionKeyColumns(), cql);
            compare(theirs.clusteringColumns(), ours.clusteringColumns(), cql);
            compare(theirs.staticColumns(), ours.staticColumns(), cql);
            compare(theirs.regularColumns(), ours.regularColumns(), cql);
            assertEquals(theirs.partitionKeyType.toString(), ours.partitionKeyMarshalName(), cql);
            if (cql.contains(" id = ")) assertEquals(theirs.id.asUUID(), ours.id(), cql);
            assertEquals(theirs.params.bloomFilterFpChance, ours.bloomFilterFpChance(), cql);
            assertEquals(theirs.params.minIndexInterval, ours.minIndexInterval(), cql);
            assertEquals(theirs.params.defaultTimeToLive, ours.defaultTimeToLiveSeconds(), cql);
            boolean theirsCompressed = theirs.params.compression.isEnabled();
            assertEquals(theirsCompressed, ours.compression() == TableSchema.Compression.LZ4, cql);
            if (theirsCompressed) assertEquals(theirs.params.compression.chunkLength(), ours.chunkLengthBytes(), cql);
            assertSameCompression(theirs.params.compression, ours.compressionParams(), cql);
        }
    }

    /** Same columns in the same order (Cassandra's Columns order is the sstable header order). */
    private static void compare(Iterable<org.apache.cassandra.schema.ColumnMetadata> theirs, ColumnMetadata[] ours, String cql) {
        List<String> t = new ArrayList<>(), o = new ArrayList<>();
        for (org.apache.cassandra.schema.ColumnMetadata c : theirs) t.add(c.name + " " + c.type);
        for (ColumnMetadata c : ours) o.add(c.name() + " " + c.marshalName());
        assertEquals(t, o, cql);
    }

    @Test
    void fieldByField() {
        TableSchema s = CqlParser.parse(VALID[2]);
        assertEquals("ks", s.keyspace());
        assertEquals("t", s.name());
        assertEquals(UUID.nameUUIDFromBytes("ks.t".getBytes(StandardCharsets.UTF_8)), s.id());
        assertEquals(32, s.idHex().length());
        assertEquals(2, s.partitionKeyColumns().length);
        assertEquals("p2", s.partitionKeyColumns()[1].name());
        assertEquals(CqlType.of(CqlType.Kind.TEXT), s.partitionKeyColumns()[1].type());
        assertEquals(2, s.clusteringColumns().length);
        assertTrue(s.clusteringColumns()[0].isReversed());
        assertFalse(s.clusteringColumns()[1].isReversed());
        assertEquals(2, s.staticColumns().length);
        assertEquals("s1", s.staticColumns()[0].name());
        assertTrue(s.staticColumns()[1].isComplex());
        assertEquals(1, s.staticComplexStart());
        assertEquals(1, s.regularColumns().length);
        assertEquals(CqlType.map(CqlType.of(CqlType.Kind.TEXT), CqlType.of(CqlType.Kind.BLOB), false),
                s.regularColumns()[0].type());
        assertEquals(TableSchema.Compression.LZ4, s.compression());
        assertEquals(64 * 1024, s.chunkLengthBytes());

        TableSchema q = CqlParser.parse(VALID[3]);
        assertEquals("KS", q.keyspace());
        assertEquals("MixedCase", q.name());
        assertEquals("Key", q.partitionKeyColumns()[0].name());
        assertEquals("a\"b", q.clusteringColumns()[0].name());
        assertEquals("other", q.regularColumns()[0].name());
        assertNull(q.column("Other"));

        TableSchema d = CqlParser.parse(VALID[1]);
        assertEquals(TableSchema.Compression.LZ4, d.compression());
        assertEquals(TableSchema.DEFAULT_CHUNK_LENGTH_BYTES, d.chunkLengthBytes());
        assertEquals(0, d.clusteringColumns().length);
        assertEquals(0.01, d.bloomFilterFpChance());

        assertEquals(TableSchema.Compression.NONE, CqlParser.parse(VALID[4]).compression());
        assertEquals(TableSchema.Compression.NONE, CqlParser.parse(VALID[7]).compression());
        assertEquals(UUID.fromString("5a1c395e-b41f-11e5-9f22-ba0be0483c18"), CqlParser.parse(VALID[5]).id());
        assertEquals(0.1, CqlParser.parse("CREATE TABLE ks.l (k int PRIMARY KEY) WITH compaction = "
                + "{'class': 'LeveledCompactionStrategy'}").bloomFilterFpChance());
        assertEquals(CqlParser.parse(VALID[1]).id(), CqlParser.parse(VALID[1]).id(), "deterministic id");
        // withCompression keeps the other options
        TableSchema w = CqlParser.parse(VALID[7]).withCompression(TableSchema.Compression.LZ4, 4096);
        assertEquals(100, w.defaultTimeToLiveSeconds());
        assertEquals(64, w.minIndexInterval());
        assertEquals(4096, w.chunkLengthBytes());
    }

    /**
     * {statement, message fragment}. The mark character ^ stands just before the construct the
     * error must point at; it is removed before parsing.
     */
    static final String[][] REFUSED = {
            {"CREATE TABLE ks.t (\n  k int PRIMARY KEY,\n  v int,\n  c ^counter\n)", "cannot mix counter and non-counter columns"},
            {"CREATE TABLE ks.t (k int PRIMARY KEY, v ^address)", "unknown type ks.address (no CREATE TYPE for it"},
            {"CREATE TABLE ks.t (k int PRIMARY KEY, v frozen<^address>)", "unknown type ks.address"},
            {"CREATE TABLE ks.t (k int PRIMARY KEY, v tuple<int, ^counter>)", "counters are not allowed inside tuples"},
            {"CREATE TABLE ks.t (k int PRIMARY KEY, v vector<float, ^0>)", "vectors may only have positive dimensions; given 0"},
            {"CREATE TABLE ks.t (k ^duration PRIMARY KEY, v int)", "a duration cannot be part of the PRIMARY KEY"},
            {"CREATE TABLE ks.t (k int PRIMARY KEY, v list<^list<int>>)", "non-frozen collections are not allowed inside collections"},
            {"CREATE TABLE ks.t (k int PRIMARY KEY, v set<^duration>)", "durations are not allowed inside sets"},
            {"CREATE TABLE ks.t (k int PRIMARY KEY, v frozen<^int>)", "frozen<> is only allowed on collections, tuples, vectors and user-defined types"},
            {"CREATE TABLE ks.t (k int PRIMARY KEY, v ^'org.apache.cassandra.db.marshal.BytesType')", "custom types"},
            {"CREATE TABLE ks.t (k int PRIMARY KEY, s int ^STATIC)", "static columns need clustering columns"},
            {"CREATE TABLE ks.t (k ^list<int> PRIMARY KEY, v int)", "non-frozen collection"},
            {"CREATE TABLE ks.t (k int, c ^set<int>, PRIMARY KEY (k, c))", "non-frozen collection"},
            {"CREATE TABLE ks.t (k int, c int ^STATIC, PRIMARY KEY (k, c))", "cannot be part of the PRIMARY KEY"},
            {"CREATE TABLE ks.t (k int, v int^)", "no PRIMARY KEY"},
            {"CREATE TABLE ks.t (k int PRIMARY KEY, v int, ^PRIMARY KEY (k))", "more than one PRIMARY KEY"},
            {"CREATE TABLE ks.t (k int, v int, PRIMARY KEY (^x))", "unknown column 'x'"},
            {"CREATE TABLE ks.t (k int, v int, PRIMARY KEY (k, ^k))", "appears twice"},
            {"CREATE TABLE ks.t (k int, ^k text, PRIMARY KEY (k))", "defined twice"},
            {"CREATE TABLE ^t (k int PRIMARY KEY)", "keyspace"},
            {"CREATE INDEX ON ks.t (v)^", "the schema defines no table (expected a CREATE TABLE statement; skipped CREATE INDEX at line 1)"},
            {"CREATE CUSTOM INDEX ON ks.t (v) USING 'x';^", "skipped CREATE CUSTOM INDEX at line 1"},
            {"CREATE MATERIALIZED VIEW ks.mv AS SELECT * FROM ks.t;\n^", "skipped CREATE MATERIALIZED VIEW at line 1"},
            {"CREATE TYPE ks.address (street text)^", "the schema defines no table"},
            {"^INSERT INTO ks.t (k) VALUES (1)", "expected a CREATE statement"},
            {"CREATE TABLE ks.t (k int PRIMARY KEY); CREATE TABLE ks.^t (k int PRIMARY KEY)", "table ks.t is defined twice"},
            {"CREATE TABLE ks.t (k int PRIMARY KEY) WITH ^COMPACT STORAGE", "COMPACT STORAGE"},
            {"CREATE TABLE ks.t (k int PRIMARY KEY) WITH compression = ^{'class': 'snappycompressor'}", "is not one of Cassandra's compressors"},
            {"CREATE TABLE ks.t (k int PRIMARY KEY) WITH compression = ^{'class': 'ZstdCompressor', 'compression_level': 23}", "compression_level must be between"},
            {"CREATE TABLE ks.t (k int PRIMARY KEY) WITH compression = ^{'chunk_length_in_kb': 16}", "missing sub-option 'class'"},
            {"CREATE TABLE ks.t (k int PRIMARY KEY) WITH compression = ^{'class': 'LZ4Compressor', 'chunk_length_in_kb': 3}", "power of 2"},
            {"CREATE TABLE ks.t (k int PRIMARY KEY) WITH compression = ^{'enabled': false, 'class': 'LZ4Compressor'}", "'enabled': false"},
            {"CREATE TABLE ks.t (k int PRIMARY KEY) WITH compression = ^{'class': 'LZ4Compressor', 'min_compress_ratio': 0.5}", "min_compress_ratio must be 0 or at least 1"},
            {"CREATE TABLE ks.t (k int PRIMARY KEY) WITH ^colour = 'red'", "unknown table option 'colour'"},
            {"CREATE TABLE ks.t (k int PRIMARY KEY) WITH comment = 'a' AND ^comment = 'b'", "given twice"},
            {"CREATE TABLE ks.t (k int PRIMARY KEY) WITH id = ^'nope'", "must be a UUID"},
            {"CREATE TABLE ks.t (k int, c int, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (^v DESC)", "not a clustering column"},
            {"CREATE TABLE ks.t (k int, c int, d int, PRIMARY KEY (k, c, d)) WITH CLUSTERING ORDER BY (^d DESC, c ASC)", "in their order"},
            {"CREATE TABLE ks.t (k int, c int, PRIMARY KEY (k, c)) WITH CLUSTERING ORDER BY (c^)", "ASC or DESC"},
            {"CREATE TABLE ks.t (k int PRIMARY KEY, v int^", "expected ')'"},
            {"CREATE TABLE ks.t (k int PRIMARY KEY, ^\"v int)", "unterminated quoted identifier"},
            {"CREATE TABLE ks.t (\r\n\tk int PRIMARY KEY, v int,\n\t/* multi\nline */ w ^counter)", "cannot mix counter and non-counter columns"},
            // found by CqlParserFuzzTest: these names would be directories outside the output directory
            {"CREATE TABLE ^\"..\".t (k int PRIMARY KEY)", "keyspace name must be 1 to 48 letters, digits or underscores, not \"..\""},
            {"CREATE TABLE ks.^\"a/b\" (k int PRIMARY KEY)", "table name must be 1 to 222 letters, digits or underscores, not \"a/b\""},
            {"CREATE TABLE ks.^\"\" (k int PRIMARY KEY)", "table name must be"},
            {"CREATE TABLE ^" + "k".repeat(49) + ".t (k int PRIMARY KEY)", "keyspace name must be 1 to 48"},
            {"CREATE TABLE ks.^" + "t".repeat(223) + " (k int PRIMARY KEY)", "table name must be 1 to 222"},
            {"CREATE TABLE ^\"k\u00e9\".t (k int PRIMARY KEY)", "keyspace name must be"},
            // found by CqlParserFuzzTest: 100k of these overflowed the stack
            {"CREATE TABLE ks.t (k int PRIMARY KEY, v frozen<^frozen<list<int>>>)", "freeze a collection once"},
    };

    @Test
    void refusedConstructsNameThemselvesAndWhere() {
        for (String[] r : REFUSED) {
            String marked = r[0];
            int at = marked.indexOf('^');
            String cql = marked.substring(0, at) + marked.substring(at + 1);
            int line = 1, lineStart = 0;
            for (int i = 0; i < at; i++) {
                if (cql.charAt(i) == '\n') {
                    line++;
                    lineStart = i + 1;
                }
            }
            SchemaException e = assertThrows(SchemaException.class, () -> CqlParser.parse(cql), cql);
            String prefix = "line " + line + ", column " + (at - lineStart + 1) + ": ";
            assertTrue(e.getMessage().startsWith(prefix), cql + " -> " + e.getMessage() + " (wanted " + prefix + ")");
            assertTrue(e.getMessage().contains(r[1]), cql + " -> " + e.getMessage());
        }
    }

    @Test
    void namesAreCheckedAsCassandraChecksThem() {
        // the longest names are fine
        String longest = "t".repeat(222);
        TableSchema s = CqlParser.parse("CREATE TABLE \"K_1" + "k".repeat(45) + "\"." + longest + " (k int PRIMARY KEY)");
        assertEquals(longest, s.name());
        assertEquals(48, s.keyspace().length());
        // {keyspace, table} as CQL spells them, and the keyspace as it resolves (the oracle takes it apart)
        String[][] bad = {{"\"..\"", "t", ".."}, {"ks", "\"a/b\"", "ks"}, {"ks", "\"\"", "ks"}, {"k".repeat(49), "t", "k".repeat(49)},
                {"\"k\u00e9\"", "t", "k\u00e9"}};
        for (String[] b : bad) {
            String cql = "CREATE TABLE " + b[0] + "." + b[1] + " (k int PRIMARY KEY)";
            assertThrows(SchemaException.class, () -> CqlParser.parse(cql), cql);
            // Cassandra checks the keyspace name when the keyspace is created, the table's with the table
            boolean cassandraRefuses = !org.apache.cassandra.schema.SchemaConstants.isValidCharsName(b[2])
                    || b[2].length() > org.apache.cassandra.schema.SchemaConstants.NAME_LENGTH;
            try {
                CreateTableStatement.parse(cql, b[2]).build().validate();
            } catch (RuntimeException e) {
                cassandraRefuses = true;
            }
            assertTrue(cassandraRefuses, cql);
        }
    }

    /** Found by CqlParserFuzzTest: a StackOverflowError, and messages that repeated a 100 KB identifier. */
    @Test
    void deepNestingAndLongIdentifiersAreRefusedBriefly() {
        String deep = "CREATE TABLE ks.t (k int PRIMARY KEY, v " + "frozen<".repeat(100_000) + "list<int>" + ">".repeat(100_000) + ")";
        assertEquals("line 1, column 48: frozen<frozen<...>> is not allowed: freeze a collection once",
                assertThrows(SchemaException.class, () -> CqlParser.parse(deep)).getMessage());
        String name = "x".repeat(100_000);
        String shown = "x".repeat(80) + "... (100000 chars)";
        assertEquals("line 1, column 22: unknown type ks." + shown + " (no CREATE TYPE for it before this statement)",
                assertThrows(SchemaException.class, () -> CqlParser.parse("CREATE TABLE ks.t (v " + name + ", k int PRIMARY KEY)")).getMessage());
        assertEquals("line 1, column 100038: column '" + shown + "' is defined twice",
                assertThrows(SchemaException.class, () -> CqlParser.parse("CREATE TABLE ks.t (" + name + " int PRIMARY KEY, " + name + " int)"))
                        .getMessage());
        assertEquals("line 1, column 19: expected '(' but found \"" + shown + "\"",
                assertThrows(SchemaException.class, () -> CqlParser.parse("CREATE TABLE ks.t \"" + name + "\"")).getMessage());
    }

    /** Codec, chunk length, max compressed length and the stored options (in CompressionInfo.db order) are Cassandra's. */
    static void assertSameCompression(org.apache.cassandra.schema.CompressionParams theirs, CompressionParams ours, String what) {
        assertEquals(theirs.isEnabled(), ours.isEnabled(), what);
        if (!theirs.isEnabled()) return;
        assertEquals(theirs.getSstableCompressor().getClass().getSimpleName(), ours.codec().compressorName(), what);
        assertEquals(theirs.chunkLength(), ours.chunkLengthBytes(), what);
        assertEquals(theirs.maxCompressedLength(), ours.maxCompressedLengthBytes(), what);
        List<String> pairs = new ArrayList<>();
        theirs.getOtherOptions().forEach((k, v) -> {
            pairs.add(k);
            pairs.add(v);
        });
        assertEquals(pairs, List.of(ours.optionPairs()), what);
    }

    /**
     * Every compression map we could think of, accepted or refused by Cassandra 5.0.9's CREATE TABLE:
     * we accept exactly what it accepts, with the same codec, chunk length, max compressed length and
     * stored options.
     */
    static final String[] COMPRESSION_MAPS = {
            "{}", "{'enabled': false}", "{'enabled': 'false'}", "{'enabled': 'no'}", "{'enabled': 'true'}", "{'enabled': true}",
            "{'enabled': true, 'class': 'LZ4Compressor'}", "{'enabled': 'FALSE'}", "{'enabled': false, 'class': 'LZ4Compressor'}",
            "{'enabled': false, 'chunk_length_in_kb': 16}",
            "{'class': 'LZ4Compressor'}", "{'class': 'org.apache.cassandra.io.compress.LZ4Compressor'}", "{'class': 'ZstdCompressor'}",
            "{'class': 'org.apache.cassandra.io.compress.ZstdCompressor'}", "{'class': 'SnappyCompressor'}",
            "{'class': 'DeflateCompressor'}", "{'class': 'org.apache.cassandra.io.compress.DeflateCompressor'}",
            "{'class': 'NoopCompressor'}", "{'class': 'lz4compressor'}", "{'class': ''}", "{'class': 'io.compress.LZ4Compressor'}",
            "{'class': 'java.lang.String'}", "{'class': 'Lz4Compressor'}", "{'chunk_length_in_kb': 16}",
            "{'class': 'LZ4Compressor', 'chunk_length_in_kb': 1}", "{'class': 'LZ4Compressor', 'chunk_length_in_kb': 4}",
            "{'class': 'SnappyCompressor', 'chunk_length_in_kb': 64}", "{'class': 'ZstdCompressor', 'chunk_length_in_kb': 1048576}",
            "{'class': 'LZ4Compressor', 'chunk_length_in_kb': 2097152}", "{'class': 'LZ4Compressor', 'chunk_length_in_kb': 2097151}",
            "{'class': 'LZ4Compressor', 'chunk_length_in_kb': 0}", "{'class': 'LZ4Compressor', 'chunk_length_in_kb': -4}",
            "{'class': 'LZ4Compressor', 'chunk_length_in_kb': 3}", "{'class': 'LZ4Compressor', 'chunk_length_in_kb': '16'}",
            "{'class': 'LZ4Compressor', 'chunk_length_in_kb': 'abc'}", "{'class': 'LZ4Compressor', 'chunk_length_in_kb': '+16'}",
            "{'class': 'LZ4Compressor', 'chunk_length_in_kb': '16.0'}", "{'class': 'LZ4Compressor', 'chunk_length_in_kb': ' 16'}",
            "{'class': 'LZ4Compressor', 'chunk_length_kb': 16}", "{'class': 'LZ4Compressor', 'crc_check_chance': 0.5}",
            "{'class': 'ZstdCompressor', 'max_compressed_length': 8192}", "{'class': 'LZ4Compressor', 'sstable_compression': 'x'}",
            "{'class': 'LZ4Compressor', 'min_compress_ratio': 0}", "{'class': 'LZ4Compressor', 'min_compress_ratio': 1}",
            "{'class': 'ZstdCompressor', 'min_compress_ratio': 1.1}", "{'class': 'DeflateCompressor', 'min_compress_ratio': '1.1'}",
            "{'class': 'LZ4Compressor', 'min_compress_ratio': 0.5}", "{'class': 'LZ4Compressor', 'min_compress_ratio': -1}",
            "{'class': 'SnappyCompressor', 'min_compress_ratio': 'NaN'}", "{'class': 'LZ4Compressor', 'min_compress_ratio': 'Infinity'}",
            "{'class': 'LZ4Compressor', 'min_compress_ratio': 'abc'}", "{'class': 'LZ4Compressor', 'min_compress_ratio': '1e1'}",
            "{'class': 'LZ4Compressor', 'min_compress_ratio': 100000}", "{'class': 'NoopCompressor', 'min_compress_ratio': 3.7}",
            "{'class': 'LZ4Compressor', 'min_compress_ratio': '2d'}", "{'class': 'LZ4Compressor', 'min_compress_ratio': ' 2 '}",
            "{'class': 'LZ4Compressor', 'chunk_length_in_kb': 64, 'min_compress_ratio': 1.3}",
            "{'class': 'LZ4Compressor', 'lz4_compressor_type': 'fast'}", "{'class': 'LZ4Compressor', 'lz4_compressor_type': 'high'}",
            "{'class': 'LZ4Compressor', 'lz4_compressor_type': 'HIGH'}", "{'class': 'LZ4Compressor', 'lz4_compressor_type': 'medium'}",
            "{'class': 'LZ4Compressor', 'lz4_high_compressor_level': 1}", "{'class': 'LZ4Compressor', 'lz4_high_compressor_level': 17}",
            "{'class': 'LZ4Compressor', 'lz4_high_compressor_level': 0}", "{'class': 'LZ4Compressor', 'lz4_high_compressor_level': 18}",
            "{'class': 'LZ4Compressor', 'lz4_high_compressor_level': 'x'}",
            "{'class': 'LZ4Compressor', 'lz4_compressor_type': 'high', 'lz4_high_compressor_level': 12}",
            "{'class': 'LZ4Compressor', 'lz4_high_compressor_level': 12, 'lz4_compressor_type': 'high'}",
            "{'class': 'LZ4Compressor', 'lz4_compressor_type': 'fast', 'lz4_high_compressor_level': 5}",
            "{'class': 'ZstdCompressor', 'compression_level': 3}", "{'class': 'ZstdCompressor', 'compression_level': '03'}",
            "{'class': 'ZstdCompressor', 'compression_level': -131072}", "{'class': 'ZstdCompressor', 'compression_level': -131073}",
            "{'class': 'ZstdCompressor', 'compression_level': 22}", "{'class': 'ZstdCompressor', 'compression_level': 23}",
            "{'class': 'ZstdCompressor', 'compression_level': 0}", "{'class': 'ZstdCompressor', 'compression_level': 'x'}",
            "{'class': 'ZstdCompressor', 'compression_level': -5, 'chunk_length_in_kb': 32}",
            "{'class': 'SnappyCompressor', 'compression_level': 3}", "{'class': 'DeflateCompressor', 'level': 6}",
            "{'class': 'NoopCompressor', 'compression_level': 3}", "{'class': 'LZ4Compressor', 'compression_level': 3}",
            "{'class': 'LZ4Compressor', 'foo': 'bar'}", "{'class': 'ZstdCompressor', 'lz4_compressor_type': 'fast'}",
            "{'CLASS': 'LZ4Compressor'}", "{'class': 'LZ4Compressor', 'Chunk_Length_In_KB': 16}",
    };

    @Test
    void compressionOptionsAsCassandra() {
        int accepted = 0, refused = 0;
        for (String map : COMPRESSION_MAPS) {
            String cql = "CREATE TABLE ks.c (k int PRIMARY KEY, v text) WITH compression = " + map;
            TableMetadata theirs;
            try {
                theirs = CreateTableStatement.parse(cql, "ks").build();
                theirs.params.validate();
            } catch (RuntimeException e) {
                theirs = null;
            }
            TableSchema ours;
            try {
                ours = CqlParser.parse(cql);
            } catch (SchemaException e) {
                assertNull(theirs, cql + ": Cassandra accepts it, we refuse: " + e.getMessage());
                assertTrue(e.getMessage().startsWith("line 1, column " + (cql.indexOf('{') + 1) + ": compression"), e.getMessage());
                refused++;
                continue;
            }
            assertTrue(theirs != null, cql + ": Cassandra refuses it, we accept " + ours.compressionParams());
            assertSameCompression(theirs.params.compression, ours.compressionParams(), cql);
            accepted++;
        }
        assertTrue(accepted >= 30 && refused >= 30, accepted + " accepted, " + refused + " refused");
    }

    @Test
    void cassandraAlsoRefusesWhatWeRefuseForCqlReasons() {
        // Sanity check of the refusal list: statements refused for CQL reasons (not for our own
        // limits) must be refused by Cassandra as well.
        int[] cqlErrors = {0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 16, 17, 18, 27, 28, 29, 30, 31, 32, 34, 36, 37, 38, 41};
        for (int k : cqlErrors) {
            String cql = REFUSED[k][0].replace("^", "");
            assertThrows(Exception.class, () -> CreateTableStatement.parse(cql, "ks").build(), cql);
        }
    }
}

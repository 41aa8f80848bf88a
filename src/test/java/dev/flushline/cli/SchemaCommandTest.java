package dev.flushline.cli;

import dev.flushline.Main;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.flush.FlushWriter;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.CassandraReferenceWriter;
import dev.flushline.oracle.FixedClock;
import dev.flushline.oracle.Partition;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Descriptor;
import dev.flushline.sstable.EncodingStats;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.SerializationHeader;
import dev.flushline.sstable.StatisticsReader;
import dev.flushline.sstable.TableDirectory;
import dev.flushline.testing.Compressions;
import dev.flushline.testing.RandomSchemas;
import dev.flushline.testing.RandomUpdates;
import org.apache.cassandra.config.Config;
import org.apache.cassandra.schema.TableMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code flushline schema} on sstables Cassandra 5.0.9 wrote (its flush writer, and
 * CQLSSTableWriter): the printed CQL parses with our CqlParser and with Cassandra's own parser, into
 * the table the files were written for (the key columns renamed pk0.., ck0..): every column's type
 * as the header spells it, DESC clustering, compression with its options, the bloom filter chance;
 * and reading the files with the printed schema gives what reading them with the original gives
 * (dump, byte for byte, and verify --extended). With --schema, a matching table is printed and a
 * mismatching one refused with the file's name.
 */
class SchemaCommandTest {
    static final long NOW = FixedClock.FIXED_MILLIS / 1000;

    @TempDir
    Path tmp;

    static String[] run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int status = Main.run(args, System.in, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new String[] {Integer.toString(status), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8)};
    }

    /** Cassandra's flush writer's sstable of random operations on {@code cql}'s table, in its table directory under {@code root}. */
    Path cassandraWritten(String cql, long seed, Path root) throws IOException {
        TableSchema schema = CqlParser.parse(cql);
        Memtable m = new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP);
        RandomUpdates gen = new RandomUpdates(schema, seed, NOW, 8, 6);
        for (PartitionUpdate u : gen.next(120)) m.apply(u);
        m.seal();
        Path scratch = Descriptor.tableDir(tmp.resolve("scratch" + seed), schema.keyspace(), schema.name(), schema.idHex());
        try {
            new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), TableDirectory.open(scratch), true, null, 0);
        } finally {
            m.discard();
        }
        List<Partition> content = CassandraReader.readAll(scratch, cql);
        Path dir = Descriptor.tableDir(root, schema.keyspace(), schema.name(), schema.idHex());
        CassandraReferenceWriter.writeAsFlush(dir, cql, content, EncodingStats.TIMESTAMP_EPOCH, EncodingStats.DELETION_TIME_EPOCH, 0,
                content.size(), null, Config.FlushCompression.table);
        return dir;
    }

    /** Name and marshal name of every column the header has, in the order ColumnMetadata gives them. */
    static Map<String, String> headerColumns(SerializationHeader h) {
        Map<String, String> m = new TreeMap<>();
        for (ColumnMetadata c : h.staticColumns()) m.put(c.name(), "static " + c.marshalName());
        for (ColumnMetadata c : h.regularColumns()) m.put(c.name(), c.marshalName());
        return m;
    }

    static Map<String, String> nonKeyColumns(TableSchema t) {
        Map<String, String> m = new TreeMap<>();
        for (ColumnMetadata c : t.staticColumns()) m.put(c.name(), "static " + c.marshalName());
        for (ColumnMetadata c : t.regularColumns()) m.put(c.name(), c.marshalName());
        return m;
    }

    /** The recovered table is the original one, key columns renamed; checked also through Cassandra's parser. */
    void assertRecovers(String originalCql, String printed, Path dir, boolean namesFromDirectory) throws IOException {
        TableSchema original = CqlParser.parse(originalCql);
        TableSchema recovered = CqlParser.parse(printed);
        String what = originalCql + "\nprinted:\n" + printed;
        if (namesFromDirectory) {
            assertEquals(original.keyspace(), recovered.keyspace(), what);
            assertEquals(original.name(), recovered.name(), what);
            assertEquals(original.id(), recovered.id(), what);
        }
        assertEquals(original.partitionKeyMarshalName(), recovered.partitionKeyMarshalName(), what);
        assertEquals(original.partitionKeyColumns().length, recovered.partitionKeyColumns().length, what);
        for (int i = 0; i < recovered.partitionKeyColumns().length; i++) {
            assertEquals("pk" + i, recovered.partitionKeyColumns()[i].name(), what);
        }
        assertEquals(original.clusteringColumns().length, recovered.clusteringColumns().length, what);
        for (int i = 0; i < original.clusteringColumns().length; i++) {
            ColumnMetadata o = original.clusteringColumns()[i], r = recovered.clusteringColumns()[i];
            assertEquals("ck" + i, r.name(), what);
            assertEquals(o.marshalName(), r.marshalName(), what);
            assertEquals(o.isReversed(), r.isReversed(), what);
        }
        // Exactly the columns the headers name, with their types: the union over the sstables.
        Map<String, String> header = new TreeMap<>();
        for (SSTableFiles f : SSTableFiles.inDirectory(dir)) header.putAll(headerColumns(StatisticsReader.read(f, original, false).header));
        assertTrue(!header.isEmpty(), what);
        assertEquals(header, nonKeyColumns(recovered), what);
        for (Map.Entry<String, String> e : header.entrySet()) assertEquals(e.getValue(), nonKeyColumns(original).get(e.getKey()), what);
        assertEquals(original.compressionParams(), recovered.compressionParams(), what);
        assertEquals(original.bloomFilterFpChance(), recovered.bloomFilterFpChance(), what);

        // Cassandra's own parser takes the printed CQL, with the same types for every column.
        TableMetadata theirs = CassandraOracle.parseTable(printed);
        TableMetadata ref = CassandraOracle.parseTable(originalCql);
        assertEquals(ref.partitionKeyType.toString(), theirs.partitionKeyType.toString(), what);
        assertEquals(ref.comparator.subtypes().toString(), theirs.comparator.subtypes().toString(), what);
        for (ColumnMetadata c : recovered.regularColumns()) {
            assertEquals(ref.getColumn(new org.apache.cassandra.cql3.ColumnIdentifier(c.name(), true)).type.toString(),
                    theirs.getColumn(new org.apache.cassandra.cql3.ColumnIdentifier(c.name(), true)).type.toString(), what);
        }
        // (Cassandra's CompressionParams.equals compares compressor instances, which only some codecs cache: compare the options.)
        assertEquals(ref.params.compression.asMap(), theirs.params.compression.asMap(), what);
    }

    /** dump with the printed schema prints what dump with the original prints; verify --extended passes with it. */
    void assertReadsAlike(String originalCql, String printed, Path dir) throws IOException {
        Path orig = Files.writeString(tmp.resolve("original.cql"), originalCql);
        Path rec = Files.writeString(tmp.resolve("recovered.cql"), printed);
        String[] a = run("dump", "--schema", orig.toString(), "--now", Long.toString(NOW), dir.toString());
        String[] b = run("dump", "--schema", rec.toString(), "--now", Long.toString(NOW), dir.toString());
        assertEquals("0", a[0], a[2]);
        assertEquals("0", b[0], b[2]);
        assertTrue(a[1].length() > 100, a[1]);
        assertEquals(a[1], b[1], "dump with the recovered schema");
        String[] v = run("verify", "--schema", rec.toString(), "--extended", dir.toString());
        assertEquals("0", v[0], v[1] + v[2]);
    }

    /** Random schemas (every type, UDTs frozen and not, DESC, statics, 70 columns), each with another codec. */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
    void recoversRandomSchemasFromCassandrasFiles(long seed) throws IOException {
        CassandraOracle.init();
        FixedClock.installIfPossible();
        String cql = Compressions.with(RandomSchemas.randomTable(seed), Compressions.ALL[(int) (seed % Compressions.ALL.length)]);
        Path dir = cassandraWritten(cql, seed, tmp.resolve("data"));
        String[] r = run("schema", dir.toString());
        assertEquals("0", r[0], r[2]);
        assertEquals("", r[2], "nothing to note");
        assertRecovers(cql, r[1], dir, true);
        assertReadsAlike(cql, r[1], dir);
        // One component path names the same table.
        String[] one = run("schema", SSTableFiles.inDirectory(dir).get(0).path(dev.flushline.sstable.Component.STATISTICS).toString());
        assertEquals("0", one[0], one[2]);
        assertEquals(r[1], one[1]);
        assertJsonDescribes(cql, r[1], run("schema", "--json", dir.toString()));
    }

    /**
     * {@code schema --json} says what the CQL says, member by member: the columns with their CQL
     * types and clustering order as the printed CREATE TABLE has them, the user-defined types'
     * fields, and the compression map that Cassandra's own TableParams give for the original table.
     */
    static void assertJsonDescribes(String originalCql, String printedCql, String[] r) throws IOException {
        assertEquals("0", r[0], r[2]);
        assertEquals("", r[2], "nothing to note");
        assertEquals(1, r[1].split("\n", -1).length - 1, "one line: " + r[1]);
        com.fasterxml.jackson.databind.JsonNode j = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r[1]);
        TableSchema printed = CqlParser.parse(printedCql);
        String what = r[1];
        assertEquals("schema", j.get("command").asText(), what);
        assertEquals(0, j.get("status").asInt(), what);
        assertEquals(printedCql, j.get("cql").asText(), what);
        assertEquals(printed.keyspace(), j.get("keyspace").asText(), what);
        assertEquals(printed.name(), j.get("table").asText(), what);
        assertEquals(printed.id().toString(), j.get("id").asText(), what);
        assertEquals("placeholders", j.get("key_names").asText(), what);
        String[] groups = {"partition_key", "clustering", "static", "regular"};
        ColumnMetadata[][] columns = {printed.partitionKeyColumns(), printed.clusteringColumns(), printed.staticColumns(),
                printed.regularColumns()};
        for (int g = 0; g < groups.length; g++) {
            com.fasterxml.jackson.databind.JsonNode list = j.get(groups[g]);
            assertEquals(columns[g].length, list.size(), groups[g] + " in " + what);
            for (int i = 0; i < columns[g].length; i++) {
                ColumnMetadata c = columns[g][i];
                assertEquals(c.name(), list.get(i).get("name").asText(), what);
                assertEquals(dev.flushline.schema.CqlPrinter.type(c.type()), list.get(i).get("type").asText(), what);
                if (groups[g].equals("clustering")) assertEquals(c.isReversed() ? "DESC" : "ASC", list.get(i).get("order").asText(), what);
                // the CQL's own column line spells the same type
                assertTrue(printedCql.contains(dev.flushline.schema.CqlPrinter.identifier(c.name()) + " " + list.get(i).get("type").asText()),
                        c.name() + " in " + what);
            }
        }
        List<dev.flushline.schema.CqlType> udts = dev.flushline.schema.CqlPrinter.userTypes(printed);
        assertEquals(udts.size(), j.get("types").size(), what);
        for (int i = 0; i < udts.size(); i++) {
            com.fasterxml.jackson.databind.JsonNode t = j.get("types").get(i);
            assertEquals(udts.get(i).keyspace(), t.get("keyspace").asText(), what);
            assertEquals(udts.get(i).typeName(), t.get("name").asText(), what);
            assertEquals(udts.get(i).size(), t.get("fields").size(), what);
            for (int f = 0; f < udts.get(i).size(); f++) assertEquals(udts.get(i).fieldName(f), t.get("fields").get(f).get("name").asText(), what);
        }
        // Cassandra's compression map of the table as it was created (a ratio compared as a number: the printed one is the shortest that gives the same bound).
        Map<String, String> theirs = new TreeMap<>(CassandraOracle.parseTable(originalCql).params.compression.asMap());
        Map<String, String> ours = new TreeMap<>();
        j.get("compression").fields().forEachRemaining(e -> ours.put(e.getKey(), e.getValue().asText()));
        String theirRatio = theirs.remove("min_compress_ratio"), ourRatio = ours.remove("min_compress_ratio");
        assertEquals(theirs, ours, what);
        if (theirRatio != null || ourRatio != null) assertEquals(Double.parseDouble(theirRatio), Double.parseDouble(ourRatio), 1e-9, what);
        assertEquals(printed.bloomFilterFpChance(), j.get("bloom_filter_fp_chance").asDouble(), what);
        assertEquals(1, j.get("sstables").asInt(), what);
        assertEquals(0, j.get("notes").size(), what);
    }

    /** Names that need quoting (reserved words, case, spaces), a column named like a generated key name, and two sstables that each hold some of the columns. */
    @Test
    void quotedNamesClashingKeyNamesAndColumnsSpreadOverSSTables() throws IOException {
        CassandraOracle.init();
        FixedClock.installIfPossible();
        String cql = "CREATE TYPE ks.\"Point\" (\"X\" int, \"from\" frozen<list<text>>);\n"
                + "CREATE TABLE ks.\"Odd\" (\"from\" int, \"Ck\" text, \"select\" int static, pk0 text, ck0 frozen<\"Point\">,"
                + " \"a b\" map<text, int>, p \"Point\", PRIMARY KEY (\"from\", \"Ck\")) WITH CLUSTERING ORDER BY (\"Ck\" DESC)"
                + " AND compression = " + Compressions.LZ4_HIGH + " AND bloom_filter_fp_chance = 0.05";
        Path root = tmp.resolve("data");
        Path dir = cassandraWritten(cql, 21, root);
        cassandraWritten(cql, 22, root); // a second sstable in the same directory
        String[] r = run("schema", dir.toString());
        assertEquals("0", r[0], r[2]);
        assertTrue(r[1].contains("pk0_ ") && r[1].contains("\"select\" int static") && r[1].contains("\"a b\" map<text, int>")
                && r[1].contains("CREATE TYPE ks.\"Point\"") && r[1].contains("\"from\" frozen<list<text>>")
                && r[1].contains("CLUSTERING ORDER BY (ck0_ DESC)") && r[1].contains("bloom_filter_fp_chance = 0.05"), r[1]);
        TableSchema recovered = CqlParser.parse(r[1]);
        assertEquals("pk0_", recovered.partitionKeyColumns()[0].name(), r[1]);
        assertEquals("ck0_", recovered.clusteringColumns()[0].name(), r[1]);
        assertEquals("pk0_", recovered.partitionKeyColumns()[0].name());
        assertReadsAlike(cql, r[1], dir);
    }

    /** CQLSSTableWriter's files, with each codec: not in a table directory, so the names are placeholders. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"none", "zstd", "deflate", "zstd_ratio"})
    void recoversFromCqlSSTableWriterFiles(String codec) throws IOException {
        CassandraOracle.init();
        String map = switch (codec) {
            case "none" -> Compressions.NONE;
            case "zstd" -> Compressions.ZSTD;
            case "deflate" -> Compressions.DEFLATE;
            default -> Compressions.ZSTD_RATIO;
        };
        String cql = Compressions.with(String.format(CassandraWrittenSSTablesTest.CQL, "schema_" + codec), map);
        Path dir = Files.createDirectories(tmp.resolve("bulk"));
        CassandraWrittenSSTablesTest.writeWithCqlSSTableWriter(dir, cql, "ks.kinds_schema_" + codec, 200);
        String[] r = run("schema", dir.toString());
        assertEquals("0", r[0], r[2]);
        assertTrue(r[1].contains("CREATE TABLE unknown_keyspace.unknown_table ("), r[1]);
        assertRecovers(cql, r[1], dir, false);
        assertReadsAlike(cql, r[1].replace("unknown_keyspace.unknown_table", "ks.kinds_schema_" + codec), dir);
        // load takes the printed schema as it is: operations on the generated key names, then verify and dump them with it.
        Path printed = Files.writeString(tmp.resolve("printed.cql"), r[1]);
        Path ops = Files.writeString(tmp.resolve("ops.jsonl"), "{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk0\":1,\"ck0\":\"a\","
                + "\"v\":5,\"tags\":[\"x\"]}}\n{\"op\":\"delete\",\"timestamp\":2,\"key\":{\"pk0\":2}}\n");
        String[] load = run("load", "--schema", printed.toString(), "--input", ops.toString(), "--out", tmp.resolve("loaded").toString());
        assertEquals("0", load[0], load[2]);
        Path loaded = tmp.resolve("loaded").resolve("unknown_keyspace");
        String[] v = run("verify", "--schema", printed.toString(), "--extended", loaded.resolve(Files.list(loaded).findFirst().orElseThrow()
                .getFileName()).toString());
        assertEquals("0", v[0], v[1] + v[2]);
        String[] again = run("schema", loaded.resolve(Files.list(loaded).findFirst().orElseThrow().getFileName()).toString());
        assertEquals("0", again[0], again[2]);
        assertTrue(again[1].contains("CREATE TABLE unknown_keyspace.unknown_table (\n    pk0 int,\n    ck0 text,"), again[1]);
    }

    @Test
    void withSchemaChecksTheFilesAndPrintsTheTable() throws IOException {
        CassandraOracle.init();
        FixedClock.installIfPossible();
        String cql = "CREATE TYPE ks.addr (street text, zip int);\n"
                + "CREATE TABLE ks.chk (id bigint, at timestamp, a frozen<addr>, n int, PRIMARY KEY (id, at))"
                + " WITH CLUSTERING ORDER BY (at DESC) AND compression = " + Compressions.SNAPPY + " AND gc_grace_seconds = 3600";
        Path dir = cassandraWritten(cql, 31, tmp.resolve("data"));
        Path schemaFile = Files.writeString(tmp.resolve("chk.cql"), "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy',"
                + " 'replication_factor': 1};\n" + cql + ";\nCREATE TABLE ks.other (k int PRIMARY KEY);");
        String[] r = run("schema", dir.toString(), "--schema", schemaFile.toString(), "--table", "chk");
        assertEquals("0", r[0], r[2]);
        assertEquals("", r[2]);
        TableSchema printed = CqlParser.parse(r[1]);
        TableSchema given = CqlParser.parse(cql);
        assertEquals(describe(given), describe(printed), r[1]);
        assertEquals(3600, printed.gcGraceSeconds());
        assertTrue(r[1].startsWith("CREATE TYPE ks.addr (\n    street text,\n    zip int\n);\n\nCREATE TABLE ks.chk (\n    id bigint,"), r[1]);

        // Another type for n: refused, naming the file and the column.
        Path wrong = Files.writeString(tmp.resolve("wrong.cql"), cql.replace("n int", "n bigint"));
        String[] w = run("schema", dir.toString(), "--schema", wrong.toString());
        assertEquals("1", w[0], w[1] + w[2]);
        assertEquals("", w[1]);
        assertTrue(w[2].contains("Statistics.db") && w[2].contains("column 'n'"), w[2]);

        // Other compression: printed as given, the difference noted.
        Path lz4 = Files.writeString(tmp.resolve("lz4.cql"), cql.replace(Compressions.SNAPPY, Compressions.LZ4));
        String[] c = run("schema", dir.toString(), "--schema", lz4.toString());
        assertEquals("0", c[0], c[2]);
        assertTrue(c[2].contains("note:") && c[2].contains("SnappyCompressor"), c[2]);
        assertTrue(c[1].contains("LZ4Compressor"), c[1]);
        String[] cj = run("schema", "--json", dir.toString(), "--schema", lz4.toString());
        assertEquals("0", cj[0], cj[2]);
        assertEquals(c[2], cj[2], "the same notes on stderr");
        com.fasterxml.jackson.databind.JsonNode j = new com.fasterxml.jackson.databind.ObjectMapper().readTree(cj[1]);
        assertEquals("schema", j.get("key_names").asText(), cj[1]);
        assertEquals(c[1], j.get("cql").asText(), cj[1]);
        assertEquals(1, j.get("notes").size(), cj[1]);
        assertTrue(c[2].contains(j.get("notes").get(0).asText()), cj[1]);
        assertEquals("org.apache.cassandra.io.compress.LZ4Compressor", j.get("compression").get("class").asText(), cj[1]);
        assertEquals("addr", j.get("types").get(0).get("name").asText(), cj[1]);
        assertEquals("frozen<addr>", j.get("regular").get(0).get("type").asText(), cj[1]);
        assertEquals("DESC", j.get("clustering").get(0).get("order").asText(), cj[1]);
    }

    /** Sstables of two tables given together are refused, naming both. */
    @Test
    void sstablesOfTwoTablesAreRefused() throws IOException {
        CassandraOracle.init();
        FixedClock.installIfPossible();
        Path a = cassandraWritten("CREATE TABLE ks.one (k int PRIMARY KEY, v text)", 41, tmp.resolve("a"));
        Path b = cassandraWritten("CREATE TABLE ks.two (k text PRIMARY KEY, v text)", 42, tmp.resolve("b"));
        String[] r = run("schema", a.toString(), b.toString());
        assertEquals("1", r[0], r[1] + r[2]);
        assertTrue(r[2].contains("not of one table") && r[2].contains("Int32Type") && r[2].contains("UTF8Type"), r[2]);
        Path c = cassandraWritten("CREATE TABLE ks.three (k int PRIMARY KEY, v int)", 43, tmp.resolve("c"));
        r = run("schema", a.toString(), c.toString());
        assertEquals("1", r[0], r[1] + r[2]);
        assertTrue(r[2].contains("disagree on column 'v'"), r[2]);
    }

    /** Our flush of random operations of {@code cql} into its table directory under {@code root}. */
    static void flushInto(String cql, long seed, Path root) throws IOException {
        TableSchema schema = CqlParser.parse(cql);
        Memtable m = new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP);
        RandomUpdates gen = new RandomUpdates(schema, seed, NOW, 4, 1);
        gen.nullChance = 0;
        gen.partitionDeleteChance = 0;
        gen.rowDeleteChance = 0;
        gen.cellDeleteChance = 0;
        for (PartitionUpdate u : gen.next(20)) m.apply(u);
        m.seal();
        try {
            new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(),
                    TableDirectory.open(Descriptor.tableDir(root, schema.keyspace(), schema.name(), schema.idHex())), true, null, 0);
        } finally {
            m.discard();
        }
    }

    /** A type altered between two sstables (a field added): two definitions of one name, refused by name, not misprinted. */
    @Test
    void aTypeAlteredBetweenSSTablesIsRefused() throws IOException {
        Path dir = Descriptor.tableDir(tmp.resolve("alter"), "ks", "alt", CqlParser.parse("CREATE TABLE ks.alt (k int PRIMARY KEY)").idHex());
        flushInto("CREATE TYPE ks.u (a int);\nCREATE TABLE ks.alt (k int PRIMARY KEY, v frozen<u>)", 1, tmp.resolve("alter"));
        flushInto("CREATE TYPE ks.u (a int, b text);\nCREATE TABLE ks.alt (k int PRIMARY KEY, v frozen<u>)", 2, tmp.resolve("alter"));
        assertEquals(2, SSTableFiles.inDirectory(dir).size());
        String[] r = run("schema", dir.toString());
        assertEquals("1", r[0], r[1] + r[2]);
        assertEquals("", r[1]);
        assertTrue(r[2].contains("disagree on column 'v'"), r[2]);

        // The same type in two columns, each sstable holding one of them.
        Path dir2 = Descriptor.tableDir(tmp.resolve("alter2"), "ks", "alt", CqlParser.parse("CREATE TABLE ks.alt (k int PRIMARY KEY)").idHex());
        flushInto("CREATE TYPE ks.u (a int);\nCREATE TABLE ks.alt (k int PRIMARY KEY, v1 frozen<u>)", 3, tmp.resolve("alter2"));
        flushInto("CREATE TYPE ks.u (a int, b text);\nCREATE TABLE ks.alt (k int PRIMARY KEY, v2 frozen<u>)", 4, tmp.resolve("alter2"));
        r = run("schema", dir2.toString());
        assertEquals("1", r[0], r[1] + r[2]);
        assertEquals("", r[1]);
        assertTrue(r[2].contains("no one schema fits these sstables: type ks.u stands for two definitions"), r[2]);
    }

    /** Everything a schema says that an sstable depends on, in one comparable text. */
    static String describe(TableSchema t) {
        StringBuilder sb = new StringBuilder(t.keyspace() + "." + t.name() + " " + t.id() + "\n");
        for (ColumnMetadata[] g : new ColumnMetadata[][] {t.partitionKeyColumns(), t.clusteringColumns(), t.staticColumns(), t.regularColumns()}) {
            for (ColumnMetadata c : g) sb.append(c.role()).append(' ').append(c.name()).append(' ').append(c.marshalName()).append('\n');
        }
        return sb.append(t.compressionParams()).append(" bf=").append(t.bloomFilterFpChance()).append(" mii=").append(t.minIndexInterval())
                .append(" maxii=").append(t.maxIndexInterval()).append(" ttl=").append(t.defaultTimeToLiveSeconds()).append(" gc=")
                .append(t.gcGraceSeconds()).append(" opr=").append(t.onlyPurgeRepairedTombstones()).toString();
    }

    @Test
    void usage() throws IOException {
        String[] r = run("schema");
        assertEquals("1", r[0]);
        assertTrue(r[2].contains("no sstable or directory given"), r[2]);
        r = run("schema", tmp.resolve("nothing-here").toString());
        assertEquals("1", r[0]);
        assertTrue(r[2].contains("nothing-here: no such file or directory"), r[2]);
        r = run("schema", tmp.toString(), "--table", "t");
        assertEquals("1", r[0]);
        assertTrue(r[2].contains("--table picks a table of --schema"), r[2]);
        // With --json, stdout holds the one object, with the status and the error, also on stderr.
        r = run("schema", "--json", tmp.resolve("nothing-here").toString());
        assertEquals("1", r[0]);
        com.fasterxml.jackson.databind.JsonNode j = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r[1]);
        assertEquals(1, j.get("status").asInt(), r[1]);
        assertTrue(j.get("error").asText().contains("nothing-here: no such file or directory"), r[1]);
        assertTrue(r[2].contains("nothing-here: no such file or directory"), r[2]);
        assertTrue(j.get("keyspace") == null, r[1]);
        List<String> none = new ArrayList<>();
        assertTrue(none.isEmpty());
    }
}

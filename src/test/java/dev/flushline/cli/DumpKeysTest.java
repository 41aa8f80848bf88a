package dev.flushline.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flushline.Main;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.flush.FlushWriter;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.FixedClock;
import dev.flushline.oracle.SSTableDumpOracle;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.CqlType;
import dev.flushline.schema.TableSchema;
import dev.flushline.schema.ValueCodec;
import dev.flushline.sstable.Descriptor;
import dev.flushline.sstable.TableDirectory;
import dev.flushline.testing.RandomSchemas;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The keys dump prints find their partitions again through -k: for random schemas (composite
 * partition keys, tuple, UDT, collection and vector keys, blobs, every native type) with text
 * values full of ':' , quotes, '\', '!', '@' and '_', every partition's printed key (the JSON key
 * array's values joined as -k takes them, and the -d key text) given to -k dumps exactly that
 * partition; and for the keys sstabledump's own -k can read, ours dumps what sstabledump dumps.
 * Also the output forms: the trailing newline, --format jsonl, -l.
 */
class DumpKeysTest {
    static final long NOW = FixedClock.FIXED_MILLIS / 1000;
    static final ObjectMapper JSON = new ObjectMapper();

    /** Text that composite keys, tuples and UDTs must escape, and Cassandra's markers ('_' and '!' alone). */
    static final String[] NASTY = {"a:b", "q\"uote", "it's", "x\\", "bang!", "_", "!", "@", "a\\:b", "::", "", "\\!", "end\\:", "é:ü",
            "x\\@y", ":lead", "trail:", "!!", "\\", "a b", "[\"a\"]"};

    @TempDir
    Path tmp;

    static String[] run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int status = Main.run(args, System.in, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new String[] {Integer.toString(status), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8)};
    }

    /** A random value of a key column's type, often one of the nasty texts wherever text stands. */
    static byte[] keyValue(CqlType t, Random r, RandomUpdates values, boolean single) {
        switch (t.kind()) {
            case TEXT:
            case ASCII: {
                if (r.nextInt(4) == 0) return values.value(t);
                String s = NASTY[r.nextInt(NASTY.length)];
                if (t.kind() == CqlType.Kind.ASCII) s = s.replace("é", "e").replace("ü", "u");
                if (single && s.isEmpty()) s = "e"; // a one-column key may not be empty
                return s.getBytes(StandardCharsets.UTF_8);
            }
            case DOUBLE:
                if (r.nextInt(3) == 0) {
                    double[] special = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.0, 1e300, Double.MIN_VALUE};
                    return ByteBuffer.allocate(8).putDouble(special[r.nextInt(special.length)]).array();
                }
                return values.value(t);
            case FLOAT:
                if (r.nextInt(3) == 0) {
                    float[] special = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, -0.0f, 3e38f};
                    return ByteBuffer.allocate(4).putFloat(special[r.nextInt(special.length)]).array();
                }
                return values.value(t);
            case TUPLE:
            case UDT: {
                // Components as the tuple serializes them: int32 length (-1 null) + bytes. A text component
                // never ends with '\': the tuple's string form, Cassandra's, cannot tell "x\" + ":" from an escaped ':'.
                java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
                for (int i = 0; i < t.size(); i++) {
                    if (r.nextInt(6) == 0) {
                        b.writeBytes(new byte[] {-1, -1, -1, -1});
                        continue;
                    }
                    byte[] v;
                    do {
                        v = keyValue(t.component(i), r, values, false);
                    } while (endsWithBackslash(t.component(i), v));
                    b.writeBytes(ByteBuffer.allocate(4).putInt(v.length).array());
                    b.writeBytes(v);
                }
                return b.toByteArray();
            }
            default:
                return values.value(t);
        }
    }

    static boolean endsWithBackslash(CqlType t, byte[] v) {
        return (t.kind() == CqlType.Kind.TEXT || t.kind() == CqlType.Kind.ASCII) && v.length > 0 && v[v.length - 1] == '\\';
    }

    /** One sstable of {@code keys} partitions (a partition deletion each) with random keys of the schema. */
    Path write(TableSchema schema, long seed, int keys, Path root) throws IOException {
        Random r = new Random(seed);
        RandomUpdates values = new RandomUpdates(schema, seed, NOW, 1, 1);
        ColumnMetadata[] pk = schema.partitionKeyColumns();
        Memtable m = new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP);
        for (int i = 0; i < keys; i++) {
            byte[][] v = new byte[pk.length][];
            for (int c = 0; c < pk.length; c++) v[c] = keyValue(pk[c].type(), r, values, pk.length == 1);
            byte[] key = pk.length == 1 ? v[0] : PartitionKey.compose(v);
            m.apply(new PartitionUpdate(PartitionKey.of(key), DeletionTime.of(1_700_000_000_000_000L + i, NOW), List.of(), null, List.of()));
        }
        m.seal();
        Path dir = Descriptor.tableDir(root, schema.keyspace(), schema.name(), schema.idHex());
        try {
            return new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), TableDirectory.open(dir), true, null, 0).dataPath;
        } finally {
            m.discard();
        }
    }

    static List<String> components(JsonNode partition) {
        List<String> out = new ArrayList<>();
        for (JsonNode k : partition.get("partition").get("key")) out.add(k.asText());
        return out;
    }

    /** Returns the -k arguments it tried. */
    List<String> roundTrips(String cql, long seed, int keys) throws IOException {
        TableSchema schema = CqlParser.parse(cql);
        Path data = write(schema, seed, keys, tmp.resolve("s" + seed));
        Path schemaFile = Files.writeString(tmp.resolve("s" + seed + ".cql"), cql);
        String[] all = run("dump", "--schema", schemaFile.toString(), "--now", Long.toString(NOW), data.toString());
        assertEquals("0", all[0], all[2]);
        JsonNode partitions = JSON.readTree(all[1]);
        assertTrue(partitions.size() > keys / 2, cql + ": " + partitions.size() + " partitions");
        String[] debug = run("dump", "--schema", schemaFile.toString(), "--now", Long.toString(NOW), data.toString(), "-d");
        assertEquals("0", debug[0], debug[2]);
        List<String> debugKeys = new ArrayList<>();
        for (String line : debug[1].split("\n")) debugKeys.add(line.substring(1, line.lastIndexOf("]@")));
        assertEquals(partitions.size(), debugKeys.size(), "one -d line per partition (a deletion each)");
        int i = 0;
        List<String> tried = new ArrayList<>();
        for (JsonNode p : partitions) {
            String arg = DumpCommand.keyArgument(components(p));
            String what = cql + "\npartition " + i + " " + p.get("partition").get("key") + " as -k " + arg;
            assertEquals(debugKeys.get(i), arg, what + ": the -d key text");
            String[] one = run("dump", "--schema", schemaFile.toString(), "--now", Long.toString(NOW), data.toString(), "-k", arg);
            assertEquals("0", one[0], what + ": " + one[2]);
            JsonNode found = JSON.readTree(one[1]);
            assertEquals(1, found.size(), what + ": " + one[1]);
            assertEquals(p, found.get(0), what);
            tried.add(arg);
            i++;
        }
        return tried;
    }

    /** Random schemas: one- and two-column keys of every key type, composite types in keys. */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 4, 5, 7, 8, 10, 11, 13, 14, 16, 17, 19, 20})
    void everyPrintedKeyFindsItsPartition(long seed) throws IOException {
        roundTrips(RandomSchemas.randomTable(seed), seed, 40);
    }

    /** Two text columns, a blob and text, a tuple with text, a frozen UDT, a float and a double: the nasty texts in every place. */
    @Test
    void textKeysWithEveryCharacterTheSyntaxUses() throws IOException {
        List<String> args = new ArrayList<>(roundTrips("CREATE TABLE ks.tt (a text, b text, v int, PRIMARY KEY ((a, b)))", 101, 80));
        // The escapes were exercised: an escaped ':', a '!' added after a '\' and after a '!', an empty component.
        assertTrue(args.stream().anyMatch(a -> a.contains("a\\:b")), args.toString());
        assertTrue(args.stream().anyMatch(a -> a.contains("x\\!:") || a.endsWith("x\\!")), args.toString());
        assertTrue(args.stream().anyMatch(a -> a.contains("bang!!")), args.toString());
        assertTrue(args.stream().anyMatch(a -> a.startsWith(":") || a.endsWith(":") || a.contains("::")), args.toString());
        roundTrips("CREATE TABLE ks.tb (a blob, b ascii, v int, PRIMARY KEY ((a, b)))", 102, 60);
        args = roundTrips("CREATE TABLE ks.tu (a frozen<tuple<text, int, text>>, v int, PRIMARY KEY (a))", 103, 80);
        assertTrue(args.stream().anyMatch(a -> a.contains("\\@")) && args.stream().anyMatch(a -> a.contains("@")), args.toString());
        roundTrips("CREATE TABLE ks.tc (a frozen<tuple<text, text>>, b text, v int, PRIMARY KEY ((a, b)))", 104, 80);
        roundTrips("CREATE TYPE ks.nm (\"First\" text, last text);\nCREATE TABLE ks.tn (a frozen<nm>, b double, v int, PRIMARY KEY ((a, b)))",
                105, 80);
        roundTrips("CREATE TABLE ks.tf (a float, v int, PRIMARY KEY (a))", 106, 40);
        roundTrips("CREATE TABLE ks.ts (a text, v int, PRIMARY KEY (a))", 107, 40);
    }

    /**
     * sstabledump's -k on the same keys (those it can read: not a component "_", which it reads as
     * an end-of-component marker; nothing starting with '-', which its option parser takes for an
     * option) dumps what ours dumps.
     */
    @Test
    void minusKAsSSTableDumpReadsIt() throws IOException {
        CassandraOracle.init();
        for (String cql : new String[] {"CREATE TABLE ks.kc (a text, b text, v int, PRIMARY KEY ((a, b)))",
                "CREATE TABLE ks.kt (a frozen<tuple<text, int>>, v int, PRIMARY KEY (a))"}) {
            TableSchema schema = CqlParser.parse(cql);
            long seed = cql.length();
            Path data = write(schema, seed, 60, tmp.resolve("k" + seed));
            Path schemaFile = Files.writeString(tmp.resolve("k" + seed + ".cql"), cql);
            String[] all = run("dump", "--schema", schemaFile.toString(), "--now", Long.toString(NOW), data.toString());
            List<String> args = new ArrayList<>(List.of(data.toString()));
            int keys = 0;
            for (JsonNode p : JSON.readTree(all[1])) {
                List<String> c = components(p);
                if (c.contains("_") || DumpCommand.keyArgument(c).startsWith("-") || keys >= 25) continue;
                args.add("-k");
                args.add(DumpCommand.keyArgument(c));
                keys++;
            }
            assertTrue(keys >= 20, "keys: " + keys);
            SSTableDumpOracle.Output theirs = SSTableDumpOracle.run(tmp.resolve("dump" + seed), args.toArray(new String[0]));
            assertEquals(0, theirs.status(), theirs.stderr());
            List<String> ours = new ArrayList<>(List.of("dump", "--schema", schemaFile.toString(), "--now", Long.toString(NOW)));
            ours.addAll(args);
            String[] r = run(ours.toArray(new String[0]));
            assertEquals("0", r[0], r[2]);
            assertEquals(theirs.asFlushlinePrints(), r[1], cql);
            assertEquals(keys, JSON.readTree(r[1]).size(), "each key found once");
        }
    }

    /** A component "_" is text to us (Cassandra would read an end-of-component marker and find nothing). */
    @Test
    void underscoreComponentIsText() throws IOException, UsageException {
        String cql = "CREATE TABLE ks.us (a text, b text, v int, PRIMARY KEY ((a, b)))";
        TableSchema schema = CqlParser.parse(cql);
        Path schemaFile = Files.writeString(tmp.resolve("us.cql"), cql);
        byte[] key = PartitionKey.compose(new byte[][] {"_".getBytes(StandardCharsets.UTF_8), "x!".getBytes(StandardCharsets.UTF_8)});
        assertEquals(List.of("_", "x!"), DumpCommand.splitUnescaped("_:x!!").stream().map(DumpCommand::unescapeComponent).toList());
        org.junit.jupiter.api.Assertions.assertArrayEquals(key, DumpCommand.parseKey(schema, "_:x!!"));
        // Wrong counts and a bare '!' (Cassandra's end-of-component marker) are refused by name.
        for (String bad : new String[] {"a", "a:b:c", "a:!"}) {
            String[] r = run("dump", "--schema", schemaFile.toString(), tmp.toString(), "-k", bad);
            assertEquals("1", r[0], bad);
            assertTrue(r[2].contains("-k " + bad + ": the partition key has 2 columns"), r[2]);
        }
        String[] r = run("dump", "--schema", Files.writeString(tmp.resolve("b.cql"), "CREATE TABLE ks.b (a boolean PRIMARY KEY, v int)").toString(),
                tmp.toString(), "-k", "yes");
        assertEquals("1", r[0]);
        assertTrue(r[2].contains("-k yes: key column 'a' (boolean)"), r[2]);
    }

    /**
     * The default JSON ends with a newline; --format jsonl (and -l) prints one partition per line, each
     * line the array's element in compact JSON, every line ending with a newline, across sstables.
     */
    @Test
    void outputForms() throws IOException {
        String cql = "CREATE TABLE ks.of (a text, b int, c int, v text, PRIMARY KEY ((a, b), c))";
        TableSchema schema = CqlParser.parse(cql);
        Path root = tmp.resolve("of");
        write(schema, 1, 30, root);
        Path data2 = write(schema, 2, 20, root);
        Path dir = data2.getParent();
        Path schemaFile = Files.writeString(tmp.resolve("of.cql"), cql);
        String[] json = run("dump", "--schema", schemaFile.toString(), "--now", Long.toString(NOW), dir.toString());
        assertEquals("0", json[0], json[2]);
        assertTrue(json[1].endsWith("]" + System.lineSeparator()), json[1]);
        // Two documents, one per sstable, each on lines of its own.
        com.fasterxml.jackson.core.JsonParser parser = JSON.getFactory().createParser(json[1]);
        Iterator<JsonNode> docs = JSON.readValues(parser, JsonNode.class);
        List<JsonNode> elements = new ArrayList<>();
        int documents = 0;
        while (docs.hasNext()) {
            for (JsonNode p : docs.next()) elements.add(p);
            documents++;
        }
        assertEquals(2, documents);
        assertEquals(50, elements.size());

        String[] jsonl = run("dump", "--schema", schemaFile.toString(), "--now", Long.toString(NOW), dir.toString(), "--format", "jsonl");
        assertEquals("0", jsonl[0], jsonl[2]);
        assertTrue(jsonl[1].endsWith("}\n"), jsonl[1]);
        String[] lines = jsonl[1].split("\n", -1);
        assertEquals(51, lines.length, "50 lines, each ending with a newline");
        assertEquals("", lines[50]);
        for (int i = 0; i < 50; i++) {
            assertTrue(!lines[i].contains("\n") && lines[i].startsWith("{\"table kind\":\"REGULAR\""), lines[i]);
            assertEquals(elements.get(i), JSON.readTree(lines[i]), "line " + i);
        }
        String[] l = run("dump", "--schema", schemaFile.toString(), "--now", Long.toString(NOW), dir.toString(), "-l");
        assertEquals(jsonl[1], l[1]);
        String[] both = run("dump", "--schema", schemaFile.toString(), "--now", Long.toString(NOW), dir.toString(), "-l", "--format=jsonl");
        assertEquals(jsonl[1], both[1]);
        String[] clash = run("dump", "--schema", schemaFile.toString(), dir.toString(), "-l", "--format", "json");
        assertEquals("1", clash[0]);
        assertTrue(clash[2].contains("-l is --format jsonl"), clash[2]);
        String[] bad = run("dump", "--schema", schemaFile.toString(), dir.toString(), "--format", "xml");
        assertEquals("1", bad[0]);
        assertTrue(bad[2].contains("--format xml is not one of json, jsonl"), bad[2]);
        // -k of a key that is not there: an empty array (one line), and no lines at all in JSON Lines.
        String[] none = run("dump", "--schema", schemaFile.toString(), data2.toString(), "-k", "zz:1");
        assertEquals("[ ]" + System.lineSeparator(), none[1]);
        String[] noneL = run("dump", "--schema", schemaFile.toString(), data2.toString(), "-k", "zz:1", "--format", "jsonl");
        assertEquals("", noneL[1]);
    }
}

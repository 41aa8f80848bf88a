package dev.flushline.ops;

import dev.flushline.Main;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.FixedClock;
import dev.flushline.oracle.Partition;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Descriptor;
import org.apache.cassandra.cql3.QueryOptions;
import org.apache.cassandra.db.marshal.AbstractType;
import org.apache.cassandra.io.sstable.CQLSSTableWriter;
import org.apache.cassandra.utils.Clock;
import org.apache.cassandra.utils.JsonUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Each operation form on the new types, loaded by {@code flushline load}, against the CQL
 * statement it stands for, written by cassandra-all 5.0.9's CQLSSTableWriter (types given with
 * withType, bound values serialized by Cassandra's own fromJSONObject of the same JSON): what
 * cassandra-all reads back from both must be equal, partition by partition (cells, paths,
 * complex deletions, tombstones, timestamps, TTLs).
 */
class OpsOracleTest {
    static final String[] TYPES = {
            "CREATE TYPE ks.addr (street text, city text, zip int, tags frozen<set<text>>)",
            "CREATE TYPE ks.person (name text, home frozen<addr>, took duration)",
    };
    static final String TABLE = "CREATE TABLE ks.uo (k int, c text, a addr, fa frozen<addr>, p person, t tuple<int, text, duration>,"
            + " d duration, v vector<float, 4>, vt vector<text, 2>, prefs map<text, text>, tags set<text>, nums map<int, frozen<list<int>>>,"
            + " lp list<frozen<addr>>, s addr static, PRIMARY KEY (k, c))";
    static final String SCHEMA = String.join(";\n", TYPES) + ";\n" + TABLE;

    @TempDir
    Path tmp;
    int runs;

    /** One case: the operation's JSON, and the CQL with its bind values as JSON texts (serialized by Cassandra). */
    record Case(String json, String cql, String... bindJson) {}

    static final long TS = 1_700_000_000_000_000L;

    static final Case[] CASES = {
            // whole values: a non-frozen UDT (cells per field, a complex deletion at ts - 1), frozen UDT, tuple, duration, vectors, nested
            new Case("{\"op\":\"insert\",\"timestamp\":" + TS + ",\"values\":{\"k\":1,\"c\":\"a\",\"a\":{\"street\":\"Main\",\"zip\":75001},"
                    + "\"fa\":{\"city\":\"Paris\",\"tags\":[\"x\",\"y\"]},\"t\":[1,null,\"1h30m\"],\"d\":\"P1DT2H\",\"v\":[0.5,-1,3.25,1e3],"
                    + "\"vt\":[\"\",\"b\"],\"nums\":{\"3\":[1,2],\"-1\":[]},\"lp\":[{\"zip\":1},{\"city\":\"x\"}],"
                    + "\"p\":{\"name\":\"n\",\"home\":{\"city\":\"c\"},\"took\":\"-3d\"}}}",
                    "INSERT INTO ks.uo JSON ? DEFAULT UNSET USING TIMESTAMP " + TS,
                    "{\"k\":1,\"c\":\"a\",\"a\":{\"street\":\"Main\",\"zip\":75001},\"fa\":{\"city\":\"Paris\",\"tags\":[\"x\",\"y\"]},"
                    + "\"t\":[1,null,\"1h30m\"],\"d\":\"P1DT2H\",\"v\":[0.5,-1,3.25,1e3],\"vt\":[\"\",\"b\"],\"nums\":{\"3\":[1,2],\"-1\":[]},"
                    + "\"lp\":[{\"zip\":1},{\"city\":\"x\"}],\"p\":{\"name\":\"n\",\"home\":{\"city\":\"c\"},\"took\":\"-3d\"}}"),
            // SET addr.city = 'Paris': one field cell
            new Case("{\"op\":\"update\",\"timestamp\":" + TS + ",\"ttl\":500,\"key\":{\"k\":2,\"c\":\"b\"},\"set\":{\"a.city\":\"Paris\",\"p.took\":\"1mo2d\"}}",
                    "UPDATE ks.uo USING TIMESTAMP ? AND TTL 500 SET a.city = ?, p.took = ? WHERE k = ? AND c = ?",
                    Long.toString(TS), "\"Paris\"", "\"1mo2d\"", "2", "\"b\""),
            // SET addr.city = null: a field tombstone
            new Case("{\"op\":\"update\",\"timestamp\":" + TS + ",\"key\":{\"k\":3,\"c\":\"b\"},\"set\":{\"a.zip\":null}}",
                    "UPDATE ks.uo USING TIMESTAMP ? SET a.zip = ? WHERE k = ? AND c = ?", Long.toString(TS), "null", "3", "\"b\""),
            // SET prefs['k'] = 'v', and one to null (a tombstone)
            new Case("{\"op\":\"update\",\"timestamp\":" + TS + ",\"key\":{\"k\":4,\"c\":\"b\"},\"set\":{\"prefs['it''s']\":\"v\",\"nums[-7]\":[5]}}",
                    "UPDATE ks.uo USING TIMESTAMP ? SET prefs[?] = ?, nums[?] = ? WHERE k = ? AND c = ?",
                    Long.toString(TS), "\"it's\"", "\"v\"", "-7", "[5]", "4", "\"b\""),
            new Case("{\"op\":\"update\",\"timestamp\":" + TS + ",\"key\":{\"k\":5,\"c\":\"b\"},\"set\":{\"prefs['k']\":null}}",
                    "UPDATE ks.uo USING TIMESTAMP ? SET prefs[?] = ? WHERE k = ? AND c = ?", Long.toString(TS), "\"k\"", "null", "5", "\"b\""),
            // SET tags = tags - {...}; prefs = prefs - {keys}
            new Case("{\"op\":\"update\",\"timestamp\":" + TS + ",\"key\":{\"k\":6,\"c\":\"b\"},\"remove\":{\"tags\":[\"y\",\"x\",\"y\"],\"prefs\":[\"a\"]}}",
                    "UPDATE ks.uo USING TIMESTAMP ? SET tags = tags - ?, prefs = prefs - ? WHERE k = ? AND c = ?",
                    Long.toString(TS), "[\"y\",\"x\"]", "[\"a\"]", "6", "\"b\""),
            // DELETE a.city, prefs['k'], tags['x']
            new Case("{\"op\":\"delete\",\"timestamp\":" + TS + ",\"key\":{\"k\":7,\"c\":\"b\"},\"columns\":[\"a.city\",\"prefs['k']\",\"tags['x']\"]}",
                    "DELETE a.city, prefs[?], tags[?] FROM ks.uo USING TIMESTAMP ? WHERE k = ? AND c = ?",
                    "\"k\"", "\"x\"", Long.toString(TS), "7", "\"b\""),
            // SET a = {...}: the whole non-frozen UDT; a static non-frozen UDT field by partition key alone
            new Case("{\"op\":\"update\",\"timestamp\":" + TS + ",\"key\":{\"k\":8,\"c\":\"b\"},\"set\":{\"a\":{\"city\":\"Rome\",\"tags\":[]}}}",
                    "UPDATE ks.uo USING TIMESTAMP ? SET a = ? WHERE k = ? AND c = ?",
                    Long.toString(TS), "{\"city\":\"Rome\",\"tags\":[]}", "8", "\"b\""),
            new Case("{\"op\":\"update\",\"timestamp\":" + TS + ",\"key\":{\"k\":9},\"set\":{\"s.street\":\"High\"}}",
                    "UPDATE ks.uo USING TIMESTAMP ? SET s.street = ? WHERE k = ?", Long.toString(TS), "\"High\"", "9"),
            // a = null (a complex deletion only) and DELETE a (a complex deletion at ts)
            new Case("{\"op\":\"insert\",\"timestamp\":" + TS + ",\"values\":{\"k\":10,\"c\":\"a\",\"a\":null,\"fa\":null}}",
                    "INSERT INTO ks.uo (k, c, a, fa) VALUES (?, ?, ?, ?) USING TIMESTAMP ?", "10", "\"a\"", "null", "null", Long.toString(TS)),
            new Case("{\"op\":\"delete\",\"timestamp\":" + TS + ",\"key\":{\"k\":11,\"c\":\"b\"},\"columns\":[\"a\",\"p.name\"]}",
                    "DELETE a, p.name FROM ks.uo USING TIMESTAMP ? WHERE k = ? AND c = ?", Long.toString(TS), "11", "\"b\""),
    };

    /** Bind values serialized as Cassandra's fromJSONObject of the JSON text does, by the writer's own bound column types. */
    @SuppressWarnings("unchecked")
    static List<ByteBuffer> bindValues(CQLSSTableWriter w, String[] jsons) throws Exception {
        java.lang.reflect.Field f = CQLSSTableWriter.class.getDeclaredField("boundNames");
        f.setAccessible(true);
        List<org.apache.cassandra.cql3.ColumnSpecification> bound = (List<org.apache.cassandra.cql3.ColumnSpecification>) f.get(w);
        assertEquals(bound.size(), jsons.length, "bind values");
        List<ByteBuffer> out = new ArrayList<>();
        for (int i = 0; i < jsons.length; i++) {
            Object parsed = JsonUtils.decodeJson(jsons[i]);
            AbstractType<?> t = bound.get(i).type;
            // INSERT ... JSON ? binds the whole row as a JSON string
            if (t instanceof org.apache.cassandra.db.marshal.UTF8Type && bound.get(i).name.toString().equals("[json]")) {
                out.add(org.apache.cassandra.utils.ByteBufferUtil.bytes(jsons[i]));
                continue;
            }
            out.add(parsed == null ? null : t.fromJSONObject(parsed).bindAndGet(QueryOptions.DEFAULT));
        }
        return out;
    }

    @Test
    void everyNewFormAsCassandraWritesTheStatement() throws Exception {
        FixedClock.installIfPossible();
        CassandraOracle.init();
        for (int i = 0; i < CASES.length; i++) {
            check(i, CASES[i]);
        }
    }

    void check(int index, Case c) throws Exception {
        for (int attempt = 0; ; attempt++) {
            int run = runs++;
            Path theirs = Files.createDirectories(tmp.resolve("c" + run));
            long beforeMillis = Clock.Global.currentTimeMillis();
            CQLSSTableWriter.Builder b = CQLSSTableWriter.builder().inDirectory(theirs.toString());
            for (String t : TYPES) b.withType(t);
            try (CQLSSTableWriter w = b.forTable(TABLE).using(c.cql()).build()) {
                w.rawAddRow(bindValues(w, c.bindJson()));
            }
            long now = beforeMillis / 1000;
            if (Clock.Global.currentTimeMillis() / 1000 != now && attempt < 5) continue;

            Path ops = Files.writeString(tmp.resolve("ops" + run + ".jsonl"), c.json() + "\n");
            Path schema = Files.writeString(tmp.resolve("schema" + run + ".cql"), SCHEMA);
            Path out = tmp.resolve("f" + run);
            ByteArrayOutputStream so = new ByteArrayOutputStream(), se = new ByteArrayOutputStream();
            int status = Main.run(new String[] {"load", "--schema", schema.toString(), "--input", ops.toString(), "--out", out.toString(),
                    "--now", Long.toString(now)}, new ByteArrayInputStream(new byte[0]), new PrintStream(so, true), new PrintStream(se, true));
            assertEquals(0, status, "case " + index + ": " + se);
            TableSchema ts = CqlParser.parse(SCHEMA);
            Path ours = Descriptor.tableDir(out, ts.keyspace(), ts.name(), ts.idHex());
            List<Partition> expected = listPathsNumbered(CassandraReader.readAll(theirs, SCHEMA));
            List<Partition> actual = listPathsNumbered(CassandraReader.readAll(ours, SCHEMA));
            assertFalse(expected.isEmpty(), "case " + index + ": Cassandra wrote nothing");
            assertEquals(expected, actual, "case " + index + ": " + c.json());
            return;
        }
    }


    /** {JSON operation, message fragment}: refused by name, the line named. */
    static final String[][] REFUSED = {
            {"\"set\":{\"lp[0]\":{}}", "column 'lp' (list<frozen<addr>>): setting a list element by index (lp[0]) needs a read before the write; refused, as CQLSSTableWriter refuses it"},
            {"\"remove\":{\"lp\":[{}]}", "column 'lp' (list<frozen<addr>>): removing list elements by value needs a read before the write"},
            {"\"set\":{\"fa.city\":\"x\"}", "column 'fa' (frozen<addr>): a field of a frozen user-defined type cannot be set alone"},
            {"\"set\":{\"a.nosuch\":\"x\"}", "column 'a' (addr): type addr has no field 'nosuch'"},
            {"\"set\":{\"d.x\":1}", "column 'd' (duration) has no fields"},
            {"\"set\":{\"tags['x']\":\"\"}", "column 'tags' (set<text>): a set element cannot be set (tags['x']); add it with \"add\""},
            {"\"set\":{\"prefs[1]\":\"v\"}", "column 'prefs' (map<text, text>): \"1\" is not a key of it: 1 is not a text"},
            {"\"set\":{\"prefs['k\":\"v\"}", "is not a column of table ks.uo, nor a column.field or column[element]"},
            {"\"add\":{\"a\":{\"city\":\"x\"}}", "column 'a' (addr): \"add\" needs a non-frozen list, set or map column"},
            {"\"set\":{\"prefs['k']\":\"v\",\"prefs\":{\"k\":\"w\"}}", "column 'prefs' (map<text, text>): key \"k\" is written twice in one operation"},
            {"\"set\":{\"a.zip\":\"x\"}", "column 'a' (addr): field 'zip' (int): \"x\" is not an int"},
            {"\"remove\":{\"tags\":\"x\"}", "column 'tags' (set<text>): \"remove\" takes an array of elements, not \"x\""},
            {"\"set\":{\"v\":[1,2]}", "column 'v' (vector<float, 4>): [1,2] is not a vector<float, 4> (2 elements, not 4)"},
            {"\"set\":{\"d\":\"1m1h\"}", "column 'd' (duration): \"1m1h\" is not a duration (the hours must come before the minutes)"},
            {"\"set\":{\"t\":[1]}", "column 't' (tuple<int, text, duration>): [1] is not a tuple<int, text, duration> (fewer than its 3 components)"},
            {"\"set\":{\"a\":{\"town\":\"x\"}}", "column 'a' (addr): unknown field \"town\""},
    };

    @Test
    void newFormsAreRefusedByName() throws Exception {
        TableSchema schema = CqlParser.parse(SCHEMA);
        for (String[] r : REFUSED) {
            String line = "{\"op\":\"update\",\"timestamp\":1,\"key\":{\"k\":1,\"c\":\"a\"}," + r[0] + "}";
            OperationReader reader = new OperationReader(schema, new ByteArrayInputStream((line + "\n").getBytes(StandardCharsets.UTF_8)),
                    "ops.jsonl", 1_750_000_000L);
            BadInputException e = org.junit.jupiter.api.Assertions.assertThrows(BadInputException.class, reader::next, line);
            org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().startsWith("ops.jsonl:1: "), e.getMessage());
            org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains(r[1]), line + "\n -> " + e.getMessage());
        }
        String del = "{\"op\":\"delete\",\"timestamp\":1,\"key\":{\"k\":1,\"c\":\"a\"},\"columns\":[\"lp[0]\"]}";
        BadInputException e = org.junit.jupiter.api.Assertions.assertThrows(BadInputException.class, () -> new OperationReader(schema,
                new ByteArrayInputStream((del + "\n").getBytes(StandardCharsets.UTF_8)), "ops.jsonl", 1_750_000_000L).next());
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("deleting a list element by index (lp[0]) needs a read before the write"),
                e.getMessage());
    }

    /** List cell paths are time-UUIDs of each writer's clock: numbered in path order instead (their order is compared). */
    static List<Partition> listPathsNumbered(List<Partition> partitions) {
        List<Partition> out = new ArrayList<>();
        for (Partition p : partitions) {
            List<dev.flushline.oracle.Unfiltered> us = new ArrayList<>();
            for (dev.flushline.oracle.Unfiltered u : p.unfiltereds()) {
                us.add(u instanceof dev.flushline.oracle.Row ? numbered((dev.flushline.oracle.Row) u) : u);
            }
            out.add(new Partition(p.key(), p.deletion(), numbered(p.staticRow()), us));
        }
        return out;
    }

    static dev.flushline.oracle.Row numbered(dev.flushline.oracle.Row row) {
        List<dev.flushline.oracle.ColumnData> cols = new ArrayList<>();
        for (dev.flushline.oracle.ColumnData cd : row.columns()) {
            if (cd instanceof dev.flushline.oracle.ComplexColumn && ((dev.flushline.oracle.ComplexColumn) cd).column().equals("lp")) {
                dev.flushline.oracle.ComplexColumn cc = (dev.flushline.oracle.ComplexColumn) cd;
                List<dev.flushline.oracle.Cell> cells = new ArrayList<>();
                for (int i = 0; i < cc.cells().size(); i++) cells.add(cc.cells().get(i).withPath(dev.flushline.oracle.Bytes.int32(i)));
                cols.add(new dev.flushline.oracle.ComplexColumn(cc.column(), cc.complexDeletion(), cells));
            } else {
                cols.add(cd);
            }
        }
        return new dev.flushline.oracle.Row(row.clustering(), row.liveness(), row.deletion(), cols);
    }
}

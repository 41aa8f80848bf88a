package dev.flushline.writer;

import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.FixedClock;
import dev.flushline.oracle.Partition;
import dev.flushline.schema.SchemaException;
import dev.flushline.schema.ValueException;
import org.apache.cassandra.io.sstable.CQLSSTableWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Java writer takes the schema as users have it: a DESCRIBE KEYSPACE text (the table the
 * statement writes is taken from it), or CREATE TYPE statements through withType as
 * CQLSSTableWriter takes them. A value of a new type in a class it does not take is refused by name.
 */
class SchemaFileWriterTest {
    static final String TYPE = "CREATE TYPE ks.pt (x int, y int)";
    static final String TABLE_A = "CREATE TABLE ks.wa (k int PRIMARY KEY, v text)";
    static final String TABLE_B = "CREATE TABLE ks.wb (k int, c int, v text, p frozen<pt>, d duration, PRIMARY KEY (k, c))";
    static final String DESCRIBE = "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': '1'};\n\n"
            + TYPE + ";\n\n" + TABLE_A + ";\n\n" + TABLE_B + " WITH comment = '' AND memtable = 'default';\n\n"
            + "CREATE INDEX wb_v ON ks.wb (v);\n";
    static final String INSERT = "INSERT INTO ks.wb (k, c, v) VALUES (?, ?, ?) USING TIMESTAMP 1000";

    @TempDir
    Path tmp;

    @Test
    void aDescribeKeyspaceTextAndWithTypeWriteTheTableTheStatementNames() throws Exception {
        FixedClock.installIfPossible();
        CassandraOracle.init();
        Path theirs = Files.createDirectories(tmp.resolve("c"));
        Path ours = Files.createDirectories(tmp.resolve("f"));
        Path ours2 = Files.createDirectories(tmp.resolve("g"));
        try (CQLSSTableWriter c = CQLSSTableWriter.builder().inDirectory(theirs.toString()).withType(TYPE).forTable(TABLE_B).using(INSERT).build();
             FlushlineSSTableWriter f = FlushlineSSTableWriter.builder().inDirectory(ours).forTable(DESCRIBE).using(INSERT).build();
             // forTable before withType, as CQLSSTableWriter allows: the type is resolved at build()
             FlushlineSSTableWriter g = FlushlineSSTableWriter.builder().inDirectory(ours2).forTable(TABLE_B).withType(TYPE + ";")
                     .using(INSERT).build()) {
            for (int i = 0; i < 20; i++) {
                c.addRow(i % 4, i, "v" + i);
                f.addRow(i % 4, i, "v" + i);
                g.addRow(i % 4, i, "v" + i);
            }
        }
        String schema = TYPE + ";\n" + TABLE_B;
        List<Partition> expected = CassandraReader.readAll(theirs, schema);
        assertFalse(expected.isEmpty());
        assertEquals(expected, CassandraReader.readAll(ours, schema));
        assertEquals(expected, CassandraReader.readAll(ours2, schema));
    }

    /** Collections of collections from Java lists, sets and maps, as CQLSSTableWriter takes them. */
    @Test
    void nestedCollectionsFromJavaCollections() throws Exception {
        FixedClock.installIfPossible();
        CassandraOracle.init();
        String table = "CREATE TABLE ks.nest (k int PRIMARY KEY, l list<frozen<list<int>>>, s set<frozen<set<text>>>,"
                + " m map<text, frozen<map<int, text>>>, f frozen<list<frozen<list<bigint>>>>)";
        String insert = "INSERT INTO ks.nest (k, l, s, m, f) VALUES (?, ?, ?, ?, ?) USING TIMESTAMP 7";
        Path theirs = Files.createDirectories(tmp.resolve("nc"));
        Path ours = Files.createDirectories(tmp.resolve("nf"));
        try (CQLSSTableWriter c = CQLSSTableWriter.builder().inDirectory(theirs.toString()).forTable(table).using(insert).build();
             FlushlineSSTableWriter f = FlushlineSSTableWriter.builder().inDirectory(ours).forTable(table).using(insert)
                     .withNowMillis(org.apache.cassandra.utils.Clock.Global.currentTimeMillis()).build()) {
            for (int i = 0; i < 10; i++) {
                Object[] row = {i, List.of(List.of(i, 2), List.of()), java.util.Set.of(java.util.Set.of("a" + i), java.util.Set.of("b", "c")),
                        java.util.Map.of("x", java.util.Map.of(i, "v")), List.of(List.of((long) i), List.of(3L, 4L))};
                c.addRow(row);
                f.addRow(row);
            }
        }
        List<Partition> expected = CassandraReader.readAll(theirs, table);
        List<Partition> actual = CassandraReader.readAll(ours, table);
        assertEquals(expected.size(), actual.size());
        for (int i = 0; i < expected.size(); i++) {
            // list cell paths are each writer's own time-UUIDs: compare the rows without the list column
            assertEquals(withoutColumn(expected.get(i), "l"), withoutColumn(actual.get(i), "l"));
            assertEquals(listValues(expected.get(i)), listValues(actual.get(i)));
        }
    }

    static Partition withoutColumn(Partition p, String column) {
        List<dev.flushline.oracle.Unfiltered> us = new java.util.ArrayList<>();
        for (dev.flushline.oracle.Unfiltered u : p.unfiltereds()) {
            dev.flushline.oracle.Row r = (dev.flushline.oracle.Row) u;
            List<dev.flushline.oracle.ColumnData> cols = new java.util.ArrayList<>();
            for (dev.flushline.oracle.ColumnData cd : r.columns()) {
                if (!(cd instanceof dev.flushline.oracle.ComplexColumn && ((dev.flushline.oracle.ComplexColumn) cd).column().equals(column))) cols.add(cd);
            }
            us.add(new dev.flushline.oracle.Row(r.clustering(), r.liveness(), r.deletion(), cols));
        }
        return new Partition(p.key(), p.deletion(), p.staticRow(), us);
    }

    static List<Object> listValues(Partition p) {
        List<Object> out = new java.util.ArrayList<>();
        for (dev.flushline.oracle.Unfiltered u : p.unfiltereds()) {
            for (dev.flushline.oracle.ColumnData cd : ((dev.flushline.oracle.Row) u).columns()) {
                if (cd instanceof dev.flushline.oracle.ComplexColumn && ((dev.flushline.oracle.ComplexColumn) cd).column().equals("l")) {
                    for (dev.flushline.oracle.Cell c : ((dev.flushline.oracle.ComplexColumn) cd).cells()) out.add(c.value());
                }
            }
        }
        return out;
    }

    @Test
    void refusals() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("r"));
        // the statement's table must be in the schema
        SchemaException none = assertThrows(SchemaException.class, () -> FlushlineSSTableWriter.builder().inDirectory(dir)
                .forTable(DESCRIBE).using("INSERT INTO ks.nope (k) VALUES (?)").build());
        assertTrue(none.getMessage().contains("no table '\"ks\".\"nope\"'; it defines ks.wa, ks.wb"), none.getMessage());
        // a type nobody gives
        SchemaException unknown = assertThrows(SchemaException.class, () -> FlushlineSSTableWriter.builder().inDirectory(dir)
                .forTable(TABLE_B).using(INSERT).build());
        assertTrue(unknown.getMessage().contains("unknown type ks.pt"), unknown.getMessage());
        // a value of a new type in a class the writer does not take: refused by name
        try (FlushlineSSTableWriter w = FlushlineSSTableWriter.builder().inDirectory(dir).forTable(DESCRIBE)
                .using("INSERT INTO ks.wb (k, c, p, d) VALUES (?, ?, ?, ?)").build()) {
            Exception e = assertThrows(Exception.class, () -> w.addRow(1, 2, java.util.Map.of("x", 1), "1h"));
            Throwable cause = e instanceof ValueException ? e : e.getCause();
            assertTrue(String.valueOf(cause.getMessage()).contains("is not a frozen<pt> value: expected "
                    + "com.datastax.oss.driver.api.core.data.UdtValue (the Java driver's)"), e.toString());
        }
    }
}

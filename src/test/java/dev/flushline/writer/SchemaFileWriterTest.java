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
 * CQLSSTableWriter takes them. Values of the new types are not taken from Java objects yet, and
 * say so by name.
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
        // values of the new types: refused by name, nothing written
        try (FlushlineSSTableWriter w = FlushlineSSTableWriter.builder().inDirectory(dir).forTable(DESCRIBE)
                .using("INSERT INTO ks.wb (k, c, p, d) VALUES (?, ?, ?, ?)").build()) {
            Exception e = assertThrows(Exception.class, () -> w.addRow(1, 2, java.util.Map.of("x", 1), "1h"));
            Throwable cause = e instanceof ValueException ? e : e.getCause();
            assertTrue(String.valueOf(cause.getMessage()).contains("values of type frozen<pt> are not taken from Java objects yet"), e.toString());
        }
    }
}

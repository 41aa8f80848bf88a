package dev.flushline.writer;

import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.FixedClock;
import dev.flushline.oracle.Partition;
import dev.flushline.schema.ValueCodec;
import org.apache.cassandra.cql3.ColumnIdentifier;
import org.apache.cassandra.cql3.QueryOptions;
import org.apache.cassandra.io.sstable.CQLSSTableWriter;
import org.apache.cassandra.schema.TableMetadata;
import org.apache.cassandra.utils.Clock;
import org.apache.cassandra.utils.JsonUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Java writer takes values its caller serialized ({@link ValueCodec.Serialized}) for every
 * type, in every place: key and clustering columns, frozen and non-frozen UDTs (a cell per field),
 * tuples, durations, vectors, a non-frozen map with tuple keys and a non-frozen set of UDTs (split
 * into cells), a frozen map with tuple keys. It writes what CQLSSTableWriter writes when given the
 * same bytes; a serialized value that is not one of its type is refused naming the column.
 */
class SerializedValuesTest {
    static final String TYPE = "CREATE TYPE ks.sp (x int, \"Y\" text, tags frozen<set<text>>)";
    static final String TABLE = "CREATE TABLE ks.sv (k int, c frozen<tuple<int, text>>, f frozen<sp>, u sp, t tuple<int, text, duration>,"
            + " d duration, v vector<float, 3>, vt vector<text, 2>, ms map<frozen<tuple<int, text>>, text>, ss set<frozen<sp>>,"
            + " fm frozen<map<frozen<tuple<int, int>>, int>>, PRIMARY KEY (k, c))";
    static final String[] COLUMNS = {"k", "c", "f", "u", "t", "d", "v", "vt", "ms", "ss", "fm"};
    static final String INSERT = "INSERT INTO ks.sv (" + String.join(", ", COLUMNS) + ") VALUES (" + "?, ".repeat(COLUMNS.length - 1)
            + "?) USING TIMESTAMP 7";

    @TempDir
    Path tmp;

    /** Row i's values as JSON, as INSERT ... JSON spells them; some nulls and partial UDTs. */
    static String[] json(int i) {
        String sp = "{\"x\":" + i + ",\"\\\"Y\\\"\":\"y" + i + "\",\"tags\":[\"b" + i + "\",\"a\"]}";
        return new String[] {
                Integer.toString(i % 3),
                "[" + i + ",\"c" + i + "\"]",
                i % 4 == 0 ? null : sp,
                i % 2 == 0 ? "{\"\\\"Y\\\"\":\"only\"}" : sp,
                "[" + i + "," + (i % 2 == 0 ? "null" : "\"t\"") + ",\"1mo2d" + (3L * i) + "s\"]",
                i == 0 ? "\"-5ns\"" : "\"-" + i + "mo" + (2 * i) + "d5ns\"",
                "[" + (0.5f * i) + ",-1.25," + i + "]",
                "[\"\",\"v" + i + "\"]",
                "{\"[" + i + ", \\\"b\\\"]\":\"one\",\"[-1, \\\"a\\\"]\":\"two\"}",
                "[" + sp + ",{\"x\":-1}]",
                "{\"[2, " + i + "]\":1,\"[1, 9]\":2}"};
    }

    @Test
    void serializedValuesWriteWhatCassandraWritesForTheSameBytes() throws Exception {
        FixedClock.installIfPossible();
        CassandraOracle.init();
        TableMetadata table = CassandraOracle.parseTable(TYPE + ";\n" + TABLE);
        // CQLSSTableWriter takes "now" (the deletion time a non-frozen value's cells are written under) per row from
        // Cassandra's clock, ours once: unless that clock is frozen in this JVM, write again if a second passed meanwhile.
        Path theirs, ours;
        for (int attempt = 0; ; attempt++) {
            theirs = Files.createDirectories(tmp.resolve("c" + attempt));
            ours = Files.createDirectories(tmp.resolve("f" + attempt));
            long now = Clock.Global.currentTimeMillis();
            try (CQLSSTableWriter c = CQLSSTableWriter.builder().inDirectory(theirs.toString()).withType(TYPE).forTable(TABLE).using(INSERT).build();
                 FlushlineSSTableWriter f = FlushlineSSTableWriter.builder().inDirectory(ours).withType(TYPE).forTable(TABLE).using(INSERT)
                         .withNowMillis(now).build()) {
                for (int i = 0; i < 12; i++) {
                    String[] json = json(i);
                    List<ByteBuffer> raw = new ArrayList<>();
                    Object[] values = new Object[COLUMNS.length];
                    for (int k = 0; k < COLUMNS.length; k++) {
                        if (json[k] == null) {
                            raw.add(null);
                            continue;
                        }
                        ByteBuffer b = table.getColumn(ColumnIdentifier.getInterned(COLUMNS[k], true)).type
                                .fromJSONObject(JsonUtils.decodeJson(json[k])).bindAndGet(QueryOptions.DEFAULT);
                        raw.add(b);
                        byte[] bytes = new byte[b.remaining()];
                        b.duplicate().get(bytes);
                        values[k] = new ValueCodec.Serialized(bytes);
                    }
                    c.rawAddRow(raw);
                    f.addRow(values);
                }
            }
            if (Clock.Global.currentTimeMillis() / 1000 == now / 1000 || attempt == 4) break;
        }
        String schema = TYPE + ";\n" + TABLE;
        List<Partition> expected = CassandraReader.readAll(theirs, schema);
        assertFalse(expected.isEmpty());
        assertEquals(expected, CassandraReader.readAll(ours, schema));
    }

    /**
     * A frozen set or map given serialized out of order, with a duplicate: put in order as a node
     * puts a bound value (the first set element and the last map entry stay); a set inside a
     * tuple is kept as given, as a node keeps it.
     */
    @Test
    void aSerializedSetOrMapIsSortedAsANodeSortsABoundOne() throws Exception {
        FixedClock.installIfPossible();
        CassandraOracle.init();
        String table = "CREATE TABLE ks.sv_order (k int PRIMARY KEY, fs frozen<set<int>>, fm frozen<map<int, text>>,"
                + " ts tuple<frozen<set<int>>>, s set<int>)";
        String insert = "INSERT INTO ks.sv_order (k, fs, fm, ts, s) VALUES (?, ?, ?, ?, ?) USING TIMESTAMP 3";
        byte[] set = {0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 9, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 9}; // {9, 2, 9}
        byte[] map = {0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 9, 0, 0, 0, 1, 'a', 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0, 1, 'b',
                0, 0, 0, 4, 0, 0, 0, 9, 0, 0, 0, 1, 'c'}; // {9: a, 2: b, 9: c}
        byte[] tuple = new byte[4 + set.length];
        ByteBuffer.wrap(tuple).putInt(set.length).put(set);
        // CQLSSTableWriter takes "now" (the deletion time a non-frozen value's cells are written under) per row from
        // Cassandra's clock, ours once: unless that clock is frozen in this JVM, write again if a second passed meanwhile.
        Path theirs, ours;
        for (int attempt = 0; ; attempt++) {
            theirs = Files.createDirectories(tmp.resolve("oc" + attempt));
            ours = Files.createDirectories(tmp.resolve("of" + attempt));
            long now = Clock.Global.currentTimeMillis();
            try (CQLSSTableWriter c = CQLSSTableWriter.builder().inDirectory(theirs.toString()).forTable(table).using(insert).build();
                 FlushlineSSTableWriter f = FlushlineSSTableWriter.builder().inDirectory(ours).forTable(table).using(insert)
                         .withNowMillis(now).build()) {
                c.rawAddRow(ByteBuffer.wrap(new byte[] {0, 0, 0, 1}), ByteBuffer.wrap(set), ByteBuffer.wrap(map), ByteBuffer.wrap(tuple), ByteBuffer.wrap(set));
                f.addRow(1, new ValueCodec.Serialized(set), new ValueCodec.Serialized(map), new ValueCodec.Serialized(tuple), new ValueCodec.Serialized(set));
            }
            if (Clock.Global.currentTimeMillis() / 1000 == now / 1000 || attempt == 4) break;
        }
        List<Partition> expected = CassandraReader.readAll(theirs, table);
        assertEquals(1, expected.size());
        assertEquals(expected, CassandraReader.readAll(ours, table));
    }

    @Test
    void aSerializedValueOfTheWrongShapeIsRefusedNamingTheColumn() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("w"));
        try (FlushlineSSTableWriter f = FlushlineSSTableWriter.builder().inDirectory(dir).withType(TYPE).forTable(TABLE).using(INSERT).build()) {
            Object[] row = new Object[COLUMNS.length];
            row[0] = 1;
            row[1] = new ValueCodec.Serialized(new byte[] {0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 0}); // (1, '')
            row[6] = new ValueCodec.Serialized(new byte[] {0, 0, 0, 0}); // a vector<float, 3> of 4 bytes
            String m = message(assertThrows(Exception.class, () -> f.addRow(row)));
            assertTrue(m.contains("column 'v'") && m.contains("vector<float, 3> of 4 bytes (must be 12)"), m);
            row[6] = null;
            row[3] = new ValueCodec.Serialized(new byte[] {0, 0, 0, 9}); // a field length beyond the value
            String u = message(assertThrows(Exception.class, () -> f.addRow(row)));
            assertTrue(u.contains("column 'u'") && u.contains("field 0 'x' has length 9 beyond the value"), u);
            row[3] = null;
            row[8] = new ValueCodec.Serialized(new byte[0]);
            String ms = message(assertThrows(Exception.class, () -> f.addRow(row)));
            assertTrue(ms.contains("column 'ms'") && ms.contains("no element count"), ms);
        }
    }

    static String message(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) sb.append(c.getMessage()).append(" | ");
        return sb.toString();
    }
}

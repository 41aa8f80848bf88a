package dev.flushline.writer;

import com.datastax.oss.driver.api.core.data.CqlDuration;
import com.datastax.oss.driver.api.core.data.CqlVector;
import com.datastax.oss.driver.api.core.data.TupleValue;
import com.datastax.oss.driver.api.core.data.UdtValue;
import com.datastax.oss.driver.api.core.type.DataTypes;
import com.datastax.oss.driver.api.core.type.UserDefinedType;
import com.datastax.oss.driver.internal.core.type.UserDefinedTypeBuilder;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.FixedClock;
import dev.flushline.oracle.Partition;
import org.apache.cassandra.cql3.QueryOptions;
import org.apache.cassandra.io.sstable.CQLSSTableWriter;
import org.apache.cassandra.utils.Clock;
import org.apache.cassandra.utils.JsonUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
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
 * The Java writer takes the Java driver's values for tuples, UDTs (frozen, and non-frozen as one
 * cell per field), durations and vectors, and writes what CQLSSTableWriter writes for the same
 * values (given as Cassandra serializes their JSON form); and the driver is never needed: with
 * no driver on the class path the writer works, and a value of those types from another class is
 * refused by name.
 */
class DriverValuesTest {
    static final String TYPE = "CREATE TYPE ks.pt (x int, \"Y\" text, tags frozen<set<text>>)";
    static final String TABLE = "CREATE TABLE ks.dv (k int, c int, f frozen<pt>, u pt, t tuple<int, text, duration>, d duration,"
            + " v vector<float, 8>, vt vector<text, 2>, lp list<frozen<pt>>, PRIMARY KEY (k, c))";
    static final String INSERT = "INSERT INTO ks.dv (k, c, f, u, t, d, v, vt) VALUES (?, ?, ?, ?, ?, ?, ?, ?) USING TIMESTAMP 5";

    @TempDir
    Path tmp;

    static UserDefinedType pt() {
        return new UserDefinedTypeBuilder("ks", "pt").withField("x", DataTypes.INT).withField("\"Y\"", DataTypes.TEXT)
                .withField("tags", DataTypes.frozenSetOf(DataTypes.TEXT)).build();
    }

    @Test
    void driverValuesWriteWhatCassandraWritesForThem() throws Exception {
        FixedClock.installIfPossible();
        CassandraOracle.init();
        UserDefinedType pt = pt();
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
                org.apache.cassandra.schema.TableMetadata table = CassandraOracle.parseTable(TYPE + ";\n" + TABLE);
                for (int i = 0; i < 12; i++) {
                    // A set inside a UDT value keeps the order the driver serialized it in, as a node keeps a bound UDT
                    // value's bytes (it validates them, it does not re-sort them); sorted here, as JSON parsing sorts.
                    UdtValue frozen = pt.newValue(i, "y" + i, new java.util.TreeSet<>(java.util.Set.of("a", "b" + i)));
                    UdtValue partial = pt.newValue().setString("\"Y\"", "only"); // x and tags null
                    TupleValue tuple = DataTypes.tupleOf(DataTypes.INT, DataTypes.TEXT, DataTypes.DURATION)
                            .newValue(i, i % 2 == 0 ? null : "t", CqlDuration.newInstance(1, 2, 3_000_000_000L * i));
                    CqlDuration d = CqlDuration.newInstance(-i, -2 * i, -5);
                    List<Float> floats = new ArrayList<>();
                    for (int k = 0; k < 8; k++) floats.add(k * 0.5f - i);
                    f.addRow(i % 3, i, frozen, i % 2 == 0 ? partial : frozen, tuple, d, CqlVector.newInstance(floats),
                            CqlVector.newInstance("", "v" + i));
                    // the same values as Cassandra serializes their JSON
                    String[] json = {Integer.toString(i % 3), Integer.toString(i),
                            "{\"x\":" + i + ",\"\\\"Y\\\"\":\"y" + i + "\",\"tags\":[\"a\",\"b" + i + "\"]}",
                            i % 2 == 0 ? "{\"\\\"Y\\\"\":\"only\"}" : "{\"x\":" + i + ",\"\\\"Y\\\"\":\"y" + i + "\",\"tags\":[\"a\",\"b" + i + "\"]}",
                            "[" + i + "," + (i % 2 == 0 ? "null" : "\"t\"") + ",\"1mo2d" + (3L * i) + "s\"]",
                            i == 0 ? "\"-5ns\"" : "\"-" + i + "mo" + (2 * i) + "d5ns\"",
                            floats.toString(), "[\"\",\"v" + i + "\"]"};
                    String[] columns = {"k", "c", "f", "u", "t", "d", "v", "vt"};
                    List<ByteBuffer> raw = new ArrayList<>();
                    for (int k = 0; k < json.length; k++) {
                        raw.add(table.getColumn(org.apache.cassandra.cql3.ColumnIdentifier.getInterned(columns[k], true)).type
                                .fromJSONObject(JsonUtils.decodeJson(json[k])).bindAndGet(QueryOptions.DEFAULT));
                    }
                    c.rawAddRow(raw);
                }
            }
            if (Clock.Global.currentTimeMillis() / 1000 == now / 1000 || attempt == 4) break;
        }
        String schema = TYPE + ";\n" + TABLE;
        List<Partition> expected = CassandraReader.readAll(theirs, schema);
        assertFalse(expected.isEmpty());
        assertEquals(expected, CassandraReader.readAll(ours, schema));
    }

    @Test
    void wrongValuesAreRefusedByName() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("w"));
        try (FlushlineSSTableWriter f = FlushlineSSTableWriter.builder().inDirectory(dir).withType(TYPE).forTable(TABLE).using(INSERT).build()) {
            Exception e = assertThrows(Exception.class, () -> f.addRow(1, 1, java.util.Map.of("x", 1), null, null, null, null, null));
            String m = e.getMessage() + " " + (e.getCause() == null ? "" : e.getCause().getMessage());
            assertTrue(m.contains("expected com.datastax.oss.driver.api.core.data.UdtValue (the Java driver's)"), m);
            Exception wrongTuple = assertThrows(Exception.class, () -> f.addRow(1, 1, null, null,
                    DataTypes.tupleOf(DataTypes.INT).newValue(1), null, null, null));
            String wm = wrongTuple.getMessage() + " " + (wrongTuple.getCause() == null ? "" : wrongTuple.getCause().getMessage());
            assertTrue(wm.contains("has 1 components, a tuple<int, text, duration> has 3"), wm);
            org.junit.jupiter.api.Assertions.assertThrows(dev.flushline.schema.SchemaException.class, () -> FlushlineSSTableWriter.builder()
                    .inDirectory(dir).withType(TYPE).forTable(TABLE).using("UPDATE ks.dv SET u.x = ? WHERE k = ? AND c = ?").build(),
                    "a field assignment is refused by name");
            Exception dim = assertThrows(Exception.class, () -> f.addRow(1, 1, null, null, null, null, CqlVector.newInstance(1f, 2f), null));
            String dm = dim.getMessage() + " " + (dim.getCause() == null ? "" : dim.getCause().getMessage());
            assertTrue(dm.contains("2 elements, not 8"), dm);
        }
    }

    /**
     * The writer with no Java driver on the class path at all: native values write, and a value
     * for a UDT column that is not the driver's is refused by name. Run in a class loader that
     * sees only the main classes and their runtime dependencies.
     */
    @Test
    void theDriverIsNeverNeeded() throws Exception {
        List<URL> urls = new ArrayList<>();
        // The main classes wherever this build puts them (-DbuildDir moves them out of target/).
        urls.add(FlushlineSSTableWriter.class.getProtectionDomain().getCodeSource().getLocation());
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            boolean dependency = entry.contains("jctools") || entry.contains("lz4") || entry.contains("jackson-core")
                    || entry.contains("slf4j-api"); // the table's loggers; no backend here, so SLF4J says so once and logs nothing
            if (dependency && !entry.contains("java-driver")) urls.add(new File(entry).toURI().toURL());
        }
        try (URLClassLoader loader = new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader())) {
            assertThrows(ClassNotFoundException.class, () -> loader.loadClass("com.datastax.oss.driver.api.core.data.UdtValue"));
            Class<?> writer = loader.loadClass("dev.flushline.writer.FlushlineSSTableWriter");
            Object builder = writer.getMethod("builder").invoke(null);
            Class<?> b = builder.getClass();
            Path dir = Files.createDirectories(tmp.resolve("nodriver"));
            builder = b.getMethod("inDirectory", Path.class).invoke(builder, dir);
            builder = b.getMethod("withType", String.class).invoke(builder, TYPE);
            builder = b.getMethod("forTable", String.class).invoke(builder, TABLE);
            builder = b.getMethod("using", String.class).invoke(builder, "INSERT INTO ks.dv (k, c, f) VALUES (?, ?, ?)");
            Object w = b.getMethod("build").invoke(builder);
            java.lang.reflect.Method addRow = writer.getMethod("addRow", Object[].class);
            addRow.invoke(w, (Object) new Object[] {1, 2, null});
            java.lang.reflect.InvocationTargetException refused = assertThrows(java.lang.reflect.InvocationTargetException.class,
                    () -> addRow.invoke(w, (Object) new Object[] {1, 3, "not a udt"}));
            String m = String.valueOf(refused.getCause().getMessage()) + " "
                    + (refused.getCause().getCause() == null ? "" : refused.getCause().getCause().getMessage());
            assertTrue(m.contains("UdtValue (the Java driver's)"), m);
            writer.getMethod("close").invoke(w);
            try (java.util.stream.Stream<Path> files = Files.list(dir)) {
                assertTrue(files.anyMatch(p -> p.getFileName().toString().endsWith("-Data.db")), "the native row was written");
            }
        }
    }
}

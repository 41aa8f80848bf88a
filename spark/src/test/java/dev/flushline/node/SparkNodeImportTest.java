package dev.flushline.node;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import dev.flushline.spark.FlushlineSpark;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The bulk writer's output, one {@code <ks>/<table>-<id>} folder per token range, imported into a
 * real Cassandra 5.0.9 node ({@code nodetool import} over JMX, all range folders at once) and read
 * back through the Java driver: every row, its values, {@code WRITETIME} and {@code TTL}.
 *
 * <p>The node runs in a child JVM on the root project's test class path (cassandra-all with its
 * own logging and libraries), not on this module's, which carries Spark's.
 */
class SparkNodeImportTest {
    static final String KS = "flushline_spark";
    static final String TABLE = "CREATE TABLE " + KS + ".events (id int, seq int, name text, amount bigint, at timestamp, "
            + "tags set<text>, attrs map<text, int>, ref uuid, PRIMARY KEY (id, seq)) WITH CLUSTERING ORDER BY (seq DESC)";

    @TempDir
    Path tmp;

    @Test
    void rangesImportIntoANodeAndReadBackThroughTheDriver() throws Exception {
        Path rootBuild = Paths.get(System.getProperty("flushline.root.build", "../target"));
        Path classpathFile = rootBuild.resolve("test-classpath.txt");
        assumeTrue(Files.exists(classpathFile), "no " + classpathFile + ": run through the root build (mvn verify at the root)");
        String nodeClasspath = rootBuild.resolve("classes") + java.io.File.pathSeparator + rootBuild.resolve("test-classes")
                + java.io.File.pathSeparator + Files.readString(classpathFile).trim();

        StructType schema = new StructType(new StructField[] {
                DataTypes.createStructField("id", DataTypes.IntegerType, false),
                DataTypes.createStructField("seq", DataTypes.IntegerType, false),
                DataTypes.createStructField("name", DataTypes.StringType, true),
                DataTypes.createStructField("amount", DataTypes.LongType, true),
                DataTypes.createStructField("at", DataTypes.TimestampType, true),
                DataTypes.createStructField("tags", DataTypes.createArrayType(DataTypes.StringType), true),
                DataTypes.createStructField("attrs", DataTypes.createMapType(DataTypes.StringType, DataTypes.IntegerType), true),
                DataTypes.createStructField("ref", DataTypes.StringType, true),
                DataTypes.createStructField("timestamp", DataTypes.LongType, true),
                DataTypes.createStructField("ttl", DataTypes.IntegerType, true)});
        long seed = 16_010L;
        Random r = new Random(seed);
        List<Row> rows = new ArrayList<>();
        Map<String, Row> byKey = new HashMap<>();
        for (int id = 0; id < 150; id++) {
            for (int seq = 0; seq < 3; seq++) {
                List<String> tags = new ArrayList<>(new LinkedHashSet<>(List.of("t" + r.nextInt(5), "t" + r.nextInt(5))));
                Map<String, Integer> attrs = new TreeMap<>();
                attrs.put("a" + r.nextInt(3), r.nextInt());
                Row row = RowFactory.create(id, seq, r.nextInt(5) == 0 ? null : "name-" + r.nextInt(1000), r.nextLong(),
                        Instant.ofEpochMilli(1_700_000_000_000L + r.nextInt(1_000_000_000)), tags, attrs, new UUID(r.nextLong(), r.nextLong()).toString(),
                        1_700_000_000_000_000L + r.nextInt(1_000_000), r.nextBoolean() ? null : 86_400 + r.nextInt(86_400));
                rows.add(row);
                byKey.put(id + "/" + seq, row);
            }
        }
        Path out = tmp.resolve("out");
        SparkSession spark = SparkSession.builder().master("local[2]").appName("flushline-node-import-test")
                .config("spark.ui.enabled", "false").config("spark.driver.host", "127.0.0.1").getOrCreate();
        Map<String, String> options = new HashMap<>();
        options.put("table", TABLE);
        options.put("path", out.toString());
        options.put("ranges", "3");
        FlushlineSpark.write(spark.createDataFrame(rows, schema).repartition(2), options);
        List<Path> tableDirs = new ArrayList<>();
        try (Stream<Path> s = Files.list(out)) {
            for (Path range : s.filter(p -> p.getFileName().toString().startsWith("range-")).sorted().toList()) {
                try (Stream<Path> t = Files.list(range.resolve(KS))) {
                    tableDirs.addAll(t.toList());
                }
            }
        }
        assertEquals(3, tableDirs.size(), "one table folder per range");

        // CassandraNode starts the child JVM on java.class.path: give it the root project's for the call.
        String ownClasspath = System.getProperty("java.class.path");
        CassandraNode node;
        System.setProperty("java.class.path", nodeClasspath);
        try {
            node = CassandraNode.start(tmp.resolve("node"));
        } finally {
            System.setProperty("java.class.path", ownClasspath);
        }
        try (node; CqlSession session = CqlSession.builder()
                .addContactPoint(new InetSocketAddress("127.0.0.1", node.nativePort))
                .withLocalDatacenter("datacenter1")
                .withConfigLoader(DriverConfigLoader.programmaticBuilder()
                        .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, Duration.ofSeconds(60)).build())
                .build()) {
            session.execute("CREATE KEYSPACE " + KS + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
            session.execute(TABLE);
            int logFrom = node.logLines();
            List<String> failed = node.importSSTables(KS, "events", tableDirs);
            assertEquals(List.of(), failed, "directories the node refused; its errors:\n" + node.errors(logFrom));
            long now = System.currentTimeMillis() / 1000;
            int seen = 0;
            for (com.datastax.oss.driver.api.core.cql.Row got : session.execute(
                    "SELECT id, seq, name, amount, at, tags, attrs, ref, WRITETIME(amount), TTL(amount) FROM " + KS + ".events")) {
                String key = got.getInt(0) + "/" + got.getInt(1);
                Row want = byKey.get(key);
                assertTrue(want != null, "unexpected row " + key);
                String where = "seed " + seed + ", row " + key;
                assertEquals(want.get(2), got.getString(2), where + ": name");
                assertEquals(want.get(3), got.getLong(3), where + ": amount");
                assertEquals(want.get(4), got.getInstant(4), where + ": at");
                assertEquals(Set.copyOf((List<?>) want.get(5)), got.getSet(5, String.class), where + ": tags");
                assertEquals(want.get(6), got.getMap(6, String.class, Integer.class), where + ": attrs");
                assertEquals(UUID.fromString(want.getString(7)), got.getUuid(7), where + ": ref");
                assertEquals(want.getLong(8), got.getLong(8), where + ": WRITETIME");
                if (want.isNullAt(9)) {
                    assertTrue(got.isNull(9), where + ": no TTL");
                } else {
                    int ttl = got.getInt(9);
                    // The TTL counts down from the write; allow the seconds the test took since.
                    assertTrue(ttl <= want.getInt(9) && ttl > want.getInt(9) - 600, where + ": TTL " + ttl + " of " + want.getInt(9) + " at " + now);
                }
                seen++;
            }
            assertEquals(rows.size(), seen, "rows read back");
        } finally {
            spark.stop();
        }
    }
}

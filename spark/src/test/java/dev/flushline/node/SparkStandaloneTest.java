package dev.flushline.node;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import dev.flushline.data.Murmur3;
import dev.flushline.data.RingFile;
import dev.flushline.data.TokenRing;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.Partition;
import dev.flushline.spark.ReadmeRecipeTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The bulk writer across processes: a Spark standalone master and two workers
 * ({@link SparkStandalone}, each its own JVM on 127.0.0.1, the executors the workers' children)
 * run jobs submitted through {@code SparkSubmit --master spark://...} with the bundle jar as
 * {@code --jars}, and their output goes into a three-node Cassandra 5.0.9 cluster
 * ({@link CassandraCluster}, child JVMs on 127.0.0.1-3, keyspace {@value #KS} with SimpleStrategy
 * and two copies).
 *
 * <ol>
 *   <li>The README's {@code SparkWriteExample}, given the cluster's ring (from the driver's token
 *       map): both workers' executors run its tasks with the bundle they fetched; its evenly split
 *       ranges read back whole with cassandra-all; its ring-split output is imported by every
 *       node into its own directory, every node then holds exactly the rows it replicates, and a
 *       read at consistency ALL returns every row.</li>
 *   <li>The same job with the bundle on the driver only fails in its tasks for Flushline's classes:
 *       the bundle must be on the executors' class path ({@code --jars} ships it).</li>
 *   <li>A worker (with its executor) is killed while its task is mid-write: the job still commits,
 *       every range exactly once on each of its replicas, nothing of the killed or failed attempts
 *       is left, and the nodes import it all.</li>
 * </ol>
 *
 * <p>Runs in the integration-test phase (it needs the bundle jar); its inputs come as system
 * properties from the pom, the nodes' class path from the root build.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
// A backstop only: every wait inside has its own, shorter bound.
@Timeout(value = 8, unit = java.util.concurrent.TimeUnit.MINUTES)
class SparkStandaloneTest {
    static final String KS = "ks";
    /** Background compaction off: the test reads the sstables each node holds. */
    static final String NO_COMPACTION = " WITH compaction = {'class': 'SizeTieredCompactionStrategy', 'enabled': 'false'}";

    @TempDir
    static Path tmp;
    CassandraCluster cluster;
    CqlSession session;
    SparkStandalone spark;
    Path ringFile;
    TokenRing ring;
    String sparkClasspath;
    Path bundle;

    @BeforeAll
    void start() throws Exception {
        Path rootBuild = Paths.get(System.getProperty("flushline.root.build", "../target"));
        Path classpathFile = rootBuild.resolve("test-classpath.txt");
        assumeTrue(Files.exists(classpathFile), "no " + classpathFile + ": run through the root build (mvn verify at the root)");
        String nodeClasspath = rootBuild.resolve("classes") + File.pathSeparator + rootBuild.resolve("test-classes")
                + File.pathSeparator + Files.readString(classpathFile).trim();
        sparkClasspath = Files.readString(ReadmeRecipeTest.property("flushline.spark.classpath")).trim();
        bundle = ReadmeRecipeTest.property("flushline.spark.bundle");
        CassandraOracle.init();

        long t0 = System.nanoTime();
        cluster = CassandraCluster.start(tmp.resolve("cassandra"), nodeClasspath);
        session = cluster.connect();
        session.execute("CREATE KEYSPACE " + KS + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 2}");
        String text = DriverRing.ringFile(session, KS);
        ringFile = tmp.resolve("ring.txt");
        Files.writeString(ringFile, text, StandardCharsets.UTF_8);
        ring = RingFile.parse(text, ringFile.toString());
        long t1 = System.nanoTime();
        List<String> flags = new ArrayList<>();
        for (String f : System.getProperty("flushline.spark.jvm.flags", "").trim().split("\\s+")) if (!f.isEmpty()) flags.add(f);
        spark = SparkStandalone.start(tmp.resolve("spark"), sparkClasspath, flags, 2);
        System.out.printf("three Cassandra nodes up in %d ms, Spark master and two workers in %d ms (%s)%n", (t1 - t0) / 1_000_000,
                (System.nanoTime() - t1) / 1_000_000, spark.masterUrl);
    }

    @AfterAll
    void stop() throws Exception {
        if (spark != null) spark.close();
        if (session != null) session.close();
        if (cluster != null) cluster.close();
    }

    /** Compiles {@code source} (class {@code name}) against Spark and the bundle, as a user builds a job, into a job jar. */
    Path jobJar(String name, String source) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("job-" + name));
        Path src = dir.resolve(name + ".java");
        Files.writeString(src, source);
        Path classes = Files.createDirectories(dir.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int rc = javac.run(null, null, errors, "-classpath", sparkClasspath + File.pathSeparator + bundle, "-d", classes.toString(),
                src.toString());
        assertEquals(0, rc, name + " does not compile:\n" + errors);
        Path jar = dir.resolve(name + ".jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar)); Stream<Path> s = Files.list(classes)) {
            for (Path c : s.toList()) {
                out.putNextEntry(new JarEntry(c.getFileName().toString()));
                Files.copy(c, out);
                out.closeEntry();
            }
        }
        return jar;
    }

    /** Waits (bounded) for a submitted job; fails with its output's tail and the cluster's logs unless it exited 0. */
    void awaitSuccess(Process p, Path log, long minutes) throws Exception {
        boolean ended = p.waitFor(minutes, TimeUnit.MINUTES);
        if (!ended) p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        int exit = ended ? p.exitValue() : -1;
        assertEquals(0, exit, "spark-submit " + (ended ? "exited with " + exit : "did not end in " + minutes + " minutes")
                + "; its output:\n" + ReadmeRecipeTest.tail(log) + "\n" + spark.logTails(20));
    }

    @Test
    @Order(1)
    void readmeRecipeOnAStandaloneClusterLoadsIntoTheThreeNodes() throws Exception {
        Path jar = jobJar(ReadmeRecipeTest.EXAMPLE, ReadmeRecipeTest.example(ReadmeRecipeTest.property("flushline.readme")));
        Path out = tmp.resolve("bulk");
        Path log = tmp.resolve("readme-submit.log");
        long t0 = System.nanoTime();
        Process p = spark.submit(List.of("--jars", bundle.toString(), "--class", ReadmeRecipeTest.EXAMPLE, jar.toString(), out.toString(),
                ringFile.toString()), log);
        awaitSuccess(p, log, 10);
        System.out.printf("SparkWriteExample on %s: %d ms%n", spark.masterUrl, (System.nanoTime() - t0) / 1_000_000);

        // Both workers' executors ran tasks, each with the bundle it fetched from the driver (--jars).
        for (int w = 0; w < 2; w++) {
            List<Path> logs = spark.executorLogs(w);
            assertFalse(logs.isEmpty(), "worker " + (w + 1) + " started no executor:\n" + spark.logTails(20));
            boolean ran = false;
            for (Path l : logs) {
                ran |= Files.readString(l).contains("Finished task");
                assertTrue(Files.exists(l.resolveSibling(bundle.getFileName())), "the executor of " + l + " has no " + bundle.getFileName());
            }
            assertTrue(ran, "no task finished on worker " + (w + 1) + "'s executors " + logs);
        }

        // The evenly split output: every row once (as ReadmeRecipeTest checks it in local mode).
        Path ranged = out.resolve("t");
        Map<Integer, Integer> rowsOfKey = new HashMap<>();
        long total = 0;
        for (String[] line : ReadmeRecipeTest.manifest(ranged)) {
            for (Partition part : CassandraReader.readAll(ReadmeRecipeTest.tableDir(ranged.resolve(line[0])), ReadmeRecipeTest.TABLE)) {
                total += ReadmeRecipeTest.checkPartition(part, rowsOfKey);
            }
        }
        assertEquals(ReadmeRecipeTest.ROWS, total, "rows under " + ranged);

        // The ring-split output into the cluster: each node imports its own directory.
        loadAndCheck(out.resolve("t-ring"), "t", ReadmeRecipeTest.TABLE, ReadmeRecipeTest.PARTITIONS, ReadmeRecipeTest.ROWS);
    }

    /**
     * Imports every node's directory of {@code out} into table {@code table} on that node (tokens
     * verified), then checks that each node holds exactly the partitions the driver's token map
     * gives it, with all their rows ({@code rows / partitions} each, as the jobs write them), and
     * that a read at consistency ALL returns every row.
     */
    void loadAndCheck(Path out, String table, String createTableCql, int partitions, int rows) throws Exception {
        String cql = createTableCql.replace("ks.t ", KS + "." + table + " ") + NO_COMPACTION;
        session.execute(cql);
        String folder = ReadmeRecipeTest.tableDir(out.resolve(cluster.node(0).address)).getFileName().toString();
        for (int i = 0; i < cluster.size(); i++) {
            CassandraNode node = cluster.node(i);
            Path dir = out.resolve(node.address).resolve(KS).resolve(folder);
            int logFrom = node.logLines();
            assertEquals(List.of(), node.importSSTables(KS, table, List.of(dir)), node.address + " refused " + dir + ":\n" + node.errors(logFrom));
        }
        int rowsPerPartition = rows / partitions;
        for (int i = 0; i < cluster.size(); i++) {
            CassandraNode node = cluster.node(i);
            Map<Integer, Integer> held = new TreeMap<>();
            for (Partition p : node.readTable(KS, table, cql)) held.merge(p.key().toBuffer().getInt(0), p.rows().size(), Integer::sum);
            Map<Integer, Integer> want = new TreeMap<>();
            for (int pk = 0; pk < partitions; pk++) {
                if (DriverRing.replicas(session, KS, ByteBuffer.allocate(4).putInt(0, pk)).contains(node.address)) want.put(pk, rowsPerPartition);
            }
            assertEquals(want, held, node.address + ": partitions of " + KS + "." + table + " it holds, and their rows");
            System.out.printf("%s holds exactly its %d of %d partitions of %s.%s%n", node.address, held.size(), partitions, KS, table);
        }
        long n = session.execute(SimpleStatement.newInstance("SELECT pk, ck, v FROM " + KS + "." + table)
                .setConsistencyLevel(ConsistencyLevel.ALL).setPageSize(5000)).all().size();
        assertEquals(rows, n, "rows of " + KS + "." + table + " read at ALL");
    }

    /**
     * What the README says must be on the executors' class path: with the bundle on the driver's
     * class path only (it plans the write) and not shipped with {@code --jars}, the job fails in
     * its tasks, on the executors, for want of Flushline's classes.
     */
    @Test
    @Order(2)
    void withoutTheBundleOnTheExecutorsTheTasksFailForFlushlinesClasses() throws Exception {
        Path jar = jobJar(ReadmeRecipeTest.EXAMPLE, ReadmeRecipeTest.example(ReadmeRecipeTest.property("flushline.readme")));
        Path log = tmp.resolve("no-bundle-submit.log");
        Process p = spark.submit(List.of("--driver-class-path", bundle.toString(), "--conf", "spark.task.maxFailures=1",
                "--class", ReadmeRecipeTest.EXAMPLE, jar.toString(), tmp.resolve("no-bundle").toString()), log, bundle.toString());
        boolean ended = p.waitFor(10, TimeUnit.MINUTES);
        if (!ended) p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        String output = Files.readString(log);
        assertTrue(ended && p.exitValue() != 0, "the job without the bundle on the executors did not fail:\n" + ReadmeRecipeTest.tail(log));
        // The driver planned the write (it has the bundle); its tasks failed on the executors.
        assertTrue(output.contains("Job aborted due to stage failure") && output.contains("Lost task"),
                "not a failure of the tasks:\n" + ReadmeRecipeTest.tail(log));
        StringBuilder executors = new StringBuilder();
        for (int w = 0; w < 2; w++) for (Path l : spark.executorLogs(w)) executors.append(Files.readString(l));
        Matcher missing = Pattern.compile("ClassNotFoundException: (dev\\.flushline\\.[\\w.$]+)").matcher(output + executors);
        String lambda = "cannot assign instance of java.lang.invoke.SerializedLambda";
        // Java deserialization of a task whose closure needs a class the executor cannot load fails
        // either way: with the class named, or as this cast error when a lambda's class is missing.
        assertTrue(missing.find() || output.contains(lambda), "the tasks did not fail for a missing class:\n" + ReadmeRecipeTest.tail(log));
        System.out.println("without the bundle on the executors the tasks fail: "
                + (missing.find(0) ? "ClassNotFoundException: " + missing.group(1) : lambda));
    }

    static final String KILL_JOB = String.join("\n",
            "import dev.flushline.spark.FlushlineSpark;",
            "import org.apache.spark.sql.SparkSession;",
            "import java.util.Map;",
            "public class KillWorkerJob {",
            "    public static void main(String[] a) {",
            "        SparkSession spark = SparkSession.builder().appName(\"flushline-kill-worker\").getOrCreate();",
            "        FlushlineSpark.write(spark.sql(\"SELECT CAST(id % 400 AS INT) AS pk, CONCAT('c', id) AS ck, id AS v FROM range(12000)\"),",
            "                Map.of(\"table\", a[1], \"path\", a[0], \"ring\", a[2], \"test_hold_tasks_until_file\", a[3]));",
            "        spark.stop();",
            "    }",
            "}",
            "");
    static final Pattern ATTEMPT = Pattern.compile("p(\\d+)-t(\\d+)-a(\\d+)");

    @Test
    @Order(3)
    void aWorkerKilledMidWriteStillCommitsEveryRangeOnceAndLeavesNothingBehind() throws Exception {
        String table = "CREATE TABLE ks.t (pk int, ck text, v bigint, PRIMARY KEY (pk, ck))";
        Path jar = jobJar("KillWorkerJob", KILL_JOB);
        Path out = tmp.resolve("kill");
        Path go = tmp.resolve("kill-go");
        Path log = tmp.resolve("kill-submit.log");
        Process p = spark.submit(List.of("--jars", bundle.toString(), "--class", "KillWorkerJob", jar.toString(), out.toString(), table,
                ringFile.toString(), go.toString()), log);
        // Attempt directories seen, by Spark partition: task ids. Every task holds after its first row until 'go' exists.
        Map<Integer, Set<Long>> attempts = new TreeMap<>();
        try {
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
            while (true) {
                List<String> live = attemptDirs(out, attempts);
                // Two executors of one core each: two attempts at once are one on each worker, both mid-write.
                if (live.size() >= 2) {
                    System.out.println("killing worker 1 while these attempts hold: " + live);
                    break;
                }
                assertTrue(p.isAlive(), "the job ended before two tasks were mid-write:\n" + ReadmeRecipeTest.tail(log));
                assertTrue(System.nanoTime() < deadline, "no two tasks mid-write in time:\n" + ReadmeRecipeTest.tail(log) + "\n" + spark.logTails(20));
                Thread.sleep(100);
            }
            spark.killWorker(0);
            assertFalse(spark.workerAlive(0), "worker 1 still runs");
        } finally {
            Files.createFile(go); // let the job go on, also if the test fails here
        }
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
        while (p.isAlive() && System.nanoTime() < deadline) {
            attemptDirs(out, attempts);
            Thread.sleep(200);
        }
        awaitSuccess(p, log, 1);
        String driverLog = Files.readString(log);
        assertTrue(driverLog.contains("Lost executor") || driverLog.contains("ExecutorLostFailure") || driverLog.contains("Removing executor"),
                "the driver did not see an executor lost:\n" + ReadmeRecipeTest.tail(log));
        boolean retried = false;
        for (Set<Long> tasks : attempts.values()) retried |= tasks.size() > 1;
        assertTrue(retried, "no Spark partition ran a second attempt: " + attempts);
        System.out.println("attempts seen (partition -> task ids): " + attempts);

        // Exactly one copy of every range on each of its replicas, nothing else left.
        Set<String> names = new TreeSet<>();
        try (Stream<Path> s = Files.list(out)) {
            for (Path f : s.toList()) names.add(f.getFileName().toString());
        }
        Set<String> expectedNames = new TreeSet<>(Set.of("flushline-manifest.tsv"));
        for (int i = 0; i < ring.nodeCount(); i++) expectedNames.add(ring.node(i).address());
        assertEquals(expectedNames, names, "what the job left in " + out);
        List<String[]> manifest = ReadmeRecipeTest.manifest(out);
        assertEquals(ring.segmentCount(), manifest.size(), "manifest lines, one per ring range");
        for (int node = 0; node < ring.nodeCount(); node++) {
            Path dir = ReadmeRecipeTest.tableDir(out.resolve(ring.node(node).address()));
            try (Stream<Path> s = Files.list(dir)) {
                for (Path f : s.toList()) {
                    assertTrue(f.getFileName().toString().matches("oa-\\d+-big-.+"), "left behind in a node directory: " + f);
                }
            }
            Map<Integer, Integer> held = new TreeMap<>();
            for (Partition part : CassandraReader.readAll(dir, table)) {
                int pk = part.key().toBuffer().getInt(0);
                assertEquals(null, held.put(pk, part.rows().size()), dir + ": partition " + pk + " twice");
            }
            Map<Integer, Integer> want = new TreeMap<>();
            for (int pk = 0; pk < 400; pk++) {
                byte[] key = ByteBuffer.allocate(4).putInt(0, pk).array();
                if (Arrays.binarySearch(ring.replicasOf(Murmur3.token(key, 0, key.length)), node) >= 0) want.put(pk, 30);
            }
            assertEquals(want, held, dir + ": partitions and their rows");
        }
        loadAndCheck(out, "t_kill", table, 400, 12_000);
    }

    /** The attempt directories now under the write's staging root; each is also recorded in {@code seen}. */
    static List<String> attemptDirs(Path out, Map<Integer, Set<Long>> seen) throws Exception {
        List<String> live = new ArrayList<>();
        if (!Files.isDirectory(out)) return live;
        try (Stream<Path> roots = Files.list(out)) {
            for (Path root : roots.filter(r -> r.getFileName().toString().startsWith("_flushline_staging-")).toList()) {
                try (Stream<Path> s = Files.list(root)) {
                    for (Path a : s.toList()) {
                        Matcher m = ATTEMPT.matcher(a.getFileName().toString());
                        if (!m.matches()) continue;
                        live.add(m.group());
                        seen.computeIfAbsent(Integer.parseInt(m.group(1)), k -> new TreeSet<>()).add(Long.parseLong(m.group(2)));
                    }
                } catch (java.nio.file.NoSuchFileException gone) {
                    // the job committed meanwhile
                }
            }
        } catch (java.nio.file.NoSuchFileException gone) {
            // likewise
        }
        return live;
    }
}

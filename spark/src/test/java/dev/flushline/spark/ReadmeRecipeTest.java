package dev.flushline.spark;

import dev.flushline.oracle.Bytes;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.Cell;
import dev.flushline.oracle.ColumnData;
import dev.flushline.oracle.Partition;
import dev.flushline.oracle.Row;

import org.apache.cassandra.dht.Murmur3Partitioner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's Spark recipe as written: the {@code SparkWriteExample} job is taken from the README
 * (the code block after {@code <!-- readme-example: SparkWriteExample -->}), compiled against Spark
 * and the bundle jar, put in a job jar, and submitted the way {@code spark-submit --master local[2]
 * --jars <bundle> --class SparkWriteExample job.jar} does it: a child JVM running
 * {@code org.apache.spark.deploy.SparkSubmit} (the class {@code bin/spark-submit} ends in) on
 * Spark's jars alone, with the JVM options Spark's launcher adds on JDK 17. Flushline reaches the
 * job only through the bundle jar that {@code --jars} names, so a class or service file missing
 * from the bundle fails the job. cassandra-all then reads back every row of both outputs.
 *
 * <p>Runs in the integration-test phase (the bundle is made in package); its inputs come as system
 * properties from the pom.
 */
public class ReadmeRecipeTest {
    public static final String EXAMPLE = "SparkWriteExample";
    public static final String TABLE = "CREATE TABLE ks.t (pk int, ck text, v bigint, PRIMARY KEY (pk, ck))";
    /** The example writes {@code range(1000)}: row {@code id} is {@code (pk = id % 100, ck = 'c' + id, v = id)}. */
    public static final int ROWS = 1000;
    public static final int PARTITIONS = 100;
    static final int RANGES = 8;

    @TempDir
    Path tmp;

    public static Path property(String name) {
        String v = System.getProperty(name);
        assertTrue(v != null && !v.isEmpty(), "system property " + name + " is not set (the pom sets it)");
        Path p = Paths.get(v);
        assertTrue(Files.exists(p), name + ": no " + p);
        return p;
    }

    public static String example(Path readme) throws Exception {
        String text = Files.readString(readme, StandardCharsets.UTF_8);
        String marker = "<!-- readme-example: " + EXAMPLE + " -->";
        int at = text.indexOf(marker);
        assertTrue(at >= 0, readme + " has no " + marker);
        int start = text.indexOf("```java\n", at);
        assertTrue(start >= 0, readme + ": no java code block after " + marker);
        start += "```java\n".length();
        return text.substring(start, text.indexOf("```", start));
    }

    @Test
    void sparkSubmitWithTheBundleRunsTheReadmeJob() throws Exception {
        String sparkClasspath = Files.readString(property("flushline.spark.classpath")).trim();
        Path bundle = property("flushline.spark.bundle");
        for (String entry : sparkClasspath.split(File.pathSeparator)) {
            String name = Paths.get(entry).getFileName().toString();
            assertFalse(name.startsWith("flushline") || name.startsWith("jctools"),
                    "Spark's class path must not bring Flushline or its dependencies itself: " + entry);
        }

        // Compile the job as a user would: against Spark and the bundle.
        Path src = Files.createDirectories(tmp.resolve("src"));
        Path classes = Files.createDirectories(tmp.resolve("classes"));
        Path file = src.resolve(EXAMPLE + ".java");
        Files.writeString(file, example(property("flushline.readme")));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int rc = javac.run(null, null, errors, "-classpath", sparkClasspath + File.pathSeparator + bundle,
                "-d", classes.toString(), "-Xlint:all,-classfile,-processing,-options", "-Werror", file.toString());
        assertEquals(0, rc, "the README example " + EXAMPLE + " does not compile:\n" + errors);
        Path jobJar = tmp.resolve("my-job.jar");
        try (JarOutputStream jar = new JarOutputStream(Files.newOutputStream(jobJar));
             Stream<Path> s = Files.list(classes)) {
            for (Path c : s.toList()) {
                jar.putNextEntry(new JarEntry(c.getFileName().toString()));
                Files.copy(c, jar);
                jar.closeEntry();
            }
        }

        // Submit it.
        Path out = tmp.resolve("bulk");
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx1g");
        for (String flag : System.getProperty("flushline.spark.jvm.flags", "").trim().split("\\s+")) {
            if (!flag.isEmpty()) command.add(flag);
        }
        command.add("-Dspark.ui.enabled=false");
        command.add("-cp");
        command.add(sparkClasspath);
        command.add("org.apache.spark.deploy.SparkSubmit");
        command.addAll(List.of("--master", "local[2]", "--jars", bundle.toString(), "--class", EXAMPLE,
                jobJar.toString(), out.toString()));
        Path log = tmp.resolve("spark-submit.log");
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
        Process p = pb.start();
        // A bound against a hung child only; nothing is asserted about how long the job took.
        boolean ended = p.waitFor(10, TimeUnit.MINUTES);
        if (!ended) p.destroyForcibly().waitFor();
        int exit = ended ? p.exitValue() : -1;
        assertEquals(0, exit, "spark-submit " + (ended ? "exited with " + exit : "did not end in 10 minutes")
                + "; its output:\n" + tail(log));

        CassandraOracle.init();
        // FlushlineSpark.write: one range folder per token range, each token inside its range.
        Path ranged = out.resolve("t");
        List<String[]> manifest = manifest(ranged);
        assertEquals(RANGES, manifest.size(), "manifest lines of " + ranged);
        Map<Integer, Integer> rowsOfKey = new HashMap<>();
        long total = 0;
        for (int i = 0; i < RANGES; i++) {
            String[] line = manifest.get(i);
            assertEquals(String.format("range-%05d", i), line[0], "100 keys leave no range of 8 empty");
            long first = Long.parseLong(line[1]);
            long last = Long.parseLong(line[2]);
            long here = 0;
            for (Partition part : CassandraReader.readAll(tableDir(ranged.resolve(line[0])), TABLE)) {
                long token = (Long) Murmur3Partitioner.instance.getToken(part.key().toBuffer()).getTokenValue();
                assertTrue(token >= first && token <= last, "token " + token + " in " + line[0] + " [" + first + ", " + last + "]");
                here += checkPartition(part, rowsOfKey);
            }
            assertEquals(Long.parseLong(line[3]), here, line[0] + " rows against the manifest");
            total += here;
        }
        assertEquals(ROWS, total, "rows under " + ranged);
        assertEquals(PARTITIONS, rowsOfKey.size(), "partitions under " + ranged);

        // The plain data source: part folders, the same rows.
        Path plain = out.resolve("t-plain");
        assertFalse(manifest(plain).isEmpty(), "manifest lines of " + plain);
        Map<Integer, Integer> plainRowsOfKey = new HashMap<>();
        long plainTotal = 0;
        List<Path> parts;
        try (Stream<Path> s = Files.list(plain)) {
            parts = s.filter(d -> d.getFileName().toString().startsWith("part-")).sorted().toList();
        }
        assertFalse(parts.isEmpty(), "no part-NNNNN folder in " + plain);
        for (Path part : parts) {
            for (Partition partition : CassandraReader.readAll(tableDir(part), TABLE)) plainTotal += checkPartition(partition, plainRowsOfKey);
        }
        assertEquals(ROWS, plainTotal, "rows under " + plain);
        assertEquals(rowsOfKey, plainRowsOfKey, "rows per partition, plain against FlushlineSpark.write");
    }

    /** Checks each row of {@code p} against what the example writes; counts them per key (a key seen twice fails). */
    public static int checkPartition(Partition p, Map<Integer, Integer> rowsOfKey) {
        int pk = p.key().toBuffer().getInt(0);
        int n = 0;
        for (Row row : p.rows()) {
            String ck = StandardCharsets.UTF_8.decode(row.clustering().get(0).toBuffer()).toString();
            assertTrue(ck.startsWith("c"), "clustering " + ck + " in partition " + pk);
            long id = Long.parseLong(ck.substring(1));
            assertEquals(id % 100, pk, "row " + ck + " in partition " + pk);
            Bytes v = null;
            for (ColumnData c : row.columns()) {
                if (c instanceof Cell cell && cell.column().equals("v")) v = cell.value();
            }
            assertEquals(Bytes.int64(id), v, "v of row " + ck + " in partition " + pk);
            n++;
        }
        assertEquals(null, rowsOfKey.put(pk, n), "partition " + pk + " written twice");
        return n;
    }

    public static Path tableDir(Path folder) throws Exception {
        try (Stream<Path> s = Files.list(folder.resolve("ks"))) {
            List<Path> dirs = s.toList();
            assertEquals(1, dirs.size(), "table folders in " + folder);
            assertTrue(dirs.get(0).getFileName().toString().matches("t-[0-9a-f]{32}"), dirs.get(0).toString());
            return dirs.get(0);
        }
    }

    /** The manifest's lines without comments; fails if there is none (the write did not complete). */
    public static List<String[]> manifest(Path dir) throws Exception {
        Path m = dir.resolve(FlushlineBatchWrite.MANIFEST);
        assertTrue(Files.exists(m), "no manifest " + m);
        List<String[]> lines = new ArrayList<>();
        for (String l : Files.readAllLines(m)) {
            if (!l.startsWith("#") && !l.isEmpty()) lines.add(l.split("\t"));
        }
        return lines;
    }

    public static String tail(Path log) throws Exception {
        if (!Files.exists(log)) return "(none)";
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 80), lines.size()));
    }
}

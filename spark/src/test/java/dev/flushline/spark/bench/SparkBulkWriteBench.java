package dev.flushline.spark.bench;

import dev.flushline.spark.FlushlineSpark;

import org.apache.cassandra.io.sstable.CQLSSTableWriter;
import org.apache.spark.api.java.function.ForeachPartitionFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.TaskContext;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Spark bulk-write benchmark, not run by the tests: the bench workload's rows
 * ({@code stress.stress_table (pk bigint, ck int, v1..v5 text, PRIMARY KEY (pk, ck))}, 10 rows per
 * partition, five 16-character values) written in one Spark job each, in one run, by
 *
 * <ol>
 *   <li>flushline: {@code FlushlineSpark.write} (the data source, one task per token range);
 *   <li>cassandra: the way Cassandra Analytics drives CQLSSTableWriter: the same token-range
 *       partitioning, rows sorted by token and clustering within each partition, then
 *       {@code foreachPartition} with one {@code CQLSSTableWriter.builder().sorted()} per task.
 * </ol>
 *
 * The input is generated and cached before either job runs, so both time only the write. Printed
 * per system: wall time, rows/s, output bytes, sstables, and the bytes of their Filter.db (the bloom
 * filters; CQLSSTableWriter's are sized wrong).
 *
 * <p>Command (repository root; {@code mvn -B -ntp verify} has built spark/target):
 * <pre>
 * mvn -B -ntp -q -f spark/pom.xml -Dmaven.repo.local=target/it-repo -s /path/to/settings.xml \
 *     dependency:build-classpath -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=test
 * java -Xmx8g (the pom's spark.jvm.flags and cassandra.jvm.flags) \
 *     -cp spark/target/classes:spark/target/test-classes:$(cat spark/target/bench.classpath) \
 *     dev.flushline.spark.bench.SparkBulkWriteBench --rows 2600000 --master 'local[2]'
 * </pre>
 * Options: {@code --rows N} (default 2,600,000; rounded down to whole partitions), {@code --ranges R}
 * (default 2 × the master's cores), {@code --master M} (default {@code local[2]}), {@code --dir D}
 * (default a temp directory; every output is deleted after it is measured), {@code --only
 * flushline|cassandra}, {@code --rounds R} (default 1; rounds alternate which system goes first).
 */
public final class SparkBulkWriteBench {
    static final String TABLE = "CREATE TABLE stress.stress_table (pk bigint, ck int, v1 text, v2 text, v3 text, v4 text, v5 text, PRIMARY KEY (pk, ck))";
    static final String INSERT = "INSERT INTO stress.stress_table (pk, ck, v1, v2, v3, v4, v5) VALUES (?, ?, ?, ?, ?, ?, ?)";
    static final int ROWS_PER_PARTITION = 10;

    private SparkBulkWriteBench() {}

    public static void main(String[] args) throws Exception {
        long rows = 2_600_000;
        int ranges = 0;
        String master = "local[2]";
        String only = null;
        int rounds = 1;
        Path dir = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rows": rows = Long.parseLong(args[++i]); break;
                case "--ranges": ranges = Integer.parseInt(args[++i]); break;
                case "--master": master = args[++i]; break;
                case "--dir": dir = Paths.get(args[++i]); break;
                case "--only": only = args[++i]; break;
                case "--rounds": rounds = Integer.parseInt(args[++i]); break;
                default: throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        long partitions = rows / ROWS_PER_PARTITION;
        rows = partitions * ROWS_PER_PARTITION;
        boolean temp = dir == null;
        if (temp) dir = Files.createTempDirectory("spark-bulk-bench");
        SparkSession spark = SparkSession.builder().master(master).appName("flushline-spark-bulk-bench")
                .config("spark.ui.enabled", "false").config("spark.driver.host", "127.0.0.1").getOrCreate();
        try {
            if (ranges == 0) ranges = 2 * spark.sparkContext().defaultParallelism();
            Dataset<Row> input = spark.range(rows).selectExpr("id div " + ROWS_PER_PARTITION + " AS pk",
                    "CAST(id % " + ROWS_PER_PARTITION + " AS INT) AS ck",
                    "substr(sha2(CAST(id * 5 AS STRING), 256), 1, 16) AS v1",
                    "substr(sha2(CAST(id * 5 + 1 AS STRING), 256), 1, 16) AS v2",
                    "substr(sha2(CAST(id * 5 + 2 AS STRING), 256), 1, 16) AS v3",
                    "substr(sha2(CAST(id * 5 + 3 AS STRING), 256), 1, 16) AS v4",
                    "substr(sha2(CAST(id * 5 + 4 AS STRING), 256), 1, 16) AS v5")
                    .repartition(spark.sparkContext().defaultParallelism()).cache();
            long counted = input.count();
            System.out.printf("input: %,d rows in %,d partitions, cached; %d token ranges, master %s%n", counted, partitions, ranges, master);

            for (int round = 0; round < rounds; round++) {
                // Alternate which system goes first, so neither always runs on a colder JVM.
                boolean flushlineFirst = round % 2 == 0;
                for (int k = 0; k < 2; k++) {
                    boolean flushline = (k == 0) == flushlineFirst;
                    String system = flushline ? "flushline" : "cassandra";
                    if (only != null && !only.equals(system)) continue;
                    Path out = dir.resolve(system + "-" + round);
                    long t0 = System.nanoTime();
                    if (flushline) writeWithFlushline(input, out, ranges);
                    else writeWithCassandra(input, out, ranges);
                    report(system + " #" + (round + 1), out, rows, System.nanoTime() - t0);
                    deleteTree(out);
                }
            }
        } finally {
            spark.stop();
            if (temp) deleteTree(dir);
        }
    }

    static void writeWithFlushline(Dataset<Row> input, Path out, int ranges) {
        Map<String, String> o = new HashMap<>();
        o.put("table", TABLE);
        o.put("path", out.toString());
        o.put("ranges", Integer.toString(ranges));
        o.put("max_sstable_size_mb", "160");
        FlushlineSpark.write(input, o);
    }

    /** Cassandra Analytics' way: the same token ranges, sorted by token then clustering, one sorted CQLSSTableWriter per task. */
    static void writeWithCassandra(Dataset<Row> input, Path out, int ranges) throws IOException {
        Files.createDirectories(out);
        String outDir = out.toString();
        FlushlineSpark.partitionByTokenRange(input, TABLE, ranges)
                .repartition(ranges, functions.col(FlushlineSpark.BUCKET_COLUMN))
                .sortWithinPartitions(FlushlineSpark.TOKEN_COLUMN, "ck")
                .foreachPartition((ForeachPartitionFunction<Row>) it -> writeTask(it, outDir));
    }

    /** One task of the CQLSSTableWriter path: its rows, sorted by token, into its own directory. */
    static void writeTask(java.util.Iterator<Row> it, String outDir) throws IOException {
        Path dir = Paths.get(outDir, String.format("task-%05d", TaskContext.getPartitionId()), "stress", "stress_table");
        Files.createDirectories(dir);
        try (CQLSSTableWriter w = CQLSSTableWriter.builder().inDirectory(dir.toString()).forTable(TABLE).using(INSERT)
                .sorted().withMaxSSTableSizeInMiB(160).build()) {
            Object[] values = new Object[7];
            while (it.hasNext()) {
                Row r = it.next();
                values[0] = r.getLong(0);
                values[1] = r.getInt(1);
                for (int i = 2; i < 7; i++) values[i] = r.getString(i);
                w.addRow(values);
            }
        }
    }

    static void report(String system, Path out, long rows, long wallNanos) throws IOException {
        long bytes = 0, filterBytes = 0;
        int sstables = 0;
        List<Path> files;
        try (Stream<Path> s = Files.walk(out)) {
            files = new ArrayList<>(s.filter(Files::isRegularFile).toList());
        }
        for (Path f : files) {
            long size = Files.size(f);
            bytes += size;
            String name = f.getFileName().toString();
            if (name.endsWith("-Filter.db")) filterBytes += size;
            if (name.endsWith("-Data.db")) sstables++;
        }
        double seconds = wallNanos / 1e9;
        System.out.printf("%-9s wall %8.2f s  %,12.0f rows/s  output %,d bytes in %d sstables  bloom filters %,d bytes (%.2f bits/partition)%n",
                system, seconds, rows / seconds, bytes, sstables, filterBytes, filterBytes * 8.0 / (rows / ROWS_PER_PARTITION));
    }

    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) return;
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }
}

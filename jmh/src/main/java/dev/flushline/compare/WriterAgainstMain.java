package dev.flushline.compare;

import dev.flushline.writer.FlushlineSSTableWriter;

import org.apache.cassandra.db.marshal.LongType;
import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.io.sstable.CQLSSTableWriter;
import org.apache.cassandra.io.sstable.Descriptor;
import org.apache.cassandra.io.sstable.metadata.MetadataType;
import org.apache.cassandra.io.sstable.metadata.StatsMetadata;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Bulk-writer benchmark: Cassandra 5.0.5's CQLSSTableWriter against FlushlineSSTableWriter, the same rows,
 * same builder calls, one JVM, side by side.
 *
 * <p><b>Question:</b> how much faster, and with how much less allocation, does FlushlineSSTableWriter turn
 * {@code addRow(Object...)} calls into sstables than CQLSSTableWriter? <b>Axis:</b> writer (cassandra,
 * flushline) × feed (unsorted: partitions in pk order, the writer's default buffering mode; sorted:
 * partitions in Murmur3 token order with {@code sorted()} on the builder). Table
 * {@code stress.stress_table (pk bigint, ck int, v1..v5 text, PRIMARY KEY (pk, ck))}, 10 rows per partition,
 * five 16-character ASCII values per row drawn from a seeded pool of 65,536 strings (the pool, the boxed pks
 * and the token-sorted pk order are built before any timed part, and one argument array is reused, so the
 * harness allocates nothing per row). Both writers get {@code withBufferSizeInMiB(128)}.
 *
 * <p><b>Measured per writer run</b>, from {@code build()} to {@code close()} returning: wall time, rows/s;
 * CPU and allocated bytes summed over every Java thread that ran in the window (ThreadMXBean per thread id,
 * read before, by a sampler every 10 ms so threads that end in the window, such as Flushline's flush thread,
 * are counted up to their last sample, and after; the sampler itself excluded); process CPU
 * (OperatingSystemMXBean, adds GC and JIT threads). Output bytes are the sum of the directory's files; rows and
 * partition entries are summed over each sstable's Statistics.db (cassandra-all's metadata serializer); the run
 * fails unless every writer holds exactly the rows fed and the partitions fed, give or take one partition entry
 * per sstable boundary (a buffer flushed mid-partition leaves that partition in two sstables).
 *
 * <p><b>Command</b> (repository root, after {@code mvn -o install -DskipTests} and
 * {@code mvn -o -f jmh/pom.xml package dependency:build-classpath -Dmdep.outputFile=jmh/target/compare.classpath}):
 * <pre>
 * java -Xmx8g $(cassandra.jvm.flags from pom.xml) -cp target/classes:jmh/target/classes:$(cat jmh/target/compare.classpath) \
 *     dev.flushline.compare.WriterAgainstMain --rows 1000000 --rounds 3
 * </pre>
 * (target/classes, not the jar: the jar's manifest class path would add target/lib's SLF4J 2 jars, and
 * cassandra-all 5.0.5's logback 1.2 binds only to the SLF4J 1.7 of the comparison class path.)
 * Options: {@code --rows N} (rounded down to whole partitions), {@code --rounds R} measured rounds after one
 * warm-up round, {@code --seed S}, {@code --dir D} (default a temp directory, deleted). Prints each run, then
 * medians per writer and feed, and cassandra/flushline ratios.
 *
 * <p><b>Last result</b> (2026-12-01, {@code --rows 2590000 --rounds 3}, medians, 2 vCPU VM shared with another
 * benchmark; profiles/2026-12-01-bulk-writer/README.md in this repository): Flushline's rows/s ×1.06 of
 * CQLSSTableWriter's unsorted (191,741 vs 181,461) and ×0.61 sorted (196,911 vs 320,820); Flushline allocated
 * ×1.19 / ×1.23 as much (5,994 MiB vs 5,051 / 4,893 MiB). The goals (≥ ×5 rows/s, ≤ 1/10 allocation) are missed.
 */
public final class WriterAgainstMain {
    private WriterAgainstMain() {}

    static final String CREATE = "CREATE TABLE stress.stress_table (pk bigint, ck int, v1 text, v2 text, v3 text, "
            + "v4 text, v5 text, PRIMARY KEY (pk, ck))";
    static final String INSERT = "INSERT INTO stress.stress_table (pk, ck, v1, v2, v3, v4, v5) VALUES (?, ?, ?, ?, ?, ?, ?)";
    static final int ROWS_PER_PARTITION = 10;
    static final int POOL = 1 << 16;
    static final int BUFFER_MIB = 128;

    /** One writer run's costs. */
    static final class Result {
        String writer;
        String feed;
        long wallNanos;
        long threadCpuNanos;
        long allocBytes;
        long processCpuNanos;
        long bytes;
        long rows;
        long partitions;
        int sstables;
        /** The first Data.db that {@link #count} found (null if none). */
        Path firstDataFile;

        double rowsPerSecond(long fed) { return fed / (wallNanos / 1e9); }
    }

    public static void main(String[] args) throws Exception {
        long rows = 100_000;
        int rounds = 3;
        long seed = 42;
        Path dir = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rows": rows = Long.parseLong(args[++i]); break;
                case "--rounds": rounds = Integer.parseInt(args[++i]); break;
                case "--seed": seed = Long.parseLong(args[++i]); break;
                case "--dir": dir = Path.of(args[++i]); break;
                default:
                    System.err.println("WriterAgainstMain: unknown option " + args[i]
                            + " (options: --rows N --rounds R --seed S --dir D)");
                    System.exit(1);
            }
        }
        quietLogging();
        int partitions = (int) (rows / ROWS_PER_PARTITION);
        long fed = (long) partitions * ROWS_PER_PARTITION;
        boolean tempDir = dir == null;
        Path root = tempDir ? Files.createTempDirectory("flushline-writer-against-") : Files.createDirectories(dir);

        // Inputs, built once: value pool, boxed pks in pk order and in token order.
        SplittableRandom random = new SplittableRandom(seed);
        String[] pool = new String[POOL];
        char[] chars = new char[16];
        for (int i = 0; i < POOL; i++) {
            for (int c = 0; c < chars.length; c++) chars[c] = (char) ('a' + random.nextInt(26));
            pool[i] = new String(chars);
        }
        Long[] byPk = new Long[partitions];
        for (int p = 0; p < partitions; p++) byPk[p] = (long) p;
        Integer[] cks = new Integer[ROWS_PER_PARTITION];
        for (int c = 0; c < ROWS_PER_PARTITION; c++) cks[c] = c;
        long[] tokens = new long[partitions];
        for (int p = 0; p < partitions; p++) {
            tokens[p] = (Long) Murmur3Partitioner.instance.getToken(LongType.instance.decompose((long) p)).getTokenValue();
        }
        Integer[] order = new Integer[partitions];
        for (int p = 0; p < partitions; p++) order[p] = p;
        Arrays.sort(order, Comparator.comparingLong(p -> tokens[p]));
        Long[] byToken = new Long[partitions];
        for (int p = 0; p < partitions; p++) byToken[p] = byPk[order[p]];
        int[] valueIndex = new int[ROWS_PER_PARTITION * 5];

        System.out.printf(Locale.ROOT, "rows %,d (%,d partitions × %d), seed %d, buffer %d MiB, warm-up + %d rounds, java %s, %d cpus%n",
                fed, partitions, ROWS_PER_PARTITION, seed, BUFFER_MIB, rounds, System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors());
        String[] writers = {"cassandra", "flushline"};
        String[] feeds = {"unsorted", "sorted"};
        Map<String, List<Result>> all = new HashMap<>();
        int run = 0;
        for (int round = 0; round <= rounds; round++) {
            for (String feed : feeds) {
                for (String writer : writers) {
                    Path runDir = root.resolve("r" + (run++) + "-" + writer + "-" + feed);
                    // <keyspace>/<table>/ so that Descriptor.fromFile can name the table when counting
                    Path out = Files.createDirectories(runDir.resolve("stress").resolve("stress_table"));
                    System.gc();
                    Result r = runOne(writer, feed, out, feed.equals("sorted") ? byToken : byPk, cks, pool, valueIndex, seed);
                    count(out, r);
                    System.out.printf(Locale.ROOT, "%s %-9s %-8s wall %,8d ms  rows/s %,10.0f  threadCPU %,8d ms  alloc %,10.1f MiB  processCPU %,8d ms  bytes %,d  sstables %d  rows %,d  partition entries %,d%n",
                            round == 0 ? "warm-up " : "round " + round + " ", writer, feed, r.wallNanos / 1_000_000,
                            r.rowsPerSecond(fed), r.threadCpuNanos / 1_000_000, r.allocBytes / 1048576.0,
                            r.processCpuNanos / 1_000_000, r.bytes, r.sstables, r.rows, r.partitions);
                    // A buffering writer that flushes mid-partition leaves that partition in two sstables: each
                    // sstable's Statistics.db counts it, so partition entries may exceed the partitions fed by up
                    // to one per sstable boundary; rows may not differ at all.
                    if (r.rows != fed || r.partitions < partitions || r.partitions > partitions + r.sstables - 1) {
                        throw new IllegalStateException(writer + " " + feed + ": Statistics.db say " + r.rows + " rows, "
                                + r.partitions + " partitions; fed " + fed + " rows, " + partitions + " partitions");
                    }
                    if (round > 0) all.computeIfAbsent(writer + "/" + feed, k -> new ArrayList<>()).add(r);
                    deleteTree(runDir);
                }
            }
        }
        System.out.printf(Locale.ROOT, "%nMedians of %d rounds:%n", rounds);
        System.out.println("| writer | feed | wall ms | rows/s | thread CPU ms | CPU ns/row | alloc MiB | alloc B/row | process CPU ms | bytes |");
        System.out.println("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (String feed : feeds) {
            for (String writer : writers) {
                List<Result> rs = all.get(writer + "/" + feed);
                long wall = median(rs, 0), cpu = median(rs, 1), alloc = median(rs, 2), pcpu = median(rs, 3), bytes = median(rs, 4);
                System.out.printf(Locale.ROOT, "| %s | %s | %,d | %,.0f | %,d | %,.0f | %,.1f | %,.1f | %,d | %,d |%n",
                        writer, feed, wall / 1_000_000, fed / (wall / 1e9), cpu / 1_000_000, (double) cpu / fed,
                        alloc / 1048576.0, (double) alloc / fed, pcpu / 1_000_000, bytes);
            }
        }
        System.out.println("\nRatios cassandra / flushline (medians; >1 = Flushline better, rows/s = flushline/cassandra):");
        System.out.println("| feed | rows/s | wall | thread CPU | alloc | process CPU | bytes |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|");
        for (String feed : feeds) {
            List<Result> c = all.get("cassandra/" + feed), f = all.get("flushline/" + feed);
            System.out.printf(Locale.ROOT, "| %s | ×%.2f | ×%.2f | ×%.2f | ×%.1f | ×%.2f | ×%.3f |%n", feed,
                    (double) median(c, 0) / median(f, 0), (double) median(c, 0) / median(f, 0),
                    (double) median(c, 1) / median(f, 1), (double) median(c, 2) / median(f, 2),
                    (double) median(c, 3) / median(f, 3), (double) median(c, 4) / median(f, 4));
        }
        if (tempDir) deleteTree(root);
        System.exit(0); // CQLSSTableWriter leaves non-daemon threads behind
    }

    /** cassandra-all ships no logback configuration, so logback's default would log DEBUG to the console. */
    private static void quietLogging() {
        org.slf4j.Logger rootLogger = org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        if (rootLogger instanceof ch.qos.logback.classic.Logger) {
            ((ch.qos.logback.classic.Logger) rootLogger).setLevel(ch.qos.logback.classic.Level.WARN);
        }
    }

    /** One writer, one feed, timed from build() to close() returning. */
    private static Result runOne(String writer, String feed, Path out, Long[] pks, Integer[] cks, String[] pool,
                                 int[] valueIndex, long seed) throws Exception {
        boolean sorted = feed.equals("sorted");
        Object[] row = new Object[7];
        SplittableRandom random = new SplittableRandom(seed + 1);
        Sampler sampler = new Sampler();
        sampler.start();
        long p0 = Costs.processCpuNanos();
        long t0 = System.nanoTime();
        Closeable w;
        if (writer.equals("cassandra")) {
            CQLSSTableWriter.Builder b = CQLSSTableWriter.builder().inDirectory(out.toString()).forTable(CREATE).using(INSERT)
                    .withBufferSizeInMiB(BUFFER_MIB);
            if (sorted) b.sorted();
            CQLSSTableWriter cw = b.build();
            w = cw;
            for (int p = 0; p < pks.length; p++) {
                row[0] = pks[p];
                for (int c = 0; c < ROWS_PER_PARTITION; c++) {
                    row[1] = cks[c];
                    for (int v = 0; v < 5; v++) row[2 + v] = pool[random.nextInt(POOL)];
                    cw.addRow(row);
                }
            }
        } else {
            FlushlineSSTableWriter.Builder b = FlushlineSSTableWriter.builder().inDirectory(out).forTable(CREATE).using(INSERT)
                    .withBufferSizeInMiB(BUFFER_MIB);
            if (sorted) b.sorted();
            FlushlineSSTableWriter fw = b.build();
            w = fw;
            for (int p = 0; p < pks.length; p++) {
                row[0] = pks[p];
                for (int c = 0; c < ROWS_PER_PARTITION; c++) {
                    row[1] = cks[c];
                    for (int v = 0; v < 5; v++) row[2 + v] = pool[random.nextInt(POOL)];
                    fw.addRow(row);
                }
            }
        }
        w.close();
        long t1 = System.nanoTime();
        long p1 = Costs.processCpuNanos();
        sampler.finish();
        Result r = new Result();
        r.writer = writer;
        r.feed = feed;
        r.wallNanos = t1 - t0;
        r.processCpuNanos = p1 - p0;
        r.threadCpuNanos = sampler.cpu;
        r.allocBytes = sampler.alloc;
        return r;
    }

    /**
     * Sums CPU and allocation deltas over all Java threads: a baseline at start, samples every 10 ms (so a thread
     * that ends in the window keeps its last sampled totals), a final sample. Excludes itself.
     */
    static final class Sampler extends Thread {
        private final Map<Long, long[]> base = new HashMap<>();
        private final Map<Long, long[]> last = new HashMap<>();
        private volatile boolean stop;
        long cpu;
        long alloc;

        Sampler() {
            super("writer-against-sampler");
            setDaemon(true);
            for (long id : Costs.THREADS.getAllThreadIds()) {
                long c = Costs.cpu(id), a = Costs.allocated(id);
                if (c >= 0 && a >= 0) base.put(id, new long[] {c, a});
            }
        }

        private void sample() {
            long self = getId();
            for (long id : Costs.THREADS.getAllThreadIds()) {
                if (id == self) continue;
                long c = Costs.cpu(id), a = Costs.allocated(id);
                if (c >= 0 && a >= 0) last.put(id, new long[] {c, a});
            }
        }

        @Override
        public void run() {
            while (!stop) {
                synchronized (this) { sample(); }
                try { Thread.sleep(10); } catch (InterruptedException e) { return; }
            }
        }

        void finish() throws InterruptedException {
            stop = true;
            join();
            sample(); // from the caller thread, after join: the maps are ours now
            for (Map.Entry<Long, long[]> e : last.entrySet()) {
                long[] b = base.get(e.getKey());
                cpu += e.getValue()[0] - (b == null ? 0 : b[0]);
                alloc += e.getValue()[1] - (b == null ? 0 : b[1]);
            }
        }
    }

    /** Rows, partitions, sstables and bytes of what a writer left in {@code dir} (Statistics.db of each Data.db). */
    static void count(Path dir, Result r) throws IOException {
        List<Path> files = new ArrayList<>();
        collect(dir, files);
        for (Path f : files) {
            r.bytes += Files.size(f);
            if (f.getFileName().toString().endsWith("-Data.db")) {
                Descriptor d = Descriptor.fromFile(new org.apache.cassandra.io.util.File(f.toFile()));
                StatsMetadata s = (StatsMetadata) d.getMetadataSerializer().deserialize(d, MetadataType.STATS);
                r.rows += s.totalRows;
                r.partitions += s.estimatedPartitionSize.count();
                r.sstables++;
                if (r.firstDataFile == null) r.firstDataFile = f;
            }
        }
    }

    private static void collect(Path dir, List<Path> into) throws IOException {
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                if (Files.isDirectory(p)) collect(p, into); else into.add(p);
            }
        }
    }

    static void deleteTree(Path dir) throws IOException {
        List<Path> files = new ArrayList<>();
        collect(dir, files);
        for (Path f : files) Files.delete(f);
        List<Path> dirs = new ArrayList<>();
        try (var walk = Files.walk(dir)) { walk.forEach(dirs::add); }
        for (int i = dirs.size() - 1; i >= 0; i--) Files.deleteIfExists(dirs.get(i));
    }

    /** Median of field k (0 wall, 1 thread CPU, 2 alloc, 3 process CPU, 4 bytes). */
    private static long median(List<Result> rs, int k) {
        long[] v = new long[rs.size()];
        for (int i = 0; i < v.length; i++) {
            Result r = rs.get(i);
            v[i] = k == 0 ? r.wallNanos : k == 1 ? r.threadCpuNanos : k == 2 ? r.allocBytes : k == 3 ? r.processCpuNanos : r.bytes;
        }
        Arrays.sort(v);
        return v[v.length / 2];
    }
}

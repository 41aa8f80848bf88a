package dev.flushline.bench;

import dev.flushline.cli.EngineOptions;
import dev.flushline.cli.UsageException;
import dev.flushline.cli.Args;

import dev.flushline.table.TableOptions;
import dev.flushline.schema.ValueText;
import dev.flushline.data.Cell;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.Row;
import dev.flushline.flush.FlushJob;
import dev.flushline.flush.FlushOutcome;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.schema.ValueCodec;
import dev.flushline.sstable.SSTableCursor;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.SSTableVersion;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code flushline bench}: the end-to-end flush benchmark on cassandra-stress's default shape,
 * {@code stress.stress_table (pk bigint, ck int, v1..vN text, PRIMARY KEY (pk, ck))}.
 *
 * <p>Steps: warm up (a small fill and flush with each of the three allocation
 * modes, so the flush call sites have seen every row source (Row objects of unslabbed_heap, row
 * records of the slab modes) before anything is measured; a JVM that has seen only one would inline
 * it and report a speed no real node sees);
 * fill one memtable (rows/s reported); seal; flush with FlushJob; print the flush log lines and,
 * with {@code --json}, one JSON object per sstable.
 *
 * <p>{@code --sstable-version oa,da}: the fill and flush run once per version, in the order given, each a fresh
 * memtable of the same rows, and the warm-up flushes every version too, so each version's index writer is
 * compiled before it is measured. The run ends with each version's flush CPU over oa's (the BTI goal is da at
 * most 1.1 times oa). Without the option the output is what it was before the option existed, line for line
 * (the docs and scripts parse it); with it, each JSON object also names its {@code sstable_version}.
 * {@code --version-rounds N} repeats the versions N times, reversing their order every other round, and ends with
 * the medians over the rounds: one pair moves with the machine and with its place in the run.
 *
 * <p>The workload is deterministic (fixed seed, fixed timestamps), so two runs flush the same
 * bytes. Thread safety: one thread fills; FlushJob may use {@code --flush-threads}.
 */
public final class BenchCommand {
    private BenchCommand() {}

    static final String HELP =
            "Usage: flushline bench [options]\n"
          + "\n"
          + "End-to-end flush benchmark: fills a memtable with stress.stress_table (pk bigint, ck int,\n"
          + "v1..v5 text, PRIMARY KEY (pk, ck)) rows, flushes it, prints Cassandra-style flush log lines.\n"
          + "The workload is deterministic (fixed seed and timestamps), so two runs write the same bytes.\n"
          + "Before measuring, it flushes a small memtable of each allocation mode (warm-up).\n"
          + "\n"
          + "  --partitions N                partitions (default 260000: about 2.6 million rows)\n"
          + "  --rows-per-partition N        rows per partition (default 10)\n"
          + "  --value-columns N             text columns v1..vN per row (default 5)\n"
          + "  --value-bytes N               bytes per text value (default 16)\n"
          + EngineOptions.HELP
          + "  --json                        also print one JSON object per sstable, with the keys sstable, bytes,\n"
          + "                                partitions, rows, cells, wall_ms, cpu_ms, allocated_bytes, memtable,\n"
          + "                                allocation, compression, system\n"
          + "  --out DIR                     keep the sstables in DIR (default: a temp dir, deleted afterwards)\n"
          + "  --warmup-partitions N         partitions of each warm-up flush (default 20000; 3 rounds x 3 allocation modes)\n"
          + "  --sstable-version V[,V...]    flush the same rows once per sstable version, in this order: oa (default),\n"
          + "                                nb, da (Cassandra 5.0's BTI format); the warm-up flushes each version, the\n"
          + "                                JSON objects gain the key sstable_version, and the run ends with each\n"
          + "                                version's flush cpu over oa's (goal for da: at most x1.10); with --against\n"
          + "                                cassandra, Cassandra 5.0.5 flushes oa and da too and every component file of\n"
          + "                                its sstable is compared with ours\n"
          + "  --version-rounds N            with two versions or more: fill and flush them N times, the order\n"
          + "                                reversed every other round (oa,da then da,oa), and end with each\n"
          + "                                version's median flush cpu over oa's and the median of the rounds'\n"
          + "                                ratios (default 1: once, in the order given; not with --against)\n"
          + "  --against SYSTEMS             also flush the same operations through cassandra (5.0.5), cassandra6\n"
          + "                                (6.0-alpha2, in a child JVM), rocksdb, or write them with cqlsstablewriter\n"
          + "                                (sorted and unsorted), or a comma list of these, and print the ratios to\n"
          + "                                Flushline;\n"
          + "                                then --allocation and --compression may be lists (lz4,none)\n"
          + "  --rounds N                    with --against: every system fills and flushes each setting N times,\n"
          + "                                in turn (Flushline, then each peer, N times over), and the table and\n"
          + "                                goals take each system's medians; each system's CPU by round is\n"
          + "                                listed before them; with several --sstable-version values the\n"
          + "                                versions take turns in each round, their order reversed every\n"
          + "                                other round (default 1)\n"
          + "                                (needs the jmh/ module on the class path: scripts/flushline adds it)\n"
          + "  --help                        this text\n"
          + "\n"
          + "flushline bench compact benchmarks major compaction instead (4 input sstables; beside Cassandra 5.0.5's\n"
          + "and 6.0's compaction and the codec floor; its options: flushline bench compact --help; needs the jmh/\n"
          + "module, which scripts/flushline adds)\n"
          + "flushline bench lookup benchmarks point lookups instead: the partition index lookup and partition read\n"
          + "of dump -k beside Cassandra 5.0.5's SSTableReader, over the same da (or oa) sstable, in CPU per lookup\n"
          + "(its options: flushline bench lookup --help; needs the jmh/ module, which scripts/flushline adds)\n"
          + "\n"
          + "Output: the warm-up line, a 'Filled ...' line (rows/s, memtable size, GC during the fill), then one line\n"
          + "per sstable:\n"
          + "  Completed flushing <Data.db path> (<Data.db MiB>) for commitlog position\n"
          + "  CommitLogPosition(segmentId=-1, position=0), time spent: N ms, bytes flushed: B/(R per sec),\n"
          + "  partitions flushed: N/(R per sec), rows: N/(R per sec), cpu time: N ms, allocated: <MiB>\n"
          + "(all on one line; cpu time and allocated are summed over the flush's threads; the first sstable's line\n"
          + "also counts the work outside any one sstable, such as splitting the memtable into ranges), then one line per sstable\n"
          + "for a full cursor scan of it (every cell's timestamp and value read), with its cpu time and allocation:\n"
          + "  Scanned <Data.db path>: N partitions, R rows, C cells in N ms, cpu time: N ms (N ns/row), allocated: <MiB>\n"
          + "With several sstable versions, those lines once per version, then per version other than oa:\n"
          + "  Flush cpu, <version> / oa: xR (<version> N ms, oa N ms)[; goal: at most x1.10]\n"
          + "and with --version-rounds N, those lines once per round, then per version other than oa:\n"
          + "  Flush cpu over N rounds, <version> / oa: ratio of the medians xR (<version> N ms, oa N ms),\n"
          + "  median of the rounds' ratios xR (xR to xR)[; goal: at most x1.10]\n"
          + "\n"
          + "Exit status: 0 ok, 1 usage, 2 internal or I/O failure.\n";

    public static final Set<String> OPTIONS;

    /** {@code --sstable-version V[,V...]}: the versions each measured flush is written in, in order. */
    public static final String SSTABLE_VERSIONS_OPTION = EngineOptions.SSTABLE_VERSION_OPTION;

    /**
     * {@code --version-rounds N}: the versions' fills and flushes N times, the order reversed every other round,
     * so that neither version always runs first (the first flush of a JVM's run costs less than the second).
     */
    public static final String VERSION_ROUNDS_OPTION = "version-rounds";

    /**
     * {@code --rounds N}, with {@code --against} only: each system fills and flushes each setting N times, in turn,
     * and the table and goals take each system's medians (the comparison module parses the number).
     */
    public static final String ROUNDS_OPTION = "rounds";

    /** The goal for our BTI flush: its CPU at most this many times our BIG (oa) flush's. */
    public static final double DA_OVER_OA_CPU_GOAL = 1.10;

    static {
        Set<String> s = new HashSet<>(EngineOptions.OPTIONS);
        s.add("partitions");
        s.add("rows-per-partition");
        s.add("value-columns");
        s.add("value-bytes");
        s.add("out");
        s.add("warmup-partitions");
        s.add("against");
        s.add(SSTABLE_VERSIONS_OPTION);
        s.add(VERSION_ROUNDS_OPTION);
        s.add(ROUNDS_OPTION);
        OPTIONS = Set.copyOf(s);
    }

    /**
     * Seed of the value generator: xorshift {@code s ^= s << 13; s ^= s >>> 7; s ^= s << 17}, one step per value
     * byte, byte = {@code '!' + (s >>> 33) % 94}; values in row order, v1..vN. The comparison main repeats it.
     */
    public static final long VALUE_SEED = 0x9E3779B97F4A7C15L;

    /** Microsecond timestamps of the workload: fixed, so reruns write the same bytes. */
    public static final long BASE_TIMESTAMP_MICROS = 1_750_000_000_000_000L;

    /** Runs the command; returns the exit status and never calls System.exit. */
    public static int run(String[] argv, InputStream stdin, PrintStream out, PrintStream err) {
        if (argv.length > 0 && argv[0].equals("compact")) {
            return inModule(COMPACT_MAIN, "compact", java.util.Arrays.copyOfRange(argv, 1, argv.length), out, err);
        }
        if (argv.length > 0 && argv[0].equals("lookup")) {
            return inModule(LOOKUP_MAIN, "lookup", java.util.Arrays.copyOfRange(argv, 1, argv.length), out, err);
        }
        Path tempDir = null;
        try {
            for (String s : argv) {
                if (s.equals("--help") || s.equals("-h")) {
                    out.print(HELP);
                    return 0;
                }
            }
            Args a = new Args("bench", argv, OPTIONS, Set.of("json"));
            if (a.has("against")) {
                if (a.has(VERSION_ROUNDS_OPTION)) {
                    throw new UsageException("--" + VERSION_ROUNDS_OPTION + " is for our own versions side by side, not with --against");
                }
                return inModule(AGAINST_MAIN, "--against", argv, out, err);
            }
            if (a.has(ROUNDS_OPTION)) {
                throw new UsageException("--" + ROUNDS_OPTION + " repeats the comparison with --against; for our own versions side by side, "
                        + "--" + VERSION_ROUNDS_OPTION);
            }
            Setup setup = new Setup(a);
            Path outDir;
            if (a.has("out")) {
                outDir = Path.of(a.string("out", null));
            } else {
                tempDir = Files.createTempDirectory("flushline-bench-");
                outDir = tempDir;
            }
            bench(setup, outDir, out);
            return 0;
        } catch (UsageException e) {
            err.println("flushline bench: " + e.getMessage());
            return 1;
        } catch (IOException e) {
            err.println("flushline bench: I/O error: " + dev.flushline.io.IoErrors.withCause(e));
            return 2;
        } catch (RuntimeException | Error e) {
            err.println("flushline bench: internal error: " + e);
            e.printStackTrace(err);
            return 2;
        } finally {
            if (tempDir != null) {
                try {
                    deleteRecursively(tempDir);
                } catch (IOException e) {
                    err.println("flushline bench: could not delete " + tempDir + ": " + e);
                }
            }
        }
    }

    /**
     * The comparisons live in the benchmark module (dev.flushline.compare in jmh/), because they need
     * cassandra-all and RocksDB, which the main code never depends on. They are found by name, so this jar runs
     * without them; scripts/flushline puts the module and its dependencies on the class path for
     * {@code bench --against} and {@code bench compact}.
     */
    private static int inModule(String mainClass, String what, String[] argv, PrintStream out, PrintStream err) {
        Class<?> c;
        try {
            c = Class.forName(mainClass);
        } catch (ClassNotFoundException e) {
            err.println("flushline bench: " + what + " needs the comparison module (" + mainClass + " in jmh/, with "
                    + "cassandra-all and rocksdbjni) on the class path; run it through scripts/flushline, which builds "
                    + "and adds it");
            return 2;
        }
        try {
            return (Integer) c.getMethod("run", String[].class, PrintStream.class, PrintStream.class)
                    .invoke(null, argv, out, err);
        } catch (java.lang.reflect.InvocationTargetException e) {
            err.println("flushline bench: internal error in the comparison: " + e.getCause());
            e.getCause().printStackTrace(err);
            return 2;
        } catch (ReflectiveOperationException e) {
            err.println("flushline bench: cannot start the comparison: " + e);
            return 2;
        }
    }

    private static final com.sun.management.OperatingSystemMXBean PROCESS =
            (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();

    static final String AGAINST_MAIN = "dev.flushline.compare.AgainstMain";
    static final String COMPACT_MAIN = "dev.flushline.compare.CompactCompareMain";
    static final String LOOKUP_MAIN = "dev.flushline.compare.LookupCompareMain";

    /**
     * The parsed bench options, public for the comparison main in the benchmark module, so that it runs
     * Flushline exactly as {@code flushline bench} does (same options, same warm-up, same fill, same FlushJob).
     */
    public static final class Setup {
        public final Workload workload;
        final EngineOptions engine;
        public final TableSchema schema;
        public final int warmupPartitions;
        public final boolean json;
        /** The sstable versions each measured flush is written in, in order; {@code [oa]} by default. */
        public final List<SSTableVersion> versions;
        /**
         * Whether {@code --sstable-version} was given. Without it every line and JSON object is what it was
         * before the option existed (docs and scripts parse them); with it they name the version.
         */
        public final boolean versionsGiven;
        /** {@code --version-rounds}: how many times the versions are filled and flushed (1 by default). */
        public final int versionRounds;

        Setup(Args a) throws UsageException {
            workload = new Workload(a.intValue("partitions", 260_000, 1, Integer.MAX_VALUE),
                    a.intValue("rows-per-partition", 10, 1, 1_000_000),
                    a.intValue("value-columns", 5, 1, 1000),
                    a.intValue("value-bytes", 16, 0, 1 << 20));
            engine = new EngineOptions(a);
            warmupPartitions = a.intValue("warmup-partitions", 20000, 0, Integer.MAX_VALUE);
            json = a.has("json");
            schema = engine.apply(CqlParser.parse(workload.cql()));
            versionsGiven = a.has(SSTABLE_VERSIONS_OPTION);
            versions = versionsGiven ? versions(a.string(SSTABLE_VERSIONS_OPTION, null)) : List.of(SSTableVersion.OA);
            versionRounds = a.intValue(VERSION_ROUNDS_OPTION, 1, 1, 1000);
            if (versionRounds > 1 && versions.size() < 2) {
                throw new UsageException("--" + VERSION_ROUNDS_OPTION + " " + versionRounds + " needs two sstable versions or more"
                        + " (--" + SSTABLE_VERSIONS_OPTION + " oa,da, say): the rounds are there to compare them");
            }
        }

        /**
         * The versions of {@code --sstable-version V[,V...]}, each once, checked before anything is filled.
         */
        static List<SSTableVersion> versions(String value) throws UsageException {
            List<SSTableVersion> out = new ArrayList<>();
            String[] ids = value.split(",", -1);
            for (int i = 0; i < ids.length; i++) {
                String id = ids[i].trim();
                SSTableVersion v = SSTableVersion.fromId(id);
                if (v == null) {
                    throw new UsageException("--" + SSTABLE_VERSIONS_OPTION + " " + value + ": '" + id + "' is not an sstable version"
                            + " (versions: " + SSTableVersion.choices().replace('|', ',') + ")");
                }
                if (out.contains(v)) {
                    throw new UsageException("--" + SSTABLE_VERSIONS_OPTION + " " + value + ": " + id + " is named twice");
                }
                out.add(v);
            }
            return List.copyOf(out);
        }

        /**
         * Parses bench options (without {@code --against}, {@code --out}); a usage problem becomes an
         * IllegalArgumentException whose message is the one {@code flushline bench} prints.
         */
        public static Setup parse(String[] argv) {
            try {
                return new Setup(new Args("bench", argv, OPTIONS, Set.of("json")));
            } catch (UsageException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
        }

        public String memtable() {
            return engine.memtable;
        }

        public AllocationMode allocation() {
            return AllocationMode.fromCliName(engine.allocation);
        }

        public String compression() {
            return EngineOptions.compressionName(schema);
        }

        public int ranges() {
            return engine.ranges;
        }

        public int flushThreads() {
            return engine.flushThreads;
        }

        /** The warm-up {@code flushline bench} does before it measures (all three allocation modes, every version). */
        public void warmUp(PrintStream out) throws IOException {
            BenchCommand.warmUp(this, out);
        }

        /**
         * One measured fill + seal + FlushJob.run into {@code outDir}, as {@code flushline bench} does it, in the
         * first of {@link #versions}.
         */
        public Measured fillAndFlush(Path outDir, PrintStream out) throws IOException {
            return BenchCommand.fillAndFlush(workload, engine, schema, versions.get(0), outDir, out, null, null);
        }

        /** As {@link #fillAndFlush(Path, PrintStream)}, writing sstables of {@code version}. */
        public Measured fillAndFlush(Path outDir, PrintStream out, SSTableVersion version) throws IOException {
            return BenchCommand.fillAndFlush(workload, engine, schema, version, outDir, out, null, null);
        }

        /** As {@link #fillAndFlush(Path, PrintStream)}, calling the hooks just before and after FlushJob.run (profilers). */
        public Measured fillAndFlush(Path outDir, PrintStream out, Runnable beforeFlush, Runnable afterFlush) throws IOException {
            return BenchCommand.fillAndFlush(workload, engine, schema, versions.get(0), outDir, out, beforeFlush, afterFlush);
        }

        /** The {@code --json} object of one Flushline sstable (of the first version). */
        public String json(FlushOutcome o) {
            return json(o, versions.get(0));
        }

        /** The {@code --json} object of one Flushline sstable of {@code version}. */
        public String json(FlushOutcome o, SSTableVersion version) {
            return BenchCommand.json(o, engine, schema, versionsGiven ? version : null);
        }
    }

    /** What one measured Flushline fill and flush did. */
    public static final class Measured {
        /** The version its sstables were written in. */
        public final SSTableVersion version;
        public final long fillNanos;
        public final long onHeapBytes;
        public final long offHeapBytes;
        public final List<FlushOutcome> outcomes;
        /** Wall time of FlushJob.run, and the whole process's CPU over it (GC and JIT threads included). */
        public final long flushWallNanos;
        public final long flushProcessCpuNanos;
        /** Collections, and milliseconds collecting, during the fill (GarbageCollectorMXBeans before and after). */
        public final long fillGcCount;
        public final long fillGcMillis;
        /** The process's minor page faults during the fill ({@link #minorFaults()}), -1 where the system cannot tell. */
        public final long fillMinorFaults;

        Measured(SSTableVersion version, long fillNanos, long onHeapBytes, long offHeapBytes, List<FlushOutcome> outcomes,
                 long flushWallNanos, long flushProcessCpuNanos, long fillGcCount, long fillGcMillis, long fillMinorFaults) {
            this.version = version;
            this.fillMinorFaults = fillMinorFaults;
            this.fillGcCount = fillGcCount;
            this.fillGcMillis = fillGcMillis;
            this.fillNanos = fillNanos;
            this.onHeapBytes = onHeapBytes;
            this.offHeapBytes = offHeapBytes;
            this.outcomes = outcomes;
            this.flushWallNanos = flushWallNanos;
            this.flushProcessCpuNanos = flushProcessCpuNanos;
        }

        /** The flush's CPU: summed over its sstables' outcomes (the flush threads' time, as the log lines give it). */
        public long flushCpuNanos() {
            long cpu = 0;
            for (int i = 0; i < outcomes.size(); i++) cpu += outcomes.get(i).cpuNanos;
            return cpu;
        }
    }

    private static void bench(Setup setup, Path outDir, PrintStream out) throws IOException {
        warmUp(setup, out);
        List<List<Measured>> rounds = new ArrayList<>(setup.versionRounds);
        for (int round = 0; round < setup.versionRounds; round++) {
            List<SSTableVersion> order = new ArrayList<>(setup.versions);
            if (round % 2 == 1) java.util.Collections.reverse(order);
            List<Measured> runs = new ArrayList<>(order.size());
            for (SSTableVersion version : order) {
                Measured r = fillAndFlush(setup.workload, setup.engine, setup.schema, version, outDir, out, null, null);
                runs.add(r);
                for (FlushOutcome o : r.outcomes) out.println(o.logLine());
                if (setup.json) {
                    for (FlushOutcome o : r.outcomes) out.println(setup.json(o, version));
                }
                for (FlushOutcome o : r.outcomes) out.println(scanLine(o.result.dataPath, setup.schema));
            }
            for (String line : versionRatioLines(runs)) out.println(line);
            rounds.add(runs);
        }
        if (rounds.size() > 1) {
            for (String line : versionRoundsLines(rounds)) out.println(line);
        }
    }

    /**
     * Per version other than oa, over rounds that each flushed every version once: its flush CPU's median over
     * oa's, and the median of the rounds' own ratios, with the goal where the issue sets one (da). The two
     * answer the same question in two ways: one round's pair moves with the machine's drift, the medians do not.
     */
    public static List<String> versionRoundsLines(List<List<Measured>> rounds) {
        List<String> lines = new ArrayList<>();
        List<Measured> first = rounds.get(0);
        for (int v = 0; v < first.size(); v++) {
            SSTableVersion version = first.get(v).version;
            if (version == SSTableVersion.OA) continue;
            long[] cpu = new long[rounds.size()], oaCpu = new long[rounds.size()];
            boolean hasOa = true;
            for (int i = 0; i < rounds.size(); i++) {
                cpu[i] = -1;
                oaCpu[i] = -1;
                for (Measured m : rounds.get(i)) {
                    if (m.version == version) cpu[i] = m.flushCpuNanos();
                    if (m.version == SSTableVersion.OA) oaCpu[i] = m.flushCpuNanos();
                }
                hasOa &= oaCpu[i] >= 0;
            }
            if (hasOa) lines.add(versionRoundsLine(version, cpu, oaCpu));
        }
        return lines;
    }

    /**
     * {@code Flush cpu over 6 rounds, da / oa: ratio of the medians x1.04 (da 1210 ms, oa 1160 ms), median of the
     * rounds' ratios x1.03 (x0.91 to x1.22)[; goal: at most x1.10]}. REQUIRES: arrays of one length, at least 1.
     */
    public static String versionRoundsLine(SSTableVersion version, long[] cpuNanos, long[] oaCpuNanos) {
        int n = cpuNanos.length;
        double[] ratios = new double[n];
        for (int i = 0; i < n; i++) ratios[i] = oaCpuNanos[i] <= 0 ? Double.NaN : (double) cpuNanos[i] / oaCpuNanos[i];
        long cpuMedian = median(cpuNanos), oaMedian = median(oaCpuNanos);
        double[] sorted = ratios.clone();
        java.util.Arrays.sort(sorted); // NaN sorts last
        double ratioMedian = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        return String.format(Locale.ROOT, "Flush cpu over %d rounds, %s / oa: ratio of the medians %s (%s %d ms, oa %d ms), "
                        + "median of the rounds' ratios %s (%s to %s)%s",
                n, version, ratioText(oaMedian <= 0 ? Double.NaN : (double) cpuMedian / oaMedian), version, cpuMedian / 1_000_000,
                oaMedian / 1_000_000, ratioText(ratioMedian), ratioText(sorted[0]), ratioText(sorted[n - 1]),
                goalText(version));
    }

    /** "; goal: at most x1.10" for the version the issue sets a goal for against oa (da), else nothing. */
    private static String goalText(SSTableVersion version) {
        return version == SSTableVersion.DA ? String.format(Locale.ROOT, "; goal: at most x%.2f", DA_OVER_OA_CPU_GOAL) : "";
    }

    private static String ratioText(double r) {
        return Double.isNaN(r) ? "n/a" : String.format(Locale.ROOT, "x%.2f", r);
    }

    /** The median of {@code values} (the mean of the middle two for an even count). REQUIRES: at least one. */
    public static long median(long[] values) {
        long[] s = values.clone();
        java.util.Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    /**
     * Per version other than oa, its flush CPU over oa's flush of the same rows, with the goal where the issue
     * sets one (da): {@code Flush cpu, da / oa: x1.04 (da 120 ms, oa 115 ms); goal: at most x1.10}. None without
     * an oa run.
     */
    public static List<String> versionRatioLines(List<Measured> runs) {
        Measured oa = null;
        for (Measured r : runs) if (r.version == SSTableVersion.OA) oa = r;
        List<String> lines = new ArrayList<>();
        if (oa == null) return lines;
        for (Measured r : runs) {
            if (r == oa) continue;
            lines.add(versionRatioLine(r.version, r.flushCpuNanos(), oa.flushCpuNanos()));
        }
        return lines;
    }

    /** The versions' ids joined by {@code separator}. */
    public static String versionList(List<SSTableVersion> versions, String separator) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < versions.size(); i++) {
            if (i > 0) b.append(separator);
            b.append(versions.get(i).id());
        }
        return b.toString();
    }

    /** One line of {@link #versionRatioLines}. */
    public static String versionRatioLine(SSTableVersion version, long cpuNanos, long oaCpuNanos) {
        String ratio = oaCpuNanos <= 0 ? "n/a" : String.format(Locale.ROOT, "x%.2f", (double) cpuNanos / oaCpuNanos);
        return String.format(Locale.ROOT, "Flush cpu, %s / oa: %s (%s %d ms, oa %d ms)%s", version, ratio, version,
                cpuNanos / 1_000_000, oaCpuNanos / 1_000_000,
                goalText(version));
    }

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();

    /**
     * A full cursor scan of a just-flushed sstable on this thread, touching every cell's timestamp and value (so
     * nothing is skipped), timed with wall clock, thread CPU and thread allocation. The file was just written,
     * so it reads from the page cache: this measures decoding, not the disk.
     */
    static String scanLine(Path dataFile, TableSchema schema) throws IOException {
        long id = Thread.currentThread().getId();
        long cpu0 = THREADS.getCurrentThreadCpuTime(), alloc0 = THREADS.getThreadAllocatedBytes(id), wall0 = System.nanoTime();
        long partitions = 0, rows = 0, cells = 0, sum = 0;
        try (SSTableCursor c = SSTableCursor.open(SSTableFiles.of(dataFile), schema)) {
            int kind;
            while ((kind = c.advance()) != SSTableCursor.END) {
                if (kind == SSTableCursor.PARTITION_START) partitions++;
                if (kind != SSTableCursor.ROW) continue;
                rows++;
                SSTableCursor.Row row = c.row();
                byte[] b = c.buffer();
                int n = row.cellCount();
                for (int k = 0; k < n; k++) {
                    SSTableCursor.Cell cell = row.cell(k);
                    int len = cell.valueLength();
                    sum += cell.timestamp() + len + (len > 0 ? b[cell.valueOffset()] : 0);
                }
                cells += n;
            }
        }
        long wall = System.nanoTime() - wall0;
        long cpu = THREADS.getCurrentThreadCpuTime() - cpu0, alloc = THREADS.getThreadAllocatedBytes(id) - alloc0;
        return String.format(Locale.ROOT, "Scanned %s: %d partitions, %d rows, %d cells in %d ms, cpu time: %d ms (%.0f ns/row), "
                        + "allocated: %s (checksum %x)", dataFile, partitions, rows, cells, wall / 1_000_000, cpu / 1_000_000,
                (double) cpu / Math.max(1, rows), ValueText.mib(alloc), sum);
    }

    static final int WARMUP_ROUNDS = 3;

    /** A memtable as the options' table would make it, in {@code mode}: the benchmark fills and flushes it itself. */
    private static Memtable newMemtable(EngineOptions engine, TableSchema schema, AllocationMode mode) {
        return TableOptions.MemtableKind.fromConfigName(engine.memtable).create(schema, mode, engine.shards);
    }

    private static void warmUp(Setup setup, PrintStream out) throws IOException {
        Workload w = setup.workload;
        EngineOptions engine = setup.engine;
        TableSchema schema = setup.schema;
        int warmupPartitions = setup.warmupPartitions;
        if (warmupPartitions > 0) {
            long t0 = System.nanoTime();
            Path warmDir = Files.createTempDirectory("flushline-warmup-");
            int flushes = 0;
            try {
                List<FlushJob.Options> warmOptions = new ArrayList<>(setup.versions.size());
                for (SSTableVersion version : setup.versions) {
                    warmOptions.add(FlushJob.Options.builder(warmDir).ranges(engine.ranges).flushThreads(engine.flushThreads)
                            .version(version).build());
                }
                Workload small = w.withPartitions(warmupPartitions);
                // Several rounds through all three allocation modes: the type profiles see every row source
                // before C2 compiles the flush loop, and C2 has finished compiling it before the
                // measured flush (one short round left the JIT compiling during the measurement). Every
                // version in every round, so each format's index writer is as warm as the rows are.
                for (int round = 0; round < WARMUP_ROUNDS; round++) {
                    for (AllocationMode mode : AllocationMode.values()) {
                        for (FlushJob.Options options : warmOptions) {
                            Memtable m = newMemtable(engine, schema, mode);
                            fill(m, small);
                            m.seal();
                            try {
                                FlushJob.run(m, options);
                            } finally {
                                m.discard();
                            }
                            flushes++;
                        }
                    }
                }
            } finally {
                deleteRecursively(warmDir);
            }
            out.println("Warm-up: " + flushes + " flushes of " + warmupPartitions * (long) w.rowsPerPartition
                    + " rows (unslabbed_heap, heap_buffers, offheap_objects" + (setup.versionsGiven ? "; sstable versions "
                    + versionList(setup.versions, ", ") : "") + ") in "
                    + (System.nanoTime() - t0) / 1_000_000 + " ms");
            System.gc(); // so the measured fill does not pay for the warm-up's garbage
        }
    }

    private static Measured fillAndFlush(Workload w, EngineOptions engine, TableSchema schema, SSTableVersion version, Path outDir,
                                         PrintStream out, Runnable beforeFlush, Runnable afterFlush) throws IOException {
        FlushJob.Options flushOptions = FlushJob.Options.builder(outDir).ranges(engine.ranges).flushThreads(engine.flushThreads)
                .version(version).build();
        Memtable m = newMemtable(engine, schema, AllocationMode.fromCliName(engine.allocation));
        List<FlushOutcome> outcomes;
        long fillNanos;
        long onHeap;
        long offHeap;
        long flushWall;
        long flushProcessCpu;
        long fillGcCount;
        long fillGcMillis;
        long fillFaults;
        try {
            long gcCount0 = gcCount(), gcMillis0 = gcMillis();
            long faults0 = minorFaults();
            long fill0 = System.nanoTime();
            fill(m, w);
            fillNanos = System.nanoTime() - fill0;
            long faults1 = minorFaults();
            fillFaults = faults0 < 0 || faults1 < 0 ? -1 : faults1 - faults0;
            fillGcCount = gcCount() - gcCount0;
            fillGcMillis = gcMillis() - gcMillis0;
            long rows = (long) w.partitions * w.rowsPerPartition;
            out.println(String.format(Locale.ROOT,
                    "Filled %s memtable (%s) with %d rows (%d partitions, %d cells) in %d ms: %d rows/s; on-heap %s, off-heap %s; "
                            + "gc during the fill: %d collections, %d ms%s",
                    engine.memtable, engine.allocation, rows, w.partitions, rows * w.valueColumns,
                    fillNanos / 1_000_000, fillNanos <= 0 ? rows : (long) (rows * 1e9 / fillNanos),
                    ValueText.mib(m.onHeapBytes()), ValueText.mib(m.offHeapBytes()), fillGcCount, fillGcMillis,
                    faultText(fillFaults)));
            onHeap = m.onHeapBytes();
            offHeap = m.offHeapBytes();
            m.seal();
            if (beforeFlush != null) beforeFlush.run();
            long cpu0 = PROCESS.getProcessCpuTime();
            long wall0 = System.nanoTime();
            outcomes = FlushJob.run(m, flushOptions);
            flushWall = System.nanoTime() - wall0;
            flushProcessCpu = PROCESS.getProcessCpuTime() - cpu0;
            if (afterFlush != null) afterFlush.run();
        } finally {
            m.discard();
        }
        return new Measured(version, fillNanos, onHeap, offHeap, outcomes, flushWall, flushProcessCpu, fillGcCount, fillGcMillis,
                fillFaults);
    }

    /**
     * The process's minor page faults so far (field 10 of {@code /proc/self/stat}), or -1 where there is no such
     * file. A fault here is the kernel handing the process a page it has not touched before (and zeroing it), the
     * cost a fill pays for memory that no earlier memtable used: the peers' fill lines carry the same count.
     */
    public static long minorFaults() {
        try {
            String stat = new String(Files.readAllBytes(Path.of("/proc/self/stat")), java.nio.charset.StandardCharsets.US_ASCII);
            // pid (comm) state ppid ...: comm may hold spaces, so count fields from its closing parenthesis.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
            return Long.parseLong(f[7]); // state=0 ppid pgrp session tty_nr tpgid flags minflt=7
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** "; N page faults" for a fill line, or nothing where the count is unknown. */
    public static String faultText(long faults) {
        return faults < 0 ? "" : String.format(Locale.ROOT, "; %d page faults", faults);
    }

    /** Collections so far, summed over the JVM's collectors (GarbageCollectorMXBean; a collector that cannot tell adds 0). */
    public static long gcCount() {
        long n = 0;
        List<java.lang.management.GarbageCollectorMXBean> gcs = java.lang.management.ManagementFactory.getGarbageCollectorMXBeans();
        for (int i = 0; i < gcs.size(); i++) n += Math.max(0, gcs.get(i).getCollectionCount());
        return n;
    }

    /**
     * Milliseconds spent collecting so far, summed over the JVM's collectors. For G1 that is its pauses
     * plus the concurrent cycles' time as the MXBeans report it.
     */
    public static long gcMillis() {
        long n = 0;
        List<java.lang.management.GarbageCollectorMXBean> gcs = java.lang.management.ManagementFactory.getGarbageCollectorMXBeans();
        for (int i = 0; i < gcs.size(); i++) n += Math.max(0, gcs.get(i).getCollectionTime());
        return n;
    }

    /** The {@code --json} object of one sstable; {@code version} null leaves out the sstable_version key. */
    static String json(FlushOutcome o, EngineOptions engine, TableSchema schema, SSTableVersion version) {
        StringBuilder sb = new StringBuilder(320).append('{');
        sb.append("\"sstable\":");
        ValueText.appendQuoted(sb, o.result.dataPath.toString());
        sb.append(",\"bytes\":").append(o.bytesFlushed);
        sb.append(",\"partitions\":").append(o.result.partitions);
        sb.append(",\"rows\":").append(o.result.rows);
        sb.append(",\"cells\":").append(o.result.cells);
        sb.append(",\"wall_ms\":").append(String.format(Locale.ROOT, "%.3f", o.wallNanos / 1e6));
        sb.append(",\"cpu_ms\":").append(String.format(Locale.ROOT, "%.3f", o.cpuNanos / 1e6));
        sb.append(",\"allocated_bytes\":").append(o.allocatedBytes);
        sb.append(",\"memtable\":\"").append(engine.memtable).append('"');
        sb.append(",\"allocation\":\"").append(engine.allocation).append('"');
        sb.append(",\"compression\":\"").append(EngineOptions.compressionName(schema)).append('"');
        sb.append(",\"system\":\"flushline\"");
        if (version != null) sb.append(",\"sstable_version\":\"").append(version.id()).append('"');
        return sb.append('}').toString();
    }

    /**
     * The stress-like workload: one PartitionUpdate per partition, all rows inserted (with liveness).
     * Public for the comparison main, which feeds the same operations to Cassandra and RocksDB.
     */
    public static final class Workload {
        public final int partitions;
        public final int rowsPerPartition;
        public final int valueColumns;
        public final int valueBytes;

        Workload(int partitions, int rowsPerPartition, int valueColumns, int valueBytes) {
            this.partitions = partitions;
            this.rowsPerPartition = rowsPerPartition;
            this.valueColumns = valueColumns;
            this.valueBytes = valueBytes;
        }

        public Workload withPartitions(int n) {
            return new Workload(n, rowsPerPartition, valueColumns, valueBytes);
        }

        public String cql() {
            StringBuilder sb = new StringBuilder("CREATE TABLE stress.stress_table (pk bigint, ck int");
            for (int i = 1; i <= valueColumns; i++) sb.append(", v").append(i).append(" text");
            return sb.append(", PRIMARY KEY (pk, ck))").toString();
        }
    }

    /**
     * Fills {@code m} with the workload. Values are printable ASCII from a fixed-seed xorshift, so
     * they compress about as well as cassandra-stress's random strings. Public for the benchmark
     * module, whose memtable-fill benchmark measures this same fill.
     */
    public static void fill(Memtable m, Workload w) {
        TableSchema schema = m.schema();
        ColumnMetadata[] regulars = schema.regularColumns();
        int simple = schema.regularComplexStart();
        ComplexColumn[] noComplex = new ComplexColumn[regulars.length - simple];
        long seed = VALUE_SEED;
        long ts = BASE_TIMESTAMP_MICROS;
        for (int p = 0; p < w.partitions; p++) {
            byte[] pk = ValueCodec.int64(p);
            List<Row> rows = new ArrayList<>(w.rowsPerPartition);
            for (int r = 0; r < w.rowsPerPartition; r++) {
                Cell[] cells = new Cell[simple];
                for (int c = 0; c < simple; c++) {
                    byte[] v = new byte[w.valueBytes];
                    for (int i = 0; i < v.length; i++) {
                        seed ^= seed << 13;
                        seed ^= seed >>> 7;
                        seed ^= seed << 17;
                        v[i] = (byte) ('!' + (int) ((seed >>> 33) % 94));
                    }
                    cells[c] = Cell.live(ts, v, null);
                }
                rows.add(new Row(false, new byte[][] {ValueCodec.int32(r)}, ts, Cell.NO_TTL, Cell.NO_DELETION_TIME,
                        DeletionTime.LIVE, cells, noComplex));
                ts++;
            }
            PartitionUpdate u = new PartitionUpdate(PartitionKey.of(pk), DeletionTime.LIVE, List.of(), null, rows);
            if (!m.apply(u)) throw new IllegalStateException("bench memtable sealed during fill");
        }
    }


    public static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) return;
        Files.walkFileTree(dir, new SimpleFileVisitor<Path>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                if (e != null) throw e;
                Files.delete(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}

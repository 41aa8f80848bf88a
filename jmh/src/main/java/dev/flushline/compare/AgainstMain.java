package dev.flushline.compare;

import dev.flushline.schema.ValueText;
import dev.flushline.bench.BenchCommand;
import dev.flushline.flush.FlushOutcome;
import dev.flushline.flush.FlushLog;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.sstable.SSTableVersion;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code flushline bench --against cassandra,cassandra6,rocksdb,cqlsstablewriter}: the same operations (BenchCommand's
 * deterministic workload) filled into and flushed from Flushline, Cassandra 5.0.5's own SkipListMemtable + flush,
 * and RocksDB, and written as sstables by Cassandra's bulk writer CQLSSTableWriter (sorted and unsorted feeds;
 * {@link CqlWriterPeer}), in one JVM, each warmed up first; and Cassandra 6.0-alpha2's memtable + flush of the
 * same rows in a child JVM ({@link Cassandra6Peer}), which reports its costs back. Every fill line also gives the GC count and time
 * during the fill (GarbageCollectorMXBeans before and after). Prints each flush, then a table of flush CPU, wall time,
 * allocation, bytes written and fill throughput with each peer's ratio to Flushline; {@code --json} adds one
 * object per flush (the keys of {@code flushline bench --json}, {@code system} included).
 *
 * <p>Options: every {@code flushline bench} option; here {@code --allocation} and {@code --compression} may be
 * comma lists (default heap_buffers,offheap_objects and lz4,none), and Flushline and both Cassandras run each
 * combination; RocksDB and CQLSSTableWriter run each compression. Order: warm-ups (Flushline's three allocation
 * modes, each Cassandra's three allocation types and each compression, RocksDB each compression, CQLSSTableWriter
 * each compression and feed), then per compression and allocation Flushline, Cassandra 5.0.5, Cassandra 6.0, then
 * RocksDB, then CQLSSTableWriter unsorted and sorted per compression. Before each measured fill: System.gc() (in
 * the child JVM for 6.0). Each Cassandra's Data.db is compared with Flushline's: 5.0.5's here by bytes, 6.0's in
 * its child by bytes and, if they differ, by content read back with 6.0's reader.
 *
 * <p>{@code --sstable-version oa,da} (the BTI goals): Flushline and Cassandra 5.0.5 fill and flush once per version,
 * in that order, per allocation and compression (each warmed up in every version); with {@code --rounds N} the
 * versions take turns inside each round, their order reversed every other round (oa,da then da,oa); every component file of
 * Cassandra's sstable is compared with ours of the same version ({@link ComponentCompare}); Cassandra 6.0 flushes
 * oa only and 5.0.5 flushes no nb (it writes BIG as oa), which the run says. The table gains a version column,
 * peers are compared with Flushline's flush of the same version, and a goals table follows: our flush CPU per
 * version over our oa flush's (da: at most x1.10), and each Cassandra flush's CPU over ours in the same version
 * (at least x5). RocksDB and CQLSSTableWriter are compared with the first version's Flushline flush. Without the
 * option the output is what it was before the option existed.
 *
 * <p>Entry points: {@link #main} and {@link #run} (called by BenchCommand through reflection).
 */
public final class AgainstMain {
    private AgainstMain() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Returns the exit status: 0 ok, 1 usage, 2 internal or I/O failure. */
    public static int run(String[] argv, PrintStream out, PrintStream err) {
        Path tempRoot = null;
        Cassandra6Peer cassandra6 = null;
        try {
            List<String> rest = new ArrayList<>();
            Set<String> systems = new LinkedHashSet<>();
            List<String> allocations = null;
            List<String> compressions = null;
            Path keep = null;
            int rounds = 1;
            for (int i = 0; i < argv.length; i++) {
                String a = argv[i];
                String name = a;
                String value = null;
                int eq = a.indexOf('=');
                if (a.startsWith("--") && eq > 0) {
                    name = a.substring(0, eq);
                    value = a.substring(eq + 1);
                }
                boolean mine = name.equals("--against") || name.equals("--allocation") || name.equals("--compression")
                        || name.equals("--out") || name.equals("--" + BenchCommand.ROUNDS_OPTION);
                if (!mine) {
                    rest.add(a);
                    continue;
                }
                if (value == null) {
                    if (i + 1 >= argv.length) return usage(err, "option " + name + " needs a value");
                    value = argv[++i];
                }
                switch (name) {
                    case "--against":
                        for (String s : value.split(",")) {
                            s = s.trim();
                            if (!s.equals("cassandra") && !s.equals(CASSANDRA6) && !s.equals("rocksdb") && !s.equals(CQL_WRITER)) {
                                return usage(err, "--against " + value + ": systems are cassandra, " + CASSANDRA6 + ", rocksdb and " + CQL_WRITER);
                            }
                            systems.add(s);
                        }
                        break;
                    case "--allocation":
                        allocations = List.of(value.split(","));
                        break;
                    case "--compression":
                        compressions = List.of(value.split(","));
                        break;
                    case "--" + BenchCommand.ROUNDS_OPTION:
                        try {
                            rounds = Integer.parseInt(value);
                        } catch (NumberFormatException e) {
                            rounds = 0;
                        }
                        if (rounds < 1 || rounds > MAX_ROUNDS) {
                            return usage(err, name + " " + value + ": not a whole number from 1 to " + MAX_ROUNDS);
                        }
                        break;
                    default:
                        keep = Path.of(value);
                }
            }
            if (systems.isEmpty()) {
                return usage(err, "--against needs one or more of cassandra, " + CASSANDRA6 + ", rocksdb, " + CQL_WRITER + " (comma-separated)");
            }
            if (allocations == null) allocations = List.of("heap_buffers", "offheap_objects");
            if (compressions == null) compressions = List.of("lz4", "none");

            // one Setup per combination, parsed exactly as flushline bench parses them
            List<BenchCommand.Setup> setups = new ArrayList<>();
            for (String c : compressions) {
                for (String a : allocations) {
                    List<String> args = new ArrayList<>(rest);
                    args.addAll(List.of("--allocation", a, "--compression", c));
                    try {
                        setups.add(BenchCommand.Setup.parse(args.toArray(new String[0])));
                    } catch (IllegalArgumentException e) {
                        return usage(err, e.getMessage());
                    }
                }
            }
            BenchCommand.Setup first = setups.get(0);
            BenchCommand.Workload w = first.workload;
            boolean json = first.json;
            Path root = keep != null ? Files.createDirectories(keep) : (tempRoot = Files.createTempDirectory("flushline-against-"));
            List<SSTableVersion> versions = first.versions;
            boolean showVersion = first.versionsGiven;

            ColumnMetadata[] regulars = first.schema.regularColumns();
            String[] valueOrder = new String[w.valueColumns];
            for (int c = 0; c < w.valueColumns; c++) valueOrder[c] = regulars[c].name();

            out.println("Workload: " + w.cql() + "; " + w.partitions + " partitions x " + w.rowsPerPartition + " rows x "
                    + w.valueColumns + " values of " + w.valueBytes + " bytes; systems: flushline," + String.join(",", systems)
                    + "; allocation " + String.join(",", allocations) + "; compression " + String.join(",", compressions)
                    + (showVersion ? "; sstable versions " + BenchCommand.versionList(versions, ",") : "")
                    + (rounds > 1 ? "; " + rounds + " rounds per setting, the table and goals on each system's medians" : ""));
            out.println(jvmLine());
            for (SSTableVersion v : versions) {
                if (systems.contains("cassandra") && !CassandraPeer.writes(v)) {
                    out.println("Cassandra 5.0.5 peer: does not flush " + v + " (it writes BIG as oa); Flushline's " + v + " flush runs alone");
                }
                if (systems.contains(CASSANDRA6) && v != SSTableVersion.OA) {
                    out.println("Cassandra 6.0 peer: flushes oa only; not run for " + v);
                }
            }

            // warm-ups
            first.warmUp(out);
            CassandraPeer cassandra = systems.contains("cassandra") ? new CassandraPeer(w, valueOrder, root.resolve("cassandra")) : null;
            cassandra6 = systems.contains(CASSANDRA6) ? new Cassandra6Peer(valueOrder, root.resolve(CASSANDRA6), err) : null;
            if (cassandra6 != null) out.println("Cassandra 6.0 peer: " + cassandra6.describe());
            RocksPeer rocks = systems.contains("rocksdb") ? new RocksPeer(root.resolve("rocksdb")) : null;
            CqlWriterPeer cqlWriter = systems.contains(CQL_WRITER) ? new CqlWriterPeer(w, valueOrder, root.resolve(CQL_WRITER)) : null;
            BenchCommand.Workload small = w.withPartitions(Math.max(1, first.warmupPartitions));
            if (first.warmupPartitions > 0) {
                long t0 = System.nanoTime();
                int n = 0;
                for (String c : compressions) {
                    if (cassandra != null) {
                        for (SSTableVersion v : versions) {
                            if (!CassandraPeer.writes(v)) continue;
                            for (String a : List.of("unslabbed_heap", "heap_buffers", "offheap_objects")) {
                                cassandra.fillAndFlush(small, a, c, first.schema.chunkLengthBytes(), v);
                                n++;
                            }
                        }
                    }
                    if (cassandra6 != null && versions.contains(SSTableVersion.OA)) {
                        for (String a : List.of("unslabbed_heap", "heap_buffers", "offheap_objects")) {
                            cassandra6.fillAndFlush(small, a, c, first.schema.chunkLengthBytes(), null, null);
                            n++;
                        }
                    }
                    if (rocks != null) {
                        rocks.fillAndFlush(small, c);
                        n++;
                    }
                    if (cqlWriter != null) {
                        for (String feed : CQL_WRITER_FEEDS) {
                            FlushRun warm = cqlWriter.write(small, feed, c, first.schema.chunkLengthBytes());
                            BenchCommand.deleteRecursively(warm.dir);
                            n++;
                        }
                    }
                }
                out.println("Peer warm-up: " + n + " flushes of " + (long) small.partitions * small.rowsPerPartition + " rows in "
                        + (System.nanoTime() - t0) / 1_000_000 + " ms");
            }

            List<FlushRun> runs = new ArrayList<>();
            List<String> jsonLines = new ArrayList<>();
            int n = 0;
            for (BenchCommand.Setup s : setups) {
                // Rounds outside versions, the versions' order reversed every other round: whatever runs first
                // after a setting change or the peers' warm-up tends to be slow here (2026-12-05: da / oa x1.86 with
                // oa first, x1.06 with da first, minutes apart), so neither version may always be first.
                for (int round = 1; round <= rounds; round++) for (int vi = 0; vi < versions.size(); vi++) {
                    SSTableVersion v = versions.get(round % 2 == 1 ? vi : versions.size() - 1 - vi);
                    if (rounds > 1) {
                        out.println("Round " + round + " of " + rounds + ": " + s.allocation().cliName() + ", " + s.compression()
                                + (showVersion ? ", " + v : ""));
                    }
                    Path flDir = root.resolve("flushline-" + s.allocation().cliName() + "-" + s.compression() + (showVersion ? "-" + v : "")
                            + "-" + (++n));
                    BenchCommand.Measured m = s.fillAndFlush(flDir, out, v);
                    for (FlushOutcome o : m.outcomes) out.println(o.logLine());
                    FlushRun fl = flushlineRun(s, m);
                    fl.jsonVersion = showVersion;
                    runs.add(fl);
                    for (FlushOutcome o : m.outcomes) jsonLines.add(withFill(s.json(o, v), m, fl));
                    FlushRun floor = codecFloor(fl, m, out);
                    if (floor != null) runs.add(floor);
                    if (cassandra != null && CassandraPeer.writes(v)) {
                        FlushRun c = cassandra.fillAndFlush(w, s.allocation().cliName(), s.compression(), s.schema.chunkLengthBytes(), v);
                        c.jsonVersion = showVersion;
                        out.println(fillLine(c));
                        out.println(cassandraLogLine(c));
                        String same = showVersion ? sameComponents(m.outcomes, c) : sameDataFile(m.outcomes, c);
                        if (same != null) out.println(same);
                        runs.add(c);
                        jsonLines.add(c.json());
                        if (keep == null) deleteContents(Path.of(c.sstable).getParent()); // the store keeps its folder
                    }
                    if (cassandra6 != null && v == SSTableVersion.OA) {
                        Path ours = m.outcomes.size() == 1 ? m.outcomes.get(0).result.dataPath : null;
                        Path kept = keep == null ? null : root.resolve(CASSANDRA6 + "-" + s.allocation().cliName() + "-" + s.compression() + "-" + n);
                        FlushRun c6 = cassandra6.fillAndFlush(w, s.allocation().cliName(), s.compression(), s.schema.chunkLengthBytes(), ours, kept);
                        c6.version = SSTableVersion.OA;
                        c6.jsonVersion = showVersion;
                        out.println(fillLine(c6));
                        out.println(cassandraLogLine(c6));
                        if (c6.sameAsFlushline != null) out.println("Data.db: Flushline's and Cassandra 6.0's: " + c6.sameAsFlushline);
                        runs.add(c6);
                        jsonLines.add(c6.json());
                    }
                    if (keep == null) BenchCommand.deleteRecursively(flDir);
                }
            }
            if (rocks != null) {
                for (String c : compressions) for (int round = 1; round <= rounds; round++) {
                    FlushRun r = rocks.fillAndFlush(w, c);
                    out.println(fillLine(r));
                    out.println(String.format(Locale.ROOT, "RocksDB flushed %s (%s), time spent: %d ms, cpu time: %d ms "
                                    + "(threads %s), process cpu: %d ms", r.sstable, ValueText.mib(r.bytes),
                            r.wallNanos / 1_000_000, r.cpuNanos / 1_000_000, r.threads, r.processCpuNanos / 1_000_000));
                    runs.add(r);
                    jsonLines.add(r.json());
                    if (keep == null) BenchCommand.deleteRecursively(Path.of(r.sstable).getParent());
                }
            }
            if (cqlWriter != null) {
                for (String c : compressions) {
                    for (String feed : CQL_WRITER_FEEDS) {
                        FlushRun r = cqlWriter.write(w, feed, c, first.schema.chunkLengthBytes());
                        out.println(cqlWriterLine(r));
                        runs.add(r);
                        jsonLines.add(r.json());
                        if (keep == null) BenchCommand.deleteRecursively(r.dir);
                    }
                }
            }
            if (cassandra != null) cassandra.close();
            if (cassandra6 != null) {
                cassandra6.close();
                cassandra6 = null;
            }

            out.println();
            if (rounds > 1) {
                out.print(roundsLines(runs));
                out.println();
                out.println("Medians of " + rounds + " rounds (each figure of a system's row is the median of its rounds):");
            }
            out.print(table(rounds > 1 ? medians(runs) : runs, showVersion));
            if (json) for (String j : jsonLines) out.println(j);
            return 0;
        } catch (Exception | Error e) {
            err.println("flushline bench --against: internal error: " + e);
            e.printStackTrace(err);
            return 2;
        } finally {
            if (cassandra6 != null) cassandra6.close();
            if (tempRoot != null) {
                try {
                    BenchCommand.deleteRecursively(tempRoot);
                } catch (IOException e) {
                    err.println("flushline bench --against: could not delete " + tempRoot + ": " + e);
                }
            }
        }
    }

    private static void deleteContents(Path dir) throws IOException {
        try (java.util.stream.Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) BenchCommand.deleteRecursively(f);
        }
    }

    /** Most rounds --rounds takes: each round of the default comparison is a few minutes. */
    static final int MAX_ROUNDS = 100;

    /** The key of the runs one system made of one setting, round after round. */
    private static String roundKey(FlushRun r) {
        return r.system + " " + r.allocation + " " + r.compression + (r.version == null ? "" : " " + r.version);
    }

    /**
     * With --rounds: one line per system and setting, its flush CPU in each round, in order, so that the spread
     * behind each median is in the output.
     */
    static String roundsLines(List<FlushRun> runs) {
        java.util.Map<String, List<FlushRun>> groups = groups(runs);
        StringBuilder sb = new StringBuilder("Flush cpu ms by round:\n");
        for (java.util.Map.Entry<String, List<FlushRun>> e : groups.entrySet()) {
            sb.append(String.format(Locale.ROOT, "%-44s", e.getKey()));
            for (FlushRun r : e.getValue()) sb.append(String.format(Locale.ROOT, " %,7d", r.cpuNanos / 1_000_000));
            sb.append('\n');
        }
        return sb.toString();
    }

    private static java.util.Map<String, List<FlushRun>> groups(List<FlushRun> runs) {
        java.util.Map<String, List<FlushRun>> groups = new java.util.LinkedHashMap<>();
        for (FlushRun r : runs) groups.computeIfAbsent(roundKey(r), k -> new ArrayList<>()).add(r);
        return groups;
    }

    /**
     * One run per system and setting, in the order they first ran, each figure the median of that system's rounds
     * (taken figure by figure, so a row need not be one round's); what every round shares (sizes, counts, the
     * version) is the first round's.
     */
    static List<FlushRun> medians(List<FlushRun> runs) {
        List<FlushRun> out = new ArrayList<>();
        for (List<FlushRun> g : groups(runs).values()) {
            FlushRun f = g.get(0);
            if (g.size() == 1) {
                out.add(f);
                continue;
            }
            FlushRun m = new FlushRun(f.system, f.memtable, f.allocation, f.compression, f.sstable, f.bytes, f.partitions, f.rows,
                    f.cells, median(g, r -> r.fillNanos), median(g, r -> r.wallNanos), median(g, r -> r.cpuNanos),
                    median(g, r -> r.allocatedBytes), median(g, r -> r.processCpuNanos), f.threads);
            m.fillGcCount = median(g, r -> r.fillGcCount);
            m.fillGcMillis = median(g, r -> r.fillGcMillis);
            m.fillMinorFaults = median(g, r -> r.fillMinorFaults);
            m.version = f.version;
            m.jsonVersion = f.jsonVersion;
            for (FlushRun r : g) if (r.sameAsFlushline != null && m.sameAsFlushline == null) m.sameAsFlushline = r.sameAsFlushline;
            out.add(m);
        }
        return out;
    }

    /** The median of one figure over runs ({@link BenchCommand#median}). */
    static long median(List<FlushRun> runs, java.util.function.ToLongFunction<FlushRun> figure) {
        long[] v = new long[runs.size()];
        for (int i = 0; i < v.length; i++) v[i] = figure.applyAsLong(runs.get(i));
        return BenchCommand.median(v);
    }

    static final String CQL_WRITER = "cqlsstablewriter";
    static final String CASSANDRA6 = "cassandra6";
    static final List<String> CQL_WRITER_FEEDS = List.of("unsorted", "sorted");

    private static int usage(PrintStream err, String message) {
        err.println("flushline bench: " + message);
        return 1;
    }

    /** One Flushline flush as a FlushRun: summed over its sstables (one unless --ranges). */
    static FlushRun flushlineRun(BenchCommand.Setup s, BenchCommand.Measured m) {
        long bytes = 0, partitions = 0, rows = 0, cells = 0, cpu = 0, alloc = 0;
        for (FlushOutcome o : m.outcomes) {
            bytes += o.bytesFlushed;
            partitions += o.result.partitions;
            rows += o.result.rows;
            cells += o.result.cells;
            cpu += o.cpuNanos;
            alloc += o.allocatedBytes;
        }
        String sstable = m.outcomes.isEmpty() ? "" : m.outcomes.get(0).result.dataPath.toString();
        FlushRun run = new FlushRun("flushline", s.memtable(), s.allocation().cliName(), s.compression(), sstable, bytes, partitions,
                rows, cells, m.fillNanos, m.flushWallNanos, cpu, alloc, m.flushProcessCpuNanos, "FlushJob threads");
        run.fillGcCount = m.fillGcCount;
        run.fillGcMillis = m.fillGcMillis;
        run.fillMinorFaults = m.fillMinorFaults;
        run.version = m.version;
        return run;
    }

    /**
     * The codec floor of one flush ({@link CodecFloor} with no inputs): our Data.db's content cut into the
     * table's chunks, each compressed with the table's codec and given its CRC32 (uncompressed: CRC.db's CRC32 per
     * chunk), then the Digest, on this thread, unmeasured set-up aside. Any flush of these rows into this format
     * does at least that work, so a peer's CPU over the floor bounds how many times cheaper than the peer any
     * flush can be. Null when the flush wrote more than one sstable.
     */
    private static FlushRun codecFloor(FlushRun fl, BenchCommand.Measured m, PrintStream out) throws IOException {
        if (m.outcomes.size() != 1) return null;
        Path data = m.outcomes.get(0).result.dataPath;
        try (CodecFloor.Prepared prepared = CodecFloor.prepare(List.of(), List.of(data))) {
            long thread = Thread.currentThread().getId();
            long proc0 = Costs.processCpuNanos(), alloc0 = Costs.allocated(thread), wall0 = System.nanoTime();
            CodecFloor.Result r = CodecFloor.run(prepared);
            long wall = System.nanoTime() - wall0, alloc = Costs.allocated(thread) - alloc0, proc = Costs.processCpuNanos() - proc0;
            out.println(String.format(Locale.ROOT, "Codec floor of %s (%s): %,d chunks compressed and checksummed in %d ms cpu; %s",
                    data.getFileName(), fl.compression, r.outputChunks, r.outputCpuNanos / 1_000_000, r.digestCheck));
            FlushRun f = new FlushRun("floor", "-", fl.allocation, fl.compression, data.toString(), r.outputBytesWritten,
                    fl.partitions, fl.rows, fl.cells, 0, wall, r.outputCpuNanos, alloc, proc, Thread.currentThread().getName());
            f.version = fl.version;
            f.jsonVersion = fl.jsonVersion;
            return f;
        }
    }

    /**
     * The JVM every in-process system ran in, and its options: the fill and GC figures depend on them
     * (scripts/flushline gives the benchmarks a Cassandra node's heap and GC settings); and how each
     * system writes Data.db.
     */
    static String jvmLine() {
        java.lang.management.RuntimeMXBean rt = java.lang.management.ManagementFactory.getRuntimeMXBean();
        StringBuilder sb = new StringBuilder("JVM: ").append(rt.getVmName()).append(' ').append(rt.getVmVersion())
                .append(", max heap ").append(Runtime.getRuntime().maxMemory() >> 20).append(" MiB; options:");
        for (String a : rt.getInputArguments()) {
            if (a.startsWith("-X") || a.startsWith("-agentpath") || a.startsWith("-Dflushline.io.")) sb.append(' ').append(a);
        }
        // The write mode changes the writer thread's system time, which the flush CPU includes.
        sb.append("; Flushline writes Data.db ").append(dev.flushline.io.SyncedFileOutput.DIRECT_DATA
                ? "with O_DIRECT where the file system takes it (-Dflushline.io.direct=false for the page cache)"
                : "through the page cache (-Dflushline.io.direct=false)").append(", Cassandra through the page cache");
        return sb.toString();
    }

    /** Flushline's own --json object plus the comparison's fill and process keys. */
    private static String withFill(String json, BenchCommand.Measured m, FlushRun fl) {
        return json.substring(0, json.length() - 1)
                + ",\"fill_ms\":" + FlushRun.ms(m.fillNanos)
                + ",\"fill_rows_per_s\":" + Math.round(fl.fillRowsPerSecond())
                + ",\"fill_gc_ms\":" + m.fillGcMillis + ",\"fill_gc_count\":" + m.fillGcCount
                + ",\"fill_minor_faults\":" + (m.fillMinorFaults < 0 ? "null" : Long.toString(m.fillMinorFaults))
                + ",\"process_cpu_ms\":" + FlushRun.ms(m.flushProcessCpuNanos) + "}";
    }

    private static String fillLine(FlushRun r) {
        return String.format(Locale.ROOT, "Filled %s memtable (%s) with %d rows in %d ms: %d rows/s%s%s", r.system,
                r.allocation, r.rows, r.fillNanos / 1_000_000, Math.round(r.fillRowsPerSecond()), gcText(r, "fill"),
                BenchCommand.faultText(r.fillMinorFaults));
    }

    private static String gcText(FlushRun r, String what) {
        return r.fillGcMillis < 0 ? ""
                : String.format(Locale.ROOT, "; gc during the %s: %d collections, %d ms", what, r.fillGcCount, r.fillGcMillis);
    }

    /**
     * A CQLSSTableWriter run in the shape of Cassandra's flush log line, with the cpu time and allocation the other
     * lines carry; its path is one of its Data.db files and its sizes are over all of them.
     */
    private static String cqlWriterLine(FlushRun r) {
        double secs = Math.max(1e-9, r.wallNanos / 1e9);
        return String.format(Locale.ROOT, "CQLSSTableWriter (%s, %s): Completed writing %s (%s), time spent: %d ms, "
                        + "bytes written: %d/(%d per sec), partitions written: %d/(%d per sec), rows: %d/(%d per sec), "
                        + "cpu time: %d ms, allocated: %s (threads %s; process cpu %d ms)%s",
                r.allocation, r.compression, r.sstable, ValueText.mib(r.bytes), r.wallNanos / 1_000_000, r.bytes,
                (long) (r.bytes / secs), r.partitions, (long) (r.partitions / secs), r.rows, (long) (r.rows / secs),
                r.cpuNanos / 1_000_000, ValueText.mib(r.allocatedBytes), r.threads, r.processCpuNanos / 1_000_000,
                gcText(r, "write"));
    }

    /** Cassandra's own flush log line, with the cpu and allocation that Flushline's line adds. */
    private static String cassandraLogLine(FlushRun c) {
        double secs = Math.max(1e-9, c.wallNanos / 1e9);
        return String.format(Locale.ROOT, (c.system.equals(CASSANDRA6) ? "Cassandra 6.0" : "Cassandra") + ": Completed flushing %s (%s) for commitlog position "
                        + "CommitLogPosition(segmentId=-1, position=0), time spent: %d ms, bytes flushed: %d/(%d per sec), "
                        + "partitions flushed: %d/(%d per sec), rows: %d/(%d per sec), cpu time: %d ms, allocated: %s "
                        + "(threads %s; process cpu %d ms)",
                c.sstable, ValueText.mib(c.bytes), c.wallNanos / 1_000_000, c.bytes, (long) (c.bytes / secs), c.partitions,
                (long) (c.partitions / secs), c.rows, (long) (c.rows / secs), c.cpuNanos / 1_000_000,
                ValueText.mib(c.allocatedBytes), c.threads, c.processCpuNanos / 1_000_000);
    }

    /** Whether Flushline's and Cassandra's Data.db of the same data are the same bytes (a check that the work is equal). */
    private static String sameDataFile(List<FlushOutcome> outcomes, FlushRun c) throws IOException {
        if (outcomes.size() != 1) return null;
        Path ours = outcomes.get(0).result.dataPath;
        Path theirs = Path.of(c.sstable);
        if (!Files.exists(ours) || !Files.exists(theirs)) return null;
        long mismatch = Files.mismatch(ours, theirs);
        return mismatch < 0
                ? "Data.db: Flushline's and Cassandra's are byte-identical (" + Files.size(ours) + " bytes)"
                : "Data.db: Flushline's (" + Files.size(ours) + " bytes) and Cassandra's (" + Files.size(theirs)
                  + " bytes) differ from byte " + mismatch;
    }

    /**
     * Whether Flushline's sstables and Cassandra's of the same data and version are the same bytes, component by
     * component (a check that the work is equal, and, for da, that both wrote the same index).
     */
    private static String sameComponents(List<FlushOutcome> outcomes, FlushRun c) throws IOException {
        if (outcomes.size() != 1) return null;
        Path ours = outcomes.get(0).result.dataPath;
        Path theirs = Path.of(c.sstable);
        if (!Files.exists(ours) || !Files.exists(theirs)) return null;
        return ComponentCompare.line("Cassandra", c.version.id(), ours, theirs);
    }

    /**
     * The summary table: one line per flush, then each peer's ratio to the Flushline flush of the same settings;
     * with {@code showVersion}, a version column, and the goals of the versions ({@link #goals}).
     */
    static String table(List<FlushRun> runs, boolean showVersion) {
        StringBuilder sb = new StringBuilder();
        String head = String.format(Locale.ROOT, "%-16s %-16s %-5s ", "system", "allocation", "comp") + versionColumn(showVersion, "ver")
                + String.format(Locale.ROOT, "%12s %8s %9s %9s %8s %11s %10s %10s %9s %9s%n",
                "fill rows/s", "fill gc", "wall ms", "cpu ms", "cpu ns/row", "alloc MiB",
                "alloc B/row", "bytes MiB", "proc cpu", "rows");
        sb.append(head);
        for (FlushRun r : runs) {
            sb.append(String.format(Locale.ROOT, "%-16s %-16s %-5s ", r.system, r.allocation, r.compression))
                    .append(versionColumn(showVersion, r.version == null ? "-" : r.version.id()));
            sb.append(String.format(Locale.ROOT, "%12d %8s %9.0f %9.0f %8.0f %11s %10s %10.1f %9.0f %9d%n",
                    Math.round(r.fillRowsPerSecond()),
                    r.fillGcMillis < 0 ? "n/a" : r.fillGcMillis + " ms", r.wallNanos / 1e6,
                    r.cpuNanos / 1e6, (double) r.cpuNanos / Math.max(1, r.rows),
                    r.allocatedBytes < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f", r.allocatedBytes / 1048576.0),
                    r.allocatedBytes < 0 ? "n/a" : String.format(Locale.ROOT, "%.1f", (double) r.allocatedBytes / Math.max(1, r.rows)),
                    r.bytes / 1048576.0, r.processCpuNanos / 1e6, r.rows));
        }
        sb.append(String.format(Locale.ROOT, "(%s: fill and wall are its whole write, build() to close(); cpu and alloc "
                + "over every Java thread)%n", CQL_WRITER));
        for (FlushRun r : runs) {
            if (!r.system.equals(CASSANDRA6)) continue;
            sb.append(String.format(Locale.ROOT, "(%s: Cassandra 6.0-alpha2 in a child JVM; cpu and alloc over its flush threads "
                    + "there, proc cpu the child process's)%n", CASSANDRA6));
            break;
        }
        sb.append(String.format(Locale.ROOT, "%nRatios, peer / Flushline (same allocation and compression; RocksDB against "
                + "Flushline heap_buffers, else the first allocation). >1 = the peer costs more (or fills faster):%n"));
        sb.append(String.format(Locale.ROOT, "%-16s %-16s %-5s ", "system", "allocation", "comp")).append(versionColumn(showVersion, "ver"))
                .append(String.format(Locale.ROOT, "%9s %9s %9s %9s %9s%n", "cpu", "wall", "alloc", "bytes", "fill/s"));
        for (FlushRun r : runs) {
            if (r.system.equals("flushline") || r.system.equals(CQL_WRITER) || r.system.equals("floor")) continue;
            FlushRun base = flushlineBase(runs, r);
            if (base == null) continue;
            sb.append(String.format(Locale.ROOT, "%-16s %-16s %-5s ", r.system,
                    r.allocation + (r.system.equals("rocksdb") ? "/" + base.allocation : ""), r.compression))
                    .append(versionColumn(showVersion, base.version.id()));
            sb.append(String.format(Locale.ROOT, "%9s %9s %9s %9s %9s%n",
                    ratio(r.cpuNanos, base.cpuNanos), ratio(r.wallNanos, base.wallNanos),
                    r.allocatedBytes < 0 ? "n/a" : ratio(r.allocatedBytes, base.allocatedBytes),
                    ratio(r.bytes, base.bytes), ratio(r.fillRowsPerSecond(), base.fillRowsPerSecond())));
        }
        boolean bulk = false;
        for (FlushRun r : runs) {
            if (!r.system.equals(CQL_WRITER)) continue;
            FlushRun base = flushlineBase(runs, r);
            if (base == null) continue;
            if (!bulk) {
                sb.append(String.format(Locale.ROOT, "%nBulk write, rows to sstables. Flushline: fill + flush of the same rows "
                        + "(already built in memory: no parsing, unlike flushline load); %s: build() to close(). "
                        + "Ratio = Flushline / %s, >1 = Flushline faster or cheaper:%n", CQL_WRITER, CQL_WRITER));
                sb.append(String.format(Locale.ROOT, "%-16s %-16s %-5s %14s %14s %9s %9s%n", "system", "feed/base", "comp",
                        "peer rows/s", "ours rows/s", "rows/s", "cpu"));
                bulk = true;
            }
            long oursNanos = base.fillNanos + base.wallNanos;
            // Flushline's cpu here is the flush's threads only: the fill ran on the bench thread, which the
            // bulk writer's figure (every Java thread) includes. Add the fill's wall time as the fill thread's
            // upper bound of CPU, so the comparison cannot flatter Flushline.
            long oursCpu = base.cpuNanos + base.fillNanos;
            double peerRate = r.rows * 1e9 / Math.max(1, r.wallNanos), oursRate = base.rows * 1e9 / Math.max(1, oursNanos);
            sb.append(String.format(Locale.ROOT, "%-16s %-16s %-5s %14.0f %14.0f %9s %9s%n", r.system,
                    r.allocation + "/" + base.allocation, r.compression, peerRate, oursRate, ratio(oursRate, peerRate),
                    ratio(r.cpuNanos, oursCpu)));
        }
        if (showVersion) goals(runs, sb);
        return sb.toString();
    }

    /** A version cell of the tables ({@code %-4s} and a space), or nothing without the version column. */
    private static String versionColumn(boolean showVersion, String text) {
        return showVersion ? String.format(Locale.ROOT, "%-4s ", text) : "";
    }

    /** Cassandra's flush CPU over ours, same version: the goal for oa and for da. */
    static final double CASSANDRA_OVER_OURS_CPU_GOAL = 5.0;

    /**
     * The goals of a versions run, per allocation and compression: Flushline's flush CPU in each version over its
     * oa flush's (goal for da: at most x1.10), then each Cassandra 5.0.5 flush's CPU over Flushline's in the same
     * version (goal: at least x5), each with "met" or "missed".
     */
    private static void goals(List<FlushRun> runs, StringBuilder sb) {
        sb.append(String.format(Locale.ROOT, "%nGoals, flush cpu (same allocation and compression):%n"));
        sb.append(String.format(Locale.ROOT, "%-28s %-16s %-5s %9s  %s%n", "ratio", "allocation", "comp", "cpu", "goal"));
        for (FlushRun f : runs) {
            if (!f.system.equals("flushline") || f.version == SSTableVersion.OA) continue;
            FlushRun oa = flushlineRun(runs, f.allocation, f.compression, SSTableVersion.OA);
            if (oa == null) continue;
            double x = oa.cpuNanos <= 0 ? Double.NaN : (double) f.cpuNanos / oa.cpuNanos;
            String goal = f.version != SSTableVersion.DA ? "none"
                    : String.format(Locale.ROOT, "at most x%.2f: %s", BenchCommand.DA_OVER_OA_CPU_GOAL,
                            Double.isNaN(x) ? "n/a" : x <= BenchCommand.DA_OVER_OA_CPU_GOAL ? "met" : "missed");
            sb.append(String.format(Locale.ROOT, "%-28s %-16s %-5s %9s  %s%n", "flushline " + f.version + " / flushline oa",
                    f.allocation, f.compression, ratio(f.cpuNanos, oa.cpuNanos), goal));
        }
        for (FlushRun c : runs) {
            if (!c.system.equals("cassandra") || c.version == null) continue;
            FlushRun ours = flushlineRun(runs, c.allocation, c.compression, c.version);
            if (ours == null) continue;
            double x = ours.cpuNanos <= 0 ? Double.NaN : (double) c.cpuNanos / ours.cpuNanos;
            sb.append(String.format(Locale.ROOT, "%-28s %-16s %-5s %9s  %s%n", "cassandra " + c.version + " / flushline " + c.version,
                    c.allocation, c.compression, ratio(c.cpuNanos, ours.cpuNanos),
                    String.format(Locale.ROOT, "at least x%.2f: %s", CASSANDRA_OVER_OURS_CPU_GOAL,
                            Double.isNaN(x) ? "n/a" : x >= CASSANDRA_OVER_OURS_CPU_GOAL ? "met" : "missed")));
        }
        // Against the codec floor of our flush: no flush of these rows costs less than the floor, so Cassandra's CPU
        // over it is the most times cheaper than Cassandra's any flush can be.
        for (FlushRun c : runs) {
            if (!c.system.equals("cassandra") || c.version == null) continue;
            FlushRun ours = flushlineRun(runs, c.allocation, c.compression, c.version);
            FlushRun floor = run(runs, "floor", c.allocation, c.compression, c.version);
            if (ours == null || floor == null) continue;
            double most = floor.cpuNanos <= 0 ? Double.NaN : (double) c.cpuNanos / floor.cpuNanos;
            sb.append(String.format(Locale.ROOT, "%-28s %-16s %-5s %9s  %s%n", "flushline " + c.version + " / floor",
                    c.allocation, c.compression, ratio(ours.cpuNanos, floor.cpuNanos), "(the floor: " + floor.cpuNanos / 1_000_000 + " ms)"));
            sb.append(String.format(Locale.ROOT, "%-28s %-16s %-5s %9s  %s%n", "cassandra " + c.version + " / floor",
                    c.allocation, c.compression, ratio(c.cpuNanos, floor.cpuNanos),
                    Double.isNaN(most) ? "n/a" : most < CASSANDRA_OVER_OURS_CPU_GOAL
                            ? String.format(Locale.ROOT, "below x%.2f: the goal is out of reach of any flush", CASSANDRA_OVER_OURS_CPU_GOAL)
                            : String.format(Locale.ROOT, "the goal leaves %d ms above the floor", Math.round(c.cpuNanos / CASSANDRA_OVER_OURS_CPU_GOAL / 1e6
                                    - floor.cpuNanos / 1e6))));
        }
    }

    private static FlushRun run(List<FlushRun> runs, String system, String allocation, String compression, SSTableVersion version) {
        for (FlushRun f : runs) {
            if (f.system.equals(system) && f.allocation.equals(allocation) && f.compression.equals(compression) && f.version == version) {
                return f;
            }
        }
        return null;
    }

    private static FlushRun flushlineRun(List<FlushRun> runs, String allocation, String compression, SSTableVersion version) {
        return run(runs, "flushline", allocation, compression, version);
    }

    /**
     * The Flushline run a peer's run is compared with: same compression and allocation, or heap_buffers, or the
     * first; of the peer's sstable version, or, for a peer without one (RocksDB, CQLSSTableWriter), of the first
     * version Flushline flushed.
     */
    private static FlushRun flushlineBase(List<FlushRun> runs, FlushRun r) {
        FlushRun base = null;
        SSTableVersion version = r.version;
        if (version == null || r.system.equals(CQL_WRITER)) {
            for (FlushRun f : runs) {
                if (f.system.equals("flushline")) {
                    version = f.version;
                    break;
                }
            }
        }
        for (FlushRun f : runs) {
            if (!f.system.equals("flushline") || !f.compression.equals(r.compression) || f.version != version) continue;
            boolean cassandra = r.system.equals("cassandra") || r.system.equals(CASSANDRA6);
            if (f.allocation.equals(r.allocation) || (!cassandra && f.allocation.equals("heap_buffers"))) {
                return f;
            }
            if (base == null) base = f;
        }
        return base;
    }

    private static String ratio(double peer, double flushline) {
        return flushline <= 0 ? "n/a" : String.format(Locale.ROOT, "x%.2f", peer / flushline);
    }
}

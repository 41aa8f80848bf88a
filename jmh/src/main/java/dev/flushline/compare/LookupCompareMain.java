package dev.flushline.compare;

import dev.flushline.bench.BenchCommand;
import dev.flushline.flush.FlushOutcome;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.ValueCodec;
import dev.flushline.sstable.SSTableVersion;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * {@code flushline bench lookup}: point lookups in one sstable, ours beside Cassandra 5.0.5's, in CPU per lookup.
 * The question is the goal for BTI reads: do lookups through Partitions.db, as {@code dump -k} makes
 * them, cost at most twice what Cassandra's SSTableReader lookups of the same keys in the same file cost?
 *
 * <p>Why a {@code bench} mode and not a JMH benchmark: the goal is a ratio to Cassandra in one run, over the
 * same file and keys, and every Cassandra comparison lives here ({@code bench --against}, {@code bench compact}),
 * with the client-mode set-up, the bench workload and the writers that make the file. JMH would measure each
 * side in its own fork and leave the ratio, and the check that both read the same rows, to the reader.
 *
 * <p>The sstable: the bench workload ({@code stress.stress_table}, {@code --partitions} partitions of 10 rows of
 * 5 text values of 16 bytes), written in {@code --sstable-version} (da by default; oa too) by Cassandra 5.0.5's
 * flush ({@code --written-by cassandra}, the default: its BtiTableWriter or BigTableWriter, through
 * {@link CassandraPeer}) or by ours ({@code --written-by flushline}, once Flushline writes the version). Both
 * systems then read that one file.
 *
 * <p>The keys: {@code --lookups} present keys drawn at random (with repeats) from the workload's partitions and
 * {@code --absent} absent keys (bigints past the last partition), in a fixed-seed random order, the same arrays
 * for both. Ours: {@link FlushlineLookup} (dump -k's path: PartitionIndex.position, then an SSTableCursor seek and
 * a read of the partition). Cassandra's: {@link CassandraLookup} ({@code SSTableReader.rowIterator} of the key,
 * read whole). Both are opened once before the clock starts; opening is timed apart.
 *
 * <p>Each round looks up the present keys, then the absent ones, on this thread, timed with its CPU
 * (ThreadMXBean), allocation and wall clock; rounds alternate which system goes first. {@code --warmup} rounds
 * run first, unmeasured. Every round of each system must find every present key and no absent one, and over all
 * rounds both must have read the same rows and cells (sums of every cell's timestamp and value size): else the
 * run fails. The table gives the medians per lookup and ours / Cassandra's, against the goal (at most x2.00).
 *
 * <p>Entry points: {@link #main} and {@link #run} (BenchCommand calls it through reflection).
 */
public final class LookupCompareMain {
    private LookupCompareMain() {}

    /** The goal: our CPU per lookup at most this many times Cassandra's. */
    static final double OURS_OVER_CASSANDRA_GOAL = 2.0;
    static final long KEY_SEED = 0x5DEECE66DL;

    static final String HELP =
            "Usage: flushline bench lookup [--partitions N] [--lookups N] [--absent N] [--sstable-version da|oa[,..]]\n"
          + "       [--compression lz4|none[,..]] [--written-by cassandra|flushline] [--rounds N] [--warmup N] [--dir DIR]\n"
          + "\n"
          + "Point lookups in one sstable of stress.stress_table (N partitions of 10 rows, default 260000), ours as\n"
          + "dump -k makes them (the partition index, then a cursor reading the partition) beside Cassandra 5.0.5's\n"
          + "SSTableReader.rowIterator of the same keys read whole, in CPU per lookup; medians of --rounds (default 5)\n"
          + "after --warmup (default 2) rounds. Keys: --lookups present (default 100000, random, with repeats) and\n"
          + "--absent absent (default a tenth of --lookups). The sstable is written by Cassandra's flush (default) or\n"
          + "ours, as da (default) or oa, lz4 (default) or uncompressed. --dir keeps the files (default: a temp dir).\n";

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Returns the exit status: 0 ok, 1 usage, 2 internal or I/O failure. */
    public static int run(String[] argv, PrintStream out, PrintStream err) {
        int partitions = 260_000, lookups = 100_000, absent = -1, rounds = 5, warmup = 2;
        List<SSTableVersion> versions = List.of(SSTableVersion.DA);
        List<String> compressions = List.of("lz4");
        String writtenBy = "cassandra";
        Path dir = null;
        try {
            for (int i = 0; i < argv.length; i++) {
                String a = argv[i];
                if (a.equals("--help") || a.equals("-h")) {
                    out.print(HELP);
                    return 0;
                }
                String name = a, value;
                int eq = a.indexOf('=');
                if (a.startsWith("--") && eq > 0) {
                    name = a.substring(0, eq);
                    value = a.substring(eq + 1);
                } else {
                    if (i + 1 >= argv.length) return usage(err, "option " + a + " needs a value");
                    value = argv[++i];
                }
                switch (name) {
                    case "--partitions": partitions = positive(name, value); break;
                    case "--lookups": lookups = positive(name, value); break;
                    case "--absent": absent = Math.max(0, Integer.parseInt(value)); break;
                    case "--rounds": rounds = positive(name, value); break;
                    case "--warmup": warmup = Math.max(0, Integer.parseInt(value)); break;
                    case "--sstable-version": {
                        List<SSTableVersion> vs = new ArrayList<>();
                        for (String id : value.split(",", -1)) {
                            SSTableVersion v = SSTableVersion.fromId(id.trim());
                            if (v == null || !CassandraPeer.writes(v)) {
                                return usage(err, "--sstable-version " + value + ": '" + id.trim() + "' is not one of da, oa (the versions"
                                        + " Cassandra 5.0.5's flush writes here)");
                            }
                            if (!vs.contains(v)) vs.add(v);
                        }
                        versions = List.copyOf(vs);
                        break;
                    }
                    case "--compression":
                        compressions = List.of(value.split(","));
                        for (String c : compressions) if (!c.equals("lz4") && !c.equals("none")) return usage(err, "--compression " + value + ": lz4 or none");
                        break;
                    case "--written-by":
                        if (!value.equals("cassandra") && !value.equals("flushline")) {
                            return usage(err, "--written-by " + value + ": cassandra or flushline");
                        }
                        writtenBy = value;
                        break;
                    case "--dir": dir = Path.of(value); break;
                    default: return usage(err, "unknown option " + name + " (see flushline bench lookup --help)");
                }
            }
        } catch (NumberFormatException e) {
            return usage(err, "not a number: " + e.getMessage());
        } catch (IllegalArgumentException e) {
            return usage(err, e.getMessage());
        }
        if (absent < 0) absent = lookups / 10;

        Path temp = null;
        CassandraPeer writer = null;
        try {
            Path root = dir != null ? Files.createDirectories(dir) : (temp = Files.createTempDirectory("flushline-lookup-bench-"));
            List<SSTableVersion> ourVersions = writtenBy.equals("flushline") ? versions : null;
            BenchCommand.Setup first = setup(partitions, compressions.get(0), ourVersions);
            BenchCommand.Workload w = first.workload;
            out.println(String.format(Locale.ROOT, "Lookup workload: %s; %d partitions x %d rows; sstable versions %s, compression %s, "
                            + "written by %s; %d present + %d absent keys per round, random order; %d warm-up + %d measured rounds",
                    w.cql(), w.partitions, w.rowsPerPartition, BenchCommand.versionList(versions, ","), String.join(",", compressions),
                    writtenBy, lookups, absent, warmup, rounds));
            ByteBuffer[][] theirKeys = new ByteBuffer[2][];
            byte[][][] ourKeys = keys(partitions, lookups, absent, theirKeys);
            List<Setting> settings = new ArrayList<>();
            for (String compression : compressions) {
                for (SSTableVersion version : versions) {
                    BenchCommand.Setup s = setup(partitions, compression, ourVersions);
                    Path data;
                    if (writtenBy.equals("cassandra")) {
                        if (writer == null) writer = new CassandraPeer(w, valueOrder(s), root.resolve("cassandra"));
                        FlushRun r = writer.fillAndFlush(w, "heap_buffers", compression, s.schema.chunkLengthBytes(), version);
                        data = Path.of(r.sstable);
                    } else {
                        BenchCommand.Measured m = s.fillAndFlush(root.resolve("flushline-" + compression + "-" + version), out, version);
                        if (m.outcomes.size() != 1) throw new IllegalStateException("the flush wrote " + m.outcomes.size() + " sstables, expected 1");
                        FlushOutcome o = m.outcomes.get(0);
                        out.println(o.logLine());
                        data = o.result.dataPath;
                    }
                    settings.add(runSetting(s, version, compression, writtenBy, data, root, ourKeys, theirKeys, warmup, rounds, out));
                }
            }
            out.println();
            out.print(table(settings));
            return 0;
        } catch (IllegalArgumentException e) {
            // Setup.parse's usage message: such as a version Flushline does not write yet, with --written-by flushline
            return usage(err, e.getMessage());
        } catch (Exception | Error e) {
            err.println("flushline bench lookup: internal error: " + e);
            e.printStackTrace(err);
            return 2;
        } finally {
            if (writer != null) writer.close();
            if (temp != null) {
                try {
                    BenchCommand.deleteRecursively(temp);
                } catch (IOException e) {
                    err.println("flushline bench lookup: could not delete " + temp + ": " + e);
                }
            }
        }
    }

    private static int positive(String name, String value) {
        int n = Integer.parseInt(value);
        if (n < 1) throw new IllegalArgumentException(name + " " + value + " must be at least 1");
        return n;
    }

    private static int usage(PrintStream err, String message) {
        err.println("flushline bench lookup: " + message);
        return 1;
    }

    /**
     * The bench options of one setting, parsed as {@code flushline bench} parses them; with {@code ourVersions}
     * (when Flushline writes the sstable), a version Flushline does not write is refused by bench's own message. No
     * warm-up flushes: the flush is not what is measured.
     */
    private static BenchCommand.Setup setup(int partitions, String compression, List<SSTableVersion> ourVersions) {
        List<String> args = new ArrayList<>(List.of("--partitions", Integer.toString(partitions), "--compression", compression,
                "--warmup-partitions", "0"));
        if (ourVersions != null) args.addAll(List.of("--sstable-version", BenchCommand.versionList(ourVersions, ",")));
        return BenchCommand.Setup.parse(args.toArray(new String[0]));
    }

    private static String[] valueOrder(BenchCommand.Setup s) {
        ColumnMetadata[] regulars = s.schema.regularColumns();
        String[] order = new String[s.workload.valueColumns];
        for (int c = 0; c < order.length; c++) order[c] = regulars[c].name();
        return order;
    }

    /**
     * The keys of every round: {@code [0]} {@code present} keys of the workload's partitions (pk 0..partitions-1,
     * drawn with repeats), {@code [1]} {@code absent} bigints past them, each list in a fixed-seed random order;
     * the same keys as ByteBuffers for Cassandra in {@code theirs}.
     */
    static byte[][][] keys(int partitions, int present, int absent, ByteBuffer[][] theirs) {
        SplittableRandom random = new SplittableRandom(KEY_SEED);
        byte[][][] ours = {new byte[present][], new byte[absent][]};
        for (int i = 0; i < present; i++) ours[0][i] = ValueCodec.int64(random.nextInt(partitions));
        for (int i = 0; i < absent; i++) ours[1][i] = ValueCodec.int64(partitions + random.nextLong(Long.MAX_VALUE - partitions));
        for (int k = 0; k < 2; k++) {
            theirs[k] = new ByteBuffer[ours[k].length];
            for (int i = 0; i < ours[k].length; i++) theirs[k][i] = ByteBuffer.wrap(ours[k][i]);
        }
        return ours;
    }

    /** One sstable's comparison: the per-round costs of each system and key set. */
    static final class Setting {
        final SSTableVersion version;
        final String compression;
        final String writtenBy;
        final String reader;
        final int present, absent;
        /** [system: 0 ours, 1 Cassandra's][keys: 0 present, 1 absent][round]. */
        final long[][][] cpuNanos, allocatedBytes, wallNanos;

        Setting(SSTableVersion version, String compression, String writtenBy, String reader, int present, int absent, int rounds) {
            this.version = version;
            this.compression = compression;
            this.writtenBy = writtenBy;
            this.reader = reader;
            this.present = present;
            this.absent = absent;
            this.cpuNanos = new long[2][2][rounds];
            this.allocatedBytes = new long[2][2][rounds];
            this.wallNanos = new long[2][2][rounds];
        }
    }

    private static Setting runSetting(BenchCommand.Setup s, SSTableVersion version, String compression, String writtenBy, Path data,
                                      Path root, byte[][][] ourKeys, ByteBuffer[][] theirKeys, int warmup, int rounds,
                                      PrintStream out) throws IOException {
        StringBuilder files = new StringBuilder();
        for (String c : ComponentCompare.components(data)) {
            if (files.length() > 0) files.append(", ");
            Path f = data.resolveSibling(data.getFileName().toString().replace(ComponentCompare.DATA, c));
            files.append(c).append(' ').append(Files.size(f));
        }
        out.println("Sstable: " + data + " (" + version + ", " + compression + ", written by " + writtenBy + "; bytes: " + files + ")");
        long id = Thread.currentThread().getId();
        long cpu0 = Costs.THREADS.getCurrentThreadCpuTime();
        FlushlineLookup ours = new FlushlineLookup(data, s.schema);
        long oursOpen = Costs.THREADS.getCurrentThreadCpuTime() - cpu0;
        CassandraLookup theirs = null;
        try {
            theirs = new CassandraLookup(s.workload.cql(), data, root);
            long theirOpen = theirs.openCpuNanos;
            out.println(String.format(Locale.ROOT, "Opened: flushline PartitionIndex + SSTableCursor in %.1f ms cpu; cassandra %s in %.1f ms cpu "
                            + "(disk access mode %s, chunk cache %s, no key cache)", oursOpen / 1e6, theirs.readerName(), theirOpen / 1e6,
                    CassandraCompaction.diskAccessMode(), org.apache.cassandra.cache.ChunkCache.instance != null ? "on" : "off"));

            Setting setting = new Setting(version, compression, writtenBy, theirs.readerName(), ourKeys[0].length, ourKeys[1].length, rounds);
            for (int r = 0; r < warmup; r++) {
                for (int k = 0; k < 2; k++) {
                    ours.lookUp(ourKeys[k]);
                    theirs.lookUp(theirKeys[k]);
                }
            }
            for (int r = 0; r < rounds; r++) {
                boolean oursFirst = r % 2 == 0;
                for (int turn = 0; turn < 2; turn++) {
                    boolean measureOurs = (turn == 0) == oursFirst;
                    for (int k = 0; k < 2; k++) {
                        int sys = measureOurs ? 0 : 1;
                        long c0 = Costs.THREADS.getCurrentThreadCpuTime(), a0 = Costs.allocated(id), w0 = System.nanoTime();
                        int found = measureOurs ? ours.lookUp(ourKeys[k]) : theirs.lookUp(theirKeys[k]);
                        setting.wallNanos[sys][k][r] = System.nanoTime() - w0;
                        setting.cpuNanos[sys][k][r] = Costs.THREADS.getCurrentThreadCpuTime() - c0;
                        setting.allocatedBytes[sys][k][r] = Costs.allocated(id) - a0;
                        int expected = k == 0 ? ourKeys[0].length : 0;
                        if (found != expected) {
                            throw new IllegalStateException((measureOurs ? "Flushline" : "Cassandra") + " found " + found + " of "
                                    + ourKeys[k].length + (k == 0 ? " present" : " absent") + " keys in " + data);
                        }
                    }
                }
                out.println(String.format(Locale.ROOT, "Round %d: flushline present %.0f ns, absent %.0f ns; cassandra present %.0f ns, "
                                + "absent %.0f ns (cpu per lookup)", r + 1,
                        perLookup(setting.cpuNanos[0][0][r], setting.present), perLookup(setting.cpuNanos[0][1][r], setting.absent),
                        perLookup(setting.cpuNanos[1][0][r], setting.present), perLookup(setting.cpuNanos[1][1][r], setting.absent)));
            }
            checkSameReads(ours, theirs, ourKeys[0].length * (long) (warmup + rounds), out);
            return setting;
        } finally {
            ours.close();
            if (theirs != null) theirs.close();
        }
    }

    /** After every round: both found every present key (and no absent one) and read the same rows and cells. */
    private static void checkSameReads(FlushlineLookup ours, CassandraLookup theirs, long expectedPartitions, PrintStream out) {
        if (ours.partitions != expectedPartitions || theirs.partitions != expectedPartitions || ours.rows != theirs.rows
                || ours.cells != theirs.cells || ours.checksum != theirs.checksum) {
            throw new IllegalStateException(String.format(Locale.ROOT, "the two lookups read different data: Flushline %d partitions, "
                            + "%d rows, %d cells (checksum %x); Cassandra %d partitions, %d rows, %d cells (checksum %x); expected %d partitions",
                    ours.partitions, ours.rows, ours.cells, ours.checksum, theirs.partitions, theirs.rows, theirs.cells, theirs.checksum,
                    expectedPartitions));
        }
        out.println(String.format(Locale.ROOT, "Both read the same %d partitions, %d rows, %d cells (checksum %x) and found no absent key",
                ours.partitions, ours.rows, ours.cells, ours.checksum));
    }

    private static double perLookup(long nanos, int lookups) {
        return lookups == 0 ? 0 : (double) nanos / lookups;
    }

    static long median(long[] values) {
        long[] v = values.clone();
        Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    /** The medians: per setting, a line per key set (present, absent, all), ours and Cassandra's per lookup, the ratio and the goal. */
    static String table(List<Setting> settings) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "Medians per lookup; ratio = ours / Cassandra's cpu, goal at most x%.2f:%n", OURS_OVER_CASSANDRA_GOAL));
        sb.append(String.format(Locale.ROOT, "%-4s %-5s %-10s %-15s %-8s %8s %12s %10s %12s %10s %8s  %s%n", "ver", "comp", "written by",
                "cassandra reader", "keys", "lookups", "ours cpu ns", "ours B", "theirs cpu ns", "theirs B", "ratio", "goal"));
        for (Setting s : settings) {
            for (int k = 0; k < 3; k++) {
                int lookups = k == 0 ? s.present : k == 1 ? s.absent : s.present + s.absent;
                if (lookups == 0) continue;
                double[] cpu = new double[2], alloc = new double[2];
                for (int sys = 0; sys < 2; sys++) {
                    long[] c = k < 2 ? s.cpuNanos[sys][k] : sum(s.cpuNanos[sys][0], s.cpuNanos[sys][1]);
                    long[] a = k < 2 ? s.allocatedBytes[sys][k] : sum(s.allocatedBytes[sys][0], s.allocatedBytes[sys][1]);
                    cpu[sys] = (double) median(c) / lookups;
                    alloc[sys] = (double) median(a) / lookups;
                }
                double ratio = cpu[1] <= 0 ? Double.NaN : cpu[0] / cpu[1];
                sb.append(String.format(Locale.ROOT, "%-4s %-5s %-10s %-15s %-8s %8d %12.0f %10.1f %12.0f %10.1f %8s  %s%n", s.version,
                        s.compression, s.writtenBy, s.reader, k == 0 ? "present" : k == 1 ? "absent" : "all", lookups, cpu[0], alloc[0],
                        cpu[1], alloc[1], Double.isNaN(ratio) ? "n/a" : String.format(Locale.ROOT, "x%.2f", ratio),
                        Double.isNaN(ratio) ? "n/a" : ratio <= OURS_OVER_CASSANDRA_GOAL ? "met" : "missed"));
            }
        }
        sb.append(String.format(Locale.ROOT, "(cpu and allocation of this thread per lookup; ours: PartitionIndex.position + SSTableCursor "
                + "read of the partition, as dump -k; Cassandra's: SSTableReader.rowIterator(key) read whole, its bloom filter first)%n"));
        return sb.toString();
    }

    private static long[] sum(long[] a, long[] b) {
        long[] s = new long[a.length];
        for (int i = 0; i < a.length; i++) s[i] = a[i] + b[i];
        return s;
    }
}

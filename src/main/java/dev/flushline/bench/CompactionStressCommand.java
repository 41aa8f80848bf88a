package dev.flushline.bench;

import dev.flushline.cli.UsageException;
import dev.flushline.cli.Args;

import dev.flushline.table.Table;
import dev.flushline.table.TableOptions;
import dev.flushline.data.TokenRanges;
import dev.flushline.compaction.CompactionStrategyOptions;
import dev.flushline.compaction.SSTableInfo;
import dev.flushline.compaction.Version;
import dev.flushline.data.Cell;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.Row;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.schema.ValueCodec;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.TableDirectory;
import dev.flushline.table.BackgroundCompactions;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code flushline compaction-stress}, after Cassandra's tools/bin/compaction-stress: {@code write}
 * fills the bench table with a seeded workload whose later writes partly revisit earlier rows, and
 * {@code compact} runs a compaction strategy over it, as the node's background compaction does,
 * until the strategy has nothing left to do, then prints one row of sizes, bytes written and time.
 */
public final class CompactionStressCommand {
    static final String CQL = "CREATE TABLE stress.stress_table (pk bigint, ck int, v1 text, v2 text, v3 text, v4 text, v5 text, "
            + "PRIMARY KEY (pk, ck)) WITH compression = {'enabled': 'false'}";
    /** Rows per partition: row i is (pk i / ROWS_PER_PARTITION, ck i % ROWS_PER_PARTITION). */
    static final int ROWS_PER_PARTITION = 10;
    static final int VALUE_BYTES = 50;
    static final long BASE_TIMESTAMP_MICROS = 1_750_000_000_000_000L;
    private static final long MIB = 1024L * 1024L;

    static final String HELP =
            "Usage: flushline compaction-stress write --dir DIR --size-gb G [--seed S] [--flush-mb M] [--overwrite-ratio R]\n"
          + "       flushline compaction-stress compact --dir DIR --strategy stcs|lcs [options]\n"
          + "\n"
          + "A compaction benchmark on one table, stress.stress_table (pk bigint, ck int, v1..v5 text,\n"
          + "PRIMARY KEY (pk, ck)), uncompressed, kept under DIR/stress/stress_table-<id>/.\n"
          + "\n"
          + "write: fills the table with about G GiB of Data.db (G may be fractional, e.g. 0.5), flushing a\n"
          + "memtable into one sstable every M MiB of memtable data. Nothing is compacted. Each write is one\n"
          + "row of 5 random 50-byte values with a newer timestamp than the last; a share R of the writes\n"
          + "revisit a uniformly chosen earlier row (an overwrite a compaction merges away), the others add\n"
          + "a new row (10 rows per partition). The same seed writes the same data. DIR must not hold the\n"
          + "table's sstables yet.\n"
          + "  --dir DIR                 where the table directory is created (required)\n"
          + "  --size-gb G               Data.db bytes to write, in GiB (required; more than 0)\n"
          + "  --seed S                  seed of keys and values (default 1)\n"
          + "  --flush-mb M              memtable size that triggers a flush, MiB (default 64)\n"
          + "  --overwrite-ratio R       share of writes that revisit an earlier row, 0..1 (default 0.3)\n"
          + "\n"
          + "compact: runs the strategy over the table under DIR, in place, until it picks nothing more,\n"
          + "printing each compaction's line (Cassandra's 'Compacted ...' line, then 'Picked:' and the\n"
          + "strategy's reason). Then one table row: strategy and settings, size before, size after (live\n"
          + "Data.db bytes), compaction bytes written (Data.db bytes of every output), write amplification\n"
          + "(bytes written / size before), time, compactions, sstables left, at rest or not. It replaces the written\n"
          + "sstables: copy DIR first to run several strategies over the same data.\n"
          + "  --dir DIR                         the directory 'write' filled (required)\n"
          + "  --strategy stcs|lcs               size-tiered or leveled (required)\n"
          + "  --sstable-size-mb N               leveled target sstable size, MiB, may be fractional (default 160)\n"
          + "  --min-sstable-size-mb N           size-tiered min_sstable_size, MiB, may be fractional (default 50)\n"
          + "  --range-aware                     range-aware compaction over --vnodes or --ranges token ranges\n"
          + "  --vnodes N                        N vnode ranges (deterministic random tokens, see --vnode-seed)\n"
          + "  --vnode-seed S                    seed of the vnode tokens (default 1)\n"
          + "  --ranges N                        or: N equal token ranges\n"
          + "  --min-range-sstable-size-mb N     range-aware: a range gets an sstable of its own once its\n"
          + "                                    estimated share of a compaction is N MiB, MiB, may be\n"
          + "                                    fractional (default 10)\n"
          + "  --compaction-threads N            compactions run at once (default 1)\n"
          + "  --throughput-mib-s N              limit on compaction writes, MiB/s (default 0: unthrottled)\n"
          + "  --time-limit-s N                  start no compaction after N seconds: the running ones finish,\n"
          + "                                    the row then says 'no' under 'at rest' (default 0: no limit)\n"
          + "\n"
          + "Exit status: 0 ok; 1 bad input or usage; 2 internal or I/O failure (or a compaction failed).\n";

    public static final Set<String> WRITE_OPTIONS = Set.of("dir", "size-gb", "seed", "flush-mb", "overwrite-ratio");
    public static final Set<String> COMPACT_OPTIONS = Set.of("dir", "strategy", "sstable-size-mb", "min-sstable-size-mb",
            "vnodes", "vnode-seed", "ranges", "min-range-sstable-size-mb", "compaction-threads", "throughput-mib-s", "time-limit-s");
    public static final Set<String> COMPACT_FLAGS = Set.of("range-aware");

    private CompactionStressCommand() {
    }

    public static int run(String[] argv, InputStream stdin, PrintStream out, PrintStream err) {
        for (String a : argv) {
            if (a.equals("--help") || a.equals("-h")) {
                out.print(HELP);
                return 0;
            }
        }
        if (argv.length == 0) {
            err.println("flushline compaction-stress: missing mode, write or compact (see flushline compaction-stress --help)");
            return 1;
        }
        String[] rest = java.util.Arrays.copyOfRange(argv, 1, argv.length);
        try {
            switch (argv[0]) {
                case "write":
                    return write(new Args("compaction-stress write", rest, WRITE_OPTIONS, Set.of()), out, err);
                case "compact":
                    return compact(new Args("compaction-stress compact", rest, COMPACT_OPTIONS, COMPACT_FLAGS), out, err);
                default:
                    throw new UsageException("unknown mode '" + argv[0] + "': write or compact");
            }
        } catch (UsageException e) {
            err.println("flushline compaction-stress: " + e.getMessage());
            return 1;
        } catch (IOException e) {
            err.println("flushline compaction-stress: I/O error: " + dev.flushline.io.IoErrors.withCause(e));
            return 2;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("flushline compaction-stress: interrupted");
            return 2;
        } catch (RuntimeException e) {
            err.println("flushline compaction-stress: internal error: " + e);
            return 2;
        }
    }

    static TableSchema schema() {
        return CqlParser.parse(CQL);
    }

    static double decimal(Args args, String name, double defaultValue, double min, double max) throws UsageException {
        if (!args.has(name)) return defaultValue;
        String v = args.string(name, null);
        double x;
        try {
            x = Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " " + v + " is not a number");
        }
        if (!(x >= min && x <= max)) throw new UsageException("--" + name + " " + v + " is out of range (" + min + ".." + max + ")");
        return x;
    }

    // ---- write -----------------------------------------------------------------------------------

    private static int write(Args args, PrintStream out, PrintStream err) throws UsageException, IOException {
        Path dir = Path.of(args.required("dir"));
        double sizeGb = decimal(args, "size-gb", -1, Double.MIN_VALUE, 1 << 20);
        if (sizeGb < 0) throw new UsageException("missing --size-gb (see flushline compaction-stress --help)");
        long seed = args.longValue("seed", 1, Long.MIN_VALUE, Long.MAX_VALUE);
        double flushMb = decimal(args, "flush-mb", 64, 0.0625, 1 << 16);
        double ratio = decimal(args, "overwrite-ratio", 0.3, 0, 1);
        TableSchema schema = schema();
        Path tableDir = schema.directoryUnder(dir);
        if (Files.isDirectory(tableDir) && !SSTableFiles.inDirectory(tableDir).isEmpty()) {
            throw new UsageException("--dir " + dir + " already holds sstables of stress.stress_table in " + tableDir
                    + "; write into an empty directory");
        }
        long target = (long) (sizeGb * 1024 * MIB);
        long flushBytes = (long) (flushMb * MIB);
        Workload w = new Workload(schema, seed, ratio);
        long[] written = new long[1], sstables = new long[1]; // updated on the flush thread, read after each flush returned
        // The table switches memtables only at twice the flush size: each memtable is flushed here, at
        // the flush size, and waited for, so the same seed writes the same sstables.
        TableOptions options = TableOptions.builder().schema(schema).dataDir(dir).allocation("unslabbed_heap")
                .memtableSizeBytes(2 * flushBytes).flushCompression("table")
                .onFlushed(o -> {
                    synchronized (written) {
                        written[0] += o.result.dataFileBytes;
                        sstables[0]++;
                    }
                    out.println(o.logLine());
                })
                // the table's own lines (leftovers, a failed flush) on standard error, as the command line words them
                .log(err::println)
                .build();
        long t0 = System.nanoTime();
        try (Table table = Table.open(options)) {
            while (true) {
                synchronized (written) {
                    if (written[0] >= target) break;
                }
                while (table.memtableBytes() < flushBytes) table.apply(w.next());
                table.flush();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while writing");
        }
        out.printf(Locale.ROOT, "wrote %,d rows (%,d revisits of earlier rows, %,d distinct) in %,d sstables, %s Data.db, in %.1f s%n",
                w.writes, w.revisits, w.rows, sstables[0], mib(written[0]), (System.nanoTime() - t0) / 1e9);
        return 0;
    }

    /** The seeded workload: row i is (pk i / 10, ck i % 10); a revisit rewrites a uniformly chosen earlier row. */
    static final class Workload {
        private final TableSchema schema;
        private final double ratio;
        private final int simple;
        private final ComplexColumn[] noComplex;
        private long random;
        private long timestamp = BASE_TIMESTAMP_MICROS;
        long rows, writes, revisits;

        Workload(TableSchema schema, long seed, double ratio) {
            this.schema = schema;
            this.ratio = ratio;
            this.simple = schema.regularComplexStart();
            this.noComplex = new ComplexColumn[schema.regularColumns().length - simple];
            this.random = seed * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L;
            if (random == 0) random = 1;
        }

        private long nextRandom() {
            random ^= random << 13;
            random ^= random >>> 7;
            random ^= random << 17;
            return random;
        }

        PartitionUpdate next() {
            long row;
            if (rows > 0 && (nextRandom() >>> 11) * 0x1.0p-53 < ratio) {
                row = Long.remainderUnsigned(nextRandom(), rows);
                revisits++;
            } else {
                row = rows++;
            }
            writes++;
            long ts = timestamp++;
            Cell[] cells = new Cell[simple];
            for (int c = 0; c < simple; c++) {
                byte[] v = new byte[VALUE_BYTES];
                for (int i = 0; i < v.length; i += 8) {
                    long bits = nextRandom();
                    for (int j = i; j < Math.min(v.length, i + 8); j++) {
                        v[j] = (byte) ('!' + (int) ((bits & 0xFF) % 94));
                        bits >>>= 8;
                    }
                }
                cells[c] = Cell.live(ts, v, null);
            }
            Row r = new Row(false, new byte[][] {ValueCodec.int32((int) (row % ROWS_PER_PARTITION))}, ts, Cell.NO_TTL, Cell.NO_DELETION_TIME,
                    DeletionTime.LIVE, cells, noComplex);
            return new PartitionUpdate(PartitionKey.of(ValueCodec.int64(row / ROWS_PER_PARTITION)), DeletionTime.LIVE, List.of(), null, List.of(r));
        }
    }


    // ---- compact ---------------------------------------------------------------------------------

    /** The strategy the compact options describe. */
    static BackgroundCompactions.Settings settings(Args args) throws UsageException {
        String strategy = args.choice("strategy", null, "stcs", "lcs");
        boolean lcs = strategy.equals("lcs");
        boolean rangeAware = args.has("range-aware");
        if (!lcs && args.has("sstable-size-mb")) throw new UsageException("--sstable-size-mb is a leveled option; use it with --strategy lcs");
        if (!rangeAware && (args.has("vnodes") || args.has("ranges") || args.has("min-range-sstable-size-mb") || args.has("vnode-seed"))) {
            throw new UsageException("--vnodes, --ranges, --vnode-seed and --min-range-sstable-size-mb need --range-aware");
        }
        double sstableMb = decimal(args, "sstable-size-mb", CompactionStrategyOptions.DEFAULT_SSTABLE_SIZE_MB, 1.0 / 1024, 1 << 20);
        double minSSTableMb = decimal(args, "min-sstable-size-mb",
                CompactionStrategyOptions.DEFAULT_MIN_SSTABLE_SIZE_BYTES / (double) MIB, 0, 1 << 20);
        double minRangeMb = decimal(args, "min-range-sstable-size-mb", CompactionStrategyOptions.DEFAULT_MIN_RANGE_SSTABLE_SIZE_MB, 0, 1 << 20);
        Map<String, String> map = new LinkedHashMap<>();
        map.put("class", lcs ? "LeveledCompactionStrategy" : "SizeTieredCompactionStrategy");
        map.put("min_sstable_size", Long.toString((long) (minSSTableMb * MIB)));
        if (rangeAware) map.put("range_aware_compaction", "true");
        BackgroundCompactions.Settings s = new BackgroundCompactions.Settings();
        try {
            s.strategy = CompactionStrategyOptions.parse(map).withSizes((long) (sstableMb * MIB), (long) (minRangeMb * MIB));
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        if (rangeAware) {
            if (args.has("vnodes") == args.has("ranges")) throw new UsageException("--range-aware needs one of --vnodes N or --ranges N");
            s.ranges = args.has("vnodes")
                    ? TokenRanges.vnodes(args.intValue("vnodes", 256, 1, 65536), args.longValue("vnode-seed", 1, Long.MIN_VALUE, Long.MAX_VALUE))
                    : TokenRanges.even(args.intValue("ranges", 1, 1, 65536));
        }
        s.threads = args.intValue("compaction-threads", 1, 1, 256);
        s.throughputMiBPerSecond = decimal(args, "throughput-mib-s", 0, 0, 1 << 20);
        s.pendingWarnThreshold = 0; // a benchmark starts far behind on purpose
        return s;
    }

    private static int compact(Args args, PrintStream out, PrintStream err) throws UsageException, IOException, InterruptedException {
        Path dir = Path.of(args.required("dir"));
        BackgroundCompactions.Settings s = settings(args);
        TableSchema schema = schema();
        Path tableDir = schema.directoryUnder(dir);
        if (!Files.isDirectory(tableDir)) {
            throw new UsageException("--dir " + dir + ": no " + tableDir.getParent().getFileName() + "/" + tableDir.getFileName()
                    + " (run compaction-stress write first)");
        }
        TableDirectory td = TableDirectory.open(tableDir);
        for (Path removed : td.removedLeftovers()) out.println("removed leftover " + removed);
        for (Path p : td.incomplete()) out.println(dev.flushline.sstable.Leftovers.describe(p));
        long before = 0;
        int sstablesBefore = 0;
        for (SSTableFiles f : SSTableFiles.inDirectory(tableDir)) {
            before += Files.size(f.path(dev.flushline.sstable.Component.DATA));
            sstablesBefore++;
        }
        out.printf(Locale.ROOT, "compacting %d sstables, %s, with %s%n", sstablesBefore, mib(before), describe(s));
        long t0 = System.nanoTime();
        BackgroundCompactions c = BackgroundCompactions.open(schema, td, s, line -> {
            synchronized (out) {
                out.println(line);
            }
        });
        long limit = args.longValue("time-limit-s", 0, 0, Long.MAX_VALUE / 1000);
        boolean atRest;
        if (limit == 0) {
            c.awaitQuiescent();
            atRest = true;
        } else {
            atRest = c.awaitQuiescent(limit * 1000);
        }
        c.close();
        long seconds100 = (System.nanoTime() - t0) / 10_000_000;
        Version v = c.version();
        long after = v.totalBytes();
        long written = c.bytesWritten();
        int maxLevel = 0;
        for (SSTableInfo i : v.sstables()) maxLevel = Math.max(maxLevel, i.level());
        out.println("| strategy | settings | size before | size after | compaction bytes written | write amplification | time | compactions | sstables after | at rest |");
        out.println("|---|---|---|---|---|---|---|---|---|---|");
        out.printf(Locale.ROOT, "| %s | %s | %s | %s | %s | %.2f | %.1f s | %,d | %d (max level %d) | %s |%n",
                s.strategy.rangeAware() ? "RangeAware(" + s.strategy.kind().className + ")" : s.strategy.kind().className,
                describe(s), mib(before), mib(after), mib(written), before == 0 ? 0 : written / (double) before,
                seconds100 / 100.0, c.compactionsDone(), v.size(), maxLevel,
                atRest ? "yes" : "no (" + c.pendingCompactions() + " pending)");
        if (c.failedCompactions() > 0) {
            err.println("flushline compaction-stress: " + c.failedCompactions() + " compaction(s) failed: " + c.failure());
            return 2;
        }
        return 0;
    }

    private static String describe(BackgroundCompactions.Settings s) {
        StringBuilder sb = new StringBuilder(s.strategy.toString());
        if (s.strategy.rangeAware()) sb.append(", ").append(s.ranges.size()).append(" ranges");
        sb.append(", ").append(s.threads).append(" threads");
        if (s.throughputMiBPerSecond > 0) sb.append(", ").append(s.throughputMiBPerSecond).append(" MiB/s");
        return sb.toString();
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / (double) MIB);
    }
}

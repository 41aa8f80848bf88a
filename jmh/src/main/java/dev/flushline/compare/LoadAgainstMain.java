package dev.flushline.compare;

import dev.flushline.bench.BenchCommand;
import dev.flushline.bench.BenchInputs;
import dev.flushline.Main;
import dev.flushline.ops.CsvOptions;
import dev.flushline.ops.CsvReader;
import dev.flushline.ops.MutationSource;
import dev.flushline.ops.OperationDecoder;
import dev.flushline.ops.OperationReader;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;

import org.apache.cassandra.io.sstable.CQLSSTableWriter;

import java.io.BufferedWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToLongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code flushline load} of the bench workload's JSON Lines against Cassandra 5.0.5's CQLSSTableWriter writing the
 * same rows, sorted and unsorted, side by side in one JVM.
 *
 * <p><b>Question:</b> does {@code flushline load} turn the bench workload, as a JSON Lines file, into sstables at
 * least twice as fast (rows/s) as CQLSSTableWriter's sorted mode writes the same rows, in the same run? And at
 * what CPU and allocation against both of CQLSSTableWriter's modes?
 *
 * <p><b>Input.</b> The rows of {@code BenchCommand.fill} (pk 0..P-1 bigint, ck 0..9 int, five 16-byte printable
 * ASCII text values from the bench's seeded xorshift, the same microsecond timestamps), written untimed as one
 * insert per line by {@link BenchInputs#jsonLines} (the lines JsonLinesParseBench parses), about 200 bytes a
 * line, plus a schema file holding the bench's CREATE TABLE. The table sets no compression, so both sides write
 * its default, LZ4 with 16 KiB chunks (CqlWriterPeer passes that to its CREATE TABLE). The file was just
 * written, so {@code flushline load} reads it from the page cache: this measures parsing, applying and flushing,
 * not the disk's read speed.
 *
 * <p><b>Runs.</b> {@code flushline load} in process through {@link Main#run} with {@code --schema --input --out
 * --now --allocation --memtable-size-mb}, one run per {@code --memtable-sizes} entry (default 2048 MiB, which
 * holds the whole default input, about 600 MiB of heap_buffers memtable by a 200,000-row run that flushed every
 * 8 MiB, so the load flushes once at the end; {@code default} leaves the option out, so
 * the load takes its own default of a quarter of the max heap); its exit status must be 0. Then
 * {@link CqlWriterPeer} unsorted and sorted (its own doc says how it feeds the writer). Before the measured
 * rounds each path runs once on a {@code --warmup-partitions} input. Every run's output must hold exactly the
 * rows fed (Statistics.db of each sstable, summed by {@link WriterAgainstMain#count}), and the partitions fed,
 * give or take one per sstable boundary.
 *
 * <p><b>Measured per run</b>, from the call to its return (for CQLSSTableWriter: {@code build()} to
 * {@code close()}): wall time and rows/s; CPU and allocated bytes summed over every Java thread that ran in the
 * window ({@link WriterAgainstMain.Sampler}, which also counts the load's flush thread); process CPU (adds GC
 * and JIT threads); GC count and time; the host's steal over the run, all vCPUs together, from /proc/stat (a
 * run with steal shows more thread CPU for the same work, so rounds are told apart by it). For the load also the flush log lines' {@code time spent} summed
 * ("flush ms"): the rest of its wall time is reading, parsing and applying (with one flush at the end they do not
 * overlap). Prints each run, one table of medians over the rounds, and the ratios; {@code --json} adds one
 * object per measured run ({@code flushline bench --against}'s keys plus round, variant, flush_ms, input_bytes).
 * {@code --reader-alone} adds a run per round of the load's input reader alone ({@code OperationReader} draining
 * the file as the load reads it, plain inserts into a reused buffer, no memtable, no flush), a reference for how much of the load's wall time is reading.
 *
 * <p><b>CSV.</b> {@code --format csv} writes the same rows as CSV instead ({@link BenchInputs#csvLines}: a header
 * {@code pk,ck,v1,...}, then one row per line, a value in double quotes with {@code \"} and {@code \\} escaped when it
 * holds a comma, a quote or a backslash, about 100 bytes a line) and loads it with {@code --format csv --timestamp}
 * (every row at the workload's first timestamp, so the rows' write times are not those of the JSON Lines, which
 * nothing here compares); the reader-alone run is then {@code CsvReader}'s, its records into a reused buffer too.
 *
 * <p><b>Command</b> (repository root): {@code scripts/load-against} (defaults: 260,000 partitions, 2.6 million
 * rows, about 520 MB of JSON Lines; one round). Options: {@code --partitions N}, {@code --warmup-partitions N}
 * (default 20000; 0 skips the warm-up), {@code --warmup-rounds W} (default 0: full-size rounds of every system
 * before the measured ones, printed as {@code warm-up N} and left out of the table), {@code --rounds R} (default 1),
 * {@code --memtable-sizes LIST} (MiB or
 * {@code default}, comma-separated; default 2048), {@code --allocation MODE} (passed to the load; default
 * the load's own, offheap_objects), {@code --format jsonl|csv} (default jsonl), {@code --dir D} (work directory, kept; default a temp
 * directory, deleted), {@code --reader-alone}, {@code --json}.
 *
 * <p><b>Last result:</b> 2026-12-05 14:39-14:46 UTC, 2 vCPU AMD EPYC VM, OpenJDK 17.0.15, quiet, main at 80e1dd5,
 * {@code --warmup-rounds 2 --rounds 3 --reader-alone}, twice per format: JSON Lines x2.18 and x2.09 of CQLSSTableWriter
 * sorted's rows/s, CSV ({@code --format csv}) x2.46 and x1.93 (goal x2: missed in one run of four). With the default
 * warm-up alone x1.25-x2.49 over the same hour (the JIT still compiles the load's paths in the first full-size
 * rounds). GC 0 ms, 46.5 B/row. The reader alone: 404 ns of CPU per row (JSON Lines), 445 (CSV). Details in
 * profiles/2026-12-05-load-scanner/README.md.
 */
public final class LoadAgainstMain {
    private LoadAgainstMain() {}

    private static final String LOAD = "flushline-load";
    private static final String CQL_WRITER = AgainstMain.CQL_WRITER;
    private static final String READ = "flushline-read";
    /** The load's clock for tombstones and TTLs: fixed so that reruns write the same bytes (the input has neither). */
    private static final long NOW_SECONDS = BenchCommand.BASE_TIMESTAMP_MICROS / 1_000_000;
    private static final Pattern FLUSH_TIME = Pattern.compile("^Completed flushing .*, time spent: (\\d+) ms,");

    /** One measured run and what the table needs besides its FlushRun. */
    private static final class Run {
        final int round;
        final String variant;
        final FlushRun run;
        /** Sum of the load's flush log lines' time spent; -1 for the runs that are not loads. */
        final long flushMillis;
        final int sstables;
        /** The host's steal over the run ({@link Costs#stealMillis}); -1 if unknown. */
        long stealMillis = -1;

        Run(int round, String variant, FlushRun run, long flushMillis, int sstables) {
            this.round = round;
            this.variant = variant;
            this.run = run;
            this.flushMillis = flushMillis;
            this.sstables = sstables;
        }
    }

    public static void main(String[] args) {
        int status = run(args, System.out, System.err);
        System.out.flush();
        System.exit(status); // CQLSSTableWriter leaves non-daemon threads behind
    }

    /** Returns the exit status: 0 ok, 1 usage, 2 a failed run or an I/O failure. */
    static int run(String[] argv, PrintStream out, PrintStream err) {
        int partitions = 260_000;
        int warmupPartitions = 20_000;
        int rounds = 1;
        int warmupRounds = 0;
        List<String> memtableSizes = List.of("2048");
        String allocation = dev.flushline.cli.EngineOptions.LOAD_ALLOCATION;
        Path keep = null;
        boolean json = false;
        boolean readerAlone = false;
        boolean csv = false;
        try {
            for (int i = 0; i < argv.length; i++) {
                String a = argv[i];
                if (a.equals("--json")) {
                    json = true;
                    continue;
                }
                if (a.equals("--reader-alone")) {
                    readerAlone = true;
                    continue;
                }
                if (a.equals("--help") || a.equals("-h")) {
                    out.println("Usage: LoadAgainstMain [--partitions N] [--warmup-partitions N] [--warmup-rounds W] [--rounds R] "
                            + "[--memtable-sizes MiB|default,...] [--allocation MODE] [--format jsonl|csv] [--dir D] [--reader-alone] [--json]");
                    return 0;
                }
                if (i + 1 >= argv.length) return usage(err, "option " + a + " needs a value");
                String v = argv[++i];
                switch (a) {
                    case "--partitions": partitions = intAtLeast(a, v, 1); break;
                    case "--warmup-partitions": warmupPartitions = intAtLeast(a, v, 0); break;
                    case "--rounds": rounds = intAtLeast(a, v, 1); break;
                    case "--warmup-rounds": warmupRounds = intAtLeast(a, v, 0); break;
                    case "--memtable-sizes":
                        memtableSizes = List.of(v.split(","));
                        for (String s : memtableSizes) {
                            if (!s.equals("default")) intAtLeast(a, s, 1);
                        }
                        break;
                    case "--allocation": allocation = v; break;
                    case "--format":
                        if (!v.equals("jsonl") && !v.equals("csv")) throw new IllegalArgumentException("--format " + v + ": jsonl or csv");
                        csv = v.equals("csv");
                        break;
                    case "--dir": keep = Path.of(v); break;
                    default:
                        return usage(err, "unknown option " + a + " (options: --partitions N --warmup-partitions N --warmup-rounds W --rounds R "
                                + "--memtable-sizes LIST --allocation MODE --format F --dir D --reader-alone --json)");
                }
            }
        } catch (IllegalArgumentException e) {
            return usage(err, e.getMessage());
        }

        Path root = null;
        try {
            root = keep != null ? Files.createDirectories(keep) : Files.createTempDirectory("flushline-load-against-");
            BenchCommand.Workload w = BenchCommand.Setup.parse(new String[] {"--partitions", Integer.toString(partitions)}).workload;
            long fed = (long) w.partitions * w.rowsPerPartition;
            TableSchema schema = CqlParser.parse(w.cql());
            if (schema.compression() != TableSchema.Compression.LZ4) {
                throw new IllegalStateException("the bench table " + w.cql() + " parses to compression " + schema.compression()
                        + ", not LZ4: CQLSSTableWriter would not write the same compression");
            }
            int chunk = schema.chunkLengthBytes() > 0 ? schema.chunkLengthBytes() : TableSchema.DEFAULT_CHUNK_LENGTH_BYTES;
            ColumnMetadata[] regulars = schema.regularColumns();
            String[] valueOrder = new String[w.valueColumns];
            for (int c = 0; c < w.valueColumns; c++) valueOrder[c] = regulars[c].name();

            Path schemaFile = root.resolve("stress_table.cql");
            Files.writeString(schemaFile, w.cql() + ";\n", StandardCharsets.UTF_8);
            long t0 = System.nanoTime();
            String ext = csv ? ".csv" : ".jsonl";
            Path input = root.resolve("bench" + ext);
            long inputBytes = csv ? writeCsv(w, input) : writeLines(w, input);
            Path warmInput = root.resolve("warmup" + ext);
            BenchCommand.Workload small = w.withPartitions(Math.max(1, Math.min(warmupPartitions, w.partitions)));
            if (warmupPartitions > 0) {
                if (csv) writeCsv(small, warmInput);
                else writeLines(small, warmInput);
            }
            out.printf(Locale.ROOT, "Workload: %s; %,d partitions x %d rows x %d values of %d bytes = %,d rows; input (%s) %s "
                            + "(%,d bytes, %.0f B/row), written untimed in %,d ms; compression lz4 (%d KiB chunks); "
                            + "load --allocation %s --memtable-size-mb %s; warm-up %,d partitions, then %d full round(s) not counted; %d round(s); java %s, %d cpus, max heap %,d MiB%n",
                    w.cql(), w.partitions, w.rowsPerPartition, w.valueColumns, w.valueBytes, fed, csv ? "CSV" : "JSON Lines", input, inputBytes,
                    (double) inputBytes / fed, (System.nanoTime() - t0) / 1_000_000, chunk / 1024, allocation,
                    String.join(",", memtableSizes), warmupPartitions, warmupRounds, rounds, System.getProperty("java.version"),
                    Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20);

            CqlWriterPeer cql = new CqlWriterPeer(w, valueOrder, root.resolve(CQL_WRITER));
            // Counting sstables reads them through cassandra-all's Descriptor, which needs the client-mode
            // DatabaseDescriptor that CQLSSTableWriter's class initializer sets up: run it before the first load is
            // counted, so that the order of the runs does not matter.
            Class.forName(CQLSSTableWriter.class.getName(), true, LoadAgainstMain.class.getClassLoader());
            int runNumber = 0;
            if (warmupPartitions > 0) {
                long w0 = System.nanoTime();
                for (String size : memtableSizes) {
                    Run r = load(0, size, allocation, csv, schemaFile, warmInput, root.resolve("load-warmup-" + (++runNumber)), small, out);
                    BenchCommand.deleteRecursively(r.run.dir);
                }
                if (readerAlone) readAlone(0, schema, csv, warmInput, small);
                for (String feed : AgainstMain.CQL_WRITER_FEEDS) {
                    BenchCommand.deleteRecursively(cql.write(small, feed, "lz4", chunk).dir);
                }
                out.printf(Locale.ROOT, "Warm-up: load x%d and %s unsorted + sorted, %,d rows each, in %,d ms%n",
                        memtableSizes.size(), CQL_WRITER, (long) small.partitions * small.rowsPerPartition,
                        (System.nanoTime() - w0) / 1_000_000);
            }

            List<Run> runs = new ArrayList<>();
            // Rounds 1 - warmupRounds .. 0 are full-size warm-ups of every system, run and printed but not counted:
            // the JIT was still compiling the load's flush and apply paths for the first measured rounds (a
            // 20,000-partition warm-up flushes once, small), and CQLSSTableWriter gets the same.
            for (int round = 1 - warmupRounds; round <= rounds; round++) {
                for (String size : memtableSizes) {
                    long steal0 = Costs.stealMillis();
                    Run r = load(round, size, allocation, csv, schemaFile, input, root.resolve("load-" + (++runNumber)), w, out);
                    r.stealMillis = stolenSince(steal0);
                    out.println(runLine(r));
                    if (round > 0) runs.add(r);
                    BenchCommand.deleteRecursively(r.run.dir);
                }
                if (readerAlone) {
                    long steal0 = Costs.stealMillis();
                    Run r = readAlone(round, schema, csv, input, w);
                    r.stealMillis = stolenSince(steal0);
                    out.println(runLine(r));
                    if (round > 0) runs.add(r);
                }
                for (String feed : AgainstMain.CQL_WRITER_FEEDS) {
                    long steal0 = Costs.stealMillis();
                    FlushRun f = cql.write(w, feed, "lz4", chunk);
                    Run r = new Run(round, feed, f, -1, sstables(f));
                    r.stealMillis = stolenSince(steal0);
                    out.println(runLine(r));
                    if (round > 0) runs.add(r);
                    BenchCommand.deleteRecursively(f.dir);
                }
            }

            out.println();
            out.print(table(runs, memtableSizes, rounds, fed));
            if (json) {
                for (Run r : runs) {
                    String j = r.run.json();
                    out.println(j.substring(0, j.length() - 1) + ",\"round\":" + r.round + ",\"variant\":" + FlushRun.quote(r.variant)
                            + ",\"flush_ms\":" + (r.flushMillis < 0 ? "null" : Long.toString(r.flushMillis))
                            + ",\"sstables\":" + r.sstables + ",\"input_bytes\":" + inputBytes + "}");
                }
            }
            return 0;
        } catch (Exception | Error e) {
            err.println("LoadAgainstMain: " + e);
            e.printStackTrace(err);
            return 2;
        } finally {
            if (keep == null && root != null) {
                try {
                    BenchCommand.deleteRecursively(root);
                } catch (IOException e) {
                    err.println("LoadAgainstMain: could not delete " + root + ": " + e);
                }
            }
        }
    }

    /**
     * The load's input reader alone, without a memtable or a flush: {@code OperationReader} over {@code input}
     * (line split, UTF-8 check, jackson-core parse, decode into a reused buffer as the load does), or {@code CsvReader}
     * for CSV (records decoded in place into the reused buffer, as the load does), on this thread,
     * timed and costed as a load run is, so that the load's wall time splits into reading, applying and flushing.
     */
    private static Run readAlone(int round, TableSchema schema, boolean csv, Path input, BenchCommand.Workload w) throws Exception {
        long n = 0;
        System.gc();
        WriterAgainstMain.Sampler sampler = new WriterAgainstMain.Sampler();
        sampler.start();
        long gcCount0 = BenchCommand.gcCount(), gcMillis0 = BenchCommand.gcMillis();
        long proc0 = Costs.processCpuNanos();
        long wall0 = System.nanoTime();
        OperationDecoder decoder = new OperationDecoder(schema, NOW_SECONDS);
        try (MutationSource reader = csv
                ? CsvReader.open(input.toString(), InputStream.nullInputStream(), decoder, CsvOptions.builder(BenchCommand.BASE_TIMESTAMP_MICROS).build())
                : OperationReader.open(schema, input.toString(), InputStream.nullInputStream(), decoder)) {
            // As the load's read-ahead thread reads: plain inserts into a reused buffer (JSON Lines and CSV), the rest as mutations.
            dev.flushline.data.InsertBuffer buffer = reader.newInsertBuffer();
            if (buffer == null) {
                while (reader.next() != null) n++;
            } else {
                while (reader.next(buffer) != null) n++;
            }
        }
        long wall = System.nanoTime() - wall0;
        long proc = Costs.processCpuNanos() - proc0;
        long gcCount = BenchCommand.gcCount() - gcCount0, gcMillis = BenchCommand.gcMillis() - gcMillis0;
        sampler.finish();
        long fed = (long) w.partitions * w.rowsPerPartition;
        if (n != fed) throw new IllegalStateException("the reader read " + n + " mutations from " + input + ", written " + fed);
        FlushRun f = new FlushRun(READ, "none", "none", "none", input.toString(), 0, w.partitions, n, n * w.valueColumns,
                wall, wall, sampler.cpu, sampler.alloc, proc, "all Java threads; no sstables");
        f.fillGcCount = gcCount;
        f.fillGcMillis = gcMillis;
        return new Run(round, "reader alone", f, -1, 0);
    }

    /** Writes the workload's rows to {@code file} as JSON Lines ({@link BenchInputs#jsonLines}); returns its size. */
    private static long writeLines(BenchCommand.Workload w, Path file) throws IOException {
        try (Writer out = new BufferedWriter(new OutputStreamWriter(Files.newOutputStream(file), StandardCharsets.UTF_8), 1 << 20)) {
            BenchInputs.jsonLines(w, (long) w.partitions * w.rowsPerPartition, line -> {
                out.append(line);
                out.write('\n');
            });
        }
        return Files.size(file);
    }

    /** Writes the workload's rows to {@code file} as CSV with a header ({@link BenchInputs#csvLines}); returns its size. */
    private static long writeCsv(BenchCommand.Workload w, Path file) throws IOException {
        try (Writer out = new BufferedWriter(new OutputStreamWriter(Files.newOutputStream(file), StandardCharsets.UTF_8), 1 << 20)) {
            BenchInputs.csvLines(w, (long) w.partitions * w.rowsPerPartition, line -> {
                out.append(line);
                out.write('\n');
            });
        }
        return Files.size(file);
    }

    /**
     * One {@code flushline load} of {@code input} (the rows of {@code w}; CSV with {@code csv}) into {@code runDir},
     * timed from the call to its return; fails unless it exits 0 and its sstables hold the rows of {@code w}.
     */
    private static Run load(int round, String memtableSize, String allocation, boolean csv, Path schemaFile, Path input, Path runDir,
                            BenchCommand.Workload w, PrintStream out) throws Exception {
        List<String> argv = new ArrayList<>(List.of("load", "--schema", schemaFile.toString(), "--input", input.toString(),
                "--out", runDir.toString(), "--now", Long.toString(NOW_SECONDS), "--allocation", allocation));
        if (csv) argv.addAll(List.of("--format", "csv", "--timestamp", Long.toString(BenchCommand.BASE_TIMESTAMP_MICROS)));
        if (!memtableSize.equals("default")) argv.addAll(List.of("--memtable-size-mb", memtableSize));
        // The load prints a line per flush and a summary; held until the clock stops, then shown.
        ByteArrayOutputStream stdout = new ByteArrayOutputStream(4096), stderr = new ByteArrayOutputStream(4096);
        int status;
        System.gc();
        WriterAgainstMain.Sampler sampler = new WriterAgainstMain.Sampler();
        sampler.start();
        long gcCount0 = BenchCommand.gcCount(), gcMillis0 = BenchCommand.gcMillis();
        long proc0 = Costs.processCpuNanos();
        long wall0 = System.nanoTime();
        try (PrintStream o = new PrintStream(stdout, false, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(stderr, false, StandardCharsets.UTF_8)) {
            status = Main.run(argv.toArray(new String[0]), InputStream.nullInputStream(), o, e);
        }
        long wall = System.nanoTime() - wall0;
        long proc = Costs.processCpuNanos() - proc0;
        long gcCount = BenchCommand.gcCount() - gcCount0, gcMillis = BenchCommand.gcMillis() - gcMillis0;
        sampler.finish();

        String said = stdout.toString(StandardCharsets.UTF_8), complained = stderr.toString(StandardCharsets.UTF_8);
        if (status != 0) {
            throw new IllegalStateException("flushline " + String.join(" ", argv) + " exited " + status + "; stdout:\n" + said
                    + "stderr:\n" + complained);
        }
        long flushMillis = 0;
        for (String line : said.split("\n")) {
            Matcher m = FLUSH_TIME.matcher(line);
            if (m.find()) flushMillis += Long.parseLong(m.group(1));
            if (round > 0) out.println("  load: " + line);
        }
        if (round > 0 && !complained.isBlank()) out.print(complained.replaceAll("(?m)^", "  load stderr: "));

        WriterAgainstMain.Result r = new WriterAgainstMain.Result();
        WriterAgainstMain.count(runDir, r);
        long fed = (long) w.partitions * w.rowsPerPartition;
        // A memtable switched between two rows of a partition leaves that partition in two sstables, each counting it.
        if (r.rows != fed || r.partitions < w.partitions || r.partitions > w.partitions + r.sstables - 1) {
            throw new IllegalStateException("flushline load of " + input + " into " + runDir + ": Statistics.db say " + r.rows
                    + " rows, " + r.partitions + " partitions; fed " + fed + " rows, " + w.partitions + " partitions");
        }
        String variant = memtableSize.equals("default") ? "default memtable" : memtableSize + " MiB memtable";
        FlushRun f = new FlushRun(LOAD, "hash " + variant, allocation, "lz4",
                r.firstDataFile == null ? runDir.toString() : r.firstDataFile.toString(), r.bytes, r.partitions, r.rows,
                r.rows * w.valueColumns, wall, wall, sampler.cpu, sampler.alloc, proc,
                "all Java threads; " + r.sstables + " sstables");
        f.fillGcCount = gcCount;
        f.fillGcMillis = gcMillis;
        f.dir = runDir;
        return new Run(round, variant, f, flushMillis, r.sstables);
    }

    /** The sstables a CQLSSTableWriter run left (CqlWriterPeer checked their rows already). */
    private static int sstables(FlushRun f) throws IOException {
        WriterAgainstMain.Result r = new WriterAgainstMain.Result();
        WriterAgainstMain.count(f.dir, r);
        return r.sstables;
    }

    private static long stolenSince(long steal0) {
        long now = Costs.stealMillis();
        return steal0 < 0 || now < 0 ? -1 : now - steal0;
    }

    private static String runLine(Run x) {
        FlushRun r = x.run;
        return String.format(Locale.ROOT, "%s %-16s %-17s wall %,8d ms  rows/s %,10.0f  threadCPU %,8d ms  alloc %,10.1f MiB  "
                        + "processCPU %,8d ms  gc %d / %,d ms  steal %s  %sbytes %,d  sstables %d  rows %,d  partition entries %,d",
                x.round > 0 ? "round " + x.round : "warm-up " + (1 - x.round), r.system, x.variant, r.wallNanos / 1_000_000, r.rows * 1e9 / r.wallNanos, r.cpuNanos / 1_000_000,
                r.allocatedBytes / 1048576.0, r.processCpuNanos / 1_000_000, r.fillGcCount, r.fillGcMillis,
                x.stealMillis < 0 ? "?" : String.format(Locale.ROOT, "%,d ms", x.stealMillis),
                x.flushMillis < 0 ? "" : String.format(Locale.ROOT, "flush %,d ms  ", x.flushMillis), r.bytes, x.sstables,
                r.rows, r.partitions);
    }

    /** Medians per system and variant over the rounds, then the load's ratios to each CQLSSTableWriter feed. */
    private static String table(List<Run> runs, List<String> memtableSizes, int rounds, long fed) {
        Map<String, List<Run>> by = new LinkedHashMap<>();
        for (Run r : runs) by.computeIfAbsent(r.run.system + "/" + r.variant, k -> new ArrayList<>()).add(r);
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%s of %d round(s), %,d rows; cpu and alloc over every Java thread in the run:%n",
                rounds == 1 ? "Results" : "Medians (each column's own)", rounds, fed));
        sb.append("| system | variant | wall ms | rows/s | flush ms | thread CPU ms | CPU ns/row | alloc MiB | alloc B/row "
                + "| process CPU ms | GC count | GC ms | bytes MiB | sstables |\n");
        sb.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Map.Entry<String, List<Run>> e : by.entrySet()) {
            List<Run> rs = e.getValue();
            Run first = rs.get(0);
            long wall = median(rs, x -> x.run.wallNanos), cpu = median(rs, x -> x.run.cpuNanos);
            long alloc = median(rs, x -> x.run.allocatedBytes), flush = median(rs, x -> x.flushMillis);
            sb.append(String.format(Locale.ROOT, "| %s | %s | %,d | %,.0f | %s | %,d | %,.0f | %,.1f | %,.1f | %,d | %d | %,d | %,.1f | %d |%n",
                    first.run.system, first.variant, wall / 1_000_000, fed * 1e9 / wall,
                    flush < 0 ? "" : String.format(Locale.ROOT, "%,d", flush), cpu / 1_000_000, (double) cpu / fed,
                    alloc / 1048576.0, (double) alloc / fed, median(rs, x -> x.run.processCpuNanos) / 1_000_000,
                    median(rs, x -> x.run.fillGcCount), median(rs, x -> x.run.fillGcMillis),
                    median(rs, x -> x.run.bytes) / 1048576.0, median(rs, x -> x.sstables)));
        }
        sb.append(String.format(Locale.ROOT, "%nRatios, %s: rows/s = load / %s (>1 = load faster); thread CPU, alloc, "
                + "process CPU = %s / load (>1 = load cheaper). Goal: rows/s >= x2 against sorted.%n", rounds == 1 ? "this run"
                : "medians", CQL_WRITER, CQL_WRITER));
        sb.append("| load variant | against | rows/s | thread CPU | alloc | process CPU | goal x2 (sorted) |\n");
        sb.append("|---|---|---:|---:|---:|---:|---|\n");
        for (String size : memtableSizes) {
            String variant = size.equals("default") ? "default memtable" : size + " MiB memtable";
            List<Run> load = by.get(LOAD + "/" + variant);
            if (load == null) continue;
            for (String feed : AgainstMain.CQL_WRITER_FEEDS) {
                List<Run> peer = by.get(CQL_WRITER + "/" + feed);
                double rate = (double) median(peer, x -> x.run.wallNanos) / median(load, x -> x.run.wallNanos);
                sb.append(String.format(Locale.ROOT, "| %s | %s | x%.2f | x%.2f | x%.2f | x%.2f | %s |%n", variant, feed, rate,
                        ratio(peer, load, x -> x.run.cpuNanos), ratio(peer, load, x -> x.run.allocatedBytes),
                        ratio(peer, load, x -> x.run.processCpuNanos),
                        feed.equals("sorted") ? (rate >= 2 ? "met" : "missed") : ""));
            }
        }
        return sb.toString();
    }

    private static double ratio(List<Run> peer, List<Run> load, ToLongFunction<Run> f) {
        long l = median(load, f);
        return l <= 0 ? Double.NaN : (double) median(peer, f) / l;
    }

    /** The median of one column on its own; of an even count the upper one, as WriterAgainstMain takes it. */
    private static long median(List<Run> rs, ToLongFunction<Run> f) {
        long[] v = new long[rs.size()];
        for (int i = 0; i < v.length; i++) v[i] = f.applyAsLong(rs.get(i));
        Arrays.sort(v);
        return v[v.length / 2];
    }

    private static int intAtLeast(String option, String value, int min) {
        int n;
        try {
            n = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " " + value + ": not a whole number");
        }
        if (n < min) throw new IllegalArgumentException(option + " " + value + ": at least " + min);
        return n;
    }

    private static int usage(PrintStream err, String message) {
        err.println("LoadAgainstMain: " + message);
        return 1;
    }
}

package dev.flushline.compare;

import dev.flushline.bench.BenchCommand;
import dev.flushline.compaction.Compactor;
import dev.flushline.data.Cell;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.Row;
import dev.flushline.flush.FlushJob;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.TableDirectory;
import one.profiler.AsyncProfiler;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code flushline bench compact}: our major compaction beside Cassandra 5.0.5's ({@link CassandraCompaction}, in
 * this JVM) and Cassandra 6.0-alpha2's (in a child JVM, {@link Cassandra6Child}: its cursor path and its iterator
 * path), all over the same input files, and beside the codec floor ({@link CodecFloor}): the CPU of checking and
 * decompressing the inputs and compressing and checksumming the output, on one thread, which no system avoids.
 *
 * <p>Inputs: four sstables of the bench table ({@code stress.stress_table}: pk bigint, ck int, v1..v5 text of 16
 * bytes, 10 rows per partition), {@code --rows} rows each, written by our flush, in one of three shapes:
 * <ul>
 * <li>{@code disjoint}: each sstable holds its own partitions; nothing merges.</li>
 * <li>{@code overwrite}: all four hold the same partitions and clusterings, each newer than the one before (its
 *     timestamps higher, its values new); three versions of every cell are merged away.</li>
 * <li>{@code tombstones}: the first three are disjoint; in them one row in ten (one per partition) was written
 *     with a 60 s TTL that has expired at the compaction's clock; the fourth holds only partition deletions, of
 *     every other partition of the first three. gc grace 0: the shadowed partitions, the expired rows and the
 *     partition tombstones themselves are all purged.</li>
 * </ul>
 *
 * <p>Each run: {@code --warmup} unmeasured rounds, then {@code --rounds} measured rounds; a round is ours, then
 * Cassandra 5.0.5's (with {@code --against cassandra}), then Cassandra 6.0's cursor path and iterator path (with
 * {@code --against cassandra6}), then the floor, each after System.gc() into a fresh directory. Ours runs on a
 * fresh thread: CPU and allocation are that thread's (prepare, publish, close: the whole compaction) plus the
 * writer's I/O thread's, as the compactor reports them. Cassandra 5.0.5's runs on a fresh thread too, everything
 * after the readers are open; 6.0's on a fresh thread in the child, its whole CompactionTask after the readers
 * are open. Process CPU over each run is printed as a check on what the thread counters miss. Our Data.db is
 * compared with 5.0.5's (the compatibility tests make them byte-identical for a single output) and, in the child,
 * with 6.0's (bytes, then content read back with 6.0's reader), so all did the same work.
 *
 * <p>Cassandra 6.0's two rows: {@code cursor_compaction_enabled} true, then false. With it true 6.0 still decides
 * per compaction whether its cursor compactor supports the sstables and table; each row prints the pipeline that
 * actually ran ({@code CursorCompactionPipeline} or {@code IteratorCompactionPipeline}) and, where 6.0 fell back,
 * its reason. {@code --cassandra6-mode NONE} runs the child with 6.0's default storage_compatibility_mode, in
 * which it writes {@code pa} and treats our {@code oa} inputs as an older version (the cursor path refuses them);
 * the default, CASSANDRA_5, makes {@code oa} its current version.
 *
 * <p>{@code --profile-dir DIR}: after the rounds, two more compactions of ours per setting under async-profiler,
 * CPU then allocation, written as {@code compaction-<shape>-<compression>-<cpu|alloc>.html} and {@code .collapsed},
 * and the count of {@code vtable stub}/{@code itable stub} samples under the merge ({@value #MERGE_FRAME}). The
 * allocation mode needs the agent loaded at JVM start ({@code -agentpath:<lib> -Dflushline.asyncProfiler=<lib>}
 * in JAVA_OPTS; see scripts/profile), else it records nothing on this JDK.
 *
 * <p>Entry points: {@link #main} and {@link #run} (BenchCommand calls it through reflection).
 */
public final class CompactCompareMain {
    private CompactCompareMain() {}

    static final String MERGE_FRAME = "dev/flushline/compaction/Compactor.mergeAll";
    static final String COMPACTION_FRAME = "dev/flushline/compaction/Compactor";
    static final int ROWS_PER_PARTITION = 10;
    static final int VALUE_COLUMNS = 5;
    static final int VALUE_BYTES = 16;
    static final int INPUTS = 4;
    /** The write-time clock of the inputs (seconds), and the compaction's clock: one hour later. */
    static final long WRITE_SECONDS = BenchCommand.BASE_TIMESTAMP_MICROS / 1_000_000;
    static final long NOW_SECONDS = WRITE_SECONDS + 3600;
    static final int EXPIRED_TTL = 60;
    static final long DEFAULT_GC_GRACE = 864_000;

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static final String HELP =
            "Usage: flushline bench compact [--against cassandra,cassandra6] [--rows N] [--compression lz4|none[,..]]\n"
          + "       [--shape disjoint|overwrite|tombstones[,..]] [--rounds N] [--warmup N] [--dir DIR] [--profile-dir DIR]\n"
          + "       [--cassandra6-mode CASSANDRA_5|NONE] [--copy-through on|off]\n"
          + "       [--skip-losing on|off]\n"
          + "\n"
          + "Major compaction of 4 sstables of stress.stress_table (N rows each, default 650000), ours beside\n"
          + "Cassandra 5.0.5's (--against cassandra, this JVM) and Cassandra 6.0-alpha2's cursor and iterator paths\n"
          + "(--against cassandra6, a child JVM), and the codec floor (the CPU of decompressing and checking the inputs\n"
          + "and compressing and checksumming the output, one thread); medians of --rounds (default 3) after --warmup\n"
          + "(default 3) rounds. Defaults: all shapes, lz4 and none; --cassandra6-mode CASSANDRA_5 (6.0 writes oa).\n"
          + "--copy-through off merges every row, as before rows that the merge keeps unchanged were copied (default on).\n"
          + "--skip-losing off decodes every row version, as before versions that lose every part of themselves to a newer\n"
          + "one were stepped over undecoded (default on).\n";

    /** Returns the exit status: 0 ok, 1 usage, 2 internal or I/O failure. */
    public static int run(String[] argv, PrintStream out, PrintStream err) {
        int rows = 650_000;
        List<String> compressions = List.of("lz4", "none");
        List<String> shapes = List.of("disjoint", "overwrite", "tombstones");
        boolean cassandra = false, cassandra6 = false;
        String cassandra6Mode = "CASSANDRA_5";
        boolean copyThrough = true;
        boolean skipLosing = true;
        // Three warm-up rounds, for every system alike: one round of ours lasts under a second, and
        // after one, C2 was still recompiling our row loop (mergeRows, mergePartition and the cursor's
        // header reads made not entrant) during the first measured rounds, which ran up to half
        // again as long as the later ones. Cassandra's rounds last seconds, so one sufficed for it.
        int rounds = 3, warmup = 3;
        Path dir = null, profileDir = null;
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
                    case "--against":
                        for (String sys : value.split(",")) {
                            if (sys.trim().equals("cassandra")) cassandra = true;
                            else if (sys.trim().equals(AgainstMain.CASSANDRA6)) cassandra6 = true;
                            else return usage(err, "--against " + value + ": compaction compares with cassandra and cassandra6");
                        }
                        break;
                    case "--cassandra6-mode":
                        if (!value.equals("CASSANDRA_5") && !value.equals("NONE")) {
                            return usage(err, "--cassandra6-mode " + value + ": CASSANDRA_5 (6.0 writes oa) or NONE (6.0 writes pa)");
                        }
                        cassandra6Mode = value;
                        break;
                    case "--copy-through":
                        if (!value.equals("on") && !value.equals("off")) return usage(err, "--copy-through " + value + ": on or off");
                        copyThrough = value.equals("on");
                        break;
                    case "--skip-losing":
                        if (!value.equals("on") && !value.equals("off")) return usage(err, "--skip-losing " + value + ": on or off");
                        skipLosing = value.equals("on");
                        break;
                    case "--rows": rows = Integer.parseInt(value); break;
                    case "--rounds": rounds = Integer.parseInt(value); break;
                    case "--warmup": warmup = Integer.parseInt(value); break;
                    case "--compression":
                        compressions = List.of(value.split(","));
                        for (String c : compressions) if (!c.equals("lz4") && !c.equals("none")) return usage(err, "--compression " + value);
                        break;
                    case "--shape":
                        shapes = List.of(value.split(","));
                        for (String s : shapes) {
                            if (!s.equals("disjoint") && !s.equals("overwrite") && !s.equals("tombstones")) return usage(err, "--shape " + value);
                        }
                        break;
                    case "--dir": dir = Path.of(value); break;
                    case "--profile-dir": profileDir = Path.of(value); break;
                    default: return usage(err, "unknown option " + name);
                }
            }
        } catch (NumberFormatException e) {
            return usage(err, "not a number: " + e.getMessage());
        }
        if (rows < ROWS_PER_PARTITION || rows % ROWS_PER_PARTITION != 0) return usage(err, "--rows must be a multiple of " + ROWS_PER_PARTITION);
        if (rounds < 1) return usage(err, "--rounds must be at least 1");

        Path temp = null;
        Cassandra6Child child = null;
        try {
            Path root = dir != null ? Files.createDirectories(dir) : (temp = Files.createTempDirectory("flushline-compact-bench-"));
            out.println(String.format(Locale.ROOT, "Workload: %d input sstables x %,d rows of stress.stress_table (%d rows per partition, "
                            + "%d text values of %d bytes); shapes %s; compression %s; systems flushline%s%s,codec floor; %d warm-up + %d measured rounds",
                    INPUTS, rows, ROWS_PER_PARTITION, VALUE_COLUMNS, VALUE_BYTES, String.join(",", shapes), String.join(",", compressions),
                    cassandra ? ",cassandra" : "", cassandra6 ? ",cassandra6-cursor,cassandra6-iterator" : "", warmup, rounds));
            out.println(AgainstMain.jvmLine());
            if (cassandra6) {
                child = Cassandra6Child.start(root.resolve(AgainstMain.CASSANDRA6), cassandra6Mode, err);
                out.println("Cassandra 6.0 peer: " + child.describe());
            }
            List<Summary> summaries = new ArrayList<>();
            AsyncProfiler profiler = profileDir != null ? ProfileMain.load() : null;
            for (String shape : shapes) {
                for (String compression : compressions) {
                    summaries.add(runSetting(root, shape, compression, rows, cassandra, child, warmup, rounds, profiler, profileDir,
                            copyThrough, skipLosing, out));
                }
            }
            out.println();
            out.print(table(summaries, cassandra, child != null));
            return 0;
        } catch (Exception | Error e) {
            err.println("flushline bench compact: internal error: " + e);
            e.printStackTrace(err);
            return 2;
        } finally {
            if (child != null) child.close();
            if (temp != null) {
                try {
                    BenchCommand.deleteRecursively(temp);
                } catch (IOException e) {
                    err.println("flushline bench compact: could not delete " + temp + ": " + e);
                }
            }
        }
    }

    private static int usage(PrintStream err, String message) {
        err.println("flushline bench compact: " + message);
        return 1;
    }

    // ---- one setting (shape x compression) ------------------------------------------------------

    /** What one compaction (or floor pass) cost. */
    static final class Cost {
        final String system;
        long wallNanos, cpuNanos, allocatedBytes, processCpuNanos, bytesIn, bytesOut;
        /** Ours only: of cpuNanos, the writer's I/O thread's (compressing, checksumming, writing); -1 if not split. */
        long ioCpuNanos = -1;
        String threads;
        /** The floor only: CPU of its input and output parts (their sum is cpuNanos less the loop's set-up). */
        long floorInputCpuNanos, floorOutputCpuNanos;

        Cost(String system) {
            this.system = system;
        }
    }

    /** Medians of one setting's measured rounds. */
    static final class Summary {
        final String shape, compression;
        long rowsIn, rowsOut, partitionsOut, cellsRead, cellsWritten, cellsMergedAway, cellsPurged;
        Cost ours, theirs, floor, cursor6, iterator6;
        String sameBytes = "";
        /** Cassandra 6.0's rows: the pipelines that ran (over every round), fallback reasons, equality with ours. */
        final java.util.Set<String> cursorPipelines = new java.util.TreeSet<>(), iteratorPipelines = new java.util.TreeSet<>();
        final java.util.Set<String> cursorReasons = new java.util.TreeSet<>();
        String cursorSame = "", iteratorSame = "", floorCheck = "";

        Summary(String shape, String compression) {
            this.shape = shape;
            this.compression = compression;
        }
    }

    static String cql(String compression) {
        StringBuilder sb = new StringBuilder("CREATE TABLE stress.stress_table (pk bigint, ck int");
        for (int i = 1; i <= VALUE_COLUMNS; i++) sb.append(", v").append(i).append(" text");
        sb.append(", PRIMARY KEY (pk, ck)) WITH compression = ");
        sb.append(compression.equals("lz4") ? "{'class': 'LZ4Compressor', 'chunk_length_in_kb': 16}" : "{'enabled': 'false'}");
        return sb.toString();
    }

    private static Summary runSetting(Path root, String shape, String compression, int rows, boolean cassandra, Cassandra6Child c6,
                                      int warmup, int rounds, AsyncProfiler profiler, Path profileDir, boolean copyThrough, boolean skipLosing,
                                      PrintStream out) throws Exception {
        String cql = cql(compression);
        TableSchema schema = CqlParser.parse(cql);
        Path base = root.resolve(shape + "-" + compression);
        BenchCommand.deleteRecursively(base);
        Path inputRoot = base.resolve("inputs");
        long t0 = System.nanoTime();
        long rowsIn = writeInputs(schema, shape, rows / ROWS_PER_PARTITION, inputRoot);
        Path inputTable = schema.directoryUnder(inputRoot);
        List<SSTableFiles> inputs = SSTableFiles.inDirectory(inputTable);
        List<Path> inputFiles = listFiles(inputTable);
        List<Path> dataFiles = new ArrayList<>();
        long inputBytes = 0;
        for (SSTableFiles f : inputs) dataFiles.add(f.path(Component.DATA));
        for (Path f : inputFiles) inputBytes += Files.size(f);
        out.println(String.format(Locale.ROOT, "%n== %s, %s: wrote %d inputs (%,d rows, %s in %d files) in %d ms",
                shape, compression, inputs.size(), rowsIn, mib(inputBytes), inputFiles.size(), (System.nanoTime() - t0) / 1_000_000));

        long gcBefore = NOW_SECONDS - (shape.equals("tombstones") ? 0 : DEFAULT_GC_GRACE);
        CassandraCompaction peer = cassandra ? new CassandraCompaction(cql, dataFiles, base.resolve("cassandra-store")) : null;
        if (peer != null) {
            out.println("Cassandra: inputs open as SSTableReaders (disk_access_mode " + CassandraCompaction.diskAccessMode()
                    + "), compaction_throughput " + CassandraCompaction.throughput() + " MiB/s (0 = unthrottled), gcBefore " + gcBefore
                    + ", now " + NOW_SECONDS);
        }
        String c6Id = shape + "-" + compression;
        if (c6 != null) {
            StringBuilder paths = new StringBuilder();
            for (Path d : dataFiles) {
                if (paths.length() > 0) paths.append('\n');
                paths.append(d.toAbsolutePath());
            }
            Cassandra6Child.Wire opened = c6.call(Cassandra6Child.Wire.of("open").put("id", c6Id).put("cql", cql)
                    .put("store", base.resolve("cassandra6-store").toAbsolutePath()).put("data", paths));
            out.println("Cassandra 6.0: " + opened.get("inputs") + " inputs open as SSTableReaders in the child (disk_access_mode "
                    + opened.get("diskAccessMode") + ", compaction reads " + opened.get("compactionReadDiskAccessMode")
                    + "), compaction_throughput " + opened.get("throughput") + " MiB/s, gcBefore " + gcBefore
                    + ", now the child's clock (CompactionTask reads it; every TTL in the inputs expired long before)");
        }
        Summary s = new Summary(shape, compression);
        s.rowsIn = rowsIn;
        List<Cost> ours = new ArrayList<>(), theirs = new ArrayList<>(), floors = new ArrayList<>();
        List<Cost> cursors6 = new ArrayList<>(), iterators6 = new ArrayList<>();
        try {
            for (int round = -warmup; round < rounds; round++) {
                String label = round < 0 ? "warm-up" : "round " + (round + 1);
                Path ourDir = base.resolve("ours-" + (round + warmup));
                Compactor.Result[] result = new Compactor.Result[1];
                Cost o = ours(schema, inputs, gcBefore, copyThrough, skipLosing, ourDir, result, null);
                Compactor.Result r = result[0];
                List<Path> outputFiles = listFiles(ourDir);
                for (Path f : outputFiles) o.bytesOut += Files.size(f);
                o.bytesIn = inputBytes;
                out.println(line(label, o) + String.format(Locale.ROOT, "; rows %,d -> %,d, partitions %,d -> %,d, cells read %,d "
                                + "written %,d merged away %,d purged %,d; copied through: rows %,d (%,d as their bytes, %,d undecoded, "
                                + "%,d after their other versions were skipped), partitions %,d; row versions skipped undecoded %,d",
                        r.inputRows, r.outputRows, r.inputPartitions, r.outputPartitions, r.cellsRead, r.cellsWritten,
                        r.cellsMergedAway, r.cellsPurged, r.rowsCopied, r.rowsCopiedVerbatim, r.rowsCopiedUndecoded,
                        r.survivorsCopied, r.partitionsCopied, r.rowVersionsSkipped));
                s.rowsOut = r.outputRows;
                s.partitionsOut = r.outputPartitions;
                s.cellsRead = r.cellsRead;
                s.cellsWritten = r.cellsWritten;
                s.cellsMergedAway = r.cellsMergedAway;
                s.cellsPurged = r.cellsPurged;
                if (peer != null) {
                    Path theirDir = base.resolve("cassandra-" + (round + warmup));
                    Path[] theirData = new Path[1];
                    Cost c = measured("cassandra", "CompactionExecutor:1", () -> theirData[0] = peer.compact(theirDir, NOW_SECONDS, gcBefore));
                    for (Path f : listFiles(theirDir)) c.bytesOut += Files.size(f);
                    c.bytesIn = inputBytes;
                    out.println(line(label, c) + "; " + (s.sameBytes = sameData(r.published, theirData[0])));
                    if (round >= 0) theirs.add(c);
                    BenchCommand.deleteRecursively(theirDir);
                }
                if (c6 != null) {
                    Path oursData = r.published.size() == 1 ? r.published.get(0) : null;
                    for (String path : List.of("cursor", "iterator")) {
                        Cassandra6Child.Wire w = c6.call(Cassandra6Child.Wire.of("compact").put("id", c6Id).put("path", path)
                                .put("gcBefore", gcBefore).put("compare", oursData == null ? "" : oursData.toAbsolutePath()));
                        Cost c = new Cost("cassandra6-" + path);
                        c.wallNanos = w.getLong("wallNanos");
                        c.cpuNanos = w.getLong("cpuNanos");
                        c.allocatedBytes = w.getLong("allocatedBytes");
                        c.processCpuNanos = w.getLong("processCpuNanos");
                        c.threads = w.get("threads") + " (child JVM)";
                        c.bytesIn = inputBytes;
                        c.bytesOut = w.getLong("bytesOut");
                        String pipeline = w.get("pipeline"), reason = w.get("reason"), same = w.get("same");
                        String took = pathTaken(path, pipeline, reason);
                        out.println(line(label, c) + "; ran " + took + "; " + (same.isEmpty() ? "nothing to compare" : same));
                        if (path.equals("cursor")) {
                            s.cursorPipelines.add(pipeline);
                            if (!reason.isEmpty()) s.cursorReasons.add(reason);
                            s.cursorSame = same;
                            if (round >= 0) cursors6.add(c);
                        } else {
                            s.iteratorPipelines.add(pipeline);
                            s.iteratorSame = same;
                            if (round >= 0) iterators6.add(c);
                        }
                    }
                }
                CodecFloor.Prepared prepared = CodecFloor.prepare(inputs, r.published);
                CodecFloor.Result[] floorResult = new CodecFloor.Result[1];
                Cost f;
                try {
                    f = measured("floor", "codec-floor", () -> floorResult[0] = CodecFloor.run(prepared));
                } finally {
                    prepared.close();
                }
                f.bytesIn = prepared.inputBytes;
                f.bytesOut = floorResult[0].outputBytesWritten;
                f.floorInputCpuNanos = floorResult[0].inputCpuNanos;
                f.floorOutputCpuNanos = floorResult[0].outputCpuNanos;
                s.floorCheck = floorResult[0].digestCheck;
                out.println(line(label, f) + String.format(Locale.ROOT, "; inputs: %,d chunks checked%s in %,d ms cpu, "
                                + "outputs: %,d chunks %sin %,d ms cpu; %s", floorResult[0].inputChunks,
                        prepared.inputs.isEmpty() || !compression.equals("lz4") ? "" : " and decompressed",
                        f.floorInputCpuNanos / 1_000_000, floorResult[0].outputChunks,
                        compression.equals("lz4") ? "compressed and checksummed, Digest " : "checksummed, Digest ",
                        f.floorOutputCpuNanos / 1_000_000, s.floorCheck));
                BenchCommand.deleteRecursively(ourDir);
                if (round >= 0) {
                    ours.add(o);
                    floors.add(f);
                }
            }
            if (profiler != null) {
                Files.createDirectories(profileDir);
                String event = ProfileMain.cpuEvent(profiler);
                for (String mode : List.of("cpu", "alloc")) {
                    String name = "compaction-" + shape + "-" + compression + "-" + mode;
                    Path html = profileDir.resolve(name + ".html");
                    Path ourDir = base.resolve("ours-profiled-" + mode);
                    Compactor.Result[] result = new Compactor.Result[1];
                    String start = mode.equals("cpu") ? "start,event=" + event + ",interval=1ms" : "start,event=alloc,alloc=16k";
                    Cost o = ours(schema, inputs, gcBefore, copyThrough, skipLosing, ourDir, result, () -> exec(profiler, start));
                    exec(profiler, "stop,file=" + html + ",title=" + name);
                    String collapsed = profiler.dumpCollapsed(mode.equals("cpu") ? one.profiler.Counter.SAMPLES : one.profiler.Counter.TOTAL);
                    Files.writeString(profileDir.resolve(name + ".collapsed"), collapsed);
                    out.println(line("profiled", o) + " (" + (mode.equals("cpu") ? "event " + event : "allocation, 16 KiB interval") + ", " + html + ")");
                    if (mode.equals("cpu")) {
                        for (String l : stubReport(collapsed)) out.println("  " + l);
                    }
                    BenchCommand.deleteRecursively(ourDir);
                }
            }
        } finally {
            if (peer != null) peer.close();
            if (c6 != null) {
                try {
                    c6.call(Cassandra6Child.Wire.of("close").put("id", c6Id));
                } catch (IOException e) {
                    // only frees the child's readers; a dead child has reported why, on the way out of the rounds
                }
            }
            BenchCommand.deleteRecursively(inputRoot);
        }
        s.ours = median(ours);
        s.theirs = theirs.isEmpty() ? null : median(theirs);
        s.cursor6 = cursors6.isEmpty() ? null : median(cursors6);
        s.iterator6 = iterators6.isEmpty() ? null : median(iterators6);
        s.floor = median(floors);
        return s;
    }

    private static void exec(AsyncProfiler p, String command) {
        try {
            p.execute(command);
        } catch (IOException e) {
            throw new IllegalStateException("async-profiler " + command + ": " + e.getMessage(), e);
        }
    }

    /** Our compaction on a fresh thread, measured as the class comment says. {@code started} runs on it first (a profiler). */
    private static Cost ours(TableSchema schema, List<SSTableFiles> inputs, long gcBefore, boolean copyThrough, boolean skipLosing,
                             Path outDir,
                             Compactor.Result[] result, Runnable started) throws Exception {
        Files.createDirectories(outDir);
        Compactor.Options o = Compactor.Options.builder(NOW_SECONDS, gcBefore).copyThrough(copyThrough)
                .skipLosingVersions(skipLosing).build();
        Path table = schema.directoryUnder(outDir);
        Files.createDirectories(table);
        Cost c = measured("flushline", "flushline-compact-0", () -> {
            if (started != null) started.run();
            result[0] = new Compactor(schema, inputs, o).run(TableDirectory.open(table));
        });
        c.cpuNanos += result[0].ioCpuNanos;
        c.ioCpuNanos = result[0].ioCpuNanos;
        c.allocatedBytes += result[0].ioAllocatedBytes;
        c.threads = c.threads + ",its I/O thread";
        return c;
    }

    interface Work {
        void run() throws Exception;
    }

    /** Runs {@code work} on a fresh thread named {@code thread}; its CPU and allocation, wall time and process CPU. */
    private static Cost measured(String system, String thread, Work work) throws Exception {
        System.gc();
        Cost c = new Cost(system);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long[] wall = new long[1];
        Thread t = new Thread(() -> {
            long id = Thread.currentThread().getId();
            long cpu0 = Costs.cpu(id), alloc0 = Costs.allocated(id);
            long w0 = System.nanoTime();
            try {
                work.run();
            } catch (Throwable e) {
                failure.set(e);
            } finally {
                wall[0] = System.nanoTime() - w0;
                c.cpuNanos = Costs.cpu(id) - cpu0;
                c.allocatedBytes = Costs.allocated(id) - alloc0;
            }
        }, thread);
        long p0 = Costs.processCpuNanos();
        t.start();
        t.join();
        c.processCpuNanos = Costs.processCpuNanos() - p0;
        c.wallNanos = wall[0];
        c.threads = thread;
        Throwable e = failure.get();
        if (e instanceof Exception) throw (Exception) e;
        if (e instanceof Error) throw (Error) e;
        return c;
    }

    /**
     * What a Cassandra 6.0 row ran: "cursor path", "iterator path", or for the cursor row that fell back, "iterator
     * path (FELL BACK from the cursor path: reason)".
     */
    static String pathTaken(String asked, String pipeline, String reason) {
        boolean cursor = pipeline.equals("CursorCompactionPipeline");
        boolean iterator = pipeline.equals("IteratorCompactionPipeline");
        if (asked.equals("cursor")) {
            if (cursor) return "the cursor path (" + pipeline + ")";
            if (iterator) return "the iterator path (" + pipeline + "): FELL BACK from the cursor path"
                    + (reason.isEmpty() ? ", 6.0 logged no reason" : ": " + reason);
        } else if (iterator) {
            return "the iterator path (" + pipeline + ")";
        }
        return "UNEXPECTED pipeline " + pipeline + " for the " + asked + " path";
    }

    private static String sameData(List<Path> ours, Path theirs) throws IOException {
        if (theirs == null) return ours.isEmpty() ? "both left nothing" : "Cassandra left nothing, ours wrote " + ours;
        if (ours.size() != 1) return "ours wrote " + ours.size() + " sstables";
        long mismatch = Files.mismatch(ours.get(0), theirs);
        return mismatch < 0 ? "Data.db byte-identical to ours (" + Files.size(theirs) + " bytes)"
                : "Data.db differs from ours at byte " + mismatch + " (ours " + Files.size(ours.get(0)) + ", theirs " + Files.size(theirs) + ")";
    }

    /** Every regular file under {@code dir}, recursively, sorted. */
    static List<Path> listFiles(Path dir) throws IOException {
        List<Path> files = new ArrayList<>();
        if (!Files.exists(dir)) return files;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                if (Files.isDirectory(p)) files.addAll(listFiles(p));
                else if (Files.isRegularFile(p)) files.add(p);
            }
        }
        files.sort(null);
        return files;
    }

    private static Cost median(List<Cost> costs) {
        Cost m = new Cost(costs.get(0).system);
        int n = costs.size();
        long[] v = new long[n];
        for (int k = 0; k < 6; k++) {
            for (int i = 0; i < n; i++) {
                Cost c = costs.get(i);
                v[i] = k == 0 ? c.wallNanos : k == 1 ? c.cpuNanos : k == 2 ? c.allocatedBytes : k == 3 ? c.processCpuNanos
                        : k == 4 ? c.bytesIn : c.bytesOut;
            }
            Arrays.sort(v);
            long med = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
            if (k == 0) m.wallNanos = med;
            else if (k == 1) m.cpuNanos = med;
            else if (k == 2) m.allocatedBytes = med;
            else if (k == 3) m.processCpuNanos = med;
            else if (k == 4) m.bytesIn = med;
            else m.bytesOut = med;
        }
        m.threads = costs.get(0).threads;
        return m;
    }

    private static String line(String label, Cost c) {
        return String.format(Locale.ROOT, "%-8s %-19s wall %,7d ms, cpu %,7d ms (%s), allocated %s, process cpu %,d ms, in %s, out %s",
                label, c.system, c.wallNanos / 1_000_000, c.cpuNanos / 1_000_000,
                c.ioCpuNanos < 0 ? c.threads : c.threads + " " + c.ioCpuNanos / 1_000_000 + " ms", mibExact(c.allocatedBytes),
                c.processCpuNanos / 1_000_000, mib(c.bytesIn), mib(c.bytesOut));
    }

    static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }

    static String mibExact(long bytes) {
        return String.format(Locale.ROOT, "%.3f MiB", bytes / 1048576.0);
    }

    /** The medians, the ratios and the goals. */
    static String table(List<Summary> summaries, boolean cassandra, boolean cassandra6) {
        StringBuilder sb = new StringBuilder();
        sb.append("Medians of the measured rounds (floor: the codec floor, one thread; its 'in' is the inputs' Data.db, "
                + "its 'out' the Data.db bytes it produced):\n");
        sb.append(String.format(Locale.ROOT, "%-10s %-5s %-19s %9s %9s %12s %10s %10s %10s %11s %11s%n", "shape", "comp", "system",
                "wall ms", "cpu ms", "alloc MiB", "proc cpu", "in MiB", "out MiB", "rows out", "cpu/floor"));
        for (Summary s : summaries) {
            for (Cost c : new Cost[] {s.ours, s.theirs, s.cursor6, s.iterator6, s.floor}) {
                if (c == null) continue;
                sb.append(String.format(Locale.ROOT, "%-10s %-5s %-19s %9.0f %9.0f %12.3f %10.0f %10.1f %10.1f %11d %11s%n", s.shape,
                        s.compression, c.system, c.wallNanos / 1e6, c.cpuNanos / 1e6, c.allocatedBytes / 1048576.0,
                        c.processCpuNanos / 1e6, c.bytesIn / 1048576.0, c.bytesOut / 1048576.0,
                        c.system.equals("floor") ? 0 : s.rowsOut, x((double) c.cpuNanos / Math.max(1, s.floor.cpuNanos))));
            }
        }
        sb.append(String.format(Locale.ROOT, "%nRatios and goals against Cassandra 5.0.5 (CPU: Cassandra/ours >= 5; allocation: ours "
                + "<= 1 MiB per compaction); CPU over the codec floor for both:%n"));
        sb.append(String.format(Locale.ROOT, "%-10s %-5s %14s %14s %12s %15s %13s %s%n", "shape", "comp", "cpu C/ours", "alloc C/ours",
                "ours alloc", "cpu ours/floor", "cpu C/floor", "goals"));
        for (Summary s : summaries) {
            double cpuRatio = s.theirs == null ? Double.NaN : (double) s.theirs.cpuNanos / Math.max(1, s.ours.cpuNanos);
            double allocRatio = s.theirs == null ? Double.NaN : (double) s.theirs.allocatedBytes / Math.max(1, s.ours.allocatedBytes);
            double oursFloor = (double) s.ours.cpuNanos / Math.max(1, s.floor.cpuNanos);
            double theirFloor = s.theirs == null ? Double.NaN : (double) s.theirs.cpuNanos / Math.max(1, s.floor.cpuNanos);
            String goals = (s.theirs == null ? "cpu n/a" : "cpu " + (cpuRatio >= 5 ? "met" : "missed"))
                    + ", alloc " + (s.ours.allocatedBytes <= 1048576 ? "met" : "missed");
            sb.append(String.format(Locale.ROOT, "%-10s %-5s %14s %14s %12s %15s %13s %s%n", s.shape, s.compression, x(cpuRatio),
                    x(allocRatio), mibExact(s.ours.allocatedBytes), x(oursFloor), x(theirFloor), goals));
        }
        if (cassandra) {
            for (Summary s : summaries) sb.append(s.shape).append(' ').append(s.compression).append(": ").append(s.sameBytes).append('\n');
        }
        if (cassandra6) {
            sb.append(String.format(Locale.ROOT, "%nCassandra 6.0-alpha2 (child JVM), each row against ours and the floor; 'ran' is the "
                    + "pipeline 6.0 chose in every round:%n"));
            sb.append(String.format(Locale.ROOT, "%-10s %-5s %-19s %-28s %12s %14s %13s %13s%n", "shape", "comp", "system", "ran",
                    "cpu C6/ours", "alloc C6/ours", "wall C6/ours", "cpu C6/floor"));
            for (Summary s : summaries) {
                for (Cost c : new Cost[] {s.cursor6, s.iterator6}) {
                    if (c == null) continue;
                    boolean cursorRow = c == s.cursor6;
                    java.util.Set<String> ran = cursorRow ? s.cursorPipelines : s.iteratorPipelines;
                    String ranText = ran.size() == 1 ? shortPipeline(ran.iterator().next()) : "varied: " + ran;
                    if (cursorRow && !ran.contains("CursorCompactionPipeline")) ranText += " (FELL BACK)";
                    sb.append(String.format(Locale.ROOT, "%-10s %-5s %-19s %-28s %12s %14s %13s %13s%n", s.shape, s.compression, c.system,
                            ranText, x((double) c.cpuNanos / Math.max(1, s.ours.cpuNanos)),
                            x((double) c.allocatedBytes / Math.max(1, s.ours.allocatedBytes)),
                            x((double) c.wallNanos / Math.max(1, s.ours.wallNanos)), x((double) c.cpuNanos / Math.max(1, s.floor.cpuNanos))));
                }
            }
            for (Summary s : summaries) {
                if (s.cursor6 == null) continue;
                if (!s.cursorReasons.isEmpty()) {
                    sb.append(s.shape).append(' ').append(s.compression).append(": 6.0 fell back from the cursor path: ")
                            .append(String.join("; ", s.cursorReasons)).append('\n');
                }
                sb.append(s.shape).append(' ').append(s.compression).append(": cursor row ").append(s.cursorSame)
                        .append("; iterator row ").append(s.iteratorSame).append('\n');
            }
        }
        for (Summary s : summaries) {
            sb.append(s.shape).append(' ').append(s.compression).append(": floor ").append(s.floorCheck).append('\n');
        }
        return sb.toString();
    }

    private static String shortPipeline(String pipeline) {
        return pipeline.equals("CursorCompactionPipeline") ? "cursor" : pipeline.equals("IteratorCompactionPipeline") ? "iterator" : pipeline;
    }

    private static String x(double r) {
        return Double.isNaN(r) ? "n/a" : String.format(Locale.ROOT, "x%.2f", r);
    }

    /** Stub samples under the merge, by call site (the frame that called the stub). */
    static List<String> stubReport(String collapsed) {
        long total = 0, underMerge = 0, underCompaction = 0, stubsMerge = 0, stubsAll = 0;
        Map<String, Long> where = new HashMap<>();
        for (String l : collapsed.split("\n")) {
            int sp = l.lastIndexOf(' ');
            if (sp <= 0) continue;
            long n = Long.parseLong(l.substring(sp + 1).trim());
            String stack = l.substring(0, sp);
            total += n;
            boolean stub = stack.contains("vtable stub") || stack.contains("itable stub");
            if (stub) stubsAll += n;
            if (stack.contains(COMPACTION_FRAME)) underCompaction += n;
            int at = stack.indexOf(MERGE_FRAME);
            if (at < 0) continue;
            underMerge += n;
            String below = stack.substring(at);
            if (below.contains("vtable stub") || below.contains("itable stub")) {
                stubsMerge += n;
                String[] f = below.split(";");
                int k = 0;
                while (k < f.length && !f[k].contains("table stub")) k++;
                where.merge((k > 0 ? f[k - 1] : "?") + " -> " + f[Math.min(k, f.length - 1)], n, Long::sum);
            }
        }
        List<String> lines = new ArrayList<>();
        lines.add("CPU samples: " + total + " in the profile, " + underCompaction + " under " + COMPACTION_FRAME + ", " + underMerge
                + " under " + MERGE_FRAME);
        lines.add("vtable/itable stub samples under " + MERGE_FRAME + ": " + stubsMerge + " (anywhere in the profile: " + stubsAll + ")");
        for (Map.Entry<String, Long> e : where.entrySet()) lines.add("  stub call site: " + e.getKey() + " (" + e.getValue() + " samples)");
        return lines;
    }

    // ---- inputs ---------------------------------------------------------------------------------

    /** Writes the four inputs of {@code shape} with our flush; returns the rows they hold. */
    static long writeInputs(TableSchema schema, String shape, int partitions, Path root) throws IOException {
        long[] seed = {BenchCommand.VALUE_SEED};
        long rows = 0;
        for (int s = 0; s < INPUTS; s++) {
            Memtable m = new SkipListMemtable(schema, AllocationMode.HEAP_BUFFERS);
            try {
                switch (shape) {
                    case "disjoint":
                        rows += fill(m, (long) s * partitions, partitions, BenchCommand.BASE_TIMESTAMP_MICROS, false, seed);
                        break;
                    case "overwrite":
                        rows += fill(m, 0, partitions, BenchCommand.BASE_TIMESTAMP_MICROS + s * 100_000_000L, false, seed);
                        break;
                    default:
                        if (s < INPUTS - 1) {
                            rows += fill(m, (long) s * partitions, partitions, BenchCommand.BASE_TIMESTAMP_MICROS, true, seed);
                        } else {
                            // every other partition of the first three, deleted after all their writes
                            DeletionTime d = DeletionTime.of(BenchCommand.BASE_TIMESTAMP_MICROS + 1_000_000_000L, WRITE_SECONDS + 100);
                            for (long p = 0; p < (long) (INPUTS - 1) * partitions; p += 2) {
                                if (!m.apply(new PartitionUpdate(PartitionKey.of(int64(p)), d, List.of(), null, List.of()))) {
                                    throw new IllegalStateException("memtable sealed during fill");
                                }
                            }
                        }
                }
                m.seal();
                FlushJob.run(m, FlushJob.Options.simple(root));
            } finally {
                m.discard();
            }
        }
        return rows;
    }

    /**
     * Partitions {@code [first, first + n)} of the bench table, values from the bench's xorshift (continued in
     * {@code seed}), timestamps from {@code ts} up by one per row. With {@code someExpired}, row
     * {@code (10 - 7p mod 10) mod 10} of partition p (one row in ten) and its cells carry a TTL already expired
     * at the compaction's clock.
     */
    static long fill(Memtable m, long first, int n, long ts, boolean someExpired, long[] seed) {
        TableSchema schema = m.schema();
        int simple = schema.regularComplexStart();
        ComplexColumn[] noComplex = new ComplexColumn[schema.regularColumns().length - simple];
        long sd = seed[0];
        long rows = 0;
        for (long p = first; p < first + n; p++) {
            List<Row> list = new ArrayList<>(ROWS_PER_PARTITION);
            for (int r = 0; r < ROWS_PER_PARTITION; r++) {
                boolean expired = someExpired && (p * 7 + r) % 10 == 0;
                long exp = WRITE_SECONDS + EXPIRED_TTL;
                Cell[] cells = new Cell[simple];
                for (int c = 0; c < simple; c++) {
                    byte[] v = new byte[VALUE_BYTES];
                    for (int i = 0; i < v.length; i++) {
                        sd ^= sd << 13;
                        sd ^= sd >>> 7;
                        sd ^= sd << 17;
                        v[i] = (byte) ('!' + (int) ((sd >>> 33) % 94));
                    }
                    cells[c] = expired ? Cell.expiring(ts, EXPIRED_TTL, exp, v, null) : Cell.live(ts, v, null);
                }
                list.add(new Row(false, new byte[][] {int32(r)}, ts, expired ? EXPIRED_TTL : Cell.NO_TTL,
                        expired ? exp : Cell.NO_DELETION_TIME, DeletionTime.LIVE, cells, noComplex));
                ts++;
                rows++;
            }
            if (!m.apply(new PartitionUpdate(PartitionKey.of(int64(p)), DeletionTime.LIVE, List.of(), null, list))) {
                throw new IllegalStateException("memtable sealed during fill");
            }
        }
        seed[0] = sd;
        return rows;
    }

    private static byte[] int64(long x) {
        byte[] b = new byte[8];
        for (int i = 7; i >= 0; i--) {
            b[i] = (byte) x;
            x >>= 8;
        }
        return b;
    }

    private static byte[] int32(int x) {
        return new byte[] {(byte) (x >> 24), (byte) (x >> 16), (byte) (x >> 8), (byte) x};
    }
}

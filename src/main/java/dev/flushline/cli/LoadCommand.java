package dev.flushline.cli;

import dev.flushline.schema.ValueText;
import dev.flushline.data.InsertBuffer;
import dev.flushline.data.Mutation;
import dev.flushline.table.Flusher;
import dev.flushline.table.FlusherFailedException;
import dev.flushline.table.ProgressReporter;
import dev.flushline.table.Table;
import dev.flushline.table.TableOptions;
import dev.flushline.ops.BadInputException;
import dev.flushline.ops.CsvOptions;
import dev.flushline.ops.CsvReader;
import dev.flushline.ops.InputFiles;
import dev.flushline.ops.MutationSource;
import dev.flushline.ops.OperationDecoder;
import dev.flushline.ops.OperationReader;
import dev.flushline.sstable.SSTableVersion;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.SchemaException;
import dev.flushline.schema.TableSchema;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import dev.flushline.data.PartitionUpdate;
import java.util.concurrent.atomic.AtomicLong;
import java.util.Set;

/**
 * {@code flushline load}: applies a JSON Lines operations file to a memtable and flushes it into
 * oa sstables, switching to a fresh memtable whenever the current one passes
 * {@code --memtable-size-mb}, and once more at the end.
 *
 * <p>Bad input: the first bad line (or the one past {@code --max-errors}) stops the load. The
 * operations before it are flushed, so the output holds exactly the valid lines before the stop;
 * an sstable is only ever published whole (FlushJob writes to staging directories and publishes
 * atomically), so nothing half-written is left. Exit status 1.
 *
 * <p>Thread safety: one thread applies, in input order; a {@link ReadAhead} thread reads, parses and
 * decodes the input ahead of it; the {@link Flusher} flushes on its own thread (and FlushJob may use
 * {@code --flush-threads} of its own), so reading and applying go on while a memtable flushes. A bad line
 * that stops the load stops it with everything before it applied and nothing after it applied; lines
 * after it may have been read ahead, and are dropped.
 */
public final class LoadCommand {
    private LoadCommand() {}

    static final String HELP =
            "Usage: flushline load --schema table.cql --input ops.jsonl|- --out DIR [options]\n"
          + "\n"
          + "Applies JSON Lines operations (insert, update, delete), or CSV rows (--format csv), to a memtable and\n"
          + "flushes it into Cassandra 5.0 'oa' (or 'nb', see --sstable-version) sstables under\n"
          + "DIR/<keyspace>/<table>-<table id>/, the layout nodetool import expects: whenever the memtable passes\n"
          + "--memtable-size-mb, and once more at the end.\n"
          + "\n"
          + "  --schema FILE                 the table's schema (required): its CREATE TABLE, after the CREATE TYPE\n"
          + "                                statements it uses; a whole DESCRIBE KEYSPACE output is fine (keyspaces,\n"
          + "                                indexes, views and functions are skipped). A counter table is refused\n"
          + "  --table NAME                  the table (t or ks.t) when the schema file defines several\n"
          + "  --input FILE|-                operations, one JSON object per line, or CSV rows with --format csv\n"
          + "                                ('-' = stdin; a FIFO or a <(...) pipe is read as a stream too) (required).\n"
          + "                                Gzip input (a .gz name, or the gzip magic bytes at its start) is\n"
          + "                                decompressed as it is read\n"
          + "  --out DIR                     output directory (required)\n"
          + EngineOptions.help(EngineOptions.LOAD_ALLOCATION + ": the rows stay off\n"
                  + "                                the heap until they are flushed)")
          + EngineOptions.SSTABLE_VERSION_HELP
          + "  --flush-compression fast|table|none\n"
          + "                                what each flush compresses with, as a node's flush_compression: table =\n"
          + "                                the table's compression, as CQLSSTableWriter writes (default); fast = the\n"
          + "                                table's if it is LZ4 (fast), Snappy or Noop, else LZ4 with 16 KiB chunks;\n"
          + "                                none = NoopCompressor with 4 KiB chunks for a compressed table\n"
          + RingOption.HELP
          + "  --memtable-size-mb N          switch and flush the memtable when the bytes its data takes (on heap, or\n"
          + "                                off heap) pass N MiB (default: a quarter of the max heap, at least 16);\n"
          + "                                writers wait while the memtables being flushed and the current one hold 2N\n"
          + "  --now EPOCH_SECONDS           the clock for tombstones' local deletion time, TTL expiry and the time\n"
          + "                                part of list element ids (default: the wall clock)\n"
          + "  --list-path-seed N            list element ids (time-UUIDs) from this seed, so that a run is repeatable\n"
          + "                                byte for byte with the same --now. Without it each run draws its own\n"
          + "                                node id, as Cassandra's nodes do, and appends of different runs never\n"
          + "                                collide. Two runs with the same seed and --now must NOT append to the\n"
          + "                                same lists: their elements would get the same ids, and the later run's\n"
          + "                                would replace the earlier's\n"
          + CsvOption.HELP
          + "  --max-errors N                report and skip up to N bad lines (default 0: stop at the first)\n"
          + "  --commitlog DIR               append every operation to a commit log in DIR before it reaches the\n"
          + "                                memtable; prints 'durable: N' as the first N operations become durable.\n"
          + "                                Rerunning with the same --commitlog and --out first replays and flushes\n"
          + "                                what an interrupted run had not flushed\n"
          + "  --sync batch|periodic         commit log sync: batch = fsync (group commit) before a write is\n"
          + "                                acknowledged; periodic = every 10 s (default periodic)\n"
          + "  --skip-corrupt                on replay, skip a corrupt commit log entry (reported) instead of stopping\n"
          + "  --json                        print one JSON object on stdout at the end (the lines below go to stderr\n"
          + "                                then): command, status, input, table, directory, sstables [{path, bytes,\n"
          + "                                partitions, rows}], operations, lines_read, no_ops, flushes, partitions,\n"
          + "                                rows, data_bytes, bad_lines {count, skipped, first [{source, line,\n"
          + "                                message}] (the first 10)}, stopped_at {source, line}, notes, wall_ms, cpu_ms,\n"
          + "                                error (when status is not 0). stdout holds exactly that object, also on a\n"
          + "                                usage error\n"
          + "  --help                        this text\n"
          + "\n"
          + "Operations: one JSON object per line, UTF-8; blank lines and lines starting with // are skipped.\n"
          + "\"timestamp\" (microseconds, as USING TIMESTAMP) is required; insert and update take an optional\n"
          + "\"ttl\" in seconds (default: the table's default_time_to_live; 0 = none).\n"
          + "  {\"op\":\"insert\",\"timestamp\":T,\"ttl\":S,\"values\":{\"pk\":1,\"ck\":2,\"v1\":\"a\",\"v2\":null}}\n"
          + "      a row with liveness; null writes a tombstone; an absent column is left as it is\n"
          + "  {\"op\":\"update\",\"timestamp\":T,\"key\":{\"pk\":1,\"ck\":2},\"set\":{\"v1\":\"b\"},\"add\":{\"tags\":[\"z\"]}}\n"
          + "      no liveness; \"set\" replaces a value (a collection or non-frozen UDT whole), \"add\" appends to a\n"
          + "      non-frozen list, set or map, \"remove\" takes elements out of a set or keys out of a map:\n"
          + "      \"remove\":{\"tags\":[\"x\"]} is SET tags = tags - {'x'}. \"set\" also takes one field of a non-frozen\n"
          + "      UDT, \"addr.city\":\"Paris\" (SET addr.city = 'Paris'), and one map entry, \"prefs['k']\":\"v\" (SET\n"
          + "      prefs['k'] = 'v'; the key in brackets is a CQL literal of the key type); null deletes that field\n"
          + "      or entry. A list element by index and list removal by value need a read first: refused\n"
          + "  {\"op\":\"delete\",\"timestamp\":T,\"key\":{\"pk\":1}}                  the partition\n"
          + "  {\"op\":\"delete\",\"timestamp\":T,\"key\":{\"pk\":1,\"ck\":2}}           the row (a clustering prefix: all\n"
          + "                                                              rows with that prefix)\n"
          + "  {\"op\":\"delete\",\"timestamp\":T,\"key\":{\"pk\":1},\"range\":{\"ck\":{\">\":2,\"<=\":5}}}   a clustering range\n"
          + "  {\"op\":\"delete\",\"timestamp\":T,\"key\":{\"pk\":1,\"ck\":2},\"columns\":[\"v1\"]}        cells or collections\n"
          + "      \"columns\" also takes \"addr.city\" (a field of a non-frozen UDT) and \"prefs['k']\" (a map entry\n"
          + "      or set element), as DELETE addr.city, prefs['k'] FROM ... does\n"
          + "Keys: the full primary key, except that a partition delete, and an update or column delete of\n"
          + "static columns only, give the partition key alone; clustering columns in a key form a prefix,\n"
          + "and \"range\" bounds the next one (>, >=, <, <=; one or two bounds).\n"
          + "Values: text, ascii: strings; tinyint..bigint, varint, float, double, decimal: numbers; boolean:\n"
          + "true/false; blob: \"0x<hex>\"; uuid,\n"
          + "timeuuid: canonical strings; timestamp: milliseconds since the epoch or\n"
          + "\"yyyy-mm-dd[(T| )hh:mm[:ss[.fff]]][zone]\"; date: \"yyyy-mm-dd\"; time: \"hh:mm:ss[.fffffffff]\";\n"
          + "inet: an IPv4 or IPv6 literal; list, set: arrays; map: objects whose keys are the key type's\n"
          + "literals as strings (JSON text for a frozen collection, tuple, UDT or vector key: \"[1,2]\"); tuple: an\n"
          + "array of its components (null allowed); user-defined type: an object of its field names (a field left\n"
          + "out is null; \"\\\"Name\\\"\" keeps a name's case, bare names are lowercased); duration: a string holding a\n"
          + "CQL duration literal (\"1h30m\", \"-3d\", \"P1DT2H\", \"P0001-02-03T04:05:06\"); vector: an array of exactly\n"
          + "its dimension's elements, none null. Every non-collection type also takes its CQL literal as a string (\"42\");\n"
          + "pass decimals as strings to keep every digit. Any other value, a missing key column, an\n"
          + "unknown column, field or op,\n"
          + "or malformed JSON is a bad line.\n"
          + "\n"
          + CsvOption.VALUES_HELP
          + "\n"
          + "Output: one line per sstable on stdout,\n"
          + "  Completed flushing <Data.db path> (<Data.db MiB>) for commitlog position\n"
          + "  CommitLogPosition(segmentId=S, position=P), time spent: N ms, bytes flushed: B/(R per sec),\n"
          + "  partitions flushed: N/(R per sec), rows: N/(R per sec), cpu time: N ms, allocated: <MiB>\n"
          + "(all on one line), then a 'Loaded N operations ...' summary. Bad lines are reported on stderr as\n"
          + "FILE:LINE: detail. Progress also goes to stderr, when reading takes longer than 2 s: the share of the\n"
          + "input file read (its compressed bytes for gzip; bytes read from stdin or a pipe), lines, lines/s and\n"
          + "MiB/s, and the flush that is running; a bar redrawn in place on a terminal, else a line every 5 s.\n"
          + "\n"
          + "Exit status: 0 ok; 1 bad input or usage (the operations before the line that stopped the load are\n"
          + "in complete sstables); 2 internal or I/O failure (also a corrupt commit log entry on replay).\n";

    static final Set<String> OPTIONS;

    static {
        java.util.HashSet<String> s = new java.util.HashSet<>(EngineOptions.OPTIONS);
        s.add("schema");
        s.add("table");
        s.add("input");
        s.add("out");
        s.add("memtable-size-mb");
        s.add("now");
        s.add("list-path-seed");
        s.add(EngineOptions.SSTABLE_VERSION_OPTION);
        s.add("max-errors");
        s.add("commitlog");
        s.add("sync");
        s.add("flush-compression");
        s.add(RingOption.OPTION);
        s.addAll(CsvOption.OPTIONS);
        OPTIONS = Set.copyOf(s);
    }

    static final Set<String> FLAGS = Set.of("skip-corrupt", JsonSummary.FLAG);

    /** Runs the command; returns the exit status and never calls System.exit. */
    public static int run(String[] argv, InputStream stdin, PrintStream out, PrintStream err) {
        if (Args.wantsHelp(argv)) {
            out.print(HELP);
            return 0;
        }
        // With --json the human lines go to stderr and stdout holds the summary alone.
        LoadSummary report = LoadSummary.ifRequested(argv);
        return report.finish(run(argv, stdin, report.humanOut(out, err), err, report), out);
    }

    private static int run(String[] argv, InputStream stdin, PrintStream out, PrintStream err, LoadSummary report) {
        try {
            return load(new Args("load", argv, OPTIONS, FLAGS), stdin, out, err, report);
        } catch (UsageException e) {
            report.error(err, "flushline load: " + e.getMessage());
            return 1;
        } catch (IOException e) {
            report.error(err, "flushline load: I/O error: " + dev.flushline.io.IoErrors.withCause(e));
            return 2;
        } catch (RuntimeException | Error e) {
            report.error(err, "flushline load: internal error: " + e);
            e.printStackTrace(err);
            return 2;
        }
    }

    private static int load(Args a, InputStream stdin, PrintStream out, PrintStream err, LoadSummary report)
            throws UsageException, IOException {
        String schemaFile = a.required("schema");
        String input = a.required("input");
        Path outDir = Path.of(a.required("out"));
        EngineOptions engine = new EngineOptions(a, EngineOptions.LOAD_ALLOCATION);
        long defaultSizeMb = Math.max(16, Runtime.getRuntime().maxMemory() / 4 / (1024 * 1024));
        long memtableLimitBytes = a.longValue("memtable-size-mb", defaultSizeMb, 1, 1L << 30) * 1024 * 1024;
        SSTableVersion version = EngineOptions.sstableVersion(a);
        // Tombstones carry --now as their local deletion time, so it must be storable in the version.
        long now = a.longValue("now", System.currentTimeMillis() / 1000, 0, version.maxLocalDeletionTime());
        long maxErrors = a.longValue("max-errors", 0, 0, Long.MAX_VALUE);

        TableSchema schema = engine.apply(readSchema(schemaFile, a.has("table") ? a.required("table") : null));
        refuseCounterTable(schema, "load");
        report.started(input, schema.keyspace() + "." + schema.name());
        CsvOptions csv = CsvOption.chosen(a) ? CsvOption.read(a, schema, CsvOption.clockMicros(), now,
                version.maxLocalDeletionTime(), version.maxLocalDeletionTimeText()) : null;
        if (!input.equals("-")) {
            // Any readable file: a regular file, a FIFO, or a pipe such as bash's <(...) (/dev/fd/N).
            Path in = Path.of(input);
            if (!Files.exists(in)) throw new UsageException("--input " + input + ": no such file");
            if (Files.isDirectory(in)) throw new UsageException("--input " + input + ": is a directory, not a file of operations");
        }
        dev.flushline.data.TokenRing ring = RingOption.read(a);
        if (ring != null && a.has("ranges")) throw new UsageException("--ring splits at the ring's ranges; drop --ranges");
        if (!a.has("commitlog") && (a.has("sync") || a.has("skip-corrupt"))) {
            throw new UsageException("--sync and --skip-corrupt need --commitlog");
        }
        String sync = a.string("sync", "periodic");
        if (!sync.equals("batch") && !sync.equals("periodic")) throw new UsageException("--sync is batch or periodic, not '" + sync + "'");
        boolean durable = a.has("commitlog");

        long start = System.nanoTime();
        long applied = 0, badLines = 0, durablePrinted = 0, durablePrintedNanos = 0;
        AtomicLong sstables = new AtomicLong(), dataBytes = new AtomicLong();
        BadInputException stop = null;
        // The current memtable is switched and flushed at --memtable-size-mb; writers keep applying
        // into a fresh one meanwhile, and block only if a second memtable fills before the flush ends.
        TableOptions.Builder options = engine.tableOptions(schema)
                .memtableSizeBytes(memtableLimitBytes)
                .sstableVersion(version)
                .flushCompression(a.choice("flush-compression", "table", "fast", "table", "none"))
                .onFlushed(o -> {
                    out.println(o.logLine());
                    report.flushed(o.result.dataPath, o.result.dataFileBytes, o.result.partitions, o.result.rows);
                    sstables.incrementAndGet();
                    dataBytes.addAndGet(o.result.dataFileBytes);
                })
                // A commit-logged load says what the replay did and what it left alone on standard output.
                .info(line -> {
                    out.println(line);
                    report.note(line);
                })
                .log(line -> {
                    if (durable) out.println(line);
                    else err.println("flushline load: " + line);
                    report.note(line);
                });
        // With a ring, flushes publish under the staging root, split at the ring's ranges; the end of the load places them.
        if (ring == null) options.dataDir(outDir);
        else options.dataDir(dev.flushline.sstable.ReplicaPlacement.stagingRoot(outDir)).splitTokens(ring.splitTokens());
        if (durable) options.commitLog(Path.of(a.required("commitlog")), sync, a.has("skip-corrupt"));
        OperationDecoder decoder = new OperationDecoder(schema, now, version.maxLocalDeletionTime(),
                version.maxLocalDeletionTimeText() + " for " + version + " sstables");
        // Always seeded, from a random seed unless one is given: a run that stops says which, so that the same
        // input can be loaded again (to resume it) with the same list element ids instead of appending again.
        long listPathSeed = a.has("list-path-seed") ? a.longValue("list-path-seed", 0, Long.MIN_VALUE, Long.MAX_VALUE)
                : new java.security.SecureRandom().nextLong();
        decoder.seedListPaths(listPathSeed);
        String repeatListPaths = hasMultiCellList(schema) ? " --now " + now + " --list-path-seed " + listPathSeed
                + (csv != null ? " --timestamp " + csv.timestampMicros : "") : "";
        // Opened before the table, so that a CSV header that does not fit the table refuses the load up front.
        InputFiles.Opened opened = InputFiles.openMetered(input, stdin);
        MutationSource source = openInput(schema, input, opened.stream(), decoder, csv);
        if (csv != null && !a.has("timestamp")) {
            err.println("flushline load: the CSV rows are written at --timestamp " + csv.timestampMicros
                    + " (microseconds, the clock now); give it again to repeat this load exactly");
        }
        Table table;
        try {
            // With a commit log: replays (and flushes) what an interrupted run logged but had not flushed.
            table = Table.open(options.build());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closeQuietly(source, e);
            throw new IOException("interrupted while replaying the commit log", e);
        } catch (IOException | RuntimeException | Error e) {
            closeQuietly(source, e);
            throw e;
        }
        Flusher flusher = table.flusher();
        ProgressReporter.Input reading = new ProgressReporter.Input(source.source(), opened.meter());
        ProgressReporter progress = new ProgressReporter(flusher, schema.toString(), reading, err);
        progress.start();
        ReadAhead readAhead = null;
        long taken = 0;

        // Reading, parsing and decoding run ahead on a thread of their own. The reader's counters used
        // below (lineNumber, noOps) are as of the item this thread last took, not as of how far the
        // read-ahead has got, so every number reported is what it was with one thread.
        try (ReadAhead reader = ReadAhead.start(source)) {
            readAhead = reader;
            try {
                // With a commit log, operations go in groups: the group is appended, one fsync
                // covers it (batch mode), then it reaches the memtable. One wait per group instead
                // of per operation is what lets batch mode keep up (group commit).
                List<PartitionUpdate> group = durable ? new ArrayList<>(COMMIT_GROUP_OPERATIONS) : null;
                while (true) {
                    Object item;
                    try {
                        // Without a commit log, a plain insert comes as a reused buffer, applied before the next is taken.
                        item = durable ? reader.next() : reader.nextItem();
                    } catch (BadInputException e) {
                        err.println(e.getMessage());
                        report.badLine(e);
                        badLines++;
                        if (!e.skippable() || badLines > maxErrors) {
                            stop = e;
                            break;
                        }
                        continue;
                    }
                    if (item == null) break;
                    // For the progress report: a volatile store every 64 operations, not one per line.
                    if ((++taken & 63) == 0) reading.linesRead(reader.lineNumber());
                    if (!durable) {
                        // The input line goes with it: after a failure the table says where the
                        // published prefix of the input ends.
                        if (item instanceof InsertBuffer) table.apply((InsertBuffer) item, reader.lineNumber());
                        else table.apply(((Mutation) item).update(), reader.lineNumber());
                        applied++;
                        continue;
                    }
                    // The group outlives the next call: the commit log's path takes mutations, not buffers.
                    group.add(((Mutation) item).update());
                    if (group.size() == COMMIT_GROUP_OPERATIONS) {
                        applied += table.applyGroup(group);
                        group.clear();
                        long t = System.nanoTime();
                        // Each time the first N operations are durable; at most every 100 ms, so a
                        // large load does not print a line per group.
                        long d = table.durableUpTo();
                        if (d > durablePrinted && t - durablePrintedNanos >= 100_000_000L) {
                            out.println("durable: " + d);
                            durablePrinted = d;
                            durablePrintedNanos = t;
                        }
                    }
                }
                if (group != null) applied += table.applyGroup(group); // also before a bad line (the group is not used again)
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while loading", e);
            } finally {
                // Nothing more is taken (the end, a stop, or a failure): the read-ahead stops reading
                // before the drain, rather than compete with it for a core.
                reader.stop();
                // Drain: everything applied (also before a bad line) is flushed; a failed flush throws.
                try {
                    table.close();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while flushing", e);
                } finally {
                    progress.stop();
                }
            }
            if (durable && applied > durablePrinted) out.println("durable: " + applied);
            long ms = (System.nanoTime() - start) / 1_000_000;
            String where = table.directory().toString();
            out.println("Loaded " + applied + " operations from " + reader.source() + " ("
                    + reader.lineNumber() + " lines read, " + (badLines - (stop == null ? 0 : 1)) + " bad lines skipped, "
                    + reader.noOps() + " no-ops) in " + flusher.flushCount() + " flushes into " + sstables.get() + " sstables ("
                    + ValueText.mib(dataBytes.get()) + " Data.db) under " + where + " in " + ms + " ms"
                    + (flusher.writerBlockedNanos() > 0 ? ", writers waited " + flusher.writerBlockedNanos() / 1_000_000
                    + " ms for flushes" : ""));
            report.loaded(applied, reader.lineNumber(), badLines - (stop == null ? 0 : 1), reader.noOps(), flusher.flushCount(),
                    table.directory(), stop);
            if (ring != null) report.placed(RingOption.place(table.directory(), ring, outDir, out));
            if (stop != null) {
                report.error(err, "flushline load: stopped at " + stop.source() + ":" + stop.lineNumber()
                        + (maxErrors > 0 ? " (more than --max-errors " + maxErrors + " bad lines)" : "")
                        + "; the " + applied + " operations before it are in the sstables, nothing after it was applied"
                        + " (later lines may have been read ahead, and were dropped)");
                return 1;
            }
            return 0;
        } catch (IOException e) {
            // A flush that failed for good, or (with --commitlog) the commit log's disk: say what
            // is safe and how to resume. Anything else (reading the input) is reported as it is.
            if (!(e instanceof FlusherFailedException) && !durable) throw e;
            report.error(err, "flushline load: " + (e instanceof FlusherFailedException ? "flush failed" : "I/O error")
                    + " and the load stopped: " + dev.flushline.io.IoErrors.message(e));
            reportStop(table, readAhead, input, csv != null && csv.header ? " (after its header line)" : "", sstables.get(),
                    dataBytes.get(), repeatListPaths, err);
            return 2;
        }
    }

    /**
     * The load stopped because flushing failed for good or the commit log failed: says why, what
     * is published, what is not, and how to resume. Published sstables are complete; the
     * transactional publish leaves nothing partial.
     */
    private static void reportStop(Table table, ReadAhead reader, String input, String afterHeader, long sstables,
                                   long dataBytes, String repeatListPaths, PrintStream err) {
        String where = table.directory().toString();
        err.println("flushline load: published: " + sstables + " complete sstables (" + ValueText.mib(dataBytes)
                + " Data.db) under " + where + "; nothing partial is visible, and the next load removes any leftovers");
        if (table.isDurable()) {
            err.println("flushline load: not published: the operations still in memtables; the commit log holds every operation"
                    + " reported durable (the first " + table.durableUpTo() + ")");
            err.println("flushline load: to resume: fix the cause (for example free disk space), then rerun the same command"
                    + (repeatListPaths.isEmpty() ? "" : " with" + repeatListPaths + " (so that list appends read again keep their ids)")
                    + ": it replays the commit log and flushes what was not published");
            return;
        }
        long resumeLine = table.firstUnpublishedPosition();
        // The line of the last operation the load took (not how far the read-ahead got): none after it was applied.
        long lastTaken = reader == null ? 0 : reader.lineNumber();
        if (resumeLine < 0) resumeLine = lastTaken + 1;
        err.println("flushline load: not published: the operations of input lines " + resumeLine + " to " + lastTaken
                + " (every line before " + resumeLine + " is in the published sstables; some later ones may be too)");
        String source = input.equals("-") ? "the input" : input;
        err.println("flushline load: to resume: fix the cause (for example free disk space), then load " + source
                + " from line " + resumeLine + " on (tail -n +" + resumeLine + ")" + afterHeader + "; operations written twice reconcile to"
                + " the same result" + (repeatListPaths.isEmpty() ? "" : " when list appends keep their ids: add" + repeatListPaths)
                + "; or use --commitlog so that a rerun replays");
    }

    /** The opened input as JSON Lines operations, or as CSV rows when {@code csv} is given (its header read now); closed if refused. */
    private static MutationSource openInput(TableSchema schema, String input, InputStream in, OperationDecoder decoder,
                                            CsvOptions csv) throws IOException, UsageException {
        String name = input.equals("-") ? "<stdin>" : input;
        if (csv == null) return new OperationReader(schema, in, name, decoder);
        try {
            return new CsvReader(in, name, decoder, csv);
        } catch (BadInputException e) {
            in.close();
            throw new UsageException(e.getMessage());
        } catch (IOException | RuntimeException | Error e) {
            try {
                in.close();
            } catch (IOException x) {
                e.addSuppressed(x);
            }
            throw e;
        }
    }

    private static void closeQuietly(MutationSource source, Throwable failure) {
        try {
            source.close();
        } catch (IOException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    /** Operations per commit-log group: one fsync wait each (see the load loop). */
    static final int COMMIT_GROUP_OPERATIONS = 256;


    private static boolean hasMultiCellList(TableSchema schema) {
        for (ColumnMetadata[] cols : new ColumnMetadata[][] {schema.staticColumns(), schema.regularColumns()}) {
            for (ColumnMetadata c : cols) {
                if (c.type().isMultiCell() && c.type().kind() == dev.flushline.schema.CqlType.Kind.LIST) return true;
            }
        }
        return false;
    }

    static TableSchema readSchema(String file) throws UsageException, IOException {
        return readSchema(file, null);
    }

    /**
     * The table {@code table} (t or ks.t; null: the only one) of a schema file, as DESCRIBE
     * KEYSPACE prints it (CREATE KEYSPACE, CREATE TYPE, CREATE TABLE, indexes and functions skipped).
     */
    static TableSchema readSchema(String file, String table) throws UsageException, IOException {
        String cql;
        if (Files.isDirectory(Path.of(file))) throw new UsageException("--schema " + file + ": is a directory, not a CQL file");
        try {
            cql = Files.readString(Path.of(file), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new UsageException("--schema " + file + ": no such file");
        } catch (java.nio.charset.MalformedInputException e) {
            throw new UsageException("--schema " + file + ": not UTF-8 text");
        }
        try {
            return CqlParser.parse(cql, table);
        } catch (SchemaException e) {
            throw new UsageException(file + ": " + e.getMessage());
        }
    }

    /**
     * A counter table is refused by name before anything is written: a counter is changed by
     * increments (a counter context per cell), which neither the operations nor the Java writer
     * express, as CQLSSTableWriter refuses counter statements.
     */
    static void refuseCounterTable(TableSchema schema, String command) throws UsageException {
        if (schema.isCounterTable()) {
            throw new UsageException("table " + schema + " is a counter table; " + command + " does not write counter tables "
                    + "(a counter is changed by increments, as CQLSSTableWriter refuses them too); dump and verify read them");
        }
    }
}

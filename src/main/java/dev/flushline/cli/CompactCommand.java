package dev.flushline.cli;

import dev.flushline.compaction.CompactionConservationException;
import dev.flushline.compaction.CompactionTask;
import dev.flushline.compaction.Compactor;
import dev.flushline.data.TokenRanges;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.CorruptSSTableException;
import dev.flushline.sstable.IncompatibleSSTableException;
import dev.flushline.sstable.Leftovers;
import dev.flushline.sstable.ReplicaPlacement;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.SSTableVersion;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code flushline compact}: a major compaction of one table's sstables into new sstables, with
 * Cassandra's log line. Inputs are only read; outputs are published only when the whole
 * compaction succeeded.
 */
public final class CompactCommand {
    private CompactCommand() {}

    static final String HELP =
            "Usage: flushline compact --schema table.cql --input DIR [--input DIR]... (--out DIR | --in-place) [options] [--json]\n"
          + "\n"
          + "Major compaction: merges every complete sstable (one with a TOC.txt) of the table found under the\n"
          + "inputs (oa, nb or da, mixed as they come) into new Cassandra 5.0 'oa' (or, with --sstable-version nb,\n"
          + "'nb') sstables under --out, in the layout the inputs use (DIR/<keyspace>/<table>-<table id>/), or in\n"
          + "place (which also converts a directory's sstables from one version to another). Rows reconcile as\n"
          + "Cassandra 5.0 reconciles them (newest timestamp, tombstones win ties, then expiry, then value bytes);\n"
          + "whatever a partition, range, row or complex deletion shadows is dropped; TTL cells that have expired\n"
          + "become tombstones; tombstones whose local deletion time is older than now - gc grace are purged (every\n"
          + "sstable of the table takes part, so nothing elsewhere can be shadowed by them). An sstable without\n"
          + "TOC.txt is not read: a line names it, it is never deleted unless our own lock proves it an interrupted\n"
          + "publish of ours, and no tombstone is purged while one is left out. Inputs are never modified (except\n"
          + "by a successful --in-place, which replaces them).\n"
          + "\n"
          + "Options:\n"
          + "  --schema FILE                 the table's schema: its CREATE TABLE, with the CREATE TYPE statements it\n"
          + "                                uses; a whole DESCRIBE KEYSPACE output is fine (required)\n"
          + "  --table NAME                  the table (t or ks.t) when the schema file defines several. A counter\n"
          + "                                table is refused (counter cells merge by their contexts, not done)\n"
          + "  --input DIR                   a table directory (<ks>/<table>-<id>/ holding sstables) or a folder\n"
          + "                                holding <ks>/<table>-<id>/; repeat for more (required)\n"
          + "  --out DIR                     where the output table directory is created (required unless\n"
          + "                                --in-place); it must not be an input table directory\n"
          + "  --now EPOCH_SECONDS           the clock for TTL expiry and gc grace (default: the wall clock)\n"
          + "  --gc-grace SECONDS            tombstones older than now - SECONDS are purged (default: the table's\n"
          + "                                gc_grace_seconds, 864000 = 10 days when the schema does not set it); a\n"
          + "                                value below the table's is printed, since purging a tombstone before\n"
          + "                                every replica has it can bring deleted data back. With the table's\n"
          + "                                compaction option only_purge_repaired_tombstones, nothing is purged\n"
          + "                                unless every input is repaired\n"
          + "  --compression CODEC           lz4, zstd, snappy, deflate, noop or none: the outputs' codec, with its\n"
          + "                                defaults at the table's chunk length (default: the table's compression;\n"
          + "                                a table without compression options gets LZ4 with 16 KiB chunks)\n"
          + "  --ranges N                    split the output into N equal token ranges, one sstable or more each\n"
          + "                                (1..4096, default 1)\n"
          + "  --split-tokens T1,T2,...      or: output ranges that start at these tokens (strictly increasing)\n"
          + "  --max-sstable-size-mb N       start a new sstable at the next partition once one holds N MiB of\n"
          + "                                (uncompressed) data (default: no limit)\n"
          + "  --threads N                   compact N slices of the token ring on N threads (1..256, default 1);\n"
          + "                                slices start at output split tokens when there are enough of them,\n"
          + "                                else at N equal ranges, so there is at least one sstable per slice\n"
          + RingOption.HELP
          + "                                nor --split-tokens or --in-place\n"
          + EngineOptions.SSTABLE_VERSION_HELP
          + "                                (nb: inputs with a later expiry or tombstone are refused, by file\n"
          + "                                and time, before any sstable is written, also with --in-place). With\n"
          + "                                --in-place the outputs replace inputs of any version: a conversion\n"
          + "                                in place, through the transaction log like any compaction\n"
          + "  --in-place                    replace the inputs in their own table directory instead of writing\n"
          + "                                to --out (then not given): one --input table directory, its sstables\n"
          + "                                of any version (oa, nb, da, mixed); the outputs and the removal of\n"
          + "                                the inputs go through a transaction log in Cassandra 5.0's format\n"
          + "                                (each record names its sstable's own version), so a crash at any\n"
          + "                                moment leaves either all the inputs or all the outputs, and the next\n"
          + "                                open (or a Cassandra node) completes or rolls back. Opening the\n"
          + "                                directory for writing\n"
          + "                                removes what our crashed writers left (staging files, our locks, the\n"
          + "                                TOC-less files of a publish our lock shows was cut short, our\n"
          + "                                unfinished logs). Only one in-place compaction of a directory runs at\n"
          + "                                a time (also against a node's background compaction): another is\n"
          + "                                refused by name\n"
          + "  --despite-incomplete          with --in-place: compact even though the directory holds unfinished files\n"
          + "                                that are not ours (an sstable without TOC.txt, another writer's\n"
          + "                                transaction log), which are otherwise refused: they are left as they are\n"
          + "                                and not read, and no tombstone is purged, since they may hold data a\n"
          + "                                tombstone shadows\n"
          + "  --json                        print one JSON object on stdout at the end (the lines below go to stderr\n"
          + "                                then): command, status, table, input_sstables, sstables_written,\n"
          + "                                input_partitions, input_rows, output_partitions, output_rows,\n"
          + "                                input_data_bytes, output_data_bytes, cells_read, cells_written,\n"
          + "                                cells_merged_away, cells_purged, compaction_wall_ms, compaction_cpu_ms (the\n"
          + "                                working threads), allocated_bytes, purges_tombstones, removed_leftovers and\n"
          + "                                incomplete_left_alone (paths), placed (with --ring), wall_ms, cpu_ms (the\n"
          + "                                process), error (when status is not 0). stdout holds exactly that object,\n"
          + "                                also on a usage error\n"
          + "\n"
          + "Output, one line per compaction, as Cassandra logs it:\n"
          + "  Compacted (ID) N sstables to [PATHS] to level=0. 226.600MiB to 180.000MiB (~79% of original) in\n"
          + "  2,345ms. Read Throughput = 96.63MiB/s, Write Throughput = 76.76MiB/s, Row Throughput = ~1,105,000/s.\n"
          + "  258,735 total partitions merged to 258,735. Partition merge counts were {1:258735, }. Time spent\n"
          + "  writing keys = 2,100ms\n"
          + "then 'cpu time: N ms, allocated: X MiB' (CPU and heap allocation of the threads that did the work),\n"
          + "and 'cells: read R, written W, merged away M, purged P' (the conservation check: R = W + M + P).\n"
          + "\n"
          + "Exit status: 0 ok, 1 bad input or usage (a file that is not a compatible oa sstable, a header that does\n"
          + "not fit the schema, a corrupt input with its byte offset), 2 internal or I/O failure. On 1 or 2 nothing\n"
          + "is published.\n";

    static final Set<String> WITH_VALUE = Set.of("schema", "table", "out", "now", "gc-grace", "compression", "ranges",
            "split-tokens", "max-sstable-size-mb", "threads", EngineOptions.SSTABLE_VERSION_OPTION, RingOption.OPTION);
    static final String DESPITE_INCOMPLETE = "despite-incomplete";
    static final Set<String> FLAGS = Set.of("in-place", DESPITE_INCOMPLETE, JsonSummary.FLAG);

    public static int run(String[] argv, InputStream stdin, PrintStream out, PrintStream err) {
        if (Args.wantsHelp(argv)) {
            out.print(HELP);
            return 0;
        }
        JsonSummary summary = JsonSummary.ifRequested("compact", argv);
        return JsonSummary.finish(summary, run(argv, JsonSummary.humanOut(summary, out, err), err, summary), out);
    }

    private static int run(String[] argv, PrintStream out, PrintStream err, JsonSummary summary) {
        try {
            return compact(argv, out, summary);
        } catch (UsageException e) {
            JsonSummary.report(summary, err, "flushline compact: " + e.getMessage());
            return 1;
        } catch (CompactionTask.Busy e) {
            JsonSummary.report(summary, err, "flushline compact: refused: " + e.getMessage() + "; nothing was changed");
            return 1;
        } catch (IncompatibleSSTableException e) {
            JsonSummary.report(summary, err, "flushline compact: refused " + e.getMessage() + "; nothing was published");
            return 1;
        } catch (CorruptSSTableException e) {
            JsonSummary.report(summary, err, "flushline compact: corrupt input " + e.getMessage() + "; nothing was published");
            return 1;
        } catch (CompactionConservationException e) {
            JsonSummary.report(summary, err, "flushline compact: " + e.getMessage() + "; nothing was published");
            return 2;
        } catch (IOException e) {
            JsonSummary.report(summary, err, "flushline compact: I/O error: " + dev.flushline.io.IoErrors.withCause(e)
                    + "; nothing was published");
            return 2;
        } catch (RuntimeException e) {
            JsonSummary.report(summary, err, "flushline compact: internal error: " + e + "; nothing was published");
            return 2;
        }
    }

    private static int compact(String[] argv, PrintStream out, JsonSummary summary) throws UsageException, IOException {
        java.util.Set<String> withValue = new java.util.HashSet<>(WITH_VALUE);
        withValue.add("input");
        Args args = new Args("compact", argv, new Args.Spec(withValue, FLAGS).repeatable(Set.of("input")));
        List<String> inputs = args.all("input");
        if (inputs.isEmpty()) throw new UsageException("missing --input (see flushline compact --help)");
        TableSchema schema = LoadCommand.readSchema(args.required("schema"), args.has("table") ? args.required("table") : null);
        if (schema.isCounterTable()) {
            throw new UsageException("table " + schema + " is a counter table; compact refuses it before writing anything: "
                    + "counter cells merge by their counter contexts (Cassandra's counter-context merge), which Flushline "
                    + "does not implement (dump and verify read counter sstables)");
        }
        boolean inPlace = args.has("in-place");
        if (inPlace && args.has("out")) throw new UsageException("--in-place writes into the input table directory; drop --out");
        Path outRoot = inPlace ? null : Path.of(args.required("out"));
        long now = args.longValue("now", System.currentTimeMillis() / 1000, 0, 0xFFFFFFFFL);
        long gcGrace = args.longValue("gc-grace", schema.gcGraceSeconds(), 0, Integer.MAX_VALUE);
        if (gcGrace < schema.gcGraceSeconds()) {
            out.println("gc grace: " + gcGrace + " s (--gc-grace), below the table's gc_grace_seconds of " + schema.gcGraceSeconds()
                    + " s: tombstones deleted before " + (now - gcGrace) + " (epoch seconds) are purged");
        }
        if (args.has("compression")) schema = EngineOptions.withCompression(schema, EngineOptions.compressionChoice(args));
        if (args.has("ranges") && args.has("split-tokens")) throw new UsageException("--ranges and --split-tokens exclude each other");
        dev.flushline.data.TokenRing ring = RingOption.read(args);
        if (ring != null && (inPlace || args.has("ranges") || args.has("split-tokens"))) {
            throw new UsageException("--ring writes one directory per node under --out, split at the ring's ranges; drop "
                    + (inPlace ? "--in-place" : args.has("ranges") ? "--ranges" : "--split-tokens"));
        }
        long[] splits = ring != null ? ring.splitTokens() : args.has("split-tokens") ? parseTokens(args.required("split-tokens"))
                : TokenRanges.evenSplits(args.intValue("ranges", 1, 1, 4096));
        long maxMb = args.longValue("max-sstable-size-mb", 0, 1, 1L << 30);
        int threads = args.intValue("threads", 1, 1, 256);
        SSTableVersion version = EngineOptions.sstableVersion(args);

        // Inputs: table directories, their complete sstables, and the unfinished files we leave alone.
        List<Path> tableDirs = new ArrayList<>();
        for (String in : inputs) tableDirs.addAll(tableDirs(Path.of(in), schema));
        if (inPlace && threads > 1) throw new UsageException("--in-place with --threads above 1 is not available yet");
        if (inPlace && tableDirs.size() != 1) {
            throw new UsageException("--in-place needs exactly one input table directory; found " + tableDirs);
        }
        // With a ring, the compaction publishes under the staging root and its outputs are placed into the node directories.
        Path writeRoot = ring == null ? outRoot : ReplicaPlacement.stagingRoot(outRoot);
        Path outTable = inPlace ? tableDirs.get(0) : schema.directoryUnder(writeRoot);
        if (!inPlace) {
            List<Path> written = new ArrayList<>(List.of(outTable));
            for (int i = 0; ring != null && i < ring.nodeCount(); i++) {
                written.add(schema.directoryUnder(ReplicaPlacement.nodeRoot(outRoot, ring.node(i).address())));
            }
            for (Path dir : tableDirs) {
                for (Path w : written) {
                    if (isSameOrInside(w, dir) || isSameOrInside(dir, w)) {
                        throw new UsageException("--out " + outRoot + " would write " + w + ", which is or shares input table directory "
                                + dir + "; compact into another directory (or use --in-place)");
                    }
                }
            }
        }
        // In place, taking the folder first recovers interrupted transactions of ours and removes what our
        // crashed writers left; what is not provably ours is left alone.
        CompactionTask.InPlace target = inPlace ? CompactionTask.inPlace(outTable) : null;
        try {
            List<Path> incomplete = new ArrayList<>();
            if (inPlace) {
                for (Path removed : target.removedLeftovers()) {
                    out.println("removed leftover " + removed);
                    if (summary != null) summary.list("removed_leftovers").add(removed.toString());
                }
                incomplete.addAll(target.incomplete());
                if (!incomplete.isEmpty() && !args.has(DESPITE_INCOMPLETE)) {
                    StringBuilder why = new StringBuilder();
                    for (Path p : incomplete) why.append("\n  ").append(Leftovers.describe(p));
                    throw new UsageException("--in-place refused: " + outTable + " holds unfinished files that are not ours:" + why
                            + "\nan in-place compaction replaces every sstable it reads, and these would be left out of it."
                            + " Finish or remove them, or pass --" + DESPITE_INCOMPLETE + " to compact the rest and keep every"
                            + " tombstone");
                }
            } else {
                for (Path dir : tableDirs) incomplete.addAll(SSTableFiles.withoutToc(dir));
            }
            for (Path p : incomplete) {
                out.println(Leftovers.describe(p));
                if (summary != null) summary.list("incomplete_left_alone").add(p.toString());
            }
            List<SSTableFiles> sstables = new ArrayList<>();
            for (Path dir : tableDirs) sstables.addAll(SSTableFiles.inDirectory(dir));
            if (sstables.isEmpty()) throw new UsageException("no complete sstable of " + schema.keyspace() + "." + schema.name() + " under " + inputs);

            long gcBefore = now - gcGrace;
            if (!incomplete.isEmpty()) {
                // Files left out may hold data that a tombstone of the inputs shadows: keep every tombstone.
                gcBefore = Long.MIN_VALUE;
                out.println("no tombstone is purged: the files left alone above may hold data the tombstones shadow");
            }
            Compactor.Options o = Compactor.Options.builder(now, gcBefore).splitTokens(splits).maxSSTableBytes(maxMb * 1024 * 1024)
                    .version(version).build();
            if (summary != null) {
                summary.put("table", schema.keyspace() + "." + schema.name());
                List<Object> in = summary.list("input_sstables");
                for (SSTableFiles f : sstables) in.add(f.path(Component.DATA).toString());
                summary.put("purges_tombstones", gcBefore != Long.MIN_VALUE);
            }
            int status = run(schema, sstables, o, threads, inPlace, target, outTable, out, summary);
            if (ring != null) RingOption.placed(RingOption.place(outTable, ring, outRoot, out), summary);
            return status;
        } finally {
            if (target != null) target.close();
        }
    }

    private static int run(TableSchema schema, List<SSTableFiles> sstables, Compactor.Options o, int threads,
                           boolean inPlace, CompactionTask.InPlace target, Path outTable, PrintStream out, JsonSummary summary)
            throws IOException {
        long t0 = System.nanoTime();
        Compactor.Result r = inPlace
                ? target.replace(schema, sstables, o, threads)
                : CompactionTask.writeTo(schema, sstables, o, threads, outTable);
        long wallNanos = System.nanoTime() - t0;
        long cpuNanos = r.threadCpuNanos + r.ioCpuNanos;
        long allocated = r.threadAllocatedBytes + r.ioAllocatedBytes;

        out.println(logLine(r, wallNanos));
        out.printf(Locale.ROOT, "cpu time: %d ms, allocated: %.1f MiB%n", cpuNanos / 1_000_000, allocated / (1024.0 * 1024.0));
        out.printf(Locale.ROOT, "cells: read %d, written %d, merged away %d, purged %d%n", r.cellsRead, r.cellsWritten,
                r.cellsMergedAway, r.cellsPurged);
        out.flush();
        if (summary != null) {
            List<Object> written = summary.list("sstables_written");
            for (Path p : r.published) written.add(p.toString());
            summary.put("input_partitions", r.inputPartitions);
            summary.put("input_rows", r.inputRows);
            summary.put("output_partitions", r.outputPartitions);
            summary.put("output_rows", r.outputRows);
            summary.put("input_data_bytes", r.inputDataBytes);
            summary.put("output_data_bytes", r.outputDataBytes);
            summary.put("cells_read", r.cellsRead);
            summary.put("cells_written", r.cellsWritten);
            summary.put("cells_merged_away", r.cellsMergedAway);
            summary.put("cells_purged", r.cellsPurged);
            summary.put("compaction_wall_ms", wallNanos / 1_000_000);
            // The threads that did the work (CPU and allocation), beside the process's cpu_ms the summary adds.
            summary.put("compaction_cpu_ms", cpuNanos / 1_000_000);
            summary.put("allocated_bytes", allocated);
        }
        return 0;
    }

    /** Cassandra's CompactionTask line (a major compaction writes level 0). */
    static String logLine(Compactor.Result r, long wallNanos) {
        return dev.flushline.compaction.CompactionLog.line(r, wallNanos, 0);
    }

    static long[] parseTokens(String list) throws UsageException {
        String[] parts = list.split(",");
        long[] out = new long[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                out[i] = Long.parseLong(parts[i].trim());
            } catch (NumberFormatException e) {
                throw new UsageException("--split-tokens: '" + parts[i] + "' is not a token (a signed 64-bit integer)");
            }
        }
        try {
            TokenRanges.checkSplits(out);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--split-tokens " + list + ": " + e.getMessage());
        }
        return out;
    }

    /** {@code dir} itself when it holds sstable files, else its {@code <ks>/<table>-<id>} directories. */
    static List<Path> tableDirs(Path dir, TableSchema schema) throws UsageException, IOException {
        if (!Files.isDirectory(dir)) throw new UsageException("--input " + dir + ": no such directory");
        if (holdsSSTables(dir)) return List.of(dir);
        List<Path> out = new ArrayList<>();
        Path ks = dir.resolve(schema.keyspace());
        if (Files.isDirectory(ks)) {
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(ks, schema.name() + "-*")) {
                for (Path p : ds) {
                    if (Files.isDirectory(p) && p.getFileName().toString().matches(java.util.regex.Pattern.quote(schema.name()) + "-[0-9a-f]{32}")) {
                        out.add(p);
                    }
                }
            }
        }
        if (out.isEmpty()) {
            throw new UsageException("--input " + dir + ": no sstables, and no " + schema.keyspace() + "/" + schema.name() + "-<id>/ directory in it");
        }
        out.sort(null);
        return out;
    }

    private static boolean holdsSSTables(Path dir) throws IOException {
        return SSTableFiles.anyIn(dir);
    }

    /**
     * Whether {@code path} is {@code dir} or lies inside it, comparing real paths where they exist (so
     * symbolic links and {@code ..} cannot hide that two names are one directory).
     */
    static boolean isSameOrInside(Path path, Path dir) throws IOException {
        return real(path).startsWith(real(dir));
    }

    /** The real path of {@code p}: of its deepest existing ancestor, with the rest appended. */
    private static Path real(Path p) throws IOException {
        Path abs = p.toAbsolutePath().normalize();
        Path existing = abs;
        while (existing != null && !Files.exists(existing)) existing = existing.getParent();
        if (existing == null) return abs;
        return existing.toRealPath().resolve(existing.relativize(abs));
    }
}

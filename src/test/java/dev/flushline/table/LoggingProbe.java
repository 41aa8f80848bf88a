package dev.flushline.table;

import dev.flushline.cli.CliLogging;
import dev.flushline.flush.FlushJob;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.testing.RandomUpdates;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * A child JVM's main (LoggingClassPathTest, ArchiveIT): runs the table through every kind of line it
 * says on its own (leftovers removed: info; a file left alone: warn; the replay summary: info; a
 * flush that fails: error, twice) in {@code args[0]}, which it empties first, so that two runs say
 * the same words. {@code args[1]} is how the lines go:
 * <ul>
 * <li>{@code library}: no hook, no configuration: what a program using the library gets.</li>
 * <li>{@code cli}: no hook, the command line's logging installed (CliLogging), as Main does.</li>
 * <li>{@code hooks}: a hook printing each line on stderr, the library's default before SLF4J.</li>
 * </ul>
 */
public final class LoggingProbe {
    static final String CQL = "CREATE TABLE ks.p (pk int, ck int, v text, PRIMARY KEY (pk, ck)) WITH compression = {'enabled': 'false'}";

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]);
        String mode = args[1];
        if (mode.equals("cli")) CliLogging.install();
        PrintStream err = System.err;
        Consumer<String> hook = mode.equals("hooks") ? err::println : null;
        deleteTree(root);
        TableSchema schema = CqlParser.parse(CQL);
        RandomUpdates updates = new RandomUpdates(schema, 7, 1_750_000_000L, 50, 3);

        // A writer of ours killed before TOC.txt (its lock file is still there): removed. An sstable
        // without TOC.txt and without a lock: another writer's, left alone.
        Path dir = Files.createDirectories(root.resolve("table"));
        Files.write(dir.resolve("oa-6-big-Data.db"), new byte[] {2});
        Files.createFile(dir.resolve(".flushline-oa-6.lock"));
        Files.write(dir.resolve("oa-5-big-Data.db"), new byte[] {1});
        TableOptions.Builder b = TableOptions.builder().schema(schema).directory(dir);
        if (hook != null) b.log(hook);
        try (Table t = Table.open(b.build())) {
            t.apply(updates.next());
        }

        // A commit-logged table: the replay summary.
        TableOptions.Builder d = TableOptions.builder().schema(schema).dataDir(root.resolve("data"))
                .commitLog(root.resolve("commitlog"), "batch", false);
        if (hook != null) d.log(hook);
        try (Table t = Table.open(d.build())) {
            t.apply(updates.next());
        }

        // A flush that fails, not retried: one line for the attempt, one for the flusher giving up.
        Flusher.FlushRunner failing = (m, o, dd, p) -> {
            throw new IOException("injected: No space left on device");
        };
        Flusher f = new Flusher(() -> new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP),
                FlushJob.Options.simple(Files.createDirectories(root.resolve("failing"))), Flusher.Limits.forMemtableSize(64L << 20),
                null, failing, new Flusher.FailurePolicy(0, 0, 0), hook);
        f.apply(updates.next());
        try {
            f.forceFlush();
            throw new AssertionError("the flush was to fail");
        } catch (FlusherFailedException expected) {
            // said on the log, above
        }
        f.abandon();
        System.out.flush();
        err.flush();
    }

    static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) return;
        try (Stream<Path> s = Files.walk(p)) {
            for (Path q : s.sorted(Comparator.reverseOrder()).toList()) Files.delete(q);
        }
    }
}

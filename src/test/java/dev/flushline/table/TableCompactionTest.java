package dev.flushline.table;

import dev.flushline.commitlog.CommitLog;
import dev.flushline.data.TokenRanges;
import dev.flushline.compaction.CompactionStrategyOptions;
import dev.flushline.compaction.LeveledPicker;
import dev.flushline.compaction.SSTableInfo;
import dev.flushline.compaction.Version;
import dev.flushline.compaction.VersionEdit;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.oracle.CassandraCompactor;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.Partition;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.TableDirectory;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node built on {@link Table#open} compacts in the background with each strategy when its
 * options ask for it: with and without a commit log, the table's flushes are compacted while it is
 * written, closing waits for the running compactions, and what is left reads back (merged by
 * Cassandra 5.0.9) as every update applied. Also: a leveled table reopened starts with
 * Cassandra's start-up compaction pointers in its version.
 */
class TableCompactionTest {
    static final int OPERATIONS = 4000;

    @TempDir
    Path tmp;

    static BackgroundCompactions.Settings settings(String strategy) {
        BackgroundCompactions.Settings s = new BackgroundCompactions.Settings();
        Map<String, String> o = new HashMap<>();
        o.put("class", strategy.startsWith("lcs") ? "LeveledCompactionStrategy" : "SizeTieredCompactionStrategy");
        if (strategy.endsWith("-ra")) o.put("range_aware_compaction", "true");
        // Small sizes, so that the ~200 KiB written fill levels and split by range.
        s.strategy = CompactionStrategyOptions.parse(o).withSizes(8 * 1024, 16 * 1024);
        s.ranges = TokenRanges.even(4);
        s.threads = 2;
        s.nowSeconds = () -> FlusherTest.NOW;
        return s;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"stcs", "lcs", "stcs-ra", "lcs-ra"})
    void aTableCompactsInTheBackgroundWithEachStrategy(String strategy) throws Exception {
        CassandraOracle.init();
        boolean commitLog = strategy.startsWith("lcs"); // both ways of opening a table
        Path root = tmp.resolve(strategy);
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        TableOptions.Builder b = TableOptions.builder().schema(FlusherTest.CQL).dataDir(root.resolve("data"))
                .allocation(AllocationMode.UNSLABBED_HEAP).memtableSizeBytes(48 * 1024).log(log::add).compaction(settings(strategy));
        if (commitLog) b.commitLog(new CommitLog.Options(root.resolve("cl"), CommitLog.SyncMode.PERIODIC));
        TableOptions options = b.build();
        TableSchema schema;
        List<PartitionUpdate> updates;
        BackgroundCompactions bc;
        long flushes;
        try (Table t = Table.open(options)) {
            schema = t.schema();
            bc = t.compactions();
            assertTrue(bc != null, "compaction in the options starts background compaction");
            assertEquals(commitLog, t.durable() != null);
            // BackgroundCompactionTest's workload. Not any seed: the model is one memtable, and where
            // a collection deletion equals the range deletion covering its row the model keeps it
            // while Cassandra's merge of several sstables drops it as shadowed (the same reads;
            // with seed 23 it happens, and already with flushes alone, no compaction at all).
            updates = new RandomUpdates(schema, BackgroundCompactionTest.SEED, FlusherTest.NOW, 600, 12).next(OPERATIONS);
            for (PartitionUpdate u : updates) t.apply(u);
            t.flush();
            flushes = t.flusher().flushCount();
            bc.awaitQuiescent(); // at rest before closing, so that a reopened table has nothing to do
        }
        // Closed: the running compactions finished, none starts any more.
        assertEquals(0, bc.runningCompactions());
        String where = strategy + (commitLog ? " with a commit log" : "");
        synchronized (log) {
            assertEquals(0, bc.failedCompactions(), where + ": " + bc.failure() + "\n" + String.join("\n", log));
        }
        assertTrue(flushes >= 4, where + ": enough flushes to compact: " + flushes);
        assertTrue(bc.compactionsDone() >= 1, where + ": compacted in the background: " + bc.compactionsDone());
        int compactedLines = 0;
        synchronized (log) {
            for (String line : log) if (line.startsWith("Compacted (")) compactedLines++;
        }
        assertEquals(bc.compactionsDone(), compactedLines, where + ": one log line per compaction, in the table's log");

        Path tableDir = schema.directoryUnder(options.dataDir);
        List<SSTableFiles> live = SSTableFiles.inDirectory(tableDir);
        assertEquals(bc.version().size(), live.size(), where + ": the version is what is on disk");
        assertTrue(live.size() < flushes, where + ": fewer sstables than flushes");
        if (strategy.endsWith("-ra")) {
            int inOneRange = 0;
            for (SSTableInfo s : bc.version().sstables()) if (settings(strategy).ranges.rangeOf(s.firstToken(), s.lastToken()) != TokenRanges.SPANNING) inOneRange++;
            assertTrue(inOneRange > 0, where + ": split by range: " + bc.version());
        }

        List<Path> data = new ArrayList<>();
        for (SSTableFiles f : live) data.add(f.path(Component.DATA));
        Path merged = CassandraCompactor.compact(data, FlusherTest.CQL, root.resolve("merged"), FlusherTest.NOW, FlusherTest.NOW - 864_000);
        List<Partition> got = new ArrayList<>(CassandraReader.readAll(merged, FlusherTest.CQL));
        got.sort((x, y) -> PartitionKey.of(x.key().toArray()).compareTo(PartitionKey.of(y.key().toArray())));
        assertEquals(FlusherTest.expected(schema, updates), got, where + ": every update reads back");

        if (strategy.equals("lcs")) {
            // Reopened, the version carries the start-up pointers (after the newest sstable of each next level).
            List<SSTableInfo> infos = new ArrayList<>();
            for (SSTableFiles f : live) infos.add(BackgroundCompactions.describe(f, schema));
            VersionEdit expected = LeveledPicker.startupPointers(infos, TokenRanges.SPANNING);
            assertTrue(expected.pointerCount() > 0, where + ": levels above L0 at rest: " + bc.version());
            BackgroundCompactions again = BackgroundCompactions.open(schema, TableDirectory.open(tableDir), settings(strategy), log::add);
            again.awaitQuiescent();
            again.close();
            assertEquals(0, again.compactionsDone(), where + ": at rest after reopening");
            Version v = again.version();
            for (int i = 0; i < expected.pointerCount(); i++) {
                int level = expected.pointerLevel(i);
                assertTrue(v.hasCompactPointer(TokenRanges.SPANNING, level), where + ": pointer of L" + level + " set at start");
                assertEquals(expected.pointerToken(i), v.compactPointer(TokenRanges.SPANNING, level), where + ": pointer of L" + level);
            }
        }
    }

    /**
     * A table that flushes nb (for a Cassandra 4 cluster) compacts into nb: its compactions replace
     * nb inputs through the transaction log and write the table's version, never oa.
     */
    @org.junit.jupiter.api.Test
    void anNbTableCompactsIntoNb() throws Exception {
        CassandraOracle.init();
        Path root = tmp.resolve("nb");
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        TableOptions options = TableOptions.builder().schema(FlusherTest.CQL).dataDir(root.resolve("data"))
                .allocation(AllocationMode.UNSLABBED_HEAP).memtableSizeBytes(48 * 1024).log(log::add).compaction(settings("stcs"))
                .sstableVersion(dev.flushline.sstable.SSTableVersion.NB).build();
        BackgroundCompactions bc;
        TableSchema schema;
        List<PartitionUpdate> updates;
        try (Table t = Table.open(options)) {
            schema = t.schema();
            bc = t.compactions();
            updates = new RandomUpdates(schema, BackgroundCompactionTest.SEED, FlusherTest.NOW, 600, 12).next(OPERATIONS);
            for (PartitionUpdate u : updates) t.apply(u);
            t.flush();
            bc.awaitQuiescent();
        }
        synchronized (log) {
            assertEquals(0, bc.failedCompactions(), bc.failure() + "\n" + String.join("\n", log));
        }
        synchronized (log) {
            assertTrue(bc.compactionsDone() >= 1, "compacted in the background: " + bc.compactionsDone() + "\n" + String.join("\n", log));
        }
        List<SSTableFiles> live = SSTableFiles.inDirectory(schema.directoryUnder(options.dataDir));
        for (SSTableFiles f : live) {
            assertEquals(dev.flushline.sstable.SSTableVersion.NB, f.version(), f.path(Component.DATA).toString());
        }
        List<Path> data = new ArrayList<>();
        for (SSTableFiles f : live) data.add(f.path(Component.DATA));
        Path merged = CassandraCompactor.compact(data, FlusherTest.CQL, root.resolve("merged"), FlusherTest.NOW, FlusherTest.NOW - 864_000);
        Path reference = CassandraCompactor.compact(flushedAsOa(schema, updates, root.resolve("oa")), FlusherTest.CQL, root.resolve("oa-merged"),
                FlusherTest.NOW, FlusherTest.NOW - 864_000);
        assertEquals(CassandraReader.readAll(reference, FlusherTest.CQL), CassandraReader.readAll(merged, FlusherTest.CQL),
                "the nb table's sstables hold what one oa flush of the same updates holds");
    }

    /** The updates applied to one memtable and flushed as oa into {@code dir}: its Data.db. */
    private static List<Path> flushedAsOa(TableSchema schema, List<PartitionUpdate> updates, Path dir) throws Exception {
        dev.flushline.memtable.Memtable m = new dev.flushline.memtable.SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP);
        for (PartitionUpdate u : updates) m.apply(u);
        m.seal();
        try {
            return List.of(new dev.flushline.flush.FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), TableDirectory.open(dir),
                    true, null, 0).dataPath);
        } finally {
            m.discard();
        }
    }
}

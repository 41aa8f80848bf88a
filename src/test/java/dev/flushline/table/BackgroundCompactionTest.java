package dev.flushline.table;

import dev.flushline.data.TokenRanges;
import dev.flushline.compaction.CompactionStrategyOptions;
import dev.flushline.compaction.SSTableInfo;
import dev.flushline.compaction.Version;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.flush.FlushJob;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.oracle.CassandraCompactor;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.Partition;
import dev.flushline.schema.CqlParser;
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
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Background compaction wired into the table: four writer threads, small memtables, flushes that
 * publish while two compaction threads merge what earlier flushes wrote. Nothing may be lost or
 * changed: at rest, the live sstables merged by Cassandra 5.0.9's own compaction (they overlap)
 * read back exactly as one model memtable that took every operation. Each writer owns its keys,
 * so the order of writes to one partition is the same in the node and in the model.
 *
 * <p>Also: the table's version is the set of sstables on disk; leveled outputs carry their level
 * in Statistics.db (read back by cassandra-all), so a restart rebuilds the same version, with
 * levels, and finds nothing to do.
 */
class BackgroundCompactionTest {
    static final int WRITERS = 4;
    static final int OPERATIONS = 12_000;
    static final long SEED = 41;
    static final String STRESS_CQL = "CREATE TABLE stress.stress_table (pk bigint, ck int, v1 text, v2 text, v3 text, v4 text, v5 text, "
            + "PRIMARY KEY (pk, ck)) WITH compression = {'enabled': 'false'}";

    @TempDir
    Path tmp;

    static BackgroundCompactions.Settings settings(String strategy) {
        BackgroundCompactions.Settings s = new BackgroundCompactions.Settings();
        if (strategy.equals("lcs")) {
            // 8 KiB sstables so that the ~150 KiB left at rest fill two levels.
            s.strategy = CompactionStrategyOptions.parse(Map.of("class", "LeveledCompactionStrategy")).withSizes(8 * 1024, 0);
        } else {
            s.strategy = CompactionStrategyOptions.parse(Map.of("class", "SizeTieredCompactionStrategy"));
        }
        s.threads = 2;
        s.nowSeconds = () -> FlusherTest.NOW;
        return s;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"stcs", "lcs"})
    void concurrentWritesFlushesAndCompactionsLoseNothing(String strategy) throws Exception {
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse(FlusherTest.CQL);
        RandomUpdates gen = new RandomUpdates(schema, SEED, FlusherTest.NOW, 600, 12);
        List<PartitionUpdate> updates = gen.next(OPERATIONS);
        // Each writer owns the keys whose hash falls to it, and applies them in list order.
        List<List<PartitionUpdate>> perWriter = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) perWriter.add(new ArrayList<>());
        for (PartitionUpdate u : updates) perWriter.get(Math.floorMod(u.key().hashCode(), WRITERS)).add(u);

        List<String> log = Collections.synchronizedList(new ArrayList<>());
        Flusher flusher = new Flusher(() -> new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP), FlushJob.Options.simple(tmp),
                new Flusher.Limits(192 * 1024, 192 * 1024, 0.5), null);
        BackgroundCompactions bc = BackgroundCompactions.start(flusher, settings(strategy), log::add);
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            List<PartitionUpdate> mine = perWriter.get(w);
            Thread t = new Thread(() -> {
                try {
                    for (PartitionUpdate u : mine) flusher.apply(u);
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "writer-" + w);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join(300_000);
            assertFalse(t.isAlive(), t.getName() + " is stuck");
        }
        assertEquals(List.of(), failures);
        flusher.close();
        bc.awaitQuiescent();
        bc.close();

        String where = strategy + " (seed " + SEED + ")";
        assertEquals(0, bc.failedCompactions(), where + ": " + bc.failure() + "\n" + String.join("\n", log));
        assertTrue(bc.compactionsDone() >= 3, where + ": compactions ran while writing: " + bc.compactionsDone());
        assertTrue(flusher.flushCount() > bc.version().size(), where + ": fewer sstables than flushes");
        for (String line : log) assertTrue(line.startsWith("Compacted (") && line.contains(" Picked: "), "log line: " + line);
        assertEquals(bc.compactionsDone(), log.size(), "one log line per compaction");

        // The version is what is on disk; levels come back from Statistics.db (ours and Cassandra's reading).
        Path tableDir = schema.directoryUnder(tmp);
        Version v = bc.version();
        List<SSTableFiles> live = SSTableFiles.inDirectory(tableDir);
        assertEquals(v.size(), live.size(), where + ": version " + v + " vs disk " + live);
        Map<Integer, SSTableInfo> byGen = new HashMap<>();
        for (SSTableInfo s : v.sstables()) byGen.put(s.generation(), s);
        int maxLevel = 0;
        try (CassandraReader r = CassandraReader.open(tableDir, FlusherTest.CQL)) {
            for (CassandraReader.SSTable s : r.sstables()) {
                SSTableInfo info = byGen.get(Integer.parseInt(s.descriptor().id.toString()));
                assertTrue(info != null, "on disk but not in the version: " + s.dataFile());
                assertEquals(info.level(), s.rawStats().sstableLevel, "level of " + s.dataFile());
                maxLevel = Math.max(maxLevel, info.level());
            }
        }
        if (strategy.equals("lcs")) {
            assertTrue(maxLevel >= 2, where + ": leveled compaction reached L2: " + v);
            for (int level = 1; level <= SSTableInfo.MAX_LEVEL; level++) {
                List<SSTableInfo> l = new ArrayList<>(v.level(level));
                l.sort((a, b) -> Long.compare(a.firstToken(), b.firstToken()));
                for (int i = 1; i < l.size(); i++) {
                    assertTrue(l.get(i - 1).lastToken() < l.get(i).firstToken(), "L" + level + " overlaps: " + l.get(i - 1) + ", " + l.get(i));
                }
            }
        }

        // A restart builds the same version (levels included) and finds nothing to compact.
        BackgroundCompactions again = BackgroundCompactions.open(schema, TableDirectory.open(tableDir), settings(strategy), log::add);
        again.awaitQuiescent();
        again.close();
        assertEquals(0, again.compactionsDone(), where + ": at rest after a restart");
        assertEquals(new java.util.HashSet<>(v.sstables()), new java.util.HashSet<>(again.version().sstables()), where + ": same version after restart");

        // Content: the live sstables merged by Cassandra (nothing is past gc grace) = the model memtable.
        List<Path> data = new ArrayList<>();
        for (SSTableFiles f : live) data.add(f.path(Component.DATA));
        Path merged = CassandraCompactor.compact(data, FlusherTest.CQL, tmp.resolve("merged"), FlusherTest.NOW, FlusherTest.NOW - 864_000);
        List<Partition> got = new ArrayList<>(CassandraReader.readAll(merged, FlusherTest.CQL));
        got.sort((a, b) -> PartitionKey.of(a.key().toArray()).compareTo(PartitionKey.of(b.key().toArray())));
        assertEquals(FlusherTest.expected(schema, updates), got, where + ": every operation reads back, merged across sstables");
        System.out.println("BackgroundCompactionTest " + where + ": " + flusher.flushCount() + " flushes, " + bc.compactionsDone()
                + " compactions, " + v.size() + " sstables at rest, max level " + maxLevel);
    }

    /**
     * Range-aware compaction over vnode ranges, on compaction-stress data. At rest every sstable
     * lies inside one range, or spans ranges (flushes, and the pooled outputs that hold the ranges
     * whose share was under the minimum); the part of a spanning sstable in any one range, counted
     * from its Index.db positions, is under the minimum (with 10% for the picker's estimate, which
     * assumes keys spread evenly over the sstable's span); splitting by range did happen; and
     * every written row is still there once.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"stcs", "lcs"})
    void rangeAwareOutputNeverStraddlesARangeAboveTheMinimum(String strategy) throws Exception {
        Path dir = tmp.resolve("stress");
        java.io.ByteArrayOutputStream written = new java.io.ByteArrayOutputStream();
        int rc = dev.flushline.Main.run(new String[] {"compaction-stress", "write", "--dir", dir.toString(), "--size-gb", "0.006",
                "--flush-mb", "1", "--seed", "5"}, System.in, new java.io.PrintStream(written, true), System.err);
        assertEquals(0, rc);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(" ([0-9,]+) distinct\\)").matcher(written.toString());
        assertTrue(m.find(), written.toString());
        long distinct = Long.parseLong(m.group(1).replace(",", ""));
        TableSchema schema = CqlParser.parse(STRESS_CQL);
        Path tableDir = schema.directoryUnder(dir);
        long minRange = 256 * 1024;
        BackgroundCompactions.Settings s = new BackgroundCompactions.Settings();
        Map<String, String> opts = new HashMap<>();
        opts.put("class", strategy.equals("lcs") ? "LeveledCompactionStrategy" : "SizeTieredCompactionStrategy");
        opts.put("range_aware_compaction", "true");
        s.strategy = CompactionStrategyOptions.parse(opts).withSizes(512 * 1024, minRange);
        s.ranges = TokenRanges.vnodes(8, 17);
        s.threads = 2;
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        long before = 0;
        for (SSTableFiles f : SSTableFiles.inDirectory(tableDir)) before += java.nio.file.Files.size(f.path(Component.DATA));
        BackgroundCompactions bc = BackgroundCompactions.open(schema, TableDirectory.open(tableDir), s, log::add);
        bc.awaitQuiescent();
        bc.close();
        assertEquals(0, bc.failedCompactions(), String.valueOf(bc.failure()));
        Version v = bc.version();
        int inRange = 0, spanning = 0;
        for (SSTableInfo i : v.sstables()) {
            int touched = s.ranges.rangesTouched(i.firstToken(), i.lastToken());
            if (touched == 1) {
                inRange++;
                continue;
            }
            spanning++;
            SSTableFiles f = SSTableFiles.of(tableDir.resolve(dataFileOf(tableDir, i.generation())));
            long[] perRange = bytesPerRange(f, schema, s.ranges);
            for (int r = 0; r < perRange.length; r++) {
                assertTrue(perRange[r] < minRange * 1.1, strategy + ": " + i + " holds " + perRange[r] + " bytes of range " + r
                        + ", over the minimum " + minRange + ": that range should have had an sstable of its own");
            }
        }
        int pooledSplits = 0;
        synchronized (log) {
            for (String line : log) if (line.contains("ranges pooled into one output")) pooledSplits++;
        }
        System.out.println("BackgroundCompactionTest range-aware " + strategy + ": " + bc.compactionsDone() + " compactions, "
                + pooledSplits + " splits with pooled ranges, " + inRange + " single-range and " + spanning + " spanning sstables at rest");
        assertTrue(pooledSplits > 0, strategy + ": no split pooled small ranges (the data is fixed by its seed): " + log);
        assertTrue(inRange >= s.ranges.size() / 2, strategy + ": split by range into most ranges: " + v);
        assertTrue(before > 4 * minRange, "enough data to split: " + before);
        // Conservation of rows: the stress table has no deletions; every distinct row is still there once merged.
        List<Path> data = new ArrayList<>();
        for (SSTableFiles f : SSTableFiles.inDirectory(tableDir)) data.add(f.path(Component.DATA));
        Path merged = CassandraCompactor.compact(data, STRESS_CQL, tmp.resolve("merged"), 1_800_000_000L, 0);
        long rows = 0;
        for (Partition p : CassandraReader.readAll(merged, STRESS_CQL)) rows += p.rows().size();
        assertEquals(distinct, rows, strategy + ": every written row is there, once");
    }

    /** The Data.db file name of generation {@code gen} in {@code dir}. */
    static String dataFileOf(Path dir, int gen) throws java.io.IOException {
        for (SSTableFiles f : SSTableFiles.inDirectory(dir)) {
            if (f.id().equals(Integer.toString(gen))) return f.path(Component.DATA).getFileName().toString();
        }
        throw new AssertionError("no sstable " + gen + " in " + dir);
    }

    /** Data.db bytes of each range in {@code f}, from the partitions' positions in its partition index. */
    static long[] bytesPerRange(SSTableFiles f, TableSchema schema, TokenRanges ranges) throws java.io.IOException {
        long[] bytes = new long[ranges.size()];
        dev.flushline.sstable.PartitionIndex r = dev.flushline.sstable.PartitionIndex.open(f, schema);
        long dataLength = java.nio.file.Files.size(f.path(Component.DATA));
        int prevRange = -1;
        long prevPos = 0;
        while (r.next()) {
            long token = dev.flushline.data.Murmur3.token(r.keyArray(), r.keyOffset(), r.keyLength());
            if (prevRange >= 0) bytes[prevRange] += r.dataPosition() - prevPos;
            prevRange = ranges.indexOf(token);
            prevPos = r.dataPosition();
        }
        if (prevRange >= 0) bytes[prevRange] += dataLength - prevPos;
        return bytes;
    }
}

package dev.flushline.compaction;

import dev.flushline.data.TokenRanges;
import org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy;
import org.apache.cassandra.utils.Pair;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

import static dev.flushline.compaction.Synthetic.GIB;
import static dev.flushline.compaction.Synthetic.MIB;
import static dev.flushline.compaction.Synthetic.gens;
import static dev.flushline.compaction.Synthetic.sst;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SizeTieredPickerTest {
    static final SizeTieredPicker STCS = new SizeTieredPicker(CompactionStrategyOptions.defaults(CompactionStrategyOptions.Kind.SIZE_TIERED));

    static List<SSTableInfo> sized(long... sizes) {
        List<SSTableInfo> out = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++) out.add(sst(i + 1, i * 100L, i * 100L + 50, sizes[i], 0));
        return out;
    }

    @Test
    void threeSimilarSSTablesAreNotEnoughFourAre() {
        assertNull(STCS.pick(Version.of(sized(100 * MIB, 110 * MIB, 90 * MIB))));
        CompactionPick p = STCS.pick(Version.of(sized(100 * MIB, 110 * MIB, 90 * MIB, 120 * MIB)));
        assertNotNull(p);
        assertArrayEquals(new int[] {1, 2, 3, 4}, p.inputGenerations());
        assertEquals(0, p.outputLevel());
        assertEquals(Long.MAX_VALUE, p.maxOutputBytes());
        assertEquals(0, p.splitTokens().length);
        assertEquals(TokenRanges.SPANNING, p.range());
        assertTrue(p.describe().startsWith("SizeTieredCompactionStrategy L0->L0: 4 sstables"), p.describe());
        assertTrue(p.describe().contains("size tier of 4 sstables"), p.describe());
    }

    @Test
    void bucketsSplitAtBucketHighTimesTheRunningAverage() {
        // Four of 100 MiB make an average of 100 MiB: 149 MiB is below 1.5x and joins, 151 MiB does not.
        List<List<SSTableInfo>> joined = SizeTieredPicker.buckets(sized(100 * MIB, 100 * MIB, 100 * MIB, 100 * MIB, 149 * MIB), 1.5, 0.5, 0);
        assertEquals(1, joined.size());
        List<List<SSTableInfo>> apart = SizeTieredPicker.buckets(sized(100 * MIB, 100 * MIB, 100 * MIB, 100 * MIB, 151 * MIB), 1.5, 0.5, 0);
        assertEquals(2, apart.size());
        assertArrayEquals(new int[] {5}, gens(apart.get(1)));
        // The average moves as sstables join: 100, 140 (average 120), then 175 < 180 joins too.
        assertEquals(1, SizeTieredPicker.buckets(sized(100 * MIB, 140 * MIB, 175 * MIB), 1.5, 0.5, 0).size());
        // A wider bucket_high takes in what the default leaves out.
        assertEquals(1, SizeTieredPicker.buckets(sized(100 * MIB, 100 * MIB, 100 * MIB, 100 * MIB, 151 * MIB), 2.0, 0.5, 0).size());
    }

    @Test
    void sstablesBelowMinSSTableSizeShareOneBucket() {
        // 1 MiB and 49 MiB are far apart, but both are below min_sstable_size (50 MiB).
        CompactionPick p = STCS.pick(Version.of(sized(1 * MIB, 5 * MIB, 20 * MIB, 49 * MIB)));
        assertNotNull(p);
        assertEquals(4, p.inputs().size());
        // With min_sstable_size 0 they are four tiers and nothing is compacted.
        SizeTieredPicker noMin = new SizeTieredPicker(CompactionStrategyOptions.parse(Map.of("class", "SizeTieredCompactionStrategy",
                "min_sstable_size", "0")));
        assertNull(noMin.pick(Version.of(sized(1 * MIB, 5 * MIB, 20 * MIB, 49 * MIB))));
    }

    @Test
    void aBucketOverMaxThresholdIsTrimmedToItsSmallest() {
        long[] sizes = new long[40];
        for (int i = 0; i < 40; i++) sizes[i] = 100 * MIB + (39 - i) * 1000;   // generation 40 is the smallest
        CompactionPick p = STCS.pick(Version.of(sized(sizes)));
        assertEquals(32, p.inputs().size());
        Set<Integer> expected = new HashSet<>();
        for (int g = 9; g <= 40; g++) expected.add(g);
        Set<Integer> got = new HashSet<>();
        for (int g : p.inputGenerations()) got.add(g);
        assertEquals(expected, got);
        // max_threshold 8 takes 8.
        SizeTieredPicker eight = new SizeTieredPicker(CompactionStrategyOptions.parse(Map.of("class", "SizeTieredCompactionStrategy",
                "max_threshold", "8")));
        assertEquals(8, eight.pick(Version.of(sized(sizes))).inputs().size());
    }

    @Test
    void withoutReadRatesTheBucketWithTheLargestAverageWins() {
        // Cassandra's comparator breaks equal hotness by average size, and it takes the maximum.
        List<SSTableInfo> s = new ArrayList<>(sized(1 * GIB, 1 * GIB, 1 * GIB, 1 * GIB, 10 * MIB, 10 * MIB, 10 * MIB, 10 * MIB));
        CompactionPick p = STCS.pick(Version.of(s));
        assertArrayEquals(new int[] {1, 2, 3, 4}, p.inputGenerations());
        // A bucket below min_threshold never wins, however large.
        p = STCS.pick(Version.of(sized(1 * GIB, 1 * GIB, 1 * GIB, 10 * MIB, 10 * MIB, 10 * MIB, 10 * MIB)));
        assertArrayEquals(new int[] {4, 5, 6, 7}, p.inputGenerations());
    }

    @Test
    void levelsAndTokensDoNotMatterToSizeTiering() {
        List<SSTableInfo> s = List.of(sst(1, 0, 10, 100 * MIB, 3), sst(2, 0, 10, 100 * MIB, 0),
                sst(3, 500, 900, 100 * MIB, 1), sst(4, -50, -10, 100 * MIB, 0));
        assertEquals(4, STCS.pick(Version.of(s)).inputs().size());
    }

    @Test
    void thePickCarriesThePurgeBoundOfOverlappingNonInputs() {
        List<SSTableInfo> s = new ArrayList<>(sized(100 * MIB, 100 * MIB, 100 * MIB, 100 * MIB));
        // Spans of inputs: [0,50] .. [300,350]. A big sstable overlapping [300,350] holds older data.
        s.add(new SSTableInfo(9, 340, 1000, 10 * GIB, 0, 7, 8));
        s.add(new SSTableInfo(10, 5000, 6000, 10 * GIB, 0, 1, 2));
        CompactionPick p = STCS.pick(Version.of(s));
        assertArrayEquals(new int[] {1, 2, 3, 4}, p.inputGenerations());
        assertEquals(7, p.maxPurgeableTimestamp());
    }

    /** Our tiers are Cassandra's: random sizes through SizeTieredCompactionStrategy.getBuckets. */
    @Test
    void bucketsMatchCassandrasGetBuckets() {
        long seed = 0x5eed;
        Random random = new Random(seed);
        for (int round = 0; round < 300; round++) {
            int n = 1 + random.nextInt(60);
            List<SSTableInfo> s = new ArrayList<>();
            List<Pair<Integer, Long>> pairs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                // Log-uniform sizes from 1 KiB to 64 GiB, a few repeats.
                long size = random.nextInt(8) == 0 && !s.isEmpty() ? s.get(random.nextInt(s.size())).sizeBytes()
                        : (long) Math.pow(2, 10 + random.nextDouble() * 26);
                s.add(sst(i + 1, 0, 1, size, 0));
                pairs.add(Pair.create(i + 1, size));
            }
            double low = 0.2 + random.nextDouble() * 0.6, high = 1.1 + random.nextDouble() * 2;
            long minSize = random.nextBoolean() ? 50 * MIB : (long) Math.pow(2, 10 + random.nextDouble() * 26);
            Set<Set<Integer>> ours = new HashSet<>();
            for (List<SSTableInfo> b : SizeTieredPicker.buckets(s, high, low, minSize)) {
                Set<Integer> g = new TreeSet<>();
                for (SSTableInfo x : b) g.add(x.generation());
                ours.add(g);
            }
            Set<Set<Integer>> theirs = new HashSet<>();
            for (List<Integer> b : SizeTieredCompactionStrategy.getBuckets(pairs, high, low, minSize)) theirs.add(new TreeSet<>(b));
            assertEquals(theirs, ours, "seed " + seed + " round " + round + " sizes " + pairs);
        }
    }

    @Test
    void theEstimateIsReadyTiersOverMaxThreshold() {
        long[] sizes = new long[9];
        java.util.Arrays.fill(sizes, 100 * MIB);
        assertEquals(1, STCS.estimatedRemainingTasks(Version.of(sized(sizes))));
        SizeTieredPicker four = new SizeTieredPicker(CompactionStrategyOptions.parse(Map.of("class", "SizeTieredCompactionStrategy",
                "max_threshold", "4")));
        assertEquals(3, four.estimatedRemainingTasks(Version.of(sized(sizes))));
        assertEquals(0, STCS.estimatedRemainingTasks(Version.of(sized(100 * MIB, 100 * MIB, 100 * MIB))));
    }

    @Test
    void compactingSSTablesAreLeftOut() {
        Version v = Version.of(sized(100 * MIB, 100 * MIB, 100 * MIB, 100 * MIB, 100 * MIB));
        assertArrayEquals(new int[] {2, 3, 4, 5}, STCS.pick(v, Set.of(1)).inputGenerations());
        assertNull(STCS.pick(v, Set.of(1, 2)));
    }
}

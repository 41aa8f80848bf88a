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

import static dev.flushline.compaction.Synthetic.KIB;
import static dev.flushline.compaction.Synthetic.MIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Each strategy run to rest, many times: random flushes arrive, and after each batch the picker is
 * asked again and again, its pick merged by the synthetic merge and applied, until it answers
 * none. That must happen within a bounded number of steps, every step must be a valid edit of
 * the version it was picked from, and the version at rest must satisfy the strategy's invariants.
 */
class PickerSimulationTest {
    static final int SEEDS = 12;
    static final int ROUNDS = 30;
    static final int MAX_STEPS_PER_DRAIN = 5_000;

    static final CompactionStrategyOptions STCS = CompactionStrategyOptions.parse(Map.of(
            "class", "SizeTieredCompactionStrategy", "min_sstable_size", Long.toString(4 * MIB)));
    /** Pairs of similar sizes compact, with no small-sstable tier: several tiers are often ready at once. */
    static final CompactionStrategyOptions STCS_PAIRS = CompactionStrategyOptions.parse(Map.of(
            "class", "SizeTieredCompactionStrategy", "min_threshold", "2", "min_sstable_size", "0"));
    static final CompactionStrategyOptions LCS = CompactionStrategyOptions.parse(Map.of(
            "class", "LeveledCompactionStrategy", "sstable_size_in_mb", "1", "fanout_size", "4"));
    static final CompactionStrategyOptions RA_STCS = CompactionStrategyOptions.parse(Map.of(
            "class", "SizeTieredCompactionStrategy", "min_sstable_size", Long.toString(4 * MIB),
            "range_aware_compaction", "true", "min_range_sstable_size_in_mb", "2"));
    static final CompactionStrategyOptions RA_LCS = CompactionStrategyOptions.parse(Map.of(
            "class", "LeveledCompactionStrategy", "sstable_size_in_mb", "1", "fanout_size", "4",
            "range_aware_compaction", "true", "min_range_sstable_size_in_mb", "2"));

    @Test
    void sizeTieredComesToRestWithNoReadyTier() {
        for (long seed = 1; seed <= SEEDS; seed++) {
            Version v = simulate(new SizeTieredPicker(STCS), null, seed);
            assertNoReadyTier(v.sstables(), STCS, "seed " + seed);
        }
    }

    @Test
    void leveledComesToRestWithLevelsWithinTheirScoresAndNoOverlap() {
        Stats stats = new Stats();
        for (long seed = 1; seed <= SEEDS; seed++) {
            Version v = simulate(new LeveledPicker(LCS), null, seed, stats);
            assertLeveled(v.sstables(), LCS, "seed " + seed);
        }
        assertTrue(stats.maxOutputLevel >= 3, "the simulation never filled L2: " + stats.maxOutputLevel);
    }

    @Test
    void rangeAwareComesToRestWithNoReadyTierInTheSharedBucketOrAnyRange() {
        Stats stats = new Stats();
        for (long seed = 1; seed <= SEEDS; seed++) {
            TokenRanges ranges = seed % 2 == 0 ? TokenRanges.even(8) : TokenRanges.vnodes(6, seed);
            for (CompactionStrategyOptions o : new CompactionStrategyOptions[] {RA_STCS, RA_LCS}) {
                String where = "seed " + seed + " " + o.kind() + " " + ranges;
                Version v = simulate(new RangeAwarePicker(o, ranges), ranges, seed, stats);
                List<SSTableInfo> shared = new ArrayList<>();
                List<List<SSTableInfo>> perRange = new ArrayList<>();
                for (int r = 0; r < ranges.size(); r++) perRange.add(new ArrayList<>());
                for (SSTableInfo s : v.sstables()) {
                    int r = ranges.rangeOf(s.firstToken(), s.lastToken());
                    if (r == TokenRanges.SPANNING) {
                        shared.add(s);
                    } else {
                        perRange.get(r).add(s);
                    }
                }
                assertNoReadyTier(shared, o, where + " shared bucket");
                for (int r = 0; r < ranges.size(); r++) {
                    if (o.kind() == CompactionStrategyOptions.Kind.LEVELED) assertLeveled(perRange.get(r), o, where + " range " + r);
                    else assertNoReadyTier(perRange.get(r), o, where + " range " + r);
                }
            }
        }
        assertTrue(stats.splitPicks > 0 && stats.pooledPicks > 0 && stats.rangePicks > 0 && stats.sharedPicks > 0,
                "splits " + stats.splitPicks + ", with pooled ranges " + stats.pooledPicks + ", range picks " + stats.rangePicks + ", shared-bucket picks " + stats.sharedPicks);
    }

    /**
     * Compactions at the same time: after each batch of flushes, up to three picks are made one
     * after the other, each told the earlier ones' inputs are compacting, all against the same
     * version; their edits are then applied in a random order. Their inputs must be disjoint, and
     * after every edit no level above L0 may hold overlapping sstables; at rest the invariants hold.
     */
    @Test
    void concurrentPicksShareNoInputAndKeepLevelsApart() {
        int[] concurrentBatches = new int[3];
        for (long seed = 1; seed <= SEEDS; seed++) {
            TokenRanges ranges = TokenRanges.even(4);
            Object[][] configs = {{new LeveledPicker(LCS), null, LCS}, {new RangeAwarePicker(RA_LCS, ranges), ranges, RA_LCS},
                    {new SizeTieredPicker(STCS_PAIRS), null, STCS_PAIRS}};
            for (int ci = 0; ci < configs.length; ci++) {
                Object[] c = configs[ci];
                CompactionPicker picker = (CompactionPicker) c[0];
                TokenRanges r = (TokenRanges) c[1];
                CompactionStrategyOptions o = (CompactionStrategyOptions) c[2];
                String where = "seed " + seed + " " + picker;
                Random random = new Random(seed);
                Synthetic.Generations gens = new Synthetic.Generations(1);
                Version v = Version.empty();
                for (int round = 0; round < ROUNDS; round++) {
                    v = v.apply(VersionEdit.adding(randomFlushes(random, gens, round)));
                    for (int step = 0; ; step++) {
                        if (step > MAX_STEPS_PER_DRAIN) fail(where + ": no rest");
                        Set<Integer> compacting = new HashSet<>();
                        List<VersionEdit> edits = new ArrayList<>();
                        for (int k = 0; k < 3; k++) {
                            CompactionPick p = picker.pick(v, compacting);
                            if (p == null) break;
                            checkPick(p, v, r, where);
                            for (int g : p.inputGenerations()) assertTrue(compacting.add(g), where + ": input " + g + " picked twice in " + p);
                            edits.add(p.edit(Synthetic.outputs(p, gens)));
                        }
                        if (edits.isEmpty()) break;
                        if (edits.size() > 1) concurrentBatches[ci]++;
                        java.util.Collections.shuffle(edits, random);
                        for (VersionEdit e : edits) {
                            v = v.apply(e);
                            assertNoOverlapAboveL0(v.sstables(), r, where);
                        }
                    }
                }
                if (r == null && o.kind() == CompactionStrategyOptions.Kind.LEVELED) assertLeveled(v.sstables(), o, where);
                if (r == null && o.kind() == CompactionStrategyOptions.Kind.SIZE_TIERED) assertNoReadyTier(v.sstables(), o, where);
            }
        }
        for (int ci = 0; ci < concurrentBatches.length; ci++) {
            assertTrue(concurrentBatches[ci] > 0, "configuration " + ci + " never ran two compactions at once");
        }
    }

    /** No two sstables of one level above L0 overlap (per range, when there are ranges). */
    static void assertNoOverlapAboveL0(List<SSTableInfo> sstables, TokenRanges ranges, String where) {
        for (int l = 1; l <= SSTableInfo.MAX_LEVEL; l++) {
            List<SSTableInfo> level = new ArrayList<>();
            for (SSTableInfo s : sstables) if (s.level() == l) level.add(s);
            level.sort(Version.BY_FIRST_TOKEN);
            for (int i = 1; i < level.size(); i++) {
                assertTrue(level.get(i - 1).lastToken() < level.get(i).firstToken(),
                        where + ": L" + l + " overlap " + level.get(i - 1) + " / " + level.get(i));
            }
        }
    }

    /** One batch of 1 to 6 random flushes: a third over the whole ring, the rest random spans, 64 KiB to 4 MiB. */
    static List<SSTableInfo> randomFlushes(Random random, Synthetic.Generations gens, int round) {
        List<SSTableInfo> flushed = new ArrayList<>();
        int n = 1 + random.nextInt(6);
        for (int i = 0; i < n; i++) {
            long a, b;
            if (random.nextInt(3) == 0) {
                a = Long.MIN_VALUE + random.nextInt(1000) + 1;
                b = Long.MAX_VALUE - random.nextInt(1000) - 1;
            } else {
                long x = random.nextLong(), y = random.nextLong();
                a = Math.min(x, y);
                b = Math.max(x, y);
                if (random.nextBoolean()) b = a + random.nextInt(1 << 20);
                if (b < a) b = Long.MAX_VALUE;
            }
            long size = (long) Math.pow(2, 16 + random.nextDouble() * 6);
            long clock = (round * 10L + i) * 100;
            flushed.add(new SSTableInfo(gens.next(), a, b, size, 0, clock, clock + 10));
        }
        return flushed;
    }

    /** Runs {@code picker} through {@link #ROUNDS} batches of random flushes; returns the version at rest. */
    static Version simulate(CompactionPicker picker, TokenRanges ranges, long seed) {
        return simulate(picker, ranges, seed, new Stats());
    }

    /** What kinds of picks a simulation made, so a test can tell it exercised what it claims to. */
    static final class Stats {
        int picks, splitPicks, pooledPicks, rangePicks, sharedPicks, maxOutputLevel;
    }

    static Version simulate(CompactionPicker picker, TokenRanges ranges, long seed, Stats stats) {
        Random random = new Random(seed);
        Synthetic.Generations gens = new Synthetic.Generations(1);
        Version v = Version.empty();
        long clock = 1;
        int picks = 0;
        for (int round = 0; round < ROUNDS; round++) {
            List<SSTableInfo> flushed = new ArrayList<>();
            int n = 1 + random.nextInt(6);
            for (int i = 0; i < n; i++) {
                long a, b;
                if (random.nextInt(3) == 0) {
                    // A flush over (almost) the whole ring.
                    a = Long.MIN_VALUE + random.nextInt(1000) + 1;
                    b = Long.MAX_VALUE - random.nextInt(1000) - 1;
                } else {
                    long x = random.nextLong(), y = random.nextLong();
                    a = Math.min(x, y);
                    b = Math.max(x, y);
                    if (random.nextBoolean()) b = a + random.nextInt(1 << 20);   // a narrow one
                    if (b < a) b = Long.MAX_VALUE;
                }
                long size = (long) Math.pow(2, Math.log(64 * KIB) / Math.log(2) + random.nextDouble() * 6);   // 64 KiB .. 4 MiB
                flushed.add(new SSTableInfo(gens.next(), a, b, size, 0, clock, clock + 10));
                clock += 11;
            }
            v = v.apply(VersionEdit.adding(flushed));
            int steps = 0;
            CompactionPick p;
            while ((p = picker.pick(v)) != null) {
                if (++steps > MAX_STEPS_PER_DRAIN) fail("seed " + seed + " round " + round + ": no rest after " + MAX_STEPS_PER_DRAIN + " picks; last " + p);
                checkPick(p, v, ranges, "seed " + seed + " round " + round + " step " + steps);
                List<SSTableInfo> outputs = Synthetic.outputs(p, gens);
                if (ranges != null && p.splitTokens().length > 0) checkSplitOutputs(p, outputs, ranges, picker, "seed " + seed + " round " + round);
                long before = v.totalBytes();
                v = v.apply(p.edit(outputs));
                long grew = v.totalBytes() - before;
                assertTrue(grew >= 0 && grew <= outputs.size(), "seed " + seed + ": bytes not conserved (" + grew + ") by " + p);
                picks++;
                stats.picks++;
                if (p.splitTokens().length > 0) stats.splitPicks++;
                if (p.pooledSegmentCount() > 0) stats.pooledPicks++;
                if (p.range() != TokenRanges.SPANNING) stats.rangePicks++;
                else if (ranges != null && p.splitTokens().length == 0) stats.sharedPicks++;
                stats.maxOutputLevel = Math.max(stats.maxOutputLevel, p.outputLevel());
            }
        }
        assertTrue(picks > ROUNDS / 2, "seed " + seed + ": the simulation compacted almost nothing (" + picks + " picks)");
        return v;
    }

    /**
     * A range-aware split: every output that is not the pooled one lies in one range and holds at
     * least min_range_sstable_size (the synthetic merge spreads bytes as the picker estimates
     * them, so its per-range bytes are the estimate, rounded); at most one output spans ranges.
     */
    static void checkSplitOutputs(CompactionPick p, List<SSTableInfo> outputs, TokenRanges ranges, CompactionPicker picker, String where) {
        if (!(picker instanceof RangeAwarePicker)) return;
        long min = ((RangeAwarePicker) picker).options().minRangeSSTableSizeBytes();
        boolean[] pooled = p.pooledSegments();
        int spanning = 0;
        for (SSTableInfo o : outputs) {
            int seg = p.segmentOf(o.firstToken());
            if (pooled.length > 0 && pooled[seg]) {
                if (ranges.rangeOf(o.firstToken(), o.lastToken()) == TokenRanges.SPANNING) spanning++;
                continue;
            }
            assertTrue(ranges.rangeOf(o.firstToken(), o.lastToken()) != TokenRanges.SPANNING, where + ": " + o + " straddles a range boundary, from " + p);
            assertTrue(o.sizeBytes() >= min - outputs.size(), where + ": " + o + " is a range's own output under the minimum " + min + ", from " + p);
        }
        assertTrue(spanning <= 1, where + ": " + spanning + " spanning outputs from " + p);
    }

    /** A pick's inputs are live, ranges are not mixed, and the purge bound is the brute-force one. */
    static void checkPick(CompactionPick p, Version v, TokenRanges ranges, String where) {
        Set<Integer> in = new HashSet<>();
        long lo = Long.MAX_VALUE, hi = Long.MIN_VALUE;
        for (SSTableInfo s : p.inputs()) {
            assertEquals(s, v.get(s.generation()), where + ": input not live: " + s);
            assertTrue(in.add(s.generation()), where + ": input twice: " + s);
            lo = Math.min(lo, s.firstToken());
            hi = Math.max(hi, s.lastToken());
            if (ranges != null && p.range() != TokenRanges.SPANNING) {
                assertEquals(p.range(), ranges.rangeOf(s.firstToken(), s.lastToken()), where + ": " + s + " is not in range " + p.range() + " of " + p);
            }
        }
        long bound = Long.MAX_VALUE;
        for (SSTableInfo s : v.sstables()) {
            if (!in.contains(s.generation()) && s.firstToken() <= hi && s.lastToken() >= lo) bound = Math.min(bound, s.minTimestamp());
        }
        assertEquals(bound, p.maxPurgeableTimestamp(), where + ": purge bound of " + p);
        assertTrue(p.inputs().size() >= 1 && !p.describe().isEmpty());
    }

    /** No size tier holds min_threshold sstables, by our tiers and by Cassandra's getBuckets. */
    static void assertNoReadyTier(List<SSTableInfo> sstables, CompactionStrategyOptions o, String where) {
        for (List<SSTableInfo> tier : SizeTieredPicker.buckets(sstables, o.bucketHigh(), o.bucketLow(), o.minSSTableSizeBytes())) {
            assertTrue(tier.size() < o.minThreshold(), where + ": a ready tier at rest " + tier);
        }
        List<Pair<Integer, Long>> pairs = new ArrayList<>();
        for (SSTableInfo s : sstables) pairs.add(Pair.create(s.generation(), s.sizeBytes()));
        for (List<Integer> tier : SizeTieredCompactionStrategy.getBuckets(pairs, o.bucketHigh(), o.bucketLow(), o.minSSTableSizeBytes())) {
            assertTrue(tier.size() < o.minThreshold(), where + ": Cassandra sees a ready tier at rest " + tier);
        }
    }

    /**
     * At rest: at most one L0 sstable (two or more are always compacted together); L1 to L7 within
     * their scores (L8 may exceed, as in Cassandra); no two sstables of a level L1+ overlap.
     */
    static void assertLeveled(List<SSTableInfo> sstables, CompactionStrategyOptions o, String where) {
        LeveledPicker picker = new LeveledPicker(o);
        List<List<SSTableInfo>> levels = new ArrayList<>();
        for (int l = 0; l <= SSTableInfo.MAX_LEVEL; l++) levels.add(new ArrayList<>());
        for (SSTableInfo s : sstables) levels.get(s.level()).add(s);
        assertTrue(levels.get(0).size() <= 1, where + ": L0 at rest " + levels.get(0));
        for (int l = 1; l <= SSTableInfo.MAX_LEVEL; l++) {
            List<SSTableInfo> level = levels.get(l);
            if (l < SSTableInfo.MAX_LEVEL) {
                assertTrue(picker.score(sstables, l) <= LeveledPicker.SCORE_THRESHOLD, where + ": L" + l + " score " + picker.score(sstables, l));
            }
            level.sort(Version.BY_FIRST_TOKEN);
            for (int i = 1; i < level.size(); i++) {
                assertTrue(level.get(i - 1).lastToken() < level.get(i).firstToken(),
                        where + ": L" + l + " overlap " + level.get(i - 1) + " / " + level.get(i));
            }
        }
    }
}

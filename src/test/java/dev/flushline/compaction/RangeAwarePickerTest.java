package dev.flushline.compaction;

import dev.flushline.data.TokenRanges;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.flushline.compaction.Synthetic.GIB;
import static dev.flushline.compaction.Synthetic.MIB;
import static dev.flushline.compaction.Synthetic.sst;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RangeAwarePickerTest {
    static final TokenRanges R = TokenRanges.even(4);
    /** Size-tiered per range; a range's share of a shared compaction gets its own sstable from 10 MiB. */
    static final RangeAwarePicker STCS = new RangeAwarePicker(CompactionStrategyOptions.parse(Map.of(
            "class", "SizeTieredCompactionStrategy", "range_aware_compaction", "true", "min_range_sstable_size_in_mb", "10")), R);

    static SSTableInfo inRange(int gen, int range, long size) {
        return sst(gen, R.lo(range) + 1000 + gen, R.lo(range) + 100_000 + gen, size, 0);
    }

    /** An sstable over ranges 0, 1 and 2. */
    static SSTableInfo spanning(int gen, long size) {
        return sst(gen, R.lo(0) + 10 + gen, R.lo(2) + 10 + gen, size, 0);
    }

    @Test
    void smallSpanningSSTablesWaitInTheSharedBucketAndAreSizeTieredThere() {
        List<SSTableInfo> s = new ArrayList<>(List.of(spanning(1, MIB), spanning(2, MIB), spanning(3, MIB)));
        assertNull(STCS.pick(Version.of(s)));
        s.add(spanning(4, 2 * MIB));
        Version v = Version.of(s);
        CompactionPick p = STCS.pick(v);
        assertArrayEquals(new int[] {1, 2, 3, 4}, p.inputGenerations());
        assertEquals(TokenRanges.SPANNING, p.range());
        assertEquals(0, p.splitTokens().length, "5 MiB together: not worth splitting");
        assertTrue(p.reason().contains("shared bucket"), p.reason());
        Version next = v.apply(p.edit(Synthetic.outputs(p, new Synthetic.Generations(10))));
        assertEquals(1, next.size());
        assertEquals(TokenRanges.SPANNING, STCS.bucketOf(next.sstables().get(0)));
    }

    @Test
    void theSharedBucketGoesBeforeTheRanges() {
        List<SSTableInfo> s = new ArrayList<>();
        for (int i = 1; i <= 4; i++) s.add(inRange(i, 1, 100 * MIB));
        for (int i = 5; i <= 8; i++) s.add(spanning(i, MIB));
        Version v = Version.of(s);
        CompactionPick p = STCS.pick(v);
        assertArrayEquals(new int[] {5, 6, 7, 8}, p.inputGenerations());
        v = v.apply(p.edit(Synthetic.outputs(p, new Synthetic.Generations(20))));
        CompactionPick q = STCS.pick(v);
        assertEquals(1, q.range());
        assertArrayEquals(new int[] {1, 2, 3, 4}, q.inputGenerations());
    }

    @Test
    void aSharedTierIsSplitWhereARangesShareReachesTheMinimum() {
        // Four sstables of 6 MiB over ranges 0, 1 and 2: about 12 MiB each for ranges 0 and 1, a
        // few bytes for range 2 (it holds only the last 10 + gen tokens of each span).
        List<SSTableInfo> s = new ArrayList<>();
        for (int i = 1; i <= 4; i++) s.add(spanning(i, 6 * MIB));
        Version v = Version.of(s);
        CompactionPick p = STCS.pick(v);
        assertArrayEquals(new long[] {R.lo(1), R.lo(2)}, p.splitTokens());
        assertArrayEquals(new boolean[] {false, false, true}, p.pooledSegments(), "range 2's share is far under 10 MiB");
        assertTrue(p.reason().contains("2 of 3 ranges"), p.reason());
        Version next = v.apply(p.edit(Synthetic.outputs(p, new Synthetic.Generations(10))));
        assertEquals(3, next.size());
        for (SSTableInfo o : next.sstables()) {
            assertFalse(STCS.bucketOf(o) == TokenRanges.SPANNING, o.toString());
            if (STCS.bucketOf(o) < 2) assertTrue(o.sizeBytes() >= 10 * MIB, o.toString());
        }
    }

    /** Four flushes over the whole ring (even ranges, so each range's share is a quarter). */
    static List<SSTableInfo> wholeRingFlushes(long size) {
        List<SSTableInfo> s = new ArrayList<>();
        for (int i = 1; i <= 4; i++) s.add(sst(i, Long.MIN_VALUE + 1 + i, Long.MAX_VALUE - 1 - i, size, 0));
        return s;
    }

    @Test
    void aShareBelowTheMinimumStaysUnsplitWhateverTheWholeSize() {
        // 4 x 9 MiB = 36 MiB, far over the 10 MiB minimum, but 9 MiB per range: not split.
        Version v = Version.of(wholeRingFlushes(9 * MIB));
        CompactionPick p = STCS.pick(v);
        assertArrayEquals(new int[] {1, 2, 3, 4}, p.inputGenerations());
        assertEquals(0, p.splitTokens().length);
        assertEquals(0, p.pooledSegments().length);
        assertTrue(p.reason().contains("no range's share reaches"), p.reason());
        Version next = v.apply(p.edit(Synthetic.outputs(p, new Synthetic.Generations(10))));
        assertEquals(1, next.size());
        assertEquals(TokenRanges.SPANNING, STCS.bucketOf(next.sstables().get(0)));
        assertEquals(36 * MIB, next.totalBytes());
    }

    @Test
    void aShareAboveTheMinimumSplitsEveryRange() {
        Version v = Version.of(wholeRingFlushes(11 * MIB));
        CompactionPick p = STCS.pick(v);
        assertArrayEquals(R.splitTokens(), p.splitTokens());
        assertEquals(0, p.pooledSegments().length, "every range gets its own output");
        Version next = v.apply(p.edit(Synthetic.outputs(p, new Synthetic.Generations(10))));
        assertEquals(4, next.size());
        for (int r = 0; r < 4; r++) {
            SSTableInfo o = next.sstables().get(r);
            assertEquals(r, STCS.bucketOf(o), o.toString());
            assertTrue(o.sizeBytes() >= 10 * MIB, o.toString());
        }
    }

    @Test
    void smallRangesArePooledIntoOneOutputAcrossTheBigOnes() {
        // Uneven ranges: 0 and 2 are wide (about 40% of the ring each), 1 and 3 narrow (10%).
        long q = Long.MAX_VALUE / 5;
        TokenRanges uneven = TokenRanges.fromSplits(new long[] {Long.MIN_VALUE + 4 * q, Long.MIN_VALUE + 5 * q, Long.MIN_VALUE + 9 * q});
        RangeAwarePicker picker = new RangeAwarePicker(STCS.options(), uneven);
        List<SSTableInfo> s = new ArrayList<>();
        for (int i = 1; i <= 4; i++) s.add(sst(i, Long.MIN_VALUE + 1 + i, Long.MAX_VALUE - 1 - i, 10 * MIB, 0));
        Version v = Version.of(s);
        CompactionPick p = picker.pick(v);
        // 40 MiB: ranges 0 and 2 get ~16 MiB, ranges 1 and 3 ~4 MiB each, under the minimum.
        assertArrayEquals(new boolean[] {false, true, false, true}, p.pooledSegments());
        assertTrue(p.describe().contains("2 of 4 ranges pooled"), p.describe());
        List<SSTableInfo> outputs = Synthetic.outputs(p, new Synthetic.Generations(10));
        assertEquals(3, outputs.size());
        Version next = v.apply(p.edit(outputs));
        int spanning = 0;
        for (SSTableInfo o : next.sstables()) {
            int r = picker.bucketOf(o);
            if (r == TokenRanges.SPANNING) {
                spanning++;
                assertTrue(o.sizeBytes() < 10 * MIB, "the pooled output holds the two small ranges: " + o);
            } else {
                assertTrue(r == 0 || r == 2, o.toString());
                assertTrue(o.sizeBytes() >= 10 * MIB, o.toString());
            }
        }
        assertEquals(1, spanning, "one pooled output, in the shared bucket");
        // An output of a range of its own that crosses a boundary is refused; the pooled one may.
        assertThrows(IllegalArgumentException.class, () -> p.edit(List.of(sst(90, Long.MIN_VALUE + 5, Long.MIN_VALUE + 4 * q + 5, MIB, 0))));
    }

    @Test
    void theEstimatedShareIsTheFractionOfEachInputsSpanInTheRange() {
        // Over ranges 1 and 2, a quarter of its span in range 1: 4 MiB there, 12 MiB in range 2.
        long quarter = R.hi(1) - R.lo(1) + 1;
        SSTableInfo s = sst(1, R.hi(1) - quarter / 4 + 1, R.hi(1) + 3 * (quarter / 4), 16 * MIB, 0);
        double[] shares = STCS.estimatedShares(List.of(s), s.firstToken(), s.lastToken());
        assertEquals(2, shares.length);
        assertEquals(4.0 * MIB, shares[0], 1.0);
        assertEquals(12.0 * MIB, shares[1], 1.0);
    }

    /**
     * With a minimum larger than any range's share, range-aware size-tiered compaction makes the
     * same picks as plain size-tiered compaction, step by step, over a run of flushes that keep
     * spanning every range.
     */
    @Test
    void aLargeMinimumBehavesAsPlainSizeTiered() {
        TokenRanges vnodes = TokenRanges.vnodes(256, 7);
        Map<String, String> base = Map.of("class", "SizeTieredCompactionStrategy", "min_sstable_size", Long.toString(MIB));
        SizeTieredPicker plain = new SizeTieredPicker(CompactionStrategyOptions.parse(base));
        Map<String, String> ra = new java.util.HashMap<>(base);
        ra.put("range_aware_compaction", "true");
        ra.put("min_range_sstable_size_in_mb", "50");
        RangeAwarePicker aware = new RangeAwarePicker(CompactionStrategyOptions.parse(ra), vnodes);
        java.util.Random random = new java.util.Random(11);
        Synthetic.Generations ga = new Synthetic.Generations(1), gp = new Synthetic.Generations(1);
        Version va = Version.empty(), vp = Version.empty();
        int picks = 0;
        for (int flush = 0; flush < 200; flush++) {
            long size = 2 * MIB + random.nextInt((int) MIB);
            long first = Long.MIN_VALUE + 1 + random.nextInt(1 << 20), last = Long.MAX_VALUE - 1 - random.nextInt(1 << 20);
            SSTableInfo f = sst(ga.next(), first, last, size, 0);
            gp.next();
            va = va.apply(VersionEdit.adding(List.of(f)));
            vp = vp.apply(VersionEdit.adding(List.of(f)));
            while (true) {
                CompactionPick a = aware.pick(va), p = plain.pick(vp);
                if (a == null || p == null) {
                    assertEquals(p == null, a == null, "flush " + flush + ": plain " + p + " / range-aware " + a);
                    break;
                }
                assertArrayEquals(p.inputGenerations(), a.inputGenerations(), "flush " + flush);
                assertEquals(0, a.splitTokens().length, "flush " + flush + ": " + a);
                va = va.apply(a.edit(Synthetic.outputs(a, ga)));
                vp = vp.apply(p.edit(Synthetic.outputs(p, gp)));
                picks++;
            }
        }
        assertTrue(picks >= 6, "only " + picks + " compactions");
        assertEquals(vp.sstables().size(), va.sstables().size());
    }

    @Test
    void eachRangeTiersOnlyItsOwnSSTables() {
        List<SSTableInfo> s = List.of(inRange(1, 0, 100 * MIB), inRange(2, 0, 100 * MIB), inRange(3, 1, 100 * MIB), inRange(4, 1, 100 * MIB));
        // A plain size-tiered picker would merge all four across the boundary.
        assertNotNull(SizeTieredPickerTest.STCS.pick(Version.of(s)));
        assertNull(STCS.pick(Version.of(s)));
        List<SSTableInfo> more = new ArrayList<>(s);
        more.add(inRange(5, 1, 100 * MIB));
        more.add(inRange(6, 1, 100 * MIB));
        CompactionPick p = STCS.pick(Version.of(more));
        assertEquals(1, p.range());
        assertArrayEquals(new int[] {3, 4, 5, 6}, p.inputGenerations());
        assertEquals(R.lo(1), p.boundFirstToken());
        assertEquals(R.hi(1), p.boundLastToken());
        // An output outside the range is refused.
        assertThrows(IllegalArgumentException.class, () -> p.edit(List.of(sst(9, R.lo(1) - 1, R.lo(1) + 10, MIB, 0))));
    }

    @Test
    void rangesTakeTurns() {
        List<SSTableInfo> s = new ArrayList<>();
        // Range 0 has two ready tiers, range 2 one.
        for (int i = 1; i <= 4; i++) s.add(inRange(i, 0, 100 * MIB));
        for (int i = 5; i <= 8; i++) s.add(inRange(i, 0, GIB));
        for (int i = 9; i <= 12; i++) s.add(inRange(i, 2, 100 * MIB));
        Version v = Version.of(s);
        Synthetic.Generations gens = new Synthetic.Generations(100);
        CompactionPick p = STCS.pick(v);
        assertEquals(0, p.range());
        assertArrayEquals(new int[] {5, 6, 7, 8}, p.inputGenerations());
        v = v.apply(p.edit(Synthetic.outputs(p, gens)));
        assertEquals(1, v.nextRangeCursor());
        p = STCS.pick(v);
        assertEquals(2, p.range(), "range 0 has another tier ready, but range 2's turn comes first");
        v = v.apply(p.edit(Synthetic.outputs(p, gens)));
        assertEquals(3, v.nextRangeCursor());
        p = STCS.pick(v);
        assertEquals(0, p.range());
        assertArrayEquals(new int[] {1, 2, 3, 4}, p.inputGenerations());
        v = v.apply(p.edit(Synthetic.outputs(p, gens)));
        assertNull(STCS.pick(v));
    }

    @Test
    void leveledRangesKeepTheirOwnLevelsAndPointers() {
        RangeAwarePicker lcs = new RangeAwarePicker(CompactionStrategyOptions.parse(Map.of("class", "LeveledCompactionStrategy",
                "sstable_size_in_mb", "1", "range_aware_compaction", "true")), R);
        List<SSTableInfo> s = new ArrayList<>();
        for (int i = 0; i < 13; i++) s.add(sst(1 + i, R.lo(1) + i * 1000L, R.lo(1) + i * 1000L + 999, MIB, 1));   // range 1: L1 13 MiB
        for (int i = 0; i < 6; i++) s.add(sst(50 + i, R.lo(3) + i * 1000L, R.lo(3) + i * 1000L + 999, MIB, 1));   // range 3: L1 6 MiB
        s.add(sst(60, R.lo(3) + 10, R.lo(3) + 20, MIB / 4, 0));
        s.add(sst(61, R.lo(3) + 30, R.lo(3) + 40, MIB / 4, 0));
        Version v = Version.of(s);
        CompactionPick p = lcs.pick(v);
        assertEquals(1, p.range());
        assertEquals(1, p.sourceLevel());
        assertEquals(2, p.outputLevel());
        assertArrayEquals(new int[] {1}, p.inputGenerations());
        assertEquals(MIB, p.maxOutputBytes());
        assertEquals("RangeAware(LeveledCompactionStrategy)", p.strategy());
        v = v.apply(p.edit(Synthetic.outputs(p, new Synthetic.Generations(100))));
        assertTrue(v.hasCompactPointer(1, 1));
        assertFalse(v.hasCompactPointer(TokenRanges.SPANNING, 1));
        // Range 3's turn: its two L0 sstables, 0.5 MiB together, stay in its L0.
        CompactionPick q = lcs.pick(v);
        assertEquals(3, q.range());
        assertArrayEquals(new int[] {60, 61}, q.inputGenerations());
        assertEquals(0, q.outputLevel());
    }

    @Test
    void theFactoryBuildsTheConfiguredPicker() {
        assertTrue(CompactionPicker.create(CompactionStrategyOptions.defaults(CompactionStrategyOptions.Kind.LEVELED), null) instanceof LeveledPicker);
        assertTrue(CompactionPicker.create(CompactionStrategyOptions.defaults(CompactionStrategyOptions.Kind.SIZE_TIERED), null) instanceof SizeTieredPicker);
        CompactionStrategyOptions ra = CompactionStrategyOptions.parse(Map.of("class", "SizeTieredCompactionStrategy", "range_aware_compaction", "true"));
        assertTrue(CompactionPicker.create(ra, R) instanceof RangeAwarePicker);
        assertThrows(IllegalArgumentException.class, () -> CompactionPicker.create(ra, null));
    }

    @Test
    void theEstimateAddsTheSharedBucketAndTheRanges() {
        List<SSTableInfo> s = new ArrayList<>();
        s.add(spanning(1, 50 * MIB));                                   // alone in its tier: no task
        for (int i = 2; i <= 5; i++) s.add(spanning(i, MIB));           // one shared tier
        for (int i = 6; i <= 9; i++) s.add(inRange(i, 3, 100 * MIB));   // one tier in range 3
        s.add(inRange(10, 2, 100 * MIB));
        assertEquals(2, STCS.estimatedRemainingTasks(Version.of(s)));
        assertEquals(0, STCS.estimatedRemainingTasks(Version.of(List.of(inRange(1, 0, MIB)))));
    }
}

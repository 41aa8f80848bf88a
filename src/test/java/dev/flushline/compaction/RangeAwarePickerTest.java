package dev.flushline.compaction;

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
    static final CompactionRanges R = CompactionRanges.even(4);
    /** Size-tiered per range; spanning sstables over 10 MiB are split. */
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
        assertEquals(CompactionRanges.SPANNING, p.range());
        assertEquals(0, p.splitTokens().length, "5 MiB together: not worth splitting");
        assertTrue(p.reason().contains("shared bucket"), p.reason());
        Version next = v.apply(p.edit(Synthetic.outputs(p, new Synthetic.Generations(10))));
        assertEquals(1, next.size());
        assertEquals(CompactionRanges.SPANNING, STCS.bucketOf(next.sstables().get(0)));
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
    void aSharedTierBiggerThanTheMinimumIsSplitAtTheRangeBoundaries() {
        List<SSTableInfo> s = new ArrayList<>();
        for (int i = 1; i <= 4; i++) s.add(spanning(i, 5 * MIB));
        Version v = Version.of(s);
        CompactionPick p = STCS.pick(v);
        assertArrayEquals(new long[] {R.lo(1), R.lo(2)}, p.splitTokens());
        Version next = v.apply(p.edit(Synthetic.outputs(p, new Synthetic.Generations(10))));
        assertEquals(3, next.size());
        for (SSTableInfo o : next.sstables()) assertFalse(STCS.bucketOf(o) == CompactionRanges.SPANNING, o.toString());
    }

    @Test
    void largeSpanningSSTablesAreSplitAloneLargestFirst() {
        List<SSTableInfo> s = new ArrayList<>();
        s.add(spanning(1, 50 * MIB));
        s.add(sst(2, R.lo(1) + 5, Long.MAX_VALUE - 5, 100 * MIB, 0));    // ranges 1 to 3
        for (int i = 3; i <= 6; i++) s.add(spanning(i, MIB));             // a shared tier, ready too
        Version v = Version.of(s);
        CompactionPick p = STCS.pick(v);
        assertArrayEquals(new int[] {2}, p.inputGenerations());
        assertArrayEquals(new long[] {R.lo(2), R.lo(3)}, p.splitTokens());
        assertEquals(0, p.outputLevel());
        assertTrue(p.reason().contains("spans 3 ranges"), p.reason());
        v = v.apply(p.edit(Synthetic.outputs(p, new Synthetic.Generations(10))));
        p = STCS.pick(v);
        assertArrayEquals(new int[] {1}, p.inputGenerations());
        assertArrayEquals(new long[] {R.lo(1), R.lo(2)}, p.splitTokens());
        v = v.apply(p.edit(Synthetic.outputs(p, new Synthetic.Generations(20))));
        p = STCS.pick(v);
        assertArrayEquals(new int[] {3, 4, 5, 6}, p.inputGenerations());
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
        assertFalse(v.hasCompactPointer(CompactionRanges.SPANNING, 1));
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
    void theEstimateAddsSplitsTheSharedBucketAndTheRanges() {
        List<SSTableInfo> s = new ArrayList<>();
        s.add(spanning(1, 50 * MIB));                                   // one split
        for (int i = 2; i <= 5; i++) s.add(spanning(i, MIB));           // one shared tier
        for (int i = 6; i <= 9; i++) s.add(inRange(i, 3, 100 * MIB));   // one tier in range 3
        s.add(inRange(10, 2, 100 * MIB));
        assertEquals(3, STCS.estimatedRemainingTasks(Version.of(s)));
        assertEquals(0, STCS.estimatedRemainingTasks(Version.of(List.of(inRange(1, 0, MIB)))));
    }
}

package dev.flushline.compaction;

import dev.flushline.data.TokenRanges;
import org.apache.cassandra.db.compaction.LeveledManifest;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.flushline.compaction.Synthetic.MIB;
import static dev.flushline.compaction.Synthetic.sst;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LeveledPickerTest {
    static final LeveledPicker DEFAULT = new LeveledPicker(CompactionStrategyOptions.defaults(CompactionStrategyOptions.Kind.LEVELED));
    /** 1 MiB sstables, fanout 10: L1 holds 10 MiB, L2 100 MiB. */
    static final LeveledPicker SMALL = new LeveledPicker(CompactionStrategyOptions.parse(
            Map.of("class", "LeveledCompactionStrategy", "sstable_size_in_mb", "1")));

    /** {@code n} adjacent 1 MiB sstables in {@code level}, 1000 tokens each from {@code firstToken}. */
    static List<SSTableInfo> run(int firstGen, int n, int level, long firstToken) {
        List<SSTableInfo> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add(sst(firstGen + i, firstToken + i * 1000L, firstToken + i * 1000L + 999, MIB, level));
        return out;
    }

    static Set<Integer> gensOf(CompactionPick p) {
        Set<Integer> s = new HashSet<>();
        for (int g : p.inputGenerations()) s.add(g);
        return s;
    }

    @Test
    void levelSizesAreCassandras() {
        for (int level = 0; level <= SSTableInfo.MAX_LEVEL; level++) {
            for (int fanout : new int[] {2, 10, 16}) {
                assertEquals(LeveledManifest.maxBytesForLevel(level, fanout, 160 * MIB),
                        LeveledPicker.maxBytesForLevel(level, fanout, 160 * MIB), "L" + level + " fanout " + fanout);
            }
        }
        assertEquals(1600 * MIB, DEFAULT.maxBytesForLevel(1));
        assertEquals(16000 * MIB, DEFAULT.maxBytesForLevel(2));
    }

    @Test
    void smallL0SSTablesAreCompactedTogetherAndStayInL0() {
        Version v = Version.of(List.of(sst(1, 0, 100, 10 * MIB, 0), sst(2, 500, 600, 10 * MIB, 0)));
        CompactionPick p = DEFAULT.pick(v);
        assertArrayEquals(new int[] {1, 2}, p.inputGenerations());
        assertEquals(0, p.outputLevel());
        assertEquals(160 * MIB, p.maxOutputBytes());
        assertNull(DEFAULT.pick(Version.of(List.of(sst(1, 0, 100, 10 * MIB, 0)))), "one L0 sstable alone is left alone");
    }

    @Test
    void l0OverOneSSTableSizeGoesToL1WithTheL1SSTablesItsSpanOverlaps() {
        List<SSTableInfo> s = new ArrayList<>();
        // Five L0 sstables of 40 MiB (200 MiB > 160 MiB) over tokens 1000..5999.
        for (int i = 0; i < 5; i++) s.add(sst(1 + i, 1000 + i * 1000L, 1999 + i * 1000L, 40 * MIB, 0));
        // L1: [0,999] and [6000,6999] lie outside, [2000,2999] overlaps sstable 2, [7000,..] outside.
        s.add(sst(10, 0, 999, 100 * MIB, 1));
        s.add(sst(11, 2000, 2999, 100 * MIB, 1));
        s.add(sst(12, 6000, 6999, 100 * MIB, 1));
        s.add(sst(13, 5500, 5800, 100 * MIB, 1));   // inside the L0 span
        CompactionPick p = DEFAULT.pick(Version.of(s));
        assertEquals(Set.of(1, 2, 3, 4, 5, 11, 13), gensOf(p));
        assertEquals(0, p.sourceLevel());
        assertEquals(1, p.outputLevel());
        assertEquals(160 * MIB, p.maxOutputBytes());
        assertTrue(p.describe().contains("L0->L1"), p.describe());
        // A single big L0 sstable goes up with the L1 sstables it overlaps...
        p = DEFAULT.pick(Version.of(List.of(sst(1, 0, 5000, 200 * MIB, 0), sst(2, 100, 200, 100 * MIB, 1))));
        assertEquals(Set.of(1, 2), gensOf(p));
        assertEquals(1, p.outputLevel());
        // ...but alone, with nothing to merge, it stays where it is, as in Cassandra.
        assertNull(DEFAULT.pick(Version.of(List.of(sst(1, 0, 5000, 200 * MIB, 0), sst(2, 9000, 9100, 100 * MIB, 1)))));
    }

    @Test
    void theHighestLevelOverItsScoreGoesFirstNotTheHighestScore() {
        List<SSTableInfo> s = new ArrayList<>();
        s.addAll(run(1, 15, 1, 0));             // L1: 15 MiB of 10, score 1.5
        s.addAll(run(100, 120, 2, 0));          // L2: 120 MiB of 100, score 1.2
        s.addAll(run(1000, 3, 3, 0));           // L3: a little
        CompactionPick p = SMALL.pick(Version.of(s));
        assertEquals(2, p.sourceLevel());
        assertEquals(3, p.outputLevel());
        // The first L2 sstable [0,999] with the L3 sstable [0,999] it overlaps.
        assertEquals(Set.of(100, 1000), gensOf(p));
        assertTrue(p.reason().contains("L2 score 1.200"), p.reason());
        assertEquals(MIB, p.maxOutputBytes());
    }

    @Test
    void aLevelWithinTheSlackIsNotCompacted() {
        List<SSTableInfo> s = run(1, 9, 1, 0);
        s.add(sst(50, 100_000, 100_999, MIB + 5000, 1));   // score 1.0005
        assertNull(SMALL.pick(Version.of(s)));
        s.set(9, sst(50, 100_000, 100_999, MIB + 20_000, 1));   // score 1.0019
        assertEquals(1, SMALL.pick(Version.of(s)).sourceLevel());
    }

    @Test
    void theLastLevelIsNeverCompactedFurther() {
        long l8 = LeveledPicker.maxBytesForLevel(8, 10, MIB);
        assertNull(SMALL.pick(Version.of(List.of(sst(1, 0, 10, l8 * 2, 8)))));
        long l7 = LeveledPicker.maxBytesForLevel(7, 10, MIB);
        CompactionPick p = SMALL.pick(Version.of(List.of(sst(1, 0, 10, l8 * 2, 8), sst(2, 5, 20, l7 * 2, 7))));
        assertEquals(Set.of(1, 2), gensOf(p));
        assertEquals(8, p.outputLevel());
    }

    @Test
    void moreThan32L0SSTablesAreSizeTieredBeforeAnOverfullHigherLevel() {
        List<SSTableInfo> s = new ArrayList<>();
        for (int i = 0; i < 33; i++) s.add(sst(1 + i, 0, 50_000, MIB, 0));
        s.addAll(run(100, 15, 1, 0));   // L1 score 1.5
        CompactionPick p = SMALL.pick(Version.of(s));
        assertEquals(0, p.outputLevel());
        assertEquals(32, p.inputs().size());
        for (SSTableInfo in : p.inputs()) assertEquals(0, in.level());
        assertEquals(Long.MAX_VALUE, p.maxOutputBytes(), "size-tiered L0 output is not split");
        assertTrue(p.reason().contains("size-tiering L0, before L1"), p.reason());

        // 32 are not more than 32: L1 goes first.
        CompactionPick q = SMALL.pick(Version.of(new ArrayList<>(s.subList(1, s.size()))));
        assertEquals(1, q.sourceLevel());

        // With the higher levels within their scores, L0 goes to L1 the usual way, 32 at a time.
        List<SSTableInfo> calm = new ArrayList<>(s.subList(0, 33));
        calm.addAll(run(100, 5, 1, 0));
        CompactionPick r = SMALL.pick(Version.of(calm));
        assertEquals(1, r.outputLevel());
        int fromL0 = 0;
        for (SSTableInfo in : r.inputs()) if (in.level() == 0) fromL0++;
        assertEquals(32, fromL0);
        assertEquals(32 + 5, r.inputs().size());
    }

    @Test
    void l0TakesTheOldestByMaxTimestampFirst() {
        List<SSTableInfo> s = new ArrayList<>();
        // 40 disjoint L0 sstables; the higher the generation, the older the data.
        for (int i = 0; i < 40; i++) s.add(new SSTableInfo(1 + i, i * 1000L, i * 1000L + 999, MIB, 0, 1_000_000 - i * 10L, 1_000_000 - i * 10L + 5));
        CompactionPick p = SMALL.pick(Version.of(s));
        Set<Integer> expected = new HashSet<>();
        for (int g = 9; g <= 40; g++) expected.add(g);
        assertEquals(expected, gensOf(p));
    }

    @Test
    void eachLevelTakesTurnsAfterItsCompactionPointer() {
        // L1: 13 MiB of 10; three compactions bring it within its score.
        Version v = Version.of(run(1, 13, 1, 0));
        Synthetic.Generations gens = new Synthetic.Generations(100);
        int[] expectedFirst = {1, 2, 3};
        for (int round = 0; round < 3; round++) {
            CompactionPick p = SMALL.pick(v);
            assertNotNull(p, "round " + round);
            assertArrayEquals(new int[] {expectedFirst[round]}, p.inputGenerations(), "round " + round);
            assertEquals(2, p.outputLevel());
            v = v.apply(p.edit(Synthetic.outputs(p, gens)));
            assertEquals(round * 1000L + 999, v.compactPointer(TokenRanges.SPANNING, 1));
        }
        assertNull(SMALL.pick(v));

        // The pointer inside an sstable's span: the next one starting after it goes first.
        Version mid = Version.of(run(1, 13, 1, 0)).apply(VersionEdit.builder().setCompactPointer(TokenRanges.SPANNING, 1, 5500).build());
        assertArrayEquals(new int[] {7}, SMALL.pick(mid).inputGenerations());
        // Past the last sstable: wrap round to the first.
        Version end = Version.of(run(1, 13, 1, 0)).apply(VersionEdit.builder().setCompactPointer(TokenRanges.SPANNING, 1, 12_999).build());
        assertArrayEquals(new int[] {1}, SMALL.pick(end).inputGenerations());
        // Another range's pointer is not this one's.
        Version other = Version.of(run(1, 13, 1, 0)).apply(VersionEdit.builder().setCompactPointer(3, 1, 5500).build());
        assertArrayEquals(new int[] {1}, SMALL.pick(other).inputGenerations());
    }

    @Test
    void aLevelPickBringsTheOverlappingNextLevelSSTables() {
        List<SSTableInfo> s = new ArrayList<>(run(1, 11, 1, 0));   // L1 score 1.1
        s.add(sst(50, 500, 1500, MIB, 2));     // overlaps L1's first two
        s.add(sst(51, 1600, 2500, MIB, 2));    // overlaps L1's second and third only
        CompactionPick p = SMALL.pick(Version.of(s));
        assertEquals(Set.of(1, 50), gensOf(p));
        assertEquals(2, p.outputLevel());
    }

    @Test
    void theEstimateCountsBytesOverEachLevelInSSTableSizes() {
        Version v = Version.of(run(1, 13, 1, 0));    // 3 MiB over L1's 10 MiB
        assertEquals(3, SMALL.estimatedRemainingTasks(v));
        int picks = 0;
        Synthetic.Generations gens = new Synthetic.Generations(100);
        for (CompactionPick p; (p = SMALL.pick(v)) != null; picks++) v = v.apply(p.edit(Synthetic.outputs(p, gens)));
        assertEquals(3, picks);
        assertEquals(0, SMALL.estimatedRemainingTasks(v));
        // 40 L0 sstables: 40 MiB over L0's nominal 4 MiB, and one size-tiering round per 32.
        List<SSTableInfo> l0 = new ArrayList<>();
        for (int i = 0; i < 40; i++) l0.add(sst(1 + i, 0, 10, MIB, 0));
        assertEquals(36 + 1, SMALL.estimatedRemainingTasks(Version.of(l0)));
    }

    @Test
    void startupPointersFollowTheNewestSSTableOfTheNextLevel() {
        List<SSTableInfo> s = new ArrayList<>(run(1, 13, 1, 0));
        s.add(sst(20, 0, 999, MIB, 2));
        s.add(sst(22, 5000, 5999, MIB, 2));
        s.add(sst(21, 9000, 9999, MIB, 2));
        Version v = Version.of(s);
        VersionEdit e = LeveledPicker.startupPointers(v.sstables(), TokenRanges.SPANNING);
        assertEquals(2, e.pointerCount());
        v = v.apply(e);
        assertEquals(5999, v.compactPointer(TokenRanges.SPANNING, 1));
        assertEquals(12 * 1000L + 999, v.compactPointer(TokenRanges.SPANNING, 0));
        CompactionPick p = SMALL.pick(v);
        assertEquals(7, p.inputs().get(0).generation(), "the round starts after the newest L2 sstable's last token");
    }

    @Test
    void compactingSSTablesAreLeftOut() {
        Version v = Version.of(run(1, 13, 1, 0));
        assertArrayEquals(new int[] {2}, SMALL.pick(v, Set.of(1)).inputGenerations(), "the round skips a busy sstable");
        // They do not count towards the score: 11 MiB with 1 MiB compacting is within L1's 10 MiB.
        assertNull(SMALL.pick(Version.of(run(1, 11, 1, 0)), Set.of(5)));

        // A busy next-level sstable makes its overlapping set wait.
        List<SSTableInfo> s = new ArrayList<>(run(1, 11, 1, 0));
        s.add(sst(50, 0, 500, MIB, 2));
        assertEquals(Set.of(1, 50), gensOf(SMALL.pick(Version.of(s))));
        assertArrayEquals(new int[] {2}, SMALL.pick(Version.of(s), Set.of(50)).inputGenerations());

        // L0 to L1 waits while an L1 sstable it would take is busy.
        List<SSTableInfo> l0 = new ArrayList<>();
        for (int i = 0; i < 3; i++) l0.add(sst(1 + i, 0, 10_000, MIB, 0));
        l0.add(sst(10, 5000, 6000, MIB, 1));
        assertEquals(Set.of(1, 2, 3, 10), gensOf(SMALL.pick(Version.of(l0))));
        assertNull(SMALL.pick(Version.of(l0), Set.of(10)));

        // L0 keeps clear of the span of L0 sstables being compacted.
        List<SSTableInfo> two = List.of(sst(1, 0, 100, MIB / 8, 0), sst(2, 50, 150, MIB / 8, 0),
                sst(3, 1000, 1100, MIB / 8, 0), sst(4, 1200, 1300, MIB / 8, 0), sst(5, 90, 1050, MIB / 8, 0));
        assertEquals(Set.of(1, 2, 3, 4, 5), gensOf(SMALL.pick(Version.of(two))));
        // 5 is compacting: 1, 2 and 3 overlap it and are passed over; 4 alone is not enough.
        assertNull(SMALL.pick(Version.of(two), Set.of(5)));
        List<SSTableInfo> three = new ArrayList<>(two);
        three.add(sst(6, 1250, 1400, MIB / 8, 0));
        assertEquals(Set.of(4, 6), gensOf(SMALL.pick(Version.of(three), Set.of(5))));
    }
}

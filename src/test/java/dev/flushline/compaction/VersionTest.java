package dev.flushline.compaction;

import dev.flushline.data.TokenRanges;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.flushline.compaction.Synthetic.MIB;
import static dev.flushline.compaction.Synthetic.sst;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class VersionTest {
    @Test
    void applyReplacesRemovedWithAddedAndLeavesTheOldVersionAlone() {
        Version v1 = Version.of(List.of(sst(1, 0, 10, MIB, 0), sst(2, 5, 20, MIB, 0), sst(3, 30, 40, MIB, 0)));
        Version v2 = v1.apply(VersionEdit.of(new int[] {1, 2}, List.of(sst(4, 0, 20, 2 * MIB, 1))));
        assertArrayEquals(new int[] {3, 4}, Synthetic.gens(v2.sstables()));
        assertArrayEquals(new int[] {1, 2, 3}, Synthetic.gens(v1.sstables()));
        assertEquals(v1.number() + 1, v2.number());
        assertEquals(3 * MIB, v2.totalBytes());
        assertEquals(1, v2.get(4).level());
        assertFalse(v2.contains(1));
        assertEquals(List.of(v2.get(4)), v2.level(1));
    }

    @Test
    void applyRefusesEditsBuiltAgainstAnotherVersion() {
        Version v = Version.of(List.of(sst(1, 0, 10, MIB, 0), sst(2, 5, 20, MIB, 0)));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> v.apply(VersionEdit.of(new int[] {7}, List.of())));
        assertTrue(e.getMessage().contains("generation 7"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> v.apply(VersionEdit.adding(List.of(sst(2, 0, 1, 1, 0)))));
        assertTrue(e.getMessage().contains("generation 2") && e.getMessage().contains("already live"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> v.apply(VersionEdit.adding(List.of(sst(5, 0, 1, 1, 0), sst(5, 2, 3, 1, 0)))));
        assertTrue(e.getMessage().contains("twice"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> v.apply(VersionEdit.of(new int[] {1, 1}, List.of())));
        assertTrue(e.getMessage().contains("twice"), e.getMessage());
        // Removing and re-adding one generation in one edit is a reused generation: refused.
        e = assertThrows(IllegalArgumentException.class, () -> v.apply(VersionEdit.of(new int[] {1}, List.of(sst(1, 0, 10, MIB, 1)))));
        assertTrue(e.getMessage().contains("generation 1"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Version.of(List.of(sst(1, 0, 1, 1, 0), sst(1, 0, 1, 1, 0))));
    }

    @Test
    void compactionPointersAndRangeCursorTravelThroughEdits() {
        Version v = Version.of(List.of(sst(1, 0, 10, MIB, 1)));
        assertFalse(v.hasCompactPointer(TokenRanges.SPANNING, 1));
        Version v2 = v.apply(VersionEdit.builder().setCompactPointer(TokenRanges.SPANNING, 1, 42)
                .setCompactPointer(3, 1, 99).setNextRangeCursor(4).build());
        assertEquals(42, v2.compactPointer(TokenRanges.SPANNING, 1));
        assertEquals(99, v2.compactPointer(3, 1));
        assertFalse(v2.hasCompactPointer(3, 2));
        assertFalse(v2.hasCompactPointer(2, 1));
        assertEquals(4, v2.nextRangeCursor());
        Version v3 = v2.apply(VersionEdit.adding(List.of(sst(2, 0, 1, 1, 0))));
        assertEquals(42, v3.compactPointer(TokenRanges.SPANNING, 1));
        assertEquals(4, v3.nextRangeCursor());
    }

    @Test
    void maxPurgeableTimestampIsTheOldestOverlappingNonInput() {
        SSTableInfo a = new SSTableInfo(1, 0, 100, MIB, 0, 10, 20);
        SSTableInfo b = new SSTableInfo(2, 50, 200, MIB, 0, 1, 30);      // an input: its own old data does not count
        SSTableInfo c = new SSTableInfo(3, 150, 300, MIB, 0, 15, 40);    // overlaps b
        SSTableInfo d = new SSTableInfo(4, 1000, 2000, MIB, 0, 2, 50);   // overlaps nothing: ignored
        SSTableInfo e = new SSTableInfo(5, 120, 130, MIB, 0, 12, 60);    // inside the span between a and b's ends
        Version v = Version.of(List.of(a, b, c, d, e));
        assertEquals(12, v.maxPurgeableTimestamp(List.of(a, b)));
        assertEquals(15, v.maxPurgeableTimestamp(List.of(a, b, e)));
        assertEquals(Long.MAX_VALUE, v.maxPurgeableTimestamp(List.of(d)));
        assertEquals(Long.MAX_VALUE, v.maxPurgeableTimestamp(List.of(a, b, c, e)));
        // An sstable that touches the span at a single token counts.
        SSTableInfo f = new SSTableInfo(6, 300, 400, MIB, 0, 3, 4);
        assertEquals(3, Version.of(List.of(c, f)).maxPurgeableTimestamp(List.of(c)));
    }

    @Test
    void pickEditChecksOutputsAgainstThePick() {
        SSTableInfo a = sst(1, 0, 100, MIB, 0), b = sst(2, 0, 100, MIB, 0);
        Version v = Version.of(List.of(a, b));
        CompactionPick p = new CompactionPick("test", 2, 0, 199, List.of(a, b), 1, MIB, new long[] {50}, Long.MAX_VALUE,
                true, 3, "test");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.edit(List.of(sst(3, 0, 40, MIB, 0))));
        assertTrue(e.getMessage().contains("L0"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> p.edit(List.of(sst(3, 40, 60, MIB, 1))));
        assertTrue(e.getMessage().contains("split token 50"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> p.edit(List.of(sst(3, 150, 200, MIB, 1))));
        assertTrue(e.getMessage().contains("bounds"), e.getMessage());
        Version next = v.apply(p.edit(List.of(sst(3, 0, 49, MIB, 1), sst(4, 50, 100, MIB, 1))));
        assertArrayEquals(new int[] {3, 4}, Synthetic.gens(next.sstables()));
        assertEquals(100, next.compactPointer(2, 0), "pointer: last token of the output with the greatest first token");
        assertEquals(3, next.nextRangeCursor());
    }
}

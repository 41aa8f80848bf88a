package dev.flushline.compaction;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An immutable snapshot of one table's live sstables, and the picker state that goes with them:
 * the set a compaction picker chooses from and a reader would read. The next snapshot comes only
 * from {@link #apply}: a version never changes, so a picker may look at one while the node builds
 * the next.
 *
 * <p>Besides the sstables, a version carries the leveled strategy's compaction pointers (per range
 * and level: the last token the latest compaction out of that level wrote) and the range-aware
 * strategy's cursor (the range asked first next time). Both only steer which of several needed
 * compactions comes first; losing them, as a restart does, costs order, not correctness.
 *
 * <p>Thread safety: immutable; share it freely.
 */
public final class Version {
    static final Order BY_GENERATION = new Order(false);
    static final Order BY_FIRST_TOKEN = new Order(true);

    private final long number;
    /** Sorted by generation. */
    private final List<SSTableInfo> sstables;
    private final Map<Integer, SSTableInfo> byGeneration;
    private final Map<Long, Long> compactPointers;
    private final int nextRangeCursor;

    private Version(long number, List<SSTableInfo> sortedSSTables, Map<Integer, SSTableInfo> byGeneration,
                    Map<Long, Long> compactPointers, int nextRangeCursor) {
        this.number = number;
        this.sstables = Collections.unmodifiableList(sortedSSTables);
        this.byGeneration = byGeneration;
        this.compactPointers = compactPointers;
        this.nextRangeCursor = nextRangeCursor;
    }

    public static Version empty() {
        return new Version(0, new ArrayList<>(), new HashMap<>(), new HashMap<>(), 0);
    }

    /** A first version holding {@code sstables} (as a node finds them on start); no two may share a generation. */
    public static Version of(Collection<SSTableInfo> sstables) {
        return empty().apply(VersionEdit.adding(new ArrayList<>(sstables)));
    }

    /** How many edits led here from {@link #empty}: tells versions apart in logs. */
    public long number() { return number; }

    /** Every live sstable, by increasing generation. */
    public List<SSTableInfo> sstables() { return sstables; }

    public int size() { return sstables.size(); }

    public boolean contains(int generation) { return byGeneration.containsKey(generation); }

    /** The live sstable with this generation, or null. */
    public SSTableInfo get(int generation) { return byGeneration.get(generation); }

    public long totalBytes() {
        long sum = 0;
        for (int i = 0; i < sstables.size(); i++) sum += sstables.get(i).sizeBytes();
        return sum;
    }

    /** The sstables of {@code level}, by first token (then generation). */
    public List<SSTableInfo> level(int level) {
        List<SSTableInfo> out = new ArrayList<>();
        for (int i = 0; i < sstables.size(); i++) {
            if (sstables.get(i).level() == level) out.add(sstables.get(i));
        }
        out.sort(BY_FIRST_TOKEN);
        return out;
    }

    /** The sstables holding any token in [{@code lo}, {@code hi}], by generation. */
    public List<SSTableInfo> overlapping(long lo, long hi) {
        List<SSTableInfo> out = new ArrayList<>();
        for (int i = 0; i < sstables.size(); i++) {
            if (sstables.get(i).overlaps(lo, hi)) out.add(sstables.get(i));
        }
        return out;
    }

    /**
     * The timestamp below which a compaction of {@code inputs} may drop a tombstone, as far as the
     * other sstables are concerned: the smallest minimum timestamp among live sstables that are not
     * inputs and whose token span overlaps the inputs' combined span [smallest first token, largest
     * last token]; Long.MAX_VALUE if none does. A tombstone at or above this bound may still shadow
     * older data in such an sstable, so purging it would resurrect that data.
     *
     * <p>Cassandra asks per partition (through bloom filters); a bound over the whole span is never
     * higher than that, so it purges less, never more. The caller must also take the minimum with
     * the live memtables' smallest timestamp.
     */
    public long maxPurgeableTimestamp(Collection<SSTableInfo> inputs) {
        if (inputs.isEmpty()) throw new IllegalArgumentException("no compaction inputs");
        long lo = Long.MAX_VALUE, hi = Long.MIN_VALUE;
        Set<Integer> in = new HashSet<>();
        for (SSTableInfo s : inputs) {
            lo = Math.min(lo, s.firstToken());
            hi = Math.max(hi, s.lastToken());
            in.add(s.generation());
        }
        long bound = Long.MAX_VALUE;
        for (int i = 0; i < sstables.size(); i++) {
            SSTableInfo s = sstables.get(i);
            if (!in.contains(s.generation()) && s.overlaps(lo, hi)) bound = Math.min(bound, s.minTimestamp());
        }
        return bound;
    }

    /** True if {@code range}'s {@code level} has a compaction pointer (SPANNING: the whole ring). */
    public boolean hasCompactPointer(int range, int level) {
        return compactPointers.containsKey(pointerKey(range, level));
    }

    /** The compaction pointer of {@code range}'s {@code level}. REQUIRES: {@link #hasCompactPointer}. */
    public long compactPointer(int range, int level) {
        Long t = compactPointers.get(pointerKey(range, level));
        if (t == null) throw new IllegalStateException("no compaction pointer for range " + range + " L" + level);
        return t;
    }

    /** The range a range-aware picker asks first (0 until an edit moves it). */
    public int nextRangeCursor() { return nextRangeCursor; }

    private static long pointerKey(int range, int level) {
        return ((long) range << 32) | level;
    }

    /**
     * The version after {@code edit}. Refuses, naming the generation, an edit that removes an
     * sstable this version does not hold, or adds one whose generation is live here (or that is
     * also being removed, or added twice): generations are never reused, so any of those means the
     * edit was built against another version.
     */
    public Version apply(VersionEdit edit) {
        int[] removed = edit.removed();
        Set<Integer> removing = new HashSet<>();
        for (int g : removed) {
            if (!byGeneration.containsKey(g)) {
                throw new IllegalArgumentException("edit removes sstable generation " + g + ", which version " + number + " does not hold");
            }
            if (!removing.add(g)) throw new IllegalArgumentException("edit removes sstable generation " + g + " twice");
        }
        Set<Integer> adding = new HashSet<>();
        List<SSTableInfo> added = edit.added();
        for (int i = 0; i < added.size(); i++) {
            int g = added.get(i).generation();
            if (byGeneration.containsKey(g)) {
                throw new IllegalArgumentException("edit adds sstable generation " + g + ", which is already live in version " + number);
            }
            if (!adding.add(g)) throw new IllegalArgumentException("edit adds sstable generation " + g + " twice");
        }
        List<SSTableInfo> next = new ArrayList<>(sstables.size() - removed.length + added.size());
        Map<Integer, SSTableInfo> index = new HashMap<>(byGeneration);
        for (int i = 0; i < sstables.size(); i++) {
            if (!removing.contains(sstables.get(i).generation())) next.add(sstables.get(i));
        }
        for (int g : removed) index.remove(g);
        for (int i = 0; i < added.size(); i++) {
            next.add(added.get(i));
            index.put(added.get(i).generation(), added.get(i));
        }
        next.sort(BY_GENERATION);
        Map<Long, Long> pointers = compactPointers;
        if (edit.pointerCount() > 0) {
            pointers = new HashMap<>(compactPointers);
            for (int i = 0; i < edit.pointerCount(); i++) {
                pointers.put(pointerKey(edit.pointerRange(i), edit.pointerLevel(i)), edit.pointerToken(i));
            }
        }
        int cursor = edit.nextRangeCursor() == VersionEdit.KEEP_CURSOR ? nextRangeCursor : edit.nextRangeCursor();
        return new Version(number + 1, next, index, pointers, cursor);
    }

    @Override
    public String toString() {
        int[] counts = new int[SSTableInfo.MAX_LEVEL + 1];
        for (int i = 0; i < sstables.size(); i++) counts[sstables.get(i).level()]++;
        return "version " + number + ": " + sstables.size() + " sstables, " + SSTableInfo.formatBytes(totalBytes())
                + ", per level " + Arrays.toString(counts);
    }

    /** Orders sstables by generation, or by first token then generation. */
    static final class Order implements java.util.Comparator<SSTableInfo> {
        private final boolean byToken;

        private Order(boolean byToken) {
            this.byToken = byToken;
        }

        @Override
        public int compare(SSTableInfo a, SSTableInfo b) {
            if (byToken) {
                int c = Long.compare(a.firstToken(), b.firstToken());
                if (c != 0) return c;
            }
            return Integer.compare(a.generation(), b.generation());
        }
    }
}

package dev.flushline.compaction;

import dev.flushline.data.TokenRanges;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * "Remove these, add those": the change one compaction (or flush) makes to a table's set of live
 * sstables, plus the picker state it moves forward. {@link Version#apply} turns a version and an
 * edit into the next version; making that atomic on disk (the transaction log) is the caller's
 * business, and so is replaying it after a crash.
 *
 * <p>The picker state is what the leveled strategy needs to take turns: a compaction pointer per
 * (range, level), the last token the previous compaction out of that level wrote, so the next one
 * starts after it; and, for range-aware strategies, the range whose strategy is asked first next
 * time.
 *
 * <p>Thread safety: immutable.
 */
public final class VersionEdit {
    /** {@link #nextRangeCursor} when the edit leaves the cursor alone. */
    public static final int KEEP_CURSOR = -1;

    private final int[] removed;
    private final List<SSTableInfo> added;
    private final int[] pointerRanges;
    private final int[] pointerLevels;
    private final long[] pointerTokens;
    private final int nextRangeCursor;

    private VersionEdit(int[] removed, List<SSTableInfo> added, int[] pointerRanges, int[] pointerLevels,
                        long[] pointerTokens, int nextRangeCursor) {
        this.removed = removed;
        this.added = added;
        this.pointerRanges = pointerRanges;
        this.pointerLevels = pointerLevels;
        this.pointerTokens = pointerTokens;
        this.nextRangeCursor = nextRangeCursor;
    }

    /** An edit that removes the generations {@code removed} and adds {@code added}, nothing else. */
    public static VersionEdit of(int[] removed, List<SSTableInfo> added) {
        return builder().removeAll(removed).addAll(added).build();
    }

    /** A flush's edit: new sstables, nothing removed. */
    public static VersionEdit adding(List<SSTableInfo> added) {
        return builder().addAll(added).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Generations to remove (a copy). */
    public int[] removed() { return removed.clone(); }

    public List<SSTableInfo> added() { return added; }

    public int pointerCount() { return pointerLevels.length; }

    /** The range (or {@link TokenRanges#SPANNING} for the whole ring) of pointer update {@code i}. */
    public int pointerRange(int i) { return pointerRanges[i]; }

    public int pointerLevel(int i) { return pointerLevels[i]; }

    public long pointerToken(int i) { return pointerTokens[i]; }

    /** The range whose strategy a range-aware picker asks first next time, or {@link #KEEP_CURSOR}. */
    public int nextRangeCursor() { return nextRangeCursor; }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("remove ").append(Arrays.toString(removed)).append(", add [");
        for (int i = 0; i < added.size(); i++) {
            if (i > 0) sb.append(", ");
            sb.append(added.get(i));
        }
        sb.append(']');
        for (int i = 0; i < pointerLevels.length; i++) {
            sb.append(", pointer ");
            if (pointerRanges[i] != TokenRanges.SPANNING) sb.append("range ").append(pointerRanges[i]).append(' ');
            sb.append('L').append(pointerLevels[i]).append(" -> ").append(pointerTokens[i]);
        }
        if (nextRangeCursor != KEEP_CURSOR) sb.append(", next range ").append(nextRangeCursor);
        return sb.toString();
    }

    /** Collects an edit. Not thread safe; one builder per edit. */
    public static final class Builder {
        private final List<Integer> removed = new ArrayList<>();
        private final List<SSTableInfo> added = new ArrayList<>();
        private final List<long[]> pointers = new ArrayList<>();
        private int nextRangeCursor = KEEP_CURSOR;

        private Builder() {}

        public Builder remove(int generation) {
            removed.add(generation);
            return this;
        }

        public Builder removeAll(int[] generations) {
            for (int g : generations) removed.add(g);
            return this;
        }

        public Builder add(SSTableInfo sstable) {
            added.add(sstable);
            return this;
        }

        public Builder addAll(List<SSTableInfo> sstables) {
            added.addAll(sstables);
            return this;
        }

        /** Sets the compaction pointer of {@code level} in {@code range} (SPANNING: the whole ring). */
        public Builder setCompactPointer(int range, int level, long token) {
            if (level < 0 || level > SSTableInfo.MAX_LEVEL) throw new IllegalArgumentException("pointer level " + level + " outside 0.." + SSTableInfo.MAX_LEVEL);
            pointers.add(new long[] {range, level, token});
            return this;
        }

        public Builder setNextRangeCursor(int range) {
            if (range < 0) throw new IllegalArgumentException("range cursor must not be negative: " + range);
            nextRangeCursor = range;
            return this;
        }

        public VersionEdit build() {
            int[] r = new int[removed.size()];
            for (int i = 0; i < r.length; i++) r[i] = removed.get(i);
            int n = pointers.size();
            int[] pr = new int[n], pl = new int[n];
            long[] pt = new long[n];
            for (int i = 0; i < n; i++) {
                long[] p = pointers.get(i);
                pr[i] = (int) p[0];
                pl[i] = (int) p[1];
                pt[i] = p[2];
            }
            return new VersionEdit(r, List.copyOf(added), pr, pl, pt, nextRangeCursor);
        }
    }
}

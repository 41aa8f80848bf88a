package dev.flushline.compaction;

import dev.flushline.data.TokenRanges;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Cassandra's leveled strategy (its {@code LeveledManifest}) as a picker. L0 holds flushed
 * sstables, which may overlap; in L1 to L8 the sstables of a level never overlap, and level n may
 * hold fanout_size^n × sstable_size_in_mb bytes (L0's nominal 4 × sstable_size is only used for
 * Cassandra's estimate of pending tasks, never to pick).
 *
 * <p>The order of choice, as Cassandra's {@code getCompactionCandidates}:
 * <ol>
 *   <li>From L7 down to L1, the first (highest) level whose score, bytes over its maximum, is above
 *       1.001. (Not the highest score, as in LevelDB: Cassandra drains higher levels first, so an L0
 *       far behind does not make it rewrite L1 again and again.) L8, the last level, is never
 *       compacted further, however full. If L0 then holds more than 32 sstables, size-tier L0
 *       instead ({@link SizeTieredPicker}'s rules over L0, output in L0, unsplit). Otherwise:
 *       the first sstable of the level after the level's compaction pointer (the last token the
 *       previous compaction out of that level wrote), wrapping round to the level's start, with
 *       every sstable of the next level that overlaps it; output into the next level.
 *   <li>Otherwise L0, when it has at least two sstables: the oldest sstables (by max timestamp),
 *       each with the L0 sstables that overlap it, up to max_threshold (32) of the oldest. If they
 *       hold more than one sstable_size, add the L1 sstables that overlap their combined token span
 *       and compact into L1; if not, compact them into one L0 sstable. Cassandra's bounds differ by
 *       one byte here (L1 joins above the size, the output stays in L0 below it, and exactly the
 *       size went to L1 without L1's overlapping sstables); we put "exactly" in L0 with the rest.
 *   <li>Otherwise, the L0 size-tiering of step 1 if L0 holds more than 32 sstables, or nothing.
 * </ol>
 * Every output but size-tiered L0's is split at sstable_size_in_mb.
 *
 * <p>Sstables already being compacted (the {@code compacting} set) are left out as Cassandra
 * leaves them out: they do not count towards a level's score, a level's round skips any sstable
 * whose set of overlapping next-level sstables holds one, and L0 keeps clear of them (see
 * {@link #l0Candidates}). So two picks made one after the other, the first one's inputs marked
 * compacting, may run at the same time without their outputs overlapping in a level.
 *
 * <p>Not done: Cassandra's starvation rule (after 25 rounds without touching a level, pull one of
 * its sstables into a lower compaction), single-sstable tombstone compactions, and moving a
 * single sstable up a level without rewriting it ({@code single_sstable_uplevel}).
 *
 * <p>Thread safety: immutable.
 */
public final class LeveledPicker implements CompactionPicker {
    public static final String NAME = CompactionStrategyOptions.Kind.LEVELED.className;
    /** Above this many L0 sstables, L0 is size-tiered before a higher level is compacted. */
    public static final int MAX_COMPACTING_L0 = 32;
    /** A level is compacted when its score passes this (Cassandra leaves 0.1% of slack). */
    public static final double SCORE_THRESHOLD = 1.001;

    private final CompactionStrategyOptions options;
    private final SizeTieredPicker l0SizeTiered;

    public LeveledPicker(CompactionStrategyOptions options) {
        this.options = options;
        this.l0SizeTiered = new SizeTieredPicker(options);
    }

    /** The bytes level {@code level} may hold: fanout^level × sstable size, and 4 × sstable size for L0. */
    public static long maxBytesForLevel(int level, int fanout, long maxSSTableBytes) {
        if (level == 0) return 4L * maxSSTableBytes;
        double bytes = Math.pow(fanout, level) * maxSSTableBytes;
        if (bytes > Long.MAX_VALUE) throw new IllegalArgumentException("L" + level + " would hold more than 2^63 bytes");
        return (long) bytes;
    }

    public long maxBytesForLevel(int level) {
        return maxBytesForLevel(level, options.fanoutSize(), options.maxSSTableSizeBytes());
    }

    /** Bytes in {@code level} over the level's maximum, among {@code sstables}. */
    public double score(List<SSTableInfo> sstables, int level) {
        long bytes = 0;
        for (int i = 0; i < sstables.size(); i++) if (sstables.get(i).level() == level) bytes += sstables.get(i).sizeBytes();
        return (double) bytes / maxBytesForLevel(level);
    }

    @Override
    public int estimatedRemainingTasks(Version version) {
        return estimatedTasks(version.sstables());
    }

    /**
     * Cassandra's estimate: per level, the bytes over 1.001 × its maximum in sstable_size units,
     * rounded up (L0 against 4 sstable sizes), plus one L0 size-tiering round per max_threshold
     * L0 sstables once L0 holds more than max_threshold.
     */
    int estimatedTasks(List<SSTableInfo> sstables) {
        long[] bytes = new long[SSTableInfo.MAX_LEVEL + 1];
        int l0Count = 0;
        for (int i = 0; i < sstables.size(); i++) {
            bytes[sstables.get(i).level()] += sstables.get(i).sizeBytes();
            if (sstables.get(i).level() == 0) l0Count++;
        }
        long tasks = 0;
        long size = options.maxSSTableSizeBytes();
        for (int level = 0; level <= SSTableInfo.MAX_LEVEL; level++) {
            long over = bytes[level] - (long) (maxBytesForLevel(level) * SCORE_THRESHOLD);
            if (over > 0) tasks += (over + size - 1) / size;
        }
        if (l0Count > options.maxThreshold()) tasks += l0Count / options.maxThreshold();
        return (int) Math.min(Integer.MAX_VALUE, tasks);
    }

    /**
     * The compaction pointers a node should start with, as Cassandra sets them on start: for each
     * level n below the last, the last token of the newest sstable of level n + 1 (newest by
     * generation here, by creation time in Cassandra), so the first round through level n begins
     * after where the latest compaction out of it ended. {@code range} names whose pointers they
     * are ({@link TokenRanges#SPANNING} for a picker over the whole ring).
     */
    public static VersionEdit startupPointers(List<SSTableInfo> sstables, int range) {
        SSTableInfo[] newest = new SSTableInfo[SSTableInfo.MAX_LEVEL + 1];
        for (int i = 0; i < sstables.size(); i++) {
            SSTableInfo s = sstables.get(i);
            if (newest[s.level()] == null || s.generation() > newest[s.level()].generation()) newest[s.level()] = s;
        }
        VersionEdit.Builder b = VersionEdit.builder();
        for (int level = 0; level < SSTableInfo.MAX_LEVEL; level++) {
            if (newest[level + 1] != null) b.setCompactPointer(range, level, newest[level + 1].lastToken());
        }
        return b.build();
    }

    /** {@link #startupPointers} over the whole ring. */
    @Override
    public VersionEdit startupEdit(Version version) {
        return startupPointers(version.sstables(), TokenRanges.SPANNING);
    }

    @Override
    public CompactionPick pick(Version version, Set<Integer> compacting) {
        return pickFrom(version.sstables(), compacting, version, NAME, TokenRanges.SPANNING, Long.MIN_VALUE, Long.MAX_VALUE,
                VersionEdit.KEEP_CURSOR);
    }

    /**
     * The leveled pick among {@code candidates} (all of a version, or one range's sstables in it),
     * leaving out what is {@code compacting}, using the compaction pointers of {@code range} in
     * {@code version}; null if none.
     */
    CompactionPick pickFrom(List<SSTableInfo> candidates, Set<Integer> compacting, Version version, String strategy, int range,
                            long lo, long hi, int nextRangeCursor) {
        List<List<SSTableInfo>> levels = new ArrayList<>();
        for (int l = 0; l <= SSTableInfo.MAX_LEVEL; l++) levels.add(new ArrayList<>());
        for (int i = 0; i < candidates.size(); i++) levels.get(candidates.get(i).level()).add(candidates.get(i));
        for (int l = 0; l <= SSTableInfo.MAX_LEVEL; l++) levels.get(l).sort(Version.BY_FIRST_TOKEN);
        List<SSTableInfo> l0 = levels.get(0);

        // Whether L0 is too far behind counts every L0 sstable; the tier is chosen among the idle ones.
        List<SSTableInfo> l0Tier = null;
        if (l0.size() > MAX_COMPACTING_L0) {
            List<SSTableInfo> idle = new ArrayList<>();
            for (int i = 0; i < l0.size(); i++) if (!compacting.contains(l0.get(i).generation())) idle.add(l0.get(i));
            List<SSTableInfo> tier = SizeTieredPicker.mostInterestingBucket(
                    SizeTieredPicker.buckets(idle, options.bucketHigh(), options.bucketLow(), options.minSSTableSizeBytes()),
                    options.minThreshold(), options.maxThreshold());
            if (!tier.isEmpty()) l0Tier = tier;
        }

        for (int level = SSTableInfo.MAX_LEVEL; level > 0; level--) {
            List<SSTableInfo> sstables = levels.get(level);
            if (sstables.isEmpty()) continue;
            // The score leaves out what is already being compacted away.
            long bytes = 0;
            for (int i = 0; i < sstables.size(); i++) {
                if (!compacting.contains(sstables.get(i).generation())) bytes += sstables.get(i).sizeBytes();
            }
            double score = (double) bytes / maxBytesForLevel(level);
            if (score <= SCORE_THRESHOLD) continue;
            // The last level has nowhere to go; Cassandra only warns.
            if (level == SSTableInfo.MAX_LEVEL) continue;
            if (l0Tier != null) {
                return l0TierPick(l0Tier, l0.size(), version, strategy, range, lo, hi, nextRangeCursor,
                        String.format(Locale.ROOT, ", before L%d (score %.3f)", level, score));
            }
            List<SSTableInfo> picked = levelCandidates(sstables, levels.get(level + 1), compacting, version, range, level);
            if (picked == null) continue;   // everything there is busy: try the levels below
            String reason = String.format(Locale.ROOT, "L%d score %.3f (%s of %s) is over %.3f; %s and the %d L%d sstables it overlaps",
                    level, score, SSTableInfo.formatBytes(bytes), SSTableInfo.formatBytes(maxBytesForLevel(level)), SCORE_THRESHOLD,
                    version.hasCompactPointer(range, level) ? "next idle sstable after the compaction pointer" : "first idle sstable of the level",
                    picked.size() - 1, level + 1);
            return new CompactionPick(strategy, range, lo, hi, picked, nextLevel(picked), options.maxSSTableSizeBytes(), new long[0],
                    version.maxPurgeableTimestamp(picked), true, nextRangeCursor, reason);
        }

        if (l0.isEmpty()) return null;
        List<SSTableInfo> picked = l0Candidates(l0, levels.get(1), compacting);
        if (picked.size() < 2) {
            if (l0Tier == null) return null;
            return l0TierPick(l0Tier, l0.size(), version, strategy, range, lo, hi, nextRangeCursor, "");
        }
        int outputLevel = nextLevel(picked);
        int fromL0 = 0;
        for (int i = 0; i < picked.size(); i++) if (picked.get(i).level() == 0) fromL0++;
        String reason = outputLevel == 0
                ? "higher levels within their scores; " + fromL0 + " L0 sstables together under sstable_size_in_mb stay in L0"
                : "higher levels within their scores; " + fromL0 + " L0 sstables with the " + (picked.size() - fromL0) + " L1 sstables they overlap";
        return new CompactionPick(strategy, range, lo, hi, picked, outputLevel, options.maxSSTableSizeBytes(), new long[0],
                version.maxPurgeableTimestamp(picked), true, nextRangeCursor, reason);
    }

    private CompactionPick l0TierPick(List<SSTableInfo> tier, int l0Count, Version version, String strategy, int range, long lo,
                                      long hi, int nextRangeCursor, String when) {
        String reason = "L0 has " + l0Count + " sstables, more than " + MAX_COMPACTING_L0 + ": size-tiering L0" + when + "; "
                + "size tier of " + tier.size() + " sstables averaging " + SSTableInfo.formatBytes(SizeTieredPicker.averageBytes(tier));
        return new CompactionPick(strategy, range, lo, hi, tier, 0, Long.MAX_VALUE, new long[0],
                version.maxPurgeableTimestamp(tier), true, nextRangeCursor, reason);
    }

    /**
     * A level's candidates: going round the level from the first sstable (by first token) that
     * starts after the level's compaction pointer (from its first sstable if there is no pointer,
     * or none starts after it), the first sstable that, with every sstable of the next level it
     * overlaps, is idle; null if there is none.
     */
    private static List<SSTableInfo> levelCandidates(List<SSTableInfo> byFirstToken, List<SSTableInfo> next, Set<Integer> compacting,
                                                     Version version, int range, int level) {
        int n = byFirstToken.size();
        int start = 0;
        if (version.hasCompactPointer(range, level)) {
            long pointer = version.compactPointer(range, level);
            while (start < n && byFirstToken.get(start).firstToken() <= pointer) start++;
            if (start == n) start = 0;
        }
        for (int k = 0; k < n; k++) {
            SSTableInfo first = byFirstToken.get((start + k) % n);
            if (compacting.contains(first.generation())) continue;
            List<SSTableInfo> picked = new ArrayList<>();
            picked.add(first);
            boolean busy = false;
            for (int i = 0; i < next.size() && !busy; i++) {
                if (next.get(i).overlaps(first)) {
                    picked.add(next.get(i));
                    busy = compacting.contains(next.get(i).generation());
                }
            }
            if (!busy) return picked;
        }
        return null;
    }

    /**
     * L0's candidates: oldest first (by max timestamp, then generation), each with every remaining
     * L0 sstable that overlaps it, until more than max_threshold are gathered, then the
     * max_threshold oldest; if they hold more than one sstable_size, with the L1 sstables that
     * overlap their combined span. With compactions running: an sstable whose overlapping set
     * holds a compacting L0 sstable is passed over, and an sstable that overlaps the compacting L0
     * sstables' combined span is left out; if the L1 sstables to add, or the compacting L0 ones,
     * overlap the candidates, nothing is picked (empty), as in Cassandra.
     */
    private List<SSTableInfo> l0Candidates(List<SSTableInfo> l0, List<SSTableInfo> l1, Set<Integer> compacting) {
        List<SSTableInfo> compactingL0 = new ArrayList<>();
        long busyFirst = Long.MAX_VALUE, busyLast = Long.MIN_VALUE;
        for (int i = 0; i < l0.size(); i++) {
            SSTableInfo s = l0.get(i);
            if (compacting.contains(s.generation())) {
                compactingL0.add(s);
                busyFirst = Math.min(busyFirst, s.firstToken());
                busyLast = Math.max(busyLast, s.lastToken());
            }
        }
        List<SSTableInfo> byAge = new ArrayList<>(l0);
        byAge.sort(LeveledPicker::compareAge);
        List<SSTableInfo> remaining = new ArrayList<>(byAge);
        Set<Integer> chosen = new HashSet<>();
        List<SSTableInfo> candidates = new ArrayList<>();
        for (int i = 0; i < byAge.size(); i++) {
            SSTableInfo s = byAge.get(i);
            if (chosen.contains(s.generation())) continue;
            List<SSTableInfo> overlapped = new ArrayList<>();
            overlapped.add(s);
            for (int j = 0; j < remaining.size(); j++) {
                SSTableInfo r = remaining.get(j);
                if (r != s && r.overlaps(s)) overlapped.add(r);
            }
            boolean touchesBusy = false;
            for (int j = 0; j < overlapped.size() && !touchesBusy; j++) touchesBusy = compacting.contains(overlapped.get(j).generation());
            if (touchesBusy) continue;
            Set<Integer> drop = new HashSet<>();
            for (int j = 0; j < overlapped.size(); j++) {
                SSTableInfo c = overlapped.get(j);
                if ((compactingL0.isEmpty() || !c.overlaps(busyFirst, busyLast)) && chosen.add(c.generation())) candidates.add(c);
                drop.add(c.generation());
            }
            remaining.removeIf(r -> drop.contains(r.generation()));
            if (candidates.size() > options.maxThreshold()) {
                candidates.sort(LeveledPicker::compareAge);
                candidates = new ArrayList<>(candidates.subList(0, options.maxThreshold()));
                break;
            }
        }
        long bytes = 0;
        long first = Long.MAX_VALUE, last = Long.MIN_VALUE;
        for (int i = 0; i < candidates.size(); i++) {
            SSTableInfo c = candidates.get(i);
            bytes += c.sizeBytes();
            first = Math.min(first, c.firstToken());
            last = Math.max(last, c.lastToken());
        }
        if (bytes > options.maxSSTableSizeBytes()) {
            List<SSTableInfo> withL1 = new ArrayList<>(candidates);
            for (int i = 0; i < l1.size(); i++) {
                if (!l1.get(i).overlaps(first, last)) continue;
                if (compacting.contains(l1.get(i).generation())) return new ArrayList<>();
                withL1.add(l1.get(i));
            }
            for (int i = 0; i < compactingL0.size(); i++) if (compactingL0.get(i).overlaps(first, last)) return new ArrayList<>();
            candidates = withL1;
        }
        return candidates;
    }

    private static int compareAge(SSTableInfo a, SSTableInfo b) {
        int c = Long.compare(a.maxTimestamp(), b.maxTimestamp());
        return c != 0 ? c : Integer.compare(a.generation(), b.generation());
    }

    /**
     * The level a compaction of {@code sstables} writes: L0 if they are all in L0 and together no
     * bigger than one sstable_size; else one above their level if they share it, else the
     * highest of their levels.
     */
    int nextLevel(List<SSTableInfo> sstables) {
        int min = Integer.MAX_VALUE, max = Integer.MIN_VALUE;
        long bytes = 0;
        for (int i = 0; i < sstables.size(); i++) {
            min = Math.min(min, sstables.get(i).level());
            max = Math.max(max, sstables.get(i).level());
            bytes += sstables.get(i).sizeBytes();
        }
        if (max == 0 && bytes <= options.maxSSTableSizeBytes()) return 0;
        return min == max ? max + 1 : max;
    }

    @Override
    public String toString() {
        return NAME + options;
    }
}

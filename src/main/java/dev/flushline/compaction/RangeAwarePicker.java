package dev.flushline.compaction;

import dev.flushline.data.TokenRanges;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Range-aware compaction over a size-tiered or leveled strategy: the token ring is cut into
 * ranges (even ranges, or a node's vnode ranges) and, once there is enough data in a range to be
 * worth an sstable of its own, no compaction mixes two ranges, so each range's data can later be
 * streamed, repaired or dropped on its own. Each range runs its own instance of the wrapped
 * strategy.
 *
 * <p>An sstable lies in one range (first and last token in the same range) and belongs to that
 * range's strategy instance, with its level; or it spans ranges and waits in the shared bucket,
 * whatever its size (flushes land there). The order of choice:
 * <ol>
 *   <li>The shared bucket, by size-tiered rules: its most interesting size tier. The merged
 *       output is routed range by range (the split rule below): a range whose estimated share is
 *       at least min_range_sstable_size_in_mb gets an sstable of its own, in L0 of that range; the
 *       partitions of all the other ranges go together into one pooled sstable, which spans ranges
 *       and so goes back to the shared bucket. If no range reaches the minimum the output is one
 *       spanning sstable, exactly what plain size-tiered compaction writes.
 *   <li>The ranges' own strategies, taking turns: starting at the version's range cursor, the
 *       first range whose strategy picks something. The cursor then moves past it, so a busy
 *       range cannot starve the ones after it. The pick's bounds are that range's; its output
 *       never leaves it.
 * </ol>
 * The shared bucket goes first because its sstables cost every range a read. Sstables already
 * being compacted are left out of every step (a range's leveled strategy leaves them out by its
 * own rules).
 *
 * <p>The split rule (the one of the range-aware design this follows): a range's share of a
 * compaction is estimated before anything is written, as the sum over the inputs of the bytes
 * each holds in that range, and compared with the minimum ({@code share >= min} splits). The
 * design read each input's index for the Data.db positions of the range; the picker is a pure
 * function of the version, which carries each sstable's first and last token and Data.db size,
 * so an input's bytes in a range are estimated as its size times the fraction of its token span
 * [first, last] that lies in the range. Murmur3 spreads keys evenly over the ring, so for an
 * sstable of more than a handful of partitions that fraction is its share of the partitions, and
 * of the bytes unless partition sizes vary with the token. The design also multiplied by an
 * estimate of the compaction's gain (the fraction of keys that are not overwritten); the version
 * has no key cardinalities, so the gain is taken as 1: an upper bound on the share, which can
 * only make a range split a little sooner. Why share and not the inputs' whole size: a flush
 * spans every range, and cutting it into one sstable per range as soon as it is bigger than the
 * minimum makes hundreds of sstables of a few KiB each (one per vnode range) for every flush; by
 * share, data stays together until each range's part is worth an sstable, and a minimum larger
 * than any range's share never splits, so the strategy then behaves as plain size-tiered.
 *
 * <p>Difference from that design: its leveled variant put a range's split output straight into
 * L1 of the range; we put it in L0, where the range's strategy sizes it like a flush.
 *
 * <p>Thread safety: immutable.
 */
public final class RangeAwarePicker implements CompactionPicker {
    private final CompactionStrategyOptions options;
    private final TokenRanges ranges;
    private final SizeTieredPicker sizeTiered;
    private final LeveledPicker leveled;
    private final String name;

    public RangeAwarePicker(CompactionStrategyOptions options, TokenRanges ranges) {
        if (ranges == null) throw new IllegalArgumentException("range-aware compaction needs the token ranges");
        this.options = options;
        this.ranges = ranges;
        boolean lcs = options.kind() == CompactionStrategyOptions.Kind.LEVELED;
        this.sizeTiered = lcs ? null : new SizeTieredPicker(options);
        this.leveled = lcs ? new LeveledPicker(options) : null;
        this.name = "RangeAware(" + options.kind().className + ")";
    }

    public TokenRanges ranges() { return ranges; }

    public CompactionStrategyOptions options() { return options; }

    /** The range {@code sstable} belongs to, or {@link TokenRanges#SPANNING} for the shared bucket. */
    public int bucketOf(SSTableInfo sstable) {
        return ranges.rangeOf(sstable.firstToken(), sstable.lastToken());
    }

    @Override
    public CompactionPick pick(Version version, Set<Integer> compacting) {
        List<SSTableInfo> shared = new ArrayList<>();
        List<List<SSTableInfo>> perRange = split(version, shared, compacting);

        List<List<SSTableInfo>> tiers = SizeTieredPicker.buckets(shared, options.bucketHigh(), options.bucketLow(), options.minSSTableSizeBytes());
        List<SSTableInfo> tier = SizeTieredPicker.mostInterestingBucket(tiers, options.minThreshold(), options.maxThreshold());
        if (!tier.isEmpty()) return sharedPick(version, tier, tiers);

        int n = ranges.size();
        int start = Math.floorMod(version.nextRangeCursor(), n);
        for (int k = 0; k < n; k++) {
            int r = (start + k) % n;
            List<SSTableInfo> sstables = perRange.get(r);
            if (sstables.isEmpty()) continue;
            int cursor = (r + 1) % n;
            CompactionPick p = leveled != null
                    ? leveled.pickFrom(sstables, compacting, version, name, r, ranges.lo(r), ranges.hi(r), cursor)
                    : sizeTiered.pickFrom(SizeTieredPicker.idle(sstables, compacting), version, name, r, ranges.lo(r), ranges.hi(r), cursor);
            if (p != null) return p;
        }
        return null;
    }

    /**
     * The compaction of a shared tier: split at every range boundary inside the tier's span, with
     * the ranges whose estimated share is under the minimum pooled into one output.
     */
    private CompactionPick sharedPick(Version version, List<SSTableInfo> tier, List<List<SSTableInfo>> tiers) {
        long first = Long.MAX_VALUE, last = Long.MIN_VALUE;
        for (int i = 0; i < tier.size(); i++) {
            first = Math.min(first, tier.get(i).firstToken());
            last = Math.max(last, tier.get(i).lastToken());
        }
        double[] shares = estimatedShares(tier, first, last);
        long minRangeBytes = options.minRangeSSTableSizeBytes();
        int own = 0;
        boolean[] pooled = new boolean[shares.length];
        for (int j = 0; j < shares.length; j++) {
            pooled[j] = shares[j] < minRangeBytes;
            if (!pooled[j]) own++;
        }
        long[] splits;
        String rule;
        if (own == 0) {
            splits = new long[0];
            pooled = new boolean[0];
            rule = "; no range's share reaches min_range_sstable_size_in_mb (" + SSTableInfo.formatBytes(minRangeBytes)
                    + "): the output stays in the shared bucket";
        } else {
            splits = ranges.boundariesWithin(first, last);
            if (own == shares.length) pooled = new boolean[0];
            rule = "; " + own + " of " + shares.length + " ranges' shares reach min_range_sstable_size_in_mb ("
                    + SSTableInfo.formatBytes(minRangeBytes) + "): split at the range boundaries"
                    + (own < shares.length ? ", the other ranges pooled into one output in the shared bucket" : "");
        }
        String reason = "shared bucket of spanning sstables first; " + SizeTieredPicker.reason(tier, tiers, options) + rule;
        return new CompactionPick(name, TokenRanges.SPANNING, Long.MIN_VALUE, Long.MAX_VALUE, tier, 0, Long.MAX_VALUE, splits, pooled,
                version.maxPurgeableTimestamp(tier), false, VersionEdit.KEEP_CURSOR, reason);
    }

    /**
     * The estimated bytes a compaction of {@code inputs} writes into each range that [first, last]
     * touches, in ring order (element 0 is the range holding {@code first}): each input's Data.db
     * size times the fraction of its token span inside the range.
     */
    double[] estimatedShares(List<SSTableInfo> inputs, long first, long last) {
        int a = ranges.indexOf(first), b = ranges.indexOf(last);
        double[] shares = new double[b - a + 1];
        for (int i = 0; i < inputs.size(); i++) {
            SSTableInfo s = inputs.get(i);
            double span = width(s.firstToken(), s.lastToken());
            int ra = ranges.indexOf(s.firstToken()), rb = ranges.indexOf(s.lastToken());
            for (int r = ra; r <= rb; r++) {
                long lo = Math.max(s.firstToken(), ranges.lo(r)), hi = Math.min(s.lastToken(), ranges.hi(r));
                shares[r - a] += s.sizeBytes() * (width(lo, hi) / span);
            }
        }
        return shares;
    }

    /** The number of tokens in [a, b] (a <= b), as a double: the whole ring does not fit a long. */
    private static double width(long a, long b) {
        return (double) b - (double) a + 1.0;
    }

    /**
     * Cassandra's pending-task estimate, summed: the shared bucket's size-tiered estimate and each
     * range's own strategy's estimate.
     */
    @Override
    public int estimatedRemainingTasks(Version version) {
        List<SSTableInfo> shared = new ArrayList<>();
        List<List<SSTableInfo>> perRange = split(version, shared, Set.of());
        long tasks = SizeTieredPicker.estimatedTasks(shared, options);
        for (int r = 0; r < perRange.size(); r++) {
            if (perRange.get(r).isEmpty()) continue;
            tasks += leveled != null ? leveled.estimatedTasks(perRange.get(r)) : SizeTieredPicker.estimatedTasks(perRange.get(r), options);
        }
        return (int) Math.min(Integer.MAX_VALUE, tasks);
    }

    /** {@link #startupPointers}. */
    @Override
    public VersionEdit startupEdit(Version version) {
        return startupPointers(version);
    }

    /**
     * The leveled compaction pointers to start with, range by range (see
     * {@link LeveledPicker#startupPointers}); an empty edit over size-tiered ranges.
     */
    public VersionEdit startupPointers(Version version) {
        VersionEdit.Builder b = VersionEdit.builder();
        if (leveled == null) return b.build();
        List<List<SSTableInfo>> perRange = split(version, new ArrayList<>(), Set.of());
        for (int r = 0; r < perRange.size(); r++) {
            VersionEdit e = LeveledPicker.startupPointers(perRange.get(r), r);
            for (int i = 0; i < e.pointerCount(); i++) b.setCompactPointer(r, e.pointerLevel(i), e.pointerToken(i));
        }
        return b.build();
    }

    /**
     * Each range's sstables (all of them: a range's strategy leaves out the compacting ones by its
     * own rules); the spanning ones not being compacted go to {@code shared}.
     */
    private List<List<SSTableInfo>> split(Version version, List<SSTableInfo> shared, Set<Integer> compacting) {
        List<List<SSTableInfo>> perRange = new ArrayList<>(ranges.size());
        for (int r = 0; r < ranges.size(); r++) perRange.add(new ArrayList<>());
        List<SSTableInfo> all = version.sstables();
        for (int i = 0; i < all.size(); i++) {
            SSTableInfo s = all.get(i);
            int r = ranges.rangeOf(s.firstToken(), s.lastToken());
            if (r != TokenRanges.SPANNING) perRange.get(r).add(s);
            else if (!compacting.contains(s.generation())) shared.add(s);
        }
        return perRange;
    }

    @Override
    public String toString() {
        return name + options + " over " + ranges;
    }
}

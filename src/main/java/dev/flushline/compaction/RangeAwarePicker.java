package dev.flushline.compaction;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Range-aware compaction over a size-tiered or leveled strategy: the token ring is cut into
 * ranges (even ranges, or a node's vnode ranges) and, once sstables are big enough to be worth
 * it, no compaction mixes two ranges, so each range's data can later be streamed, repaired or
 * dropped on its own. Each range runs its own instance of the wrapped strategy.
 *
 * <p>An sstable lies in one range (first and last token in the same range) and belongs to that
 * range's strategy instance, with its level; or it spans ranges. A spanning sstable no bigger than
 * min_range_sstable_size_in_mb waits in a shared bucket, unsplit, since cutting it would make one
 * tiny sstable per range. The order of choice:
 * <ol>
 *   <li>A spanning sstable bigger than min_range_sstable_size_in_mb (the largest first): rewrite it
 *       alone, split at each range boundary inside its span, into L0 of those ranges.
 *   <li>The shared bucket, by size-tiered rules: its most interesting size tier. The output is
 *       split at the range boundaries if the tier's total is bigger than min_range_sstable_size,
 *       and stays one spanning sstable in the shared bucket if not.
 *   <li>The ranges' own strategies, taking turns: starting at the version's range cursor, the
 *       first range whose strategy picks something. The cursor then moves past it, so a busy
 *       range cannot starve the ones after it. The pick's bounds are that range's; its output
 *       never leaves it.
 * </ol>
 * The shared bucket goes first because its sstables cost every range a read. Sstables already
 * being compacted are left out of every step (a range's leveled strategy leaves them out by its
 * own rules).
 *
 * <p>Differences from the range-aware design this follows: it decided to split by an estimate of
 * each range's share of the output; we decide by the sstable's whole size (the share would need
 * per-range sizes the version does not carry). Its leveled variant put the split output straight
 * into L1 of each range; we put it in L0, where the range's strategy sizes it like a flush.
 *
 * <p>Thread safety: immutable.
 */
public final class RangeAwarePicker implements CompactionPicker {
    private final CompactionStrategyOptions options;
    private final CompactionRanges ranges;
    private final SizeTieredPicker sizeTiered;
    private final LeveledPicker leveled;
    private final String name;

    public RangeAwarePicker(CompactionStrategyOptions options, CompactionRanges ranges) {
        if (ranges == null) throw new IllegalArgumentException("range-aware compaction needs the token ranges");
        this.options = options;
        this.ranges = ranges;
        boolean lcs = options.kind() == CompactionStrategyOptions.Kind.LEVELED;
        this.sizeTiered = lcs ? null : new SizeTieredPicker(options);
        this.leveled = lcs ? new LeveledPicker(options) : null;
        this.name = "RangeAware(" + options.kind().className + ")";
    }

    public CompactionRanges ranges() { return ranges; }

    /** The range {@code sstable} belongs to, or {@link CompactionRanges#SPANNING} for the shared bucket. */
    public int bucketOf(SSTableInfo sstable) {
        return ranges.rangeOf(sstable);
    }

    @Override
    public CompactionPick pick(Version version, Set<Integer> compacting) {
        List<SSTableInfo> all = version.sstables();
        long minRangeBytes = options.minRangeSSTableSizeBytes();
        List<SSTableInfo> shared = new ArrayList<>();
        List<List<SSTableInfo>> perRange = new ArrayList<>(ranges.size());
        for (int r = 0; r < ranges.size(); r++) perRange.add(new ArrayList<>());
        SSTableInfo largestSpanning = null;
        for (int i = 0; i < all.size(); i++) {
            SSTableInfo s = all.get(i);
            int r = ranges.rangeOf(s);
            if (r != CompactionRanges.SPANNING) {
                perRange.get(r).add(s);
            } else if (compacting.contains(s.generation())) {
                continue;
            } else if (s.sizeBytes() > minRangeBytes) {
                if (largestSpanning == null || s.sizeBytes() > largestSpanning.sizeBytes()) largestSpanning = s;
            } else {
                shared.add(s);
            }
        }

        if (largestSpanning != null) {
            List<SSTableInfo> in = List.of(largestSpanning);
            long[] splits = ranges.boundariesWithin(largestSpanning.firstToken(), largestSpanning.lastToken());
            String reason = "spans " + (splits.length + 1) + " ranges and is bigger than min_range_sstable_size_in_mb ("
                    + SSTableInfo.formatBytes(minRangeBytes) + "): split at the range boundaries";
            return new CompactionPick(name, CompactionRanges.SPANNING, Long.MIN_VALUE, Long.MAX_VALUE, in, 0, Long.MAX_VALUE, splits,
                    version.maxPurgeableTimestamp(in), false, VersionEdit.KEEP_CURSOR, reason);
        }

        List<List<SSTableInfo>> tiers = SizeTieredPicker.buckets(shared, options.bucketHigh(), options.bucketLow(), options.minSSTableSizeBytes());
        List<SSTableInfo> tier = SizeTieredPicker.mostInterestingBucket(tiers, options.minThreshold(), options.maxThreshold());
        if (!tier.isEmpty()) {
            long bytes = 0, first = Long.MAX_VALUE, last = Long.MIN_VALUE;
            for (int i = 0; i < tier.size(); i++) {
                bytes += tier.get(i).sizeBytes();
                first = Math.min(first, tier.get(i).firstToken());
                last = Math.max(last, tier.get(i).lastToken());
            }
            boolean split = bytes > minRangeBytes;
            long[] splits = split ? ranges.boundariesWithin(first, last) : new long[0];
            String reason = "shared bucket of spanning sstables first; " + SizeTieredPicker.reason(tier, tiers, options)
                    + (split ? "; together bigger than min_range_sstable_size_in_mb: split at the range boundaries"
                             : "; together no bigger than min_range_sstable_size_in_mb: the output stays in the shared bucket");
            return new CompactionPick(name, CompactionRanges.SPANNING, Long.MIN_VALUE, Long.MAX_VALUE, tier, 0, Long.MAX_VALUE, splits,
                    version.maxPurgeableTimestamp(tier), false, VersionEdit.KEEP_CURSOR, reason);
        }

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
     * Cassandra's pending-task estimate, summed: one per big spanning sstable, the shared bucket's
     * size-tiered estimate, and each range's own strategy's estimate.
     */
    @Override
    public int estimatedRemainingTasks(Version version) {
        List<SSTableInfo> shared = new ArrayList<>();
        List<List<SSTableInfo>> perRange = split(version, shared);
        long tasks = SizeTieredPicker.estimatedTasks(shared, options);
        for (SSTableInfo s : version.sstables()) {
            if (ranges.rangeOf(s) == CompactionRanges.SPANNING && s.sizeBytes() > options.minRangeSSTableSizeBytes()) tasks++;
        }
        for (int r = 0; r < perRange.size(); r++) {
            if (perRange.get(r).isEmpty()) continue;
            tasks += leveled != null ? leveled.estimatedTasks(perRange.get(r)) : SizeTieredPicker.estimatedTasks(perRange.get(r), options);
        }
        return (int) Math.min(Integer.MAX_VALUE, tasks);
    }

    /**
     * The leveled compaction pointers to start with, range by range (see
     * {@link LeveledPicker#startupPointers}); an empty edit over size-tiered ranges.
     */
    public VersionEdit startupPointers(Version version) {
        VersionEdit.Builder b = VersionEdit.builder();
        if (leveled == null) return b.build();
        List<List<SSTableInfo>> perRange = split(version, new ArrayList<>());
        for (int r = 0; r < perRange.size(); r++) {
            VersionEdit e = LeveledPicker.startupPointers(perRange.get(r), r);
            for (int i = 0; i < e.pointerCount(); i++) b.setCompactPointer(r, e.pointerLevel(i), e.pointerToken(i));
        }
        return b.build();
    }

    /** Each range's sstables; the spanning ones no bigger than the minimum go to {@code shared}. */
    private List<List<SSTableInfo>> split(Version version, List<SSTableInfo> shared) {
        List<List<SSTableInfo>> perRange = new ArrayList<>(ranges.size());
        for (int r = 0; r < ranges.size(); r++) perRange.add(new ArrayList<>());
        for (SSTableInfo s : version.sstables()) {
            int r = ranges.rangeOf(s);
            if (r != CompactionRanges.SPANNING) perRange.get(r).add(s);
            else if (s.sizeBytes() <= options.minRangeSSTableSizeBytes()) shared.add(s);
        }
        return perRange;
    }

    @Override
    public String toString() {
        return name + options + " over " + ranges;
    }
}

package dev.flushline.compaction;

/**
 * A compaction strategy's decision: given a version of a table's sstables, the next compaction
 * to run, or null when the table needs none. A picker does no I/O and keeps no state between
 * calls: what it must remember (the leveled strategy's compaction pointers, the range-aware
 * cursor) lives in the version and moves forward through {@link CompactionPick#edit}. So the same
 * version always gets the same answer, and a test can hand a picker any synthetic version.
 *
 * <p>Pickers assume nothing else is compacting the version's sstables: run one compaction per
 * table at a time, pick again on the version its edit produced.
 *
 * <p>Thread safety: implementations are immutable.
 */
public interface CompactionPicker {
    /** The next compaction for {@code version}, or null. */
    CompactionPick pick(Version version);

    /**
     * About how many compactions {@code version} needs before the picker is at rest: Cassandra's
     * "pending tasks" estimate for the strategy, for logs and metrics. Not a promise.
     */
    int estimatedRemainingTasks(Version version);

    /** The picker for {@code options}: size-tiered, leveled, or either one range-aware over {@code ranges}. */
    static CompactionPicker create(CompactionStrategyOptions options, CompactionRanges ranges) {
        if (options.rangeAware()) return new RangeAwarePicker(options, ranges);
        return options.kind() == CompactionStrategyOptions.Kind.LEVELED ? new LeveledPicker(options) : new SizeTieredPicker(options);
    }
}

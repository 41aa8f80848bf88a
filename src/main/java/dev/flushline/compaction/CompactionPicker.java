package dev.flushline.compaction;

import dev.flushline.data.TokenRanges;
import java.util.Set;

/**
 * A compaction strategy's decision: given a version of a table's sstables, the next compaction
 * to run, or null when the table needs none. A picker does no I/O and keeps no state between
 * calls: what it must remember (the leveled strategy's compaction pointers, the range-aware
 * cursor) lives in the version and moves forward through {@link CompactionPick#edit}. So the same
 * version always gets the same answer, and a test can hand a picker any synthetic version.
 *
 * <p>To run compactions of one table at the same time, pass the running ones' inputs as
 * {@code compacting}; otherwise run one at a time and pick again on the version its edit produced.
 *
 * <p>Thread safety: implementations are immutable.
 */
public interface CompactionPicker {
    /** The next compaction for {@code version}, with nothing else compacting; or null. */
    default CompactionPick pick(Version version) {
        return pick(version, Set.of());
    }

    /**
     * The next compaction for {@code version} that leaves alone the sstables whose generations are
     * in {@code compacting} (inputs of compactions still running); or null. The picks of running
     * compactions and this one can then run at the same time: they share no input, and the
     * strategy's rules keep their outputs from breaking its invariants when both edits apply.
     */
    CompactionPick pick(Version version, Set<Integer> compacting);

    /**
     * About how many compactions {@code version} needs before the picker is at rest: Cassandra's
     * "pending tasks" estimate for the strategy, for logs and metrics. Not a promise.
     */
    int estimatedRemainingTasks(Version version);

    /**
     * The edit a node applies to the version it builds from the sstables on disk at start, before
     * its first pick: the state this picker keeps in the version and that the sstables do not
     * record (the leveled compaction pointers, set as Cassandra sets them on start). Empty for a
     * picker that keeps none.
     */
    default VersionEdit startupEdit(Version version) {
        return VersionEdit.builder().build();
    }

    /** The picker for {@code options}: size-tiered, leveled, or either one range-aware over {@code ranges}. */
    static CompactionPicker create(CompactionStrategyOptions options, TokenRanges ranges) {
        if (options.rangeAware()) return new RangeAwarePicker(options, ranges);
        return options.kind() == CompactionStrategyOptions.Kind.LEVELED ? new LeveledPicker(options) : new SizeTieredPicker(options);
    }
}

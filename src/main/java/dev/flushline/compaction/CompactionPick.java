package dev.flushline.compaction;

import dev.flushline.data.TokenRanges;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * One compaction a picker chose: which sstables to merge, and how to cut and label the output.
 * The merge engine needs nothing else from the strategy:
 * <ul>
 *   <li>{@link #inputs}: the sstables to merge (live in the version the pick came from);
 *   <li>{@link #outputLevel}: the level every output sstable gets;
 *   <li>{@link #maxOutputBytes}: start a new output sstable once the current one reaches this size
 *       (Long.MAX_VALUE: never for size);
 *   <li>{@link #splitTokens}: start a new output sstable at each of these tokens, so no output
 *       holds partitions on both sides of one (range boundaries);
 *   <li>{@link #pooledSegments}: empty, or one flag per segment between split tokens; the
 *       partitions of every flagged segment go to one shared output instead of one per segment,
 *       and that output alone may cross split tokens (a range-aware split where some ranges' share
 *       is too small for an sstable of its own);
 *   <li>{@link #boundFirstToken}..{@link #boundLastToken}: every output lies inside (a range's
 *       bounds, or the whole ring);
 *   <li>{@link #maxPurgeableTimestamp}: a tombstone may be purged only if its timestamp is below
 *       this (and gc_grace has passed, and it is below the memtables' smallest timestamp too).
 * </ul>
 * {@link #edit} then turns the sstables the merge wrote into the edit that makes the next version.
 *
 * <p>Thread safety: immutable.
 */
public final class CompactionPick {
    private final String strategy;
    private final int range;
    private final long boundFirstToken;
    private final long boundLastToken;
    private final List<SSTableInfo> inputs;
    private final int sourceLevel;
    private final int outputLevel;
    private final long maxOutputBytes;
    private final long[] splitTokens;
    private final boolean[] pooledSegments;
    private final long maxPurgeableTimestamp;
    private final boolean setsCompactPointer;
    private final int nextRangeCursor;
    private final String reason;

    CompactionPick(String strategy, int range, long boundFirstToken, long boundLastToken, List<SSTableInfo> inputs,
                   int outputLevel, long maxOutputBytes, long[] splitTokens, long maxPurgeableTimestamp,
                   boolean setsCompactPointer, int nextRangeCursor, String reason) {
        this(strategy, range, boundFirstToken, boundLastToken, inputs, outputLevel, maxOutputBytes, splitTokens, new boolean[0],
                maxPurgeableTimestamp, setsCompactPointer, nextRangeCursor, reason);
    }

    CompactionPick(String strategy, int range, long boundFirstToken, long boundLastToken, List<SSTableInfo> inputs,
                   int outputLevel, long maxOutputBytes, long[] splitTokens, boolean[] pooledSegments, long maxPurgeableTimestamp,
                   boolean setsCompactPointer, int nextRangeCursor, String reason) {
        if (inputs.isEmpty()) throw new IllegalArgumentException("a compaction needs inputs");
        List<SSTableInfo> sorted = new ArrayList<>(inputs);
        sorted.sort(Version.BY_GENERATION);
        int minLevel = Integer.MAX_VALUE;
        for (int i = 0; i < sorted.size(); i++) minLevel = Math.min(minLevel, sorted.get(i).level());
        for (int i = 1; i < splitTokens.length; i++) {
            if (splitTokens[i] <= splitTokens[i - 1]) throw new IllegalArgumentException("split tokens not increasing: " + Arrays.toString(splitTokens));
        }
        this.strategy = strategy;
        this.range = range;
        this.boundFirstToken = boundFirstToken;
        this.boundLastToken = boundLastToken;
        this.inputs = Collections.unmodifiableList(sorted);
        this.sourceLevel = minLevel;
        this.outputLevel = outputLevel;
        this.maxOutputBytes = maxOutputBytes;
        if (pooledSegments.length != 0 && pooledSegments.length != splitTokens.length + 1) {
            throw new IllegalArgumentException("pooled segment flags: " + pooledSegments.length + " for " + (splitTokens.length + 1) + " segments");
        }
        this.splitTokens = splitTokens.clone();
        this.pooledSegments = pooledSegments.clone();
        this.maxPurgeableTimestamp = maxPurgeableTimestamp;
        this.setsCompactPointer = setsCompactPointer;
        this.nextRangeCursor = nextRangeCursor;
        this.reason = reason;
    }

    /** The strategy that chose this, e.g. {@code LeveledCompactionStrategy} or {@code RangeAware(SizeTieredCompactionStrategy)}. */
    public String strategy() { return strategy; }

    /** The range whose strategy instance chose this, or {@link TokenRanges#SPANNING} (whole ring, or the shared bucket). */
    public int range() { return range; }

    public long boundFirstToken() { return boundFirstToken; }

    public long boundLastToken() { return boundLastToken; }

    /** The sstables to merge, by generation. */
    public List<SSTableInfo> inputs() { return inputs; }

    public int[] inputGenerations() {
        int[] g = new int[inputs.size()];
        for (int i = 0; i < g.length; i++) g[i] = inputs.get(i).generation();
        return g;
    }

    public long inputBytes() {
        long sum = 0;
        for (int i = 0; i < inputs.size(); i++) sum += inputs.get(i).sizeBytes();
        return sum;
    }

    /** The lowest level among the inputs: the level this compaction drains. */
    public int sourceLevel() { return sourceLevel; }

    public int outputLevel() { return outputLevel; }

    public long maxOutputBytes() { return maxOutputBytes; }

    /** Tokens at which the output must start a new sstable, increasing (a copy). */
    public long[] splitTokens() { return splitTokens.clone(); }

    /**
     * Empty (every segment between split tokens writes its own outputs), or one flag per segment:
     * the flagged segments share one output (a copy).
     */
    public boolean[] pooledSegments() { return pooledSegments.clone(); }

    /** How many segments are pooled into the shared output. */
    public int pooledSegmentCount() {
        int n = 0;
        for (boolean b : pooledSegments) if (b) n++;
        return n;
    }

    /** The segment (0..splitTokens.length) holding {@code token}: the number of split tokens at or below it. */
    int segmentOf(long token) {
        int n = 0;
        while (n < splitTokens.length && splitTokens[n] <= token) n++;
        return n;
    }

    public long maxPurgeableTimestamp() { return maxPurgeableTimestamp; }

    /** Why the strategy chose this, in words. */
    public String reason() { return reason; }

    /**
     * The edit that replaces the inputs with {@code outputs}, the sstables the merge wrote for this
     * pick, and moves the picker state on (the leveled compaction pointer of the source level, the
     * range-aware cursor). Refuses, naming the output, one on another level than
     * {@link #outputLevel}, outside the bounds, or across a split token unless it is the pooled
     * output (first and last token in pooled segments): such an output would break
     * the strategy's invariants in the next version.
     */
    public VersionEdit edit(List<SSTableInfo> outputs) {
        VersionEdit.Builder b = VersionEdit.builder().removeAll(inputGenerations());
        SSTableInfo lastByFirst = null;
        for (int i = 0; i < outputs.size(); i++) {
            SSTableInfo o = outputs.get(i);
            if (o.level() != outputLevel) {
                throw new IllegalArgumentException("compaction output " + o + " is on L" + o.level() + ", the pick's output level is L" + outputLevel);
            }
            if (o.firstToken() < boundFirstToken || o.lastToken() > boundLastToken) {
                throw new IllegalArgumentException("compaction output " + o + " leaves the pick's bounds [" + boundFirstToken + ".." + boundLastToken + "]");
            }
            boolean pooled = pooledSegments.length > 0 && pooledSegments[segmentOf(o.firstToken())] && pooledSegments[segmentOf(o.lastToken())];
            for (long t : splitTokens) {
                if (!pooled && o.firstToken() < t && t <= o.lastToken()) {
                    throw new IllegalArgumentException("compaction output " + o + " crosses split token " + t);
                }
            }
            if (lastByFirst == null || o.firstToken() > lastByFirst.firstToken()) lastByFirst = o;
            b.add(o);
        }
        // Cassandra's leveled manifest remembers the output with the greatest first key; the next
        // compaction out of the source level starts after that output's last key.
        if (setsCompactPointer && lastByFirst != null) b.setCompactPointer(range, sourceLevel, lastByFirst.lastToken());
        if (nextRangeCursor != VersionEdit.KEEP_CURSOR) b.setNextRangeCursor(nextRangeCursor);
        return b.build();
    }

    /** The one-line description for the compaction log line: strategy, range, levels, inputs, output rule, reason. */
    public String describe() {
        StringBuilder sb = new StringBuilder(strategy);
        if (range != TokenRanges.SPANNING) sb.append(" range ").append(range);
        sb.append(" L").append(sourceLevel).append("->L").append(outputLevel).append(": ").append(inputs.size())
                .append(" sstables, ").append(SSTableInfo.formatBytes(inputBytes())).append(" [");
        for (int i = 0; i < inputs.size(); i++) {
            if (i > 0) sb.append(", ");
            SSTableInfo s = inputs.get(i);
            sb.append(s.generation()).append(":L").append(s.level()).append(':').append(SSTableInfo.formatBytes(s.sizeBytes()));
        }
        sb.append("], output ");
        sb.append(maxOutputBytes == Long.MAX_VALUE ? "unsplit by size" : "split at " + SSTableInfo.formatBytes(maxOutputBytes));
        if (splitTokens.length > 0) {
            int pooled = pooledSegmentCount();
            sb.append(" and at ").append(splitTokens.length).append(" range boundaries");
            if (pooled > 0) sb.append(" (").append(pooled).append(" of ").append(splitTokens.length + 1).append(" ranges pooled into one output)");
        }
        sb.append(", max purgeable timestamp ").append(maxPurgeableTimestamp == Long.MAX_VALUE ? "unbounded" : Long.toString(maxPurgeableTimestamp));
        return sb.append("; ").append(reason).toString();
    }

    @Override
    public String toString() {
        return describe();
    }
}

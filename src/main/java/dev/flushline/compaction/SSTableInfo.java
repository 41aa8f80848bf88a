package dev.flushline.compaction;

/**
 * What a compaction picker knows about one live sstable: its generation, the tokens of its first
 * and last partitions, its size on disk, its level, and the range of its cell timestamps. Pickers
 * read nothing else, so a test can describe any table with a list of these.
 *
 * <p>{@code sizeBytes} is the length of the sstable's Data.db on disk (compressed, if it is): the
 * size Cassandra's strategies tier and level by. Tokens are Murmur3 tokens; an sstable covers [{@code firstToken}, {@code lastToken}], both
 * inclusive. {@code minTimestamp}/{@code maxTimestamp} are the sstable metadata's minimum and
 * maximum timestamps (microseconds); an sstable without any timestamp has min Long.MAX_VALUE and
 * max Long.MIN_VALUE, as Cassandra records it.
 *
 * <p>Thread safety: immutable.
 */
public final class SSTableInfo {
    /** Levels run from 0 to this, as in Cassandra's leveled manifest (nine levels, L0 to L8). */
    public static final int MAX_LEVEL = 8;

    private final int generation;
    private final long firstToken;
    private final long lastToken;
    private final long sizeBytes;
    private final int level;
    private final long minTimestamp;
    private final long maxTimestamp;

    public SSTableInfo(int generation, long firstToken, long lastToken, long sizeBytes, int level,
                       long minTimestamp, long maxTimestamp) {
        if (generation < 1) throw new IllegalArgumentException("sstable generation must be positive: " + generation);
        if (firstToken > lastToken) {
            throw new IllegalArgumentException("sstable " + generation + ": first token " + firstToken
                    + " is after last token " + lastToken);
        }
        if (sizeBytes < 0) throw new IllegalArgumentException("sstable " + generation + ": negative size " + sizeBytes);
        if (level < 0 || level > MAX_LEVEL) {
            throw new IllegalArgumentException("sstable " + generation + ": level " + level + " outside 0.." + MAX_LEVEL);
        }
        this.generation = generation;
        this.firstToken = firstToken;
        this.lastToken = lastToken;
        this.sizeBytes = sizeBytes;
        this.level = level;
        this.minTimestamp = minTimestamp;
        this.maxTimestamp = maxTimestamp;
    }

    public int generation() { return generation; }

    public long firstToken() { return firstToken; }

    public long lastToken() { return lastToken; }

    public long sizeBytes() { return sizeBytes; }

    public int level() { return level; }

    public long minTimestamp() { return minTimestamp; }

    public long maxTimestamp() { return maxTimestamp; }

    /** True if this sstable holds tokens in [{@code lo}, {@code hi}] (both inclusive). */
    public boolean overlaps(long lo, long hi) {
        return firstToken <= hi && lastToken >= lo;
    }

    public boolean overlaps(SSTableInfo other) {
        return overlaps(other.firstToken, other.lastToken);
    }

    /** The same sstable with another level (what Cassandra's level mutation does to the metadata). */
    public SSTableInfo withLevel(int newLevel) {
        return new SSTableInfo(generation, firstToken, lastToken, sizeBytes, newLevel, minTimestamp, maxTimestamp);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SSTableInfo)) return false;
        SSTableInfo s = (SSTableInfo) o;
        return generation == s.generation && firstToken == s.firstToken && lastToken == s.lastToken
                && sizeBytes == s.sizeBytes && level == s.level && minTimestamp == s.minTimestamp
                && maxTimestamp == s.maxTimestamp;
    }

    @Override
    public int hashCode() {
        return Integer.hashCode(generation) * 31 + Long.hashCode(firstToken ^ lastToken);
    }

    /** {@code gen 12 L1 [first..last] 1.5 MiB}: short enough for a list of inputs in one log line. */
    @Override
    public String toString() {
        return "gen " + generation + " L" + level + " [" + firstToken + ".." + lastToken + "] " + formatBytes(sizeBytes);
    }

    static String formatBytes(long bytes) {
        if (bytes < 1024) return bytes + " B";
        if (bytes < 1024L * 1024) return String.format(java.util.Locale.ROOT, "%.1f KiB", bytes / 1024.0);
        if (bytes < 1024L * 1024 * 1024) return String.format(java.util.Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024));
        return String.format(java.util.Locale.ROOT, "%.2f GiB", bytes / (1024.0 * 1024 * 1024));
    }
}

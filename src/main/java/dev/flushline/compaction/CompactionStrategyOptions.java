package dev.flushline.compaction;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A table's compaction options, parsed from the map a CQL {@code compaction = {...}} clause gives:
 * {@code {'class': 'SizeTieredCompactionStrategy', 'min_threshold': '4', ...}}. The keys, defaults
 * and checks are Cassandra 5.0's for the size-tiered and leveled strategies, plus two keys of the
 * range-aware design ({@code range_aware_compaction}, {@code min_range_sstable_size_in_mb}).
 *
 * <p>Keys Cassandra accepts for every strategy but that only steer what we do not do yet
 * (single-sstable tombstone compactions, logging, repair) are checked and then ignored:
 * tombstone_threshold, tombstone_compaction_interval, unchecked_tombstone_compaction, log_all,
 * only_purge_repaired_tombstones, provide_overlapping_tombstones. A key no strategy knows, or one
 * the chosen strategy does not take, is refused as Cassandra refuses it.
 *
 * <p>Thread safety: immutable.
 */
public final class CompactionStrategyOptions {
    public enum Kind {
        SIZE_TIERED("SizeTieredCompactionStrategy"),
        LEVELED("LeveledCompactionStrategy");

        public final String className;

        Kind(String className) {
            this.className = className;
        }
    }

    private static final String CASSANDRA_PACKAGE = "org.apache.cassandra.db.compaction.";
    private static final long MIB = 1024L * 1024L;

    public static final int DEFAULT_MIN_THRESHOLD = 4;
    public static final int DEFAULT_MAX_THRESHOLD = 32;
    public static final double DEFAULT_BUCKET_LOW = 0.5;
    public static final double DEFAULT_BUCKET_HIGH = 1.5;
    public static final long DEFAULT_MIN_SSTABLE_SIZE_BYTES = 50L * MIB;
    public static final int DEFAULT_SSTABLE_SIZE_MB = 160;
    public static final int DEFAULT_FANOUT_SIZE = 10;
    /** The range-aware design's size at which an sstable leaves the shared bucket; its prototype used about 10 MB. */
    public static final int DEFAULT_MIN_RANGE_SSTABLE_SIZE_MB = 10;

    private static final String CLASS = "class";
    private static final String ENABLED = "enabled";
    private static final String MIN_THRESHOLD = "min_threshold";
    private static final String MAX_THRESHOLD = "max_threshold";
    private static final String BUCKET_LOW = "bucket_low";
    private static final String BUCKET_HIGH = "bucket_high";
    private static final String MIN_SSTABLE_SIZE = "min_sstable_size";
    private static final String SSTABLE_SIZE_IN_MB = "sstable_size_in_mb";
    private static final String FANOUT_SIZE = "fanout_size";
    private static final String SINGLE_SSTABLE_UPLEVEL = "single_sstable_uplevel";
    private static final String RANGE_AWARE = "range_aware_compaction";
    private static final String MIN_RANGE_SSTABLE_SIZE_IN_MB = "min_range_sstable_size_in_mb";
    private static final String TOMBSTONE_THRESHOLD = "tombstone_threshold";
    private static final String TOMBSTONE_COMPACTION_INTERVAL = "tombstone_compaction_interval";
    private static final String UNCHECKED_TOMBSTONE_COMPACTION = "unchecked_tombstone_compaction";
    private static final String LOG_ALL = "log_all";
    private static final String ONLY_PURGE_REPAIRED_TOMBSTONES = "only_purge_repaired_tombstones";
    private static final String PROVIDE_OVERLAPPING_TOMBSTONES = "provide_overlapping_tombstones";

    private final Kind kind;
    private final boolean enabled;
    private final int minThreshold;
    private final int maxThreshold;
    private final double bucketLow;
    private final double bucketHigh;
    private final long minSSTableSizeBytes;
    private final long sstableSizeBytes;
    private final int fanoutSize;
    private final boolean rangeAware;
    private final long minRangeSSTableSizeBytes;
    private final Map<String, String> source;

    private CompactionStrategyOptions(Kind kind, boolean enabled, int minThreshold, int maxThreshold, double bucketLow,
                                      double bucketHigh, long minSSTableSizeBytes, long sstableSizeBytes, int fanoutSize,
                                      boolean rangeAware, long minRangeSSTableSizeBytes, Map<String, String> source) {
        this.kind = kind;
        this.enabled = enabled;
        this.minThreshold = minThreshold;
        this.maxThreshold = maxThreshold;
        this.bucketLow = bucketLow;
        this.bucketHigh = bucketHigh;
        this.minSSTableSizeBytes = minSSTableSizeBytes;
        this.sstableSizeBytes = sstableSizeBytes;
        this.fanoutSize = fanoutSize;
        this.rangeAware = rangeAware;
        this.minRangeSSTableSizeBytes = minRangeSSTableSizeBytes;
        this.source = source;
    }

    /** The defaults of {@code kind}, as {@code {'class': kind}} gives them. */
    public static CompactionStrategyOptions defaults(Kind kind) {
        return parse(Map.of(CLASS, kind.className));
    }

    /**
     * Parses a compaction options map. Throws IllegalArgumentException naming the key and value
     * for a missing or unsupported class, a value that does not parse or is out of range, and for
     * keys the strategy does not understand.
     */
    public static CompactionStrategyOptions parse(Map<String, String> options) {
        String className = options.get(CLASS);
        if (className == null) throw new IllegalArgumentException("compaction options need a 'class': " + options);
        Kind kind = kindOf(className);
        Map<String, String> unchecked = new HashMap<>(options);
        unchecked.remove(CLASS);

        // Options every strategy takes (Cassandra checks them for all strategies).
        checkFloat(options, TOMBSTONE_THRESHOLD, unchecked);
        checkNonNegativeLong(options, TOMBSTONE_COMPACTION_INTERVAL, unchecked);
        parseBoolean(options, UNCHECKED_TOMBSTONE_COMPACTION, false, unchecked);
        parseBoolean(options, LOG_ALL, false, unchecked);
        parseBoolean(options, ONLY_PURGE_REPAIRED_TOMBSTONES, false, unchecked);
        boolean enabled = parseBoolean(options, ENABLED, true, unchecked);
        String overlapping = options.get(PROVIDE_OVERLAPPING_TOMBSTONES);
        if (overlapping != null) {
            String v = overlapping.toUpperCase(java.util.Locale.ROOT);
            if (!v.equals("NONE") && !v.equals("ROW") && !v.equals("CELL")) {
                throw new IllegalArgumentException("compaction option " + PROVIDE_OVERLAPPING_TOMBSTONES + ": '" + overlapping
                        + "' must be one of NONE, ROW, CELL");
            }
            unchecked.remove(PROVIDE_OVERLAPPING_TOMBSTONES);
        }

        int minThreshold = parseThreshold(options, MIN_THRESHOLD, DEFAULT_MIN_THRESHOLD, unchecked);
        int maxThreshold = parseThreshold(options, MAX_THRESHOLD, DEFAULT_MAX_THRESHOLD, unchecked);
        if (minThreshold < 2) {
            throw new IllegalArgumentException("compaction option " + MIN_THRESHOLD + ": " + minThreshold + " is below 2");
        }
        if (minThreshold > maxThreshold) {
            throw new IllegalArgumentException("compaction option " + MIN_THRESHOLD + " (" + minThreshold + ") is greater than "
                    + MAX_THRESHOLD + " (" + maxThreshold + ")");
        }

        // The size-tiered options: the size-tiered strategy's own, and the leveled strategy's for
        // size-tiering in L0.
        long minSSTableSize = parseLong(options, MIN_SSTABLE_SIZE, DEFAULT_MIN_SSTABLE_SIZE_BYTES, 0, unchecked);
        double bucketLow = parseDouble(options, BUCKET_LOW, DEFAULT_BUCKET_LOW, unchecked);
        double bucketHigh = parseDouble(options, BUCKET_HIGH, DEFAULT_BUCKET_HIGH, unchecked);
        if (bucketHigh <= bucketLow) {
            throw new IllegalArgumentException("compaction option " + BUCKET_HIGH + " (" + bucketHigh + ") is not greater than "
                    + BUCKET_LOW + " (" + bucketLow + ")");
        }

        int sstableSizeMb = DEFAULT_SSTABLE_SIZE_MB;
        int fanout = DEFAULT_FANOUT_SIZE;
        if (kind == Kind.LEVELED) {
            sstableSizeMb = (int) parseLong(options, SSTABLE_SIZE_IN_MB, DEFAULT_SSTABLE_SIZE_MB, 1, unchecked);
            fanout = (int) parseLong(options, FANOUT_SIZE, DEFAULT_FANOUT_SIZE, 1, unchecked);
            if (parseBoolean(options, SINGLE_SSTABLE_UPLEVEL, false, unchecked)) {
                throw new IllegalArgumentException("compaction option " + SINGLE_SSTABLE_UPLEVEL
                        + ": 'true' is not supported (a single sstable is rewritten into the next level, not relabelled)");
            }
            // Every level's size must fit a long: fanout^8 * sstable size.
            if (Math.pow(fanout, SSTableInfo.MAX_LEVEL) * sstableSizeMb * MIB > Long.MAX_VALUE) {
                throw new IllegalArgumentException("compaction options " + FANOUT_SIZE + " " + fanout + " and " + SSTABLE_SIZE_IN_MB + " "
                        + sstableSizeMb + " make L" + SSTableInfo.MAX_LEVEL + " larger than 2^63 bytes");
            }
        }

        boolean rangeAware = parseBoolean(options, RANGE_AWARE, false, unchecked);
        int minRangeMb = (int) parseLong(options, MIN_RANGE_SSTABLE_SIZE_IN_MB, DEFAULT_MIN_RANGE_SSTABLE_SIZE_MB, 0, unchecked);

        if (!unchecked.isEmpty()) {
            List<String> keys = new ArrayList<>(unchecked.keySet());
            Collections.sort(keys);
            throw new IllegalArgumentException("Properties specified " + keys + " are not understood by " + kind.className);
        }
        Map<String, String> source = Collections.unmodifiableMap(new LinkedHashMap<>(options));
        return new CompactionStrategyOptions(kind, enabled, minThreshold, maxThreshold, bucketLow, bucketHigh, minSSTableSize,
                sstableSizeMb * MIB, fanout, rangeAware, minRangeMb * MIB, source);
    }

    private static Kind kindOf(String className) {
        String simple = className.startsWith(CASSANDRA_PACKAGE) ? className.substring(CASSANDRA_PACKAGE.length()) : className;
        for (Kind k : Kind.values()) {
            if (k.className.equals(simple)) return k;
        }
        throw new IllegalArgumentException("compaction class '" + className + "' is not supported (supported: "
                + Kind.SIZE_TIERED.className + ", " + Kind.LEVELED.className + ")");
    }

    private static int parseThreshold(Map<String, String> options, String key, int defaultValue, Map<String, String> unchecked) {
        String v = options.get(key);
        unchecked.remove(key);
        if (v == null) return defaultValue;
        // Cassandra takes digits only here: no sign, no spaces.
        boolean digits = !v.isEmpty() && v.length() <= 9;
        for (int i = 0; i < v.length() && digits; i++) digits = v.charAt(i) >= '0' && v.charAt(i) <= '9';
        if (!digits) throw new IllegalArgumentException("compaction option " + key + ": '" + v + "' is not a whole number");
        int n = Integer.parseInt(v);
        if (n <= 0) {
            throw new IllegalArgumentException("compaction option " + key + ": " + n
                    + " is not positive (to disable compaction, set 'enabled' to 'false')");
        }
        return n;
    }

    private static long parseLong(Map<String, String> options, String key, long defaultValue, long min, Map<String, String> unchecked) {
        String v = options.get(key);
        unchecked.remove(key);
        if (v == null) return defaultValue;
        long n;
        try {
            n = Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("compaction option " + key + ": '" + v + "' is not a whole number", e);
        }
        if (n < min) throw new IllegalArgumentException("compaction option " + key + ": " + n + " is below " + min);
        if (min >= 1 && n > Integer.MAX_VALUE) throw new IllegalArgumentException("compaction option " + key + ": " + n + " is too large");
        return n;
    }

    private static void checkNonNegativeLong(Map<String, String> options, String key, Map<String, String> unchecked) {
        parseLong(options, key, 0, 0, unchecked);
    }

    private static double parseDouble(Map<String, String> options, String key, double defaultValue, Map<String, String> unchecked) {
        String v = options.get(key);
        unchecked.remove(key);
        if (v == null) return defaultValue;
        double d;
        try {
            d = Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("compaction option " + key + ": '" + v + "' is not a number", e);
        }
        if (Double.isNaN(d) || Double.isInfinite(d)) throw new IllegalArgumentException("compaction option " + key + ": '" + v + "' is not finite");
        return d;
    }

    private static void checkFloat(Map<String, String> options, String key, Map<String, String> unchecked) {
        String v = options.get(key);
        if (v != null && parseDouble(options, key, 0, unchecked) < 0) {
            throw new IllegalArgumentException("compaction option " + key + ": '" + v + "' is negative");
        }
        unchecked.remove(key);
    }

    private static boolean parseBoolean(Map<String, String> options, String key, boolean defaultValue, Map<String, String> unchecked) {
        String v = options.get(key);
        unchecked.remove(key);
        if (v == null) return defaultValue;
        if (v.equalsIgnoreCase("true")) return true;
        if (v.equalsIgnoreCase("false")) return false;
        throw new IllegalArgumentException("compaction option " + key + ": '" + v + "' must be 'true' or 'false'");
    }

    public Kind kind() { return kind; }

    /** {@code enabled}: false means no background compaction (the pickers still answer if asked). */
    public boolean enabled() { return enabled; }

    public int minThreshold() { return minThreshold; }

    public int maxThreshold() { return maxThreshold; }

    public double bucketLow() { return bucketLow; }

    public double bucketHigh() { return bucketHigh; }

    /** {@code min_sstable_size}, in bytes as Cassandra reads it: sstables below it share one size tier. */
    public long minSSTableSizeBytes() { return minSSTableSizeBytes; }

    /** The leveled strategy's target sstable size ({@code sstable_size_in_mb}), in bytes. */
    public long maxSSTableSizeBytes() { return sstableSizeBytes; }

    public int fanoutSize() { return fanoutSize; }

    public boolean rangeAware() { return rangeAware; }

    /** {@code min_range_sstable_size_in_mb}, in bytes. */
    public long minRangeSSTableSizeBytes() { return minRangeSSTableSizeBytes; }

    /**
     * These options with the leveled target size and the range-aware minimum in bytes rather than
     * whole MiB: for experiments that scale Cassandra's sizes down (a table's options map, like
     * Cassandra's, takes whole MiB only). Checked as the map's values are.
     */
    public CompactionStrategyOptions withSizes(long maxSSTableBytes, long minRangeSSTableBytes) {
        if (maxSSTableBytes < 1) throw new IllegalArgumentException("sstable size must be at least 1 byte: " + maxSSTableBytes);
        if (minRangeSSTableBytes < 0) throw new IllegalArgumentException("min range sstable size must not be negative: " + minRangeSSTableBytes);
        return new CompactionStrategyOptions(kind, enabled, minThreshold, maxThreshold, bucketLow, bucketHigh, minSSTableSizeBytes,
                maxSSTableBytes, fanoutSize, rangeAware, minRangeSSTableBytes, source);
    }

    private static String mib(long bytes) {
        return bytes % MIB == 0 ? Long.toString(bytes / MIB) : String.format(java.util.Locale.ROOT, "%.3f", bytes / (double) MIB);
    }

    /** The map these options came from. */
    public Map<String, String> source() { return source; }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(kind.className).append("{min_threshold=").append(minThreshold)
                .append(", max_threshold=").append(maxThreshold).append(", bucket_low=").append(bucketLow)
                .append(", bucket_high=").append(bucketHigh).append(", min_sstable_size=").append(minSSTableSizeBytes);
        if (kind == Kind.LEVELED) sb.append(", sstable_size_in_mb=").append(mib(sstableSizeBytes)).append(", fanout_size=").append(fanoutSize);
        if (rangeAware) sb.append(", range_aware_compaction=true, min_range_sstable_size_in_mb=").append(mib(minRangeSSTableSizeBytes));
        if (!enabled) sb.append(", enabled=false");
        return sb.append('}').toString();
    }
}

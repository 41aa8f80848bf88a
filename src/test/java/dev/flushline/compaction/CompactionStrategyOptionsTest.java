package dev.flushline.compaction;

import org.apache.cassandra.db.compaction.LeveledCompactionStrategy;
import org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy;
import org.apache.cassandra.exceptions.ConfigurationException;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static dev.flushline.compaction.Synthetic.MIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CompactionStrategyOptionsTest {
    @Test
    void defaultsAreCassandras() {
        CompactionStrategyOptions stcs = CompactionStrategyOptions.parse(Map.of("class", "SizeTieredCompactionStrategy"));
        assertEquals(CompactionStrategyOptions.Kind.SIZE_TIERED, stcs.kind());
        assertEquals(4, stcs.minThreshold());
        assertEquals(32, stcs.maxThreshold());
        assertEquals(0.5, stcs.bucketLow());
        assertEquals(1.5, stcs.bucketHigh());
        assertEquals(50 * MIB, stcs.minSSTableSizeBytes());
        assertTrue(stcs.enabled());
        assertFalse(stcs.rangeAware());

        CompactionStrategyOptions lcs = CompactionStrategyOptions.parse(
                Map.of("class", "org.apache.cassandra.db.compaction.LeveledCompactionStrategy"));
        assertEquals(CompactionStrategyOptions.Kind.LEVELED, lcs.kind());
        assertEquals(160 * MIB, lcs.maxSSTableSizeBytes());
        assertEquals(10, lcs.fanoutSize());
        assertEquals(4, lcs.minThreshold());
        assertEquals(32, lcs.maxThreshold());
    }

    @Test
    void parsesEveryKey() {
        Map<String, String> m = new HashMap<>();
        m.put("class", "LeveledCompactionStrategy");
        m.put("sstable_size_in_mb", "64");
        m.put("fanout_size", "8");
        m.put("min_threshold", "6");
        m.put("max_threshold", "20");
        m.put("bucket_low", "0.25");
        m.put("bucket_high", "2");
        m.put("min_sstable_size", "1000");
        m.put("range_aware_compaction", "true");
        m.put("min_range_sstable_size_in_mb", "15");
        m.put("enabled", "false");
        m.put("tombstone_threshold", "0.3");
        m.put("unchecked_tombstone_compaction", "true");
        m.put("provide_overlapping_tombstones", "row");
        CompactionStrategyOptions o = CompactionStrategyOptions.parse(m);
        assertEquals(64 * MIB, o.maxSSTableSizeBytes());
        assertEquals(8, o.fanoutSize());
        assertEquals(6, o.minThreshold());
        assertEquals(20, o.maxThreshold());
        assertEquals(0.25, o.bucketLow());
        assertEquals(2.0, o.bucketHigh());
        assertEquals(1000, o.minSSTableSizeBytes());
        assertTrue(o.rangeAware());
        assertEquals(15 * MIB, o.minRangeSSTableSizeBytes());
        assertFalse(o.enabled());
    }

    @Test
    void badValuesAreRefusedByKeyAndValue() {
        assertRefused(Map.of("min_threshold", "abc"), "min_threshold", "abc");
        assertRefused(Map.of("min_threshold", "1"), "min_threshold", "below 2");
        assertRefused(Map.of("min_threshold", "-4"), "min_threshold", "-4");
        assertRefused(Map.of("min_threshold", "0"), "min_threshold", "enabled");
        assertRefused(Map.of("min_threshold", "10", "max_threshold", "8"), "min_threshold", "max_threshold");
        assertRefused(Map.of("bucket_low", "1.5", "bucket_high", "1.5"), "bucket_high", "bucket_low");
        assertRefused(Map.of("bucket_low", "x"), "bucket_low", "'x'");
        assertRefused(Map.of("min_sstable_size", "-1"), "min_sstable_size", "-1");
        assertRefused(Map.of("enabled", "yes"), "enabled", "'yes'");
        assertRefused(Map.of("provide_overlapping_tombstones", "ALL"), "provide_overlapping_tombstones", "ALL");
        assertRefused(Map.of("foo", "1", "bar", "2"), "Properties specified [bar, foo] are not understood by SizeTieredCompactionStrategy");
        assertRefused(Map.of("sstable_size_in_mb", "10"), "[sstable_size_in_mb]", "SizeTieredCompactionStrategy");
        Map<String, String> lcs = new HashMap<>(Map.of("class", "LeveledCompactionStrategy"));
        lcs.put("sstable_size_in_mb", "0");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CompactionStrategyOptions.parse(lcs));
        assertTrue(e.getMessage().contains("sstable_size_in_mb"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> CompactionStrategyOptions.parse(Map.of("class", "TimeWindowCompactionStrategy")));
        assertTrue(e.getMessage().contains("TimeWindowCompactionStrategy"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> CompactionStrategyOptions.parse(Map.of("min_threshold", "4")));
        assertTrue(e.getMessage().contains("class"), e.getMessage());
    }

    private static void assertRefused(Map<String, String> stcsOptions, String... messageParts) {
        Map<String, String> m = new HashMap<>(stcsOptions);
        m.put("class", "SizeTieredCompactionStrategy");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CompactionStrategyOptions.parse(m), m.toString());
        for (String part : messageParts) assertTrue(e.getMessage().contains(part), e.getMessage() + " lacks " + part);
    }

    /**
     * Cassandra's own option checks (each strategy's static validateOptions, which returns the keys
     * it did not understand) accept and refuse the strategy-specific options as we do.
     */
    @Test
    void acceptsAndRefusesAsCassandrasValidateOptions() {
        List<Map<String, String>> cases = List.of(
                Map.of(),
                Map.of("min_sstable_size", "0"),
                Map.of("min_sstable_size", "-5"),
                Map.of("min_sstable_size", "12x"),
                Map.of("bucket_low", "0.9", "bucket_high", "0.8"),
                Map.of("bucket_low", "0.3", "bucket_high", "3"),
                Map.of("sstable_size_in_mb", "5"),
                Map.of("sstable_size_in_mb", "0"),
                Map.of("fanout_size", "0"),
                Map.of("fanout_size", "4"),
                Map.of("tombstone_threshold", "-1"),
                Map.of("tombstone_compaction_interval", "3600"),
                Map.of("log_all", "maybe"),
                Map.of("enabled", "false"),
                Map.of("some_option", "1"),
                Map.of("min_threshold", "8", "max_threshold", "16"));
        for (Map<String, String> c : cases) {
            boolean cassandraStcs = cassandraAccepts(c, false);
            boolean cassandraLcs = cassandraAccepts(c, true);
            assertEquals(cassandraStcs, oursAccept(c, "SizeTieredCompactionStrategy"), "size-tiered " + c);
            assertEquals(cassandraLcs, oursAccept(c, "LeveledCompactionStrategy"), "leveled " + c);
        }
    }

    private static boolean cassandraAccepts(Map<String, String> options, boolean leveled) {
        try {
            Map<String, String> unknown = leveled ? LeveledCompactionStrategy.validateOptions(new HashMap<>(options))
                                                  : SizeTieredCompactionStrategy.validateOptions(new HashMap<>(options));
            return unknown.isEmpty();
        } catch (ConfigurationException e) {
            return false;
        }
    }

    private static boolean oursAccept(Map<String, String> options, String className) {
        Map<String, String> m = new HashMap<>(options);
        m.put("class", className);
        try {
            CompactionStrategyOptions.parse(m);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}

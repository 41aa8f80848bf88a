package dev.flushline.sstable;

import dev.flushline.data.Cell;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * EncodingStats.forFlush must pick a local-deletion-time base that cassandra-all 5.0.9 reads back as
 * itself and from which every value of the flush is an int delta. Cassandra deserializes the base as
 * {@code int delta + int DELETION_TIME_EPOCH} (int overflow), so the base must not exceed
 * Integer.MAX_VALUE; FlushEdgeCaseTest checks the same end to end through cassandra-all.
 */
class EncodingStatsBaseTest {
    /** What Cassandra's EncodingStats.Serializer.deserialize computes for the base we serialize. */
    static long cassandraReadsBase(long base) {
        int delta = (int) (base - EncodingStats.DELETION_TIME_EPOCH);
        return delta + (int) EncodingStats.DELETION_TIME_EPOCH; // int + int, as in Cassandra
    }

    @ParameterizedTest(name = "ldt in [{0}, {1}]")
    @CsvSource({
            "1750000000, 1750100000",
            "1750000000, 4294967293",   // capped TTLs mixed with deletions now: span > 2^31
            "0, 4294967293",            // the whole unsigned range
            "3600000000, 3600100000",   // far future: the minimum itself is above 2^31
            "3600000000, 4294967293",
            "2147483647, 4294967293",
            "4294967293, 4294967293",
            "0, 0",
    })
    void everyValueRoundTrips(long min, long max) {
        EncodingStats s = EncodingStats.forFlush(1L, min, max, 0);
        long base = s.minLocalDeletionTime();
        assertEquals(base, cassandraReadsBase(base), "Cassandra reads the base back as written");
        for (long ldt : new long[] {min, max, (min + max) / 2}) {
            long delta = ldt - base;
            assertTrue(delta >= Integer.MIN_VALUE && delta <= Integer.MAX_VALUE, "delta of " + ldt + " from " + base);
            assertTrue(s.localDeletionTimeRoundTrips(ldt));
            assertEquals(ldt, (int) delta + cassandraReadsBase(base), "Cassandra's readLocalDeletionTime");
        }
    }

    @ParameterizedTest(name = "base {0}")
    @CsvSource({"2147483648", "3590363647"})
    void aBaseAbove2To31DoesNotRoundTrip(long base) {
        // What the old cap (epoch + 2^31-1) produced: Cassandra reads it 2^32 too low.
        assertEquals(base - (1L << 32), cassandraReadsBase(base));
        assertFalse(new EncodingStats(1L, base, 0).localDeletionTimeRoundTrips(base));
    }

    @org.junit.jupiter.api.Test
    void noDeletionTimesUsesTheEpoch() {
        assertEquals(EncodingStats.DELETION_TIME_EPOCH,
                EncodingStats.forFlush(Cell.NO_TIMESTAMP, Cell.NO_DELETION_TIME, Cell.NO_DELETION_TIME, 0).minLocalDeletionTime());
    }
}

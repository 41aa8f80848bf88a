package dev.flushline.oracle;

import java.util.List;

/**
 * The Statistics.db STATS values tests usually assert on, copied out of Cassandra's StatsMetadata
 * (plus the HEADER's EncodingStats) so assertions do not depend on Cassandra types.
 *
 * @param estimatedPartitionCount number of partitions recorded in the partition-size histogram
 * @param estimatedKeys           what the opened reader estimates from its index summary
 */
public record SSTableStats(long minTimestamp, long maxTimestamp,
                           long minLocalDeletionTime, long maxLocalDeletionTime,
                           int minTtl, int maxTtl,
                           Bound coveredClusteringStart, Bound coveredClusteringEnd,
                           long estimatedPartitionCount, long estimatedKeys,
                           Bytes firstKey, Bytes lastKey,
                           long totalRows, long totalColumnsSet,
                           boolean hasPartitionLevelDeletions,
                           long repairedAt, int sstableLevel, double compressionRatio,
                           long encodingMinTimestamp, long encodingMinLocalDeletionTime, int encodingMinTtl) {

    /** A clustering bound: Cassandra ClusteringPrefix.Kind name and the (possibly partial) values. */
    public record Bound(String kind, List<Bytes> values) {
        public Bound {
            values = List.copyOf(values);
        }

        @Override
        public String toString() {
            return kind + values;
        }
    }
}

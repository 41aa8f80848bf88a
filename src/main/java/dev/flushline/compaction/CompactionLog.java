package dev.flushline.compaction;

import dev.flushline.schema.ValueText;
import java.nio.file.Path;
import java.util.Locale;
import java.util.UUID;

/**
 * The one line a finished compaction logs, in the shape of Cassandra's CompactionTask line:
 * inputs, outputs, level, sizes, time, throughputs, partitions merged and the merge counts.
 */
public final class CompactionLog {
    private CompactionLog() {
    }

    public static String line(Compactor.Result r, long wallNanos, int level) {
        long ms = Math.max(1, wallNanos / 1_000_000);
        double seconds = wallNanos / 1e9;
        StringBuilder paths = new StringBuilder();
        for (Path p : r.published) {
            if (paths.length() > 0) paths.append(',');
            paths.append(p);
        }
        StringBuilder merges = new StringBuilder();
        for (int i = 0; i < r.mergeCounts.length; i++) {
            if (r.mergeCounts[i] > 0) merges.append(i).append(':').append(r.mergeCounts[i]).append(", ");
        }
        long percent = r.inputDataBytes == 0 ? 0 : Math.round(100.0 * r.outputDataBytes / r.inputDataBytes);
        long rowsPerSecond = seconds <= 0 ? 0 : Math.round(r.inputRows / seconds);
        return String.format(Locale.ROOT, "Compacted (%s) %d sstables to [%s] to level=%d. %s to %s (~%d%% of original) in %,dms. "
                        + "Read Throughput = %s, Write Throughput = %s, Row Throughput = ~%,d/s. %,d total partitions merged to %,d. "
                        + "Partition merge counts were {%s}. Time spent writing keys = %,dms",
                UUID.randomUUID(), r.inputs.size(), paths, level, ValueText.mib(r.inputDataBytes), ValueText.mib(r.outputDataBytes), percent, ms,
                perSecond(r.inputDataBytes, seconds), perSecond(r.outputDataBytes, seconds), rowsPerSecond,
                r.inputPartitions, r.outputPartitions, merges, r.mergeNanos / 1_000_000);
    }

    private static String perSecond(long bytes, double seconds) {
        return String.format(Locale.ROOT, "%.2fMiB/s", seconds <= 0 ? 0 : bytes / (1024.0 * 1024.0) / seconds);
    }
}

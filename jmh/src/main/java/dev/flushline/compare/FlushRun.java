package dev.flushline.compare;

import java.util.Locale;

/**
 * One measured flush of one system: what the fill before it took and what the flush cost. Every
 * system fills the same operations (BenchCommand's workload) and flushes them once.
 *
 * <p>{@code cpuNanos} and {@code allocatedBytes} are summed over the threads that did the flush (for
 * the JVM systems from {@code com.sun.management.ThreadMXBean}; for RocksDB, whose flush runs on its
 * native background threads, from {@code /proc/self/task/<tid>/schedstat}). {@code allocatedBytes}
 * is -1 when it cannot be measured (RocksDB allocates with malloc, which no JVM counter sees).
 * {@code processCpuNanos} is the whole process's CPU over the flush (GC and JIT threads included), a
 * cross-check that no flush work ran on a thread we did not count.
 *
 * <p>For the bulk writer ({@code cqlsstablewriter}) there is no separate fill: its whole write, from
 * {@code build()} to {@code close()}, is both {@code fillNanos} and {@code wallNanos}, its costs are summed over
 * every Java thread, and {@code allocation} names the feed (sorted or unsorted).
 */
final class FlushRun {
    final String system;
    final String memtable;
    final String allocation;
    final String compression;
    final String sstable;
    final long bytes;
    final long partitions;
    final long rows;
    final long cells;
    final long fillNanos;
    final long wallNanos;
    final long cpuNanos;
    final long allocatedBytes;
    final long processCpuNanos;
    final String threads;
    /** Collections, and milliseconds collecting, during the fill (GarbageCollectorMXBeans); -1 when not measured. */
    long fillGcCount = -1;
    long fillGcMillis = -1;
    /** The process's minor page faults during the fill (BenchCommand.minorFaults); -1 when not measured. */
    long fillMinorFaults = -1;
    /** Where a bulk writer's run left its files (to delete them), or null. */
    java.nio.file.Path dir;
    /**
     * A peer's own verdict on whether its Data.db holds what Flushline's does (the Cassandra 6.0 child compares
     * bytes, then content, itself), or null when the peer did not compare.
     */
    String sameAsFlushline;
    /** The sstable version the run wrote, or null for a system that writes no sstables (RocksDB) or one whose version the table ignores. */
    dev.flushline.sstable.SSTableVersion version;
    /** Whether {@link #json} names {@link #version} (only with {@code --sstable-version}, so the default objects stay as they were). */
    boolean jsonVersion;

    FlushRun(String system, String memtable, String allocation, String compression, String sstable, long bytes,
             long partitions, long rows, long cells, long fillNanos, long wallNanos, long cpuNanos,
             long allocatedBytes, long processCpuNanos, String threads) {
        this.system = system;
        this.memtable = memtable;
        this.allocation = allocation;
        this.compression = compression;
        this.sstable = sstable;
        this.bytes = bytes;
        this.partitions = partitions;
        this.rows = rows;
        this.cells = cells;
        this.fillNanos = fillNanos;
        this.wallNanos = wallNanos;
        this.cpuNanos = cpuNanos;
        this.allocatedBytes = allocatedBytes;
        this.processCpuNanos = processCpuNanos;
        this.threads = threads;
    }

    double fillRowsPerSecond() {
        return fillNanos <= 0 ? 0 : rows * 1e9 / fillNanos;
    }

    /** {@code flushline bench --json}'s keys (system included), plus the comparison's own fill/process/thread keys. */
    String json() {
        StringBuilder sb = new StringBuilder(400).append('{');
        sb.append("\"sstable\":").append(quote(sstable));
        sb.append(",\"bytes\":").append(bytes);
        sb.append(",\"partitions\":").append(partitions);
        sb.append(",\"rows\":").append(rows);
        sb.append(",\"cells\":").append(cells);
        sb.append(",\"wall_ms\":").append(ms(wallNanos));
        sb.append(",\"cpu_ms\":").append(ms(cpuNanos));
        sb.append(",\"allocated_bytes\":").append(allocatedBytes < 0 ? "null" : Long.toString(allocatedBytes));
        sb.append(",\"memtable\":").append(quote(memtable));
        sb.append(",\"allocation\":").append(quote(allocation));
        sb.append(",\"compression\":").append(quote(compression));
        sb.append(",\"system\":").append(quote(system));
        sb.append(",\"fill_ms\":").append(ms(fillNanos));
        sb.append(",\"fill_rows_per_s\":").append(Math.round(fillRowsPerSecond()));
        sb.append(",\"fill_gc_ms\":").append(fillGcMillis < 0 ? "null" : Long.toString(fillGcMillis));
        sb.append(",\"fill_gc_count\":").append(fillGcCount < 0 ? "null" : Long.toString(fillGcCount));
        sb.append(",\"fill_minor_faults\":").append(fillMinorFaults < 0 ? "null" : Long.toString(fillMinorFaults));
        sb.append(",\"process_cpu_ms\":").append(ms(processCpuNanos));
        sb.append(",\"flush_threads\":").append(quote(threads));
        if (jsonVersion && version != null) sb.append(",\"sstable_version\":").append(quote(version.id()));
        return sb.append('}').toString();
    }

    static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.3f", nanos / 1e6);
    }

    static String quote(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') sb.append('\\').append(c);
            else if (c < 0x20) sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            else sb.append(c);
        }
        return sb.append('"').toString();
    }
}

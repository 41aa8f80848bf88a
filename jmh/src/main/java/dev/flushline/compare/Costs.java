package dev.flushline.compare;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * CPU and allocation counters: per Java thread (ThreadMXBean), per native thread by name
 * (/proc/self/task), and for the whole process.
 */
final class Costs {
    private Costs() {}

    static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    static {
        THREADS.setThreadCpuTimeEnabled(true);
        THREADS.setThreadAllocatedMemoryEnabled(true);
    }

    static long processCpuNanos() {
        return OS.getProcessCpuTime();
    }

    /**
     * Milliseconds the host has taken from this machine's vCPUs so far, all of them together: the
     * steal column of /proc/stat, in USER_HZ ticks (100 a second on Linux whatever the kernel's own
     * tick). A guest's thread CPU time counts the time its vCPU was taken while the thread ran, so a
     * run with steal costs more "CPU" for the same work; -1 where /proc/stat does not say.
     */
    static long stealMillis() {
        try (java.io.BufferedReader r = java.nio.file.Files.newBufferedReader(java.nio.file.Path.of("/proc/stat"))) {
            String line = r.readLine();
            if (line == null || !line.startsWith("cpu ")) return -1;
            String[] f = line.trim().split("\\s+");
            return f.length > 8 ? Long.parseLong(f[8]) * 10 : -1;
        } catch (java.io.IOException | NumberFormatException e) {
            return -1;
        }
    }

    /** CPU nanoseconds of a live Java thread (-1 if it has ended). */
    static long cpu(long threadId) {
        return THREADS.getThreadCpuTime(threadId);
    }

    static long allocated(long threadId) {
        return THREADS.getThreadAllocatedBytes(threadId);
    }

    /**
     * CPU nanoseconds run so far by each native thread of this process whose name (comm) starts with
     * {@code prefix}, keyed by tid. Reads {@code /proc/self/task/<tid>/schedstat} (first field: ns on CPU),
     * which counts threads the JVM does not know, such as RocksDB's background flush threads.
     */
    static Map<String, Long> nativeThreadCpu(String prefix) throws IOException {
        Map<String, Long> m = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path t : tasks) {
                try {
                    String comm = Files.readString(t.resolve("comm")).trim();
                    if (!comm.startsWith(prefix)) continue;
                    String sched = Files.readString(t.resolve("schedstat")).trim();
                    m.put(t.getFileName() + ":" + comm, Long.parseLong(sched.split(" ")[0]));
                } catch (IOException | RuntimeException e) {
                    // the thread ended while we looked; it ran nothing we are measuring
                }
            }
        }
        return m;
    }
}

package dev.flushline.cassandra6;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

/**
 * The counters the parent's peers report, read the same way here: CPU and allocated bytes per Java thread
 * (com.sun.management.ThreadMXBean), the process's CPU, and the collectors' counts and times.
 */
final class Costs {
    private Costs() {}

    private static final com.sun.management.ThreadMXBean THREADS =
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

    static long cpu(long threadId) {
        return THREADS.getThreadCpuTime(threadId);
    }

    static long allocated(long threadId) {
        return THREADS.getThreadAllocatedBytes(threadId);
    }

    static long gcCount() {
        long n = 0;
        for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) n += Math.max(0, b.getCollectionCount());
        return n;
    }

    static long gcMillis() {
        long n = 0;
        for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) n += Math.max(0, b.getCollectionTime());
        return n;
    }
}

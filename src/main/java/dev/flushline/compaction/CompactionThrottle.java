package dev.flushline.compaction;

/**
 * Cassandra's compaction_throughput: the bytes all compactions of a node write, paced to a rate in
 * MiB/s (0 = unthrottled). A token bucket kept as the time at which the bytes charged so far are
 * paid for: each charge moves that time on by bytes / rate and the caller sleeps until it; time
 * left idle accrues as credit up to {@link #BURST_NANOS}, so a compaction that starts after a
 * pause may write a short burst at full speed, as a bucket with that many tokens would.
 *
 * <p>Thread safety: {@link #acquire} from any number of compaction threads; the shared schedule is
 * guarded by this object's monitor, the sleep happens outside it.
 */
public final class CompactionThrottle {
    private static final long BURST_NANOS = 100_000_000L;

    private volatile double nanosPerByte;
    /** When the bytes charged so far are paid for. Guarded by this. */
    private long paidUntil = System.nanoTime();
    private long throttledNanos;

    public CompactionThrottle(double mibPerSecond) {
        setRate(mibPerSecond);
    }

    /** Changes the rate (as nodetool setcompactionthroughput); 0 = unthrottled. */
    public void setRate(double mibPerSecond) {
        if (!(mibPerSecond >= 0) || Double.isInfinite(mibPerSecond)) {
            throw new IllegalArgumentException("compaction throughput must be 0 (unthrottled) or a positive MiB/s: " + mibPerSecond);
        }
        nanosPerByte = mibPerSecond == 0 ? 0 : 1e9 / (mibPerSecond * 1024 * 1024);
    }

    /** Charges {@code bytes} written and sleeps until the rate allows them. Returns at once when unthrottled. */
    public void acquire(long bytes) {
        double perByte = nanosPerByte;
        if (perByte == 0 || bytes <= 0) return;
        long wait;
        synchronized (this) {
            long now = System.nanoTime();
            if (paidUntil < now - BURST_NANOS) paidUntil = now - BURST_NANOS;
            paidUntil += (long) (bytes * perByte);
            wait = paidUntil - now;
            if (wait > 0) throttledNanos += wait;
        }
        if (wait <= 0) return;
        try {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // shutting down: let the compaction finish or fail promptly
        }
    }

    /** Total time callers were told to wait, for reports. */
    public synchronized long throttledNanos() {
        return throttledNanos;
    }
}

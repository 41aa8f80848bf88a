package dev.flushline.oracle;

import org.apache.cassandra.utils.Clock;

/**
 * Cassandra clock with a frozen wall time (nanoTime stays real so timeouts work), making tombstone local
 * deletion times and TTL expirations written by CQLSSTableWriter deterministic. Selected by the
 * {@code cassandra.clock} system property, which Cassandra reads once when Clock.Global loads; see
 * {@link #installIfPossible()}.
 */
public final class FixedClock implements Clock {
    public static final long FIXED_MILLIS = 1_750_000_000_123L;

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public long currentTimeMillis() {
        return FIXED_MILLIS;
    }

    /**
     * Asks for this clock unless another one was configured, and reports whether Cassandra's clock is frozen
     * now. It is not when Clock.Global was loaded earlier in this JVM (another test touched Cassandra first);
     * callers must then cope with a moving clock.
     */
    public static boolean installIfPossible() {
        if (System.getProperty("cassandra.clock") == null) {
            System.setProperty("cassandra.clock", FixedClock.class.getName());
        }
        long first = Clock.Global.currentTimeMillis();
        try {
            Thread.sleep(2);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return first == Clock.Global.currentTimeMillis();
    }
}

package dev.flushline.ops;

/**
 * Version-1 time-UUIDs for list element paths, in apply order.
 *
 * <p>Cassandra gives each appended list element a time-UUID from the coordinator's clock, so a
 * list is ordered by when elements were added. A load must be repeatable, so here the clock is
 * {@code --now}: the first UUID carries the UUID time of {@code nowSeconds} (100 ns ticks since
 * 1582-10-15) and each next one is one tick later. Clock sequence and node are fixed (node with
 * the multicast bit set, as RFC 4122 asks of a node that is not a MAC address). So the same input
 * and {@code --now} give the same paths, and paths strictly increase in TimeUUIDType order.
 *
 * <p>Invariant: {@link #bytes(long)} of increasing ticks is strictly increasing in TimeUUIDType order, for up to
 * 2^60 - (UUID time of now) ticks (thousands of years of them).
 *
 * <p>Thread safety: stateless; the caller owns the counter.
 */
public final class TimeUuids {
    private TimeUuids() {}

    /** 100 ns ticks between 1582-10-15T00:00Z (the UUID epoch) and 1970-01-01T00:00Z. */
    public static final long UUID_EPOCH_OFFSET_TICKS = 0x01B21DD213814000L;
    /** Variant 10, clock sequence 0, node 01:00:00:00:00:00 (multicast bit: not a MAC). */
    public static final long LEAST_SIGNIFICANT_BITS = 0x8000_0100_0000_0000L;

    /** The UUID time of the first path for a run whose clock is {@code nowSeconds}. */
    public static long firstTicks(long nowSeconds) {
        return nowSeconds * 10_000_000L + UUID_EPOCH_OFFSET_TICKS;
    }

    /** The 16 bytes of the version-1 UUID with this 60-bit UUID time. */
    public static byte[] bytes(long ticks) {
        long msb = (ticks << 32)                       // time_low
                | ((ticks >>> 16) & 0xFFFF_0000L)       // time_mid
                | 0x1000L | ((ticks >>> 48) & 0x0FFFL); // version 1, time_hi
        byte[] b = new byte[16];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (msb >>> (56 - 8 * i));
            b[8 + i] = (byte) (LEAST_SIGNIFICANT_BITS >>> (56 - 8 * i));
        }
        return b;
    }

    /** The UUID time held by 16 time-UUID bytes (for tests and messages). */
    public static long ticksOf(byte[] uuid) {
        long msb = 0;
        for (int i = 0; i < 8; i++) msb = (msb << 8) | (uuid[i] & 0xFF);
        return ((msb & 0x0FFFL) << 48) | (((msb >>> 16) & 0xFFFFL) << 32) | (msb >>> 32);
    }
}

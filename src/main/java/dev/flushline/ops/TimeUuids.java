package dev.flushline.ops;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Version-1 time-UUIDs for list element paths, in apply order.
 *
 * <p>Cassandra gives each appended list element a time-UUID from the coordinator's clock, and a
 * list cell's path is that UUID: two appends with the same UUID are one cell, and the later write
 * replaces the earlier. So a path must never repeat, across runs, processes and machines, or one
 * append silently overwrites another. A UUID here is two parts:
 * <ul>
 *   <li>the time (high 64 bits): the UUID time of the writer's clock ({@code --now}), one 100 ns
 *       tick later for each next element. It orders a writer's appends: paths of increasing ticks
 *       are strictly increasing in TimeUUIDType order, for up to 2^60 - (UUID time of now) ticks;</li>
 *   <li>the node (low 64 bits: variant, 14-bit clock sequence, 48-bit node): one per writer, from
 *       {@link #newNode()}. Within a process every writer's node differs (a random base XOR a
 *       counter); across processes the 62 random bits differ but with a chance of 2^-62 per pair,
 *       as Cassandra's own node ids (from a hash of the host and process) are meant to. Two writers
 *       with the same clock therefore still make different paths. Where writers share a clock,
 *       elements of different writers interleave by node, as concurrent appends in Cassandra do.</li>
 * </ul>
 * A repeatable run takes its node from a seed ({@link #seededNode}); two writers given the same
 * seed and clock make the same paths, so they must not append to the same lists.
 *
 * <p>The node has the multicast bit set, as RFC 4122 asks of a node that is not a MAC address.
 *
 * <p>Thread safety: {@link #newNode()} from any thread; everything else is stateless.
 */
public final class TimeUuids {
    private TimeUuids() {}

    /** 100 ns ticks between 1582-10-15T00:00Z (the UUID epoch) and 1970-01-01T00:00Z. */
    public static final long UUID_EPOCH_OFFSET_TICKS = 0x01B21DD213814000L;
    /** Variant 10 in the top two bits of the low half. */
    private static final long VARIANT_BITS = 0x8000_0000_0000_0000L;
    /** The 62 bits of clock sequence and node under the variant. */
    private static final long NODE_MASK = 0x3FFF_FFFF_FFFF_FFFFL;
    /** The multicast bit: the lowest bit of the node's first octet (bit 40 of the low half). */
    private static final long MULTICAST_BIT = 0x0000_0100_0000_0000L;

    /** This process's random base for {@link #newNode()}; each call XORs in a fresh counter value. */
    private static final long PROCESS_NODE_BASE = new SecureRandom().nextLong();
    /** Distinct per call within this process, so no two writers here ever share a node. */
    private static final AtomicLong NODES_TAKEN = new AtomicLong();

    /** The UUID time of the first path for a run whose clock is {@code nowSeconds}. */
    public static long firstTicks(long nowSeconds) {
        return nowSeconds * 10_000_000L + UUID_EPOCH_OFFSET_TICKS;
    }

    /**
     * A node (the UUID's low 64 bits) for one writer that differs from every other node this
     * process hands out, and from other processes' with the chance described above.
     */
    public static long newNode() {
        // XOR with distinct counter values keeps the results distinct; the counter stays far below
        // 2^40, so it never reaches the multicast bit that is forced to 1 below.
        long n = NODES_TAKEN.getAndIncrement();
        return node(PROCESS_NODE_BASE ^ (n << 1));
    }

    /** The node a repeatable run uses: the same seed gives the same node. */
    public static long seededNode(long seed) {
        // SplitMix64's finalizer, so that nearby seeds give unrelated nodes.
        long z = seed + 0x9E37_79B9_7F4A_7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return node(z ^ (z >>> 31));
    }

    private static long node(long bits) {
        return VARIANT_BITS | (bits & NODE_MASK) | MULTICAST_BIT;
    }

    /** The 16 bytes of the version-1 UUID with this 60-bit UUID time and this node. */
    public static byte[] bytes(long ticks, long node) {
        long msb = (ticks << 32)                       // time_low
                | ((ticks >>> 16) & 0xFFFF_0000L)       // time_mid
                | 0x1000L | ((ticks >>> 48) & 0x0FFFL); // version 1, time_hi
        byte[] b = new byte[16];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (msb >>> (56 - 8 * i));
            b[8 + i] = (byte) (node >>> (56 - 8 * i));
        }
        return b;
    }

    /** The UUID time held by 16 time-UUID bytes (for tests and messages). */
    public static long ticksOf(byte[] uuid) {
        long msb = 0;
        for (int i = 0; i < 8; i++) msb = (msb << 8) | (uuid[i] & 0xFF);
        return ((msb & 0x0FFFL) << 48) | (((msb >>> 16) & 0xFFFFL) << 32) | (msb >>> 32);
    }

    /** The node (low 64 bits) of 16 time-UUID bytes. */
    public static long nodeOf(byte[] uuid) {
        long lsb = 0;
        for (int i = 8; i < 16; i++) lsb = (lsb << 8) | (uuid[i] & 0xFF);
        return lsb;
    }
}

package dev.flushline.data;

import java.util.Arrays;

/**
 * The one home of Cassandra 5.0's reconcile rules, on primitives, so that every stage that merges
 * versions of the same data decides alike: the memtable merging writes into a row
 * ({@link Rows}, {@link Cell#reconcile}), compaction merging sstables (the compaction's row
 * merger, on flyweights over the inputs' bytes), and the sorted bulk writer.
 *
 * <ul>
 *   <li>Deletions ({@code DeletionTime.supersedes}): the later timestamp wins, then the later
 *       local deletion time.</li>
 *   <li>Liveness ({@code LivenessInfo.supersedes}): the later timestamp; then an expired liveness
 *       (a materialized view's, TTL {@link #EXPIRED_LIVENESS_TTL}) over any other; then, between two
 *       of the same kind (both expiring or both not), the later expiration and then the lower TTL;
 *       else the expiring one.</li>
 *   <li>Cells ({@code Cells.reconcile}): the higher timestamp; on a tie a tombstone or expiring cell
 *       beats a live one, a tombstone beats an expiring cell, the later local deletion time wins,
 *       then the lower TTL, and last the larger value (unsigned bytes). A complete tie keeps the
 *       first.</li>
 * </ul>
 *
 * <p>Hot path (compaction): no allocation, no boxing. Thread safety: stateless.
 */
public final class Reconcile {
    private Reconcile() {}

    /** The TTL Cassandra gives an expired liveness (a view's shadowable row): never a real TTL. */
    public static final int EXPIRED_LIVENESS_TTL = Integer.MAX_VALUE;

    /** Whether deletion 1 supersedes deletion 2. LIVE is (Long.MIN_VALUE, Long.MAX_VALUE) and supersedes nothing. */
    public static boolean deletionSupersedes(long ts1, long ldt1, long ts2, long ldt2) {
        return ts1 > ts2 || (ts1 == ts2 && ldt1 > ldt2);
    }

    /** Whether liveness 1 (timestamp, TTL, expiration time) supersedes liveness 2. */
    public static boolean livenessSupersedes(long ts1, int ttl1, long exp1, long ts2, int ttl2, long exp2) {
        if (ts1 != ts2) return ts1 > ts2;
        boolean x1 = ttl1 == EXPIRED_LIVENESS_TTL, x2 = ttl2 == EXPIRED_LIVENESS_TTL;
        if (x1 != x2) return x1;
        boolean e1 = ttl1 != Cell.NO_TTL, e2 = ttl2 != Cell.NO_TTL;
        if (e1 == e2) return exp1 > exp2 || (exp1 == exp2 && ttl1 < ttl2);
        return e1;
    }

    /**
     * Whether cell 1 wins over cell 2 ({@code Cells.reconcile(first, second) == first}). A cell is
     * (timestamp, TTL, local deletion time or {@link Cell#NO_DELETION_TIME}, value bytes
     * {@code v[off, off + len)}).
     */
    public static boolean cellFirstWins(long ts1, int ttl1, long ldt1, byte[] v1, int off1, int len1,
                                        long ts2, int ttl2, long ldt2, byte[] v2, int off2, int len2) {
        if (ts1 != ts2) return ts1 > ts2;
        boolean dead1 = ldt1 != Cell.NO_DELETION_TIME, dead2 = ldt2 != Cell.NO_DELETION_TIME;
        if (dead1 | dead2) {
            if (dead1 != dead2) return dead1;
            boolean tomb1 = ttl1 == Cell.NO_TTL, tomb2 = ttl2 == Cell.NO_TTL;
            if (tomb1 != tomb2) return tomb1;
            if (ldt1 != ldt2) return ldt1 > ldt2;
            if (!tomb1 && ttl1 != ttl2) return ttl1 < ttl2;
        }
        return Arrays.compareUnsigned(v1, off1, off1 + len1, v2, off2, off2 + len2) >= 0;
    }
}

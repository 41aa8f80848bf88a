package dev.flushline.sstable;

import dev.flushline.data.Cell;
import dev.flushline.data.DeletionTime;
import dev.flushline.io.FixedBuffer;
import dev.flushline.io.VInt;


/**
 * The bases that Data.db deltas are taken from (Cassandra's EncodingStats): every timestamp is
 * written as {@code ts - minTimestamp}, every local deletion time as the int
 * {@code (int) (ldt - minLocalDeletionTime)} sign-extended, every TTL as {@code ttl - minTtl}.
 *
 * <p>Every size method here is computed from the very value the matching put method writes, so
 * sizes and bytes agree by construction, including where Cassandra's own size functions are wrong:
 * for a local deletion time delta past 2^31 - 1 they count the full long delta while the writer
 * writes the sign-extended int, so Cassandra pads the HEADER component and writes a range
 * tombstone marker size 4 bytes too small. {@link #forFlush} keeps every delta within an int, so
 * our files never hit either case.
 *
 * <p>Reading back: Cassandra reads the base itself as {@code int delta + DELETION_TIME_EPOCH} in
 * <em>int</em> arithmetic (its epoch constant is an int), so a base above Integer.MAX_VALUE comes
 * back as {@code base - 2^32}. It then adds each sign-extended int delta to that base in long
 * arithmetic and turns a deletion time (row, range tombstone, complex) outside
 * 0..MAX_DELETION_TIME into INVALID_DELETION_TIME; cells and liveness hide a wrong base because
 * they keep only the low 32 bits. So a local deletion time reads back as written only if the base
 * is at most Integer.MAX_VALUE and {@code ldt - base} fits in an int. {@link #forFlush} picks a
 * base for which that holds for every value in the flush (any set of values in
 * 0..MAX_DELETION_TIME has one).
 *
 * <p>The same encoding serves nb: every local deletion time an nb sstable holds is at most
 * Integer.MAX_VALUE - 1 (see {@link SSTableVersion}), so the base and every delta fit a signed int,
 * and nb's reader (which takes a negative decoded value as invalid) reads them back as written.
 *
 * <p>Thread safety: immutable.
 */
public final class EncodingStats {
    /** 2015-09-22T00:00:00Z in microseconds. */
    public static final long TIMESTAMP_EPOCH = 1442880000000000L;
    /** 2015-09-22T00:00:00Z in seconds. */
    public static final long DELETION_TIME_EPOCH = 1442880000L;
    public static final int TTL_EPOCH = 0;

    /** What CQLSSTableWriter uses: every base at its epoch. */
    public static final EncodingStats NO_STATS = new EncodingStats(TIMESTAMP_EPOCH, DELETION_TIME_EPOCH, TTL_EPOCH);

    private final long minTimestamp;
    private final long minLocalDeletionTime;
    private final int minTtl;

    public EncodingStats(long minTimestamp, long minLocalDeletionTime, int minTtl) {
        this.minTimestamp = minTimestamp;
        this.minLocalDeletionTime = minLocalDeletionTime;
        this.minTtl = minTtl;
    }

    /**
     * Bases for a flush whose values span the given ranges ({@link Cell#NO_TIMESTAMP} /
     * {@link Cell#NO_DELETION_TIME} when there are none). The local deletion time base is the
     * minimum, moved up just enough that the largest value's delta fits in an int, and capped
     * at Integer.MAX_VALUE, the largest base Cassandra reads back as itself (see the class comment;
     * this also keeps the header's own delta from the epoch in an int).
     */
    public static EncodingStats forFlush(long minTimestamp, long minLdt, long maxLdt, int minTtl) {
        long ts = minTimestamp == Cell.NO_TIMESTAMP ? TIMESTAMP_EPOCH : minTimestamp;
        long base;
        if (minLdt == Cell.NO_DELETION_TIME) {
            base = DELETION_TIME_EPOCH;
        } else {
            base = minLdt;
            if (maxLdt != Cell.NO_DELETION_TIME && maxLdt - base > Integer.MAX_VALUE) {
                base = maxLdt - Integer.MAX_VALUE;
            }
            if (base > Integer.MAX_VALUE) {
                base = Integer.MAX_VALUE;
            }
        }
        return new EncodingStats(ts, base, minTtl);
    }

    /** Whether every delta taken from {@code other}'s bases is the same one taken from these. */
    public boolean sameBases(EncodingStats other) {
        return minTimestamp == other.minTimestamp && minLocalDeletionTime == other.minLocalDeletionTime && minTtl == other.minTtl;
    }

    public long minTimestamp() { return minTimestamp; }

    public long minLocalDeletionTime() { return minLocalDeletionTime; }

    public int minTtl() { return minTtl; }

    /** Whether {@code ldt} reads back as itself against this base. */
    public boolean localDeletionTimeRoundTrips(long ldt) {
        if (minLocalDeletionTime > Integer.MAX_VALUE || minLocalDeletionTime < Integer.MIN_VALUE) return false;
        long delta = ldt - minLocalDeletionTime;
        return delta >= Integer.MIN_VALUE && delta <= Integer.MAX_VALUE;
    }

    // ---- Data.db deltas (hot) ----------------------------------------------------------------

    public int timestampSize(long timestamp) {
        return VInt.sizeOfUnsigned(timestamp - minTimestamp);
    }

    public void putTimestamp(FixedBuffer out, long timestamp) {
        out.putUnsignedVInt(timestamp - minTimestamp);
    }

    public int localDeletionTimeSize(long ldt) {
        return VInt.sizeOfUnsignedInt32((int) (ldt - minLocalDeletionTime));
    }

    public void putLocalDeletionTime(FixedBuffer out, long ldt) {
        out.putUnsignedVInt32((int) (ldt - minLocalDeletionTime));
    }

    public int ttlSize(int ttl) {
        return VInt.sizeOfUnsignedInt32(ttl - minTtl);
    }

    public void putTtl(FixedBuffer out, int ttl) {
        out.putUnsignedVInt32(ttl - minTtl);
    }

    public int deletionTimeSize(DeletionTime d) {
        return deletionTimeSize(d.markedForDeleteAt(), d.localDeletionTime());
    }

    public void putDeletionTime(FixedBuffer out, DeletionTime d) {
        putDeletionTime(out, d.markedForDeleteAt(), d.localDeletionTime());
    }

    public int deletionTimeSize(long markedForDeleteAt, long localDeletionTime) {
        return timestampSize(markedForDeleteAt) + localDeletionTimeSize(localDeletionTime);
    }

    public void putDeletionTime(FixedBuffer out, long markedForDeleteAt, long localDeletionTime) {
        putTimestamp(out, markedForDeleteAt);
        putLocalDeletionTime(out, localDeletionTime);
    }

    // ---- HEADER component (once per sstable) -------------------------------------------------

    public int serializedSize() {
        return VInt.sizeOfUnsigned(minTimestamp - TIMESTAMP_EPOCH)
                + VInt.sizeOfUnsignedInt32((int) (minLocalDeletionTime - DELETION_TIME_EPOCH))
                + VInt.sizeOfUnsignedInt32(minTtl - TTL_EPOCH);
    }

    public void serialize(FixedBuffer out) {
        out.putUnsignedVInt(minTimestamp - TIMESTAMP_EPOCH);
        out.putUnsignedVInt32((int) (minLocalDeletionTime - DELETION_TIME_EPOCH));
        out.putUnsignedVInt32(minTtl - TTL_EPOCH);
    }

    @Override
    public String toString() {
        return "EncodingStats{minTimestamp=" + minTimestamp + ", minLocalDeletionTime=" + minLocalDeletionTime
                + ", minTtl=" + minTtl + '}';
    }
}

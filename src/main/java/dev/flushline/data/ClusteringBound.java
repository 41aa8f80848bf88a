package dev.flushline.data;

/**
 * One end of a range tombstone, or a boundary where one range ends and the next starts: a prefix
 * of clustering values (0..n of them) and a kind.
 *
 * <p>The kind constants are the on-disk byte values (Cassandra's ClusteringPrefix.Kind ordinals);
 * {@link #comparedToClustering(byte)} says whether a bound sorts before (-1) or after (+1) every
 * clustering it is a prefix of.
 *
 * <p>Thread safety: immutable; the value arrays are owned and never modified.
 */
public final class ClusteringBound {
    public static final byte EXCL_END_BOUND = 0;
    public static final byte INCL_START_BOUND = 1;
    public static final byte EXCL_END_INCL_START_BOUNDARY = 2;
    public static final byte STATIC_CLUSTERING = 3;
    public static final byte CLUSTERING = 4;
    public static final byte INCL_END_EXCL_START_BOUNDARY = 5;
    public static final byte INCL_END_BOUND = 6;
    public static final byte EXCL_START_BOUND = 7;

    private static final byte[][] NO_VALUES = new byte[0][];

    /** The bound before every row: an inclusive start with no values. */
    public static final ClusteringBound BOTTOM = new ClusteringBound(INCL_START_BOUND, NO_VALUES);
    /** The bound after every row: an inclusive end with no values. */
    public static final ClusteringBound TOP = new ClusteringBound(INCL_END_BOUND, NO_VALUES);

    private final byte kind;
    private final byte[][] values;

    public ClusteringBound(byte kind, byte[][] values) {
        this.kind = kind;
        this.values = values;
    }

    public static ClusteringBound start(boolean inclusive, byte[][] values) {
        return new ClusteringBound(inclusive ? INCL_START_BOUND : EXCL_START_BOUND, values);
    }

    public static ClusteringBound end(boolean inclusive, byte[][] values) {
        return new ClusteringBound(inclusive ? INCL_END_BOUND : EXCL_END_BOUND, values);
    }

    public byte kind() { return kind; }

    /** Do not modify. */
    public byte[][] values() { return values; }

    public int size() { return values.length; }

    public boolean isStart() {
        return kind == INCL_START_BOUND || kind == EXCL_START_BOUND;
    }

    public boolean isEnd() {
        return kind == INCL_END_BOUND || kind == EXCL_END_BOUND;
    }

    public boolean isBoundary() {
        return kind == EXCL_END_INCL_START_BOUNDARY || kind == INCL_END_EXCL_START_BOUNDARY;
    }

    public boolean isInclusive() {
        return kind == INCL_START_BOUND || kind == INCL_END_BOUND;
    }

    /** The other side of the same point: an inclusive start's complement is an exclusive end. */
    public ClusteringBound invert() {
        switch (kind) {
            case INCL_START_BOUND: return new ClusteringBound(EXCL_END_BOUND, values);
            case EXCL_START_BOUND: return new ClusteringBound(INCL_END_BOUND, values);
            case INCL_END_BOUND: return new ClusteringBound(EXCL_START_BOUND, values);
            case EXCL_END_BOUND: return new ClusteringBound(INCL_START_BOUND, values);
            default: throw new IllegalStateException("cannot invert kind " + kind);
        }
    }

    /** -1 if a bound of this kind sorts before the clusterings it prefixes, +1 after, 0 for rows. */
    public static int comparedToClustering(byte kind) {
        switch (kind) {
            case EXCL_END_BOUND:
            case INCL_START_BOUND:
            case EXCL_END_INCL_START_BOUNDARY:
            case STATIC_CLUSTERING:
                return -1;
            case CLUSTERING:
                return 0;
            default:
                return 1;
        }
    }

    /** Cassandra's rank of kinds for two prefixes of equal values and length. */
    static int comparisonRank(byte kind) {
        switch (kind) {
            case EXCL_END_BOUND:
            case INCL_START_BOUND:
            case EXCL_END_INCL_START_BOUNDARY:
                return 0;
            case STATIC_CLUSTERING:
                return 1;
            case CLUSTERING:
                return 2;
            default:
                return 3;
        }
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Bound{kind=").append(kind).append(", [");
        for (int i = 0; i < values.length; i++) {
            if (i > 0) sb.append(", ");
            sb.append(Hex.of(values[i]));
        }
        return sb.append("]}").toString();
    }
}

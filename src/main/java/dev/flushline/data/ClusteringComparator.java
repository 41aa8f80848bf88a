package dev.flushline.data;

import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlType;
import dev.flushline.schema.TableSchema;

/**
 * Cassandra's clustering order for one table: rows by their clustering values (type order, DESC
 * columns reversed), and range-tombstone bounds interleaved by their kinds.
 *
 * <p>Thread safety: immutable.
 */
public final class ClusteringComparator {
    private final ColumnMetadata[] columns;
    /** For a table with one clustering column whose values order as signed numbers: their width, else 0. */
    private final int keyWidth;
    private final boolean keyReversed;

    public ClusteringComparator(TableSchema schema) {
        this.columns = schema.clusteringColumns();
        this.keyWidth = columns.length == 1 ? columns[0].type().signedOrderWidth() : 0;
        this.keyReversed = keyWidth != 0 && columns[0].isReversed();
    }

    /**
     * Whether {@code c} has an {@link #orderKey}: a row's clustering (not a bound) of a table whose
     * one clustering column orders as signed numbers (int, bigint, timestamp), its value of the full
     * width. Two clusterings that both have one compare as their keys do.
     */
    public boolean hasOrderKey(ClusteringBuffer c) {
        return keyWidth != 0 && c.kind() == ClusteringBound.CLUSTERING && c.size() == 1 && c.length(0) == keyWidth;
    }

    /**
     * A long that orders the clusterings having one ({@link #hasOrderKey}) as {@link #compare} does,
     * DESC included (~v reverses the signed order with no overflow), so that a merge compares them as
     * numbers it read once. REQUIRES: hasOrderKey(c).
     */
    public long orderKey(ClusteringBuffer c) {
        long v = CqlType.signedOrderValue(keyWidth, c.source(0), c.offset(0));
        return keyReversed ? ~v : v;
    }

    public int size() {
        return columns.length;
    }

    /** Two full clusterings (one value per clustering column). */
    public int compare(byte[][] a, byte[][] b) {
        final ColumnMetadata[] cols = columns;
        for (int i = 0; i < cols.length; i++) {
            int c = cols[i].compareClustering(a[i], b[i]);
            if (c != 0) return c;
        }
        return 0;
    }

    /** A full clustering against a bound. */
    public int compare(byte[][] row, ClusteringBound bound) {
        return compare(row, ClusteringBound.CLUSTERING, bound.values(), bound.kind());
    }

    public int compare(ClusteringBound a, ClusteringBound b) {
        return compare(a.values(), a.kind(), b.values(), b.kind());
    }

    /** Cassandra's prefix comparison: common components first, then length and kind. */
    public int compare(byte[][] v1, byte kind1, byte[][] v2, byte kind2) {
        int s1 = v1.length, s2 = v2.length;
        int min = Math.min(s1, s2);
        final ColumnMetadata[] cols = columns;
        for (int i = 0; i < min; i++) {
            int c = cols[i].compareClustering(v1[i], v2[i]);
            if (c != 0) return c;
        }
        if (s1 == s2) {
            return Integer.compare(ClusteringBound.comparisonRank(kind1), ClusteringBound.comparisonRank(kind2));
        }
        return s1 < s2 ? ClusteringBound.comparedToClustering(kind1) : -ClusteringBound.comparedToClustering(kind2);
    }

    /** Two flyweight prefixes, by the same rules as {@link #compare(byte[][], byte, byte[][], byte)}. */
    public int compare(ClusteringBuffer a, ClusteringBuffer b) {
        int s1 = a.size(), s2 = b.size();
        int min = Math.min(s1, s2);
        final ColumnMetadata[] cols = columns;
        for (int i = 0; i < min; i++) {
            int c = cols[i].compareClustering(a.source(i), a.offset(i), a.length(i), b.source(i), b.offset(i), b.length(i));
            if (c != 0) return c;
        }
        return tail(s1, a.kind(), s2, b.kind());
    }

    /** A flyweight prefix against a prefix held as arrays. */
    public int compare(ClusteringBuffer a, byte[][] v2, byte kind2) {
        int s1 = a.size(), s2 = v2.length;
        int min = Math.min(s1, s2);
        final ColumnMetadata[] cols = columns;
        for (int i = 0; i < min; i++) {
            byte[] b = v2[i];
            int c = cols[i].compareClustering(a.source(i), a.offset(i), a.length(i), b, 0, b.length);
            if (c != 0) return c;
        }
        return tail(s1, a.kind(), s2, kind2);
    }

    private static int tail(int s1, byte kind1, int s2, byte kind2) {
        if (s1 == s2) {
            return Integer.compare(ClusteringBound.comparisonRank(kind1), ClusteringBound.comparisonRank(kind2));
        }
        return s1 < s2 ? ClusteringBound.comparedToClustering(kind1) : -ClusteringBound.comparedToClustering(kind2);
    }
}

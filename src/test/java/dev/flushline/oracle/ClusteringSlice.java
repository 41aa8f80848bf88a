package dev.flushline.oracle;

import java.util.List;

/**
 * A clustering range for slice reads. An empty value list on either side means unbounded on that side;
 * a shorter list than the clustering column count is a prefix bound, as in CQL.
 */
public record ClusteringSlice(List<Bytes> start, boolean startInclusive, List<Bytes> end, boolean endInclusive) {
    public static final ClusteringSlice ALL = new ClusteringSlice(List.of(), true, List.of(), true);

    public ClusteringSlice {
        start = List.copyOf(start);
        end = List.copyOf(end);
    }

    public static ClusteringSlice closed(List<Bytes> start, List<Bytes> end) {
        return new ClusteringSlice(start, true, end, true);
    }
}

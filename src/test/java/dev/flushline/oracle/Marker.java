package dev.flushline.oracle;

import java.util.List;
import java.util.Set;

/**
 * A range tombstone marker. {@code kind} is the name of Cassandra's ClusteringPrefix.Kind
 * (e.g. INCL_START_BOUND, EXCL_END_INCL_START_BOUNDARY). Bounds carry one deletion; boundaries carry
 * two, in on-disk order: the deletion that ends here, then the one that starts here.
 */
public record Marker(String kind, List<Bytes> clustering, List<Deletion> deletions) implements Unfiltered {
    public static final Set<String> BOUND_KINDS =
            Set.of("INCL_START_BOUND", "EXCL_START_BOUND", "INCL_END_BOUND", "EXCL_END_BOUND");
    public static final Set<String> BOUNDARY_KINDS =
            Set.of("EXCL_END_INCL_START_BOUNDARY", "INCL_END_EXCL_START_BOUNDARY");

    public Marker {
        clustering = List.copyOf(clustering);
        deletions = List.copyOf(deletions);
        int expected = BOUNDARY_KINDS.contains(kind) ? 2 : BOUND_KINDS.contains(kind) ? 1 : -1;
        if (expected != deletions.size()) {
            throw new IllegalArgumentException("marker kind " + kind + " needs " + expected + " deletion(s), got " + deletions);
        }
    }

    public static Marker bound(String kind, Deletion deletion, Bytes... clustering) {
        return new Marker(kind, List.of(clustering), List.of(deletion));
    }

    public static Marker boundary(String kind, Deletion ending, Deletion starting, Bytes... clustering) {
        return new Marker(kind, List.of(clustering), List.of(ending, starting));
    }

    public boolean isBoundary() {
        return deletions.size() == 2;
    }

    public boolean isOpen() {
        return kind.endsWith("START_BOUND") || isBoundary();
    }

    @Override
    public String toString() {
        return "Marker(" + kind + " " + clustering + " " + deletions + ")";
    }
}

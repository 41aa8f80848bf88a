package dev.flushline.data;

import java.util.ArrayList;
import java.util.List;

/**
 * The range deletions of one partition, normalised as Cassandra's memtable keeps them: disjoint
 * ranges in clustering order. Where a new range overlaps a stored one, the new one wins only with a
 * strictly higher timestamp; on equal timestamps the stored one stays, whatever the local deletion
 * times (Cassandra's RangeTombstoneList compares timestamps only, so with equal timestamps and
 * different local deletion times the result depends on write order, as it does in Cassandra).
 *
 * <p>Also precomputes the range-tombstone markers that Data.db needs, so that a flush walks them
 * without allocating: each range gives a start and an end bound, except where one range ends
 * exactly where the next starts, which gives a single boundary marker carrying both deletions.
 * Ranges that the partition deletion ({@link #applyPartitionDeletion}) makes invisible give no markers, as
 * Cassandra's flush skips them; those with the partition deletion's timestamp are still stored,
 * because on a tie they keep a later range out just as they do in Cassandra.
 *
 * <p>Thread safety: not thread-safe. The memtable mutates it under its partition lock and reads it
 * under the lock or after the memtable is sealed.
 */
public final class RangeTombstoneList {
    private static final RangeTombstone[] NO_RANGES = new RangeTombstone[0];
    private static final ClusteringBound[] NO_BOUNDS = new ClusteringBound[0];
    private static final DeletionTime[] NO_DELETIONS = new DeletionTime[0];

    private final ClusteringComparator comparator;
    /** The partition deletion: a range that does not supersede it gives no markers. */
    private DeletionTime partitionDeletion = DeletionTime.LIVE;
    private RangeTombstone[] ranges = NO_RANGES;
    private ClusteringBound[] markerBounds = NO_BOUNDS;
    /** For a boundary or end bound: the deletion that ends there; LIVE for a start bound. */
    private DeletionTime[] markerEndDeletions = NO_DELETIONS;
    /** For a boundary or start bound: the deletion that starts there; LIVE for an end bound. */
    private DeletionTime[] markerStartDeletions = NO_DELETIONS;

    public RangeTombstoneList(ClusteringComparator comparator) {
        this.comparator = comparator;
    }

    /** No range that a flush writes (stored ranges the partition deletion hides do not count). */
    public boolean isEmpty() {
        return markerBounds.length == 0;
    }

    /** Stored ranges, including those the partition deletion hides. */
    public int rangeCount() {
        return ranges.length;
    }

    public RangeTombstone range(int i) {
        return ranges[i];
    }

    public int markerCount() {
        return markerBounds.length;
    }

    public ClusteringBound markerBound(int i) {
        return markerBounds[i];
    }

    public DeletionTime markerEndDeletion(int i) {
        return markerEndDeletions[i];
    }

    public DeletionTime markerStartDeletion(int i) {
        return markerStartDeletions[i];
    }

    /**
     * The stored range deletion covering this row clustering, or LIVE. It may be one the partition
     * deletion hides: callers take the larger of the two.
     */
    public DeletionTime deletionAt(byte[][] clustering) {
        RangeTombstone[] rs = ranges;
        int lo = 0, hi = rs.length - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            RangeTombstone r = rs[mid];
            if (comparator.compare(clustering, r.start()) < 0) {
                hi = mid - 1;
            } else if (comparator.compare(clustering, r.end()) > 0) {
                lo = mid + 1;
            } else {
                return r.deletion();
            }
        }
        return DeletionTime.LIVE;
    }

    /**
     * Records a new, superseding partition deletion: ranges with an older timestamp are dropped
     * (nothing they cover can show again, and a later range that would tie with them is itself
     * older than the partition deletion); ranges it supersedes only by local deletion time, or not
     * at all, stay stored but give no markers.
     */
    public void applyPartitionDeletion(DeletionTime partitionDeletion) {
        this.partitionDeletion = partitionDeletion;
        List<RangeTombstone> kept = new ArrayList<>(ranges.length);
        for (RangeTombstone r : ranges) {
            if (r.deletion().markedForDeleteAt() >= partitionDeletion.markedForDeleteAt()) kept.add(r);
        }
        ranges = kept.toArray(NO_RANGES);
        rebuildMarkers();
    }

    /** Whether {@link #add} would keep anything of this range: its timestamp is not older than the partition deletion's. */
    public static boolean mayMatter(RangeTombstone range, DeletionTime partitionDeletion) {
        return range.deletion().markedForDeleteAt() >= partitionDeletion.markedForDeleteAt();
    }

    public void add(RangeTombstone n) {
        if (comparator.compare(n.start(), n.end()) >= 0) {
            return; // empty range
        }
        List<RangeTombstone> out = new ArrayList<>(ranges.length + 3);
        ClusteringBound cursor = n.start();
        boolean cursorOpen = true;
        for (RangeTombstone r : ranges) {
            if (comparator.compare(r.end(), n.start()) < 0 || comparator.compare(r.start(), n.end()) > 0) {
                out.add(r);
                continue;
            }
            if (comparator.compare(r.start(), n.start()) < 0) {
                addIfNonEmpty(out, r.start(), n.start().invert(), r.deletion());
            }
            ClusteringBound os = comparator.compare(r.start(), n.start()) >= 0 ? r.start() : n.start();
            ClusteringBound oe = comparator.compare(r.end(), n.end()) <= 0 ? r.end() : n.end();
            addIfNonEmpty(out, os, oe, overlapWinner(r.deletion(), n.deletion()));
            if (comparator.compare(r.end(), n.end()) > 0) {
                addIfNonEmpty(out, n.end().invert(), r.end(), r.deletion());
            }
            if (cursorOpen && comparator.compare(cursor, r.start()) < 0) {
                addIfNonEmpty(out, cursor, r.start().invert(), n.deletion());
            }
            if (comparator.compare(r.end(), n.end()) >= 0) {
                cursorOpen = false;
            } else {
                ClusteringBound after = r.end().invert();
                if (comparator.compare(after, cursor) > 0) cursor = after;
            }
        }
        if (cursorOpen) {
            addIfNonEmpty(out, cursor, n.end(), n.deletion());
        }
        out.sort((x, y) -> comparator.compare(x.start(), y.start()));
        // Coalesce touching ranges with equal deletions.
        List<RangeTombstone> merged = new ArrayList<>(out.size());
        for (RangeTombstone r : out) {
            int last = merged.size() - 1;
            if (last >= 0) {
                RangeTombstone p = merged.get(last);
                if (p.deletion().equals(r.deletion()) && touches(p.end(), r.start())) {
                    merged.set(last, new RangeTombstone(p.start(), r.end(), p.deletion()));
                    continue;
                }
            }
            merged.add(r);
        }
        ranges = merged.toArray(NO_RANGES);
        rebuildMarkers();
    }

    /** Cassandra's rule for an overlap: the newer range only with a strictly higher timestamp. */
    private static DeletionTime overlapWinner(DeletionTime stored, DeletionTime added) {
        return added.markedForDeleteAt() > stored.markedForDeleteAt() ? added : stored;
    }

    private void addIfNonEmpty(List<RangeTombstone> out, ClusteringBound s, ClusteringBound e, DeletionTime d) {
        if (comparator.compare(s, e) < 0) {
            out.add(new RangeTombstone(s, e, d));
        }
    }

    /** An end bound and a start bound at the same point with complementary inclusiveness. */
    private boolean touches(ClusteringBound end, ClusteringBound start) {
        if (end.size() != start.size() || end.isInclusive() == start.isInclusive()) return false;
        byte[][] a = end.values(), b = start.values();
        for (int i = 0; i < a.length; i++) {
            if (!java.util.Arrays.equals(a[i], b[i])) return false;
        }
        return true;
    }

    private void rebuildMarkers() {
        List<ClusteringBound> bounds = new ArrayList<>();
        List<DeletionTime> ends = new ArrayList<>();
        List<DeletionTime> starts = new ArrayList<>();
        for (int i = 0; i < ranges.length; i++) {
            RangeTombstone r = ranges[i];
            if (!r.deletion().supersedes(partitionDeletion)) continue; // hidden: Cassandra's flush skips it
            int last = bounds.size() - 1;
            if (last >= 0 && touches(bounds.get(last), r.start())) {
                ClusteringBound e = bounds.get(last);
                byte kind = e.isInclusive() ? ClusteringBound.INCL_END_EXCL_START_BOUNDARY
                        : ClusteringBound.EXCL_END_INCL_START_BOUNDARY;
                bounds.set(last, new ClusteringBound(kind, e.values()));
                starts.set(last, r.deletion());
            } else {
                bounds.add(r.start());
                ends.add(DeletionTime.LIVE);
                starts.add(r.deletion());
            }
            bounds.add(r.end());
            ends.add(r.deletion());
            starts.add(DeletionTime.LIVE);
        }
        markerBounds = bounds.toArray(NO_BOUNDS);
        markerEndDeletions = ends.toArray(NO_DELETIONS);
        markerStartDeletions = starts.toArray(NO_DELETIONS);
    }

    @Override
    public String toString() {
        return java.util.Arrays.toString(ranges);
    }
}

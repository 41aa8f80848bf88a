package dev.flushline.data;

import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlType;

/**
 * Reconciliation of rows in the memtable, following Cassandra 5.0's Rows.merge with the rules of
 * {@link Reconcile}: the superseding liveness and the newer deletion win, each column keeps the
 * reconciled cell, and whatever the resulting row or complex deletion shadows is dropped.
 *
 * <p>Runs on the write path only (under a partition's lock), so it may allocate.
 */
public final class Rows {
    private Rows() {}

    /**
     * Merges two versions of the same row (either may be null) and applies {@code active}, the
     * partition or range deletion that covers it. Returns null if nothing is left.
     * {@code columns}: the static or regular columns in header order, whichever the rows are.
     */
    public static Row merge(Row a, Row b, ColumnMetadata[] columns, int complexStart, DeletionTime active) {
        if (a == null && active.isLive() && b.deletion().isLive() && !b.hasComplexDeletion()) {
            // Nothing can shadow anything: a first version with no deletion of any kind is kept as is.
            return b.isEmpty() ? null : b;
        }
        Row base = a != null ? a : b;
        long lts, lexp;
        int lttl;
        DeletionTime del;
        if (a == null || b == null) {
            lts = base.livenessTimestamp();
            lttl = base.livenessTtl();
            lexp = base.livenessExpirationTime();
            del = base.deletion();
        } else {
            if (Reconcile.livenessSupersedes(a.livenessTimestamp(), a.livenessTtl(), a.livenessExpirationTime(),
                    b.livenessTimestamp(), b.livenessTtl(), b.livenessExpirationTime())) {
                lts = a.livenessTimestamp(); lttl = a.livenessTtl(); lexp = a.livenessExpirationTime();
            } else {
                lts = b.livenessTimestamp(); lttl = b.livenessTtl(); lexp = b.livenessExpirationTime();
            }
            del = DeletionTime.max(a.deletion(), b.deletion());
        }
        if (!del.supersedes(active)) {
            del = DeletionTime.LIVE; // redundant: the covering deletion already shadows as much
        }
        DeletionTime shadow = DeletionTime.max(del, active);
        if (lts != Cell.NO_TIMESTAMP && shadow.deletes(lts)) {
            lts = Cell.NO_TIMESTAMP; lttl = Cell.NO_TTL; lexp = Cell.NO_DELETION_TIME;
        }

        Cell[] cells = new Cell[complexStart];
        int present = 0;
        for (int i = 0; i < complexStart; i++) {
            Cell ca = a == null ? null : a.cells()[i];
            Cell cb = b == null ? null : b.cells()[i];
            Cell c = ca == null ? cb : (cb == null ? ca : Cell.reconcile(ca, cb));
            if (c != null && !shadow.deletes(c.timestamp())) {
                cells[i] = c;
                present++;
            }
        }
        ComplexColumn[] complex = new ComplexColumn[columns.length - complexStart];
        for (int i = 0; i < complex.length; i++) {
            ComplexColumn xa = a == null ? null : a.complex()[i];
            ComplexColumn xb = b == null ? null : b.complex()[i];
            ComplexColumn x = mergeComplex(xa, xb, pathType(columns[complexStart + i]), shadow);
            if (x != null) {
                complex[i] = x;
                present++;
            }
        }
        if (lts == Cell.NO_TIMESTAMP && del.isLive() && present == 0) {
            return null;
        }
        return new Row(base.isStatic(), base.clustering(), lts, lttl, lexp, del, cells, complex);
    }

    /** The type that orders a collection's cell paths: time-UUIDs for lists, else the element/key type. */
    public static CqlType pathType(ColumnMetadata column) {
        return column.type().cellPathType();
    }

    private static final Cell[] NO_CELLS = new Cell[0];

    static ComplexColumn mergeComplex(ComplexColumn a, ComplexColumn b, CqlType pathType, DeletionTime shadow) {
        if (a == null && b == null) return null;
        DeletionTime cd = a == null ? b.complexDeletion()
                : b == null ? a.complexDeletion() : DeletionTime.max(a.complexDeletion(), b.complexDeletion());
        // Dropped only when the row, range or partition deletion strictly supersedes it. One equal to
        // that deletion means the same but stays, as Cassandra's memtable keeps it (its row merge and
        // its flush-time filter both drop a complex deletion only when superseded): otherwise the
        // flushed row, and so Data.db, would differ from what Cassandra writes for the same writes.
        if (shadow.supersedes(cd)) {
            cd = DeletionTime.LIVE;
        }
        DeletionTime cellShadow = DeletionTime.max(cd, shadow);
        Cell[] ca = a == null ? NO_CELLS : a.cells();
        Cell[] cb = b == null ? NO_CELLS : b.cells();
        Cell[] out = new Cell[ca.length + cb.length];
        int i = 0, j = 0, n = 0;
        while (i < ca.length || j < cb.length) {
            Cell c;
            if (i == ca.length) {
                c = cb[j++];
            } else if (j == cb.length) {
                c = ca[i++];
            } else {
                int cmp = pathType.compare(ca[i].pathBytes(), cb[j].pathBytes());
                if (cmp < 0) c = ca[i++];
                else if (cmp > 0) c = cb[j++];
                else c = Cell.reconcile(ca[i++], cb[j++]);
            }
            if (!cellShadow.deletes(c.timestamp())) {
                out[n++] = c;
            }
        }
        if (n == 0 && cd.isLive()) return null;
        return new ComplexColumn(cd, n == out.length ? out : java.util.Arrays.copyOf(out, n));
    }
}

package dev.flushline.data;

import java.util.Arrays;

/**
 * A row: its clustering (none for the static row), primary-key liveness, row deletion, and its
 * column data at the positions of {@code TableSchema} header order: simple columns' cells in
 * {@link #cells()} and complex columns' data in {@link #complex()} (position minus the index of
 * the first complex column). A null entry means the column is absent from this row.
 *
 * <p>Liveness follows Cassandra's LivenessInfo: {@link #livenessTimestamp()} is
 * {@link Cell#NO_TIMESTAMP} when the row has none (an UPDATE), and an expiring liveness has a TTL
 * and a local expiration time.
 *
 * <p>Thread safety: immutable; arrays are owned and never modified after construction.
 */
public final class Row {
    private static final byte[][] NO_CLUSTERING = new byte[0][];

    private final boolean isStatic;
    private final byte[][] clustering;
    private final long livenessTimestamp;
    private final int livenessTtl;
    private final long livenessExpirationTime;
    private final DeletionTime deletion;
    private final Cell[] cells;
    private final ComplexColumn[] complex;
    // Derived once: a flush asks for these per row, twice (size pass and write pass).
    private final int columnCount;
    private final int cellCount;
    private final boolean hasComplexDeletion;

    public Row(boolean isStatic, byte[][] clustering, long livenessTimestamp, int livenessTtl,
               long livenessExpirationTime, DeletionTime deletion, Cell[] cells, ComplexColumn[] complex) {
        this.isStatic = isStatic;
        this.clustering = isStatic ? NO_CLUSTERING : clustering;
        this.livenessTimestamp = livenessTimestamp;
        this.livenessTtl = livenessTtl;
        this.livenessExpirationTime = livenessExpirationTime;
        this.deletion = deletion;
        this.cells = cells;
        this.complex = complex;
        int columns = 0, cellTotal = 0;
        boolean complexDeletion = false;
        for (int i = 0; i < cells.length; i++) {
            if (cells[i] != null) {
                columns++;
                cellTotal++;
            }
        }
        for (int i = 0; i < complex.length; i++) {
            if (complex[i] != null) {
                columns++;
                cellTotal += complex[i].cellCount();
                complexDeletion |= !complex[i].complexDeletion().isLive();
            }
        }
        this.columnCount = columns;
        this.cellCount = cellTotal;
        this.hasComplexDeletion = complexDeletion;
    }

    public boolean isStatic() { return isStatic; }

    /** One value per clustering column; empty for the static row. Do not modify. */
    public byte[][] clustering() { return clustering; }

    public boolean hasLiveness() { return livenessTimestamp != Cell.NO_TIMESTAMP; }

    public long livenessTimestamp() { return livenessTimestamp; }

    public int livenessTtl() { return livenessTtl; }

    public boolean isLivenessExpiring() { return livenessTtl != Cell.NO_TTL; }

    /** Local expiration time of an expiring liveness, else {@link Cell#NO_DELETION_TIME}. */
    public long livenessExpirationTime() { return livenessExpirationTime; }

    public DeletionTime deletion() { return deletion; }

    /** Simple columns' cells by position; null = absent. Do not modify. */
    public Cell[] cells() { return cells; }

    /** Complex columns' data by (position - first complex position); null = absent. Do not modify. */
    public ComplexColumn[] complex() { return complex; }

    /** Number of columns present (simple cells plus complex columns with data). */
    public int columnCount() {
        return columnCount;
    }

    /** Number of cells: simple cells plus every collection element. */
    public int cellCount() {
        return cellCount;
    }

    public boolean hasComplexDeletion() {
        return hasComplexDeletion;
    }

    /** No liveness, no deletion and no column data: Cassandra does not write such a row. */
    public boolean isEmpty() {
        return !hasLiveness() && deletion.isLive() && columnCount() == 0;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(isStatic ? "StaticRow{" : "Row{[");
        if (!isStatic) {
            for (int i = 0; i < clustering.length; i++) {
                if (i > 0) sb.append(", ");
                sb.append(Hex.of(clustering[i]));
            }
            sb.append("] ");
        }
        if (hasLiveness()) {
            sb.append("ts=").append(livenessTimestamp);
            if (livenessTtl != 0) sb.append(" ttl=").append(livenessTtl).append(" exp=").append(livenessExpirationTime);
            sb.append(' ');
        }
        if (!deletion.isLive()) sb.append("del(").append(deletion).append(") ");
        sb.append(Arrays.toString(cells));
        if (complex.length > 0) sb.append(' ').append(Arrays.toString(complex));
        return sb.append('}').toString();
    }
}

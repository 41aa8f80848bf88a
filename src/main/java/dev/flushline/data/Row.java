package dev.flushline.data;

import dev.flushline.io.VInt;

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
    /** The complex array of a row of a table without complex columns: shared, it is never written. */
    public static final ComplexColumn[] NO_COMPLEX = new ComplexColumn[0];

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
    // Derived once for the serializer's size pass, so that sizing a plain INSERT row reads no cell:
    // whether every simple cell shares the row's liveness, and its simple cells' payload bytes.
    private final int simpleCellCount;
    private final boolean simpleCellsShareLiveness;
    private final int simpleValueBytes;
    private final int simpleValueLengthBytes;

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
        final boolean liveness = livenessTimestamp != Cell.NO_TIMESTAMP;
        boolean share = liveness;
        long valueBytes = 0, valueLengthBytes = 0;
        for (int i = 0; i < cells.length; i++) {
            Cell c = cells[i];
            if (c == null) continue;
            columns++;
            cellTotal++;
            long ts = c.timestamp(), ldt = c.localDeletionTime();
            int ttl = c.ttl(), length = c.valueLength();
            if (share) share = sharesLiveness(ts, ttl, ldt, livenessTimestamp, livenessTtl, livenessExpirationTime);
            valueBytes += length;
            if (length > 0) valueLengthBytes += VInt.sizeOfUnsigned(length);
        }
        this.simpleCellCount = cellTotal;
        this.simpleCellsShareLiveness = share && valueBytes + valueLengthBytes <= Integer.MAX_VALUE;
        this.simpleValueBytes = (int) Math.min(valueBytes, Integer.MAX_VALUE);
        this.simpleValueLengthBytes = (int) Math.min(valueLengthBytes, Integer.MAX_VALUE);
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

    /**
     * Whether a cell with these times is written with no time fields of its own in a row with this
     * liveness: its timestamp is the row's, and it either neither expires nor is deleted, or it expires
     * exactly as the row does (the oa cell flags USE_ROW_TIMESTAMP and USE_ROW_TTL). REQUIRES: the
     * row has liveness ({@code rowTimestamp != NO_TIMESTAMP}).
     */
    public static boolean sharesLiveness(long ts, int ttl, long ldt, long rowTimestamp, int rowTtl, long rowExpirationTime) {
        if (ts != rowTimestamp) return false;
        if (ttl == Cell.NO_TTL) return ldt == Cell.NO_DELETION_TIME;
        return rowTtl != Cell.NO_TTL && ttl == rowTtl && ldt == rowExpirationTime;
    }

    /** Number of simple columns' cells (non-null entries of {@link #cells()}). */
    public int simpleCellCount() {
        return simpleCellCount;
    }

    /**
     * True when the row has liveness and every simple cell {@link #sharesLiveness shares} it (true
     * for every row of a plain INSERT, with or without a TTL): then each simple cell is its flags
     * byte plus its value, and {@link #simpleValueBytes} and {@link #simpleValueLengthBytes} size
     * them all without reading a cell.
     */
    public boolean simpleCellsShareLiveness() {
        return simpleCellsShareLiveness;
    }

    /** Sum of the simple cells' value lengths (exact when {@link #simpleCellsShareLiveness}). */
    public int simpleValueBytes() {
        return simpleValueBytes;
    }

    /**
     * Sum of the unsigned vint sizes of the simple cells' non-zero value lengths: the length prefixes
     * if every column were variable-length (exact when {@link #simpleCellsShareLiveness}).
     */
    public int simpleValueLengthBytes() {
        return simpleValueLengthBytes;
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

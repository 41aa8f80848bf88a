package dev.flushline.data;

import java.util.Arrays;

/**
 * A reusable row built from primitives and byte ranges, for writers that do not hold {@link Row}
 * objects (compaction builds each merged row here from cursor flyweights). Same content as a
 * {@link Row}: clustering, primary-key liveness, row deletion, and the present columns in table
 * position order (the order of the table's static or regular columns), each a simple cell or a
 * complex column with its complex deletion and cells in path order.
 *
 * <p>Build: {@link #clear}, then liveness/deletion setters, then per column {@link #beginColumn},
 * {@link #addCell} (once for a simple column), {@link #endColumn}. Values and paths stay where
 * they are ({@code source, offset, length}); nothing is copied.
 *
 * <p>Memory: arrays are sized for the largest row seen and grow only when a bigger one comes.
 * Thread safety: none; a flyweight owned by one thread.
 */
public final class RowBuffer {
    private boolean isStatic;
    /** Bumped by every {@link #clear}: lets a serializer tell a row it sized from the next one in the same buffer. */
    private long generation;
    private final ClusteringBuffer clustering;

    private long livenessTimestamp;
    private int livenessTtl;
    private long livenessExpiration;
    private long deletionTimestamp;
    private long deletionLdt;

    private int columnCount;
    private int[] columnPosition;
    private boolean[] columnComplex;
    private long[] complexDeletionTimestamp;
    private long[] complexDeletionLdt;
    private int[] columnFirstCell;
    private int[] columnCellCount;
    private boolean hasComplexDeletion;

    private int cellCount;
    private long[] cellTimestamp;
    private int[] cellTtl;
    private long[] cellLdt;
    private byte[][] cellPathSource;
    private int[] cellPathOffset, cellPathLength;
    private byte[][] cellValueSource;
    private int[] cellValueOffset, cellValueLength;

    public RowBuffer(int clusteringColumns, int columns) {
        clustering = new ClusteringBuffer(clusteringColumns);
        int c = Math.max(1, columns);
        columnPosition = new int[c];
        columnComplex = new boolean[c];
        complexDeletionTimestamp = new long[c];
        complexDeletionLdt = new long[c];
        columnFirstCell = new int[c];
        columnCellCount = new int[c];
        growCells(16);
    }

    private void growCells(int n) {
        cellTimestamp = cellTimestamp == null ? new long[n] : Arrays.copyOf(cellTimestamp, n);
        cellTtl = cellTtl == null ? new int[n] : Arrays.copyOf(cellTtl, n);
        cellLdt = cellLdt == null ? new long[n] : Arrays.copyOf(cellLdt, n);
        cellPathSource = cellPathSource == null ? new byte[n][] : Arrays.copyOf(cellPathSource, n);
        cellPathOffset = cellPathOffset == null ? new int[n] : Arrays.copyOf(cellPathOffset, n);
        cellPathLength = cellPathLength == null ? new int[n] : Arrays.copyOf(cellPathLength, n);
        cellValueSource = cellValueSource == null ? new byte[n][] : Arrays.copyOf(cellValueSource, n);
        cellValueOffset = cellValueOffset == null ? new int[n] : Arrays.copyOf(cellValueOffset, n);
        cellValueLength = cellValueLength == null ? new int[n] : Arrays.copyOf(cellValueLength, n);
    }

    private void growColumns(int n) {
        columnPosition = Arrays.copyOf(columnPosition, n);
        columnComplex = Arrays.copyOf(columnComplex, n);
        complexDeletionTimestamp = Arrays.copyOf(complexDeletionTimestamp, n);
        complexDeletionLdt = Arrays.copyOf(complexDeletionLdt, n);
        columnFirstCell = Arrays.copyOf(columnFirstCell, n);
        columnCellCount = Arrays.copyOf(columnCellCount, n);
    }

    // ---- building --------------------------------------------------------------------------------

    /** Empties the row: no liveness, LIVE deletion, no columns. Set the clustering through {@link #clustering()}. */
    public void clear(boolean isStatic) {
        generation++;
        this.isStatic = isStatic;
        livenessTimestamp = Cell.NO_TIMESTAMP;
        livenessTtl = Cell.NO_TTL;
        livenessExpiration = Cell.NO_DELETION_TIME;
        deletionTimestamp = Long.MIN_VALUE;
        deletionLdt = Long.MAX_VALUE;
        columnCount = 0;
        cellCount = 0;
        hasComplexDeletion = false;
        if (isStatic) clustering.reset(ClusteringBound.STATIC_CLUSTERING, 0);
    }

    public void setLiveness(long timestamp, int ttl, long expiration) {
        livenessTimestamp = timestamp;
        livenessTtl = ttl;
        livenessExpiration = expiration;
    }

    public void clearLiveness() {
        setLiveness(Cell.NO_TIMESTAMP, Cell.NO_TTL, Cell.NO_DELETION_TIME);
    }

    public void setDeletion(long markedForDeleteAt, long localDeletionTime) {
        deletionTimestamp = markedForDeleteAt;
        deletionLdt = localDeletionTime;
    }

    /** Opens column {@code position}; a LIVE complex deletion is (Long.MIN_VALUE, Long.MAX_VALUE). */
    public void beginColumn(int position, boolean complex, long complexDeletionTs, long complexDeletionLdt) {
        if (columnCount == columnPosition.length) growColumns(columnCount * 2);
        int j = columnCount;
        columnPosition[j] = position;
        columnComplex[j] = complex;
        complexDeletionTimestamp[j] = complexDeletionTs;
        this.complexDeletionLdt[j] = complexDeletionLdt;
        columnFirstCell[j] = cellCount;
        columnCellCount[j] = 0;
    }

    /** Adds a cell to the open column; {@code pathLength} is ignored for a simple column. */
    public void addCell(long timestamp, int ttl, long ldt, byte[] pathSource, int pathOffset, int pathLength,
                        byte[] valueSource, int valueOffset, int valueLength) {
        if (cellCount == cellTimestamp.length) growCells(cellCount * 2);
        int k = cellCount++;
        cellTimestamp[k] = timestamp;
        cellTtl[k] = ttl;
        cellLdt[k] = ldt;
        cellPathSource[k] = pathSource;
        cellPathOffset[k] = pathOffset;
        cellPathLength[k] = pathLength;
        cellValueSource[k] = valueSource;
        cellValueOffset[k] = valueOffset;
        cellValueLength[k] = valueLength;
        columnCellCount[columnCount]++;
    }

    /**
     * Closes the open column. A column with no cell and a LIVE complex deletion is absent and is
     * dropped (as Cassandra's row builders drop it). Returns whether the column was kept.
     */
    public boolean endColumn() {
        int j = columnCount;
        boolean deleted = complexDeletionTimestamp[j] != Long.MIN_VALUE || complexDeletionLdt[j] != Long.MAX_VALUE;
        if (columnCellCount[j] == 0 && !(columnComplex[j] && deleted)) {
            return false;
        }
        if (columnComplex[j] && deleted) hasComplexDeletion = true;
        columnCount++;
        return true;
    }

    /** Removes the open column's cells and the column (used when a merge drops what it started). */
    public void abandonColumn() {
        cellCount = columnFirstCell[columnCount];
    }

    // ---- reading ---------------------------------------------------------------------------------

    public boolean isStatic() { return isStatic; }

    public long generation() { return generation; }

    public ClusteringBuffer clustering() { return clustering; }

    public boolean hasLiveness() { return livenessTimestamp != Cell.NO_TIMESTAMP; }

    public long livenessTimestamp() { return livenessTimestamp; }

    public int livenessTtl() { return livenessTtl; }

    public boolean isLivenessExpiring() { return livenessTtl != Cell.NO_TTL; }

    public long livenessExpirationTime() { return livenessExpiration; }

    public boolean isDeleted() { return deletionTimestamp != Long.MIN_VALUE || deletionLdt != Long.MAX_VALUE; }

    public long deletionTimestamp() { return deletionTimestamp; }

    public long deletionLocalTime() { return deletionLdt; }

    public int columnCount() { return columnCount; }

    /** Table position (among the static or regular columns) of present column j. */
    public int columnPosition(int j) { return columnPosition[j]; }

    public boolean isComplex(int j) { return columnComplex[j]; }

    public long complexDeletionTimestamp(int j) { return complexDeletionTimestamp[j]; }

    public long complexDeletionLocalTime(int j) { return complexDeletionLdt[j]; }

    public boolean hasComplexDeletion() { return hasComplexDeletion; }

    public int firstCell(int j) { return columnFirstCell[j]; }

    public int cellCount(int j) { return columnCellCount[j]; }

    public int cellCount() { return cellCount; }

    public long cellTimestamp(int k) { return cellTimestamp[k]; }

    public int cellTtl(int k) { return cellTtl[k]; }

    public long cellLocalDeletionTime(int k) { return cellLdt[k]; }

    public byte[] cellPathSource(int k) { return cellPathSource[k]; }

    public int cellPathOffset(int k) { return cellPathOffset[k]; }

    public int cellPathLength(int k) { return cellPathLength[k]; }

    public byte[] cellValueSource(int k) { return cellValueSource[k]; }

    public int cellValueOffset(int k) { return cellValueOffset[k]; }

    public int cellValueLength(int k) { return cellValueLength[k]; }

    /** No liveness, no deletion and no column: Cassandra does not write such a row. */
    public boolean isEmpty() {
        return !hasLiveness() && !isDeleted() && columnCount == 0;
    }
}

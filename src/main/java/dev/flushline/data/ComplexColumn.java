package dev.flushline.data;

/**
 * The data of one non-frozen collection column in one row: an optional complex deletion (which
 * clears elements written at or before it) and the element cells, sorted by path in the
 * collection's element order.
 *
 * <p>Thread safety: immutable; the cell array is owned and never modified after construction.
 */
public final class ComplexColumn {
    private final DeletionTime complexDeletion;
    private final Cell[] cells;

    /** REQUIRES: {@code cells} sorted by path and without duplicate paths. */
    public ComplexColumn(DeletionTime complexDeletion, Cell[] cells) {
        this.complexDeletion = complexDeletion;
        this.cells = cells;
    }

    public DeletionTime complexDeletion() { return complexDeletion; }

    /** Do not modify. */
    public Cell[] cells() { return cells; }

    public int cellCount() { return cells.length; }

    public boolean isEmpty() {
        return cells.length == 0 && complexDeletion.isLive();
    }

    @Override
    public String toString() {
        return "Complex{" + complexDeletion + ", " + java.util.Arrays.toString(cells) + '}';
    }
}

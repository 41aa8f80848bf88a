package dev.flushline.oracle;

import java.util.List;

/** A non-frozen collection column in one row: its complex deletion (LIVE if none) and its cells in path order. */
public record ComplexColumn(String column, Deletion complexDeletion, List<Cell> cells) implements ColumnData {
    public ComplexColumn {
        cells = List.copyOf(cells);
    }

    public static ComplexColumn of(String column, Deletion complexDeletion, Cell... cells) {
        return new ComplexColumn(column, complexDeletion, List.of(cells));
    }

    @Override
    public String toString() {
        return column + "{" + (complexDeletion.isLive() ? "" : complexDeletion + " ") + cells + "}";
    }
}

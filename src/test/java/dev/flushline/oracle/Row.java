package dev.flushline.oracle;

import java.util.List;

/**
 * A row: clustering values (empty for the static row and for tables without clustering columns),
 * primary-key liveness, row deletion (LIVE if none) and column data in the table's column order
 * (simple columns first, then complex, each group by name bytes).
 */
public record Row(List<Bytes> clustering, Liveness liveness, Deletion deletion, List<ColumnData> columns)
        implements Unfiltered {
    public static final Row EMPTY_STATIC = new Row(List.of(), Liveness.EMPTY, Deletion.LIVE, List.of());

    public Row {
        clustering = List.copyOf(clustering);
        columns = List.copyOf(columns);
    }

    public static Row of(List<Bytes> clustering, Liveness liveness, ColumnData... columns) {
        return new Row(clustering, liveness, Deletion.LIVE, List.of(columns));
    }

    public static Row staticRow(ColumnData... columns) {
        return new Row(List.of(), Liveness.EMPTY, Deletion.LIVE, List.of(columns));
    }

    public boolean isEmpty() {
        return liveness.isEmpty() && deletion.isLive() && columns.isEmpty();
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Row").append(clustering).append(' ').append(liveness);
        if (!deletion.isLive()) {
            sb.append(" rowDeletion=").append(deletion);
        }
        return sb.append(' ').append(columns).toString();
    }
}

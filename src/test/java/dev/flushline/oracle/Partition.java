package dev.flushline.oracle;

import java.util.List;

/**
 * One partition: raw partition key bytes (the CompositeType encoding for multi-column keys),
 * partition deletion (LIVE if none), static row ({@link Row#EMPTY_STATIC} if none) and the rows and
 * markers in the order they were read.
 */
public record Partition(Bytes key, Deletion deletion, Row staticRow, List<Unfiltered> unfiltereds) {
    public Partition {
        unfiltereds = List.copyOf(unfiltereds);
        if (staticRow == null) {
            staticRow = Row.EMPTY_STATIC;
        }
    }

    public List<Row> rows() {
        return unfiltereds.stream().filter(u -> u instanceof Row).map(u -> (Row) u).toList();
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Partition(key=").append(key);
        if (!deletion.isLive()) {
            sb.append(" deletion=").append(deletion);
        }
        if (!staticRow.isEmpty()) {
            sb.append("\n  static ").append(staticRow);
        }
        for (Unfiltered u : unfiltereds) {
            sb.append("\n  ").append(u);
        }
        return sb.append(")").toString();
    }
}

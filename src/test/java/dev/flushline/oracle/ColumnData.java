package dev.flushline.oracle;

/** Data of one column inside a row: a {@link Cell} for simple columns, a {@link ComplexColumn} for collections. */
public sealed interface ColumnData permits Cell, ComplexColumn {
    String column();
}

package dev.flushline.oracle;

/** An item of a partition body in clustering order: a row or a range tombstone marker. */
public sealed interface Unfiltered permits Row, Marker {
}

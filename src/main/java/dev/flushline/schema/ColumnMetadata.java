package dev.flushline.schema;

import java.nio.charset.StandardCharsets;

/**
 * One column of a table: its name, type, role and position.
 *
 * <p>{@link #position()} is the index of the column within its own role's array of
 * {@link TableSchema}: partition key and clustering columns in declaration order; static and
 * regular columns in sstable header order (simple columns first, then complex ones, each group
 * by unsigned byte order of the UTF-8 name). Rows store their cells at these positions.
 *
 * <p>Thread safety: immutable.
 */
public final class ColumnMetadata {

    public enum Role { PARTITION_KEY, CLUSTERING, STATIC, REGULAR }

    private final String name;
    private final byte[] nameBytes;
    private final CqlType type;
    private final Role role;
    private final int position;
    private final boolean reversed;

    public ColumnMetadata(String name, CqlType type, Role role, int position, boolean reversed) {
        if (reversed && role != Role.CLUSTERING) {
            throw new IllegalArgumentException("only clustering columns can be DESC: " + name);
        }
        this.name = name;
        this.nameBytes = name.getBytes(StandardCharsets.UTF_8);
        this.type = type;
        this.role = role;
        this.position = position;
        this.reversed = reversed;
    }

    public String name() {
        return name;
    }

    /** UTF-8 bytes of the name, as written in the serialization header. Do not modify. */
    public byte[] nameBytes() {
        return nameBytes;
    }

    public CqlType type() {
        return type;
    }

    public Role role() {
        return role;
    }

    public int position() {
        return position;
    }

    /** A DESC clustering column: its marshal type is wrapped in ReversedType. */
    public boolean isReversed() {
        return reversed;
    }

    /** A non-frozen collection: one cell per element, with an optional complex deletion. */
    public boolean isComplex() {
        return type.isMultiCell();
    }

    public boolean isStatic() {
        return role == Role.STATIC;
    }

    /** The marshal name written in the header: ReversedType(...) for DESC clustering. */
    public String marshalName() {
        String m = type.marshalName();
        return reversed ? "org.apache.cassandra.db.marshal.ReversedType(" + m + ")" : m;
    }

    /** Clustering order of two values of this column: the type order, reversed for DESC. */
    public int compareClustering(byte[] a, byte[] b) {
        int c = type.compare(a, b);
        return reversed ? -c : c;
    }

    /** As {@link #compareClustering(byte[], byte[])}, over byte ranges (no copy). */
    public int compareClustering(byte[] a, int aOffset, int aLength, byte[] b, int bOffset, int bLength) {
        int c = type.compare(a, aOffset, aLength, b, bOffset, bLength);
        return reversed ? -c : c;
    }

    @Override
    public String toString() {
        return name + " " + type + (role == Role.STATIC ? " static" : "") + (reversed ? " DESC" : "");
    }
}

package dev.flushline.sstable.bti;

import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ClusteringBuffer;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.ComparableBytes;
import dev.flushline.schema.CqlType;
import dev.flushline.schema.TableSchema;

/**
 * The byte-comparable form of a table's clustering prefixes (a row's clustering, a range
 * tombstone's bound or boundary, the static clustering), the keys of Rows.db's row index trie:
 * comparing two forms as unsigned bytes orders the prefixes as the table's clustering order does
 * (DESC columns and the kinds' positions included), and no form is a prefix of another. This is
 * version OSS50 of Cassandra's byte-comparable encoding, the one BTI tries are built with.
 *
 * <pre>
 *   prefix     := component* terminator
 *   component  := 40 form     the value's form as {@link ComparableBytes} writes it for the column's
 *                             type, every bit flipped in a DESC column
 *               | 3F          a value with no form (an empty int, say) in an ASC column: before every value
 *               | 41          the same in a DESC column: after every value, where empty sorts there
 *               | 3E          a null value (never in Data.db's rows; below the other markers either way)
 *   terminator := 20  EXCL_END_BOUND, INCL_START_BOUND, EXCL_END_INCL_START_BOUNDARY: before every
 *                     clustering the prefix starts (below 38 and 40)
 *               | 18  STATIC_CLUSTERING, which has no components: before every other prefix
 *               | 38  CLUSTERING: one component per clustering column
 *               | 60  INCL_END_EXCL_START_BOUNDARY, INCL_END_BOUND, EXCL_START_BOUND: after them
 *
 *   e.g. (text 'A', int 5) clustering            -> 40 41 00  40 80 00 00 05  38
 *        (text 'A') inclusive start bound        -> 40 41 00  20
 *        (int 5 DESC) exclusive start bound      -> 40 7F FF FF FA  60
 *        no components, inclusive start (BOTTOM) -> 20
 * </pre>
 * A bound may hold fewer components than the table has clustering columns, down to none (the
 * table's first and last positions); a boundary too, but at least one (Cassandra cannot make an
 * empty one, nor does a range tombstone end and start at the very edge); a clustering holds all
 * of them, the static clustering none. The kinds are the on-disk kind bytes
 * of {@link ClusteringBound}.
 *
 * <p>One per table (built from its schema) and per thread, reused: {@link #encode} writes into a
 * buffer that grows to the longest form seen, so that nothing is allocated per call after
 * warm-up. Called once per row index block, from the partition writer's thread.
 *
 * <p>Thread safety: none.
 */
public final class ClusteringComparableBytes {
    /** Terminator of the kinds that sort before the clusterings they prefix. */
    public static final int LT_NEXT_COMPONENT = 0x20;
    /** Terminator of the kinds that sort after the clusterings they prefix. */
    public static final int GT_NEXT_COMPONENT = 0x60;
    /** Terminator of the static clustering. */
    public static final int EXCLUDED = 0x18;

    private final CqlType[] types;
    private final boolean[] reversed;
    private final String[] names;
    private final ComparableBytes out = new ComparableBytes();

    public ClusteringComparableBytes(TableSchema schema) {
        ColumnMetadata[] cols = schema.clusteringColumns();
        types = new CqlType[cols.length];
        reversed = new boolean[cols.length];
        names = new String[cols.length];
        for (int i = 0; i < cols.length; i++) {
            CqlType t = cols[i].type();
            if (t.referencesDuration() || t.isCounter() || t.isMultiCell()) {
                throw new IllegalArgumentException("clustering column " + cols[i].name() + " of type " + t
                        + " has no byte-comparable form (a primary key column cannot be a duration, a counter or multi-cell)");
            }
            types[i] = t;
            reversed[i] = cols[i].isReversed();
            names[i] = cols[i].name();
        }
    }

    /**
     * Encodes the prefix of kind {@code kind} with the component values {@code values} (each a
     * value's serialized bytes as in Data.db, a zero-length array for the empty value, null for a
     * null value) into the reused buffer, and returns its length: exactly the bytes Cassandra's
     * {@code ClusteringComparator.asByteComparable(prefix).asComparableBytes(OSS50)} yields.
     * @throws IllegalArgumentException for an unknown kind, a number of components the kind cannot
     *         have, or a value that is not one of its column's type, naming the column and the value
     */
    public int encode(byte kind, byte[][] values) {
        int terminator = terminator(kind, values.length);
        ComparableBytes o = out;
        o.clear();
        for (int i = 0, n = values.length; i < n; i++) {
            byte[] v = values[i];
            if (v == null) {
                o.put(ComparableBytes.NEXT_COMPONENT_NULL);
            } else {
                putComponent(o, i, v, 0, v.length);
            }
        }
        o.put(terminator);
        return o.length();
    }

    /**
     * As {@link #encode(byte, byte[][])}, for a flyweight prefix (its kind and value ranges), as
     * the row index copies its blocks' names from a cursor. A value whose source is null is a null
     * value.
     */
    public int encode(ClusteringBuffer prefix) {
        int size = prefix.size();
        int terminator = terminator(prefix.kind(), size);
        ComparableBytes o = out;
        o.clear();
        for (int i = 0; i < size; i++) {
            byte[] src = prefix.source(i);
            if (src == null) {
                o.put(ComparableBytes.NEXT_COMPONENT_NULL);
            } else {
                putComponent(o, i, src, prefix.offset(i), prefix.length(i));
            }
        }
        o.put(terminator);
        return o.length();
    }

    /** The buffer {@link #encode} wrote, its first {@code encode()} bytes; valid until the next call. */
    public byte[] bytes() {
        return out.bytes();
    }

    private void putComponent(ComparableBytes o, int i, byte[] v, int off, int len) {
        int marker = o.length();
        o.put(ComparableBytes.NEXT_COMPONENT);
        boolean hasForm;
        try {
            hasForm = o.putValue(types[i], v, off, len);
        } catch (IllegalArgumentException e) {
            throw badComponent(i, e);
        }
        if (!hasForm) {
            o.set(marker, reversed[i] ? ComparableBytes.NEXT_COMPONENT_EMPTY_REVERSED : ComparableBytes.NEXT_COMPONENT_EMPTY);
        } else if (reversed[i]) {
            o.invert(marker + 1);
        }
    }

    /** The kind's terminator, after checking that a prefix of that kind can have {@code size} components. */
    private int terminator(byte kind, int size) {
        int columns = types.length;
        switch (kind) {
            case ClusteringBound.EXCL_END_BOUND:
            case ClusteringBound.INCL_START_BOUND:
                if (size > columns) throw badSize(kind, size, "at most " + columns);
                return LT_NEXT_COMPONENT;
            case ClusteringBound.EXCL_END_INCL_START_BOUNDARY:
                if (size < 1 || size > columns) throw badSize(kind, size, "1 to " + columns);
                return LT_NEXT_COMPONENT;
            case ClusteringBound.STATIC_CLUSTERING:
                if (size != 0) throw badSize(kind, size, "none");
                return EXCLUDED;
            case ClusteringBound.CLUSTERING:
                if (size != columns) throw badSize(kind, size, "exactly " + columns);
                return ComparableBytes.TERMINATOR;
            case ClusteringBound.INCL_END_EXCL_START_BOUNDARY:
                if (size < 1 || size > columns) throw badSize(kind, size, "1 to " + columns);
                return GT_NEXT_COMPONENT;
            case ClusteringBound.INCL_END_BOUND:
            case ClusteringBound.EXCL_START_BOUND:
                if (size > columns) throw badSize(kind, size, "at most " + columns);
                return GT_NEXT_COMPONENT;
            default:
                throw new IllegalArgumentException("clustering prefix kind " + kind + " is none of 0.."
                        + ClusteringBound.EXCL_START_BOUND);
        }
    }

    private IllegalArgumentException badSize(byte kind, int size, String expected) {
        return new IllegalArgumentException("a clustering prefix of kind " + kind + " with " + size
                + " values; the table has " + types.length + " clustering columns and this kind takes " + expected);
    }

    private IllegalArgumentException badComponent(int i, IllegalArgumentException e) {
        return new IllegalArgumentException("clustering column " + names[i] + " (" + types[i]
                + (reversed[i] ? " DESC" : "") + "): " + e.getMessage(), e);
    }
}

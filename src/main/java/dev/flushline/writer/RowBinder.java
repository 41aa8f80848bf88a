package dev.flushline.writer;

import dev.flushline.schema.ValueText;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.Cell;
import dev.flushline.ops.TimeUuids;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlType;
import dev.flushline.schema.JavaValues;
import dev.flushline.schema.ModificationStatement;
import dev.flushline.schema.ModificationStatement.Marker;
import dev.flushline.schema.ModificationStatement.Relation;
import dev.flushline.schema.ModificationStatement.Term;
import dev.flushline.schema.TableSchema;
import dev.flushline.schema.ValueBuffer;
import dev.flushline.schema.ValueCodec;
import dev.flushline.schema.ValueException;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * One modification statement, compiled once, applied to a row of bound Java values: what the
 * statement writes for those values (the partition key, a clustering, a static and/or a regular
 * row of cells, a deletion), as serialized byte ranges, with Cassandra's semantics (a null binds a
 * tombstone, {@link FlushlineSSTableWriter#UNSET_VALUE} leaves a column alone, a collection set by
 * {@code =} replaces the old one, list elements get fresh time-UUID paths). The sorted and the
 * buffered writer both read the result; neither decodes the statement again.
 *
 * <p>{@link #bind} either returns with the whole row bound, or throws a {@link ValueException}
 * naming the column or marker and its type; nothing is handed on before it returns, so a refused
 * row writes nothing. Values of the common native types are written into one arena that is reset
 * per row (no array per value); collections go through {@link ValueCodec}.
 *
 * <p>Thread safety: none; owned by its writer. The bound state is valid until the next bind.
 */
final class RowBinder {
    /** What one bound row writes. */
    enum Shape {
        /** Nothing (every value unset). */
        NOTHING,
        /** The static row only. */
        STATIC,
        /** A regular row (liveness, deletion and/or cells), and the static row if {@link #hasStatic}. */
        ROW,
        /** A partition deletion. */
        PARTITION_DELETE,
        /** A range deletion: a clustering prefix, or a prefix and bounds on the next column. */
        RANGE_DELETE
    }

    /** How a slot changes its column. */
    static final byte SET = 0, APPEND = 1, DELETE = 2;
    /** A slot's bound state. */
    static final byte UNSET = 0, NULL = 1, VALUE = 2, CELLS = 3;

    private static final int MAX_KEY_BYTES = 0xFFFF;

    final TableSchema schema;
    final ModificationStatement statement;
    private final List<Marker> markers;
    private final ColumnMetadata[] partitionKey;
    private final ColumnMetadata[] clusteringColumns;
    private final Term[] pkTerms;
    /** The clustering columns' '=' terms; the first {@link #clusteringGiven} are set. */
    private final Term[] ckTerms;
    final int clusteringGiven;
    /** A DELETE's bounds on clustering column {@link #clusteringGiven}: operators and terms, or null. */
    final Relation lower, upper;
    final ColumnMetadata[] slotColumn;
    final byte[] slotOp;
    private final Term[] slotTerm;
    final boolean statementWritesStatic, statementWritesRegular;
    final int defaultTtl;

    // ---- the bound row
    Shape shape;
    boolean hasStatic;
    /** The regular row has primary-key liveness (an INSERT). */
    boolean liveness;
    /** The regular row is deleted (a DELETE of the whole row). */
    boolean rowDeletion;
    long timestamp;
    int ttl;
    private long nowSeconds;
    private long listTicks;
    /** The node half of this binder's list element paths ({@link TimeUuids}): unique per binder unless seeded. */
    private long listPathNode = TimeUuids.newNode();
    final ValueBuffer arena = new ValueBuffer(1024);
    byte[] keySource;
    int keyOffset, keyLength;
    final byte[][] ckSource;
    final int[] ckOffset, ckLength;
    /** Range bounds (RANGE_DELETE): the value of the bounded column, or null for an open side. */
    byte[] lowSource, highSource;
    int lowOffset, lowLength, highOffset, highLength;
    final byte[] slotState;
    final byte[][] slotSource;
    final int[] slotOffset, slotLength;
    final int[] slotFirstCell, slotCellCount;
    int cells;
    byte[][] cellPathSource = new byte[16][];
    int[] cellPathLength = new int[16];
    byte[][] cellValueSource = new byte[16][];
    int[] cellValueLength = new int[16];
    private final int[] pkOffset, pkLength;

    RowBinder(TableSchema schema, ModificationStatement st, long nowSeconds) {
        this.schema = schema;
        this.statement = st;
        this.markers = st.markers();
        this.partitionKey = schema.partitionKeyColumns();
        this.clusteringColumns = schema.clusteringColumns();
        this.defaultTtl = schema.defaultTimeToLiveSeconds();
        this.nowSeconds = nowSeconds;
        this.listTicks = TimeUuids.firstTicks(nowSeconds);
        pkTerms = new Term[partitionKey.length];
        ckTerms = new Term[clusteringColumns.length];
        int slots = 0;
        Relation lo = null, hi = null;
        ColumnMetadata[] cols;
        byte[] ops;
        Term[] terms;
        switch (st.kind()) {
            case INSERT: {
                cols = new ColumnMetadata[st.columns().size()];
                ops = new byte[cols.length];
                terms = new Term[cols.length];
                for (int i = 0; i < st.columns().size(); i++) {
                    ColumnMetadata c = st.columns().get(i);
                    Term t = st.values().get(i);
                    if (c.role() == ColumnMetadata.Role.PARTITION_KEY) {
                        pkTerms[c.position()] = t;
                    } else if (c.role() == ColumnMetadata.Role.CLUSTERING) {
                        ckTerms[c.position()] = t;
                    } else {
                        cols[slots] = c;
                        ops[slots] = SET;
                        terms[slots++] = t;
                    }
                }
                break;
            }
            case UPDATE: {
                cols = new ColumnMetadata[st.assignments().size()];
                ops = new byte[cols.length];
                terms = new Term[cols.length];
                for (ModificationStatement.Assignment a : st.assignments()) {
                    cols[slots] = a.column;
                    ops[slots] = a.append ? APPEND : SET;
                    terms[slots++] = a.value;
                }
                break;
            }
            case DELETE: {
                cols = new ColumnMetadata[st.columns().size()];
                ops = new byte[cols.length];
                terms = new Term[cols.length];
                for (ColumnMetadata c : st.columns()) {
                    cols[slots] = c;
                    ops[slots++] = DELETE;
                }
                break;
            }
            default:
                throw new AssertionError(st.kind());
        }
        for (Relation r : st.where()) {
            boolean pk = r.column.role() == ColumnMetadata.Role.PARTITION_KEY;
            if (r.operator == ModificationStatement.Operator.EQ) {
                if (pk) pkTerms[r.column.position()] = r.value;
                else ckTerms[r.column.position()] = r.value;
            } else if (r.operator == ModificationStatement.Operator.GT || r.operator == ModificationStatement.Operator.GE) {
                lo = r;
            } else {
                hi = r;
            }
        }
        int given = 0;
        while (given < ckTerms.length && ckTerms[given] != null) given++;
        this.clusteringGiven = given;
        this.lower = lo;
        this.upper = hi;
        this.slotColumn = Arrays.copyOf(cols, slots);
        this.slotOp = Arrays.copyOf(ops, slots);
        this.slotTerm = Arrays.copyOf(terms, slots);
        boolean writesStatic = false, writesRegular = false;
        for (ColumnMetadata c : slotColumn) {
            if (c.isStatic()) writesStatic = true;
            else writesRegular = true;
        }
        this.statementWritesStatic = writesStatic;
        this.statementWritesRegular = writesRegular;
        ckSource = new byte[clusteringColumns.length][];
        ckOffset = new int[clusteringColumns.length];
        ckLength = new int[clusteringColumns.length];
        slotState = new byte[slots];
        slotSource = new byte[slots][];
        slotOffset = new int[slots];
        slotLength = new int[slots];
        slotFirstCell = new int[slots];
        slotCellCount = new int[slots];
        pkOffset = new int[partitionKey.length];
        pkLength = new int[partitionKey.length];
    }

    /** True if the statement can write both a static row and a regular row for one row of values. */
    boolean canWriteStaticAndRegular() {
        if (!statementWritesStatic) return false;
        if (statement.kind() == ModificationStatement.Kind.INSERT) return clusteringGiven > 0 || clusteringColumns.length == 0;
        return statementWritesRegular || clusteringColumns.length == 0;
    }

    /** True if the statement can write a range deletion (a DELETE by clustering prefix or range). */
    boolean canWriteRange() {
        return statement.kind() == ModificationStatement.Kind.DELETE && statement.columns().isEmpty()
                && clusteringColumns.length > 0 && (lower != null || upper != null
                || (clusteringGiven > 0 && clusteringGiven < clusteringColumns.length));
    }

    long nowSeconds() { return nowSeconds; }

    // ---- binding ---------------------------------------------------------------------------------

    /**
     * Binds one row of values (one per marker). "Now" only moves forward; {@code nowMillis} also
     * gives the default write timestamp.
     * @throws ValueException naming the column or marker, its type and the value
     */
    void bind(Object[] bound, long nowMillis, long maxLocalDeletionTime, String maxText) {
        bindRow(bound, nowMillis, maxLocalDeletionTime, maxText);
        // Every arena value is in the arena's final array (a move copies): point everything there.
        byte[] a = arena.array();
        keySource = a;
        if (lowSource != null) lowSource = a;
        if (highSource != null) highSource = a;
    }

    /** Repeatable list element paths from {@code seed} (see {@link TimeUuids#seededNode}); before any row. */
    void seedListPaths(long seed) {
        this.listPathNode = TimeUuids.seededNode(seed);
    }

    private void bindRow(Object[] bound, long nowMillis, long maxLocalDeletionTime, String maxText) {
        long s = nowMillis / 1000;
        if (s > nowSeconds) {
            nowSeconds = s;
            listTicks = Math.max(listTicks, TimeUuids.firstTicks(s));
        }
        arena.reset();
        lowSource = highSource = null;
        cells = 0;
        hasStatic = false;
        liveness = false;
        rowDeletion = false;
        timestamp = timestamp(bound, nowMillis * 1000);
        ttl = statement.kind() == ModificationStatement.Kind.DELETE ? Cell.NO_TTL : ttl(bound, maxLocalDeletionTime, maxText);
        bindKey(bound);
        bindClustering(bound);
        int staticSet = 0, regularSet = 0;
        for (int i = 0; i < slotColumn.length; i++) {
            bindSlot(bound, i);
            if (slotState[i] != UNSET) {
                if (slotColumn[i].isStatic()) staticSet++;
                else regularSet++;
            }
        }
        switch (statement.kind()) {
            case INSERT: {
                if (clusteringColumns.length > 0 && clusteringGiven == 0) {
                    if (regularSet > 0) throw missingClustering(0);
                    // INSERT (pk, s) VALUES (...): Cassandra writes the static row alone, without liveness;
                    // with every static unset, nothing.
                    shape = staticSet > 0 ? Shape.STATIC : Shape.NOTHING;
                    hasStatic = staticSet > 0;
                    return;
                }
                requireFullClustering();
                shape = Shape.ROW;
                liveness = true;
                hasStatic = staticSet > 0;
                return;
            }
            case UPDATE:
            case DELETE: {
                if (statement.kind() == ModificationStatement.Kind.DELETE && slotColumn.length == 0) {
                    bindDeletion(bound);
                    return;
                }
                // an append of an empty collection is bound (CELLS, none): it writes nothing, but as in
                // Cassandra's key rules it still makes the statement one of regular columns
                if (staticSet == 0 && regularSet == 0) {
                    shape = Shape.NOTHING;
                    return;
                }
                hasStatic = staticSet > 0;
                if (regularSet > 0 || clusteringColumns.length == 0) {
                    requireFullClustering();
                    shape = Shape.ROW;
                } else {
                    refuseClustering();
                    shape = Shape.STATIC;
                }
                return;
            }
            default:
                throw new AssertionError(statement.kind());
        }
    }

    private void bindDeletion(Object[] bound) {
        if (lower != null || upper != null) {
            bindRange(bound);
            shape = Shape.RANGE_DELETE;
            return;
        }
        if (clusteringGiven == 0) {
            if (timestamp < 0) {
                throw new ValueException("timestamp " + timestamp + " is negative; a partition deletion needs a timestamp >= 0 "
                        + "(Cassandra 5.0.9 writes a negative one but reads it back as no deletion)");
            }
            shape = Shape.PARTITION_DELETE;
            return;
        }
        if (clusteringGiven == clusteringColumns.length) {
            shape = Shape.ROW;
            rowDeletion = true;
            return;
        }
        shape = Shape.RANGE_DELETE;
    }

    private void bindRange(Object[] bound) {
        ColumnMetadata c = clusteringColumns[clusteringGiven];
        lowSource = highSource = null;
        if (lower != null) {
            int at = keyValue(bound, lower.value, c);
            lowSource = arena.array();
            lowOffset = at;
            lowLength = arena.position() - at;
        }
        if (upper != null) {
            int at = keyValue(bound, upper.value, c);
            highSource = arena.array();
            highOffset = at;
            highLength = arena.position() - at;
        }
        if (lowSource != null && highSource != null) {
            int cmp = c.type().compare(lowSource, lowOffset, lowLength, highSource, highOffset, highLength);
            boolean both = lower.operator == ModificationStatement.Operator.GE && upper.operator == ModificationStatement.Operator.LE;
            if (cmp > 0 || (cmp == 0 && !both)) {
                throw new ValueException("the range " + c.name() + " " + lower.operator.symbol + " "
                        + ValueText.display(c.type(), Arrays.copyOfRange(lowSource, lowOffset, lowOffset + lowLength))
                        + " AND " + c.name() + " " + upper.operator.symbol + " "
                        + ValueText.display(c.type(), Arrays.copyOfRange(highSource, highOffset, highOffset + highLength))
                        + " selects nothing");
            }
        }
    }

    private void requireFullClustering() {
        if (clusteringGiven < clusteringColumns.length) throw missingClustering(clusteringGiven);
    }

    private ValueException missingClustering(int i) {
        ColumnMetadata c = clusteringColumns[i];
        return new ValueException("missing clustering column '" + c.name() + "' (" + c.type() + "): a write of regular columns"
                + " needs the whole primary key");
    }

    /** CQL: "Invalid restrictions on clustering columns since the UPDATE statement modifies only static columns". */
    private void refuseClustering() {
        if (clusteringGiven > 0) {
            ColumnMetadata c = clusteringColumns[0];
            throw new ValueException("column '" + c.name() + "' (" + c.type() + "): a " + statement.kind().name().toLowerCase(java.util.Locale.ROOT)
                    + " of static columns only takes the partition key; a clustering value is not allowed (CQL refuses it too)");
        }
    }

    private long timestamp(Object[] bound, long nowMicros) {
        Term t = statement.timestamp();
        if (t == null) return nowMicros;
        long ts;
        if (t.isMarker()) {
            Object v = bound[t.markerIndex];
            if (v == FlushlineSSTableWriter.UNSET_VALUE) return nowMicros;
            if (v == null) {
                throw new ValueException("marker " + ModificationStatement.TIMESTAMP_MARKER_NAME + " (bigint): the timestamp may not be null");
            }
            if (!(v instanceof Long)) throw wrapped(t, v);
            ts = (Long) v;
        } else {
            ts = integer(t.literal, "timestamp", Long.MIN_VALUE, Long.MAX_VALUE);
        }
        // Long.MIN_VALUE marks "no timestamp" (and MIN + 1 - 1 would be it for a collection overwrite).
        if (ts <= Long.MIN_VALUE + 1) throw new ValueException("timestamp " + ts + " is reserved; use a larger one");
        return ts;
    }

    /** The row's TTL: USING TTL's value (null: none), else (unset or absent) the table's default; 0 = none. */
    private int ttl(Object[] bound, long maxLocalDeletionTime, String maxText) {
        Term t = statement.ttl();
        long v;
        if (t == null) {
            v = defaultTtl;
        } else if (t.isMarker()) {
            Object o = bound[t.markerIndex];
            if (o == FlushlineSSTableWriter.UNSET_VALUE) {
                v = defaultTtl;
            } else if (o == null) {
                v = Cell.NO_TTL; // a null TTL is no TTL, as Cassandra binds it
            } else if (o instanceof Integer) {
                v = (Integer) o;
            } else {
                throw wrapped(t, o);
            }
        } else {
            v = t.literal == null ? Cell.NO_TTL : integer(t.literal, "ttl", Integer.MIN_VALUE, Integer.MAX_VALUE);
        }
        if (v < 0 || v > Cell.MAX_TTL) throw new ValueException("ttl " + v + " is out of range (0.." + Cell.MAX_TTL + " seconds)");
        if (v != Cell.NO_TTL && nowSeconds + v > maxLocalDeletionTime) {
            throw new ValueException("ttl " + v + " seconds from now (" + nowSeconds + ") expires after the latest expiration "
                    + "the output can store (" + maxLocalDeletionTime + ", " + maxText + ")");
        }
        return (int) v;
    }

    private static long integer(Object literal, String what, long min, long max) {
        long x;
        try {
            x = literal instanceof BigDecimal ? ((BigDecimal) literal).longValueExact() : Long.parseLong(String.valueOf(literal));
        } catch (ArithmeticException | NumberFormatException e) {
            throw new ValueException(what + " " + literal + " is not an integer in " + min + ".." + max);
        }
        if (x < min || x > max) throw new ValueException(what + " " + literal + " is out of range (" + min + ".." + max + ")");
        return x;
    }

    private void bindKey(Object[] bound) {
        int n = partitionKey.length;
        for (int i = 0; i < n; i++) {
            pkOffset[i] = keyValue(bound, pkTerms[i], partitionKey[i]);
            pkLength[i] = arena.position() - pkOffset[i];
        }
        if (n == 1) {
            keyOffset = pkOffset[0];
            keyLength = pkLength[0];
            if (keyLength == 0) {
                throw new ValueException("column '" + partitionKey[0].name() + "' (" + partitionKey[0].type()
                        + "): a partition key may not be empty");
            }
        } else {
            // CompositeType, composed in the arena after the components (PartitionKey's layout)
            int size = 0;
            for (int i = 0; i < n; i++) {
                if (pkLength[i] > PartitionKey.MAX_COMPONENT_BYTES) {
                    throw new ValueException("column '" + partitionKey[i].name() + "' (" + partitionKey[i].type() + "): "
                            + pkLength[i] + " bytes, longer than the " + PartitionKey.MAX_COMPONENT_BYTES
                            + " a partition key component may have");
                }
                size += PartitionKey.COMPONENT_OVERHEAD_BYTES + pkLength[i];
            }
            arena.ensure(size);
            keyOffset = arena.position();
            byte[] a = arena.array();
            int p = keyOffset;
            for (int i = 0; i < n; i++) p = PartitionKey.putComponent(a, p, a, pkOffset[i], pkLength[i]);
            arena.advance(size);
            keyLength = size;
        }
        keySource = arena.array();
        if (keyLength > MAX_KEY_BYTES) {
            StringBuilder names = new StringBuilder();
            for (ColumnMetadata c : partitionKey) names.append(names.length() == 0 ? "" : ", ").append(c.name());
            throw new ValueException("partition key (" + names + ") is " + keyLength + " bytes, longer than the maximum of " + MAX_KEY_BYTES);
        }
    }

    private void bindClustering(Object[] bound) {
        for (int i = 0; i < clusteringGiven; i++) {
            ckOffset[i] = keyValue(bound, ckTerms[i], clusteringColumns[i]);
            ckLength[i] = arena.position() - ckOffset[i];
        }
    }

    /** The clustering values' array: the arena's, once every value of the row is in it. */
    byte[] clusteringSource() {
        return arena.array();
    }

    /** Writes a primary key value into the arena; returns its offset. */
    private int keyValue(Object[] bound, Term t, ColumnMetadata c) {
        int at = arena.position();
        if (!t.isMarker()) {
            if (t.literal == null) throw new ValueException("column '" + c.name() + "' (" + c.type() + "): null is not allowed in a primary key column");
            byte[] b = ValueCodec.encode(c.type(), t.literal);
            arena.putBytes(b, 0, b.length);
        } else {
            Object v = bound[t.markerIndex];
            if (v == FlushlineSSTableWriter.UNSET_VALUE) {
                throw new ValueException("column '" + c.name() + "' (" + c.type() + "): a primary key value may not be unset");
            }
            if (v == null) {
                throw new ValueException("column '" + c.name() + "' (" + c.type() + "): null is not allowed in a primary key column");
            }
            write(t, c.type(), v);
        }
        int len = arena.position() - at;
        if (len > MAX_KEY_BYTES) {
            throw new ValueException("column '" + c.name() + "' (" + c.type() + "): the value is " + len
                    + " bytes, longer than the maximum of " + MAX_KEY_BYTES + " for a "
                    + (c.role() == ColumnMetadata.Role.CLUSTERING ? "clustering value" : "partition key"));
        }
        return at;
    }

    private void write(Term t, CqlType type, Object v) {
        try {
            JavaValues.write(type, v, arena);
        } catch (ValueException e) {
            throw wrapped(t, e);
        }
    }

    private ValueException wrapped(Term t, ValueException e) {
        Marker m = markers.get(t.markerIndex);
        String what = m.column != null ? "column '" + m.column.name() + "'" : "marker " + m.name;
        return new ValueException(what + " (" + m.type + "): " + e.getMessage());
    }

    /** The refusal of a value of the wrong class for a marker, worded by JavaValues. */
    private ValueException wrapped(Term t, Object v) {
        try {
            JavaValues.toCodecInput(markers.get(t.markerIndex).type, v);
        } catch (ValueException e) {
            return wrapped(t, e);
        }
        return wrapped(t, new ValueException(JavaValues.describe(v) + " is not taken here"));
    }

    private void bindSlot(Object[] bound, int i) {
        ColumnMetadata c = slotColumn[i];
        byte op = slotOp[i];
        if (op == DELETE) {
            slotState[i] = NULL;
            return;
        }
        Term t = slotTerm[i];
        Object v = t.isMarker() ? bound[t.markerIndex] : t.literal;
        if (v == FlushlineSSTableWriter.UNSET_VALUE) {
            slotState[i] = UNSET;
            return;
        }
        if (v == null) {
            // appending null adds nothing, as in Cassandra
            slotState[i] = op == APPEND ? UNSET : NULL;
            return;
        }
        CqlType type = c.type();
        if (!t.isMarker()) {
            byte[] b = ValueCodec.encode(type, t.literal);
            slotState[i] = VALUE;
            slotSource[i] = b;
            slotOffset[i] = 0;
            slotLength[i] = b.length;
            return;
        }
        if (!type.isMultiCell()) {
            int at = arena.position();
            write(t, type, v);
            slotState[i] = VALUE;
            slotSource[i] = null; // the arena's array, fixed once the row is bound: see valueSource
            slotOffset[i] = at;
            slotLength[i] = arena.position() - at;
            return;
        }
        slotState[i] = CELLS;
        slotFirstCell[i] = cells;
        try {
            Object in = JavaValues.toCodecInput(type, v);
            switch (type.kind()) {
                case LIST: {
                    for (Object e : (Collection<?>) in) addCell(TimeUuids.bytes(listTicks++, listPathNode), ValueCodec.encodeElement(type, e));
                    break;
                }
                case SET: {
                    for (byte[] e : ValueCodec.encodeSetElements(type, in)) addCell(checkPath(c, e, v), null);
                    break;
                }
                case MAP: {
                    byte[][] kv = ValueCodec.encodeMapEntries(type, in);
                    for (int k = 0; k < kv.length; k += 2) addCell(checkPath(c, kv[k], v), kv[k + 1]);
                    break;
                }
                case UDT: {
                    // a non-frozen UDT: a cell per non-null field at the field's index, in index order
                    byte[][] fields = ValueCodec.udtFields(type, in);
                    for (int k = 0; k < fields.length; k++) if (fields[k] != null) addCell(CqlType.fieldPath(k), fields[k]);
                    break;
                }
                default:
                    throw new AssertionError(type);
            }
        } catch (ValueException e) {
            throw wrapped(t, e);
        }
        slotCellCount[i] = cells - slotFirstCell[i];
    }

    private static byte[] checkPath(ColumnMetadata c, byte[] path, Object v) {
        if (path.length > MAX_KEY_BYTES) {
            throw new ValueException(JavaValues.describe(v) + " has a " + (c.type().kind() == CqlType.Kind.SET ? "set element" : "map key")
                    + " of " + path.length + " bytes, longer than the maximum of " + MAX_KEY_BYTES);
        }
        return path;
    }

    private void addCell(byte[] path, byte[] value) {
        if (cells == cellPathSource.length) {
            int n = 2 * cells;
            cellPathSource = Arrays.copyOf(cellPathSource, n);
            cellPathLength = Arrays.copyOf(cellPathLength, n);
            cellValueSource = Arrays.copyOf(cellValueSource, n);
            cellValueLength = Arrays.copyOf(cellValueLength, n);
        }
        cellPathSource[cells] = path;
        cellPathLength[cells] = path.length;
        cellValueSource[cells] = value;
        cellValueLength[cells] = value == null ? 0 : value.length;
        cells++;
    }

    /** True if slot i writes something into the static row ({@code statics}) or the regular row. */
    boolean writes(int i, boolean statics) {
        return slotColumn[i].isStatic() == statics && slotState[i] != UNSET;
    }

    /** The array holding slot i's VALUE bytes. */
    byte[] valueSource(int i) {
        byte[] s = slotSource[i];
        return s != null ? s : arena.array();
    }
}

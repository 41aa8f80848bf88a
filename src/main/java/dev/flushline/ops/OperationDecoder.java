package dev.flushline.ops;

import dev.flushline.schema.ValueText;
import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.Mutation;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.RangeTombstone;
import dev.flushline.data.Row;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlType;
import dev.flushline.schema.TableSchema;
import dev.flushline.schema.ValueCodec;
import dev.flushline.schema.ValueException;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Turns one parsed operation (one JSON object of an operations file) into the {@link Mutation} that
 * the equivalent CQL statement makes in Cassandra 5.0:
 * <ul>
 *   <li>insert: row liveness (expiring with a TTL); each given column a cell, {@code null} a cell
 *       tombstone; a collection replaces the column (complex deletion at timestamp - 1, then the
 *       elements), as Cassandra's setters do. Only static columns and no clustering: the static
 *       row alone, without liveness.
 *   <li>update: as insert without liveness; {@code add} appends elements with no deletion.
 *   <li>delete: partition deletion, row deletion, range tombstone (prefix or {@code range}),
 *       or cell tombstones / complex deletions at the timestamp for {@code columns}.
 * </ul>
 * Tombstones carry local deletion time {@code nowSeconds}; expiring data expires at
 * {@code nowSeconds + ttl}. Without {@code "ttl"} the table's default_time_to_live applies; an
 * explicit {@code "ttl": 0} means none, as with {@code USING TTL 0}.
 *
 * <p>Everything is validated before anything is built: on bad input a {@link BadOperation} names
 * the field, column and value, and the decoder's state (the list path clock) is unchanged.
 *
 * <p>Thread safety: not thread-safe (it owns the list path clock). One per input stream.
 */
public final class OperationDecoder {
    /** Cassandra's FBUtilities.MAX_UNSIGNED_SHORT: the longest key, clustering value or cell path. */
    public static final int MAX_KEY_BYTES = 0xFFFF;

    private static final byte[][] NO_VALUES = new byte[0][];
    private static final Cell[] NO_CELLS = new Cell[0];

    private final TableSchema schema;
    /** Local deletion time of tombstones and base of TTL expiry; only grows ({@link #advanceNow}). */
    private long nowSeconds;
    /** The latest local deletion time the output stores, and how messages name that limit. */
    private final long maxLocalDeletionTime;
    private final String maxLocalDeletionTimeText;
    private final ColumnMetadata[] partitionKey;
    private final ColumnMetadata[] clustering;
    private final ColumnMetadata[] statics;
    private final ColumnMetadata[] regulars;
    /** UUID time of the next list element path; advanced only when an operation succeeds. */
    private long nextListTicks;
    /** The node half of this decoder's list element paths ({@link TimeUuids}): unique per decoder unless seeded. */
    private long listPathNode = TimeUuids.newNode();

    /** REQUIRES: 0 <= nowSeconds <= Cell.MAX_DELETION_TIME (the CLI checks --now). */
    public OperationDecoder(TableSchema schema, long nowSeconds) {
        this(schema, nowSeconds, Cell.MAX_DELETION_TIME, "2106-02-07T06:28:13Z");
    }

    /**
     * A decoder for an output that stores local deletion times up to {@code maxLocalDeletionTime}
     * ({@code maxText} names it in messages, e.g. {@code 2038-01-19T03:14:06Z} for nb sstables):
     * an operation whose TTL expires later is bad input, as Cassandra with that limit rejects it.
     * Tombstones carry {@code nowSeconds}, so it must be within the limit too.
     * REQUIRES: 0 <= nowSeconds <= maxLocalDeletionTime <= Cell.MAX_DELETION_TIME.
     */
    public OperationDecoder(TableSchema schema, long nowSeconds, long maxLocalDeletionTime, String maxText) {
        if (maxLocalDeletionTime < 0 || maxLocalDeletionTime > Cell.MAX_DELETION_TIME) {
            throw new IllegalArgumentException("latest local deletion time must be in 0.." + Cell.MAX_DELETION_TIME + ": "
                    + maxLocalDeletionTime);
        }
        if (nowSeconds < 0 || nowSeconds > maxLocalDeletionTime) {
            throw new IllegalArgumentException("now must be in 0.." + maxLocalDeletionTime + " seconds: " + nowSeconds);
        }
        this.schema = schema;
        this.nowSeconds = nowSeconds;
        this.maxLocalDeletionTime = maxLocalDeletionTime;
        this.maxLocalDeletionTimeText = maxText;
        this.partitionKey = schema.partitionKeyColumns();
        this.clustering = schema.clusteringColumns();
        this.statics = schema.staticColumns();
        this.regulars = schema.regularColumns();
        this.nextListTicks = TimeUuids.firstTicks(nowSeconds);
    }

    public TableSchema schema() { return schema; }

    /**
     * Makes list element paths repeatable: the same seed, clock and input give the same paths. Two
     * decoders with the same seed and clock make the same paths, so they must not append to the same
     * lists (their elements would overwrite each other). Call before decoding.
     */
    public void seedListPaths(long seed) {
        this.listPathNode = TimeUuids.seededNode(seed);
    }

    public long nowSeconds() { return nowSeconds; }

    /** The latest local deletion time the output stores (the fast path checks TTL expiry against it). */
    long maxLocalDeletionTime() { return maxLocalDeletionTime; }

    /**
     * Moves "now" forward for the operations decoded after this call, as a node's clock moves
     * between writes. List element paths stay increasing: the path clock never goes back, and
     * jumps to the new second if it is behind it. A {@code nowSeconds} at or before the current
     * one changes nothing.
     */
    public void advanceNow(long nowSeconds) {
        if (nowSeconds <= this.nowSeconds) return;
        if (nowSeconds > maxLocalDeletionTime) {
            throw new IllegalArgumentException("now must be in 0.." + maxLocalDeletionTime + " seconds: " + nowSeconds);
        }
        this.nowSeconds = nowSeconds;
        this.nextListTicks = Math.max(nextListTicks, TimeUuids.firstTicks(nowSeconds));
    }

    /** Bad input in one operation; the message is the detail after {@code file:line: }. */
    public static final class BadOperation extends Exception {
        public BadOperation(String message) {
            super(message);
        }
    }

    /** Per-operation scratch: everything is collected here, then built at once. */
    private final class Op {
        final long timestamp;
        final int ttl;
        final long expiration;
        long listTicks = nextListTicks;
        Cell[] staticCells;
        ComplexColumn[] staticComplex;
        Cell[] regularCells;
        ComplexColumn[] regularComplex;
        int staticColumnsSet;
        int regularColumnsSet;
        /** Cells of single fields and elements (UDT field set, map entry set, removals, element deletes), per column. */
        java.util.Map<ColumnMetadata, java.util.List<Cell>> elementCells;

        Op(long timestamp, int ttl) {
            this.timestamp = timestamp;
            this.ttl = ttl;
            this.expiration = ttl == Cell.NO_TTL ? Cell.NO_DELETION_TIME : nowSeconds + ttl;
        }

        Cell[] cells(ColumnMetadata c) {
            if (c.isStatic()) {
                if (staticCells == null) staticCells = new Cell[schema.staticComplexStart()];
                return staticCells;
            }
            if (regularCells == null) regularCells = new Cell[schema.regularComplexStart()];
            return regularCells;
        }

        ComplexColumn[] complex(ColumnMetadata c) {
            if (c.isStatic()) {
                if (staticComplex == null) staticComplex = new ComplexColumn[statics.length - schema.staticComplexStart()];
                return staticComplex;
            }
            if (regularComplex == null) regularComplex = new ComplexColumn[regulars.length - schema.regularComplexStart()];
            return regularComplex;
        }

        int complexIndex(ColumnMetadata c) {
            return c.position() - (c.isStatic() ? schema.staticComplexStart() : schema.regularComplexStart());
        }

        void noteColumn(ColumnMetadata c) {
            if (c.isStatic()) staticColumnsSet++;
            else regularColumnsSet++;
        }

        void addElementCell(ColumnMetadata c, Cell cell) {
            if (elementCells == null) elementCells = new java.util.LinkedHashMap<>();
            elementCells.computeIfAbsent(c, k -> new java.util.ArrayList<>()).add(cell);
        }

        /**
         * Joins the single-element cells to their column's complex data (after a whole-column
         * assignment or append of the same operation, if any), sorted by path; a path given twice
         * is refused, since CQL would leave the outcome to statement order.
         */
        void finishElements() throws BadOperation {
            if (elementCells == null) return;
            for (java.util.Map.Entry<ColumnMetadata, java.util.List<Cell>> e : elementCells.entrySet()) {
                ColumnMetadata c = e.getKey();
                ComplexColumn[] cx = complex(c);
                ComplexColumn existing = cx[complexIndex(c)];
                java.util.List<Cell> cells = new java.util.ArrayList<>(e.getValue());
                if (existing != null) cells.addAll(java.util.Arrays.asList(existing.cells()));
                CqlType pathType = c.type().cellPathType();
                cells.sort((x, y) -> pathType.compare(x.path(), y.path()));
                for (int i = 1; i < cells.size(); i++) {
                    byte[] path = cells.get(i).path();
                    if (pathType.compare(cells.get(i - 1).path(), path) == 0) {
                        throw new BadOperation("column '" + c.name() + "' (" + c.type() + "): " + elementName(c, path)
                                + " is written twice in one operation");
                    }
                }
                cx[complexIndex(c)] = new ComplexColumn(existing == null ? DeletionTime.LIVE : existing.complexDeletion(),
                        cells.toArray(NO_CELLS));
            }
            elementCells = null;
        }

        Cell cell(byte[] value, byte[] path) {
            return ttl == Cell.NO_TTL ? Cell.live(timestamp, value, path)
                    : Cell.expiring(timestamp, ttl, expiration, value, path);
        }

        Row staticRow() {
            if (staticColumnsSet == 0) return null;
            return new Row(true, NO_VALUES, Cell.NO_TIMESTAMP, Cell.NO_TTL, Cell.NO_DELETION_TIME, DeletionTime.LIVE,
                    staticCells == null ? new Cell[schema.staticComplexStart()] : staticCells,
                    staticComplex == null ? new ComplexColumn[statics.length - schema.staticComplexStart()] : staticComplex);
        }

        Row regularRow(byte[][] clusteringValues, boolean liveness) {
            return new Row(false, clusteringValues,
                    liveness ? timestamp : Cell.NO_TIMESTAMP, liveness ? ttl : Cell.NO_TTL,
                    liveness ? expiration : Cell.NO_DELETION_TIME, DeletionTime.LIVE,
                    regularCells == null ? new Cell[schema.regularComplexStart()] : regularCells,
                    regularComplex == null ? new ComplexColumn[regulars.length - schema.regularComplexStart()] : regularComplex);
        }
    }

    /**
     * The mutation of one operation, or null if it changes nothing (e.g. {@code "add":{"tags":[]}}
     * alone): Cassandra writes nothing for those either.
     */
    public Mutation decode(Object parsed) throws BadOperation {
        if (!(parsed instanceof Map)) {
            throw new BadOperation("an operation must be a JSON object, not " + ValueText.display(parsed));
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> op = (Map<String, Object>) parsed;
        Object opName = op.get("op");
        if (opName == null) {
            throw new BadOperation(op.containsKey("op") ? "\"op\" must not be null" : "missing \"op\" (insert, update or delete)");
        }
        Mutation m;
        if ("insert".equals(opName)) {
            m = insert(op);
        } else if ("update".equals(opName)) {
            m = update(op);
        } else if ("delete".equals(opName)) {
            m = delete(op);
        } else {
            throw new BadOperation("unknown op " + ValueText.display(opName) + " (expected insert, update or delete)");
        }
        return m;
    }

    // ---------------------------------------------------------------------------------------
    // insert

    private Mutation insert(Map<String, Object> op) throws BadOperation {
        checkFields(op, "insert", "op", "timestamp", "ttl", "values");
        Op o = new Op(timestamp(op), ttl(op));
        Map<String, Object> values = object(op, "values", true);
        byte[][] pkValues = new byte[partitionKey.length][];
        byte[][] ckValues = new byte[clustering.length][];
        int clusteringGiven = 0;
        for (Map.Entry<String, Object> e : values.entrySet()) {
            ColumnMetadata c = column(e.getKey(), e.getValue(), "values");
            if (c.role() == ColumnMetadata.Role.PARTITION_KEY) {
                pkValues[c.position()] = keyValue(c, e.getValue());
            } else if (c.role() == ColumnMetadata.Role.CLUSTERING) {
                ckValues[c.position()] = keyValue(c, e.getValue());
                clusteringGiven++;
            } else {
                setColumn(o, c, e.getValue());
            }
        }
        byte[] key = partitionKeyBytes(pkValues, "values");
        boolean staticOnly = clustering.length > 0 && clusteringGiven == 0 && o.regularColumnsSet == 0 && o.staticColumnsSet > 0;
        if (staticOnly) {
            // INSERT (pk, s) VALUES (...): Cassandra writes the static row alone, without liveness.
            return commit(o, key, DeletionTime.LIVE, List.of(), o.staticRow(), List.of());
        }
        for (int i = 0; i < clustering.length; i++) {
            if (ckValues[i] == null) throw missing(clustering[i], "values");
        }
        Row row = o.regularRow(ckValues, true);
        return commit(o, key, DeletionTime.LIVE, List.of(), o.staticRow(), List.of(row));
    }

    // ---------------------------------------------------------------------------------------
    // update

    private Mutation update(Map<String, Object> op) throws BadOperation {
        checkFields(op, "update", "op", "timestamp", "ttl", "key", "set", "add", "remove");
        Op o = new Op(timestamp(op), ttl(op));
        Key k = key(op);
        Map<String, Object> set = object(op, "set", false);
        Map<String, Object> add = object(op, "add", false);
        Map<String, Object> remove = object(op, "remove", false);
        if ((set == null || set.isEmpty()) && (add == null || add.isEmpty()) && (remove == null || remove.isEmpty())) {
            throw new BadOperation("update needs at least one column in \"set\", \"add\" or \"remove\"");
        }
        if (set != null) {
            for (Map.Entry<String, Object> e : set.entrySet()) {
                ColumnSelector sel = selector(e.getKey(), e.getValue(), "set");
                switch (sel.kind) {
                    case COLUMN: setColumn(o, sel.column, e.getValue()); break;
                    case FIELD: setField(o, sel, e.getValue(), false); break;
                    default: setElement(o, sel, e.getValue(), false); break;
                }
            }
        }
        if (remove != null) {
            for (Map.Entry<String, Object> e : remove.entrySet()) {
                ColumnMetadata c = nonKeyColumn(e.getKey(), e.getValue(), "remove");
                if ((set != null && set.containsKey(e.getKey())) || (add != null && add.containsKey(e.getKey()))) {
                    throw new BadOperation("column '" + c.name() + "' is both in \"remove\" and in \"" + (set != null && set.containsKey(e.getKey())
                            ? "set" : "add") + "\"");
                }
                removeFromColumn(o, c, e.getValue());
            }
        }
        if (add != null) {
            for (Map.Entry<String, Object> e : add.entrySet()) {
                ColumnMetadata c = nonKeyColumn(e.getKey(), e.getValue(), "add");
                if (set != null && set.containsKey(e.getKey())) {
                    throw new BadOperation("column '" + c.name() + "' is both in \"set\" and in \"add\"");
                }
                addToColumn(o, c, e.getValue());
            }
        }
        o.finishElements();
        Row row = null;
        if (o.regularColumnsSet > 0 || clustering.length == 0) {
            requireFullClustering(k, "update of regular columns");
            row = o.regularRow(k.clustering, false);
        } else {
            refuseClustering(k, "update");
        }
        return commit(o, k.partitionKey, DeletionTime.LIVE, List.of(), o.staticRow(), row == null ? List.of() : List.of(row));
    }

    // ---------------------------------------------------------------------------------------
    // delete

    private Mutation delete(Map<String, Object> op) throws BadOperation {
        checkFields(op, "delete", "op", "timestamp", "key", "range", "columns");
        if (op.containsKey("ttl")) {
            throw new BadOperation("\"ttl\" is not allowed on a delete (ttl " + ValueText.display(op.get("ttl")) + ")");
        }
        long ts = timestamp(op);
        Op o = new Op(ts, Cell.NO_TTL);
        Key k = key(op);
        DeletionTime deletion = DeletionTime.of(ts, nowSeconds);
        boolean hasRange = op.containsKey("range");
        boolean hasColumns = op.containsKey("columns");
        if (hasRange && hasColumns) {
            throw new BadOperation("a delete takes \"range\" or \"columns\", not both (CQL has no range deletion of columns)");
        }
        if (hasColumns) {
            return deleteColumns(o, k, op.get("columns"), deletion);
        }
        if (hasRange) {
            RangeTombstone rt = range(k, op.get("range"), deletion);
            return commit(o, k.partitionKey, DeletionTime.LIVE, List.of(rt), null, List.of());
        }
        if (k.clusteringGiven == 0) {
            if (ts < 0) {
                throw new BadOperation("\"timestamp\": " + ts + " is negative; a partition deletion needs a timestamp >= 0 "
                        + "(Cassandra 5.0.9 writes a negative one but reads it back as no deletion)");
            }
            return commit(o, k.partitionKey, deletion, List.of(), null, List.of());
        }
        if (k.clusteringGiven == clustering.length) {
            Row row = new Row(false, k.clustering, Cell.NO_TIMESTAMP, Cell.NO_TTL, Cell.NO_DELETION_TIME, deletion,
                    new Cell[schema.regularComplexStart()],
                    new ComplexColumn[regulars.length - schema.regularComplexStart()]);
            return commit(o, k.partitionKey, DeletionTime.LIVE, List.of(), null, List.of(row));
        }
        byte[][] prefix = Arrays.copyOf(k.clustering, k.clusteringGiven);
        RangeTombstone rt = new RangeTombstone(ClusteringBound.start(true, prefix), ClusteringBound.end(true, prefix), deletion);
        return commit(o, k.partitionKey, DeletionTime.LIVE, List.of(rt), null, List.of());
    }

    private Mutation deleteColumns(Op o, Key k, Object columns, DeletionTime deletion) throws BadOperation {
        if (!(columns instanceof List) || ((List<?>) columns).isEmpty()) {
            throw new BadOperation("\"columns\" must be a non-empty array of column names, not " + ValueText.display(columns));
        }
        List<?> names = (List<?>) columns;
        for (int i = 0; i < names.size(); i++) {
            Object n = names.get(i);
            if (!(n instanceof String)) {
                throw new BadOperation("\"columns\" must hold column names (strings), not " + ValueText.display(n));
            }
            ColumnSelector sel = selector((String) n, null, "columns");
            ColumnMetadata c = sel.column;
            if (sel.kind == ColumnSelector.Kind.FIELD) {
                setField(o, sel, null, true);
                continue;
            }
            if (sel.kind == ColumnSelector.Kind.ELEMENT) {
                setElement(o, sel, null, true);
                continue;
            }
            if (c.isComplex()) {
                ComplexColumn[] cx = o.complex(c);
                if (cx[o.complexIndex(c)] != null) throw twice(c);
                cx[o.complexIndex(c)] = new ComplexColumn(deletion, NO_CELLS);
            } else {
                Cell[] cells = o.cells(c);
                if (cells[c.position()] != null) throw twice(c);
                cells[c.position()] = Cell.tombstone(o.timestamp, nowSeconds, null);
            }
            o.noteColumn(c);
        }
        o.finishElements();
        Row row = null;
        if (o.regularColumnsSet > 0 || clustering.length == 0) {
            requireFullClustering(k, "delete of regular columns");
            row = o.regularRow(k.clustering, false);
        } else {
            refuseClustering(k, "delete");
        }
        return commit(o, k.partitionKey, DeletionTime.LIVE, List.of(), o.staticRow(), row == null ? List.of() : List.of(row));
    }

    private static BadOperation twice(ColumnMetadata c) {
        return new BadOperation("column '" + c.name() + "' is listed twice in \"columns\"");
    }

    /**
     * {@code "range": {"ck": {">": 2, "<=": 5}}}: bounds on the clustering column after the key's
     * prefix. On a DESC column the value order is the reverse of clustering order, so the lower
     * value bound becomes the end of the slice, as in Cassandra's restrictions.
     */
    private RangeTombstone range(Key k, Object rangeValue, DeletionTime deletion) throws BadOperation {
        if (!(rangeValue instanceof Map) || ((Map<?, ?>) rangeValue).size() != 1) {
            throw new BadOperation("\"range\" must be an object with one clustering column, as {\"ck\": {\">\": 2, \"<=\": 5}}, not "
                    + ValueText.display(rangeValue));
        }
        if (k.clusteringGiven == clustering.length) {
            throw new BadOperation(clustering.length == 0 ? "\"range\" needs a table with clustering columns"
                    : "\"range\" needs a key that leaves a clustering column free, but \"key\" gives them all");
        }
        Map.Entry<?, ?> e = ((Map<?, ?>) rangeValue).entrySet().iterator().next();
        String name = (String) e.getKey();
        ColumnMetadata c = schema.column(name);
        ColumnMetadata expected = clustering[k.clusteringGiven];
        if (c != expected) {
            throw new BadOperation("\"range\" column '" + ValueText.cut(name) + "' must be the next clustering column after the key, '"
                    + expected.name() + "' (" + expected.type() + ")");
        }
        if (!(e.getValue() instanceof Map) || ((Map<?, ?>) e.getValue()).isEmpty()) {
            throw new BadOperation("\"range\" of '" + name + "' needs one or two bounds (>, >=, <, <=), not "
                    + ValueText.display(e.getValue()));
        }
        byte[] low = null, high = null;
        boolean lowInclusive = false, highInclusive = false;
        for (Map.Entry<?, ?> b : ((Map<?, ?>) e.getValue()).entrySet()) {
            String operator = (String) b.getKey();
            boolean lower = operator.equals(">") || operator.equals(">=");
            boolean upper = operator.equals("<") || operator.equals("<=");
            if (!lower && !upper) {
                throw new BadOperation("\"range\" of '" + name + "': unknown operator " + ValueText.display(operator)
                        + " (expected >, >=, < or <=)");
            }
            if ((lower && low != null) || (upper && high != null)) {
                throw new BadOperation("\"range\" of '" + name + "' has two " + (lower ? "lower" : "upper") + " bounds");
            }
            byte[] v = keyValue(c, b.getValue());
            if (lower) {
                low = v;
                lowInclusive = operator.length() == 2;
            } else {
                high = v;
                highInclusive = operator.length() == 2;
            }
        }
        byte[] startValue = c.isReversed() ? high : low;
        byte[] endValue = c.isReversed() ? low : high;
        boolean startInclusive = c.isReversed() ? highInclusive : lowInclusive;
        boolean endInclusive = c.isReversed() ? lowInclusive : highInclusive;
        if (startValue != null && endValue != null) {
            int cmp = c.compareClustering(startValue, endValue);
            if (cmp > 0 || (cmp == 0 && !(startInclusive && endInclusive))) {
                throw new BadOperation("\"range\" of '" + name + "' " + ValueText.display(e.getValue())
                        + " selects nothing");
            }
        }
        int n = k.clusteringGiven;
        ClusteringBound start = startValue == null ? ClusteringBound.start(true, Arrays.copyOf(k.clustering, n))
                : ClusteringBound.start(startInclusive, with(k.clustering, n, startValue));
        ClusteringBound end = endValue == null ? ClusteringBound.end(true, Arrays.copyOf(k.clustering, n))
                : ClusteringBound.end(endInclusive, with(k.clustering, n, endValue));
        return new RangeTombstone(start, end, deletion);
    }

    private static byte[][] with(byte[][] prefix, int n, byte[] last) {
        byte[][] out = Arrays.copyOf(prefix, n + 1);
        out[n] = last;
        return out;
    }

    // ---------------------------------------------------------------------------------------
    // columns and cells

    /** SET semantics (insert values, update set): a value, a tombstone, or a whole new collection. */
    private void setColumn(Op o, ColumnMetadata c, Object v) throws BadOperation {
        o.noteColumn(c);
        if (!c.isComplex()) {
            Cell cell = v == null ? Cell.tombstone(o.timestamp, nowSeconds, null) : o.cell(encode(c, v), null);
            o.cells(c)[c.position()] = cell;
            return;
        }
        // Cassandra's setters delete the old collection just before the new elements (ts - 1),
        // so the new elements, written at ts, survive.
        DeletionTime overwrite = DeletionTime.of(o.timestamp - 1, nowSeconds);
        Cell[] elements = v == null ? NO_CELLS : elements(o, c, v);
        o.complex(c)[o.complexIndex(c)] = new ComplexColumn(overwrite, elements);
    }

    /** APPEND semantics (update add): elements only. */
    private void addToColumn(Op o, ColumnMetadata c, Object v) throws BadOperation {
        if (!c.isComplex() || !c.type().isCollection()) {
            throw new BadOperation("column '" + c.name() + "' (" + c.type() + "): \"add\" needs a non-frozen list, set or map column, "
                    + "cannot add " + ValueText.display(v));
        }
        if (v == null) {
            throw new BadOperation("column '" + c.name() + "' (" + c.type() + "): cannot add null");
        }
        // Noted even when empty, so that the key rules see a regular column; the empty row is dropped.
        o.noteColumn(c);
        Cell[] elements = elements(o, c, v);
        if (elements.length == 0) return; // tags = tags + []: nothing
        o.complex(c)[o.complexIndex(c)] = new ComplexColumn(DeletionTime.LIVE, elements);
    }

    /**
     * A column or a part of one in "set" or "columns" ({@code v}, {@code addr.city},
     * {@code prefs['k']}; see {@link ColumnSelector}); not a primary key column.
     */
    private ColumnSelector selector(String name, Object v, String field) throws BadOperation {
        ColumnSelector sel;
        try {
            sel = ColumnSelector.parse(schema, name);
        } catch (IllegalArgumentException e) {
            throw new BadOperation("\"" + field + "\": " + ValueText.display(name) + " is not a column of table " + schema
                    + ", nor a column.field or column[element] (" + e.getMessage() + ")");
        }
        if (sel == null) {
            nonKeyColumn(name, v, field); // refused there: the table has no such column
            throw new AssertionError(name);
        }
        nonKeyColumn(sel.column.name(), v, field); // refuses a primary key column
        return sel;
    }

    /**
     * One field of a non-frozen UDT: {@code SET addr.city = v} (a cell; null: a cell tombstone)
     * or, for a delete, {@code DELETE addr.city} (a cell tombstone), as Cassandra's
     * UserTypes.SetterByField and DeleterByField write them.
     */
    private void setField(Op o, ColumnSelector sel, Object v, boolean delete) throws BadOperation {
        ColumnMetadata c = sel.column;
        CqlType t = c.type();
        if (t.kind() != CqlType.Kind.UDT) {
            throw new BadOperation("column '" + c.name() + "' (" + t + ") has no fields: " + ValueText.display(c.name() + "." + sel.field)
                    + " names a field of a user-defined type");
        }
        if (!t.isMultiCell()) {
            throw new BadOperation("column '" + c.name() + "' (" + t + "): a field of a frozen user-defined type cannot be "
                    + (delete ? "deleted" : "set") + " alone; " + (delete ? "delete" : "set") + " the whole value");
        }
        int i = t.fieldIndex(sel.field);
        if (i < 0) {
            throw new BadOperation("column '" + c.name() + "' (" + t + "): type " + t.typeName() + " has no field '"
                    + ValueText.cut(sel.field) + "'");
        }
        o.noteColumn(c);
        byte[] path = CqlType.fieldPath(i);
        if (delete || v == null) {
            o.addElementCell(c, Cell.tombstone(o.timestamp, nowSeconds, path));
            return;
        }
        try {
            o.addElementCell(c, o.cell(ValueCodec.encode(t.component(i), v), path));
        } catch (ValueException e) {
            throw new BadOperation("column '" + c.name() + "' (" + t + "): field '" + t.fieldName(i) + "' (" + t.component(i) + "): "
                    + e.getMessage());
        }
    }

    /**
     * One element of a non-frozen collection: {@code SET m[k] = v} (a map entry; null: a cell
     * tombstone), or for a delete {@code DELETE m[k]} / {@code DELETE s[e]} (a cell tombstone),
     * as Maps.SetterByKey, Maps.DiscarderByKey and Sets.ElementDiscarder write them. A list
     * element is addressed by index, which needs the list read first: refused.
     */
    private void setElement(Op o, ColumnSelector sel, Object v, boolean delete) throws BadOperation {
        ColumnMetadata c = sel.column;
        CqlType t = c.type();
        String what = c.name() + "[" + sel.literal + "]";
        if (t.kind() == CqlType.Kind.LIST) {
            throw new BadOperation("column '" + c.name() + "' (" + t + "): " + (delete ? "deleting" : "setting") + " a list element by index ("
                    + ValueText.cut(what) + ") needs a read before the write; refused, as CQLSSTableWriter refuses it");
        }
        if (!t.isMultiCell() || !(t.kind() == CqlType.Kind.MAP || t.kind() == CqlType.Kind.SET)) {
            throw new BadOperation("column '" + c.name() + "' (" + t + "): " + ValueText.cut(what) + " names an element, which only a "
                    + "non-frozen map or set has");
        }
        if (t.kind() == CqlType.Kind.SET && !delete) {
            throw new BadOperation("column '" + c.name() + "' (" + t + "): a set element cannot be set (" + ValueText.cut(what)
                    + "); add it with \"add\"");
        }
        byte[] path;
        try {
            path = ValueCodec.encode(t.elementType(), ColumnSelector.literalValue(sel.literal, t.elementType()));
        } catch (ValueException | IllegalArgumentException e) {
            throw new BadOperation("column '" + c.name() + "' (" + t + "): " + ValueText.display(sel.literal) + " is not a "
                    + (t.kind() == CqlType.Kind.MAP ? "key" : "element") + " of it: " + e.getMessage());
        }
        checkPathLength(c, path, sel.literal);
        o.noteColumn(c);
        if (delete || v == null) {
            o.addElementCell(c, Cell.tombstone(o.timestamp, nowSeconds, path));
            return;
        }
        try {
            o.addElementCell(c, o.cell(ValueCodec.encodeMapValue(t, v), path));
        } catch (ValueException e) {
            throw new BadOperation("column '" + c.name() + "' (" + t + "): " + e.getMessage());
        }
    }

    /**
     * {@code SET s = s - {...}}: a cell tombstone per element of a set, or per key of a map
     * (Sets.Discarder). A list removes by value, which needs the list read first: refused.
     */
    private void removeFromColumn(Op o, ColumnMetadata c, Object v) throws BadOperation {
        CqlType t = c.type();
        if (t.kind() == CqlType.Kind.LIST) {
            throw new BadOperation("column '" + c.name() + "' (" + t + "): removing list elements by value needs a read before the "
                    + "write; refused, as CQLSSTableWriter refuses it");
        }
        if (!t.isMultiCell() || !(t.kind() == CqlType.Kind.SET || t.kind() == CqlType.Kind.MAP)) {
            throw new BadOperation("column '" + c.name() + "' (" + t + "): \"remove\" needs a non-frozen set or map column, "
                    + "cannot remove " + ValueText.display(v));
        }
        if (v == null) {
            // s = s - null removes nothing, as in Cassandra; noted so that the key rules see the column
            o.noteColumn(c);
            return;
        }
        if (!(v instanceof List)) {
            throw new BadOperation("column '" + c.name() + "' (" + t + "): \"remove\" takes an array of "
                    + (t.kind() == CqlType.Kind.SET ? "elements" : "keys") + ", not " + ValueText.display(v));
        }
        o.noteColumn(c);
        try {
            // the elements (or keys) as the set type orders and deduplicates them
            CqlType asSet = CqlType.set(t.elementType(), true);
            for (byte[] path : ValueCodec.encodeSetElements(asSet, v)) {
                checkPathLength(c, path, v);
                o.addElementCell(c, Cell.tombstone(o.timestamp, nowSeconds, path));
            }
        } catch (ValueException e) {
            throw new BadOperation("column '" + c.name() + "' (" + t + "): " + e.getMessage());
        }
    }

    /** An element or field for messages: the UDT field's name, else the path's value. */
    private static String elementName(ColumnMetadata c, byte[] path) {
        CqlType t = c.type();
        if (t.kind() == CqlType.Kind.UDT) {
            int i = t.fieldIndexOfPath(path, 0, path.length);
            return "field '" + (i < 0 ? "?" : t.fieldName(i)) + "'";
        }
        return (t.kind() == CqlType.Kind.MAP ? "key " : "element ") + ValueText.display(t.cellPathType(), path);
    }

    /** One cell per element, sorted by path: list paths are fresh time-UUIDs, set paths the elements, map paths the keys. */
    private Cell[] elements(Op o, ColumnMetadata c, Object v) throws BadOperation {
        CqlType t = c.type();
        try {
            switch (t.kind()) {
                case LIST: {
                    if (!(v instanceof List)) {
                        throw new ValueException(ValueText.display(v) + " is not a " + t + " (expected a JSON array)");
                    }
                    List<?> list = (List<?>) v;
                    Cell[] out = new Cell[list.size()];
                    for (int i = 0; i < out.length; i++) {
                        byte[] value = ValueCodec.encodeElement(t, list.get(i));
                        out[i] = o.cell(value, TimeUuids.bytes(o.listTicks++, listPathNode));
                    }
                    return out;
                }
                case SET: {
                    byte[][] paths = ValueCodec.encodeSetElements(t, v);
                    Cell[] out = new Cell[paths.length];
                    for (int i = 0; i < out.length; i++) {
                        checkPathLength(c, paths[i], v);
                        out[i] = o.cell(null, paths[i]);
                    }
                    return out;
                }
                case MAP: {
                    byte[][] entries = ValueCodec.encodeMapEntries(t, v);
                    Cell[] out = new Cell[entries.length / 2];
                    for (int i = 0; i < out.length; i++) {
                        checkPathLength(c, entries[2 * i], v);
                        out[i] = o.cell(entries[2 * i + 1], entries[2 * i]);
                    }
                    return out;
                }
                case UDT: {
                    // a cell per non-null field, at the field's index (UserTypes.Setter); null fields write nothing
                    byte[][] fields = ValueCodec.udtFields(t, v);
                    int n = 0;
                    for (byte[] f : fields) if (f != null) n++;
                    Cell[] out = new Cell[n];
                    n = 0;
                    for (int i = 0; i < fields.length; i++) {
                        if (fields[i] != null) out[n++] = o.cell(fields[i], CqlType.fieldPath(i));
                    }
                    return out;
                }
                default:
                    throw new AssertionError(t);
            }
        } catch (ValueException e) {
            throw new BadOperation("column '" + c.name() + "' (" + t + "): " + e.getMessage());
        }
    }

    private static void checkPathLength(ColumnMetadata c, byte[] path, Object v) throws BadOperation {
        if (path.length > MAX_KEY_BYTES) {
            throw new BadOperation("column '" + c.name() + "' (" + c.type() + "): " + ValueText.display(v) + " has a "
                    + (c.type().kind() == CqlType.Kind.SET ? "set element" : "map key") + " of " + path.length
                    + " bytes, longer than the maximum of " + MAX_KEY_BYTES);
        }
    }

    private static byte[] encode(ColumnMetadata c, Object v) throws BadOperation {
        try {
            return ValueCodec.encode(c.type(), v);
        } catch (ValueException e) {
            throw new BadOperation("column '" + c.name() + "' (" + c.type() + "): " + e.getMessage());
        }
    }

    /** A primary key value: not null, and at most 64 KiB - 1 bytes. */
    private static byte[] keyValue(ColumnMetadata c, Object v) throws BadOperation {
        if (v == null) {
            throw new BadOperation("column '" + c.name() + "' (" + c.type() + "): null is not allowed in a primary key column");
        }
        byte[] b = encode(c, v);
        if (b.length > MAX_KEY_BYTES) {
            throw new BadOperation("column '" + c.name() + "' (" + c.type() + "): " + ValueText.display(v) + " is " + b.length
                    + " bytes, longer than the maximum of " + MAX_KEY_BYTES + " for a "
                    + (c.role() == ColumnMetadata.Role.CLUSTERING ? "clustering value" : "partition key"));
        }
        return b;
    }

    private ColumnMetadata column(String name, Object v, String field) throws BadOperation {
        ColumnMetadata c = schema.column(name);
        if (c == null) {
            throw new BadOperation("unknown column '" + ValueText.cut(name) + "' in \"" + field + "\" (value " + ValueText.display(v)
                    + "); table " + schema + " has no such column");
        }
        return c;
    }

    private ColumnMetadata nonKeyColumn(String name, Object v, String field) throws BadOperation {
        ColumnMetadata c = schema.column(name);
        if (c == null) {
            throw new BadOperation("unknown column '" + ValueText.cut(name) + "' in \"" + field + "\""
                    + (field.equals("columns") ? "" : " (value " + ValueText.display(v) + ")")
                    + "; table " + schema + " has no such column");
        }
        if (c.role() == ColumnMetadata.Role.PARTITION_KEY || c.role() == ColumnMetadata.Role.CLUSTERING) {
            throw new BadOperation("column '" + name + "' (" + c.type() + ") is part of the primary key; it belongs in \"key\", not in \""
                    + field + "\"");
        }
        return c;
    }

    private static BadOperation missing(ColumnMetadata c, String field) {
        String role = c.role() == ColumnMetadata.Role.PARTITION_KEY ? "partition key" : "clustering";
        return new BadOperation("missing " + role + " column '" + c.name() + "' (" + c.type() + ") in \"" + field + "\"");
    }

    // ---------------------------------------------------------------------------------------
    // keys

    /** A parsed "key": the serialized partition key and a clustering prefix. */
    private static final class Key {
        byte[] partitionKey;
        /** One slot per clustering column; the first {@link #clusteringGiven} are set. */
        byte[][] clustering;
        int clusteringGiven;
        /** The first clustering column given, for messages. */
        ColumnMetadata firstClustering;
        Object firstClusteringValue;
    }

    private Key key(Map<String, Object> op) throws BadOperation {
        Map<String, Object> keyObject = object(op, "key", true);
        byte[][] pkValues = new byte[partitionKey.length][];
        Key k = new Key();
        k.clustering = new byte[clustering.length][];
        for (Map.Entry<String, Object> e : keyObject.entrySet()) {
            ColumnMetadata c = column(e.getKey(), e.getValue(), "key");
            if (c.role() == ColumnMetadata.Role.PARTITION_KEY) {
                pkValues[c.position()] = keyValue(c, e.getValue());
            } else if (c.role() == ColumnMetadata.Role.CLUSTERING) {
                k.clustering[c.position()] = keyValue(c, e.getValue());
                if (k.firstClustering == null || c.position() < k.firstClustering.position()) {
                    k.firstClustering = c;
                    k.firstClusteringValue = e.getValue();
                }
            } else {
                throw new BadOperation("column '" + c.name() + "' (" + c.type() + ") in \"key\" is not a primary key column (value "
                        + ValueText.display(e.getValue()) + ")");
            }
        }
        k.partitionKey = partitionKeyBytes(pkValues, "key");
        int n = 0;
        while (n < clustering.length && k.clustering[n] != null) n++;
        for (int i = n + 1; i < clustering.length; i++) {
            if (k.clustering[i] != null) {
                throw new BadOperation("clustering column '" + clustering[i].name() + "' is in \"key\" but '"
                        + clustering[n].name() + "' (" + clustering[n].type() + ") before it is not");
            }
        }
        k.clusteringGiven = n;
        return k;
    }

    private void requireFullClustering(Key k, String what) throws BadOperation {
        if (k.clusteringGiven < clustering.length) throw missing(clustering[k.clusteringGiven], "key");
    }

    /** CQL: "Invalid restrictions on clustering columns since the UPDATE statement modifies only static columns". */
    private static void refuseClustering(Key k, String what) throws BadOperation {
        if (k.clusteringGiven > 0) {
            throw new BadOperation("column '" + k.firstClustering.name() + "' (" + k.firstClustering.type() + "): a " + what
                    + " of static columns only takes the partition key; clustering value "
                    + ValueText.display(k.firstClusteringValue) + " is not allowed (CQL refuses it too)");
        }
    }

    /** One column: its value. Several: CompositeType (per component u16 length, bytes, 0x00). */
    private byte[] partitionKeyBytes(byte[][] pkValues, String field) throws BadOperation {
        for (int i = 0; i < pkValues.length; i++) {
            if (pkValues[i] == null) throw missing(partitionKey[i], field);
        }
        byte[] key;
        if (pkValues.length == 1) {
            key = pkValues[0];
            if (key.length == 0) {
                throw new BadOperation("column '" + partitionKey[0].name() + "' (" + partitionKey[0].type()
                        + "): a partition key may not be empty");
            }
        } else {
            // A component over the u16 limit makes the whole key longer than the maximum too: refused before composing, naming the columns.
            int size = 0;
            for (byte[] v : pkValues) size += PartitionKey.COMPONENT_OVERHEAD_BYTES + v.length;
            if (size > MAX_KEY_BYTES) throw tooLong(size);
            key = PartitionKey.compose(pkValues);
        }
        if (key.length > MAX_KEY_BYTES) throw tooLong(key.length);
        return key;
    }

    private BadOperation tooLong(int keyBytes) {
        StringBuilder names = new StringBuilder();
        for (ColumnMetadata c : partitionKey) names.append(names.length() == 0 ? "" : ", ").append(c.name());
        return new BadOperation("partition key (" + names + ") is " + keyBytes + " bytes, longer than the maximum of "
                + MAX_KEY_BYTES);
    }

    // ---------------------------------------------------------------------------------------
    // fields

    private static void checkFields(Map<String, Object> op, String opName, String... allowed) throws BadOperation {
        for (String f : op.keySet()) {
            boolean ok = false;
            for (String a : allowed) {
                if (a.equals(f)) {
                    ok = true;
                    break;
                }
            }
            if (!ok && !(opName.equals("delete") && f.equals("ttl"))) {
                throw new BadOperation("unknown field " + ValueText.display(f) + " for " + opName + " (value "
                        + ValueText.display(op.get(f)) + "); expected " + String.join(", ", allowed));
            }
        }
    }

    private static long timestamp(Map<String, Object> op) throws BadOperation {
        if (!op.containsKey("timestamp")) {
            throw new BadOperation("missing \"timestamp\" (microseconds, as USING TIMESTAMP)");
        }
        Object v = op.get("timestamp");
        long ts = integer(v, "timestamp", Long.MIN_VALUE, Long.MAX_VALUE);
        // Long.MIN_VALUE marks "no timestamp" (and MIN + 1 - 1 would be it for a collection overwrite).
        if (ts <= Long.MIN_VALUE + 1) {
            throw new BadOperation("\"timestamp\": " + ValueText.display(v) + " is reserved; use a larger one");
        }
        return ts;
    }

    /** The operation's TTL, else the table's default; 0 = none. The expiry must fit Cassandra's clock. */
    private int ttl(Map<String, Object> op) throws BadOperation {
        int ttl;
        Object v = op.get("ttl");
        if (op.containsKey("ttl")) {
            ttl = (int) integer(v, "ttl", Integer.MIN_VALUE, Integer.MAX_VALUE);
            if (ttl < 0 || ttl > Cell.MAX_TTL) {
                throw new BadOperation("\"ttl\": " + ValueText.display(v) + " is out of range (0.." + Cell.MAX_TTL + " seconds)");
            }
        } else {
            ttl = schema.defaultTimeToLiveSeconds();
        }
        if (ttl != Cell.NO_TTL && nowSeconds + ttl > maxLocalDeletionTime) {
            throw new BadOperation("\"ttl\": " + ttl + " seconds from now (" + nowSeconds + ") expires after the latest expiration "
                    + "the output can store (" + maxLocalDeletionTime + ", " + maxLocalDeletionTimeText + ")");
        }
        return ttl;
    }

    private static long integer(Object v, String field, long min, long max) throws BadOperation {
        if (!(v instanceof BigDecimal)) {
            throw new BadOperation("\"" + field + "\": " + ValueText.display(v) + " is not an integer");
        }
        long x;
        try {
            x = ((BigDecimal) v).longValueExact();
        } catch (ArithmeticException e) {
            throw new BadOperation("\"" + field + "\": " + ValueText.display(v) + " is not an integer in "
                    + min + ".." + max);
        }
        if (x < min || x > max) {
            throw new BadOperation("\"" + field + "\": " + ValueText.display(v) + " is out of range (" + min + ".." + max + ")");
        }
        return x;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(Map<String, Object> op, String field, boolean required) throws BadOperation {
        Object v = op.get(field);
        if (v == null) {
            if (!required && !op.containsKey(field)) return null;
            throw new BadOperation(op.containsKey(field) ? "\"" + field + "\" must be an object, not null" : "missing \"" + field + "\"");
        }
        if (!(v instanceof Map)) {
            throw new BadOperation("\"" + field + "\" must be an object, not " + ValueText.display(v));
        }
        return (Map<String, Object>) v;
    }

    private Mutation commit(Op o, byte[] key, DeletionTime partitionDeletion, List<RangeTombstone> rts,
                            Row staticRow, List<Row> rows) {
        if (partitionDeletion.isLive() && rts.isEmpty() && (staticRow == null || staticRow.isEmpty())
                && (rows.isEmpty() || rows.get(0).isEmpty())) {
            return null;
        }
        if (staticRow != null && staticRow.isEmpty()) staticRow = null;
        if (!rows.isEmpty() && rows.get(0).isEmpty()) rows = List.of();
        nextListTicks = o.listTicks;
        return new Mutation(schema, new PartitionUpdate(PartitionKey.of(key), partitionDeletion, rts, staticRow, rows));
    }
}

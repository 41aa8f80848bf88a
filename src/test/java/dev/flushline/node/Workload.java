package dev.flushline.node;

import dev.flushline.data.ArrayCell;
import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.RangeTombstone;
import dev.flushline.data.Row;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlType;
import dev.flushline.schema.TableSchema;
import dev.flushline.testing.RandomUpdates;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Random CQL operations on one table, each produced twice: as the Flushline
 * {@link PartitionUpdate} a commit log replay would hand to the memtable, and as the CQL
 * statements (with bound values) that do the same thing on a live node. The test writes the
 * first through Flushline into sstables and imports them into one table, executes the second
 * against a twin table, and compares the two: the node's own write path is the expectation,
 * independent of Flushline's memtable and flush code.
 *
 * <p>Operations: INSERT (row liveness, optional TTL, nulls as cell tombstones), UPDATE (no
 * liveness), collection assignment and append, static-column writes, deletion of cells, rows,
 * clustering ranges (bounded, half-open, prefix) and partitions.
 *
 * <p>Every operation gets its own timestamp, three apart and sometimes swapped with a neighbour
 * (out-of-order writes): two writes never tie on a timestamp, so no result depends on
 * tie-breaking by local deletion time, which differs between the two paths (Flushline's clock
 * vs. the node's) by the seconds between them. TTLs are at least an hour, so nothing expires
 * while the test runs.
 */
final class Workload {
    /** One CQL statement for the twin table: {@code %s} stands for the qualified table name. */
    record Statement(String cql, List<ByteBuffer> values) {}

    /** One operation in both forms. */
    record Op(PartitionUpdate update, List<Statement> statements) {}

    private final TableSchema schema;
    private final Random random;
    private final RandomUpdates values;
    private final long nowSeconds;
    private final List<byte[][]> keyPool = new ArrayList<>();
    private final List<byte[][]> clusteringPool = new ArrayList<>();
    private long listUuidCounter;

    Workload(TableSchema schema, long seed, long nowSeconds, int keys, int clusterings) {
        this.schema = schema;
        this.random = new Random(seed);
        this.values = new RandomUpdates(schema, seed ^ 0x5DEECE66DL, nowSeconds, 1, 1);
        this.nowSeconds = nowSeconds;
        for (int i = 0; i < keys * 4 && keyPool.size() < keys; i++) {
            byte[][] k = randomValues(schema.partitionKeyColumns());
            // Cassandra refuses an empty partition key (component); duplicates would only shrink the pool.
            if (Arrays.stream(k).anyMatch(v -> v.length == 0) || contains(keyPool, k)) continue;
            keyPool.add(k);
        }
        for (int i = 0; i < clusterings * 4 && clusteringPool.size() < clusterings; i++) {
            byte[][] c = randomValues(schema.clusteringColumns());
            if (!contains(clusteringPool, c)) clusteringPool.add(c);
        }
    }

    private static boolean contains(List<byte[][]> pool, byte[][] v) {
        for (byte[][] p : pool) if (Arrays.deepEquals(p, v)) return true;
        return false;
    }

    private byte[][] randomValues(ColumnMetadata[] cols) {
        byte[][] v = new byte[cols.length][];
        for (int i = 0; i < cols.length; i++) v[i] = values.value(cols[i].type());
        return v;
    }

    /** {@code count} operations with distinct timestamps from {@code firstTimestamp} on. */
    List<Op> ops(int count, long firstTimestamp) {
        long[] ts = new long[count];
        for (int i = 0; i < count; i++) ts[i] = firstTimestamp + 3L * i;
        for (int i = 1; i < count; i++) {
            if (random.nextInt(10) == 0) { long t = ts[i]; ts[i] = ts[i - 1]; ts[i - 1] = t; }
        }
        List<Op> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) out.add(op(ts[i]));
        return out;
    }

    private Op op(long ts) {
        byte[][] key = keyPool.get(random.nextInt(keyPool.size()));
        PartitionKey pk = PartitionKey.of(RandomUpdates.partitionKeyBytes(schema, key));
        boolean hasClustering = schema.clusteringColumns().length > 0;
        byte[][] clustering = hasClustering ? clusteringPool.get(random.nextInt(clusteringPool.size())) : new byte[0][];
        int r = random.nextInt(100);
        List<Statement> st = new ArrayList<>();
        if (r < 3) {
            st.add(new Statement("DELETE FROM %s USING TIMESTAMP " + ts + " WHERE " + keyWhere(), keyValues(key)));
            return new Op(new PartitionUpdate(pk, DeletionTime.of(ts, nowSeconds), List.of(), null, List.of()), st);
        }
        if (hasClustering && r < 8) {
            return rangeDelete(pk, key, ts);
        }
        if (hasClustering && r < 13) {
            List<ByteBuffer> v = keyValues(key);
            v.addAll(buffers(clustering));
            st.add(new Statement("DELETE FROM %s USING TIMESTAMP " + ts + " WHERE " + keyWhere() + " AND " + clusteringWhere(clustering.length), v));
            Row row = new Row(false, clustering, Cell.NO_TIMESTAMP, 0, Cell.NO_DELETION_TIME, DeletionTime.of(ts, nowSeconds),
                    new Cell[schema.regularComplexStart()], new ComplexColumn[schema.regularColumns().length - schema.regularComplexStart()]);
            return new Op(new PartitionUpdate(pk, DeletionTime.LIVE, List.of(), null, List.of(row)), st);
        }
        boolean cellDelete = r < 20;
        boolean insert = !cellDelete && r < 70;
        int ttl = !cellDelete && random.nextInt(100) < 20 ? 3600 + random.nextInt(100_000) : 0;
        Row staticRow = null;
        if (schema.staticColumns().length > 0 && random.nextInt(100) < 30) {
            staticRow = writeColumns(true, key, null, ts, ttl, false, cellDelete, st);
        }
        List<Row> rows = new ArrayList<>();
        if (insert || schema.regularColumns().length > 0) {
            Row row = writeColumns(false, key, clustering, ts, ttl, insert, cellDelete, st);
            if (row != null) rows.add(row);
        }
        if (staticRow == null && rows.isEmpty()) return op(ts); // nothing written: draw again with the same timestamp
        return new Op(new PartitionUpdate(pk, DeletionTime.LIVE, List.of(), staticRow, rows), st);
    }

    private Op rangeDelete(PartitionKey pk, byte[][] key, long ts) {
        ColumnMetadata[] cc = schema.clusteringColumns();
        int n = cc.length;
        byte[][] a = clusteringPool.get(random.nextInt(clusteringPool.size()));
        byte[][] b = clusteringPool.get(random.nextInt(clusteringPool.size()));
        int p = random.nextInt(n); // equality on the first p columns, then a slice on column p
        byte[][] prefix = Arrays.copyOf(a, p);
        List<ByteBuffer> v = keyValues(key);
        v.addAll(buffers(prefix));
        StringBuilder where = new StringBuilder(keyWhere());
        if (p > 0) where.append(" AND ").append(clusteringWhere(p));
        ColumnMetadata c = cc[p];
        byte[] lo = a[p], hi = b[p];
        if (c.compareClustering(lo, hi) > 0) { byte[] t = lo; lo = hi; hi = t; } // lo first in clustering order
        ClusteringBound start, end;
        int shape = random.nextInt(5);
        if (shape == 0 || c.compareClustering(lo, hi) == 0) {
            // DELETE ... WHERE c_p = x: a prefix, inclusive on both sides
            byte[][] pv = append(prefix, lo);
            start = ClusteringBound.start(true, pv);
            end = ClusteringBound.end(true, pv);
            where.append(" AND ").append(q(c)).append(" = ?");
            v.add(ByteBuffer.wrap(lo));
        } else {
            boolean hasStart = shape != 1, hasEnd = shape != 2;
            boolean startIncl = random.nextBoolean(), endIncl = random.nextBoolean();
            // Clustering order is value order, reversed for a DESC column: the slice that starts at
            // lo (in clustering order) is "c >= lo" for ASC and "c <= lo" for DESC.
            String after = c.isReversed() ? "<" : ">", before = c.isReversed() ? ">" : "<";
            start = hasStart ? ClusteringBound.start(startIncl, append(prefix, lo)) : ClusteringBound.start(true, prefix);
            end = hasEnd ? ClusteringBound.end(endIncl, append(prefix, hi)) : ClusteringBound.end(true, prefix);
            if (hasStart) {
                where.append(" AND ").append(q(c)).append(' ').append(after).append(startIncl ? "=" : "").append(" ?");
                v.add(ByteBuffer.wrap(lo));
            }
            if (hasEnd) {
                where.append(" AND ").append(q(c)).append(' ').append(before).append(endIncl ? "=" : "").append(" ?");
                v.add(ByteBuffer.wrap(hi));
            }
        }
        Statement s = new Statement("DELETE FROM %s USING TIMESTAMP " + ts + " WHERE " + where, v);
        RangeTombstone rt = new RangeTombstone(start, end, DeletionTime.of(ts, nowSeconds));
        return new Op(new PartitionUpdate(pk, DeletionTime.LIVE, List.of(rt), null, List.of()), List.of(s));
    }

    /**
     * A write to the static row or one regular row: some simple columns (values or nulls), some
     * collections (assigned or appended to), or, for a cell deletion, DELETE of some columns.
     * Adds its statements to {@code st}; returns null when it chose no column and makes no row.
     */
    private Row writeColumns(boolean isStatic, byte[][] key, byte[][] clustering, long ts, int ttl, boolean insert,
                             boolean cellDelete, List<Statement> st) {
        ColumnMetadata[] cols = isStatic ? schema.staticColumns() : schema.regularColumns();
        int complexStart = isStatic ? schema.staticComplexStart() : schema.regularComplexStart();
        Cell[] cells = new Cell[complexStart];
        ComplexColumn[] complex = new ComplexColumn[cols.length - complexStart];
        long exp = ttl == 0 ? Cell.NO_DELETION_TIME : nowSeconds + ttl;
        String using = " USING TIMESTAMP " + ts + (ttl == 0 ? "" : " AND TTL " + ttl);
        List<ByteBuffer> where = keyValues(key);
        String whereText = keyWhere();
        if (!isStatic && clustering.length > 0) {
            where.addAll(buffers(clustering));
            whereText += " AND " + clusteringWhere(clustering.length);
        }
        List<String> insertCols = new ArrayList<>();
        List<ByteBuffer> insertValues = new ArrayList<>();
        List<String> sets = new ArrayList<>();
        List<ByteBuffer> setValues = new ArrayList<>();
        List<String> deletes = new ArrayList<>();
        for (int i = 0; i < cols.length; i++) {
            if (random.nextInt(3) == 0) continue; // column not touched by this write
            ColumnMetadata c = cols[i];
            if (i < complexStart) {
                if (cellDelete || random.nextInt(10) == 0) {
                    cells[i] = ArrayCell.tombstone(ts, nowSeconds, null);
                    if (cellDelete) deletes.add(q(c));
                    else if (insert) { insertCols.add(q(c)); insertValues.add(null); }
                    else { sets.add(q(c) + " = ?"); setValues.add(null); }
                } else {
                    byte[] v = values.value(c.type());
                    cells[i] = ttl == 0 ? ArrayCell.live(ts, v, null) : ArrayCell.expiring(ts, ttl, exp, v, null);
                    if (insert) { insertCols.add(q(c)); insertValues.add(ByteBuffer.wrap(v)); }
                    else { sets.add(q(c) + " = ?"); setValues.add(ByteBuffer.wrap(v)); }
                }
            } else if (cellDelete) {
                // DELETE of a whole collection: a complex deletion at the statement's timestamp.
                complex[i - complexStart] = new ComplexColumn(DeletionTime.of(ts, nowSeconds), new Cell[0]);
                deletes.add(q(c));
            } else {
                complex[i - complexStart] = collection(c, ts, ttl, exp, sets, setValues);
            }
        }
        boolean liveness = insert && !isStatic;
        boolean any = liveness || !deletes.isEmpty() || !insertCols.isEmpty() || !sets.isEmpty();
        if (!any) return null;
        if (cellDelete) {
            st.add(new Statement("DELETE " + String.join(", ", deletes) + " FROM %s USING TIMESTAMP " + ts + " WHERE " + whereText, where));
        } else {
            if (liveness) {
                List<String> names = new ArrayList<>(keyNames());
                for (ColumnMetadata c : schema.clusteringColumns()) names.add(q(c));
                names.addAll(insertCols);
                List<ByteBuffer> vals = new ArrayList<>(where);
                vals.addAll(insertValues);
                st.add(new Statement("INSERT INTO %s (" + String.join(", ", names) + ") VALUES ("
                        + String.join(", ", Collections.nCopies(names.size(), "?")) + ")" + using, vals));
            }
            if (!sets.isEmpty()) {
                List<ByteBuffer> vals = new ArrayList<>(setValues);
                vals.addAll(where);
                st.add(new Statement("UPDATE %s" + using + " SET " + String.join(", ", sets) + " WHERE " + whereText, vals));
            }
        }
        return new Row(isStatic, isStatic ? null : clustering, liveness ? ts : Cell.NO_TIMESTAMP, liveness ? ttl : 0,
                liveness ? exp : Cell.NO_DELETION_TIME, DeletionTime.LIVE, cells, complex);
    }

    /**
     * Assignment ({@code c = ?}: a complex deletion at ts - 1, then the elements) or append
     * ({@code c = c + ?}: only the elements) of a non-frozen collection. Null when the append is
     * empty (CQL writes nothing for it either).
     */
    private ComplexColumn collection(ColumnMetadata c, long ts, int ttl, long exp, List<String> sets, List<ByteBuffer> setValues) {
        boolean assign = random.nextBoolean();
        CqlType t = c.type();
        int n = random.nextInt(4);
        List<byte[]> paths = new ArrayList<>(), vals = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            byte[] path, value;
            switch (t.kind()) {
                case LIST: path = timeUuid(); value = values.value(t.elementType()); break;
                case SET: path = values.value(t.elementType()); value = new byte[0]; break;
                default: path = values.value(t.elementType()); value = values.value(t.valueType()); break;
            }
            boolean dup = false;
            if (t.kind() != CqlType.Kind.LIST) {
                for (byte[] p : paths) dup |= t.elementType().compare(p, path) == 0;
            }
            if (dup) continue; // a set/map literal with a repeated element would be collapsed by the node
            paths.add(path);
            vals.add(value);
        }
        if (!assign && paths.isEmpty()) return null;
        // The bound value, in the order CQL serializes it: list in element order, set/map any order
        // (the node sorts); the cells sorted by path, as a memtable row holds them.
        ByteBuffer bound = serializeCollection(t, paths, vals);
        sets.add(assign ? q(c) + " = ?" : q(c) + " = " + q(c) + " + ?");
        setValues.add(bound);
        Integer[] order = new Integer[paths.size()];
        for (int k = 0; k < order.length; k++) order[k] = k;
        CqlType pathType = t.kind() == CqlType.Kind.LIST ? CqlType.of(CqlType.Kind.TIMEUUID) : t.elementType();
        Arrays.sort(order, (x, y) -> pathType.compare(paths.get(x), paths.get(y)));
        Cell[] cells = new Cell[order.length];
        for (int k = 0; k < order.length; k++) {
            byte[] p = paths.get(order[k]), v = vals.get(order[k]);
            cells[k] = ttl == 0 ? ArrayCell.live(ts, v, p) : ArrayCell.expiring(ts, ttl, exp, v, p);
        }
        return new ComplexColumn(assign ? DeletionTime.of(ts - 1, nowSeconds) : DeletionTime.LIVE, cells);
    }

    private static ByteBuffer serializeCollection(CqlType t, List<byte[]> paths, List<byte[]> vals) {
        int size = 4;
        for (int k = 0; k < paths.size(); k++) {
            if (t.kind() == CqlType.Kind.LIST) size += 4 + vals.get(k).length;
            else if (t.kind() == CqlType.Kind.SET) size += 4 + paths.get(k).length;
            else size += 8 + paths.get(k).length + vals.get(k).length;
        }
        ByteBuffer b = ByteBuffer.allocate(size).putInt(paths.size());
        for (int k = 0; k < paths.size(); k++) {
            if (t.kind() == CqlType.Kind.LIST) b.putInt(vals.get(k).length).put(vals.get(k));
            else if (t.kind() == CqlType.Kind.SET) b.putInt(paths.get(k).length).put(paths.get(k));
            else b.putInt(paths.get(k).length).put(paths.get(k)).putInt(vals.get(k).length).put(vals.get(k));
        }
        return b.flip();
    }

    /**
     * Version-1 time UUIDs increasing with each call, as list cell paths. The node makes its own
     * paths for the twin table's list elements, from its clock, also increasing in execution
     * order; the test executes the statements in generation order so both lists keep one order.
     */
    private byte[] timeUuid() {
        long time = 0x01e0000000000000L / 16 + (++listUuidCounter) * 10;
        long msb = ((time & 0xFFFFFFFFL) << 32) | (((time >>> 32) & 0xFFFFL) << 16) | 0x1000L | ((time >>> 48) & 0x0FFFL);
        long lsb = 0x8000000000000000L | (random.nextLong() & 0x3FFFFFFFFFFFFFFFL);
        return ByteBuffer.allocate(16).putLong(msb).putLong(lsb).array();
    }

    private static byte[][] append(byte[][] prefix, byte[] v) {
        byte[][] out = Arrays.copyOf(prefix, prefix.length + 1);
        out[prefix.length] = v;
        return out;
    }

    private List<String> keyNames() {
        List<String> out = new ArrayList<>();
        for (ColumnMetadata c : schema.partitionKeyColumns()) out.add(q(c));
        return out;
    }

    private String keyWhere() {
        List<String> out = new ArrayList<>();
        for (ColumnMetadata c : schema.partitionKeyColumns()) out.add(q(c) + " = ?");
        return String.join(" AND ", out);
    }

    private String clusteringWhere(int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add(q(schema.clusteringColumns()[i]) + " = ?");
        return String.join(" AND ", out);
    }

    private static List<ByteBuffer> keyValues(byte[][] key) {
        return buffers(key);
    }

    private static List<ByteBuffer> buffers(byte[][] vs) {
        List<ByteBuffer> out = new ArrayList<>();
        for (byte[] v : vs) out.add(ByteBuffer.wrap(v));
        return out;
    }

    /** A column name as CQL text: always quoted, so case and reserved words cannot bite. */
    static String q(ColumnMetadata c) {
        return "\"" + c.name().replace("\"", "\"\"") + "\"";
    }
}

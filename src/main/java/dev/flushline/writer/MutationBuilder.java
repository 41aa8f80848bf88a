package dev.flushline.writer;

import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.RangeTombstone;
import dev.flushline.data.Row;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.ModificationStatement;
import dev.flushline.schema.TableSchema;

import java.util.Arrays;
import java.util.List;

/**
 * The partition update of one bound row ({@link RowBinder}), for the memtable of the buffered
 * writer: the same cells, deletions and liveness Cassandra's statement makes, with values copied
 * out of the binder's arena into arrays the memtable owns.
 *
 * <p>Thread safety: stateless.
 */
final class MutationBuilder {
    private static final byte[][] NO_VALUES = new byte[0][];
    private static final Cell[] NO_CELLS = new Cell[0];

    private MutationBuilder() {}

    /** The update, or null if the row changes nothing (Cassandra writes nothing for it either). */
    static PartitionUpdate update(RowBinder b) {
        long ts = b.timestamp;
        long now = b.nowSeconds();
        byte[] key = Arrays.copyOfRange(b.keySource, b.keyOffset, b.keyOffset + b.keyLength);
        switch (b.shape) {
            case NOTHING:
                return null;
            case PARTITION_DELETE:
                return new PartitionUpdate(PartitionKey.of(key), DeletionTime.of(ts, now), List.of(), null, List.of());
            case RANGE_DELETE:
                return new PartitionUpdate(PartitionKey.of(key), DeletionTime.LIVE, List.of(range(b, DeletionTime.of(ts, now))),
                        null, List.of());
            case STATIC:
            case ROW: {
                Row staticRow = b.hasStatic || b.shape == RowBinder.Shape.STATIC ? row(b, true) : null;
                Row row = b.shape == RowBinder.Shape.ROW ? row(b, false) : null;
                if (staticRow != null && staticRow.isEmpty()) staticRow = null;
                if (row != null && row.isEmpty()) row = null;
                if (staticRow == null && row == null) return null;
                return new PartitionUpdate(PartitionKey.of(key), DeletionTime.LIVE, List.of(), staticRow,
                        row == null ? List.of() : List.of(row));
            }
            default:
                throw new AssertionError(b.shape);
        }
    }

    private static Row row(RowBinder b, boolean statics) {
        TableSchema schema = b.schema;
        long ts = b.timestamp;
        int ttl = b.ttl;
        long now = b.nowSeconds();
        long expiration = ttl == Cell.NO_TTL ? Cell.NO_DELETION_TIME : now + ttl;
        int columns = statics ? schema.staticColumns().length : schema.regularColumns().length;
        int complexStart = statics ? schema.staticComplexStart() : schema.regularComplexStart();
        Cell[] cells = new Cell[complexStart];
        ComplexColumn[] complex = new ComplexColumn[columns - complexStart];
        for (int i = 0; i < b.slotColumn.length; i++) {
            if (!b.writes(i, statics)) continue;
            ColumnMetadata c = b.slotColumn[i];
            byte state = b.slotState[i];
            int p = c.position();
            if (state == RowBinder.NULL) {
                if (!c.isComplex()) {
                    cells[p] = Cell.tombstone(ts, now, null);
                } else {
                    // DELETE c deletes at the timestamp; c = null overwrites just before it, as any c = ...
                    long at = b.slotOp[i] == RowBinder.DELETE ? ts : ts - 1;
                    complex[p - complexStart] = new ComplexColumn(DeletionTime.of(at, now), NO_CELLS);
                }
            } else if (state == RowBinder.VALUE) {
                int off = b.slotOffset[i];
                byte[] v = Arrays.copyOfRange(b.valueSource(i), off, off + b.slotLength[i]);
                cells[p] = cell(ts, ttl, expiration, v, null);
            } else {
                int n = b.slotCellCount[i];
                boolean append = b.slotOp[i] == RowBinder.APPEND;
                if (append && n == 0) continue; // c = c + []: nothing
                Cell[] elements = new Cell[n];
                for (int k = 0; k < n; k++) {
                    int at = b.slotFirstCell[i] + k;
                    // the binder's path and value arrays are fresh per row: the memtable may keep them
                    elements[k] = cell(ts, ttl, expiration, b.cellValueSource[at], b.cellPathSource[at]);
                }
                complex[p - complexStart] = new ComplexColumn(append ? DeletionTime.LIVE : DeletionTime.of(ts - 1, now), elements);
            }
        }
        if (statics) {
            return new Row(true, NO_VALUES, Cell.NO_TIMESTAMP, Cell.NO_TTL, Cell.NO_DELETION_TIME, DeletionTime.LIVE, cells, complex);
        }
        byte[][] clustering = new byte[b.ckOffset.length][];
        byte[] src = b.clusteringSource();
        for (int i = 0; i < clustering.length; i++) {
            clustering[i] = Arrays.copyOfRange(src, b.ckOffset[i], b.ckOffset[i] + b.ckLength[i]);
        }
        boolean live = b.liveness;
        return new Row(false, clustering, live ? ts : Cell.NO_TIMESTAMP, live ? ttl : Cell.NO_TTL,
                live ? expiration : Cell.NO_DELETION_TIME, b.rowDeletion ? DeletionTime.of(ts, now) : DeletionTime.LIVE,
                cells, complex);
    }

    private static Cell cell(long ts, int ttl, long expiration, byte[] value, byte[] path) {
        return ttl == Cell.NO_TTL ? Cell.live(ts, value, path) : Cell.expiring(ts, ttl, expiration, value, path);
    }

    /**
     * The range a DELETE by clustering prefix, or prefix and bounds, covers. On a DESC column the
     * value order is the reverse of clustering order, so the lower value bound becomes the end of
     * the slice, as in Cassandra's restrictions.
     */
    private static RangeTombstone range(RowBinder b, DeletionTime deletion) {
        int n = b.clusteringGiven;
        byte[][] prefix = new byte[n][];
        byte[] src = b.clusteringSource();
        for (int i = 0; i < n; i++) prefix[i] = Arrays.copyOfRange(src, b.ckOffset[i], b.ckOffset[i] + b.ckLength[i]);
        if (b.lowSource == null && b.highSource == null) {
            return new RangeTombstone(ClusteringBound.start(true, prefix), ClusteringBound.end(true, prefix), deletion);
        }
        byte[] low = b.lowSource == null ? null : Arrays.copyOfRange(b.lowSource, b.lowOffset, b.lowOffset + b.lowLength);
        byte[] high = b.highSource == null ? null : Arrays.copyOfRange(b.highSource, b.highOffset, b.highOffset + b.highLength);
        boolean lowInclusive = b.lower != null && b.lower.operator == ModificationStatement.Operator.GE;
        boolean highInclusive = b.upper != null && b.upper.operator == ModificationStatement.Operator.LE;
        boolean reversed = b.schema.clusteringColumns()[n].isReversed();
        byte[] startValue = reversed ? high : low;
        byte[] endValue = reversed ? low : high;
        boolean startInclusive = reversed ? highInclusive : lowInclusive;
        boolean endInclusive = reversed ? lowInclusive : highInclusive;
        ClusteringBound start = startValue == null ? ClusteringBound.start(true, prefix)
                : ClusteringBound.start(startInclusive, with(prefix, startValue));
        ClusteringBound end = endValue == null ? ClusteringBound.end(true, prefix)
                : ClusteringBound.end(endInclusive, with(prefix, endValue));
        return new RangeTombstone(start, end, deletion);
    }

    private static byte[][] with(byte[][] prefix, byte[] last) {
        byte[][] out = Arrays.copyOf(prefix, prefix.length + 1);
        out[prefix.length] = last;
        return out;
    }
}

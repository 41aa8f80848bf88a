package dev.flushline.flush;

import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.RangeTombstoneList;
import dev.flushline.data.Row;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.MemtablePartition;
import dev.flushline.memtable.RowList;
import dev.flushline.oracle.Bytes;
import dev.flushline.oracle.ColumnData;
import dev.flushline.oracle.Deletion;
import dev.flushline.oracle.Liveness;
import dev.flushline.oracle.Marker;
import dev.flushline.oracle.Partition;
import dev.flushline.oracle.Unfiltered;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.TableSchema;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * What a memtable holds, in the oracle's neutral model: the content a flush must write and
 * cassandra-all must read back. Built independently of the serializer (it reads the memtable's
 * objects, not our bytes).
 */
public final class MemtableModel {
    private MemtableModel() {}

    static final String[] KIND_NAMES = {
            "EXCL_END_BOUND", "INCL_START_BOUND", "EXCL_END_INCL_START_BOUNDARY", "STATIC_CLUSTERING",
            "CLUSTERING", "INCL_END_EXCL_START_BOUNDARY", "INCL_END_BOUND", "EXCL_START_BOUND"};

    public static List<Partition> of(Memtable m) {
        List<Partition> out = new ArrayList<>();
        for (Iterator<MemtablePartition> it = m.partitionIterator(); it.hasNext(); ) {
            MemtablePartition p = it.next();
            if (p.isEmpty()) continue;
            out.add(partition(m.schema(), p));
        }
        return out;
    }

    public static Partition partition(TableSchema schema, MemtablePartition p) {
        dev.flushline.oracle.Row st = p.staticRow() == null
                ? dev.flushline.oracle.Row.EMPTY_STATIC
                : row(schema.staticColumns(), schema.staticComplexStart(), p.staticRow());
        List<Unfiltered> unfiltereds = new ArrayList<>();
        RangeTombstoneList rts = p.rangeTombstones();
        int mi = 0, mc = rts == null ? 0 : rts.markerCount();
        dev.flushline.data.ClusteringComparator cmp = new dev.flushline.data.ClusteringComparator(schema);
        RowList.Node n = p.rows().first();
        while (n != null || mi < mc) {
            if (n == null || (mi < mc && cmp.compare(n.row().clustering(), rts.markerBound(mi)) > 0)) {
                ClusteringBound b = rts.markerBound(mi);
                List<Deletion> dels = new ArrayList<>();
                if (b.isBoundary()) {
                    dels.add(del(rts.markerEndDeletion(mi)));
                    dels.add(del(rts.markerStartDeletion(mi)));
                } else {
                    dels.add(del(b.isStart() ? rts.markerStartDeletion(mi) : rts.markerEndDeletion(mi)));
                }
                unfiltereds.add(new Marker(KIND_NAMES[b.kind()], bytes(b.values()), dels));
                mi++;
            } else {
                unfiltereds.add(row(schema.regularColumns(), schema.regularComplexStart(), n.row()));
                n = n.next();
            }
        }
        return new Partition(Bytes.of(p.key().key()), del(p.partitionDeletion()), st, unfiltereds);
    }

    static Deletion del(DeletionTime d) {
        return d.isLive() ? Deletion.LIVE : new Deletion(d.markedForDeleteAt(), d.localDeletionTime());
    }

    static List<Bytes> bytes(byte[][] values) {
        List<Bytes> out = new ArrayList<>();
        for (byte[] v : values) out.add(Bytes.of(v));
        return out;
    }

    static dev.flushline.oracle.Row row(ColumnMetadata[] cols, int complexStart, Row r) {
        Liveness l = !r.hasLiveness() ? Liveness.EMPTY
                : r.isLivenessExpiring() ? Liveness.expiring(r.livenessTimestamp(), r.livenessTtl(), r.livenessExpirationTime())
                : Liveness.of(r.livenessTimestamp());
        List<ColumnData> data = new ArrayList<>();
        for (int i = 0; i < r.cells().length; i++) {
            Cell c = r.cells()[i];
            if (c != null) data.add(cell(cols[i].name(), c, null));
        }
        for (int i = 0; i < r.complex().length; i++) {
            ComplexColumn cx = r.complex()[i];
            if (cx == null) continue;
            String name = cols[complexStart + i].name();
            List<dev.flushline.oracle.Cell> cells = new ArrayList<>();
            for (Cell c : cx.cells()) cells.add(cell(name, c, Bytes.of(c.pathBytes())));
            data.add(new dev.flushline.oracle.ComplexColumn(name, del(cx.complexDeletion()), cells));
        }
        return new dev.flushline.oracle.Row(r.isStatic() ? List.of() : bytes(r.clustering()), l, del(r.deletion()), data);
    }

    static dev.flushline.oracle.Cell cell(String column, Cell c, Bytes path) {
        return new dev.flushline.oracle.Cell(column, path, c.timestamp(), c.ttl(), c.localDeletionTime(), Bytes.of(c.valueBytes()));
    }
}

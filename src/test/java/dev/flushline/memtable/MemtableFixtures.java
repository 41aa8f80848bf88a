package dev.flushline.memtable;

import dev.flushline.table.TableOptions.MemtableKind;
import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.Hex;
import dev.flushline.data.RangeTombstone;
import dev.flushline.data.Row;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Shared schemas, memtable factories and a neutral dump of a memtable's content for the memtable
 * tests. The dump names no cell class, so memtables of different allocation modes and kinds compare
 * equal when they hold the same data.
 */
final class MemtableFixtures {
    private MemtableFixtures() {}

    static final String WIDE = "CREATE TABLE ks.wide (pk int, ck text, ck2 int, s text static, v1 int, v2 text, b blob, "
            + "tags set<text>, m map<text, int>, l list<int>, PRIMARY KEY (pk, ck, ck2)) WITH CLUSTERING ORDER BY (ck DESC, ck2 ASC)";
    static final String COMPOSITE = "CREATE TABLE ks.comp (p1 bigint, p2 text, c1 int, st int static, a text, "
            + "PRIMARY KEY ((p1, p2), c1)) WITH CLUSTERING ORDER BY (c1 DESC)";

    static TableSchema schema(String cql) {
        return CqlParser.parse(cql);
    }

    static Memtable create(MemtableKind kind, TableSchema schema, AllocationMode mode) {
        return kind.create(schema, mode, 4);
    }

    /** One line per non-empty partition, in iteration order. */
    static List<String> dump(Memtable m) {
        List<String> out = new ArrayList<>();
        for (Iterator<MemtablePartition> it = m.partitionIterator(); it.hasNext(); ) {
            MemtablePartition p = it.next();
            if (p.isEmpty()) continue;
            out.add(dump(p));
        }
        return out;
    }

    static String dump(MemtablePartition p) {
        StringBuilder sb = new StringBuilder();
        sb.append(p.key().token()).append(':').append(Hex.of(p.key().key()));
        sb.append(" pd=").append(dump(p.partitionDeletion()));
        if (p.staticRow() != null) sb.append(" static=").append(dump(p.staticRow()));
        if (p.rangeTombstones() != null) {
            for (int i = 0; i < p.rangeTombstones().rangeCount(); i++) {
                RangeTombstone rt = p.rangeTombstones().range(i);
                sb.append(" rt=[").append(dump(rt.start())).append("..").append(dump(rt.end())).append(' ')
                        .append(dump(rt.deletion())).append(']');
            }
        }
        for (RowList.Node n = p.rows().first(); n != null; n = n.next()) sb.append("\n  ").append(dump(n.row()));
        return sb.toString();
    }

    static String dump(ClusteringBound b) {
        StringBuilder sb = new StringBuilder().append(b.kind()).append('(');
        for (byte[] v : b.values()) sb.append(Hex.of(v)).append(',');
        return sb.append(')').toString();
    }

    static String dump(DeletionTime d) {
        return d.isLive() ? "LIVE" : d.markedForDeleteAt() + "@" + d.localDeletionTime();
    }

    static String dump(Row r) {
        StringBuilder sb = new StringBuilder("[");
        for (byte[] v : r.clustering()) sb.append(Hex.of(v)).append(',');
        sb.append("] live=").append(r.hasLiveness() ? r.livenessTimestamp() + "/" + r.livenessTtl() + "/" + r.livenessExpirationTime() : "-");
        sb.append(" del=").append(dump(r.deletion()));
        for (int i = 0; i < r.cells().length; i++) {
            if (r.cells()[i] != null) sb.append(" c").append(i).append('=').append(dump(r.cells()[i]));
        }
        for (int i = 0; i < r.complex().length; i++) {
            ComplexColumn cx = r.complex()[i];
            if (cx == null) continue;
            sb.append(" x").append(i).append("={").append(dump(cx.complexDeletion()));
            for (Cell c : cx.cells()) sb.append(' ').append(dump(c));
            sb.append('}');
        }
        return sb.toString();
    }

    static String dump(Cell c) {
        return (c.pathLength() > 0 ? Hex.of(c.pathBytes()) + ":" : "") + c.timestamp() + "/" + c.ttl() + "/"
                + c.localDeletionTime() + "/" + Hex.of(c.valueBytes());
    }

    /** Cells in a row counted from its content (collection elements one by one). */
    static int countCells(Row r) {
        if (r == null) return 0;
        int n = 0;
        for (Cell c : r.cells()) if (c != null) n++;
        for (ComplexColumn cx : r.complex()) if (cx != null) n += cx.cells().length;
        return n;
    }
}

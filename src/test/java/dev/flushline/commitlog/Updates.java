package dev.flushline.commitlog;

import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.Hex;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.RangeTombstone;
import dev.flushline.data.Row;

/**
 * A canonical text of every field of a partition update, independent of the cell class, so two
 * updates compare field by field (round trips through the commit log yield ArrayCells).
 */
final class Updates {
    private Updates() {}

    static String describe(PartitionUpdate u) {
        StringBuilder sb = new StringBuilder();
        sb.append("key=").append(Hex.of(u.key().key())).append(" token=").append(u.key().token());
        sb.append(" pd=").append(del(u.partitionDeletion()));
        for (RangeTombstone rt : u.rangeTombstones()) {
            sb.append("\n rt ").append(bound(rt.start())).append(" .. ").append(bound(rt.end())).append(' ').append(del(rt.deletion()));
        }
        if (u.staticRow() != null) sb.append("\n static ").append(row(u.staticRow()));
        for (Row r : u.rows()) sb.append("\n row ").append(row(r));
        return sb.toString();
    }

    static String del(DeletionTime d) {
        return d.isLive() ? "LIVE" : "(" + d.markedForDeleteAt() + "," + d.localDeletionTime() + ")";
    }

    static String values(byte[][] v) {
        StringBuilder sb = new StringBuilder("[");
        for (byte[] b : v) sb.append(b == null ? "null" : "0x" + Hex.of(b)).append(',');
        return sb.append(']').toString();
    }

    static String bound(ClusteringBound b) {
        return b.kind() + values(b.values());
    }

    static String row(Row r) {
        StringBuilder sb = new StringBuilder();
        sb.append(r.isStatic() ? "S" : values(r.clustering()));
        sb.append(" lv=").append(r.livenessTimestamp()).append('/').append(r.livenessTtl()).append('/').append(r.livenessExpirationTime());
        sb.append(" del=").append(del(r.deletion()));
        sb.append(" simple").append(r.cells().length).append('{');
        for (int i = 0; i < r.cells().length; i++) if (r.cells()[i] != null) sb.append(i).append('=').append(cell(r.cells()[i])).append(' ');
        sb.append("} complex").append(r.complex().length).append('{');
        for (int i = 0; i < r.complex().length; i++) {
            ComplexColumn c = r.complex()[i];
            if (c == null) continue;
            sb.append(i).append("=(").append(del(c.complexDeletion()));
            for (Cell x : c.cells()) sb.append(' ').append(cell(x));
            sb.append(") ");
        }
        return sb.append('}').toString();
    }

    static String cell(Cell c) {
        return "<" + c.timestamp() + "," + c.ttl() + "," + c.localDeletionTime() + ",v=" + Hex.of(c.valueBytes())
                + ",p=" + Hex.of(c.pathBytes()) + ">";
    }
}

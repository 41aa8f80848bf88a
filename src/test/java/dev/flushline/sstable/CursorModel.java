package dev.flushline.sstable;

import dev.flushline.oracle.Bytes;
import dev.flushline.oracle.Cell;
import dev.flushline.oracle.ColumnData;
import dev.flushline.oracle.ComplexColumn;
import dev.flushline.oracle.Deletion;
import dev.flushline.oracle.Liveness;
import dev.flushline.oracle.Marker;
import dev.flushline.oracle.Partition;
import dev.flushline.oracle.Row;
import dev.flushline.oracle.Unfiltered;
import dev.flushline.schema.TableSchema;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Reads sstables with {@link SSTableCursor} into the oracle's neutral model, for comparison with CassandraReader. */
final class CursorModel {
    private CursorModel() {}

    static final String[] KIND_NAMES = {"EXCL_END_BOUND", "INCL_START_BOUND", "EXCL_END_INCL_START_BOUNDARY", "STATIC_CLUSTERING",
            "CLUSTERING", "INCL_END_EXCL_START_BOUNDARY", "INCL_END_BOUND", "EXCL_START_BOUND"};

    /** Every sstable of the directory (generation order) or the one sstable a component path names. */
    static List<Partition> readAll(Path dirOrComponent, TableSchema schema) throws IOException {
        List<SSTableFiles> all = Files.isDirectory(dirOrComponent) ? SSTableFiles.inDirectory(dirOrComponent)
                : List.of(SSTableFiles.of(dirOrComponent));
        List<Partition> out = new ArrayList<>();
        for (SSTableFiles f : all) {
            try (SSTableCursor c = SSTableCursor.open(f, schema)) {
                out.addAll(read(c));
            }
        }
        return out;
    }

    static List<Partition> read(SSTableCursor c) throws IOException {
        List<Partition> out = new ArrayList<>();
        Bytes key = null;
        Deletion deletion = null;
        Row staticRow = null;
        List<Unfiltered> items = new ArrayList<>();
        int kind;
        while ((kind = c.advance()) != SSTableCursor.END) {
            switch (kind) {
                case SSTableCursor.PARTITION_START: {
                    SSTableCursor.Partition p = c.partition();
                    key = bytes(c.buffer(), p.keyOffset(), p.keyLength());
                    deletion = deletion(p.deletionTimestamp(), p.deletionLocalTime());
                    staticRow = null;
                    items = new ArrayList<>();
                    break;
                }
                case SSTableCursor.ROW: {
                    Row r = row(c);
                    if (c.row().isStatic()) staticRow = r;
                    else items.add(r);
                    break;
                }
                case SSTableCursor.MARKER: {
                    SSTableCursor.Marker m = c.marker();
                    List<Bytes> clustering = new ArrayList<>();
                    for (int i = 0; i < m.clusteringSize(); i++) clustering.add(value(c.buffer(), m.clusteringOffset(i), m.clusteringLength(i)));
                    List<Deletion> dels = m.isBoundary()
                            ? List.of(deletion(m.deletionTimestamp(), m.deletionLocalTime()), deletion(m.startDeletionTimestamp(), m.startDeletionLocalTime()))
                            : List.of(deletion(m.deletionTimestamp(), m.deletionLocalTime()));
                    items.add(new Marker(KIND_NAMES[m.kind()], clustering, dels));
                    break;
                }
                case SSTableCursor.PARTITION_END:
                    out.add(new Partition(key, deletion, staticRow, items));
                    break;
                default:
                    throw new AssertionError(kind);
            }
        }
        return out;
    }

    private static Row row(SSTableCursor c) {
        SSTableCursor.Row r = c.row();
        byte[] b = c.buffer();
        List<Bytes> clustering = new ArrayList<>();
        for (int i = 0; i < r.clusteringSize(); i++) clustering.add(value(b, r.clusteringOffset(i), r.clusteringLength(i)));
        Liveness liveness = !r.hasLiveness() ? Liveness.EMPTY
                : new Liveness(r.livenessTimestamp(), r.livenessTtl(), r.livenessExpirationTime());
        List<ColumnData> columns = new ArrayList<>();
        for (int j = 0; j < r.columnCount(); j++) {
            String name = r.column(j).name();
            if (!r.isComplex(j)) {
                columns.add(cell(b, name, r.cell(r.firstCell(j))));
                continue;
            }
            List<Cell> cells = new ArrayList<>();
            for (int k = r.firstCell(j); k < r.firstCell(j) + r.cellCount(j); k++) cells.add(cell(b, name, r.cell(k)));
            Deletion cd = deletion(r.complexDeletionTimestamp(j), r.complexDeletionLocalTime(j));
            if (cells.isEmpty() && cd.isLive()) continue; // Cassandra's builder drops an empty, undeleted complex column
            columns.add(new ComplexColumn(name, cd, cells));
        }
        return new Row(clustering, liveness, deletion(r.deletionTimestamp(), r.deletionLocalTime()), columns);
    }

    private static Cell cell(byte[] b, String column, SSTableCursor.Cell c) {
        Bytes path = c.hasPath() ? bytes(b, c.pathOffset(), c.pathLength()) : null;
        return new Cell(column, path, c.timestamp(), c.ttl(), c.localDeletionTime(), bytes(b, c.valueOffset(), c.valueLength()));
    }

    private static Deletion deletion(long ts, long ldt) {
        return ts == Long.MIN_VALUE && ldt == Long.MAX_VALUE ? Deletion.LIVE : new Deletion(ts, ldt);
    }

    private static Bytes value(byte[] b, int off, int len) {
        return len < 0 ? null : bytes(b, off, len);
    }

    static Bytes bytes(byte[] b, int off, int len) {
        return Bytes.of(Arrays.copyOfRange(b, off, off + len));
    }

    /** assertEquals with a readable failure: the first partition and item that differ. */
    static void assertSameContent(List<Partition> expected, List<Partition> actual, String what) {
        int n = Math.min(expected.size(), actual.size());
        for (int i = 0; i < n; i++) {
            Partition e = expected.get(i), a = actual.get(i);
            if (e.equals(a)) continue;
            String detail;
            if (!e.key().equals(a.key()) || !e.deletion().equals(a.deletion())) detail = "header: " + e.key() + " " + e.deletion() + " vs " + a.key() + " " + a.deletion();
            else if (!e.staticRow().equals(a.staticRow())) detail = "static row:\n  expected " + e.staticRow() + "\n  actual   " + a.staticRow();
            else {
                detail = "item count " + e.unfiltereds().size() + " vs " + a.unfiltereds().size();
                for (int k = 0; k < Math.min(e.unfiltereds().size(), a.unfiltereds().size()); k++) {
                    if (!e.unfiltereds().get(k).equals(a.unfiltereds().get(k))) {
                        detail = "item " + k + ":\n  expected " + e.unfiltereds().get(k) + "\n  actual   " + a.unfiltereds().get(k);
                        break;
                    }
                }
            }
            org.junit.jupiter.api.Assertions.fail(what + ": partition " + i + " differs, " + detail);
        }
        org.junit.jupiter.api.Assertions.assertEquals(expected.size(), actual.size(), what + ": partition count");
    }
}

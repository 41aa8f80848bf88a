package dev.flushline.compaction;

import dev.flushline.oracle.Bytes;
import dev.flushline.oracle.CassandraCompactor;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.CassandraReferenceWriter;
import dev.flushline.oracle.Cell;
import dev.flushline.oracle.ComplexColumn;
import dev.flushline.oracle.Deletion;
import dev.flushline.oracle.Liveness;
import dev.flushline.oracle.Marker;
import dev.flushline.oracle.Partition;
import dev.flushline.oracle.Row;
import dev.flushline.oracle.Unfiltered;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.EncodingStats;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.TableDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hand-made inputs for the reconciliation and purge rules one at a time, each in its own
 * partition, versions spread over three sstables written by Cassandra's writer; our compaction
 * must keep exactly what Cassandra 5.0.9's does, at three clocks (nothing purgeable; expired TTLs
 * turned into tombstones that are kept; everything dead purged).
 */
class CompactionEdgeCaseTest {
    static final String CQL = "CREATE TABLE ks.edge (pk int, ck int, s int static, v text, w int, tags set<int>, "
            + "PRIMARY KEY (pk, ck)) WITH CLUSTERING ORDER BY (ck DESC) AND compression = {'enabled': 'false'}";
    static final long N = 1_750_000_000L;

    @TempDir
    Path tmp;

    private static List<Bytes> ck(int c) {
        return List.of(Bytes.int32(c));
    }

    private static Partition p(int pk, Deletion d, Row staticRow, Unfiltered... items) {
        return new Partition(Bytes.int32(pk), d, staticRow, List.of(items));
    }

    private static Partition p(int pk, Unfiltered... items) {
        return p(pk, Deletion.LIVE, Row.EMPTY_STATIC, items);
    }

    private static Row row(int c, Liveness l, dev.flushline.oracle.ColumnData... cells) {
        return Row.of(ck(c), l, cells);
    }

    @Test
    void reconcileAndPurgeLikeCassandra() throws Exception {
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse(CQL);
        Bytes a = Bytes.utf8("abc"), b = Bytes.utf8("abd");
        List<Partition> sa = new ArrayList<>(), sb = new ArrayList<>(), sc = new ArrayList<>();
        // 1: a tombstone beats a live cell of the same timestamp.
        sa.add(p(1, row(1, Liveness.of(100), Cell.live("v", 100, a))));
        sb.add(p(1, row(1, Liveness.EMPTY, Cell.tombstone("v", 100, N))));
        // 2: a tombstone beats an expiring cell of the same timestamp.
        sa.add(p(2, row(1, Liveness.EMPTY, Cell.expiring("v", 100, 1000, N + 1000, a))));
        sb.add(p(2, row(1, Liveness.EMPTY, Cell.tombstone("v", 100, N))));
        // 3: two expiring cells with the same expiry: the lower TTL.
        sa.add(p(3, row(1, Liveness.EMPTY, Cell.expiring("v", 100, 1000, N + 1000, a))));
        sb.add(p(3, row(1, Liveness.EMPTY, Cell.expiring("v", 100, 2000, N + 1000, b))));
        // 4: two expiring cells: the later expiry.
        sa.add(p(4, row(1, Liveness.EMPTY, Cell.expiring("v", 100, 500, N + 500, b))));
        sb.add(p(4, row(1, Liveness.EMPTY, Cell.expiring("v", 100, 500, N + 900, a))));
        // 5: two live cells: the greater value bytes.
        sa.add(p(5, row(1, Liveness.EMPTY, Cell.live("v", 100, b))));
        sb.add(p(5, row(1, Liveness.EMPTY, Cell.live("v", 100, a))));
        // 6: an expiring cell beats a live one of the same timestamp; liveness: expiring beats plain.
        sa.add(p(6, row(1, Liveness.of(100), Cell.live("v", 100, b))));
        sb.add(p(6, row(1, Liveness.expiring(100, 50, N + 50), Cell.expiring("v", 100, 50, N + 50, a))));
        // 7: a row deletion at the liveness' timestamp removes it and the cells at or below it.
        sa.add(p(7, row(1, Liveness.of(100), Cell.live("v", 100, a), Cell.live("w", 101, Bytes.int32(7)))));
        sb.add(p(7, new Row(ck(1), Liveness.EMPTY, Deletion.of(100, N), List.of())));
        // 8: a complex deletion shadows older elements; newer ones stay.
        sa.add(p(8, row(1, Liveness.EMPTY, ComplexColumn.of("tags", Deletion.LIVE,
                Cell.live("tags", 100, Bytes.EMPTY).withPath(Bytes.int32(1)), Cell.live("tags", 100, Bytes.EMPTY).withPath(Bytes.int32(2))))));
        sb.add(p(8, row(1, Liveness.EMPTY, ComplexColumn.of("tags", Deletion.of(150, N)))));
        sc.add(p(8, row(1, Liveness.EMPTY, ComplexColumn.of("tags", Deletion.LIVE, Cell.live("tags", 200, Bytes.EMPTY).withPath(Bytes.int32(3))))));
        // 9: overlapping range deletions merge into bound, boundary, bound; rows under them are shadowed or not (ck DESC).
        sa.add(p(9, Marker.bound("INCL_START_BOUND", Deletion.of(100, N), Bytes.int32(10)),
                Marker.bound("INCL_END_BOUND", Deletion.of(100, N), Bytes.int32(0))));
        sb.add(p(9, Marker.bound("INCL_START_BOUND", Deletion.of(200, N + 10), Bytes.int32(15)),
                Marker.bound("INCL_END_BOUND", Deletion.of(200, N + 10), Bytes.int32(5))));
        sc.add(p(9, row(12, Liveness.of(250), Cell.live("v", 250, a)), row(7, Liveness.of(150), Cell.live("v", 150, a)),
                row(3, Liveness.of(50), Cell.live("v", 50, a))));
        // 10: a partition deletion above a range deletion: the range goes, newer rows stay.
        sa.add(p(10, Deletion.of(300, N), Row.EMPTY_STATIC));
        sb.add(p(10, Marker.bound("INCL_START_BOUND", Deletion.of(200, N), Bytes.int32(9)),
                Marker.bound("INCL_END_BOUND", Deletion.of(200, N), Bytes.int32(1))));
        sc.add(p(10, row(5, Liveness.of(400), Cell.live("v", 400, a)), row(4, Liveness.of(250), Cell.live("v", 250, a))));
        // 11: the same range deletion in two sstables is one range.
        sa.add(p(11, Marker.bound("EXCL_START_BOUND", Deletion.of(100, N), Bytes.int32(8)),
                Marker.bound("EXCL_END_BOUND", Deletion.of(100, N), Bytes.int32(2))));
        sb.add(p(11, Marker.bound("EXCL_START_BOUND", Deletion.of(100, N), Bytes.int32(8)),
                Marker.bound("EXCL_END_BOUND", Deletion.of(100, N), Bytes.int32(2))));
        // 12: statics reconcile like any row.
        sa.add(p(12, Deletion.LIVE, Row.staticRow(Cell.live("s", 100, Bytes.int32(1))), row(1, Liveness.of(90))));
        sb.add(p(12, Deletion.LIVE, Row.staticRow(Cell.tombstone("s", 100, N))));
        // 13: short TTLs that expire at the later clocks.
        sa.add(p(13, row(1, Liveness.expiring(100, 10, N + 10), Cell.expiring("v", 100, 10, N + 10, a), Cell.live("w", 100, Bytes.int32(1)))));
        sb.add(p(13, row(2, Liveness.EMPTY, Cell.expiring("w", 120, 20, N + 20, Bytes.int32(2)))));
        // 14: a range deletion that only one input holds, over that input's own older rows.
        sc.add(p(14, Marker.bound("INCL_START_BOUND", Deletion.of(500, N), Bytes.int32(6)), row(5, Liveness.of(400), Cell.live("v", 400, a)),
                Marker.bound("INCL_END_BOUND", Deletion.of(500, N), Bytes.int32(4))));

        Path in = Files.createDirectories(tmp.resolve("in"));
        for (List<Partition> s : List.of(sa, sb, sc)) {
            CassandraReferenceWriter.write(in, CQL, s, EncodingStats.TIMESTAMP_EPOCH, EncodingStats.DELETION_TIME_EPOCH, 0, s.size(), false);
        }
        long[][] clocks = {{N, N - 864_000}, {N + 100, N - 1}, {N + 100, N + 50}};
        for (int c = 0; c < clocks.length; c++) {
            long now = clocks[c][0], gcBefore = clocks[c][1];
            List<SSTableFiles> inputs = SSTableFiles.inDirectory(in);
            Compactor.Options o = Compactor.Options.builder(now, gcBefore).build();
            Path ours = tmp.resolve("ours-" + c);
            Compactor.Result r = new Compactor(schema, inputs, o).run(TableDirectory.open(ours));
            List<Path> data = new ArrayList<>();
            for (SSTableFiles f : inputs) data.add(f.path(Component.DATA));
            Path ref = CassandraCompactor.compact(data, CQL, tmp.resolve("ref-" + c), now, gcBefore);
            List<Partition> expected = CassandraReader.readAll(ref, CQL);
            List<Partition> actual = CassandraReader.readAll(ours, CQL);
            assertEquals(expected.size(), actual.size(), "clock " + c);
            for (int i = 0; i < expected.size(); i++) assertEquals(expected.get(i), actual.get(i), "clock " + c + " partition " + expected.get(i).key());
            assertArrayEquals(Files.readAllBytes(ref), Files.readAllBytes(r.published.get(0)), "clock " + c + ": Data.db bytes");
            if (c == 1) assertTrue(r.cellsPurged == 0, "expired cells are tombstones, not purged, at clock 1");
            if (c == 2) assertTrue(r.cellsPurged > 0, "clock 2 purges");
        }
    }
}

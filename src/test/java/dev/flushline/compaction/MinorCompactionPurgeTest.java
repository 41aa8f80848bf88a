package dev.flushline.compaction;

import dev.flushline.oracle.Bytes;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.CassandraReferenceWriter;
import dev.flushline.oracle.Cell;
import dev.flushline.oracle.Deletion;
import dev.flushline.oracle.Liveness;
import dev.flushline.oracle.Marker;
import dev.flushline.oracle.Partition;
import dev.flushline.oracle.Row;
import dev.flushline.oracle.Unfiltered;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.EncodingStats;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.TableDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A minor compaction purges a tombstone past gc grace only if its timestamp is below the max
 * purgeable timestamp (Cassandra's rule: data it shadows may sit in an sstable or memtable left
 * out). Every kind of tombstone is past gc grace here, at timestamps on both sides of the bound:
 * a cell tombstone, a partition deletion, a range deletion, and an expired TTL cell (which becomes
 * a tombstone from its write time when it may not be purged). Long.MAX_VALUE (a major compaction,
 * what {@code flushline compact} passes) purges all of them; 0 purges none.
 */
class MinorCompactionPurgeTest {
    static final String CQL = "CREATE TABLE ks.purge (pk int, ck int, v text, w int, PRIMARY KEY (pk, ck)) "
            + "WITH compression = {'enabled': 'false'}";
    static final long N = 1_750_000_000L;
    static final long NOW = N + 100, GC_BEFORE = N + 50;
    static final long BOUND = 250;

    @TempDir
    Path tmp;

    private static Partition p(int pk, Deletion d, Unfiltered... items) {
        return new Partition(Bytes.int32(pk), d, Row.EMPTY_STATIC, List.of(items));
    }

    private static Row row(int c, Liveness l, dev.flushline.oracle.ColumnData... cells) {
        return Row.of(List.of(Bytes.int32(c)), l, cells);
    }

    private List<Partition> compact(TableSchema schema, Path in, long maxPurgeable, String name) throws Exception {
        Compactor.Options o = Compactor.Options.builder(NOW, GC_BEFORE).maxPurgeableTimestamp(maxPurgeable).build();
        Path out = tmp.resolve(name);
        Compactor.Result r = new Compactor(schema, SSTableFiles.inDirectory(in), o).run(TableDirectory.open(out));
        return r.published.isEmpty() ? List.of() : CassandraReader.readAll(out, CQL);
    }

    @Test
    void tombstonesAtOrAboveTheBoundSurviveAMinorCompaction() throws Exception {
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse(CQL);
        Bytes a = Bytes.utf8("a");
        List<Partition> sa = new ArrayList<>(), sb = new ArrayList<>();
        // 1: two cell tombstones, below and above the bound.
        sa.add(p(1, Deletion.LIVE, row(1, Liveness.EMPTY, Cell.tombstone("v", 100, N))));
        sb.add(p(1, Deletion.LIVE, row(1, Liveness.EMPTY, Cell.tombstone("w", 300, N))));
        // 2 and 3: partition deletions below and above.
        sa.add(p(2, Deletion.of(200, N)));
        sb.add(p(3, Deletion.of(400, N)));
        // 4: an expired TTL cell above the bound: a tombstone from its write time, kept.
        sa.add(p(4, Deletion.LIVE, row(1, Liveness.EMPTY, Cell.expiring("v", 500, 10, N + 10, a))));
        // 5 and 6: range deletions below and above.
        sa.add(p(5, Deletion.LIVE, Marker.bound("INCL_START_BOUND", Deletion.of(100, N), Bytes.int32(1)),
                Marker.bound("INCL_END_BOUND", Deletion.of(100, N), Bytes.int32(5))));
        sb.add(p(6, Deletion.LIVE, Marker.bound("INCL_START_BOUND", Deletion.of(300, N), Bytes.int32(1)),
                Marker.bound("INCL_END_BOUND", Deletion.of(300, N), Bytes.int32(5))));
        Path in = Files.createDirectories(tmp.resolve("in"));
        for (List<Partition> s : List.of(sa, sb)) {
            CassandraReferenceWriter.write(in, CQL, s, EncodingStats.TIMESTAMP_EPOCH, EncodingStats.DELETION_TIME_EPOCH, 0, s.size(), false);
        }

        assertEquals(List.of(), compact(schema, in, Long.MAX_VALUE, "major"), "a major compaction purges every tombstone past gc grace");

        List<Partition> minor = compact(schema, in, BOUND, "minor");
        List<Partition> expected = new ArrayList<>(List.of(
                p(1, Deletion.LIVE, row(1, Liveness.EMPTY, Cell.tombstone("w", 300, N))),
                p(3, Deletion.of(400, N)),
                p(4, Deletion.LIVE, row(1, Liveness.EMPTY, Cell.tombstone("v", 500, N))),
                p(6, Deletion.LIVE, Marker.bound("INCL_START_BOUND", Deletion.of(300, N), Bytes.int32(1)),
                        Marker.bound("INCL_END_BOUND", Deletion.of(300, N), Bytes.int32(5)))));
        sortLike(expected, minor);
        assertEquals(expected, minor, "below " + BOUND + " purged, at or above kept");

        List<Partition> none = compact(schema, in, 0, "none");
        assertEquals(6, none.size(), "a bound of 0 purges nothing: " + none);
        assertTrue(none.stream().anyMatch(q -> q.equals(p(2, Deletion.of(200, N)))), "partition deletion 200 kept: " + none);
    }

    /** Partitions come back in token order; put the expected list in the same order (by key). */
    private static void sortLike(List<Partition> expected, List<Partition> actual) {
        List<Partition> sorted = new ArrayList<>();
        for (Partition x : actual) {
            for (Partition e : expected) {
                if (e.key().equals(x.key())) sorted.add(e);
            }
        }
        if (sorted.size() == expected.size()) {
            expected.clear();
            expected.addAll(sorted);
        }
    }
}

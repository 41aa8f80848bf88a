package dev.flushline.oracle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.IntStream;

import org.apache.cassandra.io.sstable.CQLSSTableWriter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A ~300 KiB partition spans several 64 KiB index blocks, so Index.db carries a promoted row index and
 * point/slice reads through BigTableReader.rowIterator seek with it. Checks that the oracle's reads return the
 * right rows, forwards and reversed, on CQLSSTableWriter output and on the reference writer's copies.
 */
class LargePartitionIndexTest {
    static final String CQL = "CREATE TABLE ks.oracle_big (pk int, ck int, v text, PRIMARY KEY (pk, ck))"
            + " WITH compression = {'enabled': 'false'}";
    static final int ROWS = 300;
    static final long TS = 42;

    @TempDir
    static Path tmp;

    static Path cqlDir;

    @BeforeAll
    static void write() throws IOException {
        CassandraOracle.init();
        cqlDir = Files.createDirectories(tmp.resolve("cql"));
        try (CQLSSTableWriter writer = CQLSSTableWriter.builder().inDirectory(cqlDir.toString()).forTable(CQL)
                .using("INSERT INTO ks.oracle_big (pk, ck, v) VALUES (?, ?, ?) USING TIMESTAMP " + TS).build()) {
            for (int ck = 0; ck < ROWS; ck++) {
                writer.addRow(1, ck, value(ck));
            }
            for (int ck = 0; ck < 3; ck++) {
                writer.addRow(2, ck, value(ck));
            }
        }
    }

    static String value(int ck) {
        return ("row" + ck + "-").repeat(200).substring(0, 1000);
    }

    static Row row(int ck) {
        return Row.of(List.of(Bytes.int32(ck)), Liveness.of(TS), Cell.live("v", TS, Bytes.utf8(value(ck))));
    }

    static List<Unfiltered> rows(int fromInclusive, int toInclusive) {
        return IntStream.rangeClosed(fromInclusive, toInclusive).mapToObj(LargePartitionIndexTest::row).map(Unfiltered.class::cast).toList();
    }

    static ClusteringSlice slice(int from, int to) {
        return ClusteringSlice.closed(List.of(Bytes.int32(from)), List.of(Bytes.int32(to)));
    }

    @Test
    void cqlWriterOutput() {
        checkReads(cqlDir);
    }

    @Test
    void referenceWriterCopies() throws IOException {
        List<Partition> model = CassandraReader.readAll(cqlDir, CQL);
        for (boolean lz4 : new boolean[]{false, true}) {
            Path dir = Files.createDirectories(tmp.resolve("ref-" + lz4));
            CassandraReferenceWriter.write(dir, CQL, model, TS, Long.MAX_VALUE, 0, model.size(), lz4);
            checkReads(dir);
            assertEquals(List.of(), CassandraVerifier.verify(dir, CQL));
        }
    }

    private static void checkReads(Path dir) {
        Bytes big = Bytes.int32(1);
        try (CassandraReader reader = CassandraReader.open(dir, CQL)) {
            CassandraReader.SSTable sstable = reader.only();
            int blocks = sstable.indexBlockCount(big);
            assertTrue(blocks >= 4, "~300 KiB must span at least 4 index blocks of 64 KiB, got " + blocks);
            assertEquals(0, sstable.indexBlockCount(Bytes.int32(2)), "3 small rows need no promoted index");

            Partition whole = sstable.read(big).orElseThrow();
            assertEquals(rows(0, ROWS - 1), whole.unfiltereds());
            assertEquals(whole, sstable.readAll().stream().filter(p -> p.key().equals(big)).findFirst().orElseThrow());

            // Slices crossing the first block boundary (~64 rows per block), in the middle, and at the end.
            assertEquals(rows(55, 75), sstable.read(big, slice(55, 75), false).orElseThrow().unfiltereds());
            assertEquals(reversed(rows(55, 75)), sstable.read(big, slice(55, 75), true).orElseThrow().unfiltereds());
            assertEquals(rows(150, 150), sstable.read(big, slice(150, 150), false).orElseThrow().unfiltereds());
            ClusteringSlice tail = new ClusteringSlice(List.of(Bytes.int32(250)), false, List.of(), true);
            assertEquals(rows(251, ROWS - 1), sstable.read(big, tail, false).orElseThrow().unfiltereds());
            assertEquals(reversed(rows(251, ROWS - 1)), sstable.read(big, tail, true).orElseThrow().unfiltereds());
            assertEquals(List.of(), sstable.read(big, slice(1000, 2000), false).orElseThrow().unfiltereds());
        }
    }

    private static List<Unfiltered> reversed(List<Unfiltered> rows) {
        List<Unfiltered> copy = new ArrayList<>(rows);
        Collections.reverse(copy);
        return copy;
    }
}

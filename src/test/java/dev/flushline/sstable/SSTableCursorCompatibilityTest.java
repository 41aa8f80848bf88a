package dev.flushline.sstable;

import dev.flushline.data.PartitionUpdate;
import dev.flushline.flush.FlushResult;
import dev.flushline.flush.FlushWriter;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.CassandraReferenceWriter;
import dev.flushline.oracle.Partition;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.testing.RandomSchemas;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Our cursor against cassandra-all 5.0.9's SSTableReader: for random schemas and operations,
 * flushed by our writer and by Cassandra's own writer (SSTableTxnWriter, with other EncodingStats
 * than ours), compressed with various chunk lengths and not, the cursor returns exactly the
 * partitions, rows, cells, timestamps, TTLs, local deletion times and deletions Cassandra returns;
 * and {@link SSTableVerifier} (with value validation) passes on both.
 */
class SSTableCursorCompatibilityTest {
    static final int[] CHUNK_KB = {4, 16, 64};

    @TempDir
    Path tmp;

    static LongStream seeds() {
        return LongStream.rangeClosed(1, 24);
    }

    static String withCompression(String cql, long seed) {
        String option = seed % 2 == 0
                ? "compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': " + CHUNK_KB[(int) (seed / 2 % CHUNK_KB.length)] + "}"
                : "compression = {'enabled': 'false'}";
        return cql + (cql.contains(" WITH ") ? " AND " : " WITH ") + option;
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void readsWhatCassandraReads(long seed) throws Exception {
        CassandraOracle.init();
        String cql = withCompression(RandomSchemas.randomTable(seed), seed);
        TableSchema schema = CqlParser.parse(cql);
        long now = seed % 5 == 0 ? 3_600_000_000L : 1_750_000_000L; // far-future clocks too
        Memtable m = new SkipListMemtable(schema, AllocationMode.values()[(int) (seed % AllocationMode.values().length)]);
        for (PartitionUpdate u : new RandomUpdates(schema, seed, now, 15, 12).next(400)) m.apply(u);
        m.seal();
        Path ours = tmp.resolve("ours");
        EncodingStats stats;
        try {
            FlushWriter w = new FlushWriter(m);
            FlushResult r = w.write(m.partitionIterator(), m.partitionCount(), TableDirectory.open(ours), true, null, 0);
            assertTrue(r != null);
            stats = w.header().stats();
        } finally {
            m.discard();
        }
        List<Partition> expected = CassandraReader.readAll(ours, cql);
        assertFalse(expected.isEmpty());
        CursorModel.assertSameContent(expected, CursorModel.readAll(ours, schema), "seed " + seed + ": our flush");
        for (SSTableFiles f : SSTableFiles.inDirectory(ours)) SSTableVerifier.verify(f, schema, true);

        // Cassandra's writer, with NO_STATS-like bases on odd seeds and ours shifted on even ones.
        Path ref = Files.createDirectories(tmp.resolve("ref"));
        boolean lz4 = seed % 2 == 0;
        long minTs = seed % 4 < 2 ? EncodingStats.TIMESTAMP_EPOCH : stats.minTimestamp() - 17;
        long minLdt = seed % 4 < 2 ? EncodingStats.DELETION_TIME_EPOCH : stats.minLocalDeletionTime();
        int minTtl = seed % 4 < 2 ? 0 : stats.minTtl();
        Path refData = CassandraReferenceWriter.write(ref, cql, expected, minTs, minLdt, minTtl, expected.size(), lz4);
        List<Partition> cassandraWritten = CassandraReader.readAll(refData, cql);
        CursorModel.assertSameContent(cassandraWritten, CursorModel.readAll(refData, schema), "seed " + seed + ": Cassandra's writer");
        SSTableVerifier.verify(SSTableFiles.of(refData), schema, true);
    }

    /** Partitions above 64 KiB, so Index.db holds promoted row indexes; the scan must not care. */
    @Test
    void largePartitionsWithPromotedIndexes() throws Exception {
        CassandraOracle.init();
        for (boolean lz4 : new boolean[] {false, true}) {
            String cql = "CREATE TABLE ks.big" + (lz4 ? "z" : "u") + " (pk int, ck int, s text static, a text, b blob, c bigint, "
                    + "t set<text>, PRIMARY KEY (pk, ck)) WITH "
                    + (lz4 ? "compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': 16}" : "compression = {'enabled': 'false'}");
            TableSchema schema = CqlParser.parse(cql);
            Memtable m = new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP);
            RandomUpdates gen = new RandomUpdates(schema, lz4 ? 7 : 8, 1_750_000_000L, 2, 8000);
            gen.partitionDeleteChance = 0; // a partition deletion would shadow everything written before it
            gen.rangeDeleteChance = 0.002;
            for (PartitionUpdate u : gen.next(24000)) m.apply(u);
            m.seal();
            Path ours = tmp.resolve("big-ours-" + lz4);
            try {
                new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), TableDirectory.open(ours), true, null, 0);
            } finally {
                m.discard();
            }
            List<Partition> expected;
            try (CassandraReader reader = CassandraReader.open(ours, cql)) {
                CassandraReader.SSTable s = reader.only();
                expected = s.readAll();
                int indexed = 0;
                for (Partition p : expected) {
                    if (s.indexBlockCount(p.key()) > 1) indexed++;
                }
                assertTrue(indexed > 0, "some partition has a promoted index; Data.db " + Files.size(s.dataFile()) + " bytes, " + expected.size() + " partitions, " + s.indexBlockCount(expected.get(0).key()));
            }
            CursorModel.assertSameContent(expected, CursorModel.readAll(ours, schema), "our flush, lz4=" + lz4);
            Path ref = Files.createDirectories(tmp.resolve("big-ref-" + lz4));
            Path refData = CassandraReferenceWriter.write(ref, cql, expected, EncodingStats.TIMESTAMP_EPOCH,
                    EncodingStats.DELETION_TIME_EPOCH, 0, expected.size(), lz4);
            CursorModel.assertSameContent(CassandraReader.readAll(refData, cql), CursorModel.readAll(refData, schema), "Cassandra's writer, lz4=" + lz4);
        }
    }
}

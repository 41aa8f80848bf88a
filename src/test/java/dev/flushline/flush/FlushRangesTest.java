package dev.flushline.flush;

import dev.flushline.data.TokenRanges;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.table.TableOptions;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.CassandraVerifier;
import dev.flushline.oracle.Partition;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FlushRangesTest {
    static final String CQL = "CREATE TABLE ks.r (pk bigint, ck int, v text, s int static, m map<text, int>, PRIMARY KEY (pk, ck)) "
            + "WITH compression = {'class': 'LZ4Compressor'}";

    @TempDir
    Path tmp;

    static void assertTiles(TokenRanges r) {
        assertEquals(Long.MIN_VALUE, r.lo(0));
        assertEquals(Long.MAX_VALUE, r.hi(r.size() - 1));
        for (int i = 0; i < r.size(); i++) {
            assertTrue(r.lo(i) <= r.hi(i), "non-empty range " + i + ": " + r);
            if (i > 0) assertEquals(r.hi(i - 1) + 1, r.lo(i), "no gap or overlap at " + i + ": " + r);
        }
    }

    @Test
    void rangesCoverTheRingWithNoGapAndNoOverlap() {
        for (int n : new int[] {1, 2, 3, 4, 7, 16, 1000}) {
            TokenRanges r = TokenRanges.even(n);
            assertEquals(n, r.size());
            assertTiles(r);
        }
        Random random = new Random(5);
        for (int k = 0; k < 100; k++) {
            long[] splits = random.longs(1 + random.nextInt(8)).distinct().filter(t -> t != Long.MIN_VALUE).sorted().toArray();
            TokenRanges r = TokenRanges.fromSplits(splits);
            assertEquals(splits.length + 1, r.size());
            assertTiles(r);
            for (int i = 0; i < splits.length; i++) assertEquals(splits[i], r.lo(i + 1));
        }
        assertThrows(IllegalArgumentException.class, () -> TokenRanges.fromSplits(new long[] {5, 5}));
        assertThrows(IllegalArgumentException.class, () -> TokenRanges.fromSplits(new long[] {Long.MIN_VALUE}));
    }

    @Test
    void smallRangesMergeIntoTheirNeighbours() {
        TokenRanges r = TokenRanges.even(8);
        long[] counts = {100, 1, 1, 100, 0, 0, 0, 2};
        TokenRanges m = FlushJob.mergeSmall(r, counts, 204, 204_000, 50_000); // 1000 bytes per partition, min 50 partitions
        assertTiles(m);
        assertEquals(2, m.size(), m.toString()); // [100] [1,1,100,0,0,0,2 -> tail merged back]
        assertEquals(r.hi(0), m.hi(0));
        assertTrue(FlushJob.mergeSmall(TokenRanges.even(4), new long[] {1, 1, 1, 1}, 4, 4, 0).size() == 4, "min 0 never merges");
    }

    private Memtable filled(TableSchema schema, TableOptions.MemtableKind kind) {
        Memtable m = kind.create(schema, AllocationMode.OFFHEAP_OBJECTS, 4);
        RandomUpdates gen = new RandomUpdates(schema, 42, 1_750_000_000L, 400, 20);
        for (PartitionUpdate u : gen.next(4000)) m.apply(u);
        m.seal();
        return m;
    }

    @Test
    void splitParallelFlushReadsBackLikeTheUnsplitOne() throws Exception {
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse(CQL);
        for (TableOptions.MemtableKind kind : TableOptions.MemtableKind.values()) {
            Memtable m = filled(schema, kind);
            try {
                List<Partition> expected = MemtableModel.of(m);
                Path whole = tmp.resolve("whole-" + kind), split = tmp.resolve("split-" + kind);
                FlushJob.run(m, FlushJob.Options.simple(whole));
                List<FlushOutcome> parts = FlushJob.run(m, FlushJob.Options.builder(split).ranges(4).flushThreads(2).build());
                assertEquals(4, parts.size(), "400 keys over 4 ranges: every range has partitions");
                TokenRanges ranges = TokenRanges.even(4);
                List<Partition> union = new ArrayList<>();
                for (FlushOutcome o : parts) {
                    List<Partition> ps = CassandraReader.readAll(o.result.dataPath, CQL);
                    long first = PartitionKey.of(ps.get(0).key().toArray()).token();
                    long last = PartitionKey.of(ps.get(ps.size() - 1).key().toArray()).token();
                    int range = -1;
                    for (int i = 0; i < ranges.size(); i++) if (first >= ranges.lo(i) && first <= ranges.hi(i)) range = i;
                    assertTrue(last <= ranges.hi(range), "sstable " + o.result.dataPath + " stays inside its range");
                    union.addAll(ps);
                }
                union.sort((a, b) -> PartitionKey.of(a.key().toArray()).compareTo(PartitionKey.of(b.key().toArray())));
                assertEquals(expected, union, "split output has the same content");
                assertEquals(expected, CassandraReader.readAll(schema.directoryUnder(whole), CQL));
                assertEquals(List.of(), CassandraVerifier.verify(schema.directoryUnder(split), CQL));
            } finally {
                m.discard();
            }
        }
    }

    @Test
    void aShardedMemtableFlushesOneSstablePerShardOnSeveralThreads() throws Exception {
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse(CQL);
        Memtable m = filled(schema, TableOptions.MemtableKind.SHARDED); // 4 shards
        try {
            List<FlushOutcome> parts = FlushJob.run(m, FlushJob.Options.builder(tmp.resolve("shards")).flushThreads(2).build());
            assertEquals(4, parts.size(), "one sstable per shard");
            List<Partition> union = new ArrayList<>();
            for (FlushOutcome o : parts) union.addAll(CassandraReader.readAll(o.result.dataPath, CQL));
            union.sort((a, b) -> PartitionKey.of(a.key().toArray()).compareTo(PartitionKey.of(b.key().toArray())));
            assertEquals(MemtableModel.of(m), union);
            // One flush thread keeps the single-sstable output.
            assertEquals(1, FlushJob.run(m, FlushJob.Options.simple(tmp.resolve("one"))).size());
        } finally {
            m.discard();
        }
    }

    @Test
    void explicitSplitTokensAndMinimumSize() throws Exception {
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse(CQL);
        Memtable m = filled(schema, TableOptions.MemtableKind.SKIPLIST);
        try {
            long[] splits = {-1_000_000_000_000_000_000L, 0L, 4_000_000_000_000_000_000L};
            List<FlushOutcome> parts = FlushJob.run(m, FlushJob.Options.builder(tmp.resolve("explicit")).flushThreads(2).splitTokens(splits).build());
            assertEquals(4, parts.size());
            long rows = 0;
            for (FlushOutcome o : parts) rows += o.result.rows;
            assertEquals(m.rowCount(), rows);
            // A minimum as large as the whole memtable merges everything into one sstable.
            long all = m.onHeapBytes() + m.offHeapBytes();
            List<FlushOutcome> one = FlushJob.run(m, FlushJob.Options.builder(tmp.resolve("merged")).ranges(8).flushThreads(2).minSSTableBytes(all).build());
            assertEquals(1, one.size());
            assertEquals(MemtableModel.of(m), CassandraReader.readAll(one.get(0).result.dataPath, CQL));
        } finally {
            m.discard();
        }
    }

    /**
     * A max sstable size cuts a flush at partition boundaries: the pieces hold every partition
     * once and whole, in token order across pieces, each piece reaches the limit (but the last)
     * and passes it by at most its last partition; bloom filters find every key. A limit above the
     * whole flush writes the same bytes as no limit.
     */
    @Test
    void maxSSTableSizeCutsAtPartitionBoundaries() throws Exception {
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse(CQL);
        Memtable m = filled(schema, TableOptions.MemtableKind.HASH);
        try {
            List<Partition> expected = MemtableModel.of(m);
            Path whole = tmp.resolve("whole");
            List<FlushOutcome> one = FlushJob.run(m, FlushJob.Options.simple(whole));
            long total = one.get(0).result.uncompressedBytes;
            long max = total / 7;
            for (int ranges : new int[] {1, 3}) {
                Path cut = tmp.resolve("cut" + ranges);
                List<FlushOutcome> parts = FlushJob.run(m, FlushJob.Options.builder(cut).ranges(ranges).flushThreads(2).maxSSTableBytes(max).build());
                assertTrue(parts.size() >= 7, parts.size() + " pieces for a limit of 1/7");
                List<Partition> union = new ArrayList<>();
                for (FlushOutcome o : parts) {
                    List<Partition> ps = CassandraReader.readAll(o.result.dataPath, CQL);
                    assertEquals(o.result.partitions, ps.size());
                    // 400 partitions: a piece passes the limit by one partition, far less than 1/20 of the flush
                    assertTrue(o.result.uncompressedBytes < max + total / 20, o.result.uncompressedBytes + " bytes in a piece, limit " + max);
                    try (CassandraReader r = CassandraReader.open(o.result.dataPath, CQL)) {
                        for (Partition p : ps) assertTrue(r.only().bloomFilterMayContain(p.key()), "bloom filter misses " + p.key());
                    }
                    union.addAll(ps);
                }
                union.sort((a, b) -> PartitionKey.of(a.key().toArray()).compareTo(PartitionKey.of(b.key().toArray())));
                assertEquals(expected, union, "cut output has the same content, every partition once and whole");
                int full = 0;
                for (FlushOutcome o : parts) if (o.result.uncompressedBytes >= max) full++;
                // every piece but the last of each range reaches the limit
                assertTrue(full >= parts.size() - ranges, full + " of " + parts.size() + " pieces reach the limit");
            }
            Path big = tmp.resolve("big");
            List<FlushOutcome> same = FlushJob.run(m, FlushJob.Options.builder(big).maxSSTableBytes(total * 2).build());
            assertEquals(1, same.size());
            assertTrue(java.util.Arrays.equals(java.nio.file.Files.readAllBytes(one.get(0).result.dataPath),
                    java.nio.file.Files.readAllBytes(same.get(0).result.dataPath)), "a limit above the flush changes no byte");
        } finally {
            m.discard();
        }
    }
}

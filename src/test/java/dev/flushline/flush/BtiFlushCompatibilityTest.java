package dev.flushline.flush;

import dev.flushline.data.PartitionUpdate;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.ShardedSkipListMemtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.SSTableVersion;
import dev.flushline.testing.RandomSchemas;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Our da (BTI) flush against Cassandra 5.0.9's BTI writer of the same partitions, over random
 * schemas (every supported type, 0..3 clustering columns ASC or DESC, statics, every codec, every
 * allocation mode): Cassandra reads every partition back equal, sstableverify passes, and every
 * component, Partitions.db and Rows.db included, is byte-identical to Cassandra's.
 *
 * <p>Two shapes: many small partitions (Partitions.db's trie over many keys, Rows.db empty) and
 * a few wide partitions of thousands of rows with range deletions (a row index trie per
 * partition, with open deletions at block boundaries), which is where Rows.db gets its bytes.
 */
class BtiFlushCompatibilityTest {
    static LongStream seeds() {
        return LongStream.rangeClosed(1, 16);
    }

    @TempDir
    Path tmp;

    /**
     * Seeds whose wide partitions got a row index: most must (a schema whose clusterings come from
     * a small domain, such as a boolean, has few distinct rows and may stay under two blocks).
     */
    static final AtomicInteger WIDE_WITH_ROW_INDEX = new AtomicInteger(), WIDE_RUNS = new AtomicInteger();

    @AfterAll
    static void mostWidePartitionsHadRowIndexes() {
        assertTrue(WIDE_WITH_ROW_INDEX.get() * 2 >= WIDE_RUNS.get(),
                WIDE_WITH_ROW_INDEX.get() + " of " + WIDE_RUNS.get() + " wide flushes wrote a row index: Rows.db is barely compared");
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void manySmallPartitions(long seed) throws Exception {
        flushAndCompare(seed, 40, 6, 600, false);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void wideRowIndexedPartitions(long seed) throws Exception {
        flushAndCompare(seed + 1000, 3, 1500, 4000, true);
    }

    private void flushAndCompare(long seed, int keys, int clusterings, int updates, boolean wide) throws Exception {
        CassandraOracle.init();
        String compression = FlushChecks.COMPRESSIONS[(int) (seed % FlushChecks.COMPRESSIONS.length)];
        String cql = FlushChecks.withCompressionMap(RandomSchemas.randomTable(seed), compression);
        TableSchema schema = CqlParser.parse(cql);
        AllocationMode mode = AllocationMode.values()[(int) (seed % AllocationMode.values().length)];
        Memtable m = seed % 3 == 0 ? new ShardedSkipListMemtable(schema, mode, 4) : new SkipListMemtable(schema, mode);
        RandomUpdates random = new RandomUpdates(schema, seed, 1_750_000_000L, keys, clusterings);
        if (wide) {
            random.rangeDeleteChance = 0.02;
            random.partitionDeleteChance = 0.001;
        }
        for (PartitionUpdate u : random.next(updates)) m.apply(u);
        m.seal();
        try {
            FlushChecks.Flushed f = FlushChecks.flushAndCheck(tmp, cql, m, FlushCompression.TABLE, true, SSTableVersion.DA);
            if (wide) {
                try (var files = Files.list(f.tableDir())) {
                    Path rows = files.filter(p -> p.getFileName().toString().endsWith("Rows.db")).findFirst().orElseThrow();
                    WIDE_RUNS.incrementAndGet();
                    if (Files.size(rows) > 0) WIDE_WITH_ROW_INDEX.incrementAndGet();
                }
            }
        } finally {
            m.discard();
        }
    }
}

package dev.flushline.flush;

import dev.flushline.data.PartitionUpdate;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.HashMemtable;
import dev.flushline.memtable.ShardedSkipListMemtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.testing.RandomSchemas;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.stream.LongStream;

/**
 * Property test over random schemas: column counts and types from the supported set, 0..3
 * clustering columns each ASC or DESC, statics or not, no compression or any codec, every allocation mode;
 * each flush passes the three compatibility checks. Small memtables keep 30 seeds fast.
 */
class RandomSchemaFlushTest {
    static LongStream seeds() {
        return LongStream.rangeClosed(1, 30);
    }

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomSchemaFlushIsCompatible(long seed) throws Exception {
        CassandraOracle.init();
        String compression = FlushChecks.COMPRESSIONS[(int) (seed % FlushChecks.COMPRESSIONS.length)];
        String cql = FlushChecks.withCompressionMap(RandomSchemas.randomTable(seed), compression);
        // mostly the table's codec; every seventh seed as a node flushes by default, every eleventh with Noop
        FlushCompression flushCompression = seed % 7 == 0 ? FlushCompression.FAST : seed % 11 == 0 ? FlushCompression.NONE
                : FlushCompression.TABLE;
        TableSchema schema = CqlParser.parse(cql);
        AllocationMode mode = AllocationMode.values()[(int) (seed % AllocationMode.values().length)];
        Memtable m = seed % 3 == 0 ? new ShardedSkipListMemtable(schema, mode, 4) : seed % 3 == 1 ? new HashMemtable(schema, mode)
                : new SkipListMemtable(schema, mode);
        long now = seed % 5 == 0 ? 3_600_000_000L : 1_750_000_000L; // some far-future clocks too
        for (PartitionUpdate u : new RandomUpdates(schema, seed, now, 15, 12).next(400)) m.apply(u);
        m.seal();
        try {
            FlushChecks.flushAndCheck(tmp, cql, m, flushCompression, true, dev.flushline.sstable.SSTableVersion.OA);
        } finally {
            m.discard();
        }
    }
}

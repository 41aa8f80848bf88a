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
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;


/**
 * Our flush, read by cassandra-all 5.0.9: it must return exactly the partitions, rows, cells,
 * timestamps, TTLs and deletions the memtable holds; its verifier must pass; and Cassandra's own
 * writer (SSTableTxnWriter in a FLUSH transaction, with the same flush_compression), given the same
 * partitions, EncodingStats and key count, must produce the same bytes for Data.db, Index.db,
 * Summary.db, Filter.db, Statistics.db, CompressionInfo.db or CRC.db, Digest.crc32 and TOC.txt,
 * with no compression and with every codec.
 */
class FlushCompatibilityTest {
    static final long NOW = 1_750_000_000L;

    static final String[] SCHEMAS = {
            "CREATE TABLE ks.wide (pk int, ck text, ck2 int, s text static, v1 int, v2 text, b blob, tags set<text>, "
                    + "m map<text, int>, l list<int>, PRIMARY KEY (pk, ck, ck2)) WITH CLUSTERING ORDER BY (ck DESC, ck2 ASC)",
            "CREATE TABLE ks.plain (pk text PRIMARY KEY, a int, b text, c bigint, d double)",
            "CREATE TABLE ks.types (p1 bigint, p2 text, c1 timeuuid, c2 date, a ascii, bo boolean, de decimal, fl float, "
                    + "i inet, si smallint, t time, ts timestamp, ti tinyint, u uuid, vi varint, fr frozen<list<int>>, "
                    + "fm frozen<map<int, text>>, st int static, PRIMARY KEY ((p1, p2), c1, c2)) WITH CLUSTERING ORDER BY (c1 DESC, c2 ASC)",
    };

    /**
     * Every schema in every allocation mode, twice; the compression cycles through
     * {@link FlushChecks#COMPRESSIONS} (none and every codec), the first eight cases under
     * flush_compression table, the next eight fast, the rest none.
     */
    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        long seed = 1;
        int k = 0;
        FlushCompression[] modes = {FlushCompression.TABLE, FlushCompression.FAST, FlushCompression.NONE};
        for (String cql : SCHEMAS) {
            for (AllocationMode mode : AllocationMode.values()) {
                for (int twice = 0; twice < 2; twice++, k++) {
                    out.add(Arguments.of(cql, mode, FlushChecks.COMPRESSIONS[k % FlushChecks.COMPRESSIONS.length],
                            modes[Math.min(k / FlushChecks.COMPRESSIONS.length, modes.length - 1)], seed++));
                }
            }
        }
        return out.stream();
    }

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "[{index}] {1} {2} flush_compression {3} seed={4}")
    @MethodSource("cases")
    void cassandraReadsBackWhatTheMemtableHolds(String cql, AllocationMode mode, String compression, FlushCompression flushCompression,
                                                long seed) throws Exception {
        CassandraOracle.init();
        String tableCql = FlushChecks.withCompressionMap(cql, compression);
        TableSchema schema = CqlParser.parse(tableCql);
        Memtable m = seed % 3 == 0 ? new SkipListMemtable(schema, mode) : seed % 3 == 1 ? new ShardedSkipListMemtable(schema, mode, 4)
                : new HashMemtable(schema, mode);
        RandomUpdates gen = new RandomUpdates(schema, seed, NOW, 40, 25);
        for (PartitionUpdate u : gen.next(3000)) {
            m.apply(u);
        }
        m.seal();
        try {
            FlushChecks.flushAndCheck(tmp, tableCql, m, flushCompression, true, dev.flushline.sstable.SSTableVersion.OA);
        } finally {
            m.discard();
        }
    }
}

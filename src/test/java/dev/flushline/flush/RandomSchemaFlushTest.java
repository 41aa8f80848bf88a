package dev.flushline.flush;

import dev.flushline.data.PartitionUpdate;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.ShardedSkipListMemtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;

/**
 * Property test over random schemas: column counts and types from the supported set, 0..3
 * clustering columns each ASC or DESC, statics or not, compressed or not, every allocation mode;
 * each flush passes the three compatibility checks. Small memtables keep 30 seeds fast.
 */
class RandomSchemaFlushTest {
    static final String[] KEY_TYPES = {"int", "bigint", "text", "ascii", "blob", "uuid", "timeuuid", "date", "timestamp",
            "boolean", "double", "float", "smallint", "tinyint", "varint", "decimal", "inet", "time"};
    static final String[] VALUE_TYPES = {"int", "bigint", "text", "blob", "uuid", "boolean", "double", "decimal", "varint",
            "timestamp", "date", "time", "inet", "tinyint", "smallint", "float", "ascii", "timeuuid",
            "frozen<list<int>>", "frozen<map<int, text>>", "set<text>", "map<text, int>", "list<int>", "set<int>"};

    static LongStream seeds() {
        return LongStream.rangeClosed(1, 30);
    }

    static String randomTable(long seed) {
        Random r = new Random(seed * 7919);
        List<String> cols = new ArrayList<>();
        List<String> pk = new ArrayList<>();
        int pkCount = 1 + (r.nextInt(4) == 0 ? 1 : 0);
        for (int i = 0; i < pkCount; i++) {
            cols.add("p" + i + " " + KEY_TYPES[r.nextInt(KEY_TYPES.length)]);
            pk.add("p" + i);
        }
        int ckCount = r.nextInt(4);
        List<String> ck = new ArrayList<>();
        List<String> order = new ArrayList<>();
        for (int i = 0; i < ckCount; i++) {
            cols.add("c" + i + " " + KEY_TYPES[r.nextInt(KEY_TYPES.length)]);
            ck.add("c" + i);
            order.add("c" + i + (r.nextBoolean() ? " DESC" : " ASC"));
        }
        if (ckCount > 0 && r.nextBoolean()) { // statics need clustering columns
            int n = 1 + r.nextInt(3);
            for (int i = 0; i < n; i++) cols.add("s" + i + " " + VALUE_TYPES[r.nextInt(VALUE_TYPES.length)] + " static");
        }
        int regular = 1 + r.nextInt(r.nextInt(5) == 0 ? 70 : 10); // now and then past 64 columns
        for (int i = 0; i < regular; i++) cols.add("v" + i + " " + VALUE_TYPES[r.nextInt(VALUE_TYPES.length)]);
        String key = pkCount == 1 ? pk.get(0) : "(" + String.join(", ", pk) + ")";
        String primary = ck.isEmpty() ? key : key + ", " + String.join(", ", ck);
        String cql = "CREATE TABLE ks.rnd" + seed + " (" + String.join(", ", cols) + ", PRIMARY KEY (" + primary + "))";
        if (ckCount > 0) cql += " WITH CLUSTERING ORDER BY (" + String.join(", ", order) + ")";
        return cql;
    }

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomSchemaFlushIsCompatible(long seed) throws Exception {
        CassandraOracle.init();
        boolean lz4 = seed % 2 == 0;
        String cql = FlushChecks.withCompression(randomTable(seed), lz4);
        TableSchema schema = CqlParser.parse(cql);
        AllocationMode mode = AllocationMode.values()[(int) (seed % AllocationMode.values().length)];
        Memtable m = seed % 3 == 0 ? new ShardedSkipListMemtable(schema, mode, 4) : new SkipListMemtable(schema, mode);
        long now = seed % 5 == 0 ? 3_600_000_000L : 1_750_000_000L; // some far-future clocks too
        for (PartitionUpdate u : new RandomUpdates(schema, seed, now, 15, 12).next(400)) m.apply(u);
        m.seal();
        try {
            FlushChecks.flushAndCheck(tmp, cql, m, lz4, true);
        } finally {
            m.discard();
        }
    }
}

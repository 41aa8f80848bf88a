package dev.flushline.flush;

import dev.flushline.Main;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.FixedClock;
import dev.flushline.oracle.Partition;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Descriptor;
import dev.flushline.testing.RandomUpdates;
import org.apache.cassandra.io.sstable.CQLSSTableWriter;
import org.apache.cassandra.utils.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The table options that change the bytes, as a schema file gives them: bloom_filter_fp_chance
 * (Filter.db), min_index_interval (Summary.db) and max_index_interval (which a fresh sstable does
 * not depend on: Cassandra's writer samples at min_index_interval too) against Cassandra's own
 * writer byte for byte; default_time_to_live (applied to writes without a TTL) against
 * CQLSSTableWriter writing the same rows.
 */
class TableOptionsFlushTest {
    @TempDir
    Path tmp;

    static final String[] OPTIONS = {
            "bloom_filter_fp_chance = 0.2 AND min_index_interval = 4 AND max_index_interval = 16",
            "bloom_filter_fp_chance = 0.0001 AND min_index_interval = 32 AND max_index_interval = 32",
            "min_index_interval = 1 AND max_index_interval = 4096 AND compaction = {'class': 'LeveledCompactionStrategy'}",
    };

    @Test
    void filterAndSummaryOptionsWriteCassandrasBytes() throws Exception {
        CassandraOracle.init();
        for (int i = 0; i < OPTIONS.length; i++) {
            String cql = "CREATE TYPE ks.o (a int, b text);\nCREATE TABLE ks.opts" + i + " (k int, c int, v text, u o, t tuple<int, text>,"
                    + " PRIMARY KEY (k, c)) WITH " + OPTIONS[i] + " AND compression = {'enabled': 'false'}";
            TableSchema schema = CqlParser.parse(cql);
            Memtable m = new SkipListMemtable(schema, AllocationMode.HEAP_BUFFERS);
            for (PartitionUpdate u : new RandomUpdates(schema, 40 + i, 1_750_000_000L, 300, 3).next(900)) m.apply(u);
            m.seal();
            try {
                FlushChecks.flushAndCheck(tmp.resolve("o" + i), cql, m, false, true);
            } finally {
                m.discard();
            }
        }
    }

    /**
     * Float and double vectors of 4,096 dimensions (fixed-length values of 16 and 32 KiB, written
     * without a length) and a text vector, LZ4-compressed across chunks: Cassandra's bytes; then
     * our own reader (verify --extended, and a compaction of the file with itself) reads them back.
     */
    @Test
    void bigVectorsFlushCassandrasBytesAndReadBack() throws Exception {
        CassandraOracle.init();
        String cql = "CREATE TABLE ks.bigvec (k int, c int, e vector<float, 4096>, g vector<double, 4096>, t vector<text, 3>,"
                + " PRIMARY KEY (k, c)) WITH compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': 16}";
        TableSchema schema = CqlParser.parse(cql);
        Memtable m = new SkipListMemtable(schema, AllocationMode.OFFHEAP_OBJECTS);
        for (PartitionUpdate u : new RandomUpdates(schema, 77, 1_750_000_000L, 20, 4).next(60)) m.apply(u);
        m.seal();
        FlushChecks.Flushed flushed;
        try {
            flushed = FlushChecks.flushAndCheck(tmp.resolve("bv"), cql, m, true, true);
        } finally {
            m.discard();
        }
        for (dev.flushline.sstable.SSTableFiles f : dev.flushline.sstable.SSTableFiles.inDirectory(flushed.tableDir())) {
            dev.flushline.sstable.SSTableVerifier.verify(f, schema, true);
        }
        long now = 1_750_000_000L;
        dev.flushline.compaction.Compactor.Options o = dev.flushline.compaction.Compactor.Options.builder(now, now - 864_000).build();
        Path compacted = tmp.resolve("bv-compacted");
        dev.flushline.compaction.Compactor.Result r = new dev.flushline.compaction.Compactor(schema,
                dev.flushline.sstable.SSTableFiles.inDirectory(flushed.tableDir()), o).run(dev.flushline.sstable.TableDirectory.open(compacted));
        assertEquals(r.cellsRead, r.cellsWritten + r.cellsMergedAway + r.cellsPurged);
        assertEquals(CassandraReader.readAll(flushed.tableDir(), cql), CassandraReader.readAll(compacted, cql),
                "one sstable compacted alone reads back the same");
    }

    @Test
    void defaultTimeToLiveAsCqlSSTableWriterAppliesIt() throws Exception {
        FixedClock.installIfPossible();
        CassandraOracle.init();
        String cql = "CREATE TABLE ks.dttl (k int, c int, v text, d duration, PRIMARY KEY (k, c)) WITH default_time_to_live = 7200"
                + " AND compression = {'enabled': 'false'}";
        for (int attempt = 0; ; attempt++) {
            Path theirs = Files.createDirectories(tmp.resolve("c" + attempt));
            long before = Clock.Global.currentTimeMillis() / 1000;
            List<String> lines = new ArrayList<>();
            try (CQLSSTableWriter w = CQLSSTableWriter.builder().inDirectory(theirs.toString()).forTable(cql)
                    .using("INSERT INTO ks.dttl (k, c, v, d) VALUES (?, ?, ?, ?) USING TIMESTAMP 1000").build()) {
                for (int i = 0; i < 10; i++) {
                    w.addRow(i % 3, i, "v" + i, org.apache.cassandra.cql3.Duration.from(i + "h"));
                    lines.add("{\"op\":\"insert\",\"timestamp\":1000,\"values\":{\"k\":" + (i % 3) + ",\"c\":" + i + ",\"v\":\"v" + i
                            + "\",\"d\":\"" + i + "h\"}}");
                }
            }
            if (Clock.Global.currentTimeMillis() / 1000 != before && attempt < 5) continue;
            Path ops = Files.write(tmp.resolve("ops" + attempt + ".jsonl"), lines);
            Path schemaFile = Files.writeString(tmp.resolve("s.cql"), cql);
            Path out = tmp.resolve("f" + attempt);
            ByteArrayOutputStream so = new ByteArrayOutputStream(), se = new ByteArrayOutputStream();
            assertEquals(0, Main.run(new String[] {"load", "--schema", schemaFile.toString(), "--input", ops.toString(), "--out", out.toString(),
                    "--now", Long.toString(before)}, new ByteArrayInputStream(new byte[0]), new PrintStream(so), new PrintStream(se)), se.toString());
            TableSchema schema = CqlParser.parse(cql);
            List<Partition> expected = CassandraReader.readAll(theirs, cql);
            assertFalse(expected.isEmpty());
            assertEquals(expected, CassandraReader.readAll(Descriptor.tableDir(out, schema.keyspace(), schema.name(), schema.idHex()), cql));
            assertEquals(7200, expected.get(0).unfiltereds().isEmpty() ? -1
                    : ((dev.flushline.oracle.Row) expected.get(0).unfiltereds().get(0)).liveness().ttl(), "the default TTL applies");
            return;
        }
    }
}

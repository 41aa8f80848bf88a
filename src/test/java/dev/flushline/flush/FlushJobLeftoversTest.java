package dev.flushline.flush;

import dev.flushline.data.PartitionUpdate;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** FlushJob.run cleans a crashed flush's leftovers before it writes, and says what it removed. */
class FlushJobLeftoversTest {
    @TempDir
    Path tmp;

    @Test
    void runRemovesLeftoversAndReportsThem() throws Exception {
        CassandraOracle.init();
        String cql = FlushChecks.withCompression("CREATE TABLE ks.lo (pk int PRIMARY KEY, v text)", true);
        TableSchema schema = CqlParser.parse(cql);
        Path tableDir = schema.directoryUnder(tmp);
        Files.createDirectories(tableDir.resolve(".flushline-oa-7"));
        Files.write(tableDir.resolve("oa-3-big-Data.db"), new byte[] {1, 2, 3}); // no TOC: a broken sstable to Cassandra
        Files.createFile(tableDir.resolve(".flushline-oa-3.lock")); // the crashed writer's lock: the files are its own

        Memtable m = new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP);
        for (PartitionUpdate u : new RandomUpdates(schema, 5, 1_750_000_000L, 20, 1).next(100)) m.apply(u);
        m.seal();
        try {
            List<Path> removed = new ArrayList<>();
            List<FlushOutcome> out = FlushJob.run(m, FlushJob.Options.builder(tmp).ranges(2).build(), removed);
            assertEquals(List.of(tableDir.resolve(".flushline-oa-3.lock"), tableDir.resolve(".flushline-oa-7"),
                    tableDir.resolve("oa-3-big-Data.db")), removed);
            assertFalse(Files.exists(tableDir.resolve("oa-3-big-Data.db")));
            // One thread: generation order = range order = token order, which readAll relies on.
            // Without the cleanup Cassandra would fail on the TOC-less Data.db; now it reads both ranges.
            assertEquals(MemtableModel.of(m), CassandraReader.readAll(tableDir, cql));
            assertEquals(2, out.size());
        } finally {
            m.discard();
        }
    }
}

package dev.flushline.commitlog;

import dev.flushline.data.PartitionUpdate;
import dev.flushline.table.DurableTable;
import dev.flushline.flush.FlushJob;
import dev.flushline.table.Flusher;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.Partition;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The durable table in one JVM: replay after an abandoned run, release after flushes, refusals. */
class DurableTableTest {
    static final String CQL = "CREATE TABLE ks.dt (pk int, ck text, v text, n bigint, s text static, tags set<text>, "
            + "PRIMARY KEY (pk, ck)) WITH compression = {'enabled': 'false'}";
    static final long NOW = 1_750_000_000L;

    @TempDir
    Path tmp;

    static DurableTable.Options options(TableSchema schema, Path out, Path logDir, long memtableBytes, int segmentBytes,
                                        List<String> messages) {
        return options(schema, out, logDir, memtableBytes, segmentBytes, messages, CommitLog.SyncMode.BATCH);
    }

    static DurableTable.Options options(TableSchema schema, Path out, Path logDir, long memtableBytes, int segmentBytes,
                                        List<String> messages, CommitLog.SyncMode mode) {
        return new DurableTable.Options(
                new CommitLog.Options(logDir, segmentBytes, mode, 1000, false),
                () -> new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP),
                FlushJob.Options.simple(out), new Flusher.Limits(memtableBytes, memtableBytes, 0.5), null, messages::add);
    }

    static long segmentFiles(Path logDir) throws Exception {
        try (Stream<Path> s = Files.list(logDir)) {
            return s.filter(p -> SegmentLayout.idOf(p.getFileName().toString()) >= 0).count();
        }
    }

    @Test
    void anAbandonedRunIsReplayedAndReadsBackAsAFlushOfTheSameUpdates() throws Exception {
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse(CQL);
        Path out = tmp.resolve("out"), logDir = tmp.resolve("log"), ref = tmp.resolve("ref");
        List<PartitionUpdate> updates = new RandomUpdates(schema, 21, NOW, 200, 10).next(1500);
        List<String> messages = new ArrayList<>();
        DurableTable t = DurableTable.open(schema, options(schema, out, logDir, 256L << 20, 64 * 1024, messages));
        assertEquals(List.of("Replayed 0 mutations from 0 segments"), messages);
        long seq = 0;
        for (PartitionUpdate u : updates) {
            seq = t.apply(u);
            assertTrue(t.durableUpTo() >= seq, "batch mode: acknowledged means durable");
        }
        assertEquals(updates.size(), seq);
        // Abandon t as a crash would: no flush, no close. Its commit log holds everything.
        assertEquals(0, t.flusher().flushCount());
        long segments = segmentFiles(logDir);
        assertTrue(segments > 1, "several segments: " + segments);

        messages.clear();
        DurableTable reopened = DurableTable.open(schema, options(schema, out, logDir, 256L << 20, 64 * 1024, messages));
        assertEquals("Replayed " + updates.size() + " mutations from " + segments + " segments", messages.get(messages.size() - 1));
        assertEquals(1, segmentFiles(logDir), "replayed segments are released once flushed; only the new one is left");
        reopened.close();
        assertEquals(0, segmentFiles(logDir), "a clean close leaves no segment");

        Memtable m = new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP);
        for (PartitionUpdate u : updates) m.apply(u);
        m.seal();
        FlushJob.run(m, FlushJob.Options.simple(ref));
        List<Partition> expected = CassandraReader.readAll(schema.directoryUnder(ref), CQL);
        assertEquals(expected, CassandraReader.readAll(schema.directoryUnder(out), CQL));

        messages.clear();
        DurableTable.open(schema, options(schema, out, logDir, 256L << 20, 64 * 1024, messages)).close();
        assertEquals(List.of("Replayed 0 mutations from 0 segments"), messages);
    }

    @Test
    void flushesReleaseSegmentsAsTheyGo() throws Exception {
        TableSchema schema = CqlParser.parse(CQL);
        Path out = tmp.resolve("out"), logDir = tmp.resolve("log");
        List<String> messages = new ArrayList<>();
        // Periodic sync: release does not depend on the sync mode, and an fsync per write would only slow the test.
        DurableTable t = DurableTable.open(schema, options(schema, out, logDir, 256 * 1024, 32 * 1024, messages,
                CommitLog.SyncMode.PERIODIC));
        long firstSegment = t.commitLog().currentPosition().segmentId();
        long maxSegments = 0;
        for (PartitionUpdate u : new RandomUpdates(schema, 22, NOW, 2000, 10).next(6000)) {
            t.apply(u);
            maxSegments = Math.max(maxSegments, segmentFiles(logDir));
        }
        long flushes = t.flusher().flushCount();
        long appended = t.commitLog().appendedSequence();
        long lastSegment = t.commitLog().currentPosition().segmentId();
        t.close();
        assertTrue(flushes > 3, "small memtables flush several times: " + flushes);
        // Without release the log would grow to every segment ever written.
        long written = lastSegment - firstSegment + 1;
        assertTrue(maxSegments < written, "segments were released while writing: at most " + maxSegments + " of " + written);
        assertEquals(0, segmentFiles(logDir));
        assertEquals(6000, appended);
        assertEquals(null, t.releaseFailure());
    }

    @Test
    void anUpdateTheFlushCouldNotWriteIsRefusedBeforeItIsLogged() throws Exception {
        TableSchema schema = CqlParser.parse(CQL);
        Path out = tmp.resolve("out"), logDir = tmp.resolve("log");
        DurableTable t = DurableTable.open(schema, options(schema, out, logDir, 1 << 20, 64 * 1024, new ArrayList<>()));
        PartitionUpdate bad = new PartitionUpdate(dev.flushline.data.PartitionKey.of(new byte[] {0, 0, 0, 1}),
                dev.flushline.data.DeletionTime.of(-5, NOW), List.of(), null, List.of());
        assertThrows(IllegalArgumentException.class, () -> t.apply(bad));
        assertEquals(0, t.commitLog().appendedSequence(), "nothing logged: a replay would refuse it again");
        t.close();
    }
}

package dev.flushline.cassandra6;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.utils.StorageCompatibilityMode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The peer's own checks, in one JVM with cassandra-all 6.0 (this module's tests; the root build never runs them):
 * that it writes {@code oa} when asked to, that its equality verdict tells equal content written differently
 * from different content (so a "content-equal" in a benchmark means something), and that protocol values
 * survive the line encoding. The end-to-end runs with the parent are in scripts/check-cassandra6.
 */
class PeerSelfTest {
    private static final String[] ORDER = {"v1", "v2", "v3", "v4", "v5"};
    private static final String[] SWAPPED = {"v2", "v1", "v3", "v4", "v5"};

    @TempDir
    static Path dir;
    private static Flush6 flush;
    private static final List<SSTableReader> OPEN = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        Node6.init(dir.resolve("node"), StorageCompatibilityMode.CASSANDRA_5);
        flush = new Flush6(dir.resolve("flush"));
    }

    @AfterAll
    static void stop() {
        for (SSTableReader r : OPEN) r.selfRef().release();
        flush.close();
    }

    private static SSTableReader flushed(String compression, String[] order, int partitions) throws Exception {
        Flush6.Request q = new Flush6.Request();
        q.partitions = partitions;
        q.rowsPerPartition = 10;
        q.valueColumns = 5;
        q.valueBytes = 16;
        q.chunkBytes = 16384;
        q.valueOrder = order;
        q.allocation = "heap_buffers";
        q.compression = compression;
        Flush6.Result r = flush.fillAndFlush(q);
        OPEN.add(r.reader);
        assertEquals(partitions * 10L, r.rows, "rows flushed");
        return r.reader;
    }

    private static ColumnFamilyStore lz4Store() throws Exception {
        return Node6.store(Flush6.cql(5, "lz4", 16384), flush.dataRoot());
    }

    @Test
    void writesTheFiveZeroFormatWhenAskedTo() throws Exception {
        assertEquals("big-oa", Node6.sstableVersion());
        SSTableReader r = flushed("lz4", ORDER, 50);
        assertTrue(Path.of(r.getFilename()).getFileName().toString().startsWith("oa-"), r.getFilename());
    }

    @Test
    void sameRowsWrittenCompressedAndNotAreContentEqual() throws Exception {
        SSTableReader lz4 = flushed("lz4", ORDER, 300);
        SSTableReader none = flushed("none", ORDER, 300);
        assertTrue(Files.mismatch(Path.of(lz4.getFilename()), Path.of(none.getFilename())) >= 0, "the two files differ as bytes");
        String verdict = SameContent.verdict(Path.of(none.getFilename()), lz4, lz4Store());
        assertTrue(verdict.startsWith("content-equal, 300 partitions, 3000 rows"), verdict);
        assertTrue(SameContent.verdict(Path.of(lz4.getFilename()), lz4, lz4Store()).startsWith("byte-identical"));
    }

    @Test
    void valuesInOtherColumnsAreDifferent() throws Exception {
        SSTableReader ours = flushed("lz4", ORDER, 300);
        SSTableReader swapped = flushed("lz4", SWAPPED, 300);
        String verdict = SameContent.verdict(Path.of(swapped.getFilename()), ours, lz4Store());
        assertTrue(verdict.startsWith("DIFFERENT: partition 1 "), verdict);
        assertTrue(verdict.contains("unfiltered 1:"), verdict);
    }

    @Test
    void aMissingPartitionIsDifferent() throws Exception {
        SSTableReader all = flushed("lz4", ORDER, 300);
        SSTableReader fewer = flushed("lz4", ORDER, 299);
        String verdict = SameContent.verdict(Path.of(fewer.getFilename()), all, lz4Store());
        assertTrue(verdict.startsWith("DIFFERENT: "), verdict);
    }

    @Test
    void valuesSurviveTheLineEncoding() {
        String awkward = "a\tb\nc\\d\re=f\\t";
        Wire w = Wire.decode(Wire.of("flush").put("path", awkward).put("n", 42).put("empty", "").encode());
        assertEquals("flush", w.word);
        assertEquals(awkward, w.get("path"));
        assertEquals(42, w.getInt("n"));
        assertEquals("", w.get("empty"));
        assertEquals(1, w.encode().split("\n", -1).length, "one line");
    }
}

package dev.flushline.compaction;

import dev.flushline.data.PartitionUpdate;
import dev.flushline.flush.FlushWriter;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.TableDirectory;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The merge allocates no object per row or cell in the steady state: compacting five times the
 * data allocates only a little more: under 2 bytes per extra cell and 32 per extra
 * partition, everything counted (the inputs' Index.db, walked for the key count that sizes the
 * bloom filter, streams through a fixed window; it was read whole and had to be set aside here).
 * An object per cell or per row would add 16 bytes or more for each.
 * (Measured: about 0.56 bytes per extra cell and 9 per extra partition, with every codec and
 * without; structures that grow with the data, such as the summary's sampled keys and the inputs'
 * chunk tables, account for it. It was 1.4 and 24 while the readers
 * regrew their stored-chunk buffer to each new largest compressed chunk, and about twice that with
 * 32 KiB chunks.) The same holds for the other codecs, read and written, and without compression.
 * Measured with the JVM's per-thread allocation counter, on the calling thread (inline writes).
 */
class CompactionAllocationTest {
    static final String TABLE = "CREATE TABLE ks.alloc (id bigint, ck int, a text, b int, c blob, s set<text>, m map<int, text>, "
            + "st text static, PRIMARY KEY (id, ck))";
    static final String CQL = TABLE + " WITH compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': 16}";
    /** The table of the current test: LZ4 (CQL), or another codec's. */
    private String cql = CQL;
    static final long NOW = 1_750_000_000L;

    @TempDir
    Path tmp;

    private Path inputs(String name, int keys, int updatesPerFlush) throws Exception {
        TableSchema schema = CqlParser.parse(cql);
        Path dir = Files.createDirectories(tmp.resolve(name));
        TableDirectory table = TableDirectory.open(dir);
        RandomUpdates gen = new RandomUpdates(schema, 11, NOW, keys, 30);
        for (int i = 0; i < 3; i++) {
            Memtable m = new SkipListMemtable(schema, AllocationMode.HEAP_BUFFERS);
            for (PartitionUpdate u : gen.next(updatesPerFlush)) m.apply(u);
            m.seal();
            try {
                new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), table, true, null, 0);
            } finally {
                m.discard();
            }
        }
        return dir;
    }

    private long[] allocatedAndCells(Path in, Path out) throws Exception {
        return allocatedAndCells(in, out, NOW + 1);
    }

    private long[] allocatedAndCells(Path in, Path out, long gcBefore) throws Exception {
        return allocatedAndCells(in, out, gcBefore, true);
    }

    private long[] allocatedAndCells(Path in, Path out, long gcBefore, boolean copyThrough) throws Exception {
        TableSchema schema = CqlParser.parse(cql);
        Compactor.Options o = Compactor.Options.builder(NOW + 50_000, gcBefore).pipelined(false).copyThrough(copyThrough).build();
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        Compactor c = new Compactor(schema, SSTableFiles.inDirectory(in), o);
        TableDirectory dir = TableDirectory.open(out);
        long before = mx.getThreadAllocatedBytes(tid);
        Compactor.Result r = c.run(dir);
        long allocated = mx.getThreadAllocatedBytes(tid) - before;
        long indexBytes = 0;
        for (SSTableFiles f : SSTableFiles.inDirectory(in)) indexBytes += Files.size(f.path(dev.flushline.sstable.Component.INDEX));
        return new long[] {allocated, r.cellsRead, r.inputRows, r.inputPartitions, indexBytes, r.rowsCopied, r.rowVersionsSkipped};
    }

    @Test
    void steadyStateAllocatesNothingPerCell() throws Exception {
        steadyState();
    }

    /** The same with the other codecs, read and written: none of them allocates per chunk. */
    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {dev.flushline.testing.Compressions.ZSTD,
            dev.flushline.testing.Compressions.SNAPPY, dev.flushline.testing.Compressions.DEFLATE,
            dev.flushline.testing.Compressions.NONE})
    void otherCodecsAllocateNothingPerCell(String compression) throws Exception {
        cql = dev.flushline.testing.Compressions.with(TABLE, compression);
        steadyState();
    }

    /**
     * Disjoint inputs (each flush its own keys; no TTL, no partition or range deletion, nothing past
     * gc grace), whose rows are nearly all copied through rather than merged: that path allocates
     * nothing per row or cell either, and no more than the merge of the same inputs.
     */
    @Test
    void copiedRowsAllocateNothingPerCell() throws Exception {
        Path small = disjointInputs("disjoint-small", 400, 2_000), large = disjointInputs("disjoint-large", 2_000, 10_000);
        allocatedAndCells(small, tmp.resolve("warm-disjoint"), 0);
        allocatedAndCells(small, tmp.resolve("warm-disjoint-merged"), 0, false);
        long[] s = allocatedAndCells(small, tmp.resolve("out-disjoint-small"), 0);
        long[] l = allocatedAndCells(large, tmp.resolve("out-disjoint-large"), 0);
        long[] merged = allocatedAndCells(large, tmp.resolve("out-disjoint-large-merged"), 0, false);
        double perCell = (double) (l[0] - s[0]) / (l[1] - s[1]);
        double perPartition = (double) (l[0] - s[0]) / (l[3] - s[3]);
        String what = "small: " + s[0] + " bytes for " + s[1] + " cells, " + s[2] + " rows (" + s[5] + " copied), " + s[3]
                + " partitions; large: " + l[0] + " bytes for " + l[1] + " cells, " + l[2] + " rows (" + l[5] + " copied), " + l[3]
                + " partitions: " + String.format("%.3f", perCell) + " B per extra cell, " + String.format("%.1f", perPartition)
                + " B per extra partition; the large one merged: " + merged[0] + " bytes";
        System.out.println(what);
        assertTrue(l[1] > 4 * s[1], what);
        assertTrue(l[5] > 0.9 * l[2], what + ": nearly every row is copied (not: empty static rows, duplicates within a flush)");
        assertEquals(0, merged[5], what);
        assertTrue(l[0] < merged[0] + 16 * 1024, what + ": copying allocates no more than merging");
        assertTrue(perCell < 2.0, what);
        assertTrue(perPartition < 32, what);
    }

    /** Three flushes of {@code keys} keys each, every flush its own keys, no TTL. */
    private Path disjointInputs(String name, int keys, int updatesPerFlush) throws Exception {
        TableSchema schema = CqlParser.parse(cql);
        Path dir = Files.createDirectories(tmp.resolve(name));
        TableDirectory table = TableDirectory.open(dir);
        for (int i = 0; i < 3; i++) {
            RandomUpdates gen = new RandomUpdates(schema, 100 + i, NOW, keys, 30);
            gen.ttlChance = 0;
            gen.partitionDeleteChance = 0;
            gen.rangeDeleteChance = 0;
            Memtable m = new SkipListMemtable(schema, AllocationMode.HEAP_BUFFERS);
            for (PartitionUpdate u : gen.next(updatesPerFlush)) m.apply(u);
            m.seal();
            try {
                new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), table, true, null, 0);
            } finally {
                m.discard();
            }
        }
        return dir;
    }

    /**
     * Partitions that keep a partition deletion through the compaction (not yet past gc grace)
     * cost no object each: the merged deletion goes to the writer as two longs. (Measured: 0.3
     * bytes per extra input partition; with a DeletionTime made per merged partition it was 16.3.)
     */
    @Test
    void keptPartitionDeletionsAllocateNothingPerPartition() throws Exception {
        cql = "CREATE TABLE ks.deleted (id bigint, ck int, v text, PRIMARY KEY (id, ck)) WITH compression = {'enabled': 'false'}";
        Path small = deletedPartitions("small-deleted", 2_000), large = deletedPartitions("large-deleted", 12_000);
        allocatedAndCells(small, tmp.resolve("warm-deleted"), 0);
        long[] s = allocatedAndCells(small, tmp.resolve("out-small-deleted"), 0);
        long[] l = allocatedAndCells(large, tmp.resolve("out-large-deleted"), 0);
        double perPartition = (double) (l[0] - s[0]) / (l[3] - s[3]);
        String what = "small: " + s[0] + " bytes for " + s[3] + " partitions; large: " + l[0] + " bytes for " + l[3]
                + " partitions: " + String.format("%.1f", perPartition) + " B per extra partition";
        System.out.println(what);
        assertTrue(l[3] > 5 * s[3], what);
        // Per input partition: each output partition merges two, so an object of 32 bytes per output partition shows as 16.
        assertTrue(perPartition < 8, what);
    }

    /**
     * Overwrites (four inputs of the same rows, each input's timestamps above the one before, no
     * collection): three row versions in four are stepped over undecoded, which allocates nothing
     * per row version either.
     */
    @Test
    void skippedRowVersionsAllocateNothingPerRow() throws Exception {
        cql = "CREATE TABLE ks.over (id bigint, ck int, a text, b int, PRIMARY KEY (id, ck)) WITH compression = {'enabled': 'false'}";
        Path small = overwrites("small-over", 1_000), large = overwrites("large-over", 6_000);
        allocatedAndCells(small, tmp.resolve("warm-over"), 0);
        long[] s = allocatedAndCells(small, tmp.resolve("out-small-over"), 0);
        long[] l = allocatedAndCells(large, tmp.resolve("out-large-over"), 0);
        double perRow = (double) (l[0] - s[0]) / (l[2] - s[2]);
        String what = "small: " + s[0] + " bytes for " + s[2] + " row versions (" + s[6] + " skipped); large: " + l[0] + " bytes for "
                + l[2] + " row versions (" + l[6] + " skipped): " + String.format("%.2f", perRow) + " B per extra row version";
        System.out.println(what);
        assertEquals(3 * l[2] / 4, l[6], what + ": three versions in four are skipped");
        assertTrue(perRow < 4, what);
    }

    /** Four inputs of the same {@code keys} partitions of three rows, input i's timestamps above input i - 1's. */
    private Path overwrites(String name, int keys) throws Exception {
        TableSchema schema = CqlParser.parse(cql);
        Path dir = Files.createDirectories(tmp.resolve(name));
        TableDirectory table = TableDirectory.open(dir);
        for (int input = 0; input < 4; input++) {
            Memtable m = new SkipListMemtable(schema, AllocationMode.HEAP_BUFFERS);
            for (long id = 0; id < keys; id++) {
                java.util.List<dev.flushline.data.Row> rows = new java.util.ArrayList<>();
                for (int ck = 0; ck < 3; ck++) {
                    long ts = 1_000_000L * (input + 1) + id * 3 + ck;
                    rows.add(new dev.flushline.data.Row(false, new byte[][] {java.nio.ByteBuffer.allocate(4).putInt(ck).array()}, ts,
                            dev.flushline.data.Cell.NO_TTL, dev.flushline.data.Cell.NO_DELETION_TIME, dev.flushline.data.DeletionTime.LIVE,
                            new dev.flushline.data.Cell[] {dev.flushline.data.Cell.live(ts, ("v" + input + "-" + id).getBytes(), null),
                                    dev.flushline.data.Cell.live(ts, java.nio.ByteBuffer.allocate(4).putInt(input).array(), null)},
                            new dev.flushline.data.ComplexColumn[0]));
                }
                m.apply(new PartitionUpdate(dev.flushline.data.PartitionKey.of(java.nio.ByteBuffer.allocate(8).putLong(id).array()),
                        dev.flushline.data.DeletionTime.LIVE, java.util.List.of(), null, rows));
            }
            m.seal();
            try {
                new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), table, true, null, 0);
            } finally {
                m.discard();
            }
        }
        return dir;
    }

    /** Two inputs of {@code keys} partitions each, every partition deleted and then written to again, so it keeps both. */
    private Path deletedPartitions(String name, int keys) throws Exception {
        TableSchema schema = CqlParser.parse(cql);
        Path dir = Files.createDirectories(tmp.resolve(name));
        TableDirectory table = TableDirectory.open(dir);
        for (int input = 0; input < 2; input++) {
            Memtable m = new SkipListMemtable(schema, AllocationMode.HEAP_BUFFERS);
            for (long id = 0; id < keys; id++) {
                long deletedAt = 1_000 + input * 10L + id;
                java.util.List<dev.flushline.data.Row> rows = java.util.List.of(new dev.flushline.data.Row(false,
                        new byte[][] {java.nio.ByteBuffer.allocate(4).putInt(input).array()}, deletedAt + 5, dev.flushline.data.Cell.NO_TTL,
                        dev.flushline.data.Cell.NO_DELETION_TIME, dev.flushline.data.DeletionTime.LIVE,
                        new dev.flushline.data.Cell[] {dev.flushline.data.Cell.live(deletedAt + 5, "v".getBytes(), null)},
                        new dev.flushline.data.ComplexColumn[0]));
                m.apply(new PartitionUpdate(dev.flushline.data.PartitionKey.of(java.nio.ByteBuffer.allocate(8).putLong(id).array()),
                        dev.flushline.data.DeletionTime.of(deletedAt, NOW - 10), java.util.List.of(), null, rows));
            }
            m.seal();
            try {
                new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), table, true, null, 0);
            } finally {
                m.discard();
            }
        }
        return dir;
    }

    private void steadyState() throws Exception {
        Path small = inputs("small", 400, 2_000), large = inputs("large", 2_000, 10_000);
        allocatedAndCells(small, tmp.resolve("warm")); // warm up: class loading, JIT
        long[] s = allocatedAndCells(small, tmp.resolve("out-small"));
        long[] l = allocatedAndCells(large, tmp.resolve("out-large"));
        double perCell = (double) (l[0] - s[0]) / (l[1] - s[1]);
        double perPartition = (double) (l[0] - s[0]) / (l[3] - s[3]);
        String what = "small: " + s[0] + " bytes for " + s[1] + " cells, " + s[2] + " rows, " + s[3] + " partitions; large: "
                + l[0] + " bytes for " + l[1] + " cells, " + l[2] + " rows, " + l[3] + " partitions (Index.db of "
                + s[4] + " and " + l[4] + " bytes, streamed): "
                + String.format("%.3f", perCell) + " B per extra cell, " + String.format("%.1f", perPartition) + " B per extra partition";
        System.out.println(what);
        assertTrue(l[1] > 4 * s[1], what);
        // One object per cell would add 16+ bytes per cell, one per row 16+ per row (5 rows a partition here).
        assertTrue(perCell < 2.0, what);
        assertTrue(perPartition < 32, what);
    }
}

package dev.flushline.flush;

import dev.flushline.sstable.TableDirectory;

import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.RangeTombstone;
import dev.flushline.data.Row;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.MemtablePartition;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.CassandraVerifier;
import dev.flushline.oracle.Partition;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Descriptor;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A flush that fails publishes nothing and leaves the memtable as it was; a retry publishes an
 * sstable cassandra-all reads back exactly. Bad input is refused at Memtable.apply, before it can
 * reach a memtable (and so a flush).
 */
class FlushFailureTest {
    static final long NOW = 1_750_000_000L;
    static final String CQL = FlushChecks.withCompression("CREATE TABLE ks.fail (pk int, ck text, s int static, v text, "
            + "tags set<text>, PRIMARY KEY (pk, ck))", false);

    @TempDir
    Path tmp;

    static Memtable filled(TableSchema schema, long seed) {
        Memtable m = new SkipListMemtable(schema, AllocationMode.OFFHEAP_OBJECTS);
        for (PartitionUpdate u : new RandomUpdates(schema, seed, NOW, 50, 10).next(800)) m.apply(u);
        m.seal();
        return m;
    }

    /** Everything in the table directory, names only, sorted. */
    static List<String> listing(Path dir) throws IOException {
        if (!Files.exists(dir)) return List.of();
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** Throws from hasNext() once {@code n} partitions were handed out; runs {@code beforeFirst} first. */
    static Iterator<MemtablePartition> failingAfter(Iterator<MemtablePartition> it, int n, Runnable beforeFirst) {
        return new Iterator<>() {
            int given;
            boolean started;

            @Override
            public boolean hasNext() {
                if (!started) {
                    started = true;
                    beforeFirst.run();
                }
                if (given >= n) throw new UncheckedIOException(new IOException("injected: disk full after " + n + " partitions"));
                return it.hasNext();
            }

            @Override
            public MemtablePartition next() {
                given++;
                return it.next();
            }
        };
    }

    private void retryPublishesExactly(Memtable m, Path tableDir, List<Partition> before) throws IOException {
        FlushResult r = new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), TableDirectory.open(tableDir), true, null, 0);
        assertTrue(Files.exists(r.dataPath));
        assertEquals(before, CassandraReader.readAll(tableDir, CQL), "the retry publishes the whole memtable");
        assertEquals(List.of(), CassandraVerifier.verify(tableDir, CQL));
        assertTrue(listing(tableDir).stream().noneMatch(n -> n.startsWith(".flushline-")), "no staging dir after success");
    }

    @ParameterizedTest(name = "fail after {0} partitions")
    @ValueSource(ints = {0, 1, 17})
    void failureMidDataLeavesNothingAndRetrySucceeds(int n) throws Exception {
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse(CQL);
        Memtable m = filled(schema, n);
        try {
            List<Partition> before = MemtableModel.of(m);
            assertTrue(before.size() > 17);
            Path tableDir = Descriptor.tableDir(tmp, schema.keyspace(), schema.name(), schema.idHex());
            FlushWriter w = new FlushWriter(m);
            assertThrows(UncheckedIOException.class, () -> w.write(failingAfter(m.partitionIterator(), n, () -> {}), m.partitionCount(), TableDirectory.open(tableDir), true, null, 0));
            assertEquals(List.of(), listing(tableDir), "no Data.db, no TOC.txt, no staging dir");
            assertEquals(before, MemtableModel.of(m), "the memtable is intact");
            retryPublishesExactly(m, tableDir, before);
        } finally {
            m.discard();
        }
    }

    /**
     * The rename of one component fails half way through publishing (a directory is in the way of
     * its final name): the components renamed before it must not stay visible, since without
     * TOC.txt they are a broken sstable to anyone listing the directory.
     */
    @ParameterizedTest(name = "blocked {0}")
    @ValueSource(strings = {"Data.db", "TOC.txt", "Index.db"})
    void failureMidPublishLeavesNothingVisible(String blocked) throws Exception {
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse(CQL);
        Memtable m = filled(schema, 99);
        try {
            List<Partition> before = MemtableModel.of(m);
            Path tableDir = Descriptor.tableDir(tmp, schema.keyspace(), schema.name(), schema.idHex());
            List<Path> obstacle = new ArrayList<>();
            Runnable block = () -> {
                // The writer has reserved its generation (its staging dir exists): put a non-empty
                // directory where one component will be renamed to.
                try (Stream<Path> s = Files.list(tableDir)) {
                    String staging = s.map(p -> p.getFileName().toString()).filter(x -> x.startsWith(".flushline-oa-") && !x.endsWith(".lock")).findFirst().orElseThrow();
                    Path o = tableDir.resolve("oa-" + staging.substring(".flushline-oa-".length()) + "-big-" + blocked);
                    Files.createDirectories(o.resolve("x"));
                    obstacle.add(o);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            };
            FlushWriter w = new FlushWriter(m);
            assertThrows(IOException.class, () -> w.write(failingAfter(m.partitionIterator(), Integer.MAX_VALUE, block), m.partitionCount(), TableDirectory.open(tableDir), true, null, 0));
            String obstacleName = obstacle.get(0).getFileName().toString();
            assertEquals(List.of(obstacleName), listing(tableDir), "only the obstacle is left: no component, no staging dir");
            assertEquals(before, MemtableModel.of(m), "the memtable is intact");
            Files.delete(obstacle.get(0).resolve("x"));
            Files.delete(obstacle.get(0));
            retryPublishesExactly(m, tableDir, before);
        } finally {
            m.discard();
        }
    }

    // ---- refused at apply --------------------------------------------------------------------

    static Row row(TableSchema schema, byte[] ck) {
        return new Row(false, new byte[][] {ck}, 5, 0, Cell.NO_DELETION_TIME, DeletionTime.LIVE,
                new Cell[schema.regularComplexStart()], new ComplexColumn[schema.regularColumns().length - schema.regularComplexStart()]);
    }

    @Test
    void badUpdatesAreRefusedBeforeTheyReachTheMemtable() {
        TableSchema schema = CqlParser.parse(CQL);
        Memtable m = new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP);
        byte[] pk = {0, 0, 0, 1};
        byte[] big = new byte[65536];
        List<PartitionUpdate> bad = List.of(
                // Cassandra 5.0.9 writes this and then cannot read the sstable: the first byte has the
                // LIVE bit set but is not 0x80 (DeletionTimeLayout).
                new PartitionUpdate(PartitionKey.of(pk), DeletionTime.of(-5, NOW), List.of(), null, List.of()),
                new PartitionUpdate(PartitionKey.of(pk), DeletionTime.of(Long.MIN_VALUE + 1, NOW), List.of(), null, List.of()),
                new PartitionUpdate(PartitionKey.of(big), DeletionTime.LIVE, List.of(), null, List.of(row(schema, new byte[] {'a'}))),
                new PartitionUpdate(PartitionKey.of(pk), DeletionTime.LIVE, List.of(), null, List.of(row(schema, big))),
                new PartitionUpdate(PartitionKey.of(pk), DeletionTime.LIVE, List.of(new RangeTombstone(
                        ClusteringBound.start(true, new byte[][] {big}), ClusteringBound.TOP, DeletionTime.of(5, NOW))), null, List.of()));
        for (PartitionUpdate u : bad) {
            assertThrows(IllegalArgumentException.class, () -> m.apply(u), u.toString().substring(0, 60));
        }
        assertEquals(0, m.partitionCount(), "nothing reached the memtable");
        assertEquals(0, m.operationCount());
        assertEquals(Cell.NO_TIMESTAMP, m.minTimestamp(), "refused updates leave no trace in the EncodingStats minima");
        // The limits themselves are fine: 65535-byte key and clustering, deletion at timestamp 0.
        byte[] max = new byte[65535];
        assertTrue(m.apply(new PartitionUpdate(PartitionKey.of(max), DeletionTime.of(0, NOW), List.of(), null, List.of(row(schema, max)))));
        assertEquals(1, m.partitionCount());
        m.seal();
        m.discard();
    }

    @Test
    void limitValuesFlushAndReadBack() throws Exception {
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse(CQL);
        Memtable m = new SkipListMemtable(schema, AllocationMode.HEAP_BUFFERS);
        byte[] key = new byte[4];
        byte[] ck = new byte[65535];
        java.util.Arrays.fill(ck, (byte) 'c');
        assertTrue(m.apply(new PartitionUpdate(PartitionKey.of(key), DeletionTime.of(0, NOW), List.of(), null, List.of(row(schema, ck)))));
        m.seal();
        try {
            FlushChecks.flushAndCheck(tmp, CQL, m, false, true);
        } finally {
            m.discard();
        }
    }

    @Test
    void aNegativePartitionDeletionNeverReachesDisk() throws Exception {
        // Defence in depth below the memtable gate: the serializer refuses it too, and the failed
        // flush publishes nothing.
        assertThrows(IllegalArgumentException.class,
                () -> dev.flushline.sstable.DeletionTimeLayout.checkWritable(DeletionTime.of(-1, NOW)));
        assertFalse(listing(tmp).contains("ks"));
    }
}

package dev.flushline.memtable;

import dev.flushline.data.Cell;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.Row;
import dev.flushline.flush.FlushResult;
import dev.flushline.flush.FlushWriter;
import dev.flushline.schema.TableSchema;
import dev.flushline.schema.ValueCodec;
import dev.flushline.sstable.SSTableVersion;
import dev.flushline.sstable.TableDirectory;
import dev.flushline.table.TableOptions.MemtableKind;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Packed rows against linked ones: the same rows written in clustering order (packed, no nodes),
 * in reverse order (a skip list from the second row on), and in order and then linked by a second
 * write of each partition's first row (the same cell, so the same data), flush to the same bytes in
 * every component, and hold the same rows through {@link RowList#first}. The packed memtable is
 * charged exactly {@code NODE_HEAP_BYTES - PACKED_ROW_HEAP_BYTES} less per packed row, and a linked
 * one the same as if it had never been packed. In {@code heap_buffers}, a row too large for the
 * shared slab gets its own array, which a packed list cannot hold beside the slab: that partition is
 * linked when the row comes.
 */
class PackedRowsTest {
    private static final String CQL = "CREATE TABLE ks.t (pk int, ck int, v text, PRIMARY KEY (pk, ck))";
    private static final int PARTITIONS = 300;
    /** The partition whose middle row is larger than a heap slab allocation. */
    private static final int BIG_ROW_PARTITION = 7;

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (MemtableKind kind : MemtableKind.values()) {
            out.add(Arguments.of(kind, AllocationMode.HEAP_BUFFERS));
            out.add(Arguments.of(kind, AllocationMode.OFFHEAP_OBJECTS));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void packedRowsFlushAsLinkedOnes(MemtableKind kind, AllocationMode mode, @TempDir Path dir) throws IOException {
        TableSchema schema = MemtableFixtures.schema(CQL);
        List<List<Row>> partitions = partitions(new Random(kind.ordinal() * 10 + mode.ordinal()));
        Memtable inOrder = MemtableFixtures.create(kind, schema, mode);
        Memtable reversed = MemtableFixtures.create(kind, schema, mode);
        Memtable linked = MemtableFixtures.create(kind, schema, mode);
        try {
            long packedRows = 0;
            for (int p = 0; p < partitions.size(); p++) {
                List<Row> rows = partitions.get(p);
                // In order: the first half in one update, then one row per update.
                int half = rows.size() / 2;
                assertTrue(inOrder.apply(update(p, rows.subList(0, half))));
                for (int i = half; i < rows.size(); i++) assertTrue(inOrder.apply(update(p, List.of(rows.get(i)))));
                for (int i = rows.size() - 1; i >= 0; i--) assertTrue(reversed.apply(update(p, List.of(rows.get(i)))));
                assertTrue(linked.apply(update(p, rows)));
                assertTrue(linked.apply(update(p, List.of(rows.get(0)))));
                boolean bigRowHere = p == BIG_ROW_PARTITION && mode == AllocationMode.HEAP_BUFFERS;
                MemtablePartition packed = inOrder.get(key(p));
                assertEquals(!bigRowHere, packed.isPacked(), "partition " + p + " written in order");
                if (!bigRowHere) packedRows += rows.size();
                assertFalse(reversed.get(key(p)).isPacked(), "partition " + p + " written in reverse order");
                assertFalse(linked.get(key(p)).isPacked(), "partition " + p + " written again");
            }
            assertEquals(reversed.onHeapBytes(), linked.onHeapBytes(), "linked rows are charged as nodes, packed first or not");
            assertEquals(reversed.onHeapBytes() - packedRows * (RowList.NODE_HEAP_BYTES - RowList.PACKED_ROW_HEAP_BYTES),
                    inOrder.onHeapBytes(), "packed rows are charged their place in the array");
            assertEquals(MemtableFixtures.dump(reversed), MemtableFixtures.dump(inOrder));
            assertEquals(MemtableFixtures.dump(reversed), MemtableFixtures.dump(linked));

            List<byte[]> expected = flush(reversed, dir.resolve("reversed"));
            List<byte[]> fromPacked = flush(inOrder, dir.resolve("in-order"));
            List<byte[]> fromLinked = flush(linked, dir.resolve("linked"));
            for (int i = 0; i < COMPONENTS.length; i++) {
                assertArrayEquals(expected.get(i), fromPacked.get(i), COMPONENTS[i] + " of the packed rows");
                assertArrayEquals(expected.get(i), fromLinked.get(i), COMPONENTS[i] + " of the rows linked after packing");
            }
        } finally {
            for (Memtable m : List.of(inOrder, reversed, linked)) {
                m.seal(); // a no-op once flushed; discarding needs it
                m.discard();
            }
        }
    }

    private static final String[] COMPONENTS = {"Data.db", "Index.db", "Summary.db", "Filter.db", "Statistics.db",
            "CompressionInfo.db", "Digest.crc32"};

    private static List<byte[]> flush(Memtable m, Path out) throws IOException {
        m.seal();
        Path tableDir = Files.createDirectories(out.resolve("ks").resolve("t"));
        FlushResult result = new FlushWriter(m, SSTableVersion.OA).write(m.partitionIterator(), m.partitionCount(),
                TableDirectory.open(tableDir), false, null, 0);
        assertNotNull(result);
        String prefix = result.dataPath.getFileName().toString().replace("Data.db", "");
        List<byte[]> files = new ArrayList<>();
        for (String c : COMPONENTS) files.add(Files.readAllBytes(tableDir.resolve(prefix + c)));
        return files;
    }

    /** Two to forty rows per partition, in clustering order, with gaps; one row over the heap slab's allocation limit. */
    private static List<List<Row>> partitions(Random r) {
        List<List<Row>> out = new ArrayList<>();
        long ts = 1_000_000;
        for (int p = 0; p < PARTITIONS; p++) {
            List<Row> rows = new ArrayList<>();
            int n = 2 + r.nextInt(39);
            int ck = r.nextInt(100) - 50;
            for (int i = 0; i < n; i++) {
                int length = p == BIG_ROW_PARTITION && i == n / 2 ? HeapSlabAllocator.MAX_SLAB_ALLOCATION_BYTES + 1 : r.nextInt(40);
                byte[] v = new byte[length];
                for (int j = 0; j < length; j++) v[j] = (byte) ('a' + r.nextInt(26));
                rows.add(new Row(false, new byte[][] {ValueCodec.int32(ck)}, ts, Cell.NO_TTL, Cell.NO_DELETION_TIME,
                        DeletionTime.LIVE, new Cell[] {Cell.live(ts, v, null)}, new ComplexColumn[0]));
                ck += 1 + r.nextInt(5);
                ts += r.nextInt(3);
            }
            out.add(rows);
        }
        return out;
    }

    private static PartitionKey key(int p) {
        return PartitionKey.of(ValueCodec.int32(p));
    }

    private static PartitionUpdate update(int p, List<Row> rows) {
        return new PartitionUpdate(key(p), DeletionTime.LIVE, List.of(), null, new ArrayList<>(rows));
    }
}

package dev.flushline.memtable;

import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringComparator;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.Row;
import dev.flushline.data.RowRecord;
import dev.flushline.flush.FlushWriter;
import dev.flushline.io.FixedBuffer;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.RowSerializer;
import dev.flushline.sstable.SerializationHeader;
import dev.flushline.sstable.StatsCollector;
import dev.flushline.testing.RandomSchemas;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A row record holds exactly its row: for the rows of random updates (random schemas, statics,
 * collections, TTLs, tombstones, row and complex deletions) and for hand-made edge cases (values
 * and paths past the one-byte length, no liveness, a cell timestamp unlike the row's), the record's
 * size is what is written, the record turns back into an equal Row, and the flush's reading of it
 * (the RowRecord flyweight) serializes to the very bytes the Row itself serializes to, with the
 * same statistics.
 */
class RowRecordTest {
    static LongStream seeds() {
        return LongStream.rangeClosed(1, 25);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void randomRowsRoundTrip(long seed) {
        TableSchema schema = CqlParser.parse(RandomSchemas.randomTable(seed));
        List<PartitionUpdate> updates = new RandomUpdates(schema, seed, 1_750_000_000L, 10, 12).next(200);
        List<Row> rows = new ArrayList<>();
        for (PartitionUpdate u : updates) {
            if (u.staticRow() != null) rows.add(u.staticRow());
            rows.addAll(u.rows());
        }
        check(schema, updates, rows, seed);
    }

    @Test
    void edgeCasesRoundTrip() {
        TableSchema schema = CqlParser.parse("CREATE TABLE ks.t (pk int, ck int, s text static, a text, b int, "
                + "m map<text, text>, PRIMARY KEY (pk, ck))");
        byte[] big = new byte[300];
        Arrays.fill(big, (byte) 'x');
        byte[] ck = {0, 0, 0, 1};
        long ts = 1_764_000_000_000_000L;
        List<Row> rows = new ArrayList<>();
        // Long value and long path, a TTL'd cell, a tombstone element, a complex deletion.
        rows.add(new Row(false, new byte[][] {ck}, ts, Cell.NO_TTL, Cell.NO_DELETION_TIME, DeletionTime.LIVE,
                new Cell[] {Cell.live(ts, big, null), Cell.expiring(ts + 1, 60, 1_800_000_000L, new byte[] {0, 0, 0, 7}, null)},
                new ComplexColumn[] {new ComplexColumn(DeletionTime.of(ts - 1, 1_700_000_000L), new Cell[] {
                        Cell.live(ts, big, big), Cell.tombstone(ts, 1_700_000_001L, new byte[] {'k'})})}));
        // No liveness (an UPDATE), a row deletion, an empty value.
        rows.add(new Row(false, new byte[][] {ck}, Cell.NO_TIMESTAMP, Cell.NO_TTL, Cell.NO_DELETION_TIME,
                DeletionTime.of(ts - 5, 1_700_000_002L), new Cell[] {Cell.live(ts, new byte[0], null), null},
                new ComplexColumn[] {null}));
        // Expiring liveness shared by its cells, and a static row.
        rows.add(new Row(false, new byte[][] {ck}, ts, 30, 1_800_000_030L, DeletionTime.LIVE,
                new Cell[] {Cell.expiring(ts, 30, 1_800_000_030L, new byte[] {'v'}, null), null}, new ComplexColumn[] {null}));
        rows.add(new Row(true, null, Cell.NO_TIMESTAMP, Cell.NO_TTL, Cell.NO_DELETION_TIME, DeletionTime.LIVE,
                new Cell[] {Cell.live(ts, big, null)}, Row.NO_COMPLEX));
        List<PartitionUpdate> updates = new ArrayList<>();
        for (Row r : rows) {
            updates.add(r.isStatic()
                    ? new PartitionUpdate(dev.flushline.data.PartitionKey.of(new byte[] {0, 0, 0, 1}), DeletionTime.LIVE, List.of(), r, List.of())
                    : new PartitionUpdate(dev.flushline.data.PartitionKey.of(new byte[] {0, 0, 0, 1}), DeletionTime.LIVE, List.of(), null, List.of(r)));
        }
        check(schema, updates, rows, 7);
    }

    @Test
    void refusesTooManyColumnsByName() {
        Row wide = new Row(false, new byte[][] {{1}}, 1, Cell.NO_TTL, Cell.NO_DELETION_TIME, DeletionTime.LIVE,
                new Cell[RowRecord.MAX_SLOTS + 1], Row.NO_COMPLEX);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RowRecord.size(wide));
        assertEquals(true, e.getMessage().contains("65536"), e.getMessage());
    }

    @Test
    void aSlabMemtableRefusesATableWiderThanItsRecordsIndex() {
        StringBuilder cql = new StringBuilder("CREATE TABLE ks.wide (pk int, ck int");
        for (int i = 0; i <= RowRecord.MAX_SLOTS; i++) cql.append(", c").append(i).append(" int");
        TableSchema schema = CqlParser.parse(cql.append(", PRIMARY KEY (pk, ck))").toString());
        for (AllocationMode mode : new AllocationMode[] {AllocationMode.HEAP_BUFFERS, AllocationMode.OFFHEAP_OBJECTS}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new SkipListMemtable(schema, mode));
            assertEquals(true, e.getMessage().contains("ks.wide") && e.getMessage().contains("use unslabbed_heap"), e.getMessage());
        }
        new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP).seal();
    }

    private static void check(TableSchema schema, List<PartitionUpdate> updates, List<Row> rows, long seed) {
        // A header from a memtable holding these updates: every column they write, bases that fit.
        Memtable m = new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP);
        for (PartitionUpdate u : updates) m.apply(u);
        m.seal();
        SerializationHeader header = FlushWriter.headerFor(m);
        StatsCollector sa = new StatsCollector(new ClusteringComparator(schema)), sb = new StatsCollector(new ClusteringComparator(schema));
        RowSerializer fromRow = new RowSerializer(header, sa);
        RowSerializer fromRecord = new RowSerializer(header, sb);
        RowRecord flyweight = new RowRecord();
        Random random = new Random(seed);
        for (int i = 0; i < rows.size(); i++) {
            Row row = rows.get(i);
            int size = RowRecord.size(row);
            int offset = random.nextInt(64);
            byte[] slab = new byte[offset + size + random.nextInt(8)];
            RowRecord.write(row, size, slab, offset);
            assertEquals(size, RowRecord.length(slab, offset), "length field");

            Row back = RowRecord.materialize(slab, offset);
            assertEquals(MemtableFixtures.dump(row), MemtableFixtures.dump(back), "materialized row");
            assertArrayEquals(row.clustering(), back.clustering(), "materialized clustering");
            assertEquals(row.cells().length, back.cells().length);
            assertEquals(row.complex().length, back.complex().length);

            flyweight.wrap(slab, offset);
            assertArrayEquals(row.clustering(), flyweight.clustering().toArrays(), "the record's clustering, read in place");
            long prevSize = (i * 41L) % 70_000;
            int a = fromRow.rowSize(row, prevSize), b = fromRecord.rowSize(flyweight, prevSize);
            assertEquals(a, b, row.toString());
            FixedBuffer outA = new FixedBuffer(a), outB = new FixedBuffer(b);
            fromRow.writeRow(outA, row, prevSize, a);
            fromRecord.writeRow(outB, flyweight, prevSize, b);
            assertArrayEquals(outA.array(), outB.array(), row.toString());
            // a second wrap of the same flyweight (sizes cached per generation) writes the same bytes
            flyweight.wrap(slab, offset);
            FixedBuffer again = new FixedBuffer(b);
            fromRecord.writeRow(again, flyweight, prevSize, b);
            assertArrayEquals(outA.array(), again.array(), row.toString());
        }
        // Every record row was written twice, every Row once.
        assertEquals(2 * sa.cellsWritten(), sb.cellsWritten());
        assertEquals(2 * sa.totalRows(), sb.totalRows());
        assertEquals(2 * sa.totalColumnsSet(), sb.totalColumnsSet());
        assertEquals(sa.minTimestamp(), sb.minTimestamp());
        assertEquals(sa.maxTimestamp(), sb.maxTimestamp());
        assertEquals(sa.minLocalDeletionTime(), sb.minLocalDeletionTime());
        assertEquals(sa.maxLocalDeletionTime(), sb.maxLocalDeletionTime());
        assertEquals(sa.minTtl(), sb.minTtl());
        assertEquals(sa.maxTtl(), sb.maxTtl());
    }
}

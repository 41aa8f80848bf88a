package dev.flushline.sstable;

import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringComparator;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.Row;
import dev.flushline.data.RowBuffer;
import dev.flushline.flush.FlushWriter;
import dev.flushline.io.FixedBuffer;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.MemtablePartition;
import dev.flushline.memtable.RowList;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.testing.RandomSchemas;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Arrays;
import java.util.Iterator;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The serializer's two sources give the same bytes: every row of random memtables (random
 * schemas, every allocation mode, statics, collections, DESC, 64+ columns now and then) written
 * once as the flush's {@link Row} and once copied into the compaction's {@link RowBuffer}
 * flyweight, at varying previous sizes, produces identical bytes and identical statistics.
 */
class RowBufferSerializationTest {
    static LongStream seeds() {
        return LongStream.rangeClosed(1, 20);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void rowBufferWritesWhatRowWrites(long seed) {
        TableSchema schema = CqlParser.parse(RandomSchemas.randomTable(seed));
        Memtable m = new SkipListMemtable(schema, AllocationMode.values()[(int) (seed % AllocationMode.values().length)]);
        try {
            for (PartitionUpdate u : new RandomUpdates(schema, seed, 1_750_000_000L, 10, 12).next(300)) m.apply(u);
            m.seal();
            SerializationHeader header = FlushWriter.headerFor(m);
            StatsCollector sa = new StatsCollector(new ClusteringComparator(schema)), sb = new StatsCollector(new ClusteringComparator(schema));
            RowSerializer ra = new RowSerializer(header, sa), rb = new RowSerializer(header, sb);
            RowBuffer buffer = new RowBuffer(schema.clusteringColumns().length, 4);
            long rows = 0;
            for (Iterator<MemtablePartition> it = m.partitionIterator(); it.hasNext(); ) {
                MemtablePartition p = it.next();
                if (p.staticRow() != null) check(ra, rb, p.staticRow(), buffer, rows++, schema);
                for (RowList.Node n = p.rows().first(); n != null; n = n.next()) check(ra, rb, n.row(), buffer, rows++, schema);
            }
            assertEquals(sa.cellsWritten(), sb.cellsWritten());
            assertEquals(sa.minTimestamp(), sb.minTimestamp());
            assertEquals(sa.maxTimestamp(), sb.maxTimestamp());
            assertEquals(sa.minLocalDeletionTime(), sb.minLocalDeletionTime());
            assertEquals(sa.maxLocalDeletionTime(), sb.maxLocalDeletionTime());
            assertEquals(sa.minTtl(), sb.minTtl());
            assertEquals(sa.maxTtl(), sb.maxTtl());
            assertEquals(sa.totalColumnsSet(), sb.totalColumnsSet());
            assertEquals(sa.totalRows(), sb.totalRows());
        } finally {
            m.discard();
        }
    }

    private static void check(RowSerializer ra, RowSerializer rb, Row row, RowBuffer buffer, long i, TableSchema schema) {
        long prevSize = (i * 37) % 70_000;
        copy(row, buffer, schema);
        int sizeA = ra.rowSize(row, prevSize);
        int sizeB = rb.rowSize(buffer, prevSize);
        assertEquals(sizeA, sizeB, row.toString());
        FixedBuffer a = new FixedBuffer(sizeA), b = new FixedBuffer(sizeB);
        ra.writeRow(a, row, prevSize, sizeA);
        rb.writeRow(b, buffer, prevSize, sizeB);
        assertArrayEquals(a.array(), b.array(), row.toString());
    }

    /** The row as the compaction's flyweight holds one: primitives and byte ranges, columns in table position order. */
    static void copy(Row row, RowBuffer out, TableSchema schema) {
        out.clear(row.isStatic());
        if (!row.isStatic()) {
            byte[][] ck = row.clustering();
            out.clustering().reset(dev.flushline.data.ClusteringBound.CLUSTERING, ck.length);
            for (int i = 0; i < ck.length; i++) out.clustering().set(i, ck[i], 0, ck[i].length);
        }
        if (row.hasLiveness()) out.setLiveness(row.livenessTimestamp(), row.livenessTtl(), row.livenessExpirationTime());
        DeletionTime d = row.deletion();
        out.setDeletion(d.markedForDeleteAt(), d.localDeletionTime());
        Cell[] cells = row.cells();
        for (int p = 0; p < cells.length; p++) {
            if (cells[p] == null) continue;
            out.beginColumn(p, false, Long.MIN_VALUE, Long.MAX_VALUE);
            add(out, cells[p]);
            out.endColumn();
        }
        ComplexColumn[] complex = row.complex();
        int start = cells.length;
        for (int i = 0; i < complex.length; i++) {
            if (complex[i] == null) continue;
            DeletionTime cd = complex[i].complexDeletion();
            out.beginColumn(start + i, true, cd.markedForDeleteAt(), cd.localDeletionTime());
            for (Cell c : complex[i].cells()) add(out, c);
            out.endColumn();
        }
    }

    private static void add(RowBuffer out, Cell c) {
        byte[] path = c.pathLength() > 0 ? c.pathBytes() : new byte[0];
        byte[] value = c.valueBytes();
        out.addCell(c.timestamp(), c.ttl(), c.localDeletionTime(), path, 0, path.length, value, 0, value.length);
    }

}

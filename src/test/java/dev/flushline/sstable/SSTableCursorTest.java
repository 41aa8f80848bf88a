package dev.flushline.sstable;

import dev.flushline.data.PartitionUpdate;
import dev.flushline.flush.FlushWriter;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Cursor behaviour that the compatibility test does not show: refusals, allocation, seeks. */
class SSTableCursorTest {
    static final String CQL = "CREATE TABLE ks.c (pk int, ck int, a text, b bigint, t set<text>, PRIMARY KEY (pk, ck))"
            + " WITH compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': 4}";

    @TempDir
    Path tmp;

    static Path flush(Path dir, String cql, int keys, int clusterings, int updates) throws IOException {
        TableSchema schema = CqlParser.parse(cql);
        Memtable m = new SkipListMemtable(schema, AllocationMode.UNSLABBED_HEAP);
        RandomUpdates gen = new RandomUpdates(schema, 42, 1_750_000_000L, keys, clusterings);
        gen.partitionDeleteChance = 0;
        gen.rangeDeleteChance = 0.001; // deletions shadow what came before them: keep most rows
        for (PartitionUpdate u : gen.next(updates)) m.apply(u);
        m.seal();
        try {
            return new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), TableDirectory.open(dir), true, null, 0).dataPath;
        } finally {
            m.discard();
        }
    }

    @Test
    void refusesOtherVersionsAndFormatsByName() throws IOException {
        Path data = flush(tmp.resolve("t"), CQL, 3, 5, 20);
        for (String name : new String[] {"na-1-big-Data.db", "oa-1-bti-Data.db", "ma-1-big-Statistics.db"}) {
            Path other = Files.copy(data, data.resolveSibling(name));
            IncompatibleSSTableException e = assertThrows(IncompatibleSSTableException.class, () -> SSTableFiles.of(other));
            String version = name.substring(0, 2), format = name.split("-")[2];
            assertTrue(e.getMessage().contains(name) && e.getMessage().contains("'" + version + "'")
                    && e.getMessage().contains("'" + format + "'"), e.getMessage());
        }
        assertThrows(IncompatibleSSTableException.class, () -> SSTableFiles.of(data.resolveSibling("notes.txt")));
    }

    @Test
    void refusesASchemaThatDoesNotMatchTheHeader() throws IOException {
        Path data = flush(tmp.resolve("t"), CQL, 3, 5, 50);
        TableSchema other = CqlParser.parse(CQL.replace("b bigint", "b int"));
        IncompatibleSSTableException e = assertThrows(IncompatibleSSTableException.class,
                () -> SSTableCursor.open(SSTableFiles.of(data), other).close());
        assertTrue(e.getMessage().contains("'b'") && e.getMessage().contains("LongType"), e.getMessage());
    }

    /** After the first pass sized its buffers, a full scan allocates less than a byte per cell. */
    @Test
    void aSecondScanAllocatesAlmostNothing() throws IOException {
        Path data = flush(tmp.resolve("t"), CQL, 4, 3000, 16000);
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (SSTableCursor c = SSTableCursor.open(SSTableFiles.of(data), CqlParser.parse(CQL))) {
            long firstCells = scan(c);
            c.seek(0);
            long before = mx.getCurrentThreadAllocatedBytes();
            long cells = scan(c);
            long allocated = mx.getCurrentThreadAllocatedBytes() - before;
            assertEquals(firstCells, cells);
            assertTrue(cells > 10_000, "cells " + cells);
            assertTrue(allocated < cells, "allocated " + allocated + " bytes for " + cells + " cells");
        }
    }

    private static long scan(SSTableCursor c) throws IOException {
        long cells = 0, sum = 0;
        int kind;
        while ((kind = c.advance()) != SSTableCursor.END) {
            if (kind != SSTableCursor.ROW) continue;
            SSTableCursor.Row r = c.row();
            for (int k = 0; k < r.cellCount(); k++) {
                SSTableCursor.Cell cell = r.cell(k);
                sum += cell.timestamp() + cell.valueLength();
                cells++;
            }
        }
        return sum == 0 ? -1 : cells;
    }

    /**
     * With deferred bodies, every row stops after its header: the header fields and the cells once
     * decoded are those a whole-row cursor reads at the same offsets, a skipped body leaves the
     * cursor at the next item all the same (rows, markers and partition ends in the same order and
     * at the same offsets), a skipped row refuses reads of its cells, and a pending body refuses the
     * next advance. Static rows too; both across window refills (4 KiB chunks, 48 KiB of data).
     */
    @Test
    void deferredBodiesDecodeOrSkipToTheSameItems() throws IOException {
        String cql = "CREATE TABLE ks.d (pk int, ck int, s text static, a text, b bigint, t set<text>, PRIMARY KEY (pk, ck))"
                + " WITH compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': 4}";
        TableSchema schema = CqlParser.parse(cql);
        Path data = flush(tmp.resolve("d"), cql, 30, 200, 3000);
        assertTrue(Files.size(data) > 12 * 1024, "several chunks: " + Files.size(data));
        try (SSTableCursor whole = SSTableCursor.open(SSTableFiles.of(data), schema);
             SSTableCursor lazy = SSTableCursor.open(SSTableFiles.of(data), schema)) {
            lazy.deferRowBodies(true);
            int kind, rows = 0, skipped = 0, statics = 0;
            while ((kind = whole.advance()) != SSTableCursor.END) {
                assertEquals(kind, lazy.advance(), "item " + rows);
                if (kind != SSTableCursor.ROW) {
                    if (kind == SSTableCursor.MARKER) assertEquals(whole.marker().offset(), lazy.marker().offset());
                    if (kind == SSTableCursor.PARTITION_END) assertEquals(whole.partition().endOffset(), lazy.partition().endOffset());
                    continue;
                }
                SSTableCursor.Row w = whole.row(), l = lazy.row();
                assertTrue(lazy.isBodyPending());
                assertEquals(w.offset(), l.offset());
                assertEquals(w.isStatic(), l.isStatic());
                assertEquals(w.flags(), l.flags());
                assertEquals(w.livenessTimestamp(), l.livenessTimestamp());
                assertEquals(w.deletionTimestamp(), l.deletionTimestamp());
                assertEquals(w.columnCount(), l.columnCount());
                for (int j = 0; j < w.columnCount(); j++) assertEquals(w.columnIndex(j), l.columnIndex(j));
                boolean complex = false;
                for (int j = 0; j < w.columnCount(); j++) complex |= w.isComplex(j);
                assertEquals(complex, l.hasComplexColumn());
                assertThrows(IllegalStateException.class, l::cellCount, "cells of a pending body");
                if (rows == 0) assertThrows(IllegalStateException.class, lazy::advance, "advance past a pending body");
                if (w.isStatic()) statics++;
                if (rows++ % 2 == 0) {
                    lazy.skipBody();
                    skipped++;
                    assertTrue(l.isBodySkipped());
                    assertThrows(IllegalStateException.class, l::cellCount, "cells of a skipped body");
                    assertThrows(IllegalStateException.class, l::isEmpty);
                } else {
                    lazy.decodeBody();
                    assertEquals(w.cellCount(), l.cellCount());
                    for (int k = 0; k < w.cellCount(); k++) {
                        assertEquals(w.cell(k).timestamp(), l.cell(k).timestamp());
                        assertEquals(w.cell(k).localDeletionTime(), l.cell(k).localDeletionTime());
                        assertEquals(java.nio.ByteBuffer.wrap(whole.buffer(), w.cell(k).valueOffset(), w.cell(k).valueLength()),
                                java.nio.ByteBuffer.wrap(lazy.buffer(), l.cell(k).valueOffset(), l.cell(k).valueLength()));
                    }
                }
                assertEquals(w.endOffset(), l.endOffset());
                assertTrue(!lazy.isBodyPending());
            }
            assertEquals(SSTableCursor.END, lazy.advance());
            assertTrue(skipped > 100 && statics > 10, "rows " + rows + ", skipped " + skipped + ", static rows " + statics);
        }
    }

    /** The table has columns that no row of this sstable uses: the header names a subset, in its own order. */
    @Test
    void tableColumnsThatNoRowUses() throws IOException {
        dev.flushline.oracle.CassandraOracle.init();
        String narrow = "CREATE TABLE ks.w (pk int, ck int, b text, t set<int>, PRIMARY KEY (pk, ck)) WITH compression = {'enabled': 'false'}";
        String wide = "CREATE TABLE ks.w (pk int, ck int, a int, b text, c blob, s int static, m map<int, int>, t set<int>, z text, "
                + "PRIMARY KEY (pk, ck)) WITH compression = {'enabled': 'false'}";
        Path data = flush(tmp.resolve("w"), narrow, 20, 10, 300);
        List<dev.flushline.oracle.Partition> expected = dev.flushline.oracle.CassandraReader.readAll(data, wide);
        CursorModel.assertSameContent(expected, CursorModel.readAll(data, CqlParser.parse(wide)), "wider schema");
        SSTableVerifier.verify(SSTableFiles.of(data), CqlParser.parse(wide), true);
    }

    /** Seeking to each partition's offset (as Index.db gives them) yields that partition alone. */
    @Test
    void seekStartsAtAPartition() throws IOException {
        Path data = flush(tmp.resolve("t"), CQL, 30, 5, 300);
        TableSchema schema = CqlParser.parse(CQL);
        List<dev.flushline.oracle.Partition> all = CursorModel.readAll(data, schema);
        try (SSTableCursor c = SSTableCursor.open(SSTableFiles.of(data), schema)) {
            long[] starts = new long[all.size()];
            int i = 0, kind;
            while ((kind = c.advance()) != SSTableCursor.END) {
                if (kind == SSTableCursor.PARTITION_START) starts[i++] = c.partition().startOffset();
            }
            for (int p = all.size() - 1; p >= 0; p--) {
                c.seek(starts[p]);
                List<dev.flushline.oracle.Partition> rest = CursorModel.read(c);
                assertEquals(all.subList(p, all.size()), rest);
            }
        }
    }
}

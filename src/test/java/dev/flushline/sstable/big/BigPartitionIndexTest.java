package dev.flushline.sstable.big;

import dev.flushline.data.Cell;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.Murmur3;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.Row;
import dev.flushline.flush.FlushWriter;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.CorruptSSTableException;
import dev.flushline.sstable.PartitionIndex;
import dev.flushline.sstable.SSTableCursor;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.SSTableVerifier;
import dev.flushline.sstable.SSTableVersion;
import dev.flushline.sstable.TableDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The BIG partition index read through the seam ({@link PartitionIndex}): its iteration is
 * Data.db's partitions, key for key and position for position; lookups by key (through
 * Summary.db, or without it) and by token agree with that iteration and do not move it; a
 * missing or damaged Index.db is named.
 */
class BigPartitionIndexTest {
    /** Wide rows in some partitions, so that promoted index entries sit between plain ones. */
    static final String CQL = "CREATE TABLE ks.p (pk int, ck int, v text, PRIMARY KEY (pk, ck)) WITH compression = {'enabled': 'false'}";
    /** Over four Summary.db samples at the default interval of 128. */
    static final int KEYS = 600;

    @TempDir
    Path tmp;

    /** {@link #KEYS} partitions (pk 0..KEYS-1) of two rows, every 50th of 200 rows of 1 KB (a promoted index). */
    static SSTableFiles flush(Path dir, SSTableVersion version) throws IOException {
        TableSchema schema = CqlParser.parse(CQL);
        Memtable m = new SkipListMemtable(schema, AllocationMode.HEAP_BUFFERS);
        for (int pk = 0; pk < KEYS; pk++) {
            int n = pk % 50 == 0 ? 200 : 2;
            List<Row> rows = new ArrayList<>();
            for (int ck = 0; ck < n; ck++) {
                byte[] v = ("v" + pk + "-" + ck + "-").repeat(1000).substring(0, n == 2 ? 10 : 1000).getBytes(StandardCharsets.UTF_8);
                rows.add(new Row(false, new byte[][] {int32(ck)}, 10, 0, Cell.NO_DELETION_TIME, DeletionTime.LIVE,
                        new Cell[] {Cell.live(10, v, null)}, new ComplexColumn[0]));
            }
            m.apply(new PartitionUpdate(PartitionKey.of(int32(pk)), DeletionTime.LIVE, List.of(), null, rows));
        }
        m.seal();
        try {
            return SSTableFiles.of(new FlushWriter(m, version).write(m.partitionIterator(), m.partitionCount(), TableDirectory.open(dir),
                    true, null, 0).dataPath);
        } finally {
            m.discard();
        }
    }

    static byte[] int32(int v) {
        return ByteBuffer.allocate(4).putInt(v).array();
    }

    /** Data.db's partitions in order: keys and start positions. */
    static List<byte[]> dataKeys(SSTableFiles f, List<Long> positions) throws IOException {
        List<byte[]> keys = new ArrayList<>();
        try (SSTableCursor c = SSTableCursor.open(f, CqlParser.parse(CQL))) {
            int kind;
            while ((kind = c.advance()) != SSTableCursor.END) {
                if (kind != SSTableCursor.PARTITION_START) continue;
                keys.add(c.partition().keyCopy());
                positions.add(c.partition().startOffset());
            }
        }
        return keys;
    }

    @ParameterizedTest
    @EnumSource(value = SSTableVersion.class, names = {"OA", "NB"}) // the BIG versions
    void iteratesDataDbsPartitionsAndFindsEachByKeyAndToken(SSTableVersion version) throws IOException {
        SSTableFiles f = flush(tmp.resolve(version.id()), version);
        assertEquals(version, f.version());
        List<Long> positions = new ArrayList<>();
        List<byte[]> keys = dataKeys(f, positions);
        assertTrue(keys.size() > 4 * 128, "partitions: " + keys.size());
        TableSchema schema = CqlParser.parse(CQL);
        int promoted = 0;
        try (IndexReader raw = IndexReader.open(f, schema.clusteringColumns())) {
            while (raw.hasNext()) {
                raw.next();
                if (raw.blockCount() > 0) promoted++;
            }
        }
        assertTrue(promoted > 0, "some entries carry a promoted index");

        try (PartitionIndex index = PartitionIndex.open(f, schema)) {
            for (int i = 0; i < keys.size(); i++) {
                assertTrue(index.next(), "entry " + i);
                byte[] k = Arrays.copyOfRange(index.keyArray(), index.keyOffset(), index.keyOffset() + index.keyLength());
                assertArrayEquals(keys.get(i), k, "key " + i);
                assertEquals(positions.get(i), index.dataPosition(), "position " + i);
                // A lookup between two steps of the iteration does not move it.
                byte[] other = keys.get(keys.size() - 1 - i);
                assertEquals(positions.get(keys.size() - 1 - i), index.position(other, 0, other.length), "lookup " + i);
            }
            assertFalse(index.next());

            // Keys it does not hold, before, between and after the held ones in token order.
            for (int pk = KEYS; pk < KEYS + 200; pk++) {
                byte[] absent = int32(pk);
                assertEquals(-1, index.position(absent, 0, absent.length), "absent key " + pk);
            }
            byte[] padded = new byte[keys.get(3).length + 4];
            System.arraycopy(keys.get(3), 0, padded, 2, keys.get(3).length);
            assertEquals(positions.get(3), index.position(padded, 2, keys.get(3).length), "a key inside a larger array");

            // Tokens: each partition's own token finds it, one above finds the next, the extremes the ends.
            for (int i = 0; i < keys.size(); i++) {
                long token = Murmur3.token(keys.get(i), 0, keys.get(i).length);
                assertEquals(positions.get(i), index.firstPositionAtOrAfter(token), "token of partition " + i);
                if (token != Long.MAX_VALUE) {
                    long expected = i + 1 < keys.size() ? positions.get(i + 1) : -1;
                    assertEquals(expected, index.firstPositionAtOrAfter(token + 1), "token after partition " + i);
                }
            }
            assertEquals(positions.get(0), index.firstPositionAtOrAfter(Long.MIN_VALUE));
        }
    }

    /** Without Summary.db a lookup scans Index.db from its start, and finds the same. */
    @Test
    void looksUpWithoutASummary() throws IOException {
        SSTableFiles f = flush(tmp.resolve("t"), SSTableVersion.OA);
        List<Long> positions = new ArrayList<>();
        List<byte[]> keys = dataKeys(f, positions);
        Files.delete(f.path(Component.SUMMARY));
        rewriteToc(f, Component.SUMMARY);
        SSTableFiles without = SSTableFiles.of(f.path(Component.DATA));
        assertFalse(without.has(Component.SUMMARY));
        assertNull(PartitionIndex.missingComponent(without), "Summary.db only speeds lookups up");
        try (PartitionIndex index = PartitionIndex.open(without, CqlParser.parse(CQL))) {
            for (int i = 0; i < keys.size(); i += 37) {
                assertEquals(positions.get(i), index.position(keys.get(i), 0, keys.get(i).length), "key " + i);
            }
        }
    }

    @Test
    void namesAMissingOrDamagedIndex() throws IOException {
        SSTableFiles f = flush(tmp.resolve("t"), SSTableVersion.OA);
        assertNull(PartitionIndex.missingComponent(f));

        // Cut in the middle of its last entries: the iteration reports the file and the offset.
        byte[] bytes = Files.readAllBytes(f.path(Component.INDEX));
        Files.write(f.path(Component.INDEX), Arrays.copyOf(bytes, bytes.length - 3));
        CorruptSSTableException e = assertThrows(CorruptSSTableException.class, () -> {
            try (PartitionIndex index = PartitionIndex.open(f, CqlParser.parse(CQL))) {
                while (index.next()) {
                    // walk to the damage
                }
            }
        });
        assertEquals(f.path(Component.INDEX), e.file());
        assertTrue(e.offset() > 0 && e.offset() <= bytes.length, e.getMessage());

        rewriteToc(f, Component.INDEX);
        assertEquals(f.path(Component.INDEX), PartitionIndex.missingComponent(SSTableFiles.of(f.path(Component.DATA))));
    }

    /** A table keyed by blobs, for keys as long as an Index.db key can be (the window's size and more). */
    static final String BLOB_CQL = "CREATE TABLE ks.b (pk blob, ck int, v text, PRIMARY KEY (pk, ck)) WITH compression = {'enabled': 'false'}";

    /**
     * Partitions with keys of 1 to 65,535 bytes (the u16 limit: an entry longer than the
     * window), every 7th with a promoted index of hundreds of blocks (longer than a small window).
     */
    static SSTableFiles flushLongKeys(Path dir) throws IOException {
        TableSchema schema = CqlParser.parse(BLOB_CQL);
        Memtable m = new SkipListMemtable(schema, AllocationMode.HEAP_BUFFERS);
        java.util.Random random = new java.util.Random(7);
        for (int pk = 0; pk < 60; pk++) {
            int keyLength = pk % 5 == 0 ? 65_535 - pk : 1 + random.nextInt(pk % 2 == 0 ? 40_000 : 20);
            byte[] key = new byte[keyLength];
            random.nextBytes(key);
            int n = pk % 7 == 0 ? 400 : 2;
            List<Row> rows = new ArrayList<>();
            for (int ck = 0; ck < n; ck++) {
                byte[] v = new byte[n == 2 ? 10 : 1000];
                Arrays.fill(v, (byte) ('a' + ck % 26));
                rows.add(new Row(false, new byte[][] {int32(ck)}, 10, 0, Cell.NO_DELETION_TIME, DeletionTime.LIVE,
                        new Cell[] {Cell.live(10, v, null)}, new ComplexColumn[0]));
            }
            m.apply(new PartitionUpdate(PartitionKey.of(key), DeletionTime.LIVE, List.of(), null, rows));
        }
        m.seal();
        try {
            return SSTableFiles.of(new FlushWriter(m, SSTableVersion.OA).write(m.partitionIterator(), m.partitionCount(),
                    TableDirectory.open(dir), true, null, 0).dataPath);
        } finally {
            m.discard();
        }
    }

    /**
     * Streaming through a window of any size reads the same entries: with the smallest window (a
     * vint) every field crosses a refill, and with the default one keys longer than the window
     * cross several. Keys, positions, promoted blocks and lookups all agree with Data.db.
     */
    @Test
    void streamsEntriesLongerThanItsWindow() throws IOException {
        SSTableFiles f = flushLongKeys(tmp.resolve("long"));
        TableSchema schema = CqlParser.parse(BLOB_CQL);
        List<Long> positions = new ArrayList<>();
        List<byte[]> keys = new ArrayList<>();
        try (SSTableCursor c = SSTableCursor.open(f, schema)) {
            int kind;
            while ((kind = c.advance()) != SSTableCursor.END) {
                if (kind != SSTableCursor.PARTITION_START) continue;
                keys.add(c.partition().keyCopy());
                positions.add(c.partition().startOffset());
            }
        }
        assertTrue(Files.size(f.path(Component.INDEX)) > 10L * IndexReader.WALK_WINDOW_BYTES, "Index.db is many windows long");
        List<long[]> blocks = new ArrayList<>();
        for (int window : new int[] {IndexReader.WALK_WINDOW_BYTES, 9, 10, 31, 4096}) {
            int promoted = 0;
            try (IndexReader r = IndexReader.open(f, schema.clusteringColumns(), window)) {
                for (int i = 0; i < keys.size(); i++) {
                    assertTrue(r.hasNext(), "window " + window + ", entry " + i);
                    r.next();
                    assertArrayEquals(keys.get(i), Arrays.copyOfRange(r.keyArray(), r.keyOffset(), r.keyOffset() + r.keyLength()),
                            "window " + window + ", key " + i);
                    assertEquals(positions.get(i), r.dataPosition(), "window " + window + ", position " + i);
                    long[] b = new long[2 * r.blockCount()];
                    for (int k = 0; k < r.blockCount(); k++) {
                        b[2 * k] = r.blockOffset(k);
                        b[2 * k + 1] = r.blockWidth(k);
                    }
                    if (r.blockCount() > 0) promoted++;
                    if (window == IndexReader.WALK_WINDOW_BYTES) blocks.add(b);
                    else assertArrayEquals(blocks.get(i), b, "window " + window + ", promoted blocks of entry " + i);
                }
                assertFalse(r.hasNext(), "window " + window);
            }
            assertTrue(promoted >= 8, "promoted entries: " + promoted);
        }
        try (PartitionIndex index = PartitionIndex.open(f, schema)) {
            for (int i = 0; i < keys.size(); i++) {
                assertTrue(index.next());
                byte[] k = keys.get(keys.size() - 1 - i);
                assertEquals(positions.get(keys.size() - 1 - i), index.position(k, 0, k.length), "lookup " + i);
            }
        }
        SSTableVerifier.verify(f, schema, false);
    }

    /**
     * Index.db cut at every length, promoted entries included: the walk either reports the file and an
     * offset inside what is left, or, cut at an entry boundary, ends early (one entry short), so a
     * truncated entry is never taken for a whole one.
     */
    @Test
    void reportsEveryTruncation() throws IOException {
        SSTableFiles f = flush(tmp.resolve("t"), SSTableVersion.OA);
        TableSchema schema = CqlParser.parse(CQL);
        byte[] bytes = Files.readAllBytes(f.path(Component.INDEX));
        List<Long> entryStarts = new ArrayList<>();
        try (IndexReader r = IndexReader.open(f, schema.clusteringColumns())) {
            while (r.hasNext()) {
                r.next();
                entryStarts.add(r.entryOffset());
            }
        }
        assertTrue(bytes.length < 64 * 1024, "Index.db of " + bytes.length + " bytes: small enough to cut everywhere");
        int boundaries = 0, reported = 0;
        for (int cut = 0; cut < bytes.length; cut++) {
            Files.write(f.path(Component.INDEX), Arrays.copyOf(bytes, cut));
            for (int window : new int[] {IndexReader.WALK_WINDOW_BYTES, 16}) {
                int entries = 0;
                try (IndexReader r = IndexReader.open(f, schema.clusteringColumns(), window)) {
                    while (r.hasNext()) {
                        r.next();
                        entries++;
                    }
                    assertTrue(entryStarts.contains((long) cut), "cut at " + cut + " is inside an entry, yet the walk ended without error");
                    assertEquals(entryStarts.indexOf((long) cut), entries, "cut at " + cut);
                    boundaries++;
                } catch (CorruptSSTableException e) {
                    assertEquals(f.path(Component.INDEX), e.file());
                    assertTrue(e.offset() >= 0 && e.offset() <= cut, "cut at " + cut + ": " + e.getMessage());
                    assertFalse(entryStarts.contains((long) cut), "cut at entry boundary " + cut + ": " + e.getMessage());
                    reported++;
                }
            }
        }
        assertTrue(boundaries > 0 && reported > boundaries, boundaries + " boundaries, " + reported + " reported");
    }

    /** A promoted index whose offset table disagrees with where its blocks are is reported at the table entry. */
    @Test
    void reportsAWrongOffsetTableEntry() throws IOException {
        SSTableFiles f = flush(tmp.resolve("t"), SSTableVersion.OA);
        TableSchema schema = CqlParser.parse(CQL);
        int blockCount = 0;
        long promotedEnd = -1;
        try (IndexReader r = IndexReader.open(f, schema.clusteringColumns())) {
            while (r.hasNext() && promotedEnd < 0) {
                r.next();
                if (blockCount > 0) promotedEnd = r.entryOffset(); // the entry after the first promoted one
                else blockCount = r.blockCount();
            }
        }
        assertTrue(blockCount >= 2 && promotedEnd > 0, "a promoted entry that is not the last");
        // The offset table ends the promoted entry, one i32 per block: block 1's is the second.
        long at = promotedEnd - 4L * (blockCount - 1);
        byte[] bytes = Files.readAllBytes(f.path(Component.INDEX));
        bytes[(int) at + 3] ^= 0x01;
        Files.write(f.path(Component.INDEX), bytes);
        CorruptSSTableException e = assertThrows(CorruptSSTableException.class, () -> {
            try (PartitionIndex index = PartitionIndex.open(f, schema)) {
                while (index.next()) {
                    // walk to the damage
                }
            }
        });
        assertEquals(f.path(Component.INDEX), e.file());
        assertEquals(at, e.offset(), e.getMessage());
        assertTrue(e.getMessage().contains("index block 1 offset table says"), e.getMessage());
    }

    /**
     * Walking an Index.db many windows long allocates a bounded amount, whatever the file's size:
     * the window and the key array, not the file.
     */
    @Test
    void walkAllocatesItsWindowNotTheFile() throws IOException {
        SSTableFiles f = flushLongKeys(tmp.resolve("long"));
        TableSchema schema = CqlParser.parse(BLOB_CQL);
        long size = Files.size(f.path(Component.INDEX));
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        long allocated = Long.MAX_VALUE;
        for (int round = 0; round < 3; round++) { // the first rounds load classes
            long before = mx.getThreadAllocatedBytes(tid);
            int entries = 0;
            try (PartitionIndex index = PartitionIndex.open(f, schema)) {
                while (index.next()) entries++;
            }
            allocated = Math.min(allocated, mx.getThreadAllocatedBytes(tid) - before);
            assertEquals(60, entries);
        }
        // The window, the key arrays up to one of the largest key (64 KiB), the channel and the block arrays.
        long bound = IndexReader.WALK_WINDOW_BYTES + 2L * 65_535 + 16 * 1024;
        assertTrue(size > 4 * bound, "Index.db of " + size + " bytes");
        assertTrue(allocated < bound, "walking " + size + " bytes of Index.db allocated " + allocated + " bytes");
    }

    private static void rewriteToc(SSTableFiles f, Component without) throws IOException {
        Path toc = f.path(Component.TOC);
        List<String> lines = new ArrayList<>(Files.readAllLines(toc, StandardCharsets.UTF_8));
        assertTrue(lines.remove(without.fileSuffix()), lines.toString());
        Files.write(toc, lines, StandardCharsets.UTF_8);
    }
}

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
        IndexReader raw = IndexReader.open(f, schema.clusteringColumns());
        while (raw.hasNext()) {
            raw.next();
            if (raw.blockCount() > 0) promoted++;
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

    private static void rewriteToc(SSTableFiles f, Component without) throws IOException {
        Path toc = f.path(Component.TOC);
        List<String> lines = new ArrayList<>(Files.readAllLines(toc, StandardCharsets.UTF_8));
        assertTrue(lines.remove(without.fileSuffix()), lines.toString());
        Files.write(toc, lines, StandardCharsets.UTF_8);
    }
}

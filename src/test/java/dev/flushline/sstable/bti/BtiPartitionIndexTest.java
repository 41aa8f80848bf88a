package dev.flushline.sstable.bti;

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
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.CassandraReferenceWriter;
import dev.flushline.oracle.Partition;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.CorruptSSTableException;
import dev.flushline.sstable.PartitionIndex;
import dev.flushline.sstable.SSTableCursor;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.SSTableVersion;
import dev.flushline.sstable.TableDirectory;
import org.apache.cassandra.db.DecoratedKey;
import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.utils.bytecomparable.ByteComparable;
import org.apache.cassandra.utils.bytecomparable.ByteSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The BTI partition index read through the seam ({@link PartitionIndex}) from sstables Cassandra
 * 5.0.9 writes in version da: its iteration is Data.db's partitions, key for key and position for
 * position, whether the trie points into Data.db or through a Rows.db entry, compressed or not;
 * lookups by key (present and absent) and by token agree with that iteration and leave it where
 * it is; the first and last keys come from the footer; missing and damaged files are named. The
 * byte-comparable key form is Cassandra's.
 */
class BtiPartitionIndexTest {
    /** Wide rows in some partitions, so that Rows.db entries sit between plain ones. */
    static final String CQL = "CREATE TABLE ks.bti_p (pk int, ck int, v text, PRIMARY KEY (pk, ck))";
    static final int KEYS = 600;

    @TempDir
    Path tmp;

    /**
     * {@code keys} partitions (pk 0..keys-1) of two rows, every 50th of 200 rows of 1 KB (a row
     * index of about twelve 16 KiB blocks), written by Cassandra as a da sstable; the model is our
     * flush of the same rows as Cassandra reads it.
     */
    static SSTableFiles daSSTable(Path dir, int keys, boolean lz4) throws IOException {
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse(CQL);
        Memtable m = new SkipListMemtable(schema, AllocationMode.HEAP_BUFFERS);
        for (int pk = 0; pk < keys; pk++) {
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
        Path ours = dir.resolve("model");
        try {
            new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), TableDirectory.open(ours), true, null, 0);
        } finally {
            m.discard();
        }
        List<Partition> content = CassandraReader.readAll(ours, CQL);
        Path data = CassandraReferenceWriter.write(dir.resolve("da"), CQL, content, 10, Long.MAX_VALUE, 0, content.size(), lz4, "da");
        SSTableFiles f = SSTableFiles.of(data);
        assertEquals(SSTableVersion.DA, f.version());
        return f;
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

    @ParameterizedTest(name = "lz4 {0}")
    @ValueSource(booleans = {false, true})
    void iteratesDataDbsPartitionsAndFindsEachByKeyAndToken(boolean lz4) throws IOException {
        SSTableFiles f = daSSTable(tmp, KEYS, lz4);
        assertEquals(lz4, f.isCompressed());
        assertTrue(Files.size(f.path(Component.ROW_INDEX)) > 0, "some partitions have a row index in Rows.db");
        TableSchema schema = CqlParser.parse(CQL);
        List<Long> positions = new ArrayList<>();
        List<byte[]> keys = dataKeys(f, positions);
        assertEquals(KEYS, keys.size());

        try (PartitionIndex index = PartitionIndex.open(f, schema)) {
            for (int i = 0; i < keys.size(); i++) {
                assertTrue(index.next(), "entry " + i);
                byte[] k = Arrays.copyOfRange(index.keyArray(), index.keyOffset(), index.keyOffset() + index.keyLength());
                assertArrayEquals(keys.get(i), k, "key " + i);
                assertEquals(positions.get(i), index.dataPosition(), "position " + i);
                // lookups in between leave the iteration alone
                byte[] other = keys.get((i * 7 + 3) % keys.size());
                assertEquals(positions.get((i * 7 + 3) % keys.size()), index.position(other, 0, other.length));
                assertArrayEquals(keys.get(i), Arrays.copyOfRange(index.keyArray(), index.keyOffset(), index.keyOffset() + index.keyLength()));
            }
            assertFalse(index.next());
        }

        try (PartitionIndex index = PartitionIndex.open(f, schema)) {
            for (int i = 0; i < keys.size(); i++) {
                byte[] k = keys.get(i);
                assertEquals(positions.get(i), index.position(k, 0, k.length), "lookup of key " + i);
            }
            for (int pk = KEYS; pk < KEYS + 300; pk++) {
                byte[] k = int32(pk);
                assertEquals(-1, index.position(k, 0, k.length), "absent key " + pk);
            }
            byte[] longer = Arrays.copyOf(keys.get(5), 5); // a present key with a byte more
            assertEquals(-1, index.position(longer, 0, longer.length));
            byte[] shorter = Arrays.copyOf(keys.get(5), 3);
            assertEquals(-1, index.position(shorter, 0, shorter.length));

            // by token: each key's, one above and one below, and the ends of the ring
            for (int i = 0; i < keys.size(); i++) {
                long t = token(keys.get(i));
                assertEquals(positions.get(i), index.firstPositionAtOrAfter(t), "token of key " + i);
                assertEquals(i + 1 < keys.size() ? positions.get(i + 1) : -1L, index.firstPositionAtOrAfter(t + 1), "token after key " + i);
                assertEquals(positions.get(i), index.firstPositionAtOrAfter(t - 1), "token before key " + i);
            }
            assertEquals(positions.get(0), index.firstPositionAtOrAfter(Long.MIN_VALUE));
            assertEquals(-1, index.firstPositionAtOrAfter(Long.MAX_VALUE));
            Random r = new Random(11);
            for (int n = 0; n < 2000; n++) {
                long t = r.nextLong();
                assertEquals(linearCeiling(keys, positions, t), index.firstPositionAtOrAfter(t), "token " + t);
            }
        }

        byte[][] bounds = PartitionIndex.boundaryKeys(f);
        assertArrayEquals(keys.get(0), bounds[0]);
        assertArrayEquals(keys.get(keys.size() - 1), bounds[1]);
    }

    static long token(byte[] k) {
        return Murmur3.token(k, 0, k.length);
    }

    static long linearCeiling(List<byte[]> keys, List<Long> positions, long token) {
        for (int i = 0; i < keys.size(); i++) {
            if (token(keys.get(i)) >= token) return positions.get(i);
        }
        return -1;
    }

    @Test
    void onePartitionIsTheRoot() throws IOException {
        SSTableFiles f = daSSTable(tmp, 1, false);
        byte[] k = int32(0);
        try (PartitionIndex index = PartitionIndex.open(f, CqlParser.parse(CQL))) {
            assertTrue(index.next());
            assertArrayEquals(k, Arrays.copyOfRange(index.keyArray(), index.keyOffset(), index.keyOffset() + index.keyLength()));
            assertEquals(0, index.dataPosition());
            assertFalse(index.next());
            assertEquals(0, index.position(k, 0, k.length));
            assertEquals(-1, index.position(int32(1), 0, 4));
            assertEquals(0, index.firstPositionAtOrAfter(token(k)));
            assertEquals(-1, index.firstPositionAtOrAfter(token(k) + 1));
            assertEquals(0, index.firstPositionAtOrAfter(Long.MIN_VALUE));
        }
    }

    @Test
    void missingAndDamagedFilesAreNamed() throws IOException {
        SSTableFiles f = daSSTable(tmp, 120, false);
        TableSchema schema = CqlParser.parse(CQL);
        Path partitions = f.path(Component.PARTITION_INDEX);
        Path rows = f.path(Component.ROW_INDEX);
        assertEquals(null, PartitionIndex.missingComponent(f));

        // Rows.db gone: the first entry that points there names it (its TOC.txt still lists it)
        byte[] rowsBytes = Files.readAllBytes(rows);
        Files.delete(rows);
        SSTableFiles withoutRows = SSTableFiles.of(f.path(Component.DATA));
        RuntimeException e = assertThrows(RuntimeException.class, () -> {
            try (PartitionIndex index = PartitionIndex.open(withoutRows, schema)) {
                while (index.next()) { /* until the first Rows.db entry */ }
            }
        });
        assertTrue(e.getMessage().contains(rows.toString()), e.getMessage());
        Files.write(rows, rowsBytes);

        // a footer that points outside the file
        byte[] good = Files.readAllBytes(partitions);
        byte[] bad = good.clone();
        bad[bad.length - PartitionsLayout.FOOTER_BYTES] = 0x7F;
        Files.write(partitions, bad);
        CorruptSSTableException c = assertThrows(CorruptSSTableException.class, () -> PartitionIndex.open(f, schema));
        assertEquals(partitions, c.file());
        c = assertThrows(CorruptSSTableException.class, () -> PartitionIndex.boundaryKeys(f));
        assertEquals(partitions, c.file());

        // a root that points past the trie
        bad = good.clone();
        bad[bad.length - 2] = 0x7F;
        Files.write(partitions, bad);
        c = assertThrows(CorruptSSTableException.class, () -> PartitionIndex.open(f, schema));
        assertTrue(c.getMessage().contains("root position"), c.getMessage());

        // cut short
        Files.write(partitions, Arrays.copyOf(good, good.length - 5));
        c = assertThrows(CorruptSSTableException.class, () -> PartitionIndex.open(f, schema));
        assertEquals(partitions, c.file());

        // gone, and TOC.txt without it: named before a command starts
        Files.delete(partitions);
        RuntimeException gone = assertThrows(RuntimeException.class, () -> PartitionIndex.open(SSTableFiles.of(f.path(Component.DATA)), schema));
        assertTrue(gone.getMessage().contains(partitions.toString()), gone.getMessage());
        Path toc = f.path(Component.TOC);
        List<String> lines = new ArrayList<>(Files.readAllLines(toc));
        assertTrue(lines.remove("Partitions.db"), lines.toString());
        Files.write(toc, lines);
        SSTableFiles without = SSTableFiles.of(f.path(Component.DATA));
        assertEquals(partitions, PartitionIndex.missingComponent(without));
    }

    /** Our byte-comparable key form is Cassandra's (OSS50), zero bytes and runs of them included. */
    @Test
    void decoratedKeyFormIsCassandras() {
        CassandraOracle.init();
        Random r = new Random(5);
        for (int n = 0; n < 3000; n++) {
            byte[] key = new byte[r.nextInt(12)];
            for (int i = 0; i < key.length; i++) key[i] = (byte) (r.nextInt(3) == 0 ? 0 : r.nextInt(4) == 0 ? 0xFF : r.nextInt(256));
            DecoratedKey dk = Murmur3Partitioner.instance.decorateKey(ByteBuffer.wrap(key));
            byte[] theirs = ByteSourceInverseBytes.of(dk.asComparableBytes(ByteComparable.Version.OSS50));
            long token = Murmur3.token(key, 0, key.length);
            byte[] ours = new byte[DecoratedKeyBytes.length(key, 0, key.length)];
            assertEquals(ours.length, DecoratedKeyBytes.encode(token, key, 0, key.length, ours));
            assertArrayEquals(theirs, ours, () -> Arrays.toString(key));
        }
    }

    /** The bytes of a byte source. */
    static final class ByteSourceInverseBytes {
        static byte[] of(ByteSource s) {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            int b;
            while ((b = s.next()) != ByteSource.END_OF_STREAM) out.write(b);
            return out.toByteArray();
        }
    }
}

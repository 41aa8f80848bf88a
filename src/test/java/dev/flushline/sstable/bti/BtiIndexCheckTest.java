package dev.flushline.sstable.bti;

import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.RangeTombstone;
import dev.flushline.data.Row;
import dev.flushline.flush.FlushWriter;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.CassandraReferenceWriter;
import dev.flushline.oracle.CassandraVerifier;
import dev.flushline.oracle.Partition;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.CorruptSSTableException;
import dev.flushline.sstable.IncompatibleSSTableException;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.SSTableVerifier;
import dev.flushline.sstable.TableDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The verifier's BTI check on a da sstable Cassandra 5.0.9 writes, with row indexes whose blocks
 * start inside range deletions: it passes it (as Cassandra's verifier does), and reports a flipped
 * bit in each byte of Partitions.db, and in nearly every byte of Rows.db: what passes there are
 * separator bytes flipped into other separators that still lie between their blocks.
 */
class BtiIndexCheckTest {
    static final String CQL = "CREATE TABLE ks.bti_check (pk int, ck int, v text, PRIMARY KEY (pk, ck))"
            + " WITH compression = {'enabled': 'false'}";

    @TempDir
    Path tmp;

    /**
     * Six partitions: the even ones wide (200 rows of 1 KB: a row index of about twelve blocks)
     * with two older range deletions that span several blocks (so blocks start inside them: open
     * markers in Rows.db), the odd ones of two rows; written by Cassandra as da.
     */
    SSTableFiles write() throws IOException {
        CassandraOracle.init();
        TableSchema schema = CqlParser.parse(CQL);
        Memtable m = new SkipListMemtable(schema, AllocationMode.HEAP_BUFFERS);
        for (int pk = 0; pk < 6; pk++) {
            boolean wide = pk % 2 == 0;
            List<Row> rows = new ArrayList<>();
            for (int ck = 0; ck < (wide ? 200 : 2); ck++) {
                byte[] v = ("v" + pk + "-" + ck + "-").repeat(200).substring(0, wide ? 1000 : 10).getBytes(StandardCharsets.UTF_8);
                rows.add(new Row(false, new byte[][] {int32(ck)}, 10, 0, Cell.NO_DELETION_TIME, DeletionTime.LIVE,
                        new Cell[] {Cell.live(10, v, null)}, new ComplexColumn[0]));
            }
            List<RangeTombstone> ranges = !wide ? List.of() : List.of(
                    new RangeTombstone(ClusteringBound.start(true, new byte[][] {int32(20)}), ClusteringBound.end(true, new byte[][] {int32(90)}),
                            DeletionTime.of(5, 1_750_000_000L)),
                    new RangeTombstone(ClusteringBound.start(false, new byte[][] {int32(120)}), ClusteringBound.end(false, new byte[][] {int32(185)}),
                            DeletionTime.of(6, 1_750_000_001L)));
            m.apply(new PartitionUpdate(PartitionKey.of(int32(pk)), DeletionTime.LIVE, ranges, null, rows));
        }
        m.seal();
        Path model = tmp.resolve("model");
        try {
            new FlushWriter(m).write(m.partitionIterator(), m.partitionCount(), TableDirectory.open(model), true, null, 0);
        } finally {
            m.discard();
        }
        List<Partition> content = CassandraReader.readAll(model, CQL);
        Path data = CassandraReferenceWriter.write(tmp.resolve("da"), CQL, content, 5, 1_750_000_000L, 0, content.size(), false, "da");
        return SSTableFiles.of(data);
    }

    static byte[] int32(int v) {
        return ByteBuffer.allocate(4).putInt(v).array();
    }

    @Test
    void passesCassandrasAndReportsFlippedBits() throws IOException {
        SSTableFiles f = write();
        TableSchema schema = CqlParser.parse(CQL);
        assertEquals(List.of(), CassandraVerifier.verify(f.dir(), CQL), "Cassandra's verifier");
        assertTrue(openMarkers(f) >= 6, "blocks that start inside a range deletion: " + openMarkers(f));
        SSTableVerifier.verify(f, schema, true);

        // One bit of every byte (a different bit from byte to byte), each flip on its own.
        for (Component c : new Component[] {Component.PARTITION_INDEX, Component.ROW_INDEX}) {
            Path p = f.path(c);
            byte[] good = Files.readAllBytes(p);
            List<Integer> missed = new ArrayList<>();
            for (int at = 0; at < good.length; at++) {
                byte[] bad = good.clone();
                bad[at] ^= (byte) (1 << (at % 8));
                Files.write(p, bad);
                try {
                    SSTableVerifier.verify(f, schema, false);
                    missed.add(at);
                } catch (CorruptSSTableException | IncompatibleSSTableException e) {
                    // reported, naming a file
                    assertTrue(e.getMessage().startsWith(f.dir().toString()), e.getMessage());
                }
            }
            Files.write(p, good);
            if (c == Component.PARTITION_INDEX) {
                assertEquals(List.of(), missed, "flips in Partitions.db (" + good.length + " bytes) that verify passed");
            } else {
                // What passes: a separator byte flipped into another separator that still lies between its
                // blocks' clusterings, which a lookup serves as well (2 of 538 bytes here; 33 before the check
                // compared separators with the clusterings).
                assertTrue(missed.size() * 100 <= good.length, "flips in Rows.db (" + good.length + " bytes) that verify passed: "
                        + missed);
            }
        }
    }

    /** Row index blocks of {@code f} that start inside a range deletion (payloads with an open marker). */
    static int openMarkers(SSTableFiles f) throws IOException {
        int n = 0;
        try (BtiPartitionIndex index = BtiPartitionIndex.open(f, CqlParser.parse(CQL))) {
            TrieReader partitions = index.trie();
            partitions.start(index.root());
            long node;
            while ((node = partitions.nextPayload()) != TrieReader.NONE) {
                long position = index.payloadPosition((int) node);
                if (PartitionsLayout.isDataPosition(position)) continue;
                RowIndexEntry e = index.rows();
                e.read(position);
                TrieReader rows = new TrieReader(e.file(), e.bytes(), (int) e.entryOffset);
                rows.start(e.root);
                long block;
                while ((block = rows.nextPayload()) != TrieReader.NONE) {
                    if (RowsLayout.hasOpenMarker(rows.payloadFlags((int) block))) n++;
                }
            }
        }
        return n;
    }
}

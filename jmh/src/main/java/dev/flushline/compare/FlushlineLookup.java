package dev.flushline.compare;

import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.CorruptSSTableException;
import dev.flushline.sstable.DataChunks;
import dev.flushline.sstable.PartitionIndex;
import dev.flushline.sstable.SSTableCursor;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.StatisticsReader;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Our point lookup, as {@code flushline dump -k} does it (DumpCommand's Dumper: {@code lookup} then {@code dump}):
 * the sstable's {@link PartitionIndex} (BTI: {@code BtiPartitionIndex}, Partitions.db read into memory, Rows.db
 * or Data.db read for the entry's key; BIG: Summary.db and Index.db) gives the Data.db position of the key, or -1;
 * an {@link SSTableCursor} over Data.db's chunks (CRC checked as they load) seeks there and reads the partition
 * to its end. Every cell's timestamp and value length are summed, so nothing read can be skipped, and so the
 * sums can be compared with Cassandra's reads of the same keys ({@link CassandraLookup}).
 *
 * <p>Left out of dump -k: sorting and de-duplicating the keys (the benchmark looks each key up in the order
 * given) and printing the partition. Like dump, it does not consult Filter.db: an absent key costs a trie walk
 * (and, when the trie ends on an entry, a read of that entry's key), where Cassandra's filter answers first.
 *
 * <p>The index and the cursor are opened once and kept, as dump keeps them for all the keys of one sstable.
 * Not thread-safe.
 */
final class FlushlineLookup implements AutoCloseable {
    private final PartitionIndex index;
    private final SSTableCursor cursor;
    /** What the lookups have read so far: partitions found, rows, cells, and the sum over cells. */
    long partitions, rows, cells, checksum;

    FlushlineLookup(Path dataFile, TableSchema schema) throws IOException {
        SSTableFiles files = SSTableFiles.of(dataFile);
        Path missing = PartitionIndex.missingComponent(files);
        if (missing != null) throw new IOException(missing + ": the lookup needs the partition index, and the sstable lists no such file");
        PartitionIndex opened = PartitionIndex.open(files, schema);
        try {
            this.cursor = new SSTableCursor(DataChunks.open(files, true), StatisticsReader.read(files, schema, false).header);
        } catch (IOException | RuntimeException e) {
            opened.close();
            throw e;
        }
        this.index = opened;
    }

    /** Looks each key up and reads its partition whole; returns how many were found. */
    int lookUp(byte[][] keys) throws IOException {
        final PartitionIndex index = this.index;
        final SSTableCursor c = this.cursor;
        int found = 0;
        long rows = 0, cells = 0, sum = 0;
        for (int i = 0; i < keys.length; i++) {
            byte[] key = keys[i];
            long position = index.position(key, 0, key.length);
            if (position < 0) continue;
            c.seek(position);
            if (c.advance() != SSTableCursor.PARTITION_START) {
                throw new CorruptSSTableException(c.dataPath(), position, "the partition index points at no partition");
            }
            found++;
            int kind;
            while ((kind = c.advance()) != SSTableCursor.PARTITION_END) {
                if (kind != SSTableCursor.ROW) continue;
                SSTableCursor.Row row = c.row();
                int n = row.cellCount();
                for (int k = 0; k < n; k++) {
                    SSTableCursor.Cell cell = row.cell(k);
                    sum += cell.timestamp() + cell.valueLength();
                }
                rows++;
                cells += n;
            }
        }
        this.partitions += found;
        this.rows += rows;
        this.cells += cells;
        this.checksum += sum;
        return found;
    }

    @Override
    public void close() throws IOException {
        try {
            cursor.close();
        } finally {
            index.close();
        }
    }
}

package dev.flushline.sstable.big;

import dev.flushline.data.Murmur3;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.PartitionIndex;
import dev.flushline.sstable.PartitionOrder;
import dev.flushline.sstable.SSTableFiles;

import java.io.IOException;

/**
 * A published BIG sstable's partition index: Index.db, read whole into memory when opened, walked
 * entry by entry for the iteration; Summary.db, read on the first key lookup (if the sstable has
 * one), to start the lookup's scan of Index.db at the last sample before the key. The iteration
 * and the lookups use separate readers over the same bytes, so neither moves the other.
 *
 * <p>Thread safety: none.
 */
public final class BigPartitionIndex implements PartitionIndex {
    private final SSTableFiles files;
    private final TableSchema schema;
    private final IndexReader walk;
    private IndexReader seek;
    private SummaryReader summary;

    private BigPartitionIndex(SSTableFiles files, TableSchema schema, IndexReader walk) {
        this.files = files;
        this.schema = schema;
        this.walk = walk;
    }

    /** Reads the Index.db of {@code files}. */
    public static BigPartitionIndex open(SSTableFiles files, TableSchema schema) throws IOException {
        return new BigPartitionIndex(files, schema, IndexReader.open(files, schema.clusteringColumns()));
    }

    @Override
    public boolean next() {
        if (!walk.hasNext()) return false;
        walk.next();
        return true;
    }

    @Override
    public byte[] keyArray() { return walk.bytes(); }

    @Override
    public int keyOffset() { return walk.keyOffset(); }

    @Override
    public int keyLength() { return walk.keyLength(); }

    @Override
    public long dataPosition() { return walk.dataPosition(); }

    /** A reader over the same Index.db bytes for lookups. */
    private IndexReader seeker() {
        if (seek == null) seek = new IndexReader(walk.file(), walk.bytes(), schema.clusteringColumns(), files.version());
        return seek;
    }

    @Override
    public long position(byte[] key, int offset, int length) throws IOException {
        if (summary == null && files.has(Component.SUMMARY)) {
            summary = SummaryReader.open(files);
        }
        IndexReader index = seeker();
        long token = Murmur3.token(key, offset, length);
        long start = summary == null ? 0 : summary.scanStart(key, offset, length);
        index.seek(Math.max(0, start));
        while (index.hasNext()) {
            index.next();
            byte[] b = index.bytes();
            long t = Murmur3.token(b, index.keyOffset(), index.keyLength());
            int cmp = PartitionOrder.compare(t, b, index.keyOffset(), index.keyLength(), token, key, offset, length);
            if (cmp == 0) return index.dataPosition();
            if (cmp > 0) break;
        }
        return -1;
    }

    /** A walk of Index.db from its start (Summary.db is not consulted). */
    @Override
    public long firstPositionAtOrAfter(long token) {
        IndexReader index = seeker();
        index.seek(0);
        while (index.hasNext()) {
            index.next();
            if (Murmur3.token(index.bytes(), index.keyOffset(), index.keyLength()) >= token) return index.dataPosition();
        }
        return -1;
    }

    @Override
    public void close() {
        // Everything is on the heap.
    }
}

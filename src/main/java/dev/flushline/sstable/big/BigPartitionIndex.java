package dev.flushline.sstable.big;

import dev.flushline.data.Murmur3;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.PartitionIndex;
import dev.flushline.sstable.PartitionOrder;
import dev.flushline.sstable.SSTableFiles;

import java.io.IOException;

/**
 * A published BIG sstable's partition index: Index.db, streamed entry by entry through a window
 * of fixed size for the iteration ({@link IndexReader}), so iterating holds the same memory
 * whatever the file's size; Summary.db, read on the first key lookup (if the sstable has one), to
 * start the lookup's scan of Index.db at the last sample before the key. The iteration and the
 * lookups use separate readers over the file, each opened on first use, so neither moves the
 * other and a caller that only looks up never reads for an iteration.
 *
 * <p>Thread safety: none.
 */
public final class BigPartitionIndex implements PartitionIndex {
    private final SSTableFiles files;
    private final TableSchema schema;
    private IndexReader walk;
    private IndexReader seek;
    private SummaryReader summary;

    private BigPartitionIndex(SSTableFiles files, TableSchema schema) {
        this.files = files;
        this.schema = schema;
    }

    /**
     * The index of {@code files}. Index.db is checked to be a readable regular file here, so a
     * missing one is reported at open, as when it was read whole.
     */
    public static BigPartitionIndex open(SSTableFiles files, TableSchema schema) throws IOException {
        BigPartitionIndex index = new BigPartitionIndex(files, schema);
        index.walk = IndexReader.open(files, schema.clusteringColumns());
        return index;
    }

    @Override
    public boolean next() throws IOException {
        if (!walk.hasNext()) return false;
        walk.next();
        return true;
    }

    @Override
    public byte[] keyArray() { return walk.keyArray(); }

    @Override
    public int keyOffset() { return walk.keyOffset(); }

    @Override
    public int keyLength() { return walk.keyLength(); }

    @Override
    public long dataPosition() { return walk.dataPosition(); }

    /** A reader of Index.db for lookups, through a small window: a lookup reads one index interval of entries. */
    private IndexReader seeker() throws IOException {
        if (seek == null) seek = IndexReader.open(files, schema.clusteringColumns(), IndexReader.LOOKUP_WINDOW_BYTES);
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
            byte[] b = index.keyArray();
            long t = Murmur3.token(b, index.keyOffset(), index.keyLength());
            int cmp = PartitionOrder.compare(t, b, index.keyOffset(), index.keyLength(), token, key, offset, length);
            if (cmp == 0) return index.dataPosition();
            if (cmp > 0) break;
        }
        return -1;
    }

    /** A walk of Index.db from its start (Summary.db is not consulted). */
    @Override
    public long firstPositionAtOrAfter(long token) throws IOException {
        IndexReader index = seeker();
        index.seek(0);
        while (index.hasNext()) {
            index.next();
            if (Murmur3.token(index.keyArray(), index.keyOffset(), index.keyLength()) >= token) return index.dataPosition();
        }
        return -1;
    }

    /** Closes the Index.db readers. A read-only channel loses nothing if its close fails, so that is not reported. */
    @Override
    public void close() {
        closeQuietly(walk);
        closeQuietly(seek);
    }

    private static void closeQuietly(IndexReader r) {
        if (r == null) return;
        try {
            r.close();
        } catch (IOException ignored) {
            // Read-only: nothing written is lost.
        }
    }
}

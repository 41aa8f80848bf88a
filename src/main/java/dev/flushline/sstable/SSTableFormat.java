package dev.flushline.sstable;

import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.big.BigIndexCheck;
import dev.flushline.sstable.big.BigIndexWriter;
import dev.flushline.sstable.big.BigPartitionIndex;
import dev.flushline.sstable.big.SummaryReader;
import dev.flushline.sstable.bti.BtiIndexCheck;
import dev.flushline.sstable.bti.BtiIndexWriter;
import dev.flushline.sstable.bti.BtiPartitionIndex;
import dev.flushline.sstable.bti.RowsLayout;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The sstable formats, each a way of indexing partitions beside the shared components. Every
 * format writes the same Data.db rows, Statistics.db, Filter.db, CompressionInfo.db or CRC.db,
 * Digest.crc32 and TOC.txt, through the same writer and transaction log; what differs is the
 * partition index (BIG: Index.db and Summary.db; BTI: Partitions.db and Rows.db), behind
 * {@link PartitionIndexWriter}, {@link PartitionIndex} and {@link PartitionIndexCheck}, each
 * format's in its own sub-package ({@code big}, {@code bti}). A format is one constant here, its
 * versions in {@link SSTableVersion}, and its sub-package; nothing above {@code sstable} changes.
 * Both are read and written.
 *
 * <p>The format of an sstable comes from its version ({@link SSTableVersion#format()}), and is
 * picked once per sstable: the writer and readers ask it for their index object when they open,
 * never per partition or row. This is the one place where {@code sstable} names its formats'
 * packages; they build on the shared layouts here, so they depend on {@code sstable} and not the
 * other way round anywhere else.
 *
 * <p>Thread safety: immutable.
 */
public enum SSTableFormat {
    /** The format of Cassandra up to 4.x and the default of 5.0: Index.db entries and a Summary.db sample of them. */
    BIG("big", RowIndexBlocks.DEFAULT_COLUMN_INDEX_SIZE_BYTES, Component.INDEX, Component.SUMMARY) {
        @Override
        PartitionIndexWriter newIndexWriter(Descriptor descriptor, TableSchema schema) throws IOException {
            return new BigIndexWriter(descriptor, schema);
        }

        @Override
        PartitionIndex openIndex(SSTableFiles files, TableSchema schema) throws IOException {
            return BigPartitionIndex.open(files, schema);
        }

        @Override
        PartitionIndexCheck openIndexCheck(SSTableFiles files, TableSchema schema) throws IOException {
            return BigIndexCheck.open(files, schema);
        }

        @Override
        Path missingIndexComponent(SSTableFiles files) {
            return files.has(Component.INDEX) ? null : files.path(Component.INDEX); // Summary.db only speeds lookups up
        }

        @Override
        byte[][] boundaryKeys(SSTableFiles files) throws IOException {
            SummaryReader s = SummaryReader.open(files); // it holds both keys: no walk of Index.db
            return new byte[][] {s.firstKey, s.lastKey};
        }
    },

    /**
     * Cassandra 5.0's trie-indexed format: Partitions.db, a byte-ordered trie of the shortest
     * unique prefixes of the partition keys, and Rows.db, a row index trie per wide partition.
     */
    BTI("bti", RowsLayout.DEFAULT_BLOCK_BYTES, Component.PARTITION_INDEX, Component.ROW_INDEX) {
        @Override
        PartitionIndexWriter newIndexWriter(Descriptor descriptor, TableSchema schema) throws IOException {
            return new BtiIndexWriter(descriptor, schema);
        }

        @Override
        PartitionIndex openIndex(SSTableFiles files, TableSchema schema) throws IOException {
            return BtiPartitionIndex.open(files, schema);
        }

        @Override
        PartitionIndexCheck openIndexCheck(SSTableFiles files, TableSchema schema) throws IOException {
            return BtiIndexCheck.open(files, schema);
        }

        @Override
        Path missingIndexComponent(SSTableFiles files) {
            // Rows.db is read only for a partition the trie sends there; a missing one is named then.
            return files.has(Component.PARTITION_INDEX) ? null : files.path(Component.PARTITION_INDEX);
        }

        @Override
        byte[][] boundaryKeys(SSTableFiles files) throws IOException {
            return BtiPartitionIndex.boundaryKeys(files); // Partitions.db's footer holds both
        }
    };

    private final String id;
    private final int rowIndexBlockBytes;
    private final Component[] indexComponents;

    SSTableFormat(String id, int rowIndexBlockBytes, Component... indexComponents) {
        this.id = id;
        this.rowIndexBlockBytes = rowIndexBlockBytes;
        this.indexComponents = indexComponents;
    }

    /**
     * The row index granularity Cassandra 5.0 writes the format with when column_index_size is not
     * set: a partition's rows are cut into index blocks of at least this many bytes.
     */
    public int rowIndexBlockBytes() { return rowIndexBlockBytes; }

    /** The name in file names, after the version and generation: {@code oa-1-big-Data.db}. */
    public String id() { return id; }

    /** The components the format's partition index writer writes, beside the shared ones. */
    Component[] indexComponents() { return indexComponents.clone(); }

    /**
     * Opens the partition index writer of a new sstable; its files go to the descriptor's staging directory.
     */
    abstract PartitionIndexWriter newIndexWriter(Descriptor descriptor, TableSchema schema) throws IOException;

    /** See {@link PartitionIndex#open}. */
    abstract PartitionIndex openIndex(SSTableFiles files, TableSchema schema) throws IOException;

    /** The verifier's index check, or null if the sstable has no partition index to check. */
    abstract PartitionIndexCheck openIndexCheck(SSTableFiles files, TableSchema schema) throws IOException;

    /** See {@link PartitionIndex#missingComponent}. */
    abstract Path missingIndexComponent(SSTableFiles files);

    /** See {@link PartitionIndex#boundaryKeys}. */
    abstract byte[][] boundaryKeys(SSTableFiles files) throws IOException;

    /** {@code big|bti}: for file name patterns. */
    public static String choices() {
        return SSTableVersion.alternatives(values());
    }

    @Override
    public String toString() {
        return id;
    }
}

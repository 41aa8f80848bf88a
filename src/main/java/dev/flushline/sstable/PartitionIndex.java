package dev.flushline.sstable;

import dev.flushline.schema.TableSchema;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The partition index of one published sstable, read through its format (BIG: Index.db, with
 * Summary.db for lookups): every partition's key and Data.db position in partition order, and
 * lookups by key and by token. This is how code outside {@code sstable} (compaction's key counts
 * and slice starts, dump's point lookups) reads an index without naming a component file.
 *
 * <p>Iteration ({@link #next} and the key accessors) and the lookups are independent: a lookup
 * does not move the iteration. Positions are uncompressed Data.db offsets.
 *
 * <p>Granularity: an interface call per partition at most (per key read in iteration), never per
 * row. A corrupt index throws {@link CorruptSSTableException} naming the file and offset.
 *
 * <p>Thread safety: none; one reader per thread.
 */
public interface PartitionIndex extends AutoCloseable {
    /**
     * The index of {@code files}, in its format, read from the components the format needs. A
     * missing or unreadable component is an IOException (or {@link IncompatibleSSTableException}
     * for one that is not a regular file) naming it.
     */
    static PartitionIndex open(SSTableFiles files, TableSchema schema) throws IOException {
        return files.version().format().openIndex(files, schema);
    }

    /**
     * The path of an index component {@link #open} needs that {@code files} does not list (in its
     * TOC.txt, or among its files when it has none), or null: for a command that needs the index
     * to say so before it starts.
     */
    static Path missingComponent(SSTableFiles files) {
        return files.version().format().missingIndexComponent(files);
    }

    /**
     * The first and the last partition key of {@code files} ({@code [0]} and {@code [1]}), read as
     * cheaply as the format allows (BIG: from Summary.db), without the table's schema: for placing
     * a whole sstable by its token range.
     */
    static byte[][] boundaryKeys(SSTableFiles files) throws IOException {
        return files.version().format().boundaryKeys(files);
    }

    /** Moves to the next partition in partition order; false after the last. */
    boolean next() throws IOException;

    /** The array holding the current partition's key at {@link #keyOffset()}. REQUIRES: {@link #next()} returned true. */
    byte[] keyArray();

    int keyOffset();

    int keyLength();

    /** Data.db position of the current partition. */
    long dataPosition();

    /** Data.db position of the partition with key {@code key[offset, offset + length)}, or -1 if there is none. */
    long position(byte[] key, int offset, int length) throws IOException;

    /** Data.db position of the first partition whose token is at least {@code token}, or -1 if there is none. */
    long firstPositionAtOrAfter(long token) throws IOException;

    /** Releases what the reader holds (BIG: its Index.db channels; BTI: the Data.db reader it opens for keys, Partitions.db being read into memory). */
    @Override
    void close();
}

package dev.flushline.sstable.big;

import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.CorruptSSTableException;
import dev.flushline.sstable.PartitionIndexCheck;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.SSTableVerifier;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The verifier's check of a BIG partition index: Index.db holds exactly Data.db's keys at their
 * positions, in order, with promoted indexes whose header length, partition deletion and blocks
 * match the partition; Summary.db (when there is one) samples Index.db at its interval, at full
 * sampling, and holds the first and last keys.
 *
 * <p>Thread safety: none; one per verification.
 */
public final class BigIndexCheck implements PartitionIndexCheck {
    private final IndexReader index;
    private final SummaryReader summary;
    private final Path summaryPath;
    private int summaryNext;
    private boolean promoted;

    private BigIndexCheck(IndexReader index, SummaryReader summary, Path summaryPath) {
        this.index = index;
        this.summary = summary;
        this.summaryPath = summaryPath;
    }

    /**
     * The check of {@code files}' Index.db and Summary.db, or null if it has no Index.db (nothing
     * to check). Summary.db is decoded here, so a corrupt one is reported before Data.db is read.
     */
    public static BigIndexCheck open(SSTableFiles files, TableSchema schema) throws IOException {
        if (!files.has(Component.INDEX)) return null;
        IndexReader index = IndexReader.open(files, schema.clusteringColumns());
        try {
            SummaryReader summary = files.has(Component.SUMMARY) ? SummaryReader.open(files) : null;
            return new BigIndexCheck(index, summary, files.path(Component.SUMMARY));
        } catch (IOException | RuntimeException | Error e) {
            index.close();
            throw e;
        }
    }

    /** Closes Index.db. */
    @Override
    public void close() throws IOException {
        index.close();
    }

    private static String hex(byte[] b, int off, int len) {
        return SSTableVerifier.hex(b, off, len);
    }

    @Override
    public void partition(long ordinal, byte[] b, int ko, int kl, long partitionStart, long deletionTimestamp, long deletionLocalTime)
            throws IOException {
        if (!index.hasNext()) {
            throw new CorruptSSTableException(index.file(), index.fileLength(), "Index.db ends before partition "
                    + hex(b, ko, kl) + " at Data.db byte offset " + partitionStart);
        }
        index.next();
        if (!Arrays.equals(index.keyArray(), index.keyOffset(), index.keyOffset() + index.keyLength(), b, ko, ko + kl)
                || index.dataPosition() != partitionStart) {
            throw new CorruptSSTableException(index.file(), index.entryOffset(), "index entry "
                    + hex(index.keyArray(), index.keyOffset(), index.keyLength()) + " -> " + index.dataPosition()
                    + " does not match partition " + hex(b, ko, kl) + " at Data.db byte offset " + partitionStart);
        }
        promoted = index.blockCount() > 0;
        if (promoted && (index.deletionTimestamp() != deletionTimestamp || index.deletionLocalTime() != deletionLocalTime)) {
            throw new CorruptSSTableException(index.file(), index.entryOffset(), "promoted index partition deletion differs from Data.db's");
        }
        if (summary != null) checkSummary(ordinal);
    }

    private void checkSummary(long ordinal) {
        if (summary.samplingLevel != SummaryBuilder.FULL_SAMPLING_LEVEL) {
            // Cassandra downsamples summaries of live sstables; a freshly written one is at full sampling.
            throw new CorruptSSTableException(summaryPath, 16, "Summary.db sampling level " + summary.samplingLevel
                    + " (only full sampling, " + SummaryBuilder.FULL_SAMPLING_LEVEL + ", is checked)");
        }
        if (summary.minIndexInterval <= 0) throw new CorruptSSTableException(summaryPath, 0, "Summary.db min index interval " + summary.minIndexInterval);
        if (ordinal % summary.minIndexInterval != 0) return;
        int next = summaryNext;
        if (next >= summary.entryCount) {
            throw new CorruptSSTableException(index.file(), index.entryOffset(), "Summary.db has no sample for partition " + ordinal);
        }
        if (summary.indexPosition(next) != index.entryOffset()
                || !Arrays.equals(summary.bytes(), summary.keyOffset(next), summary.keyOffset(next) + summary.keyLength(next),
                index.keyArray(), index.keyOffset(), index.keyOffset() + index.keyLength())) {
            throw new CorruptSSTableException(summaryPath, summary.keyOffset(next), "summary entry " + next + " (" + hex(summary.bytes(), summary.keyOffset(next), summary.keyLength(next))
                    + " -> " + summary.indexPosition(next) + ") does not match Index.db entry " + ordinal + " at " + index.entryOffset());
        }
        summaryNext = next + 1;
    }

    @Override
    public void partitionEnd(long partitionStart, long afterStatic, long partitionEnd) {
        if (!promoted) return;
        long headerLength = afterStatic - partitionStart;
        if (index.headerLength() != headerLength) {
            throw new CorruptSSTableException(index.file(), index.entryOffset(), "promoted index header length " + index.headerLength()
                    + " differs from the partition's " + headerLength);
        }
        long expected = headerLength;
        for (int b = 0; b < index.blockCount(); b++) {
            if (index.blockOffset(b) != expected || index.blockWidth(b) <= 0) {
                throw new CorruptSSTableException(index.file(), index.entryOffset(), "index block " + b + " at offset "
                        + index.blockOffset(b) + " width " + index.blockWidth(b) + " does not follow the previous block (" + expected + ")");
            }
            expected += index.blockWidth(b);
        }
        // The blocks cover the partition's end-of-partition byte too, unless its last row closed the last
        // block: Cassandra's writer adds no block after that, so the byte then lies after the blocks.
        if (partitionStart + expected != partitionEnd && partitionStart + expected != partitionEnd - 1) {
            throw new CorruptSSTableException(index.file(), index.entryOffset(), "index blocks end at partition offset " + expected
                    + "; the partition has " + (partitionEnd - partitionStart) + " bytes");
        }
    }

    @Override
    public void end(long partitions, byte[] firstKey, byte[] lastKey) throws IOException {
        if (index.hasNext()) {
            index.next();
            throw new CorruptSSTableException(index.file(), index.entryOffset(), "Index.db has an entry for "
                    + hex(index.keyArray(), index.keyOffset(), index.keyLength()) + " that Data.db does not have");
        }
        if (summary != null) {
            long expectedEntries = (partitions + summary.minIndexInterval - 1) / summary.minIndexInterval;
            if (summary.entryCount != expectedEntries || summary.sizeAtFullSampling != expectedEntries) {
                throw new CorruptSSTableException(summaryPath, 4, "Summary.db has " + summary.entryCount
                        + " entries (" + summary.sizeAtFullSampling + " at full sampling); " + partitions + " partitions at interval " + summary.minIndexInterval + " need " + expectedEntries);
            }
            if (partitions > 0 && (!Arrays.equals(summary.firstKey, firstKey) || !Arrays.equals(summary.lastKey, lastKey))) {
                throw new CorruptSSTableException(summaryPath, summary.bytes().length,
                        "Summary.db first/last key differ from Data.db's");
            }
        }
    }
}

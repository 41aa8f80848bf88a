package dev.flushline.sstable.bti;

import dev.flushline.data.ClusteringBuffer;
import dev.flushline.data.Murmur3;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.CorruptSSTableException;
import dev.flushline.sstable.DataChunks;
import dev.flushline.sstable.PartitionIndexCheck;
import dev.flushline.sstable.SSTableCursor;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.SSTableVerifier;
import dev.flushline.sstable.StatisticsReader;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The verifier's check of a BTI partition index against Data.db, partition by partition.
 *
 * <p>Partitions.db: the trie's entries, in order, are exactly Data.db's partitions: each entry
 * points at its partition (in Data.db directly, or through a Rows.db entry holding the same key
 * and position), the transition bytes that lead to it are a prefix of the key's byte-comparable
 * form and ends in a leaf (so that a lookup of the key stops there), its hash byte is the key's;
 * the footer counts the partitions and holds the first and last keys. (Cassandra's verifier reads every key through the index and compares it and its position
 * with Data.db's; this is that and more.)
 *
 * <p>Rows.db, for each partition that has a row index: the entry's partition deletion is Data.db's;
 * its trie lies between the previous entry and this one and holds one more entry than the block
 * count, the first with the empty separator at the root; the block offsets rise from the end of
 * the partition header (and static row), each is where a row or range tombstone marker of the
 * partition starts, with the range deletion the payload says is open there (and none for the
 * first); the extra last entry is the partition's end-of-partition byte and opens nothing; the
 * separators rise in the trie's order, and each lies where a lookup needs it: above the
 * byte-comparable form of the previous block's last clustering and not above the block's first
 * (the end entry's: above the partition's last clustering). For that the partition is read a
 * second time, by a cursor of the check's own, when its end is reported. Rows.db ends with the
 * last entry. What passes: a separator changed to another that also lies between its blocks,
 * which a lookup serves as well.
 *
 * <p>Thread safety: none; one per verification.
 */
public final class BtiIndexCheck implements PartitionIndexCheck {
    private final SSTableFiles files;
    private final TableSchema schema;
    private final BtiPartitionIndex index;
    private final TrieReader trie;
    private final Path partitionsPath;
    private final long[] hash = new long[2];
    private byte[] encoded = new byte[64];
    private long entries;

    // The current partition's Rows.db entry, if it has one.
    private boolean indexed;
    private long entryOffset, entryEnd, root;
    private int blockCount;
    /** Where the previous Rows.db entry ended: the next partition's trie starts there. */
    private long rowsEnd;
    private TrieReader rowTrie;
    private SSTableCursor cursor;
    private byte[] previousPath = new byte[32];
    private long[] blockOffsets = new long[16];
    private long[] openTimestamps = new long[16], openLocalTimes = new long[16];
    // Each entry's separator (its trie path): separatorStart/Length into separatorBytes.
    private byte[] separatorBytes = new byte[256];
    private int[] separatorStart = new int[16], separatorLength = new int[16];
    private ClusteringComparableBytes comparable;
    // The byte-comparable form of the previous non-static unfiltered's clustering.
    private byte[] previousClustering = new byte[64];
    private int previousClusteringLength;
    private final ClusteringBuffer clustering;

    private BtiIndexCheck(SSTableFiles files, TableSchema schema, BtiPartitionIndex index) {
        this.files = files;
        this.schema = schema;
        this.index = index;
        this.trie = index.trie();
        this.partitionsPath = files.path(Component.PARTITION_INDEX);
        this.clustering = new ClusteringBuffer(Math.max(1, schema.clusteringColumns().length));
    }

    /**
     * The check of {@code files}' Partitions.db and Rows.db, or null if it has no Partitions.db
     * (nothing to check). Partitions.db's footer is decoded here, so a corrupt one is reported
     * before Data.db is read.
     */
    public static BtiIndexCheck open(SSTableFiles files, TableSchema schema) throws IOException {
        if (!files.has(Component.PARTITION_INDEX)) return null;
        BtiIndexCheck c = new BtiIndexCheck(files, schema, BtiPartitionIndex.open(files, schema));
        if (c.index.keyCount() > 0) c.trie.start(c.index.root());
        return c;
    }

    private static String hex(byte[] b, int off, int len) {
        return SSTableVerifier.hex(b, off, len);
    }

    @Override
    public void partition(long ordinal, byte[] b, int ko, int kl, long dataPosition, long deletionTimestamp, long deletionLocalTime) {
        long node = index.keyCount() == 0 ? TrieReader.NONE : trie.nextPayload();
        if (node == TrieReader.NONE) {
            throw new CorruptSSTableException(partitionsPath, 0, "the trie ends before partition " + hex(b, ko, kl)
                    + " at Data.db byte offset " + dataPosition);
        }
        entries++;
        int at = (int) node;
        Murmur3.hash128(b, ko, kl, hash);
        long token = Murmur3.tokenOfHash(hash[0], kl);
        int n = DecoratedKeyBytes.length(b, ko, kl);
        if (encoded.length < n) encoded = new byte[Math.max(n, encoded.length * 2)];
        DecoratedKeyBytes.encode(token, b, ko, kl, encoded);
        int pathLength = trie.pathLength();
        if (pathLength > n || !Arrays.equals(trie.path(), 0, pathLength, encoded, 0, pathLength)) {
            throw new CorruptSSTableException(partitionsPath, at, "the trie's path to entry " + ordinal + " ("
                    + hex(trie.path(), 0, pathLength) + ") is not a prefix of partition " + hex(b, ko, kl) + "'s key form "
                    + hex(encoded, 0, n));
        }
        if (pathLength < n && trie.slots(at) > 0) {
            // A lookup follows the key's form past a prefix that has branches, and so would miss this entry.
            throw new CorruptSSTableException(partitionsPath, at, "the trie's entry " + ordinal + " for partition " + hex(b, ko, kl)
                    + " has branches below it; a lookup of the key would not stop there");
        }
        int h = index.payloadHash(at);
        if (h >= 0 && h != PartitionsLayout.hashByte(hash[1])) {
            throw new CorruptSSTableException(partitionsPath, trie.payloadOffset(at), "entry " + ordinal + "'s hash byte "
                    + h + " is not partition " + hex(b, ko, kl) + "'s (" + PartitionsLayout.hashByte(hash[1]) + ")");
        }
        long position = index.payloadPosition(at);
        indexed = !PartitionsLayout.isDataPosition(position);
        if (!indexed) {
            long data = PartitionsLayout.dataPosition(position);
            if (data != dataPosition) {
                throw new CorruptSSTableException(partitionsPath, trie.payloadOffset(at), "entry " + ordinal + " points at Data.db "
                        + data + "; partition " + hex(b, ko, kl) + " is at " + dataPosition);
            }
            return;
        }
        RowIndexEntry e = rows();
        e.read(position);
        if (e.entryOffset < rowsEnd) {
            throw new CorruptSSTableException(e.file(), e.entryOffset, "row index entry of partition " + ordinal
                    + " is not after the previous one, which ends at " + rowsEnd);
        }
        if (!Arrays.equals(e.bytes(), e.keyOffset, e.keyOffset + e.keyLength, b, ko, ko + kl) || e.dataPosition != dataPosition) {
            throw new CorruptSSTableException(e.file(), e.entryOffset, "row index entry " + hex(e.bytes(), e.keyOffset, e.keyLength)
                    + " -> " + e.dataPosition + " does not match partition " + hex(b, ko, kl) + " at Data.db byte offset " + dataPosition);
        }
        if (e.deletionTimestamp != deletionTimestamp || e.deletionLocalTime != deletionLocalTime) {
            throw new CorruptSSTableException(e.file(), e.entryOffset, "row index entry's partition deletion ("
                    + e.deletionTimestamp + ", " + e.deletionLocalTime + ") differs from Data.db's (" + deletionTimestamp + ", "
                    + deletionLocalTime + ")");
        }
        if (e.root < rowsEnd) {
            throw new CorruptSSTableException(e.file(), e.entryOffset, "row index trie root " + e.root
                    + " lies in the previous partition's bytes (they end at " + rowsEnd + ")");
        }
        entryOffset = e.entryOffset;
        entryEnd = e.end;
        root = e.root;
        blockCount = e.blockCount;
    }

    private RowIndexEntry rows() {
        try {
            return index.rows();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void partitionEnd(long partitionStart, long afterStatic, long partitionEnd) {
        if (!indexed) return;
        try {
            checkRowIndex(partitionStart, afterStatic, partitionEnd);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        rowsEnd = entryEnd;
    }

    /** Reads the current partition's row index trie and checks it against the partition's rows. */
    private void checkRowIndex(long partitionStart, long afterStatic, long partitionEnd) throws IOException {
        RowIndexEntry e = rows();
        Path rowsPath = e.file();
        if (rowTrie == null) rowTrie = new TrieReader(rowsPath, e.bytes(), e.bytes().length);
        rowTrie.bounds((int) rowsEnd, (int) entryOffset);
        rowTrie.start(root);
        int entriesExpected = blockCount + 1;
        if (blockOffsets.length < entriesExpected) {
            int size = Math.max(entriesExpected, blockOffsets.length * 2);
            blockOffsets = new long[size];
            openTimestamps = new long[size];
            openLocalTimes = new long[size];
            separatorStart = new int[size];
            separatorLength = new int[size];
        }
        int count = 0;
        int separatorEnd = 0;
        int previousLength = -1;
        long node;
        while ((node = rowTrie.nextPayload()) != TrieReader.NONE) {
            // In order, the separators rise: a transition byte changed out of order shows here.
            int length = rowTrie.pathLength();
            if (previousLength >= 0 && Arrays.compareUnsigned(previousPath, 0, previousLength, rowTrie.path(), 0, length) >= 0) {
                throw new CorruptSSTableException(rowsPath, node, "row index separator " + hex(rowTrie.path(), 0, length)
                        + " of block " + count + " does not follow the previous one, " + hex(previousPath, 0, previousLength));
            }
            if (previousPath.length < length) previousPath = new byte[Math.max(length, previousPath.length * 2)];
            System.arraycopy(rowTrie.path(), 0, previousPath, 0, length);
            previousLength = length;
            if (count == entriesExpected) {
                throw new CorruptSSTableException(rowsPath, node, "row index trie at " + root + " holds more than the "
                        + entriesExpected + " entries of its " + blockCount + " blocks");
            }
            if (count == 0 && node != root) {
                throw new CorruptSSTableException(rowsPath, root, "row index trie's first block is not at its root (empty separator)");
            }
            int at = rowTrie.payloadOffset((int) node);
            e.readBlock(at, rowTrie.payloadFlags((int) node));
            if (e.blockOffset < 0 || (count > 0 && e.blockOffset <= blockOffsets[count - 1])) {
                throw new CorruptSSTableException(rowsPath, at, "row index block " + count + " offset " + e.blockOffset
                        + " does not follow the previous block's" + (count > 0 ? " (" + blockOffsets[count - 1] + ")" : ""));
            }
            blockOffsets[count] = e.blockOffset;
            openTimestamps[count] = e.openTimestamp;
            openLocalTimes[count] = e.openLocalTime;
            if (separatorBytes.length < separatorEnd + length) {
                separatorBytes = Arrays.copyOf(separatorBytes, Math.max(separatorEnd + length, separatorBytes.length * 2));
            }
            System.arraycopy(rowTrie.path(), 0, separatorBytes, separatorEnd, length);
            separatorStart[count] = separatorEnd;
            separatorLength[count] = length;
            separatorEnd += length;
            count++;
        }
        if (count != entriesExpected) {
            throw new CorruptSSTableException(rowsPath, root, "row index trie at " + root + " holds " + count
                    + " entries; its " + blockCount + " blocks and the end need " + entriesExpected);
        }
        long headerLength = afterStatic - partitionStart;
        long rowsEndOffset = partitionEnd - partitionStart - 1; // before the end-of-partition byte
        if (blockOffsets[0] != headerLength) {
            throw new CorruptSSTableException(rowsPath, root, "row index's first block starts at partition offset " + blockOffsets[0]
                    + "; the partition's header and static row end at " + headerLength);
        }
        if (blockOffsets[blockCount] != rowsEndOffset || openTimestamps[blockCount] != Long.MIN_VALUE) {
            throw new CorruptSSTableException(rowsPath, root, "row index's end entry says partition offset " + blockOffsets[blockCount]
                    + (openTimestamps[blockCount] != Long.MIN_VALUE ? " with an open marker" : "") + "; the partition's rows end at "
                    + rowsEndOffset);
        }
        checkBlocksAgainstRows(rowsPath, partitionStart);
    }

    /** Reads the partition again and checks that each block starts at an unfiltered, with the deletion open there. */
    private void checkBlocksAgainstRows(Path rowsPath, long partitionStart) throws IOException {
        if (cursor == null) {
            StatisticsReader.Metadata m = StatisticsReader.read(files, schema, false);
            cursor = new SSTableCursor(DataChunks.open(files, true), m.header);
        }
        SSTableCursor c = cursor;
        c.seek(partitionStart);
        if (c.advance() != SSTableCursor.PARTITION_START) {
            throw new CorruptSSTableException(c.dataPath(), partitionStart, "no partition starts where the row index's partition does");
        }
        long openTs = Long.MIN_VALUE, openLdt = Long.MAX_VALUE;
        int block = 0;
        int kind;
        previousClusteringLength = -1;
        while ((kind = c.advance()) == SSTableCursor.ROW || kind == SSTableCursor.MARKER) {
            long offset;
            if (kind == SSTableCursor.ROW) {
                if (c.row().isStatic()) continue;
                offset = c.row().offset() - partitionStart;
            } else {
                offset = c.marker().offset() - partitionStart;
            }
            if (blockOffsets[block] < offset) break; // the block starts inside the previous unfiltered
            int length = comparableClustering(c, kind, offset);
            if (blockOffsets[block] == offset) {
                if (openTimestamps[block] != openTs || openLocalTimes[block] != openLdt) {
                    throw new CorruptSSTableException(rowsPath, root, "row index block " + block + " at partition offset " + offset
                            + " says range deletion (" + openTimestamps[block] + ", " + openLocalTimes[block] + ") is open there; the rows"
                            + " have (" + openTs + ", " + openLdt + ")");
                }
                // Block 0's separator is empty (the trie's root), below everything.
                if (block > 0) checkSeparator(rowsPath, block, comparable.bytes(), length);
                block++;
            }
            if (previousClustering.length < length) previousClustering = new byte[Math.max(length, previousClustering.length * 2)];
            System.arraycopy(comparable.bytes(), 0, previousClustering, 0, length);
            previousClusteringLength = length;
            if (kind == SSTableCursor.MARKER) {
                SSTableCursor.Marker m = c.marker();
                if (m.isBoundary()) {
                    openTs = m.startDeletionTimestamp();
                    openLdt = m.startDeletionLocalTime();
                } else if (m.isStart()) {
                    openTs = m.deletionTimestamp();
                    openLdt = m.deletionLocalTime();
                } else {
                    openTs = Long.MIN_VALUE;
                    openLdt = Long.MAX_VALUE;
                }
            }
        }
        if (block != blockCount) {
            throw new CorruptSSTableException(rowsPath, root, "row index block " + block + " at partition offset " + blockOffsets[block]
                    + " is not where a row or marker of the partition starts");
        }
        // The end entry's key lies above the last clustering, so a lookup past every row stops at the end.
        checkSeparator(rowsPath, blockCount, null, 0);
    }

    /**
     * The byte-comparable form of the cursor's current unfiltered's clustering, into {@link #comparable}'s
     * buffer; returns its length. A value its clustering column's type refuses is corruption of Data.db.
     */
    private int comparableClustering(SSTableCursor c, int kind, long offset) {
        if (comparable == null) comparable = new ClusteringComparableBytes(schema);
        // A null value (a source of null) encodes as Cassandra's null component.
        if (kind == SSTableCursor.ROW) c.row().clusteringInto(clustering);
        else c.marker().clusteringInto(clustering);
        try {
            return comparable.encode(clustering);
        } catch (IllegalArgumentException e) {
            throw new CorruptSSTableException(c.dataPath(), offset, "clustering of the unfiltered at partition offset " + offset + ": "
                    + e.getMessage());
        }
    }

    /**
     * Entry {@code block}'s separator must lie above the previous unfiltered's clustering form (the last of the
     * block before) and, unless {@code first} is null (the end entry), not above {@code first}, the block's first.
     */
    private void checkSeparator(Path rowsPath, int block, byte[] first, int firstLength) {
        int from = separatorStart[block], to = from + separatorLength[block];
        if (previousClusteringLength >= 0
                && Arrays.compareUnsigned(separatorBytes, from, to, previousClustering, 0, previousClusteringLength) <= 0) {
            throw new CorruptSSTableException(rowsPath, root, "row index separator " + hex(separatorBytes, from, to - from) + " of "
                    + (first == null ? "the end entry" : "block " + block) + " is not above the clustering before it, "
                    + hex(previousClustering, 0, previousClusteringLength) + "; a lookup there would start a block late");
        }
        if (first != null && Arrays.compareUnsigned(separatorBytes, from, to, first, 0, firstLength) > 0) {
            throw new CorruptSSTableException(rowsPath, root, "row index separator " + hex(separatorBytes, from, to - from) + " of block "
                    + block + " is above the block's first clustering, " + hex(first, 0, firstLength)
                    + "; a lookup of that clustering would start a block early");
        }
    }

    @Override
    public void end(long partitions, byte[] firstKey, byte[] lastKey) {
        if (index.keyCount() > 0) {
            long node = trie.nextPayload();
            if (node != TrieReader.NONE) {
                throw new CorruptSSTableException(partitionsPath, node, "the trie has an entry (" + (entries + 1)
                        + ") past Data.db's " + partitions + " partitions");
            }
        }
        if (index.keyCount() != partitions) {
            throw new CorruptSSTableException(partitionsPath, trie.bytes().length - 2 * Long.BYTES, "the footer counts "
                    + index.keyCount() + " keys; Data.db has " + partitions + " partitions");
        }
        if (partitions > 0 && (!Arrays.equals(index.firstKey(), firstKey) || !Arrays.equals(index.lastKey(), lastKey))) {
            throw new CorruptSSTableException(partitionsPath, trie.limit(), "first/last key " + hex(index.firstKey(), 0, index.firstKey().length)
                    + "/" + hex(index.lastKey(), 0, index.lastKey().length) + " differ from Data.db's");
        }
        if (files.has(Component.ROW_INDEX)) {
            long length = rowsEnd > 0 ? rows().bytes().length : rowsLength();
            if (rowsEnd != length) {
                throw new CorruptSSTableException(files.path(Component.ROW_INDEX), rowsEnd, "Rows.db has " + (length - rowsEnd)
                        + " bytes after the last row index entry Partitions.db points to");
            }
        }
    }

    private long rowsLength() {
        try {
            return java.nio.file.Files.size(files.path(Component.ROW_INDEX));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            index.close();
        } finally {
            if (cursor != null) cursor.close();
        }
    }
}

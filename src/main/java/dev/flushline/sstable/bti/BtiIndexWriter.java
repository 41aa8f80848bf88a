package dev.flushline.sstable.bti;

import dev.flushline.data.ClusteringBuffer;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.Murmur3;
import dev.flushline.io.FixedBuffer;
import dev.flushline.io.SyncedFileOutput;
import dev.flushline.io.VInt;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.DeletionTimeLayout;
import dev.flushline.sstable.Descriptor;
import dev.flushline.sstable.PartitionIndexWriter;
import dev.flushline.sstable.RowIndexBlocks;
import dev.flushline.sstable.SSTableVersion;

import java.io.IOException;

/**
 * The BTI partition index of one sstable being written: Partitions.db, a trie of the partition
 * keys' shortest distinguishing prefixes ({@link PartitionsLayout}), and Rows.db, a row index trie
 * and an entry for each partition of two or more row index blocks ({@link RowsLayout}). Both tries
 * go through {@link TrieWriter}, which writes nodes as their subtrees complete, so neither file
 * is held in memory.
 *
 * <p>Partitions.db keys: each partition's key is added one partition late, cut to the longer of
 * its distinguishing points with its two neighbours (the first byte where it differs from the
 * previous key and from the next), so the trie holds the shortest prefix that tells the key apart
 * and a lookup confirms the rest against the key stored at the position (and the hash byte).
 * The byte-comparable form starts with the token ({@link DecoratedKeyBytes}), so two keys of
 * different tokens differ within it: their distinguishing point comes from the tokens alone, and
 * the prefix the trie gets is then the token's bytes. Only keys of one token (a hash collision)
 * are encoded whole and compared byte by byte, so the previous key is kept as its raw bytes.
 *
 * <p>Rows.db, per wide partition: block i's key is empty for the first block, else the shortest
 * separator greater than block i-1's last clustering and not greater than block i's first (the
 * common prefix and one byte past the previous last clustering's); its payload is the block's
 * offset from the partition start and the range deletion open where it starts. A last key just
 * past the final block's last clustering (as long as the final separator, one byte raised) maps
 * to where the rows end, so a lookup past every row stops there. The trie is written in one go
 * when the partition is handed over: its node positions depend only on where it starts in
 * Rows.db, which nothing else writes meanwhile.
 *
 * <p>Allocation: buffers grow to the largest key or clustering seen and are reused; nothing is
 * allocated per partition or block after that. The tries' node storage goes back to
 * {@link TrieWriter}'s pool when the sstable is finished or aborted, so the next sstable's writer
 * starts with it grown.
 *
 * <p>Thread safety: none; owned by the sstable's writer thread.
 */
public final class BtiIndexWriter implements PartitionIndexWriter {
    private static final int FILE_BLOCK_BYTES = 256 * 1024;

    private final SSTableVersion version;
    private final SyncedFileOutput partitions;
    private final SyncedFileOutput rows;
    private final TrieWriter partitionTrie;
    private final TrieWriter rowTrie;
    private final ClusteringComparableBytes clusterings;

    // The previous partition, which goes into the trie once the next key is known: its token, its
    // key's bytes (copied: the caller reuses its array), its payload, and its distinguishing point
    // with the partition before it.
    private boolean hasLast;
    private long lastToken;
    private byte[] lastKey = new byte[64];
    private int lastKeyLength;
    private int lastDiffPoint;
    private long lastPosition;
    private int lastHash;
    // Byte-comparable forms, as far as they are needed: the previous key's prefix for the trie, and
    // the next key's beside it when both have one token.
    private byte[] encoded = new byte[64];
    private byte[] nextEncoded = new byte[64];
    private final byte[] payload = new byte[PartitionsLayout.HASH_BYTES + SizedInts.MAX_BYTES + 32];

    // Row index scratch: previous block's last clustering, the last separator, the current key.
    private byte[] prevMax = new byte[64];
    private int prevMaxLength;
    private byte[] separator = new byte[64];
    private int separatorLength;
    private FixedBuffer rowPayload = new FixedBuffer(64);
    private FixedBuffer entry = new FixedBuffer(256);

    /** Creates Partitions.db and Rows.db in {@code descriptor}'s staging directory. */
    public BtiIndexWriter(Descriptor descriptor, TableSchema schema) throws IOException {
        this.version = descriptor.version();
        this.clusterings = new ClusteringComparableBytes(schema);
        SyncedFileOutput p = null;
        try {
            p = new SyncedFileOutput(descriptor.stagingPath(Component.PARTITION_INDEX), FILE_BLOCK_BYTES);
            this.rows = new SyncedFileOutput(descriptor.stagingPath(Component.ROW_INDEX), FILE_BLOCK_BYTES);
        } catch (IOException | RuntimeException e) {
            if (p != null) p.abort();
            throw e;
        }
        this.partitions = p;
        this.partitionTrie = new TrieWriter(partitions);
        this.rowTrie = new TrieWriter(rows);
    }

    @Override
    public void add(byte[] key, int keyLength, long keyHash1, long keyHash2, long dataPosition, long headerLength,
                    long deletionTimestamp, long deletionLocalTime, RowIndexBlocks blocks) throws IOException {
        long position = blocks.blockCount() >= RowsLayout.MIN_BLOCKS
                ? writeRowIndex(key, keyLength, dataPosition, deletionTimestamp, deletionLocalTime, blocks)
                : ~dataPosition;

        long token = Murmur3.tokenOfHash(keyHash1, keyLength);
        if (hasLast) {
            int diffPoint = token != lastToken ? DecoratedKeyBytes.tokenDiffPoint(lastToken, token)
                    : sameTokenDiffPoint(token, key, keyLength);
            addPartition(Math.max(diffPoint, lastDiffPoint));
            lastDiffPoint = diffPoint;
        } else {
            hasLast = true;
            lastDiffPoint = 0;
        }
        if (lastKey.length < keyLength) lastKey = new byte[Math.max(keyLength, lastKey.length * 2)];
        System.arraycopy(key, 0, lastKey, 0, keyLength);
        lastKeyLength = keyLength;
        lastToken = token;
        lastPosition = position;
        lastHash = PartitionsLayout.hashByte(keyHash2);
    }

    /** The distinguishing point of the previous key and this one of the same token: their whole forms compared. */
    private int sameTokenDiffPoint(long token, byte[] key, int keyLength) {
        int lastLength = encodeLast();
        byte[] next = nextEncoded;
        int needed = DecoratedKeyBytes.length(key, 0, keyLength);
        if (next.length < needed) next = nextEncoded = new byte[Math.max(needed, next.length * 2)];
        int nextLength = DecoratedKeyBytes.encode(token, key, 0, keyLength, next);
        return diffPoint(encoded, lastLength, next, nextLength);
    }

    /** Encodes the previous key whole into {@link #encoded}; returns its length. */
    private int encodeLast() {
        int needed = DecoratedKeyBytes.length(lastKey, 0, lastKeyLength);
        if (encoded.length < needed) encoded = new byte[Math.max(needed, encoded.length * 2)];
        return DecoratedKeyBytes.encode(lastToken, lastKey, 0, lastKeyLength, encoded);
    }

    /**
     * One more than the bytes the two keys share: the length of the shortest prefix of either that
     * tells it from the other (the end of the shorter counts as a byte below every byte).
     */
    static int diffPoint(byte[] a, int aLength, byte[] b, int bLength) {
        int n = Math.min(aLength, bLength);
        int i = 0;
        while (i < n && a[i] == b[i]) i++;
        return i + 1;
    }

    /**
     * Adds the previous partition, its key's form cut to {@code prefixLength} bytes (at most the whole
     * form: only equal keys have a distinguishing point past it, and the trie refuses the second).
     */
    private void addPartition(int prefixLength) throws IOException {
        if (prefixLength <= DecoratedKeyBytes.TOKEN_BYTES) {
            DecoratedKeyBytes.putToken(lastToken, encoded);
        } else {
            prefixLength = Math.min(prefixLength, encodeLast());
        }
        int size = SizedInts.nonZeroSize(lastPosition);
        payload[0] = (byte) lastHash;
        SizedInts.write(payload, PartitionsLayout.HASH_BYTES, lastPosition, size);
        partitionTrie.add(encoded, prefixLength, PartitionsLayout.HASH_FLAG + size - 1, payload, PartitionsLayout.HASH_BYTES + size);
    }

    /** Writes the partition's row index trie and entry to Rows.db; returns the entry's position. */
    private long writeRowIndex(byte[] key, int keyLength, long dataPosition, long deletionTimestamp, long deletionLocalTime,
                               RowIndexBlocks blocks) throws IOException {
        int count = blocks.blockCount();
        rowTrie.reset();
        for (int i = 0; i < count; i++) {
            int sepLength;
            if (i == 0) {
                sepLength = 0;
            } else {
                int firstLength = encodeName(blocks, i, true);
                sepLength = separatorGt(prevMax, prevMaxLength, clusterings.bytes(), firstLength);
            }
            DeletionTime open = i == 0 ? DeletionTime.LIVE : blocks.openAfterBlock(i - 1);
            addBlock(sepLength, blocks.blockOffset(i), open);
            int lastLength = encodeName(blocks, i, false);
            prevMax = ensure(prevMax, lastLength);
            System.arraycopy(clusterings.bytes(), 0, prevMax, 0, lastLength);
            prevMaxLength = lastLength;
        }
        // The key past every row: as long as the last separator, one byte raised at the first byte
        // where the last clustering leaves it (a 0xFF cannot be raised: the next byte is, or a zero
        // byte follows the end).
        int common = 0;
        while (common < prevMaxLength && common < separatorLength && prevMax[common] == separator[common]) common++;
        if (common >= prevMaxLength) {
            throw new IllegalStateException("row index: the last clustering does not sort after the last separator");
        }
        separator = ensure(separator, prevMaxLength + 1);
        System.arraycopy(prevMax, 0, separator, 0, common);
        int at = common;
        while (at < prevMaxLength && (prevMax[at] & 0xFF) == 0xFF) separator[at] = prevMax[at++];
        if (at < prevMaxLength) separator[at] = (byte) (prevMax[at] + 1);
        else separator[at] = 0;
        addEntry(separator, at + 1, blocks.endOffset(), DeletionTime.LIVE);
        long root = rowTrie.complete();

        long entryStart = rows.position();
        int size = RowsLayout.KEY_LENGTH_BYTES + keyLength;
        long base = entryStart + size;
        int tail = VInt.sizeOfUnsigned(dataPosition) + VInt.sizeOfSigned(root - base) + VInt.sizeOfUnsigned(count)
                + DeletionTimeLayout.size(version, deletionTimestamp, deletionLocalTime);
        size += tail;
        if (entry.capacity() < size) entry = new FixedBuffer(Math.max(size, entry.capacity() * 2));
        FixedBuffer out = entry;
        out.clear();
        out.putShort(keyLength);
        out.putBytes(key, 0, keyLength);
        out.putUnsignedVInt(dataPosition);
        out.putSignedVInt(root - base);
        out.putUnsignedVInt32(count);
        DeletionTimeLayout.put(version, out, deletionTimestamp, deletionLocalTime);
        FixedBuffer.checkWritten("Rows.db entry", size, out.position());
        rows.write(out.array(), 0, size);
        return entryStart;
    }

    /** Block {@code i}'s first or last name, encoded into {@link #clusterings}' buffer; returns its length. */
    private int encodeName(RowIndexBlocks blocks, int i, boolean first) {
        ClusteringBuffer flyweight = first ? blocks.firstBuffer(i) : blocks.lastBuffer(i);
        if (flyweight != null) return clusterings.encode(flyweight);
        return first ? clusterings.encode(blocks.firstKind(i), blocks.firstValues(i))
                : clusterings.encode(blocks.lastKind(i), blocks.lastValues(i));
    }

    /**
     * Puts into {@link #separator} the shortest key greater than {@code prev} and not greater
     * than {@code next} (their common prefix and one byte: {@code prev}'s next byte plus one, or
     * 0 where {@code prev} ends); returns its length. REQUIRES: prev < next.
     */
    private int separatorGt(byte[] prev, int prevLength, byte[] next, int nextLength) {
        int i = 0;
        while (i < prevLength && i < nextLength && prev[i] == next[i]) i++;
        if (i >= nextLength) {
            throw new IllegalStateException("row index: block names out of order");
        }
        separator = ensure(separator, i + 1);
        System.arraycopy(next, 0, separator, 0, i);
        separator[i] = i < prevLength ? (byte) ((prev[i] & 0xFF) + 1) : 0;
        return i + 1;
    }

    private void addBlock(int sepLength, long offset, DeletionTime open) throws IOException {
        separatorLength = sepLength;
        addEntry(separator, sepLength, offset, open);
    }

    private void addEntry(byte[] k, int kLength, long offset, DeletionTime open) throws IOException {
        int offsetBytes = SizedInts.nonZeroSize(offset);
        if (offsetBytes > RowsLayout.OFFSET_BYTES_MASK) {
            throw new IllegalStateException("row index: partition offset " + offset + " does not fit the row index");
        }
        boolean hasOpen = !open.isLive();
        int size = offsetBytes + (hasOpen ? DeletionTimeLayout.size(version, open) : 0);
        if (rowPayload.capacity() < size) rowPayload = new FixedBuffer(size);
        FixedBuffer out = rowPayload;
        out.clear();
        SizedInts.write(out.array(), 0, offset, offsetBytes);
        out.position(offsetBytes);
        if (hasOpen) DeletionTimeLayout.put(version, out, open);
        FixedBuffer.checkWritten("row index payload", size, out.position());
        rowTrie.add(k, kLength, offsetBytes | (hasOpen ? RowsLayout.OPEN_MARKER_FLAG : 0), out.array(), size);
    }

    private static byte[] ensure(byte[] b, int length) {
        return b.length >= length ? b : java.util.Arrays.copyOf(b, Math.max(length, b.length * 2));
    }

    @Override
    public void finishPartitions() throws IOException {
        rowTrie.release();
        rows.sync();
        rows.close();
    }

    @Override
    public void finish(byte[] firstKey, byte[] lastKeyBytes) throws IOException {
        if (hasLast) addPartition(lastDiffPoint);
        long root = partitionTrie.complete();
        long keys = partitionTrie.count();
        partitionTrie.release();
        long firstKeyPosition = partitions.position();
        FixedBuffer out = new FixedBuffer(PartitionsLayout.MIN_KEYS_BYTES + firstKey.length + lastKeyBytes.length
                + PartitionsLayout.FOOTER_BYTES);
        out.putShort(firstKey.length);
        out.putBytes(firstKey, 0, firstKey.length);
        out.putShort(lastKeyBytes.length);
        out.putBytes(lastKeyBytes, 0, lastKeyBytes.length);
        out.putLong(firstKeyPosition);
        out.putLong(keys);
        out.putLong(root);
        partitions.write(out.array(), 0, out.position());
        partitions.sync();
        partitions.close();
    }

    @Override
    public void abort() {
        partitionTrie.release();
        rowTrie.release();
        partitions.abort();
        rows.abort();
    }
}

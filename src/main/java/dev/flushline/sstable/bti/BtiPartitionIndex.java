package dev.flushline.sstable.bti;

import dev.flushline.data.Murmur3;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.BoundedReader;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.CorruptSSTableException;
import dev.flushline.sstable.DataChunks;
import dev.flushline.sstable.PartitionIndex;
import dev.flushline.sstable.SSTableFiles;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * A published BTI sstable's partition index: Partitions.db ({@link PartitionsLayout}) read whole
 * into memory, its trie walked in order for the iteration and followed for lookups. Each entry's
 * key comes from where its payload points: a Rows.db entry ({@link RowsLayout}; Rows.db is read
 * whole the first time one is met) or the partition's start in Data.db (read through its chunks),
 * since the trie itself holds only the shortest prefix that tells a key from its neighbours.
 *
 * <p>Lookups: {@link #position} follows the key's byte-comparable form ({@link DecoratedKeyBytes})
 * as far as the trie goes, takes the entry it ends on if its hash byte matches, and compares the
 * whole key read from the entry's target. {@link #firstPositionAtOrAfter} follows the token's
 * 9-byte prefix, remembering the nearest greater branch; an entry met on the way is a prefix of
 * the token's form, so its key is read to decide. Both use the trie's stateless accessors and a
 * key buffer of their own, so they leave the iteration where it is.
 *
 * <p>Thread safety: none.
 */
public final class BtiPartitionIndex implements PartitionIndex {
    private final SSTableFiles files;
    private final Path partitionsPath;
    private final TrieReader trie;
    private final long root;
    private final long keyCount;
    private final byte[] firstKey, lastKey;

    private RowIndexEntry rows;
    private DataKeyReader dataKeys;

    // The iteration.
    private boolean started;
    private long entries;
    private byte[] key = new byte[64];
    private byte[] keyArray;
    private int keyOffset, keyLength;
    private long dataPosition;
    private long node;

    // Lookups.
    private final long[] hash = new long[2];
    private byte[] encoded = new byte[64];
    private byte[] resolvedArray;
    private int resolvedOffset, resolvedLength;
    private long resolvedDataPosition;

    private BtiPartitionIndex(SSTableFiles files, Path partitionsPath, byte[] bytes, Footer footer) {
        this.files = files;
        this.partitionsPath = partitionsPath;
        this.trie = new TrieReader(partitionsPath, bytes, (int) footer.firstKeyPosition);
        this.root = footer.root;
        this.keyCount = footer.keyCount;
        this.firstKey = footer.firstKey;
        this.lastKey = footer.lastKey;
    }

    /** Reads the Partitions.db of {@code files} (Rows.db and Data.db are opened when an entry needs them). */
    public static BtiPartitionIndex open(SSTableFiles files, TableSchema schema) throws IOException {
        Path p = files.path(Component.PARTITION_INDEX);
        byte[] bytes = files.readAll(Component.PARTITION_INDEX);
        return new BtiPartitionIndex(files, p, bytes, Footer.read(p, bytes, bytes.length));
    }

    /** The first and last keys of {@code files}, from Partitions.db's footer (its tail only is read). */
    public static byte[][] boundaryKeys(SSTableFiles files) throws IOException {
        Path p = files.path(Component.PARTITION_INDEX);
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size < PartitionsLayout.FOOTER_BYTES + PartitionsLayout.MIN_KEYS_BYTES) {
                throw new CorruptSSTableException(p, 0, size + " bytes is too short for Partitions.db's keys and footer");
            }
            ByteBuffer footer = ByteBuffer.allocate(PartitionsLayout.FOOTER_BYTES);
            readFully(ch, footer, size - PartitionsLayout.FOOTER_BYTES, p);
            long firstKeyPosition = footer.getLong(0);
            long tail = size - firstKeyPosition;
            if (firstKeyPosition < 0 || tail > PartitionsLayout.FOOTER_BYTES + 2L * (PartitionsLayout.KEY_LENGTH_BYTES + 0xFFFF)
                    || tail < PartitionsLayout.FOOTER_BYTES + PartitionsLayout.MIN_KEYS_BYTES) {
                throw new CorruptSSTableException(p, size - PartitionsLayout.FOOTER_BYTES, "first key position " + firstKeyPosition
                        + " does not leave room for two keys before the footer of " + size + " bytes");
            }
            ByteBuffer keys = ByteBuffer.allocate((int) tail);
            readFully(ch, keys, firstKeyPosition, p);
            Footer f = Footer.read(p, keys.array(), keys.capacity(), firstKeyPosition);
            return new byte[][] {f.firstKey, f.lastKey};
        }
    }

    private static void readFully(FileChannel ch, ByteBuffer b, long position, Path p) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b, position + b.position()) < 0) throw new IOException(p + ": ended at byte " + (position + b.position()));
        }
    }

    /** Partitions.db's tail: the two keys and the footer. */
    static final class Footer {
        final long firstKeyPosition, keyCount, root;
        final byte[] firstKey, lastKey;

        private Footer(long firstKeyPosition, long keyCount, long root, byte[] firstKey, byte[] lastKey) {
            this.firstKeyPosition = firstKeyPosition;
            this.keyCount = keyCount;
            this.root = root;
            this.firstKey = firstKey;
            this.lastKey = lastKey;
        }

        /** The tail of the whole file {@code bytes[0, size)}. */
        static Footer read(Path p, byte[] bytes, int size) {
            return read(p, bytes, size, 0);
        }

        /**
         * The tail held in {@code bytes[0, length)}, which are the file's bytes from {@code base}
         * (the file's first key position, or 0 for the whole file).
         */
        static Footer read(Path p, byte[] bytes, int length, long base) {
            long fileSize = base + length;
            if (length < PartitionsLayout.FOOTER_BYTES + PartitionsLayout.MIN_KEYS_BYTES) {
                throw new CorruptSSTableException(p, 0, fileSize + " bytes is too short for Partitions.db's keys and footer");
            }
            int footerAt = length - PartitionsLayout.FOOTER_BYTES;
            BoundedReader in = new BoundedReader(p, bytes, footerAt, length, base);
            long firstKeyPosition = in.i64("first key position");
            long keyCount = in.i64("key count");
            long root = in.i64("root position");
            long footerOffset = base + footerAt;
            if (firstKeyPosition < base || firstKeyPosition > footerOffset - PartitionsLayout.MIN_KEYS_BYTES) {
                throw new CorruptSSTableException(p, footerOffset, "first key position " + firstKeyPosition
                        + " is not before the footer at " + footerOffset);
            }
            if (keyCount < 0) throw new CorruptSSTableException(p, footerOffset + Long.BYTES, "key count " + keyCount);
            if (keyCount > 0 && (root < 0 || root >= firstKeyPosition)) {
                throw new CorruptSSTableException(p, footerOffset + 2 * Long.BYTES, "root position " + root
                        + " is not among the trie's " + firstKeyPosition + " bytes");
            }
            BoundedReader keys = new BoundedReader(p, bytes, (int) (firstKeyPosition - base), footerAt, base);
            byte[] first = key(keys, "first key");
            byte[] last = key(keys, "last key");
            if (keys.hasRemaining()) {
                throw new CorruptSSTableException(p, keys.fileOffset(), keys.remaining() + " stray bytes between the last key and the footer");
            }
            return new Footer(firstKeyPosition, keyCount, root, first, last);
        }

        private static byte[] key(BoundedReader in, String what) {
            long at = in.fileOffset();
            int n = in.length(in.u16(what + " length"), at, what);
            byte[] k = Arrays.copyOfRange(in.array(), in.position(), in.position() + n);
            in.skip(n, what);
            return k;
        }
    }

    long keyCount() { return keyCount; }

    long root() { return root; }

    byte[] firstKey() { return firstKey; }

    byte[] lastKey() { return lastKey; }

    TrieReader trie() { return trie; }

    /** The Rows.db entry reader, reading Rows.db on the first call. */
    RowIndexEntry rows() throws IOException {
        if (rows == null) {
            if (!files.has(Component.ROW_INDEX)) {
                throw new IOException(files.path(Component.ROW_INDEX) + ": Partitions.db points into Rows.db, and the sstable lists no such file");
            }
            rows = new RowIndexEntry(files.path(Component.ROW_INDEX), files.readAll(Component.ROW_INDEX));
        }
        return rows;
    }

    private DataKeyReader dataKeys() throws IOException {
        if (dataKeys == null) dataKeys = new DataKeyReader(DataChunks.open(files, true));
        return dataKeys;
    }

    /** The position the payload of trie node {@code node} holds: see {@link PartitionsLayout}. */
    long payloadPosition(int node) {
        int flags = trie.payloadFlags(node);
        int at = trie.payloadOffset(node);
        int end = at + PartitionsLayout.payloadBytes(flags);
        if (end > trie.limit()) {
            throw new CorruptSSTableException(partitionsPath, at, "trie payload runs past the trie");
        }
        return PartitionsLayout.position(trie.bytes(), at, flags);
    }

    /** The payload's hash byte, or -1 if it has none. */
    int payloadHash(int node) {
        int flags = trie.payloadFlags(node);
        return PartitionsLayout.hasHash(flags) ? trie.bytes()[trie.payloadOffset(node)] & 0xFF : -1;
    }

    /**
     * Reads the key and Data.db position of the entry at trie node {@code node} into
     * {@link #resolvedArray} (a buffer shared by lookups), {@link #resolvedOffset},
     * {@link #resolvedLength} and {@link #resolvedDataPosition}.
     */
    private void resolve(int node) throws IOException {
        long position = payloadPosition(node);
        if (PartitionsLayout.isDataPosition(position)) {
            long data = PartitionsLayout.dataPosition(position);
            DataKeyReader d = dataKeys();
            d.read(data);
            resolvedArray = d.key();
            resolvedOffset = 0;
            resolvedLength = d.keyLength();
            resolvedDataPosition = data;
        } else {
            RowIndexEntry e = rows();
            e.read(position);
            resolvedArray = e.bytes();
            resolvedOffset = e.keyOffset;
            resolvedLength = e.keyLength;
            resolvedDataPosition = e.dataPosition;
        }
    }

    // ---- iteration -----------------------------------------------------------------------------

    @Override
    public boolean next() {
        try {
            if (!started) {
                started = true;
                if (keyCount == 0) {
                    node = TrieReader.NONE;
                    return false;
                }
                trie.start(root);
            }
            node = trie.nextPayload();
            if (node == TrieReader.NONE) {
                if (entries != keyCount) {
                    throw new CorruptSSTableException(partitionsPath, trie.bytes().length - 2 * Long.BYTES, "the footer counts "
                            + keyCount + " keys; the trie holds " + entries);
                }
                return false;
            }
            entries++;
            resolve((int) node);
            if (key.length < resolvedLength) key = new byte[Math.max(resolvedLength, key.length * 2)];
            System.arraycopy(resolvedArray, resolvedOffset, key, 0, resolvedLength);
            keyArray = key;
            keyOffset = 0;
            keyLength = resolvedLength;
            dataPosition = resolvedDataPosition;
            return true;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public byte[] keyArray() { return keyArray; }

    @Override
    public int keyOffset() { return keyOffset; }

    @Override
    public int keyLength() { return keyLength; }

    @Override
    public long dataPosition() { return dataPosition; }

    /** The trie node of the current entry (for the verifier's check of its payload and path). */
    int currentNode() { return (int) node; }

    // ---- lookups -------------------------------------------------------------------------------

    @Override
    public long position(byte[] k, int offset, int length) throws IOException {
        if (keyCount == 0) return -1;
        Murmur3.hash128(k, offset, length, hash);
        long token = Murmur3.tokenOfHash(hash[0], length);
        int n = DecoratedKeyBytes.length(k, offset, length);
        if (encoded.length < n) encoded = new byte[Math.max(n, encoded.length * 2)];
        DecoratedKeyBytes.encode(token, k, offset, length, encoded);
        int at = trie.node(root);
        int i = 0;
        while (i < n) {
            int slot = trie.search(at, encoded[i] & 0xFF);
            if (slot < 0) break;
            at = trie.node(trie.child(at, slot));
            i++;
        }
        // A prefix that ends where the trie has further branches is no key's entry.
        if (trie.payloadFlags(at) == 0 || (i < n && trie.slots(at) > 0)) return -1;
        int h = payloadHash(at);
        if (h >= 0 && h != PartitionsLayout.hashByte(hash[1])) return -1;
        resolve(at);
        return Arrays.equals(resolvedArray, resolvedOffset, resolvedOffset + resolvedLength, k, offset, offset + length)
                ? resolvedDataPosition : -1;
    }

    @Override
    public long firstPositionAtOrAfter(long token) {
        if (keyCount == 0) return -1;
        try {
            byte[] target = new byte[DecoratedKeyBytes.TOKEN_BYTES];
            DecoratedKeyBytes.putToken(token, target);
            long greater = TrieReader.NONE;
            int at = trie.node(root);
            for (int i = 0; i < target.length; i++) {
                if (trie.payloadFlags(at) != 0) {
                    // An entry whose prefix is a prefix of the token's form: its key decides.
                    resolve(at);
                    if (Murmur3.token(resolvedArray, resolvedOffset, resolvedLength) >= token) return resolvedDataPosition;
                }
                int slot = trie.search(at, target[i] & 0xFF);
                int next = trie.nextSlotWithChild(at, slot >= 0 ? slot + 1 : -slot - 1);
                if (next >= 0) greater = trie.child(at, next);
                if (slot < 0) return firstAtOrBelow(greater);
                at = trie.node(trie.child(at, slot));
            }
            // Every key under here has exactly this token.
            return firstAtOrBelow(at);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private long firstAtOrBelow(long position) throws IOException {
        if (position == TrieReader.NONE) return -1;
        long first = trie.firstPayloadAtOrBelow(position);
        if (first == TrieReader.NONE) return -1;
        resolve((int) first);
        return resolvedDataPosition;
    }

    @Override
    public void close() {
        if (dataKeys != null) {
            try {
                dataKeys.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            dataKeys = null;
        }
    }
}

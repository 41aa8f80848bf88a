package dev.flushline.sstable;

import dev.flushline.data.Murmur3;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.CqlType;
import dev.flushline.schema.TableSchema;
import dev.flushline.schema.ValueValidator;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32;

/**
 * Checks one sstable against itself: Digest.crc32 over Data.db; every chunk CRC (CRC.db or the
 * per-chunk CRCs of a compressed file); Data.db decodes (see {@link SSTableCursor}); partitions are
 * in token order and unique, rows in clustering order; every key is in the bloom filter; the
 * partition index agrees with Data.db partition by partition, as the format's
 * {@link PartitionIndexCheck} checks it (BIG: Index.db has exactly those keys at those positions,
 * with promoted indexes whose header, deletion and blocks match the partition; Summary.db samples
 * Index.db at its interval and has the first and last keys; BTI: Partitions.db's trie holds
 * exactly those keys in order, Rows.db's row indexes start their blocks where rows start);
 * Statistics.db's first/last keys and
 * its partition, row and column-set counts match. With {@code extended}, every key, clustering
 * value, cell path and cell value is also validated against its column's type.
 *
 * <p>A failure is a {@link CorruptSSTableException} (file, offset, reason); an sstable we must not
 * read is an {@link IncompatibleSSTableException}; an unreadable file an IOException.
 *
 * <p>Thread safety: stateless; each call works on its own buffers.
 */
public final class SSTableVerifier {
    private SSTableVerifier() {}

    public static void verify(SSTableFiles files, TableSchema schema, boolean extended) throws IOException {
        Path statsPath = files.path(Component.STATISTICS);
        StatisticsReader.Metadata meta = StatisticsReader.read(statsPath, files.readAll(Component.STATISTICS), schema, true, files.version());
        if (files.has(Component.DIGEST)) checkDigest(files);

        try (PartitionIndexCheck index = files.version().format().openIndexCheck(files, schema)) { // may be null
            verifyData(files, schema, extended, meta, index);
        }
    }

    private static void verifyData(SSTableFiles files, TableSchema schema, boolean extended, StatisticsReader.Metadata meta,
                                   PartitionIndexCheck index) throws IOException {
        Path statsPath = files.path(Component.STATISTICS);
        Filter filter = files.has(Component.FILTER) ? Filter.read(files.path(Component.FILTER), files.readAll(Component.FILTER)) : null;

        Path dataPath = files.path(Component.DATA);
        byte[] previousKey = new byte[64];
        int previousKeyLength = -1;
        long previousToken = 0;
        long partitions = 0, rows = 0, columnsSet = 0;
        byte[] firstKey = null;
        byte[] lastKey = new byte[0];
        long[] hash = new long[2];
        long afterStatic = -1;
        long partitionStart = -1;
        ClusteringOrder order = new ClusteringOrder(schema.clusteringColumns());
        try (DataChunks chunks = DataChunks.open(files, true); SSTableCursor c = new SSTableCursor(chunks, meta.header)) {
            chunks.checkExtraChunks();
            int kind;
            while ((kind = c.advance()) != SSTableCursor.END) {
                switch (kind) {
                    case SSTableCursor.PARTITION_START: {
                        SSTableCursor.Partition p = c.partition();
                        byte[] b = c.buffer();
                        int ko = p.keyOffset(), kl = p.keyLength();
                        partitionStart = p.startOffset();
                        Murmur3.hash128(b, ko, kl, hash);
                        long token = Murmur3.tokenOfHash(hash[0], kl);
                        if (previousKeyLength >= 0
                                && PartitionOrder.compare(previousToken, previousKey, 0, previousKeyLength, token, b, ko, kl) >= 0) {
                            throw new CorruptSSTableException(dataPath, partitionStart, "partition key " + hex(b, ko, kl)
                                    + " is not after the previous one in token order (duplicate or out of order)");
                        }
                        if (previousKey.length < kl) previousKey = new byte[Math.max(kl, previousKey.length * 2)];
                        System.arraycopy(b, ko, previousKey, 0, kl);
                        previousKeyLength = kl;
                        previousToken = token;
                        if (firstKey == null) firstKey = Arrays.copyOfRange(b, ko, ko + kl);
                        if (filter != null && !filter.mightContain(hash)) {
                            throw new CorruptSSTableException(filter.path, 0, "the bloom filter lacks partition key " + hex(b, ko, kl)
                                    + " (Data.db byte offset " + partitionStart + ")");
                        }
                        if (extended) checkKey(schema, dataPath, partitionStart, b, ko, kl);
                        if (index != null) {
                            index.partition(partitions, b, ko, kl, partitionStart, p.deletionTimestamp(), p.deletionLocalTime());
                        }
                        partitions++;
                        order.reset();
                        afterStatic = partitionStart + p.headerLength();
                        break;
                    }
                    case SSTableCursor.ROW:
                        if (!c.row().isStatic() || !c.row().isEmpty()) {
                            rows++;
                            columnsSet += columnsWithCells(c.row());
                        }
                        if (c.row().isStatic()) {
                            afterStatic = c.row().endOffset();
                        } else {
                            order.row(c, dataPath);
                        }
                        if (extended) checkRow(c, dataPath);
                        break;
                    case SSTableCursor.MARKER:
                        if (extended) checkMarker(c, dataPath);
                        break;
                    case SSTableCursor.PARTITION_END:
                        if (index != null) index.partitionEnd(partitionStart, afterStatic, c.partition().endOffset());
                        lastKey = Arrays.copyOf(previousKey, previousKeyLength);
                        break;
                    default:
                        break;
                }
            }
        }
        if (index != null) index.end(partitions, firstKey, lastKey);
        if (meta.partitionCount != partitions) {
            throw new CorruptSSTableException(statsPath, 0, "Statistics.db counts " + meta.partitionCount
                    + " partitions; Data.db has " + partitions);
        }
        if (meta.totalRows != rows || meta.totalColumnsSet != columnsSet) {
            throw new CorruptSSTableException(statsPath, 0, "Statistics.db counts " + meta.totalRows + " rows and "
                    + meta.totalColumnsSet + " columns set; Data.db has " + rows + " and " + columnsSet);
        }
        // nb's STATS has no key range (meta.firstKey is null): the index check above covers it (BIG: Summary.db's).
        if (partitions > 0 && meta.firstKey != null && (!Arrays.equals(meta.firstKey, firstKey) || !Arrays.equals(meta.lastKey, lastKey))) {
            throw new CorruptSSTableException(statsPath, 0, "Statistics.db first/last key " + hex(meta.firstKey, 0, meta.firstKey.length)
                    + "/" + hex(meta.lastKey, 0, meta.lastKey.length) + " differ from Data.db's " + hex(firstKey, 0, firstKey.length)
                    + "/" + hex(lastKey, 0, lastKey.length));
        }
    }

    /** The STATS "columns set" of a row: simple cells, and complex columns with at least one cell. */
    private static int columnsWithCells(SSTableCursor.Row r) {
        int n = 0;
        for (int j = 0; j < r.columnCount(); j++) {
            if (!r.isComplex(j) || r.cellCount(j) > 0) n++;
        }
        return n;
    }

    private static void checkDigest(SSTableFiles files) throws IOException {
        Path digestPath = files.path(Component.DIGEST);
        byte[] text = files.readAll(Component.DIGEST);
        long expected;
        try {
            expected = Long.parseLong(new String(text, StandardCharsets.US_ASCII).trim());
        } catch (NumberFormatException e) {
            throw new CorruptSSTableException(digestPath, 0, "Digest.crc32 is not a decimal CRC32");
        }
        CRC32 crc = new CRC32();
        Path dataPath = files.path(Component.DATA);
        try (FileChannel ch = FileChannel.open(dataPath, StandardOpenOption.READ)) {
            ByteBuffer buf = ByteBuffer.allocate(1 << 16);
            while (ch.read(buf) >= 0) {
                buf.flip();
                crc.update(buf);
                buf.clear();
            }
        }
        if (crc.getValue() != expected) {
            throw new CorruptSSTableException(dataPath, 0, "CRC32 of the whole file is " + crc.getValue() + "; Digest.crc32 says " + expected);
        }
    }

    // ---- --extended: values against their types ------------------------------------------------

    private static void checkKey(TableSchema schema, Path file, long at, byte[] b, int off, int len) {
        ColumnMetadata[] pk = schema.partitionKeyColumns();
        if (pk.length == 1) {
            check(pk[0].type(), b, off, len, file, at, "partition key column '" + pk[0].name() + "'");
            return;
        }
        int p = off, end = off + len;
        for (ColumnMetadata c : pk) {
            if (end - p < 2) throw new CorruptSSTableException(file, at, "composite partition key is truncated before '" + c.name() + "'");
            int l = ((b[p] & 0xFF) << 8) | (b[p + 1] & 0xFF);
            p += 2;
            if (l > end - p - 1) throw new CorruptSSTableException(file, at, "composite partition key component '" + c.name() + "' overruns the key");
            check(c.type(), b, p, l, file, at, "partition key column '" + c.name() + "'");
            p += l + 1; // end-of-component byte
        }
        if (p != end) throw new CorruptSSTableException(file, at, "composite partition key has " + (end - p) + " trailing bytes");
    }

    private static void checkRow(SSTableCursor c, Path file) {
        SSTableCursor.Row r = c.row();
        byte[] b = c.buffer();
        ColumnMetadata[] ck = c.header().schema().clusteringColumns();
        for (int i = 0; i < r.clusteringSize(); i++) {
            if (r.clusteringLength(i) < 0) throw new CorruptSSTableException(file, r.offset(), "row clustering column '" + ck[i].name() + "' is null");
            check(ck[i].type(), b, r.clusteringOffset(i), r.clusteringLength(i), file, r.offset(), "clustering column '" + ck[i].name() + "'");
        }
        for (int j = 0; j < r.columnCount(); j++) {
            ColumnMetadata col = r.column(j);
            CqlType t = col.type();
            for (int k = r.firstCell(j); k < r.firstCell(j) + r.cellCount(j); k++) {
                SSTableCursor.Cell cell = r.cell(k);
                if (cell.isTombstone()) continue;
                if (!r.isComplex(j)) {
                    check(t, b, cell.valueOffset(), cell.valueLength(), file, r.offset(), "column '" + col.name() + "'");
                    continue;
                }
                check(t.cellPathType(), b, cell.pathOffset(), cell.pathLength(), file, r.offset(), "cell path of column '" + col.name() + "'");
                CqlType valueType = t.cellValueType(b, cell.pathOffset(), cell.pathLength());
                if (t.kind() == CqlType.Kind.UDT && valueType == null) {
                    throw new CorruptSSTableException(file, r.offset(), "cell path of column '" + col.name() + "' names no field of "
                            + t.typeName() + " (" + t.size() + " fields)");
                }
                if (valueType != null) check(valueType, b, cell.valueOffset(), cell.valueLength(), file, r.offset(), "column '" + col.name() + "'");
                else if (cell.valueLength() != 0) throw new CorruptSSTableException(file, r.offset(), "set element of column '" + col.name() + "' has a value");
            }
        }
    }

    private static void checkMarker(SSTableCursor c, Path file) {
        SSTableCursor.Marker m = c.marker();
        ColumnMetadata[] ck = c.header().schema().clusteringColumns();
        for (int i = 0; i < m.clusteringSize(); i++) {
            if (m.clusteringLength(i) < 0) continue;
            check(ck[i].type(), c.buffer(), m.clusteringOffset(i), m.clusteringLength(i), file, m.offset(), "marker clustering column '" + ck[i].name() + "'");
        }
    }

    private static void check(CqlType t, byte[] b, int off, int len, Path file, long at, String what) {
        String problem = ValueValidator.problem(t, b, off, len);
        if (problem != null) throw new CorruptSSTableException(file, at, what + ": " + problem);
    }

    /** Up to 64 bytes as 0x..., for messages (also the formats' index checks'). */
    public static String hex(byte[] b, int off, int len) {
        StringBuilder sb = new StringBuilder("0x");
        for (int i = off; i < off + Math.min(len, 64); i++) sb.append(String.format("%02x", b[i] & 0xFF));
        if (len > 64) sb.append("...");
        return sb.toString();
    }

    /** Rows of a partition must come in strictly increasing clustering order (the table's comparator). */
    static final class ClusteringOrder {
        private final ColumnMetadata[] columns;
        private final int[] offsets, lengths;
        private byte[] previous = new byte[256];
        private boolean has;

        ClusteringOrder(ColumnMetadata[] columns) {
            this.columns = columns;
            this.offsets = new int[columns.length];
            this.lengths = new int[columns.length];
        }

        void reset() { has = false; }

        void row(SSTableCursor c, Path file) {
            SSTableCursor.Row r = c.row();
            byte[] b = c.buffer();
            if (has) {
                int cmp = 0;
                for (int i = 0; i < columns.length && cmp == 0; i++) {
                    int al = Math.max(lengths[i], 0), bl = Math.max(r.clusteringLength(i), 0);
                    cmp = columns[i].type().compare(previous, offsets[i], al, b, r.clusteringOffset(i), bl);
                    if (columns[i].isReversed()) cmp = -cmp;
                }
                if (cmp >= 0 && columns.length > 0) {
                    throw new CorruptSSTableException(file, r.offset(), "row is not after the previous row in clustering order");
                }
                if (columns.length == 0) throw new CorruptSSTableException(file, r.offset(), "a second row in a table without clustering columns");
            }
            int size = 0;
            for (int i = 0; i < columns.length; i++) size += Math.max(r.clusteringLength(i), 0);
            if (previous.length < size) previous = new byte[Math.max(size, previous.length * 2)];
            int p = 0;
            for (int i = 0; i < columns.length; i++) {
                int len = Math.max(r.clusteringLength(i), 0);
                System.arraycopy(b, r.clusteringOffset(i), previous, p, len);
                offsets[i] = p;
                lengths[i] = r.clusteringLength(i);
                p += len;
            }
            has = true;
        }
    }

    /** Filter.db, read into memory: the membership test of {@link BloomFilterBuilder}. */
    static final class Filter {
        final Path path;
        final byte[] bytes;
        final int hashCount;
        final long capacity;

        private Filter(Path path, byte[] bytes, int hashCount, long capacity) {
            this.path = path;
            this.bytes = bytes;
            this.hashCount = hashCount;
            this.capacity = capacity;
        }

        static Filter read(Path path, byte[] bytes) {
            if (bytes.length == 0) return null; // Cassandra's "always present" stand-in
            BoundedReader in = new BoundedReader(path, bytes);
            int hashes = in.i32("hash count");
            long at = in.fileOffset();
            int words = in.i32("word count");
            if (hashes <= 0 || hashes > 64) throw in.corrupt(0, "bloom filter hash count " + hashes);
            if (words <= 0 || (long) words * BloomFilterBuilder.WORD_BYTES != in.remaining()) {
                throw in.corrupt(at, "bloom filter word count " + words + " does not match the " + in.remaining() + " bytes of bits");
            }
            return new Filter(path, bytes, hashes, (long) words * 64);
        }

        boolean mightContain(long[] hash) {
            long base = hash[1];
            for (int i = 0; i < hashCount; i++) {
                long bit = Math.abs(base % capacity);
                int byteIndex = BloomFilterBuilder.HEADER_BYTES + (int) (bit >>> 3);
                if ((bytes[byteIndex] & (1 << (bit & 7))) == 0) return false;
                base += hash[0];
            }
            return true;
        }
    }
}

package dev.flushline.sstable;

import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ClusteringBuffer;
import dev.flushline.io.FixedBuffer;
import dev.flushline.io.VInt;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.TableSchema;

/**
 * Clustering values on disk, for one table.
 *
 * <pre>
 * values := block*                         -- ceil(n / 32) blocks
 * block  := header:uvint value*            -- header bit 2j: component j is empty, bit 2j+1: null
 * value  := fixed-length types raw, others bytes_v; empty and null values write no bytes
 *
 * row clustering    := values              (no kind, no count)
 * bound / boundary  := kind:u8 size:u16 [values]
 * prefix with kind  := kind:u8 (kind == CLUSTERING ? values : size:u16 [values])   -- IndexInfo
 * </pre>
 *
 * <p>Thread safety: immutable.
 */
public final class ClusteringLayout {
    private final int[] fixedLengths;
    private final String[] names;

    public ClusteringLayout(TableSchema schema) {
        ColumnMetadata[] cols = schema.clusteringColumns();
        fixedLengths = new int[cols.length];
        names = new String[cols.length];
        for (int i = 0; i < cols.length; i++) {
            fixedLengths[i] = cols[i].type().fixedLength();
            names[i] = cols[i].name();
        }
    }

    // One encoding per component, shared by the array form (flush) and the flyweight form (compaction).

    /** Block header bits of component {@code i - blockStart}: 1 when empty (null is never written). */
    private static long headerBits(int i, int blockStart, int length) {
        return length == 0 ? 1L << (2 * (i - blockStart)) : 0;
    }

    private int componentSize(int i, int len) {
        if (len == 0) return 0;
        if (fixedLengths[i] >= 0) {
            checkFixed(i, len);
            return len;
        }
        return VInt.sizeOfUnsigned(len) + len;
    }

    private void putComponent(FixedBuffer out, int i, byte[] src, int offset, int len) {
        if (len == 0) return;
        if (fixedLengths[i] < 0) out.putUnsignedVInt(len);
        out.putBytes(src, offset, len);
    }

    /** Size of {@code values} in block form (no kind, no size). */
    public int valuesSize(byte[][] values) {
        int n = values.length;
        int size = 0;
        for (int blockStart = 0; blockStart < n; blockStart += DataLayout.CLUSTERING_BLOCK_SIZE) {
            int blockEnd = Math.min(n, blockStart + DataLayout.CLUSTERING_BLOCK_SIZE);
            long header = 0;
            for (int i = blockStart; i < blockEnd; i++) header |= headerBits(i, blockStart, values[i].length);
            size += VInt.sizeOfUnsigned(header);
            for (int i = blockStart; i < blockEnd; i++) size += componentSize(i, values[i].length);
        }
        return size;
    }

    public void putValues(FixedBuffer out, byte[][] values) {
        int n = values.length;
        for (int blockStart = 0; blockStart < n; blockStart += DataLayout.CLUSTERING_BLOCK_SIZE) {
            int blockEnd = Math.min(n, blockStart + DataLayout.CLUSTERING_BLOCK_SIZE);
            long header = 0;
            for (int i = blockStart; i < blockEnd; i++) header |= headerBits(i, blockStart, values[i].length);
            out.putUnsignedVInt(header);
            for (int i = blockStart; i < blockEnd; i++) putComponent(out, i, values[i], 0, values[i].length);
        }
    }

    /** Size of a flyweight's values in block form. */
    public int valuesSize(ClusteringBuffer values) {
        int n = values.size();
        int size = 0;
        for (int blockStart = 0; blockStart < n; blockStart += DataLayout.CLUSTERING_BLOCK_SIZE) {
            int blockEnd = Math.min(n, blockStart + DataLayout.CLUSTERING_BLOCK_SIZE);
            long header = 0;
            for (int i = blockStart; i < blockEnd; i++) header |= headerBits(i, blockStart, values.length(i));
            size += VInt.sizeOfUnsigned(header);
            for (int i = blockStart; i < blockEnd; i++) size += componentSize(i, values.length(i));
        }
        return size;
    }

    public void putValues(FixedBuffer out, ClusteringBuffer values) {
        int n = values.size();
        for (int blockStart = 0; blockStart < n; blockStart += DataLayout.CLUSTERING_BLOCK_SIZE) {
            int blockEnd = Math.min(n, blockStart + DataLayout.CLUSTERING_BLOCK_SIZE);
            long header = 0;
            for (int i = blockStart; i < blockEnd; i++) header |= headerBits(i, blockStart, values.length(i));
            out.putUnsignedVInt(header);
            for (int i = blockStart; i < blockEnd; i++) putComponent(out, i, values.source(i), values.offset(i), values.length(i));
        }
    }

    /** kind:u8 size:u16 [values] of a flyweight bound (its kind is the bound's). */
    public int boundSize(ClusteringBuffer values) {
        return 1 + 2 + (values.size() == 0 ? 0 : valuesSize(values));
    }

    public void putBound(FixedBuffer out, ClusteringBuffer values) {
        out.putByte(values.kind());
        out.putShort(values.size());
        if (values.size() > 0) putValues(out, values);
    }

    private void checkFixed(int i, int len) {
        if (len != fixedLengths[i]) {
            throw new IllegalArgumentException("clustering column '" + names[i] + "' value has " + len
                    + " bytes; its type needs exactly " + fixedLengths[i]);
        }
    }

    /** kind:u8 size:u16 [values]: range tombstone markers and the Statistics.db covered slice. */
    public int boundSize(byte[][] values) {
        return 1 + 2 + (values.length == 0 ? 0 : valuesSize(values));
    }

    public void putBound(FixedBuffer out, byte kind, byte[][] values) {
        out.putByte(kind);
        out.putShort(values.length);
        if (values.length > 0) putValues(out, values);
    }

    /** IndexInfo first/last name of a flyweight prefix (its kind is the prefix's). */
    public int prefixSize(ClusteringBuffer values) {
        return values.kind() == ClusteringBound.CLUSTERING ? 1 + valuesSize(values) : boundSize(values);
    }

    public void putPrefix(FixedBuffer out, ClusteringBuffer values) {
        if (values.kind() == ClusteringBound.CLUSTERING) {
            out.putByte(values.kind());
            putValues(out, values);
        } else {
            putBound(out, values);
        }
    }

    /** IndexInfo first/last names: a row clustering or a bound, each with its kind. */
    public int prefixSize(byte kind, byte[][] values) {
        return kind == ClusteringBound.CLUSTERING ? 1 + valuesSize(values) : boundSize(values);
    }

    public void putPrefix(FixedBuffer out, byte kind, byte[][] values) {
        if (kind == ClusteringBound.CLUSTERING) {
            out.putByte(kind);
            putValues(out, values);
        } else {
            putBound(out, kind, values);
        }
    }
}

package dev.flushline.sstable;

import dev.flushline.data.ClusteringBound;
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

    /** Size of {@code values} in block form (no kind, no size). */
    public int valuesSize(byte[][] values) {
        int n = values.length;
        int size = 0;
        for (int blockStart = 0; blockStart < n; blockStart += DataLayout.CLUSTERING_BLOCK_SIZE) {
            int blockEnd = Math.min(n, blockStart + DataLayout.CLUSTERING_BLOCK_SIZE);
            size += VInt.sizeOfUnsigned(blockHeader(values, blockStart, blockEnd));
            for (int i = blockStart; i < blockEnd; i++) {
                int len = values[i].length;
                if (len == 0) continue;
                int fixed = fixedLengths[i];
                if (fixed >= 0) {
                    checkFixed(i, len);
                    size += len;
                } else {
                    size += VInt.sizeOfUnsigned(len) + len;
                }
            }
        }
        return size;
    }

    public void putValues(FixedBuffer out, byte[][] values) {
        int n = values.length;
        for (int blockStart = 0; blockStart < n; blockStart += DataLayout.CLUSTERING_BLOCK_SIZE) {
            int blockEnd = Math.min(n, blockStart + DataLayout.CLUSTERING_BLOCK_SIZE);
            out.putUnsignedVInt(blockHeader(values, blockStart, blockEnd));
            for (int i = blockStart; i < blockEnd; i++) {
                byte[] v = values[i];
                if (v.length == 0) continue;
                if (fixedLengths[i] < 0) out.putUnsignedVInt(v.length);
                out.putBytes(v, 0, v.length);
            }
        }
    }

    private static long blockHeader(byte[][] values, int blockStart, int blockEnd) {
        long header = 0;
        for (int i = blockStart; i < blockEnd; i++) {
            if (values[i].length == 0) header |= 1L << (2 * (i - blockStart));
        }
        return header;
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

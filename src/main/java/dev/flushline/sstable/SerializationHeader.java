package dev.flushline.sstable;

import dev.flushline.io.FixedBuffer;
import dev.flushline.io.VInt;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.TableSchema;

import java.nio.charset.StandardCharsets;

/**
 * The sstable's column set and encoding bases: Statistics.db's HEADER component, and the map from
 * a table column's position to its index in the header, which row bitmaps use.
 *
 * <pre>
 * header := EncodingStats  key_type:bytes_v  clustering_count:uvint clustering_type:bytes_v*
 *           static_count:uvint (name:bytes_v type:bytes_v)*  regular_count:uvint (name:bytes_v type:bytes_v)*
 * </pre>
 *
 * <p>The column set is the columns that appear in the flushed data, as a node's flush uses its
 * memtable's columns; order is the table's header order (simple first, then complex, by name).
 *
 * <p>Thread safety: immutable.
 */
public final class SerializationHeader {
    private final TableSchema schema;
    private final EncodingStats stats;
    private final ColumnMetadata[] statics;
    private final ColumnMetadata[] regulars;
    /** By table position: the column's index among the header's static/regular columns, or -1. */
    private final int[] staticIndex;
    private final int[] regularIndex;

    /** {@code staticIncluded[p]} / {@code regularIncluded[p]}: whether column at position p is in the set. */
    public SerializationHeader(TableSchema schema, EncodingStats stats, boolean[] staticIncluded, boolean[] regularIncluded) {
        this.schema = schema;
        this.stats = stats;
        this.staticIndex = new int[schema.staticColumns().length];
        this.regularIndex = new int[schema.regularColumns().length];
        this.statics = select(schema.staticColumns(), staticIncluded, staticIndex);
        this.regulars = select(schema.regularColumns(), regularIncluded, regularIndex);
    }

    private static ColumnMetadata[] select(ColumnMetadata[] all, boolean[] included, int[] indexOut) {
        int n = 0;
        for (int i = 0; i < all.length; i++) {
            indexOut[i] = included[i] ? n++ : -1;
        }
        ColumnMetadata[] out = new ColumnMetadata[n];
        for (int i = 0; i < all.length; i++) {
            if (included[i]) out[indexOut[i]] = all[i];
        }
        return out;
    }

    public TableSchema schema() { return schema; }

    public EncodingStats stats() { return stats; }

    /** Do not modify. */
    public ColumnMetadata[] staticColumns() { return statics; }

    /** Do not modify. */
    public ColumnMetadata[] regularColumns() { return regulars; }

    public boolean hasStatics() { return statics.length > 0; }

    /**
     * For each static ({@code statics}) or regular column of {@code input}, a header of the same
     * table whose columns of that kind are all among these, its index among these; null when the
     * two have the same columns of that kind (every index maps to itself).
     */
    public int[] indicesOf(SerializationHeader input, boolean statics) {
        ColumnMetadata[] mine = statics ? this.statics : regulars, theirs = statics ? input.statics : input.regulars;
        if (sameNames(mine, theirs)) return null;
        int[] byPosition = statics ? staticIndex : regularIndex;
        int[] map = new int[theirs.length];
        for (int h = 0; h < theirs.length; h++) {
            ColumnMetadata c = theirs[h];
            int i = c.position() < byPosition.length ? byPosition[c.position()] : -1;
            if (i < 0 || !mine[i].name().equals(c.name())) {
                throw new IllegalArgumentException("column " + c.name() + " of the input's header is not in this header");
            }
            map[h] = i;
        }
        return map;
    }

    private static boolean sameNames(ColumnMetadata[] a, ColumnMetadata[] b) {
        if (a.length != b.length) return false;
        for (int i = 0; i < a.length; i++) {
            if (!a[i].name().equals(b[i].name()) || !a[i].marshalName().equals(b[i].marshalName())) return false;
        }
        return true;
    }

    /** Header index of the static column at table position {@code p}, or -1 if not in the header. */
    public int staticIndex(int p) { return staticIndex[p]; }

    public int regularIndex(int p) { return regularIndex[p]; }

    public int serializedSize() {
        int size = stats.serializedSize();
        size += stringSize(schema.partitionKeyMarshalName());
        ColumnMetadata[] ck = schema.clusteringColumns();
        size += VInt.sizeOfUnsigned(ck.length);
        for (ColumnMetadata c : ck) size += stringSize(c.marshalName());
        size += columnsSize(statics) + columnsSize(regulars);
        return size;
    }

    public void serialize(FixedBuffer out) {
        stats.serialize(out);
        putString(out, schema.partitionKeyMarshalName());
        ColumnMetadata[] ck = schema.clusteringColumns();
        out.putUnsignedVInt(ck.length);
        for (ColumnMetadata c : ck) putString(out, c.marshalName());
        putColumns(out, statics);
        putColumns(out, regulars);
    }

    private static int columnsSize(ColumnMetadata[] cols) {
        int size = VInt.sizeOfUnsigned(cols.length);
        for (ColumnMetadata c : cols) {
            size += VInt.sizeOfUnsigned(c.nameBytes().length) + c.nameBytes().length + stringSize(c.marshalName());
        }
        return size;
    }

    private static void putColumns(FixedBuffer out, ColumnMetadata[] cols) {
        out.putUnsignedVInt(cols.length);
        for (ColumnMetadata c : cols) {
            out.putUnsignedVInt(c.nameBytes().length);
            out.putBytes(c.nameBytes(), 0, c.nameBytes().length);
            putString(out, c.marshalName());
        }
    }

    private static int stringSize(String s) {
        int len = s.getBytes(StandardCharsets.UTF_8).length;
        return VInt.sizeOfUnsigned(len) + len;
    }

    private static void putString(FixedBuffer out, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.putUnsignedVInt(b.length);
        out.putBytes(b, 0, b.length);
    }
}

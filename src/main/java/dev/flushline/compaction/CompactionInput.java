package dev.flushline.compaction;

import dev.flushline.data.ClusteringBuffer;
import dev.flushline.data.ClusteringComparator;
import dev.flushline.data.Murmur3;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.CorruptSSTableException;
import dev.flushline.sstable.SSTableCursor;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.SerializationHeader;
import dev.flushline.sstable.StatisticsReader;

import java.io.IOException;

/**
 * One input sstable of a compaction: its cursor, where the cursor is ({@link #state}), the token of
 * the current partition, a flyweight view of the current row's or marker's clustering, and the map
 * from the sstable's header columns to the table's column positions (headers of different
 * sstables hold different column sets).
 *
 * <p>Rows stop after their header ({@link SSTableCursor#deferRowBodies}): the compaction decides per
 * row version whether to {@link #decodeBody} it or {@link #skipBody} it (a version that loses every
 * part of itself to another, {@link RowMerger#losesEverything}); the cursor refuses to advance
 * past a row that got neither.
 *
 * <p>Thread safety: none; owned by the compaction's thread.
 */
final class CompactionInput implements AutoCloseable {
    final int index;
    final SSTableFiles files;
    final SSTableCursor cursor;
    final StatisticsReader.Metadata metadata;
    /** Header index → table position among the static / regular columns. */
    private final int[] staticPosition;
    private final int[] regularPosition;
    final ClusteringBuffer clustering;
    private final ClusteringComparator comparator;
    /** Whether the current row's clustering has an order key ({@link ClusteringComparator#hasOrderKey}), and the key. */
    boolean hasOrderKey;
    long orderKey;

    private boolean closed;
    int state = -1;
    long token;
    /** Cells of this input's rows, counted as their bodies are decoded or skipped (conservation). */
    long cellsRead;
    /** Rows (static rows included) decoded from this input. */
    long rowsRead;

    CompactionInput(int index, SSTableFiles files, SSTableCursor cursor, StatisticsReader.Metadata metadata, TableSchema schema,
                    ClusteringComparator comparator) {
        this.comparator = comparator;
        this.index = index;
        this.files = files;
        this.cursor = cursor;
        this.metadata = metadata;
        SerializationHeader h = cursor.header();
        this.staticPosition = positions(h.staticColumns(), schema.staticColumns());
        this.regularPosition = positions(h.regularColumns(), schema.regularColumns());
        this.clustering = new ClusteringBuffer(schema.clusteringColumns().length);
        cursor.deferRowBodies(true);
    }

    private static int[] positions(ColumnMetadata[] header, ColumnMetadata[] table) {
        int[] out = new int[header.length];
        for (int h = 0; h < header.length; h++) {
            out[h] = -1;
            for (int p = 0; p < table.length; p++) {
                if (table[p].name().equals(header[h].name())) out[h] = p;
            }
            if (out[h] < 0) throw new IllegalStateException("header column " + header[h].name() + " is not in the table");
        }
        return out;
    }

    /**
     * Whether every regular (static) column of this input's header is in input i's header, by
     * table position: then a row of input i with all its header's columns has every column a row
     * of this input can have. Set by {@link #knowOthers}.
     */
    private boolean[] regularWithin, staticWithin;

    /** Fills {@link #columnsWithin}'s tables, once every input of the compaction is open. */
    void knowOthers(CompactionInput[] inputs) {
        regularWithin = new boolean[inputs.length];
        staticWithin = new boolean[inputs.length];
        for (int i = 0; i < inputs.length; i++) {
            regularWithin[i] = within(regularPosition, inputs[i].regularPosition);
            staticWithin[i] = within(staticPosition, inputs[i].staticPosition);
        }
    }

    private static boolean within(int[] mine, int[] theirs) {
        for (int p : mine) {
            boolean found = false;
            for (int q : theirs) found |= p == q;
            if (!found) return false;
        }
        return true;
    }

    /**
     * Whether a row of input {@code w} with all its header's columns (HAS_ALL_COLUMNS) has every
     * column that a row of this input can have, static ({@code isStatic}) or regular.
     */
    boolean columnsWithin(CompactionInput w, boolean isStatic) {
        return (isStatic ? staticWithin : regularWithin)[w.index];
    }

    /** Table position of present column j of the current row. */
    int position(SSTableCursor.Row row, int j) {
        int h = row.columnIndex(j);
        return row.isStatic() ? staticPosition[h] : regularPosition[h];
    }

    /** Advances the cursor and refreshes the token or clustering view for the new item. */
    int advance() throws IOException {
        int s = cursor.advance();
        state = s;
        if (s == SSTableCursor.PARTITION_START) {
            SSTableCursor.Partition p = cursor.partition();
            token = Murmur3.token(cursor.buffer(), p.keyOffset(), p.keyLength());
        } else if (s == SSTableCursor.ROW) {
            SSTableCursor.Row r = rowRead();
            if (r.isStatic()) {
                hasOrderKey = false;
            } else {
                takeClustering(r);
            }
        } else if (s == SSTableCursor.MARKER) {
            markerRead();
        }
        return s;
    }

    /**
     * As {@link #advance} within a partition whose rows the merge takes without comparing them with
     * another input's: those that only this input reaches ({@code Compactor.rowsAlone}), and those
     * under a covering partition deletion that are stepped over ({@code Compactor.skipCoveredInputs}).
     * A row's clustering view is refreshed but not its order key, which is stale until
     * {@link #keyRow} or the next {@link #advance}: the caller hands the slot back to the heap only at
     * a marker (whose view has no key), at the partition's end, or after keyRow.
     */
    int advanceAlone() throws IOException {
        int s = cursor.advance();
        state = s;
        if (s == SSTableCursor.ROW) {
            SSTableCursor.Row r = rowRead();
            if (!r.clusteringInto(clustering)) throw nullClustering(r.offset());
        } else if (s == SSTableCursor.MARKER) {
            markerRead();
        } else if (s == SSTableCursor.PARTITION_START) {
            throw pastPartitionEnd();
        }
        return s;
    }

    private IllegalStateException pastPartitionEnd() {
        return new IllegalStateException("stepped past the partition's end in " + files);
    }

    private void markerRead() {
        SSTableCursor.Marker m = cursor.marker();
        if (!m.clusteringInto(clustering)) throw nullClustering(m.offset());
        hasOrderKey = false;
    }

    private SSTableCursor.Row rowRead() {
        SSTableCursor.Row r = cursor.row();
        rowsRead++;
        if (r.hasShadowableDeletion()) {
            throw new CorruptSSTableException(cursor.dataPath(), r.offset(),
                    "a shadowable row deletion (materialized views only) is not supported by compaction");
        }
        return r;
    }

    private void takeClustering(SSTableCursor.Row r) {
        if (!r.clusteringInto(clustering)) throw nullClustering(r.offset());
        keyRow();
    }

    /** The current row's order key, from its clustering view (see {@link #advanceAlone}). */
    void keyRow() {
        hasOrderKey = comparator.hasOrderKey(clustering);
        if (hasOrderKey) orderKey = comparator.orderKey(clustering);
    }

    /** Decodes the current row's body (its cells), counting its cells as read. */
    void decodeBody() {
        cursor.decodeBody();
        cellsRead += cursor.row().cellCount();
    }

    /** Takes the current row's body undecoded, as {@link SSTableCursor#takePlainBody}, counting its cells as read. */
    void takePlainBody() {
        cursor.takePlainBody();
        cellsRead += cursor.row().columnCount();
    }

    /**
     * Steps over the current row's body without decoding it and returns its cells, counted as read:
     * one per present column, which holds only for a row without complex columns (refused otherwise,
     * as their cells cannot be counted without decoding them).
     */
    int skipBody() {
        SSTableCursor.Row r = cursor.row();
        if (r.hasComplexColumn()) {
            throw new IllegalStateException("the row at " + r.offset() + " of " + files + " has complex columns; its body cannot be skipped");
        }
        int cells = r.columnCount();
        cursor.skipBody();
        cellsRead += cells;
        return cells;
    }

    private CorruptSSTableException nullClustering(long at) {
        return new CorruptSSTableException(cursor.dataPath(), at, "a null clustering value (never written by Cassandra 5.0 or Flushline)");
    }

    boolean atStaticRow() {
        return state == SSTableCursor.ROW && cursor.row().isStatic();
    }

    @Override
    public void close() throws IOException {
        if (closed) return;
        closed = true;
        cursor.close();
    }
}

package dev.flushline.node;

import dev.flushline.data.Cell;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.Row;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.TableSchema;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** Hand-built rows, for the one write of the hand-written history that the operations format cannot express. */
final class Updates {
    private Updates() {}

    static byte[] i32(int v) { return ByteBuffer.allocate(4).putInt(v).array(); }

    static byte[] text(String s) { return s.getBytes(StandardCharsets.UTF_8); }

    /** Builds one row of {@code schema}, placing cells at their columns' positions. */
    static final class RowBuilder {
        private final TableSchema schema;
        private final boolean isStatic;
        private final byte[][] clustering;
        private final Cell[] cells;
        private final ComplexColumn[] complex;
        private long livenessTs = Cell.NO_TIMESTAMP, livenessExp = Cell.NO_DELETION_TIME;
        private int livenessTtl;
        private DeletionTime deletion = DeletionTime.LIVE;

        RowBuilder(TableSchema schema, boolean isStatic, byte[]... clustering) {
            this.schema = schema;
            this.isStatic = isStatic;
            this.clustering = clustering;
            ColumnMetadata[] cols = isStatic ? schema.staticColumns() : schema.regularColumns();
            int complexStart = isStatic ? schema.staticComplexStart() : schema.regularComplexStart();
            cells = new Cell[complexStart];
            complex = new ComplexColumn[cols.length - complexStart];
        }

        /** INSERT's primary key liveness; ttl 0 for none. */
        RowBuilder liveness(long ts, int ttl, long expirationSeconds) {
            livenessTs = ts;
            livenessTtl = ttl;
            livenessExp = ttl == 0 ? Cell.NO_DELETION_TIME : expirationSeconds;
            return this;
        }

        RowBuilder deleted(long ts, long nowSeconds) {
            deletion = DeletionTime.of(ts, nowSeconds);
            return this;
        }

        RowBuilder cell(String column, Cell cell) {
            cells[schema.column(column).position()] = cell;
            return this;
        }

        RowBuilder complex(String column, DeletionTime complexDeletion, Cell... elements) {
            int start = isStatic ? schema.staticComplexStart() : schema.regularComplexStart();
            complex[schema.column(column).position() - start] = new ComplexColumn(complexDeletion, elements);
            return this;
        }

        Row build() {
            return new Row(isStatic, clustering, livenessTs, livenessTtl, livenessExp, deletion, cells, complex);
        }
    }
}

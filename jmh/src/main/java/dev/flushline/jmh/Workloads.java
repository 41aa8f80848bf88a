package dev.flushline.jmh;

import dev.flushline.data.Cell;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.Row;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.MemtablePartition;
import dev.flushline.memtable.RowList;
import dev.flushline.memtable.HashMemtable;
import dev.flushline.memtable.ShardedSkipListMemtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;

/**
 * Workloads the benchmarks share, built outside any measured loop.
 *
 * <p>The default bench workload is cassandra-stress's shape: {@link #STRESS_CQL}, 10 rows per
 * partition, 5 text values of 16 ASCII bytes each, every row an INSERT (primary-key liveness at
 * the row's timestamp, every cell live at the same timestamp, no TTL, no deletions). Partition
 * keys are random longs from a seeded {@link Random}, so token order is unrelated to build order.
 */
public final class Workloads {
    public static final String STRESS_CQL = "CREATE TABLE stress.stress_table (pk bigint, ck int, "
            + "v1 text, v2 text, v3 text, v4 text, v5 text, PRIMARY KEY (pk, ck))";
    public static final int STRESS_ROWS_PER_PARTITION = 10;
    public static final int STRESS_VALUE_BYTES = 16;
    /** Microseconds, late 2025: any positive value works; the header's min timestamp follows it. */
    public static final long BASE_TIMESTAMP = 1_764_000_000_000_000L;

    private Workloads() {}

    /** Which memtable class to build. The sharded one gets one shard per available processor, as Cassandra's default. */
    public enum MemtableKind {
        SKIPLIST, SHARDED, HASH;

        public Memtable create(TableSchema schema, AllocationMode mode) {
            switch (this) {
                case SKIPLIST: return new SkipListMemtable(schema, mode);
                case HASH: return new HashMemtable(schema, mode);
                default: return new ShardedSkipListMemtable(schema, mode, Runtime.getRuntime().availableProcessors());
            }
        }
    }

    /** How the pre-built rows are packed into updates. */
    public enum UpdateShape {
        /** One PartitionUpdate per row: a single-row INSERT, as cassandra-stress sends by default. */
        ROW,
        /** One PartitionUpdate per partition carrying all its rows: a batch per partition. */
        PARTITION
    }

    public static TableSchema stressSchema() {
        return CqlParser.parse(STRESS_CQL);
    }

    /** {@code pk bigint, ck int} plus {@code columns} text columns c0..c{n-1}. */
    public static TableSchema textColumnsSchema(int columns) {
        StringBuilder sb = new StringBuilder("CREATE TABLE bench.text_columns (pk bigint, ck int");
        for (int i = 0; i < columns; i++) sb.append(", c").append(i).append(" text");
        return CqlParser.parse(sb.append(", PRIMARY KEY (pk, ck))").toString());
    }

    /**
     * INSERT-shaped updates for a {@code (pk bigint, ck int, text...)} table: {@code partitions}
     * partitions of {@code rowsPerPartition} rows, each row with every regular column set to
     * {@code valueBytes} random ASCII letters. Partitions in random-key order, rows within a
     * partition in clustering order; every row has its own timestamp.
     */
    public static List<PartitionUpdate> inserts(TableSchema schema, int partitions, int rowsPerPartition, int valueBytes,
                                                UpdateShape shape, long seed) {
        Random random = new Random(seed);
        int columns = schema.regularComplexStart();
        if (columns != schema.regularColumns().length) {
            throw new IllegalArgumentException("inserts() writes simple columns only: " + schema);
        }
        List<PartitionUpdate> out = new ArrayList<>(shape == UpdateShape.ROW ? partitions * rowsPerPartition : partitions);
        long ts = BASE_TIMESTAMP;
        for (int p = 0; p < partitions; p++) {
            PartitionKey key = PartitionKey.of(bigEndian(random.nextLong(), 8));
            List<Row> rows = shape == UpdateShape.PARTITION ? new ArrayList<>(rowsPerPartition) : null;
            for (int r = 0; r < rowsPerPartition; r++) {
                ts++;
                Cell[] cells = new Cell[columns];
                for (int c = 0; c < columns; c++) {
                    cells[c] = Cell.live(ts, asciiLetters(random, valueBytes), null);
                }
                Row row = new Row(false, new byte[][] {bigEndian(r, 4)}, ts, Cell.NO_TTL, Cell.NO_DELETION_TIME,
                        DeletionTime.LIVE, cells, new ComplexColumn[0]);
                if (shape == UpdateShape.ROW) {
                    out.add(new PartitionUpdate(key, DeletionTime.LIVE, List.of(), null, List.of(row)));
                } else {
                    rows.add(row);
                }
            }
            if (shape == UpdateShape.PARTITION) {
                out.add(new PartitionUpdate(key, DeletionTime.LIVE, List.of(), null, rows));
            }
        }
        return out;
    }

    /** A memtable of {@code kind} and {@code mode} holding {@code updates}, sealed. */
    public static Memtable sealedMemtable(MemtableKind kind, AllocationMode mode, TableSchema schema,
                                          List<PartitionUpdate> updates) {
        Memtable m = kind.create(schema, mode);
        for (int i = 0; i < updates.size(); i++) {
            if (!m.apply(updates.get(i))) throw new IllegalStateException("memtable refused a write");
        }
        m.seal();
        return m;
    }

    /** Every row of a sealed memtable in flush order (token, then clustering). */
    public static Row[] rowsInFlushOrder(Memtable m) {
        List<Row> rows = new ArrayList<>();
        Iterator<MemtablePartition> it = m.partitionIterator();
        while (it.hasNext()) {
            for (RowList.Node n = it.next().rows().first(); n != null; n = n.next()) rows.add(n.row());
        }
        return rows.toArray(new Row[0]);
    }

    public static void discard(Memtable m) {
        if (m == null) return;
        if (!m.isSealed()) m.seal();
        if (!m.isDiscarded()) m.discard();
    }

    static byte[] bigEndian(long v, int bytes) {
        byte[] b = new byte[bytes];
        for (int i = bytes - 1; i >= 0; i--) {
            b[i] = (byte) v;
            v >>>= 8;
        }
        return b;
    }

    static byte[] asciiLetters(Random random, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) ('a' + random.nextInt(26));
        return b;
    }

    /** Deletes everything under {@code dir}, and {@code dir} itself when {@code self}. */
    public static void deleteTree(Path dir, boolean self) throws IOException {
        if (!Files.exists(dir)) return;
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                if (e != null) throw e;
                if (self || !d.equals(dir)) Files.delete(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}

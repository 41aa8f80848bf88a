package dev.flushline.spark;

import dev.flushline.data.PartitionKey;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.ValueBuffer;
import dev.flushline.schema.ValueException;
import dev.flushline.writer.FlushlineSSTableWriter;
import dev.flushline.writer.SortedSSTableWriter;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.StructType;

import dev.flushline.schema.TableSchema;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes one task's rows as sstables into one table folder: the only class of the Spark module
 * that drives a Flushline writer, so changing how a task writes changes this class only.
 *
 * <p>Sorted ({@link WritePlan#writesSorted}: split by token range, rows sorted by token, key and
 * clustering as Cassandra orders them): rows go straight into a {@link SortedSSTableWriter}, no
 * memtable. Each column's {@link ColumnConverter} writes its value from the {@code InternalRow}:
 * primitives through the typed setters, text as the row's own UTF-8 bytes, the rest serialized
 * into one arena reset per row. A row whose key is the previous row's continues its partition. Two
 * rows of one primary key, or keys of one token out of their byte order, fail the task with the
 * writer's error naming the keys (the memtable path would merge or reorder them).
 *
 * <p>Otherwise it drives {@link FlushlineSSTableWriter} with the plan's INSERT statement, one
 * reused value array per row; its memtable orders the rows, so the input order only decides how
 * the sstables split.
 *
 * <p>Thread safety: one task thread.
 */
final class RangeWriter {
    private final WritePlan plan;
    private final Path attemptDir;
    private final Path tableDir;
    private final int partition;
    private final int[] ordinals;
    private final ColumnConverter[] converters;
    private final int timestampOrdinal;
    private final int ttlOrdinal;
    private final boolean ttlIsInt;
    private final Object unsetOrNull;
    /** One value per INSERT marker: the columns, then the timestamp and TTL when bound. */
    private final Object[] values;
    private FlushlineSSTableWriter writer;
    private final boolean sorted;
    private SortedSSTableWriter sortedWriter;
    /** Sorted: per partition key column, its index in {@link #converters}. */
    private int[] keyColumns;
    /** Sorted: per clustering column, its index in {@link #converters}. */
    private int[] clusteringColumns;
    /** Sorted: per bound column, the sorted writer's index of a regular column, or -1 for a key column. */
    private int[] cellColumns;
    /** Sorted: the row's serialized values (reset per row; arrays it leaves stay valid until then). */
    private final ValueBuffer arena = new ValueBuffer(256);
    /** Sorted: the row's partition key components, then (when composite) the key. */
    private final ValueBuffer keyBuffer = new ValueBuffer(64);
    /** Sorted, composite key: each component's length in {@link #keyBuffer}. */
    private int[] componentLengths;
    private long rows;
    private boolean closed;

    /** Writes into {@code attemptDir}'s table folder; attemptDir must not exist yet, its parent must. */
    RangeWriter(WritePlan plan, Path attemptDir, int partition) {
        this.plan = plan;
        this.attemptDir = attemptDir;
        this.tableDir = attemptDir.resolve(plan.tableFolder);
        this.partition = partition;
        TableSchema schema = plan.options.schema();
        StructType input = plan.inputSchema;
        this.ordinals = plan.columnOrdinals;
        this.converters = new ColumnConverter[ordinals.length];
        for (int i = 0; i < ordinals.length; i++) {
            String name = plan.columnNames[i];
            converters[i] = ColumnConverter.of(name, schema.column(name).type(), input.fields()[ordinals[i]].dataType());
        }
        this.timestampOrdinal = plan.timestampOrdinal;
        this.ttlOrdinal = plan.ttlOrdinal;
        DataType ttlType = ttlOrdinal >= 0 ? input.fields()[ttlOrdinal].dataType() : null;
        this.ttlIsInt = ttlType instanceof IntegerType;
        this.unsetOrNull = plan.options.ignoreNulls ? FlushlineSSTableWriter.UNSET_VALUE : null;
        this.sorted = plan.writesSorted();
        this.values = new Object[ordinals.length + (timestampOrdinal >= 0 ? 1 : 0) + (ttlOrdinal >= 0 ? 1 : 0)];
    }

    void add(InternalRow row) throws IOException {
        if (sorted) {
            addSorted(row);
            return;
        }
        if (writer == null) writer = open();
        int n = ordinals.length;
        for (int i = 0; i < n; i++) {
            int o = ordinals[i];
            values[i] = row.isNullAt(o) ? unsetOrNull : converters[i].convert(row, o);
        }
        int next = n;
        if (timestampOrdinal >= 0) {
            // A Spark timestamp is microseconds since the epoch, as a Cassandra write time; so is a bigint here.
            values[next++] = row.isNullAt(timestampOrdinal) ? FlushlineSSTableWriter.UNSET_VALUE : (Object) row.getLong(timestampOrdinal);
        }
        if (ttlOrdinal >= 0) values[next] = row.isNullAt(ttlOrdinal) ? null : (Object) ttl(row); // null: no TTL
        try {
            writer.addRow(values);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("flushline: Spark partition " + partition + ", " + e.getMessage(), e);
        }
        rows++;
    }

    private void addSorted(InternalRow row) throws IOException {
        if (sortedWriter == null) sortedWriter = openSorted();
        SortedSSTableWriter w = sortedWriter;
        try {
            long timestamp = timestampOrdinal >= 0 && !row.isNullAt(timestampOrdinal) ? row.getLong(timestampOrdinal) : nowMicros();
            int ttl = ttl(row);
            startPartition(w, row);
            arena.reset();
            w.startRow(timestamp, ttl, true);
            int[] ck = clusteringColumns;
            for (int i = 0; i < ck.length; i++) {
                int o = ordinals[ck[i]];
                if (row.isNullAt(o)) throw new IllegalArgumentException("clustering column '" + plan.columnNames[ck[i]] + "' is null");
                converters[ck[i]].clustering(w, i, row, o, arena);
            }
            int[] cells = cellColumns;
            boolean ignoreNulls = plan.options.ignoreNulls;
            for (int i = 0; i < cells.length; i++) {
                int c = cells[i];
                if (c < 0) continue;
                int o = ordinals[i];
                if (!row.isNullAt(o)) converters[i].set(w, c, row, o, arena);
                else if (!ignoreNulls) w.setNull(c);
            }
            w.endRow();
        } catch (IllegalArgumentException | IllegalStateException | ValueException e) {
            throw new IllegalArgumentException("flushline: Spark partition " + partition + ", " + e.getMessage(), e);
        }
        rows++;
    }

    /** The row's TTL in seconds; 0 (none) when there is no TTL column or it is null. */
    private int ttl(InternalRow row) {
        if (ttlOrdinal < 0 || row.isNullAt(ttlOrdinal)) return 0;
        long ttl = ttlIsInt ? row.getInt(ttlOrdinal) : row.getLong(ttlOrdinal);
        if (ttl < 0 || ttl > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("flushline: TTL column '" + plan.inputSchema.fields()[ttlOrdinal].name() + "' (Spark "
                    + plan.inputSchema.fields()[ttlOrdinal].dataType().simpleString() + "): value " + ttl + " is not a TTL in seconds");
        }
        return (int) ttl;
    }

    /** A null or absent timestamp: "now" in microseconds, fixed by the nowMillis option, else the clock's at each row. */
    private long nowMicros() {
        return (plan.options.nowMillis >= 0 ? plan.options.nowMillis : System.currentTimeMillis()) * 1000L;
    }

    private SortedSSTableWriter openSorted() throws IOException {
        createDirectories();
        TableSchema schema = plan.options.schema();
        SortedSSTableWriter.Builder b = SortedSSTableWriter.builder(plan.options.effectiveTableCql, tableDir)
                .sstableVersion(plan.options.sstableVersion);
        if (plan.options.maxSSTableSizeMiB > 0) b.maxSSTableSizeBytes(plan.options.maxSSTableSizeMiB * 1024L * 1024L);
        if (plan.options.nowMillis >= 0) b.nowMillis(plan.options.nowMillis);
        SortedSSTableWriter w = b.build();
        ColumnMetadata[] pk = schema.partitionKeyColumns();
        ColumnMetadata[] ck = schema.clusteringColumns();
        keyColumns = new int[pk.length];
        clusteringColumns = new int[ck.length];
        componentLengths = new int[pk.length];
        for (int i = 0; i < pk.length; i++) keyColumns[i] = bound(pk[i].name());
        for (int i = 0; i < ck.length; i++) clusteringColumns[i] = bound(ck[i].name());
        cellColumns = new int[ordinals.length];
        for (int i = 0; i < ordinals.length; i++) {
            ColumnMetadata c = schema.column(plan.columnNames[i]);
            cellColumns[i] = c.role() == ColumnMetadata.Role.PARTITION_KEY || c.role() == ColumnMetadata.Role.CLUSTERING ? -1 : w.column(c.name());
        }
        return w;
    }

    /** The index among the bound columns of the (primary key) column {@code name}: the plan requires it bound. */
    private int bound(String name) {
        for (int i = 0; i < plan.columnNames.length; i++) if (plan.columnNames[i].equals(name)) return i;
        throw new IllegalStateException("flushline: primary key column '" + name + "' is not in the plan");
    }

    private void createDirectories() throws IOException {
        // The attempt directory, not its parents: once the driver has removed the staging root (the
        // write committed or aborted), a late speculative attempt fails here instead of leaving files.
        Files.createDirectory(attemptDir);
        Files.createDirectories(tableDir);
    }

    /** Starts the row's partition unless it is the open one (the previous row's key). */
    private void startPartition(SortedSSTableWriter w, InternalRow row) throws IOException {
        int[] pk = keyColumns;
        keyBuffer.reset();
        int keyOffset;
        int keyLength;
        if (pk.length == 1) {
            int o = ordinals[pk[0]];
            if (row.isNullAt(o)) throw new IllegalArgumentException("partition key column '" + plan.columnNames[pk[0]] + "' is null");
            converters[pk[0]].serialize(row, o, keyBuffer);
            keyOffset = 0;
            keyLength = keyBuffer.position();
        } else {
            int[] componentLengths = this.componentLengths;
            int size = 0;
            for (int i = 0; i < pk.length; i++) {
                int o = ordinals[pk[i]];
                if (row.isNullAt(o)) throw new IllegalArgumentException("partition key column '" + plan.columnNames[pk[i]] + "' is null");
                int before = keyBuffer.position();
                converters[pk[i]].serialize(row, o, keyBuffer);
                componentLengths[i] = keyBuffer.position() - before;
                size += PartitionKey.COMPONENT_OVERHEAD_BYTES + componentLengths[i];
            }
            // The components lie one after another from 0; the key is composed after them.
            int componentsEnd = keyBuffer.position();
            keyBuffer.ensure(size);
            byte[] b = keyBuffer.array();
            int from = 0;
            int at = componentsEnd;
            for (int i = 0; i < pk.length; i++) {
                int length = componentLengths[i];
                at = PartitionKey.putComponent(b, at, b, from, length);
                from += length;
            }
            keyBuffer.advance(size);
            keyOffset = componentsEnd;
            keyLength = size;
        }
        byte[] key = keyBuffer.array();
        if (w.inPartition(key, keyOffset, keyLength)) return;
        if (w.isPartitionOpen()) w.endPartition();
        w.startPartition(key, keyOffset, keyLength, row.getLong(plan.tokenOrdinal));
    }
    private FlushlineSSTableWriter open() throws IOException {
        createDirectories();
        FlushlineSSTableWriter.Builder b = FlushlineSSTableWriter.builder()
                .inDirectory(tableDir)
                .forTable(plan.options.effectiveTableCql)
                .using(plan.insertCql)
                .withSSTableVersion(plan.options.sstableVersion);
        if (plan.options.maxSSTableSizeMiB > 0) b.withMaxSSTableSizeInMiB(plan.options.maxSSTableSizeMiB);
        if (plan.options.nowMillis >= 0) b.withNowMillis(plan.options.nowMillis);
        if (plan.options.bufferSizeMiB > 0) b.withBufferSizeInMiB(plan.options.bufferSizeMiB);
        return b.build();
    }

    long rows() {
        return rows;
    }

    /** Flushes what is buffered (sorted: ends the open partition) and publishes every sstable; returns how many were written. */
    int finish() throws IOException {
        closed = true;
        if (sortedWriter != null) {
            if (sortedWriter.isPartitionOpen()) sortedWriter.endPartition();
            sortedWriter.close();
            return sortedWriter.dataFiles().size();
        }
        if (writer == null) return 0;
        writer.close();
        return writer.dataFiles().size();
    }

    /**
     * Stops the writer after a failure; its files are the caller's to delete. The sorted writer
     * aborts, removing what it wrote; the memtable writer is closed, which flushes its memtable
     * first (it has no abort).
     */
    void abandon() {
        if (closed) return;
        closed = true;
        if (sortedWriter != null) {
            sortedWriter.abort();
            return;
        }
        if (writer == null) return;
        try {
            writer.close();
        } catch (IOException | RuntimeException e) {
            // The attempt is being thrown away; its staging directory is deleted next.
        }
    }
}

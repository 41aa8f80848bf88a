package dev.flushline.spark;

import dev.flushline.writer.FlushlineSSTableWriter;

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
 * that drives the Flushline writer, so changing how a task writes (say, to a sorted row API
 * without a memtable) changes this class only.
 *
 * <p>Today it drives {@link FlushlineSSTableWriter} with the plan's INSERT statement: each row's
 * columns are read from the {@code InternalRow} by a {@link ColumnConverter} chosen once per
 * column, into one reused value array. The writer buffers rows in a memtable and flushes them in
 * token and clustering order, so the input order only decides how the sstables split.
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
        this.values = new Object[ordinals.length + (timestampOrdinal >= 0 ? 1 : 0) + (ttlOrdinal >= 0 ? 1 : 0)];
    }

    void add(InternalRow row) throws IOException {
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
        if (ttlOrdinal >= 0) {
            if (row.isNullAt(ttlOrdinal)) {
                values[next] = null; // no TTL
            } else if (ttlIsInt) {
                values[next] = row.getInt(ttlOrdinal);
            } else {
                long ttl = row.getLong(ttlOrdinal);
                if (ttl < 0 || ttl > Integer.MAX_VALUE) {
                    throw new IllegalArgumentException("flushline: TTL column '" + plan.inputSchema.fields()[ttlOrdinal].name() + "' (Spark bigint): value "
                            + ttl + " is not a TTL in seconds");
                }
                values[next] = (int) ttl;
            }
        }
        try {
            writer.addRow(values);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("flushline: Spark partition " + partition + ", " + e.getMessage(), e);
        }
        rows++;
    }

    private FlushlineSSTableWriter open() throws IOException {
        // The attempt directory, not its parents: once the driver has removed the staging root (the
        // write committed or aborted), a late speculative attempt fails here instead of leaving files.
        Files.createDirectory(attemptDir);
        Files.createDirectories(tableDir);
        FlushlineSSTableWriter.Builder b = FlushlineSSTableWriter.builder()
                .inDirectory(tableDir)
                .forTable(plan.options.effectiveTableCql)
                .using(plan.insertCql)
                .withSSTableVersion(plan.options.sstableVersion)
                .sorted();
        if (plan.options.maxSSTableSizeMiB > 0) b.withMaxSSTableSizeInMiB(plan.options.maxSSTableSizeMiB);
        if (plan.options.nowMillis >= 0) b.withNowMillis(plan.options.nowMillis);
        if (plan.options.bufferSizeMiB > 0) b.withBufferSizeInMiB(plan.options.bufferSizeMiB);
        return b.build();
    }

    long rows() {
        return rows;
    }

    /** Flushes what is buffered and waits for every sstable; returns how many were written. */
    int finish() throws IOException {
        closed = true;
        if (writer == null) return 0;
        writer.close();
        return writer.dataFiles().size();
    }

    /** Stops the writer after a failure; its files are the caller's to delete. */
    void abandon() {
        if (closed || writer == null) return;
        closed = true;
        try {
            writer.close();
        } catch (IOException | RuntimeException e) {
            // The attempt is being thrown away; its staging directory is deleted next.
        }
    }
}

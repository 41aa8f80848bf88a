package dev.flushline.spark;

import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.TableSchema;

import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimestampType;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What every task of one write needs, worked out once on the driver: which DataFrame column
 * fills which table column (and the write timestamp and TTL), the INSERT statement the Flushline
 * writer applies per row, the token ranges, and where attempts stage and ranges are published.
 *
 * <p>The timestamp column: a Spark {@code timestamp} (its microseconds are the write time, as
 * Cassandra's {@code WRITETIME} is microseconds) or {@code bigint} microseconds; null means "now".
 * The TTL column: {@code int} or {@code bigint} seconds; null or 0 means no TTL. They are the
 * DataFrame columns named by the {@code timestamp_column} and {@code ttl_column} options, else
 * the columns named {@code timestamp} and {@code ttl} when the table has no column of that name.
 *
 * <p>Immutable; serialized to each task.
 */
final class WritePlan implements Serializable {
    private static final long serialVersionUID = 1L;

    final WriteOptions options;
    final StructType inputSchema;
    /** Per bound table column, in the INSERT's order: its ordinal in the input row. */
    final int[] columnOrdinals;
    /** Per bound table column: its name. */
    final String[] columnNames;
    /** The input ordinal of the write-timestamp column, or -1. */
    final int timestampOrdinal;
    /** The input ordinal of the TTL column, or -1. */
    final int ttlOrdinal;
    /** The input ordinal of {@link FlushlineSpark#TOKEN_COLUMN}, or -1 when the input is not split by token range. */
    final int tokenOrdinal;
    /** The token range count when split by token range; otherwise the requested partition count or 0. */
    final int ranges;
    final String insertCql;
    /** {@code <ks>/<table>-<id>}: the table folder inside each range directory, as a node lays it out. */
    final String tableFolder;
    final String keyspace;
    final String table;
    final String outputRoot;
    final String stagingRoot;
    final String writeId;

    WritePlan(WriteOptions options, StructType input, String writeId) {
        this.options = options;
        this.inputSchema = input;
        this.writeId = writeId;
        TableSchema schema = options.schema();
        this.keyspace = schema.keyspace();
        this.table = schema.name();
        this.tableFolder = schema.keyspace() + "/" + schema.name() + "-" + schema.idHex();
        String tsName = options.timestampColumn != null ? options.timestampColumn : (schema.column("timestamp") == null ? "timestamp" : null);
        String ttlName = options.ttlColumn != null ? options.ttlColumn : (schema.column("ttl") == null ? "ttl" : null);
        if (options.timestampColumn != null && !has(input, options.timestampColumn)) {
            throw new IllegalArgumentException("flushline: option 'timestamp_column' names '" + options.timestampColumn + "', which the DataFrame does not have");
        }
        if (options.ttlColumn != null && !has(input, options.ttlColumn)) {
            throw new IllegalArgumentException("flushline: option 'ttl_column' names '" + options.ttlColumn + "', which the DataFrame does not have");
        }
        List<Integer> ordinals = new ArrayList<>();
        List<String> names = new ArrayList<>();
        int ts = -1, ttl = -1, token = -1, bucket = -1;
        StructField[] fields = input.fields();
        for (int i = 0; i < fields.length; i++) {
            String name = fields[i].name();
            DataType type = fields[i].dataType();
            if (name.equals(FlushlineSpark.TOKEN_COLUMN)) {
                if (!(type instanceof LongType)) throw new IllegalArgumentException("flushline: column " + name + " must be a bigint, not " + type.simpleString());
                token = i;
            } else if (name.equals(FlushlineSpark.BUCKET_COLUMN)) {
                if (!(type instanceof IntegerType)) throw new IllegalArgumentException("flushline: column " + name + " must be an int, not " + type.simpleString());
                bucket = i;
            } else if (name.equals(tsName)) {
                if (!(type instanceof TimestampType) && !(type instanceof LongType)) {
                    throw new IllegalArgumentException("flushline: the write-timestamp column '" + name + "' must be a Spark timestamp or bigint (microseconds), not "
                            + type.simpleString());
                }
                ts = i;
            } else if (name.equals(ttlName)) {
                if (!(type instanceof IntegerType) && !(type instanceof LongType)) {
                    throw new IllegalArgumentException("flushline: the TTL column '" + name + "' must be a Spark int or bigint (seconds), not " + type.simpleString());
                }
                ttl = i;
            } else {
                ColumnMetadata c = schema.column(name);
                if (c == null) {
                    throw new IllegalArgumentException("flushline: the DataFrame column '" + name + "' is not a column of " + keyspace + "." + table
                            + ", nor the timestamp or TTL column; drop it or name it with the timestamp_column/ttl_column option");
                }
                ordinals.add(i);
                names.add(name);
            }
        }
        Set<String> given = new HashSet<>(names);
        List<String> missing = new ArrayList<>();
        for (ColumnMetadata c : schema.partitionKeyColumns()) if (!given.contains(c.name())) missing.add(c.name());
        for (ColumnMetadata c : schema.clusteringColumns()) if (!given.contains(c.name())) missing.add(c.name());
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("flushline: the DataFrame lacks the primary key column(s) " + missing + " of " + keyspace + "." + table);
        }
        if ((token < 0) != (bucket < 0)) {
            throw new IllegalArgumentException("flushline: the DataFrame has one of " + FlushlineSpark.TOKEN_COLUMN + " and " + FlushlineSpark.BUCKET_COLUMN
                    + " but not the other; add both with FlushlineSpark.partitionByTokenRange");
        }
        if (token < 0 && options.ringText != null) {
            throw new IllegalArgumentException("flushline: option 'ring' splits the write at the ring's token ranges, which takes "
                    + "FlushlineSpark.write (it adds " + FlushlineSpark.TOKEN_COLUMN + " and " + FlushlineSpark.BUCKET_COLUMN + ")");
        }
        if (token >= 0 && options.ranges == 0) {
            throw new IllegalArgumentException("flushline: the DataFrame is split by token range (it has " + FlushlineSpark.TOKEN_COLUMN
                    + "); give the 'ranges' option FlushlineSpark.partitionByTokenRange was given");
        }
        this.columnOrdinals = new int[ordinals.size()];
        for (int i = 0; i < columnOrdinals.length; i++) columnOrdinals[i] = ordinals.get(i);
        this.columnNames = names.toArray(new String[0]);
        this.timestampOrdinal = ts;
        this.ttlOrdinal = ttl;
        this.tokenOrdinal = token;
        this.ranges = options.ranges;
        this.insertCql = insert(schema, columnNames, ts >= 0, ttl >= 0);
        this.outputRoot = options.path;
        this.stagingRoot = options.path + "/_flushline_staging-" + writeId;
    }

    boolean byTokenRange() {
        return tokenOrdinal >= 0;
    }

    /** The name of the directory Spark partition p publishes. */
    String publishedName(int partition) {
        return String.format(byTokenRange() ? "range-%05d" : "part-%05d", partition);
    }

    private static boolean has(StructType s, String name) {
        for (String n : s.fieldNames()) if (n.equals(name)) return true;
        return false;
    }

    static String insert(TableSchema schema, String[] columns, boolean timestamp, boolean ttl) {
        StringBuilder sb = new StringBuilder("INSERT INTO ").append(quote(schema.keyspace())).append('.').append(quote(schema.name())).append(" (");
        for (int i = 0; i < columns.length; i++) sb.append(i == 0 ? "" : ", ").append(quote(columns[i]));
        sb.append(") VALUES (");
        for (int i = 0; i < columns.length; i++) sb.append(i == 0 ? "?" : ", ?");
        sb.append(')');
        if (timestamp && ttl) sb.append(" USING TIMESTAMP ? AND TTL ?");
        else if (timestamp) sb.append(" USING TIMESTAMP ?");
        else if (ttl) sb.append(" USING TTL ?");
        return sb.toString();
    }

    static String quote(String identifier) {
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }

    /** Whether Spark's order of the column's input values is Cassandra's order of its CQL values (ASC). */
    boolean sparkOrdersLikeCassandra(ColumnMetadata c) {
        int ordinal = -1;
        for (int i = 0; i < columnNames.length; i++) if (columnNames[i].equals(c.name())) ordinal = columnOrdinals[i];
        if (ordinal < 0 || !ColumnConverter.accepts(c.type(), inputSchema.fields()[ordinal].dataType())) return false;
        switch (c.type().kind()) {
            case ASCII: case TEXT: case BLOB: case BOOLEAN: case INT: case BIGINT: case SMALLINT: case TINYINT:
            case DECIMAL: case VARINT: case DATE: case TIME: case TIMESTAMP:
                return true;
            default:
                return false;
        }
    }

    /**
     * Whether a task can write its rows as Spark sorted them, through the sorted writer: split by
     * token range with every clustering column in Spark's order, and nothing the sorted writer
     * leaves to its caller: a static column (one static row per partition, while each input row
     * may set it), a non-frozen collection (cells, not one value), a default TTL (not applied).
     */
    boolean writesSorted() {
        if (!byTokenRange()) return false;
        TableSchema schema = options.schema();
        if (schema.staticColumns().length > 0 || schema.defaultTimeToLiveSeconds() > 0) return false;
        for (ColumnMetadata c : schema.clusteringColumns()) if (!sparkOrdersLikeCassandra(c)) return false;
        for (int i = 0; i < columnNames.length; i++) {
            ColumnMetadata c = schema.column(columnNames[i]);
            if (c.type().isMultiCell() || !ColumnConverter.accepts(c.type(), inputSchema.fields()[columnOrdinals[i]].dataType())) return false;
        }
        return true;
    }
}

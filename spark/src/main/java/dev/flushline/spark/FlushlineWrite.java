package dev.flushline.spark;

import org.apache.spark.sql.connector.distributions.Distribution;
import org.apache.spark.sql.connector.distributions.Distributions;
import org.apache.spark.sql.connector.expressions.Expression;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.FieldReference;
import org.apache.spark.sql.connector.expressions.SortDirection;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.RequiresDistributionAndOrdering;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.TableSchema;

import java.util.List;

/**
 * One write: the plan, and what Spark must do to the input before the tasks see it. Split by
 * token range (the input has {@link FlushlineSpark#BUCKET_COLUMN}): clustered by the bucket key
 * into exactly {@code ranges} partitions, each sorted by token, so Spark partition i holds token
 * range i. Otherwise: clustered by the partition key columns (so no partition is split between
 * tasks; those that are or hold a map are left out, as Spark hashes no map, and a key of maps
 * only is refused), into {@code ranges} partitions when that option is given.
 *
 * <p>Before anything runs it refuses a tuple, UDT, vector or duration column whose Spark type
 * does not fit ({@link CompositeConverters#refuseMismatch}).
 */
final class FlushlineWrite implements org.apache.spark.sql.connector.write.Write, RequiresDistributionAndOrdering {
    private final WritePlan plan;

    FlushlineWrite(WriteOptions options, StructType input, String queryId) {
        this.plan = new WritePlan(options, input, queryId.replaceAll("[^A-Za-z0-9-]", "_"));
        // A struct, tuple, vector or duration column that cannot fit is refused now, before any task runs.
        TableSchema schema = options.schema();
        for (int i = 0; i < plan.columnNames.length; i++) {
            String name = plan.columnNames[i];
            CompositeConverters.refuseMismatch(name, schema.column(name).type(), input.fields()[plan.columnOrdinals[i]].dataType());
        }
        if (!plan.byTokenRange() && sortableKeyColumns().length == 0) {
            throw new IllegalArgumentException("flushline: every partition key column of " + plan.keyspace + "." + plan.table
                    + " is or holds a Spark map, by which Spark can neither cluster nor sort rows; write with FlushlineSpark.write,"
                    + " which clusters by token range");
        }
    }

    /**
     * The partition key columns whose Spark type Spark can hash and sort: all but those that are
     * or hold a map (Spark orders no map, and its hash partitioning refuses them).
     */
    private ColumnMetadata[] sortableKeyColumns() {
        List<ColumnMetadata> out = new java.util.ArrayList<>();
        for (ColumnMetadata c : plan.options.schema().partitionKeyColumns()) {
            if (sparkSortsAndHashes(plan.inputSchema.apply(c.name()).dataType())) out.add(c);
        }
        return out.toArray(new ColumnMetadata[0]);
    }

    static boolean sparkSortsAndHashes(DataType t) {
        if (t instanceof MapType) return false;
        if (t instanceof ArrayType) return sparkSortsAndHashes(((ArrayType) t).elementType());
        if (t instanceof StructType) {
            for (StructField f : ((StructType) t).fields()) if (!sparkSortsAndHashes(f.dataType())) return false;
        }
        return true;
    }

    @Override
    public String description() {
        return "flushline sstables of " + plan.keyspace + "." + plan.table + " into " + plan.outputRoot;
    }

    @Override
    public BatchWrite toBatch() {
        return new FlushlineBatchWrite(plan);
    }

    @Override
    public Distribution requiredDistribution() {
        if (plan.byTokenRange()) {
            return Distributions.clustered(new Expression[] {FieldReference.column(FlushlineSpark.BUCKET_COLUMN)});
        }
        // Rows of one key have equal values in every key column, so clustering by those Spark can hash keeps them together.
        ColumnMetadata[] pk = sortableKeyColumns();
        Expression[] key = new Expression[pk.length];
        for (int i = 0; i < key.length; i++) key[i] = FieldReference.column(pk[i].name());
        return Distributions.clustered(key);
    }

    @Override
    public int requiredNumPartitions() {
        return plan.ranges;
    }

    /**
     * Split by token range: by token, then by the partition key columns (two keys of one token
     * never interleave; a column that is or holds a map, which Spark cannot sort, is left out),
     * then by as many leading clustering columns as Spark orders the way
     * Cassandra does (so each partition's rows arrive in clustering order for most tables).
     * Spark orders strings by their UTF-8 bytes, binaries unsigned, and numbers, dates, times and
     * timestamps by value, as Cassandra orders text, blob and the numeric types; a uuid, timeuuid or
     * inet held in a Spark string, a float or double (Spark equates -0.0 and 0.0), or a frozen
     * collection ends the prefix. When every clustering column is in the order, {@link RangeWriter}
     * writes the rows as they come through the sorted writer; otherwise through a memtable, which
     * orders them itself.
     */
    @Override
    public SortOrder[] requiredOrdering() {
        if (!plan.byTokenRange()) return new SortOrder[0];
        List<SortOrder> order = new java.util.ArrayList<>();
        order.add(Expressions.sort(FieldReference.column(FlushlineSpark.TOKEN_COLUMN), SortDirection.ASCENDING));
        // Then the key columns: keys of one token stay together, each partition's rows contiguous.
        // One Spark cannot sort (it holds a map) is left out: only keys of one token could then interleave.
        for (ColumnMetadata c : sortableKeyColumns()) {
            order.add(Expressions.sort(FieldReference.column(c.name()), SortDirection.ASCENDING));
        }
        for (ColumnMetadata c : plan.options.schema().clusteringColumns()) {
            if (!plan.sparkOrdersLikeCassandra(c)) break;
            order.add(Expressions.sort(FieldReference.column(c.name()), c.isReversed() ? SortDirection.DESCENDING : SortDirection.ASCENDING));
        }
        return order.toArray(new SortOrder[0]);
    }
}

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
import org.apache.spark.sql.types.StructType;

import dev.flushline.schema.ColumnMetadata;

import java.util.List;

/**
 * One write: the plan, and what Spark must do to the input before the tasks see it. Split by
 * token range (the input has {@link FlushlineSpark#BUCKET_COLUMN}): clustered by the bucket key
 * into exactly {@code ranges} partitions, each sorted by token, so Spark partition i holds token
 * range i. Otherwise: clustered by the partition key columns (so no partition is split between
 * tasks), into {@code ranges} partitions when that option is given.
 *
 * <p>Before anything runs it refuses a tuple, UDT, vector or duration column whose Spark type
 * does not fit ({@link CompositeConverters#refuseMismatch}).
 */
final class FlushlineWrite implements org.apache.spark.sql.connector.write.Write, RequiresDistributionAndOrdering {
    private final WritePlan plan;

    FlushlineWrite(WriteOptions options, StructType input, String queryId) {
        this.plan = new WritePlan(options, input, queryId.replaceAll("[^A-Za-z0-9-]", "_"));
        // A struct, tuple, vector or duration column that cannot fit is refused now, before any task runs.
        for (int i = 0; i < plan.columnNames.length; i++) {
            String name = plan.columnNames[i];
            CompositeConverters.refuseMismatch(name, options.schema().column(name).type(), input.fields()[plan.columnOrdinals[i]].dataType());
        }
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
        List<ColumnMetadata> pk = List.of(plan.options.schema().partitionKeyColumns());
        Expression[] key = new Expression[pk.size()];
        for (int i = 0; i < key.length; i++) key[i] = FieldReference.column(pk.get(i).name());
        return Distributions.clustered(key);
    }

    @Override
    public int requiredNumPartitions() {
        return plan.ranges;
    }

    /**
     * Split by token range: by token, then by the partition key columns (two keys of one token
     * never interleave), then by as many leading clustering columns as Spark orders the way
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
        for (ColumnMetadata c : plan.options.schema().partitionKeyColumns()) {
            order.add(Expressions.sort(FieldReference.column(c.name()), SortDirection.ASCENDING));
        }
        for (ColumnMetadata c : plan.options.schema().clusteringColumns()) {
            if (!plan.sparkOrdersLikeCassandra(c)) break;
            order.add(Expressions.sort(FieldReference.column(c.name()), c.isReversed() ? SortDirection.DESCENDING : SortDirection.ASCENDING));
        }
        return order.toArray(new SortOrder[0]);
    }
}

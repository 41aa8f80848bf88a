package dev.flushline.spark;

import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;

/** Serialized to the executors; makes one {@link RangeDataWriter} per task attempt. */
final class RangeDataWriterFactory implements DataWriterFactory {
    private static final long serialVersionUID = 1L;

    private final WritePlan plan;

    RangeDataWriterFactory(WritePlan plan) {
        this.plan = plan;
    }

    @Override
    public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
        TaskContext ctx = TaskContext.get();
        int attempt = ctx != null ? ctx.attemptNumber() : 0;
        return new RangeDataWriter(plan, partitionId, taskId, attempt);
    }
}

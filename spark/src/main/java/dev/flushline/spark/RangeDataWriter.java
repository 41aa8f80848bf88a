package dev.flushline.spark;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * One task attempt: writes its Spark partition's rows into the attempt's own staging directory
 * ({@code p<partition>-t<task id>-a<attempt>}), and on commit makes the files durable and reports
 * them. Split by token range, it refuses a row whose token is outside its partition's range: that
 * would mean Spark partitioned differently from what {@link TokenPartitioning} relies on, and the
 * ranges would overlap.
 *
 * <p>Thread safety: one task thread.
 */
final class RangeDataWriter implements DataWriter<InternalRow> {
    private final WritePlan plan;
    private final int partition;
    private final int attempt;
    private final Path attemptDir;
    private final RangeWriter writer;
    private final long firstToken;
    private final long lastToken;
    private long minToken = Long.MAX_VALUE;
    private long maxToken = Long.MIN_VALUE;
    private boolean done;
    private boolean held;

    RangeDataWriter(WritePlan plan, int partition, long taskId, int attempt) {
        this.plan = plan;
        this.partition = partition;
        this.attempt = attempt;
        this.attemptDir = Paths.get(plan.stagingRoot, String.format("p%05d-t%d-a%d", partition, taskId, attempt));
        if (plan.byTokenRange()) {
            if (partition >= plan.ranges) {
                throw new IllegalStateException("flushline: Spark partition " + partition + " of a write split into " + plan.ranges + " token ranges");
            }
            long[] starts = plan.options.starts();
            this.firstToken = starts[partition];
            this.lastToken = TokenPartitioning.lastToken(starts, partition);
        } else {
            this.firstToken = Long.MIN_VALUE;
            this.lastToken = Long.MAX_VALUE;
        }
        this.writer = new RangeWriter(plan, attemptDir, partition);
    }

    @Override
    public void write(InternalRow row) throws IOException {
        if (plan.tokenOrdinal >= 0) {
            long token = row.getLong(plan.tokenOrdinal);
            if (token < firstToken || token > lastToken) {
                throw new IllegalStateException("flushline: a row of token " + token + " reached Spark partition " + partition + ", which writes token range ["
                        + firstToken + ", " + lastToken + "]: the input was split for a different 'ranges' than " + plan.ranges
                        + ", or Spark's hash partitioning is not what this writer relies on");
            }
            if (token < minToken) minToken = token;
            if (token > maxToken) maxToken = token;
        }
        writer.add(row);
        if (!held && plan.options.holdTasksUntilFile != null) {
            held = true;
            holdUntilFile(Paths.get(plan.options.holdTasksUntilFile));
        }
    }

    /** The testing hold (see {@link WriteOptions#HOLD_TASKS_UNTIL_FILE}): bounded, then the task fails. */
    private void holdUntilFile(Path file) throws IOException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(10);
        while (!Files.exists(file)) {
            if (System.nanoTime() > deadline) throw new IOException("flushline: " + file + " did not appear in 10 minutes (option "
                    + WriteOptions.HOLD_TASKS_UNTIL_FILE + ")");
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("flushline: interrupted while holding (option " + WriteOptions.HOLD_TASKS_UNTIL_FILE + ")", e);
            }
        }
    }

    @Override
    public WriterCommitMessage commit() throws IOException {
        int sstables = writer.finish();
        long rows = writer.rows();
        if (Files.exists(attemptDir)) DurableFiles.fsyncTree(attemptDir);
        if (partition == plan.options.failFirstAttemptOfPartition && attempt == 0) {
            throw new IOException("flushline: injected failure of the first attempt of Spark partition " + partition + " (option "
                    + WriteOptions.FAIL_FIRST_ATTEMPT_OF_PARTITION + "), after writing " + rows + " rows");
        }
        done = true;
        return new RangeCommitMessage(partition, attemptDir.toString(), rows, sstables, minToken, maxToken);
    }

    @Override
    public void abort() throws IOException {
        done = true;
        try {
            writer.abandon();
        } finally {
            DurableFiles.deleteTree(attemptDir);
        }
    }

    @Override
    public void close() throws IOException {
        if (!done) abort(); // closed without commit or abort: nothing of this attempt may stay
    }
}

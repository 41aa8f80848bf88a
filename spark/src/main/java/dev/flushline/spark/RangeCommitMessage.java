package dev.flushline.spark;

import org.apache.spark.sql.connector.write.WriterCommitMessage;

/** What a task attempt that finished its Spark partition reports to the driver: where its files are staged. */
final class RangeCommitMessage implements WriterCommitMessage {
    private static final long serialVersionUID = 1L;

    final int partition;
    /** The attempt's staging directory; its {@code <ks>/<table>-<id>} folder holds the sstables. */
    final String attemptDir;
    final long rows;
    final int sstables;
    /** The smallest and largest token written, when split by token range and rows > 0. */
    final long minToken;
    final long maxToken;

    RangeCommitMessage(int partition, String attemptDir, long rows, int sstables, long minToken, long maxToken) {
        this.partition = partition;
        this.attemptDir = attemptDir;
        this.rows = rows;
        this.sstables = sstables;
        this.minToken = minToken;
        this.maxToken = maxToken;
    }
}

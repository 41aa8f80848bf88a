package dev.flushline.spark;

import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The driver's side of the commit protocol. Each task attempt writes into its own staging
 * directory under {@code <path>/_flushline_staging-<write id>/}, and its commit only makes those
 * files durable and reports them: nothing a task does is visible in the output. Spark hands
 * {@link #commit} one message per partition (that of the attempt whose success the scheduler
 * counted); commit renames each reported attempt directory to its range directory (an atomic
 * rename within one file system, parents fsynced), writes the manifest, and deletes the staging
 * root with whatever failed or speculative attempts left there. {@link #abort} deletes the staging
 * root and anything this write had published.
 *
 * <p>So Spark's output commit coordinator is not used: it would only serialize task commits that
 * publish nothing, and it refuses a quick retry of an attempt that failed inside its own commit
 * (the failed attempt's lock is released asynchronously), failing the retry as well.
 *
 * <p>Output: {@code <path>/range-NNNNN/<ks>/<table>-<id>/} per non-empty range (or
 * {@code part-NNNNN} when the input was not split by token range), and
 * {@code <path>/}{@value #MANIFEST}: one line per range with its first and last token, rows and
 * sstables. The manifest is written last, so its presence says the write completed.
 *
 * <p>Thread safety: Spark calls commit or abort once, from one driver thread.
 */
final class FlushlineBatchWrite implements BatchWrite {
    static final String MANIFEST = "flushline-manifest.tsv";

    private final WritePlan plan;
    private final List<Path> published = new ArrayList<>();

    FlushlineBatchWrite(WritePlan plan) {
        this.plan = plan;
        Path root = Paths.get(plan.outputRoot);
        try {
            Files.createDirectories(root);
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(root)) {
                for (Path p : ds) {
                    String n = p.getFileName().toString();
                    if (n.startsWith("range-") || n.startsWith("part-") || n.equals(MANIFEST)) {
                        throw new IllegalArgumentException("flushline: " + root + " already holds the output of an earlier write (" + n
                                + "); write into an empty or new directory");
                    }
                }
            }
            Files.createDirectories(Paths.get(plan.stagingRoot));
            DurableFiles.fsync(root);
        } catch (IOException e) {
            throw new UncheckedIOException("flushline: cannot prepare " + root, e);
        }
    }

    @Override
    public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
        return new RangeDataWriterFactory(plan);
    }

    @Override
    public boolean useCommitCoordinator() {
        return false; // task commits publish nothing; the driver publishes one attempt per partition
    }

    @Override
    public void commit(WriterCommitMessage[] messages) {
        Path root = Paths.get(plan.outputRoot);
        RangeCommitMessage[] ms = new RangeCommitMessage[messages.length];
        for (int i = 0; i < messages.length; i++) ms[i] = (RangeCommitMessage) messages[i];
        Arrays.sort(ms, Comparator.comparingInt(m -> m.partition));
        try {
            StringBuilder manifest = new StringBuilder();
            manifest.append("# flushline bulk write of ").append(plan.keyspace).append('.').append(plan.table)
                    .append(plan.byTokenRange() ? ", split into " + plan.ranges + " token ranges" : ", not split by token range").append('\n');
            manifest.append("# directory\tfirst_token\tlast_token\trows\tsstables\n");
            long[] starts = plan.byTokenRange() ? TokenPartitioning.starts(plan.ranges) : null;
            for (RangeCommitMessage m : ms) {
                String name = plan.publishedName(m.partition);
                if (m.rows > 0) {
                    Path to = root.resolve(name);
                    DurableFiles.publish(Paths.get(m.attemptDir), to);
                    published.add(to);
                }
                String first = starts != null ? Long.toString(starts[m.partition]) : (m.rows > 0 ? "?" : "-");
                String last = starts != null ? Long.toString(TokenPartitioning.lastToken(starts, m.partition)) : (m.rows > 0 ? "?" : "-");
                manifest.append(m.rows > 0 ? name : "-" + name).append('\t').append(first).append('\t').append(last)
                        .append('\t').append(m.rows).append('\t').append(m.sstables).append('\n');
            }
            Path tmp = Paths.get(plan.stagingRoot).resolve(MANIFEST);
            Files.write(tmp, manifest.toString().getBytes(StandardCharsets.UTF_8));
            DurableFiles.fsync(tmp);
            DurableFiles.publish(tmp, root.resolve(MANIFEST));
        } catch (IOException e) {
            throw new UncheckedIOException("flushline: publishing the ranges into " + root + " failed", e);
        }
        // The write is complete now. A speculative attempt Spark is still killing may be writing
        // into the staging root, so removing it is best effort: the output stands either way.
        try {
            DurableFiles.deleteTree(Paths.get(plan.stagingRoot));
            DurableFiles.fsync(root);
        } catch (IOException e) {
            System.err.println("flushline: the write into " + root + " is complete, but its staging directory " + plan.stagingRoot
                    + " could not be removed (" + e + "); delete it");
        }
    }

    @Override
    public void abort(WriterCommitMessage[] messages) {
        try {
            for (Path p : published) DurableFiles.deleteTree(p);
            DurableFiles.deleteTree(Paths.get(plan.outputRoot).resolve(MANIFEST));
            DurableFiles.deleteTree(Paths.get(plan.stagingRoot));
            DurableFiles.fsync(Paths.get(plan.outputRoot));
        } catch (IOException e) {
            throw new UncheckedIOException("flushline: cleaning up the aborted write in " + plan.outputRoot + " failed", e);
        }
    }
}

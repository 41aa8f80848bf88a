package dev.flushline.spark;

import dev.flushline.data.TokenRing;
import dev.flushline.sstable.ReplicaPlacement;

import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * <p>With the 'ring' option the ranges are the ring's, and commit places each reported range's
 * sstables into the directory of every replica of that range,
 * {@code <path>/<node address>/<ks>/<table>-<id>/} ({@link ReplicaPlacement}: hard links, each
 * sstable published whole, generations unique per node directory), instead of renaming it to a
 * range directory; the manifest names each range's replicas. Abort deletes those node
 * directories, which the write refuses to find already there.
 *
 * <p>Thread safety: Spark calls commit or abort once, from one driver thread.
 */
final class FlushlineBatchWrite implements BatchWrite {
    /** Spark's own slf4j-api and backend: the warning lands in the driver's log with Spark's. */
    private static final Logger LOG = LoggerFactory.getLogger(FlushlineBatchWrite.class);

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
                    if (n.startsWith("range-") || n.startsWith("part-") || n.equals(MANIFEST) || isNodeDirectory(n)) {
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

    /** Whether {@code name} is the directory of a node of the write's ring. */
    private boolean isNodeDirectory(String name) {
        TokenRing ring = plan.options.ring();
        return ring != null && ring.nodeIndex(name) >= 0;
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
        TokenRing ring = plan.options.ring();
        try {
            StringBuilder manifest = new StringBuilder();
            manifest.append("# flushline bulk write of ").append(plan.keyspace).append('.').append(plan.table)
                    .append(ring != null ? ", split at the " + plan.ranges + " token ranges of the ring " + plan.options.ringSource + " (" + ring.replication()
                            + ") and placed into one directory per node"
                            : plan.byTokenRange() ? ", split into " + plan.ranges + " token ranges" : ", not split by token range").append('\n');
            manifest.append(ring != null ? "# range\tfirst_token\tlast_token\trows\tsstables\treplicas\n"
                    : "# directory\tfirst_token\tlast_token\trows\tsstables\n");
            long[] starts = plan.byTokenRange() ? plan.options.starts() : null;
            for (RangeCommitMessage m : ms) {
                String name = plan.publishedName(m.partition);
                String replicas = "";
                if (ring != null) {
                    StringBuilder r = new StringBuilder();
                    for (int node : ring.segmentReplicas(m.partition)) r.append(r.length() == 0 ? "" : ",").append(ring.node(node).address());
                    replicas = "\t" + r;
                    if (m.rows > 0) place(m, ring, root);
                } else if (m.rows > 0) {
                    Path to = root.resolve(name);
                    DurableFiles.publish(Paths.get(m.attemptDir), to);
                    published.add(to);
                }
                String first = starts != null ? Long.toString(starts[m.partition]) : (m.rows > 0 ? "?" : "-");
                String last = starts != null ? Long.toString(TokenPartitioning.lastToken(starts, m.partition)) : (m.rows > 0 ? "?" : "-");
                manifest.append(m.rows > 0 ? name : "-" + name).append('\t').append(first).append('\t').append(last)
                        .append('\t').append(m.rows).append('\t').append(m.sstables).append(replicas).append('\n');
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
            LOG.warn("flushline: the write into " + root + " is complete, but its staging directory " + plan.stagingRoot
                    + " could not be removed (" + e + "); delete it", e);
        }
    }

    /**
     * Places the sstables of one reported range into the directories of its replicas. Each must lie
     * in the range the task was given: a task that wrote outside it fails the commit.
     */
    private void place(RangeCommitMessage m, TokenRing ring, Path root) throws IOException {
        Path tableDir = Paths.get(m.attemptDir).resolve(plan.tableFolder);
        ReplicaPlacement.Result r = ReplicaPlacement.place(tableDir, ring, root);
        for (int i = 0; i < ring.nodeCount(); i++) {
            Path node = ReplicaPlacement.nodeRoot(root, ring.node(i).address());
            if (r.sstablesPerNode[i] > 0 && !published.contains(node)) published.add(node);
        }
        for (ReplicaPlacement.Placed p : r.placed) {
            if (ring.segmentOf(p.firstToken()) != m.partition) {
                throw new IllegalStateException("flushline: Spark partition " + m.partition + " wrote " + p.source() + " with tokens " + p.firstToken()
                        + " to " + p.lastToken() + ", outside its ring range [" + ring.segmentFirst(m.partition) + ", " + ring.segmentLast(m.partition) + "]");
            }
        }
    }

    @Override
    public void abort(WriterCommitMessage[] messages) {
        try {
            TokenRing ring = plan.options.ring();
            // With a ring, every node directory is this write's: the write refused to start beside one.
            for (int i = 0; ring != null && i < ring.nodeCount(); i++) {
                Path node = ReplicaPlacement.nodeRoot(Paths.get(plan.outputRoot), ring.node(i).address());
                if (!published.contains(node)) published.add(node);
            }
            for (Path p : published) DurableFiles.deleteTree(p);
            DurableFiles.deleteTree(Paths.get(plan.outputRoot).resolve(MANIFEST));
            DurableFiles.deleteTree(Paths.get(plan.stagingRoot));
            DurableFiles.fsync(Paths.get(plan.outputRoot));
        } catch (IOException e) {
            throw new UncheckedIOException("flushline: cleaning up the aborted write in " + plan.outputRoot + " failed", e);
        }
    }
}

package dev.flushline.table;

import dev.flushline.flush.FlushJob;
import dev.flushline.flush.FlushOutcome;

import dev.flushline.commitlog.CommitLog;
import dev.flushline.data.CommitLogPosition;
import dev.flushline.data.Mutation;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.memtable.Memtable;
import dev.flushline.schema.TableSchema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One table made durable: a {@link CommitLog} in front of a {@link Flusher}. Every update is
 * appended to the log before it reaches a memtable; after a flush publishes a memtable's
 * sstables, the log is told how far everything is flushed and drops the segments nobody needs.
 * {@link #open} first replays what the log holds beyond that point and flushes it.
 *
 * <p>Write path ({@link #apply}): check the update is writable (a logged update the memtable
 * refuses would fail every replay), append, wait for the fsync in batch mode, apply to the
 * memtable, record the position in the memtable that took it, then report the entry applied.
 * An update that was logged but whose apply failed stays "unapplied", which holds back segment
 * release until the next open replays it.
 *
 * <p>What is safe to release, computed after each flush (on the flush thread), in this order:
 * the log's current position; then the oldest entry appended but not yet applied; then the
 * lowest position of every memtable not yet published except the one just flushed. An entry
 * leaves the unapplied set only after its memtable records it, so whichever of the two reads
 * misses it, the other sees it. The marker is the minimum, one byte before the oldest needed
 * entry's end. Re-applying an entry that is already in an sstable is harmless (same timestamps
 * reconcile to the same result), so any error here errs towards replaying more.
 *
 * <p>Thread safety: {@link #apply} from any number of threads; {@link #close} once, after writers
 * stopped.
 */
public final class DurableTable implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DurableTable.class);

    /** Immutable settings. */
    public static final class Options {
        public final CommitLog.Options commitLog;
        public final Supplier<Memtable> memtables;
        public final FlushJob.Options flush;
        public final Flusher.Limits limits;
        /** Sees every published sstable (its log line); may be null. Called on the flush thread. */
        public final Consumer<FlushOutcome> onFlushed;
        /**
         * Receives the replay summary and its warnings (torn tails, skipped corruption), failures to
         * record a release (both "WARN ..."), and removed leftovers; null: SLF4J, this class's
         * logger, at info or warn.
         */
        public final Consumer<String> info;
        /**
         * Receives the files left alone and the flusher's and compactions' lines; null: SLF4J, each
         * class's own logger, at the line's level.
         */
        public final Consumer<String> log;
        /** Background compaction, started once the commit log is replayed; null for none. */
        public final BackgroundCompactions.Settings compaction;
        /**
         * Runs on the flush thread after a memtable's sstables are all published and before the
         * commit log records their release: the window in which a crash leaves both the sstables
         * and the log entries they hold, which replay must then apply harmlessly. For observers
         * (a crash test stops the process there); never null.
         */
        public final Runnable beforeRelease;

        /** Settings whose informational lines and warnings both go to {@code log}, without background compaction. */
        public Options(CommitLog.Options commitLog, Supplier<Memtable> memtables, FlushJob.Options flush,
                       Flusher.Limits limits, Consumer<FlushOutcome> onFlushed, Consumer<String> log) {
            this(commitLog, memtables, flush, limits, onFlushed, log, log, null);
        }

        public Options(CommitLog.Options commitLog, Supplier<Memtable> memtables, FlushJob.Options flush,
                       Flusher.Limits limits, Consumer<FlushOutcome> onFlushed, Consumer<String> info, Consumer<String> log,
                       BackgroundCompactions.Settings compaction) {
            this(commitLog, memtables, flush, limits, onFlushed, info, log, compaction, () -> { });
        }

        private Options(CommitLog.Options commitLog, Supplier<Memtable> memtables, FlushJob.Options flush,
                        Flusher.Limits limits, Consumer<FlushOutcome> onFlushed, Consumer<String> info, Consumer<String> log,
                        BackgroundCompactions.Settings compaction, Runnable beforeRelease) {
            this.beforeRelease = java.util.Objects.requireNonNull(beforeRelease);
            this.commitLog = commitLog;
            this.memtables = memtables;
            this.flush = flush;
            this.limits = limits;
            this.onFlushed = onFlushed;
            this.info = info;
            this.log = log;
            this.compaction = compaction;
        }

        /** These settings, running {@code hook} in the window before each release (see {@link #beforeRelease}). */
        public Options withBeforeRelease(Runnable hook) {
            return new Options(commitLog, memtables, flush, limits, onFlushed, info, log, compaction, hook);
        }
    }

    private final TableSchema schema;
    private final Options options;
    private final CommitLog commitLog;
    private final Flusher flusher;
    private final LogLines info;
    private final LogLines log;
    /** Off while replaying: the entries not replayed yet are in no memtable and must not be released. */
    private volatile boolean releasing;
    private volatile CommitLog.ReplayReport replayReport;
    private volatile IOException releaseFailure;
    /** What {@link #open} removed; set once there, before it returns. */
    private List<Path> removedLeftovers = List.of();
    /** Null without compaction in the options; set once in {@link #open}, before it returns. */
    private BackgroundCompactions compactions;

    private DurableTable(TableSchema schema, Options options, CommitLog commitLog) {
        this.schema = schema;
        this.options = options;
        this.commitLog = commitLog;
        this.info = new LogLines(LOG, options.info);
        this.log = new LogLines(LOG, options.log);
        this.flusher = new Flusher(options.memtables, options.flush, options.limits, options.onFlushed, null,
                Flusher.FailurePolicy.DEFAULT, options.log);
        this.flusher.onMemtableFlushed(this::memtableFlushed);
    }

    /**
     * Opens the commit log, removes half-written sstables of an earlier crash, replays the
     * mutations the log holds beyond its flushed-up-to marker, flushes them, and releases the old
     * segments. The summary ("Replayed N mutations from M segments") and any warnings go to
     * {@code options.info} and are in {@link #replayReport()}. Throws
     * {@link dev.flushline.commitlog.CommitLogCorruptionException} for corruption in the middle of a
     * segment unless the commit log options say skipCorrupt.
     */
    public static DurableTable open(TableSchema schema, Options options) throws IOException, InterruptedException {
        CommitLog log = CommitLog.open(options.commitLog);
        DurableTable t = null;
        try {
            t = new DurableTable(schema, options, log);
            List<Path> removed = t.flusher.openTableDirectory();
            t.removedLeftovers = removed;
            if (!removed.isEmpty()) t.info.info("Removed leftovers of an interrupted flush: " + removed);
            for (Path p : t.flusher.incompleteInTableDirectory()) t.log.leftAlone(dev.flushline.sstable.Leftovers.describe(p));
            t.replay();
            // Only now: before the replay, replayed data was in no memtable yet, so a compaction's
            // purge bound (the unflushed memtables' smallest timestamp) could not see it, and a
            // tombstone shadowing it could have been purged. After the replay's flush it is all in
            // sstables the version holds, or in memtables the bound sees.
            if (options.compaction != null) {
                t.compactions = BackgroundCompactions.start(t.flusher, options.compaction, options.log);
            }
            return t;
        } catch (IOException | RuntimeException | Error | InterruptedException e) {
            if (t != null) t.abandon();
            else log.close();
            throw e;
        }
    }

    private void replay() throws IOException, InterruptedException {
        final Flusher f = flusher;
        CommitLog.ReplayReport report = commitLog.replay(schema, (m, position) -> {
            Memtable took = f.apply(m.update());
            took.coverCommitLogPosition(position);
        });
        f.forceFlush();
        releasing = true;
        commitLog.markFlushedUpTo(safeReleasePosition(null));
        replayReport = report;
        for (String w : report.warnings) info.warn(w, null);
        info.info(report.summary());
    }

    /**
     * Group commit from one producer: appends every update, waits once for the fsync that covers
     * the last (in batch mode), then applies them all in order. Each update is still durable before
     * it reaches a memtable, but the group shares one wait instead of blocking once per update.
     * Returns the sequence number of the last update, or 0 for an empty group. All updates are
     * checked before any is logged, so a bad update refuses the whole group and logs nothing.
     */
    public long applyGroup(java.util.List<PartitionUpdate> updates) throws IOException, InterruptedException {
        int n = updates.size();
        if (n == 0) return 0;
        for (int i = 0; i < n; i++) Memtable.checkWritable(updates.get(i));
        CommitLog.Entry[] entries = new CommitLog.Entry[n];
        for (int i = 0; i < n; i++) {
            entries[i] = commitLog.append(new Mutation(schema, updates.get(i)));
        }
        commitLog.awaitDurable(entries[n - 1]); // covers every earlier entry of this log too
        for (int i = 0; i < n; i++) {
            Memtable took = flusher.apply(updates.get(i));
            took.coverCommitLogPosition(entries[i].position);
            commitLog.applied(entries[i].position);
        }
        return entries[n - 1].sequence;
    }

    /**
     * Makes {@code update} durable and applies it. Returns its sequence number (1-based, in commit
     * log order, within this open). In batch mode it returns only once the update is fsynced, so
     * {@link #durableUpTo()} is at least the returned number; in periodic mode it returns at once.
     * Throws IllegalArgumentException (nothing logged) for an update a flush could not write, and
     * IOException (not acknowledged) if the commit log fails.
     */
    public long apply(PartitionUpdate update) throws IOException, InterruptedException {
        Memtable.checkWritable(update);
        Mutation m = new Mutation(schema, update);
        CommitLog.Entry e = commitLog.append(m);
        commitLog.awaitDurable(e);
        Memtable took = flusher.apply(update);
        took.coverCommitLogPosition(e.position);
        commitLog.applied(e.position);
        return e.sequence;
    }

    /** Every update whose {@link #apply} returned a number up to this one is on disk. */
    public long durableUpTo() {
        return commitLog.durableSequence();
    }

    /** Forces the commit log now (periodic mode: to make everything so far durable before reporting it). */
    public void sync() throws IOException {
        commitLog.sync();
    }

    public CommitLog.ReplayReport replayReport() { return replayReport; }

    public Flusher flusher() { return flusher; }

    /** The half-written sstables of ours that {@link #open} removed. */
    public List<Path> removedLeftovers() { return removedLeftovers; }

    /** The background compaction of this table, or null if the options ask for none. */
    public BackgroundCompactions compactions() { return compactions; }

    public CommitLog commitLog() { return commitLog; }

    /** A failure to record a release (segments kept, nothing lost), or null. */
    public IOException releaseFailure() { return releaseFailure; }

    /** Flusher hook: runs on the flush thread once {@code flushed}'s sstables are all published. */
    private void memtableFlushed(Memtable flushed) {
        if (!releasing) return;
        options.beforeRelease.run();
        try {
            commitLog.markFlushedUpTo(safeReleasePosition(flushed));
        } catch (IOException e) {
            // Keeping segments is always safe; a failed release must not fail the flush (a retry
            // would publish the memtable twice). The next flush tries again.
            releaseFailure = e;
            info.warn("could not record commit log release: " + e, e);
        }
    }

    /** See the class comment. {@code justFlushed} is published although the flusher still lists it. */
    private CommitLogPosition safeReleasePosition(Memtable justFlushed) {
        CommitLogPosition safe = commitLog.currentPosition();
        CommitLogPosition unapplied = commitLog.oldestUnapplied();
        if (unapplied != null) safe = CommitLogPosition.min(safe, justBefore(unapplied));
        for (Memtable m : flusher.unflushedMemtables()) {
            if (m == justFlushed) continue;
            CommitLogPosition lower = m.commitLogLowerBound();
            if (!lower.equals(CommitLogPosition.NONE)) safe = CommitLogPosition.min(safe, justBefore(lower));
        }
        return safe;
    }

    /** The marker value that keeps the entry ending at {@code end}: entries ending after the marker are replayed. */
    private static CommitLogPosition justBefore(CommitLogPosition end) {
        return new CommitLogPosition(end.segmentId(), end.position() - 1);
    }

    /**
     * Flushes everything (drain), records that the whole log is flushed, and closes the log; a
     * clean close leaves no segment to replay. Throws if a flush failed (the log keeps the data).
     */
    @Override
    public void close() throws IOException, InterruptedException {
        try {
            try {
                flusher.close();
            } finally {
                // After the last flush (whose sstable it may still pick): running compactions finish,
                // no new one starts.
                if (compactions != null) compactions.close();
            }
            commitLog.sync();
            commitLog.markFlushedUpTo(safeReleasePosition(null));
        } finally {
            commitLog.close();
        }
    }

    /** Failure path of open: stop the flush thread and close the log without releasing anything. */
    private void abandon() {
        if (compactions != null) {
            try {
                compactions.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        flusher.abandon();
        try {
            commitLog.close();
        } catch (IOException | RuntimeException ignored) {
            // open is already failing with the primary cause
        }
    }
}

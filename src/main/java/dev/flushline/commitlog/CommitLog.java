package dev.flushline.commitlog;

import dev.flushline.data.CommitLogPosition;
import dev.flushline.data.Mutation;
import dev.flushline.schema.TableSchema;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;

/**
 * A directory of fixed-size segment files that every mutation is appended to before it reaches a
 * memtable, so that a crash loses no acknowledged write. Layouts: {@link SegmentLayout} (segment
 * header, entry framing), {@link MutationLayout} (payload), {@link FlushedMarker} (what is flushed).
 *
 * <p>Durability: in {@link SyncMode#BATCH} a writer calls {@link #awaitDurable} and returns only
 * after an fsync covered its entry. Syncs are group commits ({@link #syncUpTo}): one leader forces
 * everything appended so far while the writers that arrive meanwhile wait, and the next fsync
 * covers all of them together. In
 * {@link SyncMode#PERIODIC} a background thread syncs every {@code periodicSyncMillis}; a crash
 * may lose the writes of the last period, as in Cassandra.
 *
 * <p>Release: the owner calls {@link #markFlushedUpTo} once everything at or before a position is
 * in published sstables; the marker is made durable first, then segments wholly before it are
 * deleted. Which position is safe is the owner's business (it knows its memtables); to help, the
 * log tracks appended entries not yet reported {@link #applied}, see {@link #oldestUnapplied()}.
 *
 * <p>Failure: an I/O error while appending or syncing fails the log for good; every later append
 * and wait throws. An entry that was written but not synced is never acknowledged, and a partly
 * written entry is never followed by another (it would read as corruption in the middle).
 *
 * <p>Segment ids grow across restarts: a new log starts above every id on disk, the marker's,
 * and the current time in milliseconds.
 *
 * <p>Thread safety: {@link #append}, {@link #awaitDurable}, {@link #applied} from any number of
 * threads; {@link #replay} once, before writes, from the opening thread. Appends are serialized by
 * {@link #appendLock}; an fsync runs with neither lock held (its one leader is marked under
 * {@link #syncLock}), so appends continue during an fsync.
 */
public final class CommitLog implements AutoCloseable {
    public enum SyncMode {
        BATCH, PERIODIC;

        /** "batch" or "periodic", as the command line spells them. */
        public static SyncMode parse(String s) {
            switch (s.toLowerCase(Locale.ROOT)) {
                case "batch": return BATCH;
                case "periodic": return PERIODIC;
                default: throw new IllegalArgumentException("commit log sync mode must be batch or periodic: " + s);
            }
        }
    }

    /** Immutable settings. */
    public static final class Options {
        public static final int DEFAULT_SEGMENT_SIZE_BYTES = 32 << 20;
        public static final long DEFAULT_PERIODIC_SYNC_MILLIS = 10_000;

        public final Path dir;
        public final int segmentSizeBytes;
        public final SyncMode syncMode;
        public final long periodicSyncMillis;
        /** Replay skips a corrupt range in the middle of a segment (reporting it) instead of failing. */
        public final boolean skipCorrupt;

        public Options(Path dir, SyncMode syncMode) {
            this(dir, DEFAULT_SEGMENT_SIZE_BYTES, syncMode, DEFAULT_PERIODIC_SYNC_MILLIS, false);
        }

        public Options(Path dir, int segmentSizeBytes, SyncMode syncMode, long periodicSyncMillis, boolean skipCorrupt) {
            if (segmentSizeBytes < SegmentLayout.HEADER_BYTES + 2 * SegmentLayout.ENTRY_OVERHEAD_BYTES) {
                throw new IllegalArgumentException("segment size too small: " + segmentSizeBytes);
            }
            if (periodicSyncMillis <= 0) throw new IllegalArgumentException("periodic sync interval must be > 0: " + periodicSyncMillis);
            this.dir = dir;
            this.segmentSizeBytes = segmentSizeBytes;
            this.syncMode = syncMode;
            this.periodicSyncMillis = periodicSyncMillis;
            this.skipCorrupt = skipCorrupt;
        }

        /** Largest payload one entry may carry: half a segment, as Cassandra's max_mutation_size. */
        public int maxPayloadBytes() {
            return (segmentSizeBytes - SegmentLayout.HEADER_BYTES) / 2 - SegmentLayout.ENTRY_OVERHEAD_BYTES;
        }
    }

    /** Where an append went and its place in append order (1-based within this open). */
    public static final class Entry {
        public final CommitLogPosition position;
        public final long sequence;

        Entry(CommitLogPosition position, long sequence) {
            this.position = position;
            this.sequence = sequence;
        }
    }

    /** Receives replayed mutations in log order. */
    @FunctionalInterface
    public interface ReplayHandler {
        void apply(Mutation mutation, CommitLogPosition position) throws IOException, InterruptedException;
    }

    /** What replay did. */
    public static final class ReplayReport {
        public final int mutations;
        public final int segments;
        /** Torn tails truncated, corrupt ranges skipped, unreadable headers: one line each. */
        public final List<String> warnings;

        ReplayReport(int mutations, int segments, List<String> warnings) {
            this.mutations = mutations;
            this.segments = segments;
            this.warnings = List.copyOf(warnings);
        }

        /** The line the CLI prints. */
        public String summary() {
            return "Replayed " + mutations + " mutations from " + segments + " segments";
        }
    }

    private final Options options;
    /** Where segment files come from (see {@link SegmentChannels}). */
    private final SegmentChannels channels;
    private final ReentrantLock appendLock = new ReentrantLock();
    private final ReentrantLock syncLock = new ReentrantLock();
    /** Signalled when a group-commit fsync finishes. */
    private final java.util.concurrent.locks.Condition syncDone = syncLock.newCondition();
    /** Guarded by syncLock: a leader is forcing the log outside the lock. */
    private boolean syncing;
    /** Guarded by appendLock. */
    private CommitLogSegment active;
    /** Guarded by appendLock. */
    private long appendedSequence;
    /** Highest sequence covered by an fsync; written under syncLock by the group-commit leader, read by anyone. */
    private volatile long syncedSequence;
    /** fsyncs done by {@link #forceAppended}: with group commit, fewer than batch-mode appends. */
    private final java.util.concurrent.atomic.AtomicLong syncCount = new java.util.concurrent.atomic.AtomicLong();
    /** Entries appended but not yet reported applied; added under appendLock so the set never misses an older one. */
    private final ConcurrentSkipListSet<CommitLogPosition> unapplied = new ConcurrentSkipListSet<>();
    /** Segments that no longer take writes and are not deleted yet, by id. */
    private final ConcurrentSkipListSet<Long> inactiveSegments = new ConcurrentSkipListSet<>();
    /** Segments found at open, to replay; ascending. */
    private final List<Long> replaySegments;
    private final Object markerLock = new Object();
    /** Guarded by markerLock. */
    private CommitLogPosition flushedUpTo;
    private volatile Throwable failure;
    private final ScheduledExecutorService periodicSyncer;
    private volatile boolean closed;

    private CommitLog(Options options, CommitLogPosition flushedUpTo, List<Long> replaySegments, CommitLogSegment active,
                      SegmentChannels channels) {
        this.options = options;
        this.channels = channels;
        this.flushedUpTo = flushedUpTo;
        this.replaySegments = replaySegments;
        this.active = active;
        this.inactiveSegments.addAll(replaySegments);
        if (options.syncMode == SyncMode.PERIODIC) {
            periodicSyncer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "flushline-commitlog-sync");
                t.setDaemon(true);
                return t;
            });
            periodicSyncer.scheduleWithFixedDelay(this::periodicSync, options.periodicSyncMillis,
                    options.periodicSyncMillis, TimeUnit.MILLISECONDS);
        } else {
            periodicSyncer = null;
        }
    }

    /**
     * Opens the log in {@code options.dir} (created if absent): reads the flushed-up-to marker,
     * deletes segments wholly before it (a crash between marker and delete leaves them), keeps the
     * rest for {@link #replay}, and starts a new segment with a larger id for writes.
     */
    public static CommitLog open(Options options) throws IOException {
        return open(options, SegmentChannels.CREATE_NEW);
    }

    /** As {@link #open(Options)}, opening segment files through {@code channels}. */
    static CommitLog open(Options options, SegmentChannels channels) throws IOException {
        Path dir = options.dir;
        Files.createDirectories(dir);
        Files.deleteIfExists(dir.resolve(FlushedMarker.TEMP_NAME));
        CommitLogPosition marker = FlushedMarker.read(dir);
        List<Long> ids = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                long id = SegmentLayout.idOf(p.getFileName().toString());
                if (id >= 0) ids.add(id);
            }
        }
        ids.sort(null);
        long maxId = Math.max(marker.segmentId(), System.currentTimeMillis() - 1);
        List<Long> replay = new ArrayList<>();
        for (long id : ids) {
            maxId = Math.max(maxId, id);
            if (id < marker.segmentId()) {
                Files.deleteIfExists(dir.resolve(SegmentLayout.fileName(id)));
            } else {
                replay.add(id);
            }
        }
        CommitLogSegment active = CommitLogSegment.create(dir, maxId + 1, options.segmentSizeBytes, channels);
        return new CommitLog(options, marker, replay, active, channels);
    }

    public Options options() { return options; }

    /** The flushed-up-to marker as of now. */
    public CommitLogPosition flushedUpTo() {
        synchronized (markerLock) {
            return flushedUpTo;
        }
    }

    /**
     * Replays every entry after the marker in the segments found at open, in order, as mutations
     * of {@code table} with ArrayCells. A torn tail ends a segment with a warning; corruption in the
     * middle throws {@link CommitLogCorruptionException} naming file and offset, or with
     * {@code skipCorrupt} is skipped and reported. An entry whose CRCs match but whose bytes do not
     * parse as a mutation of {@code table} counts as corruption too.
     */
    public ReplayReport replay(TableSchema table, ReplayHandler handler) throws IOException, InterruptedException {
        CommitLogPosition after = flushedUpTo();
        List<String> warnings = new ArrayList<>();
        int[] mutations = {0};
        int segments = 0;
        for (long id : replaySegments) {
            Path file = options.dir.resolve(SegmentLayout.fileName(id));
            if (!Files.exists(file)) continue;
            segments++;
            try {
                SegmentReader.read(file, id, after, options.skipCorrupt, (src, off, len, end, seg, entryOffset) -> {
                    Mutation m;
                    try {
                        m = MutationLayout.deserialize(src, off, len, table);
                    } catch (MutationLayout.MalformedMutationException e) {
                        if (!options.skipCorrupt) {
                            throw new CommitLogCorruptionException(seg, entryOffset, end.position(), e.getMessage());
                        }
                        warnings.add("skipped entry [" + entryOffset + ", " + end.position() + ") of commit log segment " + seg
                                + ": CRCs match but " + e.getMessage());
                        return;
                    }
                    try {
                        handler.apply(m, end);
                    } catch (InterruptedException e) {
                        throw new java.io.InterruptedIOException("replay interrupted at " + seg + " offset " + entryOffset);
                    }
                    mutations[0]++;
                }, warnings);
            } catch (java.io.InterruptedIOException e) {
                throw new InterruptedException(e.getMessage());
            }
        }
        return new ReplayReport(mutations[0], segments, warnings);
    }

    /**
     * Appends {@code m} (its cached serialization, made now if needed). Not durable yet: see
     * {@link #awaitDurable}. The entry counts as unapplied until {@link #applied} is called.
     * Throws IllegalArgumentException for a mutation over {@link Options#maxPayloadBytes()}.
     */
    public Entry append(Mutation m) throws IOException {
        byte[] payload = MutationLayout.bytes(m);
        if (payload.length > options.maxPayloadBytes()) {
            throw new IllegalArgumentException("mutation of " + m.table() + " is " + payload.length
                    + " bytes, more than the commit log's limit of " + options.maxPayloadBytes() + " (half a segment)");
        }
        int entryBytes = SegmentLayout.entryBytes(payload.length);
        int crc = SegmentLayout.crc(payload, 0, payload.length); // outside the lock: only the write is serialized
        appendLock.lock();
        try {
            checkUsable();
            CommitLogSegment s = active;
            try {
                if (!s.hasRoom(entryBytes)) s = rolloverLocked();
                int end = s.append(payload, crc);
                CommitLogPosition p = new CommitLogPosition(s.id(), end);
                unapplied.add(p);
                return new Entry(p, ++appendedSequence);
            } catch (IOException | RuntimeException | Error e) {
                throw fail("append to " + s.path(), e);
            }
        } finally {
            appendLock.unlock();
        }
    }

    /** REQUIRES: appendLock. The old segment is forced and closed before the new one takes writes. */
    private CommitLogSegment rolloverLocked() throws IOException {
        CommitLogSegment old = active;
        old.retire();
        inactiveSegments.add(old.id());
        CommitLogSegment next = CommitLogSegment.create(options.dir, old.id() + 1, options.segmentSizeBytes, channels);
        active = next;
        return next;
    }

    /**
     * Returns once {@code entry} is durable: in batch mode after an fsync that covers it (group
     * commit), in periodic mode at once. Throws if the log failed before that fsync succeeded.
     */
    public void awaitDurable(Entry entry) throws IOException {
        if (options.syncMode == SyncMode.PERIODIC || syncedSequence >= entry.sequence) {
            checkUsable();
            return;
        }
        syncUpTo(entry.sequence);
    }

    /** Forces everything appended so far to disk. */
    public void sync() throws IOException {
        long target;
        appendLock.lock();
        try {
            target = appendedSequence;
        } finally {
            appendLock.unlock();
        }
        syncUpTo(target);
    }

    /**
     * Group commit, leader and followers: if no fsync is running, this thread becomes the leader
     * and forces everything appended so far, outside the lock; threads that arrive meanwhile wait
     * on {@link #syncDone}, and when the leader finishes they all wake: those it covered return,
     * and one of the rest leads the next fsync for all of them. (Waking waiters one at a time
     * through the lock let a writer that had just returned barge in and fsync again for its own
     * single entry: 1.5 writes per fsync with 64 writers.)
     *
     * <p>On 2 cores, many writers each blocking for their own write spend most CPU on park and
     * unpark (measured: 85% at 64 writers); a producer that can, appends a group and waits once
     * ({@code DurableTable.applyGroup}).
     */
    private void syncUpTo(long target) throws IOException {
        checkUsable(); // a failed log refuses even a sync with nothing new to force
        syncLock.lock();
        try {
            while (syncedSequence < target) {
                checkUsable();
                if (syncing) {
                    syncDone.awaitUninterruptibly(); // the running fsync may cover us; look again
                    continue;
                }
                syncing = true;
                long covered = -1;
                syncLock.unlock();
                try {
                    covered = forceAppended();
                } finally {
                    syncLock.lock();
                    syncing = false;
                    if (covered > syncedSequence) syncedSequence = covered;
                    syncDone.signalAll();
                }
            }
        } finally {
            syncLock.unlock();
        }
    }

    /**
     * Forces the active segment and returns the highest sequence that is now durable. Called by
     * the one leader of a group commit, holding no lock, so appends and waiters proceed.
     */
    private long forceAppended() throws IOException {
        checkUsable();
        CommitLogSegment s;
        long sequence;
        appendLock.lock();
        try {
            s = active;
            sequence = appendedSequence;
        } finally {
            appendLock.unlock();
        }
        if (sequence == syncedSequence) return sequence;
        // Every entry up to `sequence` is in s or in an older segment, and older segments were
        // forced when they were retired.
        try {
            s.force();
        } catch (ClosedChannelException e) {
            if (!s.isRetired()) throw fail("sync of " + s.path(), e);
        } catch (IOException | RuntimeException | Error e) {
            throw fail("sync of " + s.path(), e);
        }
        syncCount.incrementAndGet();
        return sequence;
    }

    /** Number of fsyncs so far (segment rollovers not counted). */
    public long syncCount() { return syncCount.get(); }

    private void periodicSync() {
        if (closed || failure != null) return;
        try {
            sync();
        } catch (IOException | RuntimeException e) {
            // fail() recorded it; the next append throws it to a writer.
        }
    }

    /** Highest append sequence known durable: every entry 1..n of this open is on disk. */
    public long durableSequence() { return syncedSequence; }

    /** Highest append sequence handed out. */
    public long appendedSequence() {
        appendLock.lock();
        try {
            return appendedSequence;
        } finally {
            appendLock.unlock();
        }
    }

    /** The entry at {@code position} is now in a memtable that records it. */
    public void applied(CommitLogPosition position) {
        unapplied.remove(position);
    }

    /**
     * The oldest entry appended but not reported applied, or null. One read of the set: a writer
     * may report its entry applied between an isEmpty() and a first(), which then throws.
     */
    public CommitLogPosition oldestUnapplied() {
        java.util.Iterator<CommitLogPosition> it = unapplied.iterator();
        return it.hasNext() ? it.next() : null;
    }

    /** Where the next entry will end at the earliest: every entry appended so far ends at or before it. */
    public CommitLogPosition currentPosition() {
        appendLock.lock();
        try {
            return new CommitLogPosition(active.id(), active.writtenBytes());
        } finally {
            appendLock.unlock();
        }
    }

    /**
     * Records durably that every entry at or before {@code position} is in published sstables,
     * then deletes the segments wholly before it. Ignores a position not after the current marker.
     */
    public void markFlushedUpTo(CommitLogPosition position) throws IOException {
        synchronized (markerLock) {
            if (position.compareTo(flushedUpTo) <= 0) return;
            FlushedMarker.write(options.dir, position);
            flushedUpTo = position;
            while (!inactiveSegments.isEmpty() && inactiveSegments.first() < position.segmentId()) {
                long id = inactiveSegments.first();
                Files.deleteIfExists(options.dir.resolve(SegmentLayout.fileName(id)));
                inactiveSegments.remove(id);
            }
        }
    }

    private void checkUsable() throws IOException {
        Throwable f = failure;
        if (f != null) throw new IOException("commit log in " + options.dir + " failed earlier; no write is acknowledged: " + f, f);
        if (closed) throw new IllegalStateException("commit log in " + options.dir + " is closed");
    }

    private IOException fail(String what, Throwable cause) {
        if (failure == null) failure = cause;
        return cause instanceof IOException && what == null ? (IOException) cause
                : new IOException("commit log " + what + " failed: " + cause, cause);
    }

    /**
     * Syncs and closes. If the marker shows every entry flushed, the last segment is deleted too,
     * so a clean shutdown leaves only the marker.
     */
    @Override
    public void close() throws IOException {
        if (closed) return;
        if (periodicSyncer != null) {
            periodicSyncer.shutdown();
            try {
                periodicSyncer.awaitTermination(1, TimeUnit.MINUTES);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        IOException syncFailure = null;
        if (failure == null) {
            try {
                sync();
            } catch (IOException e) {
                syncFailure = e;
            }
        }
        appendLock.lock();
        try {
            closed = true;
            CommitLogSegment s = active;
            if (failure == null) s.retire();
            else s.closeQuietly();
            synchronized (markerLock) {
                if (failure == null && flushedUpTo.segmentId() == s.id() && flushedUpTo.position() >= s.writtenBytes()) {
                    Files.deleteIfExists(s.path());
                }
            }
        } finally {
            appendLock.unlock();
        }
        if (syncFailure != null) throw syncFailure;
    }
}

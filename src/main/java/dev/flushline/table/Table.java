package dev.flushline.table;

import dev.flushline.data.InsertBuffer;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.memtable.Memtable;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Leftovers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.IdentityHashMap;
import java.util.List;

/**
 * A table of a storage node, and the one way to a running one: the command line's load, the Java
 * writer (and through it the Spark writer) and the stress tool open a Table from
 * {@link TableOptions}; the {@link Flusher} and {@link DurableTable} underneath are its parts.
 * Open it ({@link #open}), apply updates from any number of threads, flush, close. With a commit
 * log in the options every update is durable before it reaches a memtable and {@link #open}
 * first replays what an earlier process did not flush; without one, a memtable's data is on disk
 * only once flushed.
 *
 * <p>With {@link TableOptions#compaction} set, the table compacts in the background from the
 * moment it is open (after the replay, with a commit log): each flush's sstable is handed to the
 * strategy, which picks compactions on their own threads ({@link BackgroundCompactions}).
 *
 * <p>Memory: a memtable is switched and flushed in the background once its data reaches
 * {@link TableOptions#memtableSizeBytes}; writers wait while twice that is held (one memtable
 * flushing, one filling).
 *
 * <p>Thread safety: {@link #apply} from any number of threads; {@link #flush} from any thread;
 * {@link #close} once, after the writers stopped. {@link #apply(PartitionUpdate, long)} keeps its
 * positions meaningful only from one writer.
 */
public final class Table implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Table.class);

    private final TableOptions options;
    private final DurableTable durable; // null without a commit log
    private final Flusher flusher;
    private final BackgroundCompactions compactions; // null without compaction in the options
    private final List<Path> removedLeftovers;
    /** The position given with the first update each memtable took; guarded by itself. */
    private final IdentityHashMap<Memtable, Long> firstPositions = new IdentityHashMap<>();
    /** The memtable the last positioned update went into (the one writer's own). */
    private Memtable lastTook;

    private Table(TableOptions options, DurableTable durable, Flusher flusher, BackgroundCompactions compactions,
                  List<Path> removedLeftovers) {
        this.options = options;
        this.durable = durable;
        this.flusher = flusher;
        this.compactions = compactions;
        this.removedLeftovers = removedLeftovers;
    }

    /**
     * Opens the table: removes half-written sstables of a crashed writer of ours from its directory
     * (said on {@link TableOptions#info}), names what it leaves alone there (on
     * {@link TableOptions#log}) and, with a commit log, replays and flushes what the log holds
     * beyond its flushed-up-to marker.
     */
    public static Table open(TableOptions options) throws IOException, InterruptedException {
        if (options.commitLog != null) {
            DurableTable d = DurableTable.open(options.schema, new DurableTable.Options(options.commitLog, options::newMemtable,
                    options.flushOptions(), options.limits(), options.onFlushed, options.info, options.log, options.compaction));
            return new Table(options, d, d.flusher(), d.compactions(), d.removedLeftovers());
        }
        Flusher f = new Flusher(options::newMemtable, options.flushOptions(), options.limits(), options.onFlushed, null,
                Flusher.FailurePolicy.DEFAULT, options.log, options.directory);
        BackgroundCompactions c = null;
        List<Path> removed;
        try {
            removed = f.openTableDirectory();
            if (!removed.isEmpty()) new LogLines(LOG, options.info).info("Removed leftovers of an interrupted flush: " + removed);
            LogLines log = new LogLines(LOG, options.log);
            for (Path p : f.incompleteInTableDirectory()) log.leftAlone(Leftovers.describe(p));
            if (options.compaction != null) c = BackgroundCompactions.start(f, options.compaction, options.log);
        } catch (IOException | RuntimeException e) {
            f.abandon();
            throw e;
        }
        return new Table(options, null, f, c, removed);
    }

    public TableSchema schema() {
        return options.schema;
    }

    /** The folder the sstables go into: {@code <dataDir>/<keyspace>/<table>-<id>}, or the directory given. */
    public Path directory() {
        return options.tableDirectory();
    }

    /** The half-written sstables of ours that {@link #open} removed. */
    public List<Path> removedLeftovers() {
        return removedLeftovers;
    }

    /**
     * Applies one update (with a commit log: after it is durable, in batch mode). Blocks while the
     * memtables hold their limit; throws {@link FlusherFailedException} once flushing has failed
     * for good, and IllegalArgumentException for an update no flush could write.
     */
    public void apply(PartitionUpdate update) throws IOException, InterruptedException {
        if (durable != null) durable.apply(update);
        else flusher.apply(update);
    }

    /**
     * As {@link #apply(PartitionUpdate)} without a commit log, noting {@code position} (the caller's
     * place in its input, growing with each call) if this update is the first its memtable took;
     * {@link #firstUnpublishedPosition} then says where the published prefix of the input ends.
     */
    public void apply(PartitionUpdate update, long position) throws IOException, InterruptedException {
        if (durable != null) throw new IllegalStateException("with a commit log, apply in groups: the log says what is durable");
        Memtable took = flusher.apply(update);
        if (took != lastTook) {
            synchronized (firstPositions) {
                firstPositions.putIfAbsent(took, position);
            }
            lastTook = took;
        }
    }

    /**
     * As {@link #apply(PartitionUpdate, long)} for the update {@code insert} means, copied from the
     * buffer into the memtable without objects where the memtable can (see {@code Memtable.apply(InsertBuffer)}).
     * The buffer may be reused once this returns.
     */
    public void apply(InsertBuffer insert, long position) throws IOException, InterruptedException {
        if (durable != null) throw new IllegalStateException("with a commit log, apply in groups: the log says what is durable");
        Memtable took = flusher.apply(insert);
        if (took != lastTook) {
            synchronized (firstPositions) {
                firstPositions.putIfAbsent(took, position);
            }
            lastTook = took;
        }
    }

    /**
     * The smallest position given with an update whose memtable is not published (flushing,
     * failed, or current), or -1 if every positioned update is published. Memtables publish in
     * write order, so every update before it is in published sstables.
     */
    public long firstUnpublishedPosition() {
        long min = Long.MAX_VALUE;
        List<Memtable> unflushed = flusher.unflushedMemtables();
        synchronized (firstPositions) {
            for (int i = 0; i < unflushed.size(); i++) {
                Long first = firstPositions.get(unflushed.get(i));
                if (first != null && first < min) min = first;
            }
        }
        return min == Long.MAX_VALUE ? -1 : min;
    }

    /**
     * Applies {@code updates} in order, with a commit log as one group commit: every update is
     * appended, one wait covers the fsync of the last (batch mode), then all reach the memtable.
     * Returns how many were applied. All are checked before any is logged.
     */
    public int applyGroup(List<PartitionUpdate> updates) throws IOException, InterruptedException {
        if (durable != null) {
            durable.applyGroup(updates);
        } else {
            for (int i = 0; i < updates.size(); i++) flusher.apply(updates.get(i));
        }
        return updates.size();
    }

    /** With a commit log: every update applied up to this count (in this open) is on disk. */
    public long durableUpTo() {
        if (durable == null) throw new IllegalStateException("no commit log: nothing is durable before it is flushed");
        return durable.durableUpTo();
    }

    /** Whether updates are written to a commit log before they reach a memtable. */
    public boolean isDurable() {
        return durable != null;
    }

    /** Flushes the current memtable and waits for every queued flush. */
    public void flush() throws IOException, InterruptedException {
        flusher.forceFlush();
    }

    /** What the current memtable's data takes, on and off heap. */
    public long memtableBytes() {
        return flusher.currentMemtableBytes();
    }

    /** The flusher underneath: counters, the failure state, flush progress. */
    public Flusher flusher() {
        return flusher;
    }

    /** The table's background compaction, or null if the options ask for none. */
    public BackgroundCompactions compactions() {
        return compactions;
    }

    /** The durable table underneath, or null without a commit log. */
    public DurableTable durable() {
        return durable;
    }

    /**
     * Flushes everything, then (with a commit log) records that the log is flushed and closes it.
     * Background compaction starts nothing after the last flush; running compactions finish first.
     */
    @Override
    public void close() throws IOException, InterruptedException {
        if (durable != null) {
            durable.close();
            return;
        }
        try {
            flusher.close();
        } finally {
            if (compactions != null) compactions.close();
        }
    }
}

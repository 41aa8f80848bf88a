package dev.flushline.table;

import dev.flushline.data.PartitionUpdate;
import dev.flushline.flush.FlushJob;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.ShardedSkipListMemtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.schema.TableSchema;

import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * A table of a storage node, the small front of {@link Flusher} and {@link DurableTable}: open it
 * ({@link #open}), apply updates from any number of threads, flush, close. With a commit log in the
 * options every update is durable before it reaches a memtable and {@link #open} first replays
 * what an earlier process did not flush; without one, a memtable's data is on disk only once
 * flushed.
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
 * {@link #close} once, after the writers stopped.
 */
public final class Table implements AutoCloseable {
    private final TableOptions options;
    private final DurableTable durable; // null without a commit log
    private final Flusher flusher;
    private final BackgroundCompactions compactions; // null without compaction in the options

    private Table(TableOptions options, DurableTable durable, Flusher flusher, BackgroundCompactions compactions) {
        this.options = options;
        this.durable = durable;
        this.flusher = flusher;
        this.compactions = compactions;
    }

    /**
     * Opens the table: removes half-written sstables of a crashed writer from its directory and,
     * with a commit log, replays and flushes what the log holds beyond its flushed-up-to marker.
     */
    public static Table open(TableOptions options) throws IOException, InterruptedException {
        TableSchema schema = options.schema;
        Supplier<Memtable> memtables = options.memtableKind == TableOptions.MemtableKind.SHARDED
                ? () -> new ShardedSkipListMemtable(schema, options.allocationMode, options.shards)
                : () -> new SkipListMemtable(schema, options.allocationMode);
        FlushJob.Options flush = FlushJob.Options.builder(options.dataDir).flushCompression(options.flushCompression).build();
        Flusher.Limits limits = new Flusher.Limits(2 * options.memtableSizeBytes, 2 * options.memtableSizeBytes, 0.5);
        if (options.commitLog != null) {
            DurableTable d = DurableTable.open(schema, new DurableTable.Options(options.commitLog, memtables, flush, limits,
                    options.onFlushed, options.log, options.compaction));
            return new Table(options, d, d.flusher(), d.compactions());
        }
        Flusher f = new Flusher(memtables, flush, limits, options.onFlushed, null, Flusher.FailurePolicy.DEFAULT, options.log);
        BackgroundCompactions c = null;
        try {
            f.openTableDirectory();
            for (java.nio.file.Path p : f.incompleteInTableDirectory()) options.log.accept(dev.flushline.sstable.Leftovers.describe(p));
            if (options.compaction != null) c = BackgroundCompactions.start(f, options.compaction, options.log);
        } catch (IOException | RuntimeException e) {
            f.abandon();
            throw e;
        }
        return new Table(options, null, f, c);
    }

    public TableSchema schema() {
        return options.schema;
    }

    /** The folder the sstables go into: {@code <dataDir>/<keyspace>/<table>-<id>}. */
    public Path directory() {
        return FlushJob.tableDir(options.dataDir, options.schema);
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

    /** Flushes the current memtable and waits for every queued flush. */
    public void flush() throws IOException, InterruptedException {
        flusher.forceFlush();
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

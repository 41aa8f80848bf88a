package dev.flushline.table;

import dev.flushline.commitlog.CommitLog;
import dev.flushline.flush.FlushCompression;
import dev.flushline.flush.FlushOutcome;
import dev.flushline.flush.FlushJob;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.HashMemtable;
import dev.flushline.memtable.ShardedSkipListMemtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.SSTableVersion;

import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Everything {@link Table#open} needs, and the one place that turns it into the parts underneath:
 * the memtable kind ({@link #newMemtable}), the memory policy ({@link #limits}) and the flush
 * settings ({@link #flushOptions}). Built with {@link #builder}; immutable. Settings may be given
 * by their configuration names (as a node's yaml or the command line spells them), so that callers
 * need not reach into the packages below.
 */
public final class TableOptions {
    /** The memtable implementations, by configuration name. */
    public enum MemtableKind {
        SKIPLIST("skiplist"), SHARDED("sharded"), HASH("hash");

        private final String configName;

        MemtableKind(String configName) {
            this.configName = configName;
        }

        public String configName() {
            return configName;
        }

        /** A fresh memtable of this kind: the one place a kind becomes a class. */
        public Memtable create(TableSchema schema, AllocationMode mode, int shards) {
            switch (this) {
                case SHARDED: return new ShardedSkipListMemtable(schema, mode, shards);
                case HASH: return new HashMemtable(schema, mode);
                default: return new SkipListMemtable(schema, mode);
            }
        }

        public static MemtableKind fromConfigName(String name) {
            for (MemtableKind k : values()) {
                if (k.configName.equals(name)) return k;
            }
            throw new IllegalArgumentException("unknown memtable '" + name + "' (expected skiplist, sharded or hash)");
        }
    }

    public final TableSchema schema;
    /** The data root: sstables go into {@code <dataDir>/<keyspace>/<table>-<id>}, as on a node; null with {@link #directory}. */
    public final Path dataDir;
    /** The folder the sstables go into, as given (a bulk writer's output directory); null for the data root's layout. */
    public final Path directory;
    public final MemtableKind memtableKind;
    /** Shards of a {@link MemtableKind#SHARDED} memtable. */
    public final int shards;
    public final AllocationMode allocationMode;
    /** A memtable is switched and flushed once its data takes this many bytes. */
    public final long memtableSizeBytes;
    /** The commit log, or null for none (data not yet flushed is lost if the process dies). */
    public final CommitLog.Options commitLog;
    /** Sees every published sstable (on the flush thread); may be null. */
    public final Consumer<FlushOutcome> onFlushed;
    /**
     * Receives warnings ("WARN ..."), failed flush attempts ("ERROR ..."), what {@link Table#open}
     * leaves alone and the compactions' lines, one line each; null (the default): they are logged
     * through SLF4J instead, by the class that says them ({@code dev.flushline.table.Flusher},
     * {@code .Table}, {@code .DurableTable}, {@code .BackgroundCompactions}), without the prefix: at
     * error for a failure (the cause attached), warn for a warning or a file left alone, info for a
     * compaction done.
     */
    public final Consumer<String> log;
    /**
     * Receives what is worth knowing but not a warning: the replay summary, removed leftovers;
     * {@link #log} unless set, and so SLF4J at info when neither is.
     */
    public final Consumer<String> info;
    /**
     * Background compaction of the table's sstables with these settings (strategy, ranges,
     * threads, throughput), started by {@link Table#open}; null for none. Its lines (one per
     * compaction, and its warnings and failures) go to {@link #log}.
     */
    public final BackgroundCompactions.Settings compaction;
    /**
     * What a flush compresses with, as a node's {@code flush_compression}: {@link FlushCompression#FAST}
     * by default, as in Cassandra (Zstd, Deflate and LZ4-high tables are flushed as LZ4 and get
     * their own codec when compacted). Bulk loaders that must write the table's codec, as
     * CQLSSTableWriter does, set {@link FlushCompression#TABLE}.
     */
    public final FlushCompression flushCompression;
    /** The sstable version every flush writes. */
    public final SSTableVersion version;
    /** Equal token ranges each flush splits into (ignored with split tokens). */
    public final int ranges;
    private final long[] splitTokens;
    /** Threads writing one flush's ranges. */
    public final int flushThreads;
    /** An sstable is finished after the partition that takes its Data.db past this many bytes; 0 = no limit. */
    public final long maxSSTableBytes;

    private TableOptions(Builder b) {
        this.schema = Objects.requireNonNull(b.schema, "schema");
        if ((b.dataDir == null) == (b.directory == null)) {
            throw new IllegalArgumentException("give either a data directory or the table's own directory");
        }
        this.dataDir = b.dataDir;
        this.directory = b.directory;
        this.memtableKind = b.memtableKind;
        this.shards = b.shards;
        this.allocationMode = b.allocationMode;
        this.memtableSizeBytes = b.memtableSizeBytes;
        this.commitLog = b.commitLog;
        this.onFlushed = b.onFlushed;
        this.log = b.log;
        this.info = b.info != null ? b.info : b.log;
        this.compaction = b.compaction;
        this.flushCompression = b.flushCompression;
        this.version = b.version;
        this.ranges = b.ranges;
        this.splitTokens = b.splitTokens;
        this.flushThreads = b.flushThreads;
        this.maxSSTableBytes = b.maxSSTableBytes;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A fresh memtable of the chosen kind. */
    Memtable newMemtable() {
        return memtableKind.create(schema, allocationMode, shards);
    }

    /** The memory policy for {@link #memtableSizeBytes}. */
    Flusher.Limits limits() {
        return Flusher.Limits.forMemtableSize(memtableSizeBytes);
    }

    /** What each flush of the table writes, and where. */
    FlushJob.Options flushOptions() {
        FlushJob.Options.Builder b = FlushJob.Options.builder(directory != null ? directory : dataDir)
                .flushThreads(flushThreads).version(version).flushCompression(flushCompression).maxSSTableBytes(maxSSTableBytes);
        return (splitTokens != null ? b.splitTokens(splitTokens) : b.ranges(ranges)).build();
    }

    /** The folder the sstables go into. */
    Path tableDirectory() {
        return directory != null ? directory : schema.directoryUnder(dataDir);
    }

    /** Defaults: a skip-list memtable in heap_buffers mode of 128 MiB, no commit log, flush_compression fast, oa, one range on one thread. Not thread-safe. */
    public static final class Builder {
        private TableSchema schema;
        private Path dataDir;
        private Path directory;
        private MemtableKind memtableKind = MemtableKind.HASH;
        private int shards = 4;
        private AllocationMode allocationMode = AllocationMode.HEAP_BUFFERS;
        private long memtableSizeBytes = 128L << 20;
        private CommitLog.Options commitLog;
        private Consumer<FlushOutcome> onFlushed;
        private Consumer<String> log;
        private Consumer<String> info;
        private BackgroundCompactions.Settings compaction;
        private FlushCompression flushCompression = FlushCompression.FAST;
        private SSTableVersion version = SSTableVersion.OA;
        private int ranges = 1;
        private long[] splitTokens;
        private int flushThreads = 1;
        private long maxSSTableBytes;

        private Builder() {}

        public Builder schema(TableSchema schema) {
            this.schema = schema;
            return this;
        }

        /** Parses a {@code CREATE TABLE} statement ({@link dev.flushline.schema.SchemaException} names line and column). */
        public Builder schema(String createTableCql) {
            this.schema = CqlParser.parse(createTableCql);
            return this;
        }

        /** The data root, laid out as a node's: {@code <dataDir>/<keyspace>/<table>-<id>}. */
        public Builder dataDir(Path dataDir) {
            this.dataDir = dataDir;
            return this;
        }

        /** The table's own folder, used as given (as CQLSSTableWriter writes into its output directory). */
        public Builder directory(Path directory) {
            this.directory = directory;
            return this;
        }

        public Builder memtable(MemtableKind kind) {
            this.memtableKind = Objects.requireNonNull(kind);
            return this;
        }

        /** {@code skiplist} or {@code sharded}. */
        public Builder memtable(String configName) {
            return memtable(MemtableKind.fromConfigName(configName));
        }

        public Builder shards(int shards) {
            if (shards < 1 || shards > 1024) throw new IllegalArgumentException("shards must be in 1..1024: " + shards);
            this.shards = shards;
            return this;
        }

        public Builder allocation(AllocationMode mode) {
            this.allocationMode = Objects.requireNonNull(mode);
            return this;
        }

        /** A node's {@code memtable_allocation_type}: unslabbed_heap, heap_buffers or offheap_objects. */
        public Builder allocation(String configName) {
            return allocation(AllocationMode.fromCliName(configName));
        }

        public Builder memtableSizeBytes(long bytes) {
            if (bytes < 1) throw new IllegalArgumentException("memtable size must be positive: " + bytes);
            this.memtableSizeBytes = bytes;
            return this;
        }

        /** Makes the table durable: every update is appended here before it reaches a memtable. */
        public Builder commitLog(CommitLog.Options options) {
            this.commitLog = options;
            return this;
        }

        /**
         * A commit log in {@code dir} with default segments, synced as {@code sync} says (batch or
         * periodic, as a node's {@code commitlog_sync}); {@code skipCorrupt} replays past corrupt
         * entries instead of refusing to start.
         */
        public Builder commitLog(Path dir, String sync, boolean skipCorrupt) {
            return commitLog(new CommitLog.Options(dir, CommitLog.Options.DEFAULT_SEGMENT_SIZE_BYTES, CommitLog.SyncMode.parse(sync),
                    CommitLog.Options.DEFAULT_PERIODIC_SYNC_MILLIS, skipCorrupt));
        }

        public Builder onFlushed(Consumer<FlushOutcome> onFlushed) {
            this.onFlushed = onFlushed;
            return this;
        }

        /** Where warnings and failures go, as lines, instead of SLF4J (see {@link TableOptions#log}). */
        public Builder log(Consumer<String> log) {
            this.log = Objects.requireNonNull(log);
            return this;
        }

        /** Where informational lines go; the {@link #log} unless set. */
        public Builder info(Consumer<String> info) {
            this.info = Objects.requireNonNull(info);
            return this;
        }

        /** Compacts the table in the background with {@code settings} (null: no compaction, the default). */
        public Builder compaction(BackgroundCompactions.Settings settings) {
            this.compaction = settings;
            return this;
        }

        /** Flushes compress as {@code mode} says (default {@link FlushCompression#FAST}, as a node). */
        public Builder flushCompression(FlushCompression mode) {
            this.flushCompression = Objects.requireNonNull(mode);
            return this;
        }

        /** A node's {@code flush_compression}: fast, table or none. */
        public Builder flushCompression(String configName) {
            FlushCompression f = FlushCompression.fromConfigName(configName);
            if (f == null) throw new IllegalArgumentException("unknown flush_compression '" + configName + "' (expected fast, table or none)");
            return flushCompression(f);
        }

        public Builder sstableVersion(SSTableVersion version) {
            this.version = Objects.requireNonNull(version);
            return this;
        }

        /** Split each flush into {@code n} equal token ranges, one sstable or more each. */
        public Builder ranges(int n) {
            if (n < 1) throw new IllegalArgumentException("ranges must be at least 1: " + n);
            this.ranges = n;
            return this;
        }

        /** Split each flush at these tokens (strictly increasing; copied) instead of equal ranges. */
        public Builder splitTokens(long[] starts) {
            this.splitTokens = starts == null ? null : starts.clone();
            return this;
        }

        public Builder flushThreads(int threads) {
            if (threads < 1) throw new IllegalArgumentException("flush threads must be at least 1: " + threads);
            this.flushThreads = threads;
            return this;
        }

        /** Finish an sstable after the partition that takes its Data.db past {@code bytes}; 0 = no limit. */
        public Builder maxSSTableBytes(long bytes) {
            if (bytes < 0) throw new IllegalArgumentException("max sstable size must be 0 (none) or more: " + bytes);
            this.maxSSTableBytes = bytes;
            return this;
        }

        public TableOptions build() {
            if (schema != null && schema.isCounterTable()) {
                throw new IllegalArgumentException("table " + schema + " is a counter table: a counter is changed by increments, "
                        + "which a Table does not write (as CQLSSTableWriter refuses counter statements)");
            }
            if (directory != null && commitLog != null) {
                throw new IllegalArgumentException("a commit log needs the data directory's layout (dataDir), not a table directory");
            }
            return new TableOptions(this);
        }
    }
}

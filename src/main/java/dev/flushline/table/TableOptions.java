package dev.flushline.table;

import dev.flushline.commitlog.CommitLog;
import dev.flushline.flush.FlushCompression;
import dev.flushline.flush.FlushOutcome;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;

import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * What {@link Table#open} needs: the schema, the data directory, the memtable kind and allocation
 * mode, the memtable size and, optionally, a commit log and background compaction. Built with
 * {@link #builder}; immutable.
 */
public final class TableOptions {
    /** The memtable implementations. */
    public enum MemtableKind { SKIPLIST, SHARDED }

    public final TableSchema schema;
    /** The data root: sstables go into {@code <dataDir>/<keyspace>/<table>-<id>}, as on a node. */
    public final Path dataDir;
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
    /** Receives warnings, failed flush attempts and the replay summary; never null. */
    public final Consumer<String> log;
    /**
     * Background compaction of the table's sstables with these settings (strategy, ranges,
     * threads, throughput), started by {@link Table#open}; null for none. Its log lines go to
     * {@link #log}.
     */
    public final BackgroundCompactions.Settings compaction;
    /**
     * What a flush compresses with, as a node's {@code flush_compression}: {@link FlushCompression#FAST}
     * by default, as in Cassandra (Zstd, Deflate and LZ4-high tables are flushed as LZ4 and get
     * their own codec when compacted). Bulk loaders that must write the table's codec, as
     * CQLSSTableWriter does, set {@link FlushCompression#TABLE}.
     */
    public final FlushCompression flushCompression;

    private TableOptions(Builder b) {
        this.schema = Objects.requireNonNull(b.schema, "schema");
        this.dataDir = Objects.requireNonNull(b.dataDir, "data directory");
        this.memtableKind = b.memtableKind;
        this.shards = b.shards;
        this.allocationMode = b.allocationMode;
        this.memtableSizeBytes = b.memtableSizeBytes;
        this.commitLog = b.commitLog;
        this.onFlushed = b.onFlushed;
        this.log = b.log;
        this.compaction = b.compaction;
        this.flushCompression = b.flushCompression;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Defaults: a skip-list memtable in heap_buffers mode of 128 MiB, no commit log, flush_compression fast. Not thread-safe. */
    public static final class Builder {
        private TableSchema schema;
        private Path dataDir;
        private MemtableKind memtableKind = MemtableKind.SKIPLIST;
        private int shards = 4;
        private AllocationMode allocationMode = AllocationMode.HEAP_BUFFERS;
        private long memtableSizeBytes = 128L << 20;
        private CommitLog.Options commitLog;
        private Consumer<FlushOutcome> onFlushed;
        private Consumer<String> log = System.err::println;
        private BackgroundCompactions.Settings compaction;
        private FlushCompression flushCompression = FlushCompression.FAST;

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

        public Builder dataDir(Path dataDir) {
            this.dataDir = dataDir;
            return this;
        }

        public Builder memtable(MemtableKind kind) {
            this.memtableKind = Objects.requireNonNull(kind);
            return this;
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

        public Builder onFlushed(Consumer<FlushOutcome> onFlushed) {
            this.onFlushed = onFlushed;
            return this;
        }

        public Builder log(Consumer<String> log) {
            this.log = Objects.requireNonNull(log);
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

        public TableOptions build() {
            if (schema != null && schema.isCounterTable()) {
                throw new IllegalArgumentException("table " + schema + " is a counter table: a counter is changed by increments, "
                        + "which a Table does not write (as CQLSSTableWriter refuses counter statements)");
            }
            return new TableOptions(this);
        }
    }
}

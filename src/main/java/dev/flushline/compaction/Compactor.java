package dev.flushline.compaction;

import dev.flushline.data.Reconcile;
import dev.flushline.data.Cell;
import dev.flushline.data.ClusteringBound;
import dev.flushline.data.ClusteringBuffer;
import dev.flushline.data.ClusteringComparator;
import dev.flushline.data.Murmur3;
import dev.flushline.data.RowBuffer;
import dev.flushline.data.TokenRanges;
import dev.flushline.schema.ColumnMetadata;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.DataChunks;
import dev.flushline.sstable.DataLayout;
import dev.flushline.sstable.EncodingStats;
import dev.flushline.sstable.IncompatibleSSTableException;
import dev.flushline.sstable.PartitionIndex;
import dev.flushline.sstable.SSTableCursor;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.SSTableOutput;
import dev.flushline.sstable.SerializationHeader;
import dev.flushline.sstable.SSTableVersion;
import dev.flushline.sstable.StatisticsReader;
import dev.flushline.sstable.TableDirectory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A compaction of sstables of one table. In a major compaction every sstable takes part, so
 * whatever a tombstone shadows is among them and tombstones past gc grace can be purged; a minor
 * one (a strategy's pick) purges only tombstones older than {@link Options#maxPurgeableTimestamp}. Cursors over the inputs are
 * merged k ways, partitions by token then key bytes, and inside a partition rows and range
 * tombstone markers by clustering (the table's comparator, DESC columns included); the versions
 * of each row merge and purge in {@link RowMerger}, markers as Cassandra's
 * RangeTombstoneMarker.Merger and PurgeFunction do (below). The result goes through the flush's
 * serializer into new sstables, split by token range and size at partition boundaries.
 *
 * <p>Range tombstones: per input the deletion its markers leave open is tracked. At each marker
 * position the merged stream's open deletion is the superseding open one, unless it does not
 * supersede the partition deletion (then none); when that changes, one marker is emitted there:
 * an open bound, a close bound or a boundary, inclusive or exclusive by the side of the position
 * (before or after the clustering it names). Rows under an open deletion merge with it as the
 * covering deletion. After the merge a bound whose deletion is purgeable goes; a boundary with one
 * purgeable side becomes the bound of the other side.
 *
 * <p>Partitions: the deletion is the superseding one; a partition with nothing left after purging
 * is not written at all. Its header is written when its first item is, so nothing is buffered.
 *
 * <p>Copy-through ({@link Options#copyThrough}): a row that one input holds, under no partition or
 * range deletion, is what the merge takes as it is and then purges; when nothing in it would be
 * purged, expire or be dropped ({@link RowMerger#keepsAsIs}, skipped per row for an input whose
 * Statistics.db rules all of that out), it is copied from the input's window instead of rebuilt:
 * as its bytes when its input's header has the output's bases, else with only its timestamps,
 * TTLs and deletion times re-encoded (see RowSerializer). The static row of a partition held by one
 * input likewise. The bytes, statistics, row index and counts are those of the merge, which still
 * takes every row that cannot be copied (bytes another writer encoded otherwise, anything to
 * purge, a covering deletion), so a partition may mix the two. An input whose header has fewer
 * columns than the output's has its rows transcoded, column subset included.
 *
 * <p>Losing versions ({@link Options#skipLosingVersions}): inputs' rows stop after their header;
 * of the versions of one row (or of one partition's static rows), each that loses every part of
 * itself to another ({@link RowMerger#losesEverything}: an older sstable by its Statistics.db
 * timestamps, columns among the other's, no complex column, liveness and row deletion beaten) is
 * stepped over by its row size without decoding its cells, and the rest merge as ever. So is each
 * version under a covering partition or range deletion newer than everything in its sstable. Its
 * cells count as read and merged away, as in the full merge. Versions with complex columns are always
 * decoded (their cells merge by path and cannot be counted from the header).
 *
 * <p>Atomicity: outputs are written to staging directories and published (TOC.txt last) only after
 * every input was read to its end without error and the cell counts balance (cells read = cells
 * written + merged away + purged); otherwise nothing is published. Inputs are only read.
 *
 * <p>Memory: flyweights and scratch arrays sized for the inputs and the widest row, reused for
 * every partition, row and cell.
 *
 * <p>Thread safety: none; {@link #run} runs on the calling thread (plus the writers' I/O threads).
 */
public final class Compactor {
    /** What to compact with. */
    /**
     * Immutable settings of one compaction, made by {@link #builder} and derived with
     * {@link #toBuilder}: a copy made there carries every setting, including one added later.
     */
    public static final class Options {
        /** The clock for TTL expiry, in seconds. */
        public final long nowSeconds;
        /**
         * Tombstones with a local deletion time before this are purged: {@code now - gc_grace_seconds}, where
         * gc_grace_seconds is the table's ({@link TableSchema#gcGraceSeconds}) unless the caller was told otherwise.
         */
        public final long gcBefore;
        /** Output ranges start at each of these tokens (strictly increasing); empty = one range. */
        private final long[] splitTokens;
        /**
         * Null, or one flag per output range ({@code splitTokens.length + 1}): the partitions of
         * every flagged range go to one pooled output shared by all of them, which may span range
         * boundaries; the others get outputs of their own that never cross one. A range-aware
         * strategy flags the ranges whose share of the output is too small for an sstable of its
         * own.
         */
        private final boolean[] pooledRanges;
        /** Start a new sstable at the next partition once one holds this many uncompressed bytes; 0 = no limit. */
        public final long maxSSTableBytes;
        /** Serialize on the compaction thread while an I/O thread compresses and writes. */
        public final boolean pipelined;
        /**
         * Only partitions with tokens in [tokenLo, tokenHi] (both inclusive): one slice of the ring,
         * so that compactors of disjoint slices can run on parallel threads over the same inputs.
         */
        public final long tokenLo, tokenHi;
        /**
         * The version of every output. An input whose Statistics.db records a local deletion time
         * this version cannot store is refused before anything is written.
         */
        public final SSTableVersion version;
        /**
         * A tombstone is purged only if its timestamp is below this as well as past gc grace. A
         * major compaction (every sstable, no memtable holding data) leaves it at Long.MAX_VALUE;
         * a minor one passes the smallest timestamp of the overlapping sstables it leaves out and
         * of the live memtables, since a tombstone at or above that may still shadow their data.
         */
        public final long maxPurgeableTimestamp;
        /** The level recorded in every output's Statistics.db (the leveled strategy's level; 0 otherwise). */
        public final int outputLevel;
        /** Paces the bytes the outputs take (shared by the compactions of a node); null = unthrottled. */
        public final CompactionThrottle throttle;
        /**
         * Copy through what a merge would write back unchanged (on by default): a row held by one
         * input, under no partition or range deletion and with nothing to purge, goes from the
         * input's bytes to the output's without being rebuilt. The outputs are the same bytes
         * either way; off, every row is merged (for comparison).
         */
        public final boolean copyThrough;
        /**
         * Step over a row version that loses every part of itself to another version of the row
         * (on by default; see {@link RowMerger#losesEverything}) or to a covering deletion, without
         * decoding its cells. The
         * outputs are the same bytes either way; off, every version is decoded and merged.
         */
        public final boolean skipLosingVersions;

        private Options(Builder b) {
            this.nowSeconds = b.nowSeconds;
            this.gcBefore = b.gcBefore;
            this.splitTokens = b.splitTokens;
            this.pooledRanges = b.pooledRanges;
            this.maxSSTableBytes = b.maxSSTableBytes;
            this.pipelined = b.pipelined;
            this.tokenLo = b.tokenLo;
            this.tokenHi = b.tokenHi;
            this.version = b.version;
            this.maxPurgeableTimestamp = b.maxPurgeableTimestamp;
            this.outputLevel = b.outputLevel;
            this.throttle = b.throttle;
            this.copyThrough = b.copyThrough;
            this.skipLosingVersions = b.skipLosingVersions;
        }

        /**
         * A major compaction at {@code nowSeconds} purging tombstones deleted before {@code gcBefore}:
         * one output range, no size limit, pipelined, the whole ring, oa, level 0, unthrottled,
         * copying through, skipping losing row versions.
         */
        public static Builder builder(long nowSeconds, long gcBefore) {
            return new Builder(nowSeconds, gcBefore);
        }

        /** A builder holding every one of these settings. */
        public Builder toBuilder() {
            Builder b = new Builder(nowSeconds, gcBefore);
            b.splitTokens = splitTokens;
            b.pooledRanges = pooledRanges;
            b.maxSSTableBytes = maxSSTableBytes;
            b.pipelined = pipelined;
            b.tokenLo = tokenLo;
            b.tokenHi = tokenHi;
            b.version = version;
            b.maxPurgeableTimestamp = maxPurgeableTimestamp;
            b.outputLevel = outputLevel;
            b.throttle = throttle;
            b.copyThrough = copyThrough;
            b.skipLosingVersions = skipLosingVersions;
            return b;
        }

        /** The output ranges' start tokens (a copy). */
        public long[] splitTokens() {
            return splitTokens.clone();
        }

        /** Not thread-safe; each setting is checked as it is given. */
        public static final class Builder {
            private final long nowSeconds;
            private final long gcBefore;
            private long[] splitTokens = new long[0];
            private boolean[] pooledRanges;
            private long maxSSTableBytes;
            private boolean pipelined = true;
            private long tokenLo = Long.MIN_VALUE, tokenHi = Long.MAX_VALUE;
            private SSTableVersion version = SSTableVersion.OA;
            private long maxPurgeableTimestamp = Long.MAX_VALUE;
            private int outputLevel;
            private CompactionThrottle throttle;
            private boolean copyThrough = true;
            private boolean skipLosingVersions = true;

            private Builder(long nowSeconds, long gcBefore) {
                this.nowSeconds = nowSeconds;
                this.gcBefore = gcBefore;
            }

            /** Output ranges starting at these tokens (copied; strictly increasing, checked when the compactor is made). */
            public Builder splitTokens(long[] starts) {
                this.splitTokens = starts.clone();
                return this;
            }

            /** One flag per output range, or null: see {@link Options#pooledRanges}. */
            public Builder pooledRanges(boolean[] pooled) {
                this.pooledRanges = pooled == null ? null : pooled.clone();
                return this;
            }

            public Builder maxSSTableBytes(long bytes) {
                if (bytes < 0) throw new IllegalArgumentException("max sstable size must be 0 (none) or more: " + bytes);
                this.maxSSTableBytes = bytes;
                return this;
            }

            public Builder pipelined(boolean pipelined) {
                this.pipelined = pipelined;
                return this;
            }

            /** Only partitions with tokens in [lo, hi], both inclusive. */
            public Builder tokenRange(long lo, long hi) {
                if (lo > hi) throw new IllegalArgumentException("empty token range [" + lo + ", " + hi + "]");
                this.tokenLo = lo;
                this.tokenHi = hi;
                return this;
            }

            public Builder version(SSTableVersion version) {
                this.version = java.util.Objects.requireNonNull(version, "sstable version");
                return this;
            }

            public Builder maxPurgeableTimestamp(long timestamp) {
                this.maxPurgeableTimestamp = timestamp;
                return this;
            }

            public Builder outputLevel(int level) {
                if (level < 0) throw new IllegalArgumentException("level must be 0 or more: " + level);
                this.outputLevel = level;
                return this;
            }

            /** Shared pacing of output bytes, or null for none. */
            public Builder throttle(CompactionThrottle throttle) {
                this.throttle = throttle;
                return this;
            }

            /** See {@link Options#copyThrough}. */
            public Builder copyThrough(boolean copyThrough) {
                this.copyThrough = copyThrough;
                return this;
            }

            /** See {@link Options#skipLosingVersions}. */
            public Builder skipLosingVersions(boolean skip) {
                this.skipLosingVersions = skip;
                return this;
            }

            public Options build() {
                return new Options(this);
            }
        }
    }

    /** What a compaction did. */
    public static final class Result {
        public final List<Path> published = new ArrayList<>();
        public final List<Path> inputs = new ArrayList<>();
        /** mergeCounts[k]: partitions that k inputs held. */
        public long[] mergeCounts;
        public long inputPartitions, outputPartitions, outputRows, outputMarkers;
        public long inputRows;
        public long cellsRead, cellsWritten, cellsMergedAway, cellsPurged;
        public long inputDataBytes, outputDataBytes, outputUncompressedBytes;
        public long mergeNanos;
        public long ioCpuNanos, ioAllocatedBytes;
        /** CPU time and heap allocation of the compacting thread, when the caller measured them. */
        public long threadCpuNanos, threadAllocatedBytes;
        /**
         * Copy-through ({@link Options#copyThrough}): rows (static rows included) copied rather
         * than merged; of those, the ones whose bytes were taken as they were (the rest had their
         * timestamps, TTLs and deletion times transcoded to the output's bases); and partitions
         * held by one input none of whose rows was merged (range tombstone markers are rewritten
         * in any case).
         */
        public long rowsCopied, rowsCopiedVerbatim, partitionsCopied;
        /**
         * Row versions (static rows included) stepped over undecoded because another version of the
         * row beats every part of them, or a covering partition or range deletion does
         * ({@link Options#skipLosingVersions}); counted in
         * {@link #inputRows}, their cells in {@link #cellsRead} and {@link #cellsMergedAway}.
         */
        public long rowVersionsSkipped;
        /**
         * Of {@link #rowsCopied}, rows held in more than one input whose other versions were all
         * stepped over ({@link #rowVersionsSkipped}), so that the one left was copied; without
         * {@link Options#skipLosingVersions} each would have been merged.
         */
        public long survivorsCopied;
        /**
         * Of {@link #rowsCopied}, rows whose cells were not decoded at all: each cell plain (the row's
         * timestamp and a value), the row a liveness without TTL and no deletion, from an input with
         * this output's columns.
         */
        public long rowsCopiedUndecoded;

        /** The result of two compactions of disjoint slices of the same inputs, as one. */
        public static Result combine(Result a, Result b) {
            Result r = new Result();
            r.published.addAll(a.published);
            r.published.addAll(b.published);
            r.inputs.addAll(a.inputs);
            r.mergeCounts = new long[Math.max(a.mergeCounts.length, b.mergeCounts.length)];
            for (int i = 0; i < a.mergeCounts.length; i++) r.mergeCounts[i] += a.mergeCounts[i];
            for (int i = 0; i < b.mergeCounts.length; i++) r.mergeCounts[i] += b.mergeCounts[i];
            r.inputPartitions = a.inputPartitions + b.inputPartitions;
            r.outputPartitions = a.outputPartitions + b.outputPartitions;
            r.outputRows = a.outputRows + b.outputRows;
            r.outputMarkers = a.outputMarkers + b.outputMarkers;
            r.inputRows = a.inputRows + b.inputRows;
            r.cellsRead = a.cellsRead + b.cellsRead;
            r.cellsWritten = a.cellsWritten + b.cellsWritten;
            r.cellsMergedAway = a.cellsMergedAway + b.cellsMergedAway;
            r.cellsPurged = a.cellsPurged + b.cellsPurged;
            r.inputDataBytes = a.inputDataBytes; // the same inputs
            r.outputDataBytes = a.outputDataBytes + b.outputDataBytes;
            r.outputUncompressedBytes = a.outputUncompressedBytes + b.outputUncompressedBytes;
            r.mergeNanos = Math.max(a.mergeNanos, b.mergeNanos); // the slices ran side by side
            r.ioCpuNanos = a.ioCpuNanos + b.ioCpuNanos;
            r.ioAllocatedBytes = a.ioAllocatedBytes + b.ioAllocatedBytes;
            r.threadCpuNanos = a.threadCpuNanos + b.threadCpuNanos;
            r.threadAllocatedBytes = a.threadAllocatedBytes + b.threadAllocatedBytes;
            r.rowsCopied = a.rowsCopied + b.rowsCopied;
            r.rowsCopiedVerbatim = a.rowsCopiedVerbatim + b.rowsCopiedVerbatim;
            r.partitionsCopied = a.partitionsCopied + b.partitionsCopied;
            r.rowVersionsSkipped = a.rowVersionsSkipped + b.rowVersionsSkipped;
            r.survivorsCopied = a.survivorsCopied + b.survivorsCopied;
            r.rowsCopiedUndecoded = a.rowsCopiedUndecoded + b.rowsCopiedUndecoded;
            return r;
        }
    }

    private final TableSchema schema;
    private final List<SSTableFiles> files;
    private final Options options;

    public Compactor(TableSchema schema, List<SSTableFiles> inputs, Options options) {
        if (inputs.isEmpty()) throw new IllegalArgumentException("nothing to compact");
        if (schema.isCounterTable()) {
            // Counter cells reconcile by merging their counter contexts shard by shard, not by
            // timestamp; the merge here knows only the latter, so it would lose increments.
            throw new IllegalArgumentException("table " + schema + " is a counter table: compacting it needs Cassandra's "
                    + "counter-context merge, which is not implemented");
        }
        this.schema = schema;
        this.files = List.copyOf(inputs);
        this.options = options;
        this.comparator = new ClusteringComparator(schema);
        TokenRanges.checkSplits(options.splitTokens);
        if (options.pooledRanges != null && options.pooledRanges.length != options.splitTokens.length + 1) {
            throw new IllegalArgumentException("pooled range flags: " + options.pooledRanges.length + " for "
                    + (options.splitTokens.length + 1) + " output ranges");
        }
    }

    /**
     * Reads the inputs' Statistics.db and opens their cursors; refuses an input whose header does
     * not fit the schema, another partitioner or another version (naming file and reason), before
     * anything is written.
     */
    private CompactionInput[] open() throws IOException {
        CompactionInput[] in = new CompactionInput[files.size()];
        try {
            for (int i = 0; i < in.length; i++) {
                SSTableFiles f = files.get(i);
                StatisticsReader.Metadata m = StatisticsReader.read(f, schema, false);
                checkStorable(f, m, options.version);
                SSTableCursor cursor = new SSTableCursor(DataChunks.open(f, true), m.header);
                in[i] = new CompactionInput(i, f, cursor, m, schema, comparator);
                if (options.tokenLo != Long.MIN_VALUE) cursor.seek(firstPositionAtOrAfter(f, options.tokenLo, cursor.length()));
            }
        } catch (IOException | RuntimeException e) {
            for (CompactionInput c : in) {
                if (c != null) c.close();
            }
            throw e;
        }
        for (CompactionInput c : in) c.knowOthers(in);
        return in;
    }

    /**
     * The local deletion time below which tombstones may be purged. With the table's
     * only_purge_repaired_tombstones, nothing is purged while any input is unrepaired, as in Cassandra
     * (its purger then treats every tombstone as younger than the oldest unrepaired one): a tombstone
     * purged before repair has spread it could let a replica's older data come back.
     */
    static long purgeBound(TableSchema schema, long gcBefore, CompactionInput[] in) {
        if (!schema.onlyPurgeRepairedTombstones()) return gcBefore;
        for (CompactionInput c : in) {
            if (c.metadata.repairedAt == 0) return Long.MIN_VALUE;
        }
        return gcBefore;
    }

    /**
     * Refuses an input holding a local deletion time (expiry or tombstone) later than {@code version}
     * stores: the input's Statistics.db maximum covers every cell, row, range and partition deletion.
     */
    static void checkStorable(SSTableFiles f, StatisticsReader.Metadata m, SSTableVersion version) {
        long max = m.maxLocalDeletionTime;
        if (max != Long.MAX_VALUE && max > version.maxLocalDeletionTime()) {
            throw new IncompatibleSSTableException(f.path(Component.STATISTICS), "it records local deletion time " + max
                    + " (an expiry or a tombstone), after the latest an " + version + " sstable stores ("
                    + version.maxLocalDeletionTime() + ", " + version.maxLocalDeletionTimeText() + ")");
        }
    }

    /**
     * The output header, as Cassandra's compaction makes it (SerializationHeader.make): the union of
     * the inputs' columns, and bases that are the minimum of the inputs' Statistics.db minimum
     * timestamp, local deletion time and TTL.
     */
    static SerializationHeader outputHeader(TableSchema schema, CompactionInput[] in) {
        boolean[] statics = new boolean[schema.staticColumns().length];
        boolean[] regulars = new boolean[schema.regularColumns().length];
        long minTs = Long.MAX_VALUE, minLdt = Long.MAX_VALUE;
        int minTtl = Integer.MAX_VALUE;
        for (CompactionInput c : in) {
            minTs = Math.min(minTs, c.metadata.minTimestamp);
            minLdt = Math.min(minLdt, c.metadata.minLocalDeletionTime);
            minTtl = Math.min(minTtl, c.metadata.minTtl);
            mark(c.cursor.header().staticColumns(), schema.staticColumns(), statics);
            mark(c.cursor.header().regularColumns(), schema.regularColumns(), regulars);
        }
        return new SerializationHeader(schema, new EncodingStats(minTs, minLdt, minTtl), statics, regulars);
    }

    private static void mark(ColumnMetadata[] header, ColumnMetadata[] table, boolean[] out) {
        for (ColumnMetadata h : header) {
            for (int p = 0; p < table.length; p++) {
                if (table[p].name().equals(h.name())) out[p] = true;
            }
        }
    }

    /** Data.db position of the first partition whose token is at least {@code token} (from its partition index), or the data length. */
    private long firstPositionAtOrAfter(SSTableFiles f, long token, long dataLength) throws IOException {
        try (PartitionIndex index = PartitionIndex.open(f, schema)) {
            long position = index.firstPositionAtOrAfter(token);
            return position < 0 ? dataLength : position;
        }
    }

    private boolean inSlice(long token) {
        return token >= options.tokenLo && token <= options.tokenHi;
    }

    private SSTableOutput newOutput(long expectedKeys) throws IOException {
        SSTableOutput o = new SSTableOutput(schema, header, outDir, expectedKeys, options.pipelined, options.version,
                options.outputLevel);
        outputs.add(o);
        return o;
    }

    /** The distinct keys of all pooled ranges together: the pooled output's bloom filter holds them all. */
    private long pooledKeys() {
        long sum = 0;
        for (int i = 0; i < keysPerRange.length; i++) {
            if (options.pooledRanges[i]) sum += keysPerRange[i];
        }
        return sum;
    }

    /**
     * Distinct keys per output range, from a merge of the inputs' partition indexes (their keys in
     * partition order, one call per key): sizes the bloom filters.
     */
    long[] distinctKeysPerRange() throws IOException {
        int k = files.size();
        PartitionIndex[] idx = new PartitionIndex[k];
        try {
            for (int i = 0; i < k; i++) idx[i] = PartitionIndex.open(files.get(i), schema);
            return distinctKeysPerRange(idx);
        } finally {
            for (PartitionIndex index : idx) {
                if (index != null) index.close();
            }
        }
    }

    private long[] distinctKeysPerRange(PartitionIndex[] idx) throws IOException {
        int k = idx.length;
        long[] tokens = new long[k];
        boolean[] has = new boolean[k];
        for (int i = 0; i < k; i++) has[i] = nextKey(idx[i], tokens, i);
        long[] splits = options.splitTokens;
        long[] counts = new long[splits.length + 1];
        int range = 0;
        while (true) {
            int min = -1;
            for (int i = 0; i < k; i++) {
                if (has[i] && (min < 0 || compareIndexKeys(idx, tokens, i, min) < 0)) min = i;
            }
            if (min < 0) break;
            long token = tokens[min];
            if (token > options.tokenHi) break;
            while (range < splits.length && token >= splits[range]) range++;
            if (inSlice(token)) counts[range]++;
            for (int i = 0; i < k; i++) {
                if (i != min && has[i] && compareIndexKeys(idx, tokens, i, min) == 0) has[i] = nextKey(idx[i], tokens, i);
            }
            has[min] = nextKey(idx[min], tokens, min);
        }
        return counts;
    }

    private static boolean nextKey(PartitionIndex r, long[] tokens, int i) throws IOException {
        if (!r.next()) return false;
        tokens[i] = Murmur3.token(r.keyArray(), r.keyOffset(), r.keyLength());
        return true;
    }

    private static int compareIndexKeys(PartitionIndex[] idx, long[] tokens, int a, int b) {
        int c = Long.compare(tokens[a], tokens[b]);
        if (c != 0) return c;
        PartitionIndex x = idx[a], y = idx[b];
        return Arrays.compareUnsigned(x.keyArray(), x.keyOffset(), x.keyOffset() + x.keyLength(),
                y.keyArray(), y.keyOffset(), y.keyOffset() + y.keyLength());
    }

    // ---- the run -------------------------------------------------------------------------------

    private CompactionInput[] in;
    private SerializationHeader header;
    private final ClusteringComparator comparator;
    private RowMerger merger;
    private TableDirectory outDir;
    private long[] keysPerRange;
    private final List<SSTableOutput> outputs = new ArrayList<>();
    /** The output the current partition goes to: {@link #rangeOutput} or {@link #pooledOutput}. */
    private SSTableOutput output;
    /** The open output of the current range (null if none yet, or the range is pooled). */
    private SSTableOutput rangeOutput;
    /** The open output of the pooled ranges, kept open across ranges; null if none. */
    private SSTableOutput pooledOutput;
    private int range;
    private Result result;

    // Per partition.
    private CompactionInput[] active;
    private CompactionInput[] group;
    private int[] groupSlot;
    /**
     * The merge's two heaps, of input indices (partitions, by token then key) and of active slots
     * (rows and markers of the current partition, by clustering): each next item costs O(log k)
     * comparisons, not a scan of every input. Arrays of the inputs' size, allocated once.
     */
    private int[] keyHeap, rowHeap;
    private int keyHeapSize, rowHeapSize;
    /** The input indices of the current partition's active slots, ascending. */
    private int[] activeIndex;
    private boolean[] slotOpen;
    private long[] slotOpenTs, slotOpenLdt;
    /** Per position in {@link #group}: whether that version loses every part of itself to another. */
    private boolean[] loses;
    private byte[] key = new byte[64];
    private int keyLength;
    private long partitionToken;
    private long pdTs, pdLdt;
    /** The merged partition deletion written, after purging: two longs, LIVE as RowMerger's LIVE_TS and LIVE_LDT. */
    private long pdOutTs, pdOutLdt;
    private RowBuffer rowBuffer, staticBuffer, emptyStatic;
    private RowBuffer pendingStatic;
    private boolean started;
    /**
     * Copy-through, per input, decided once: whether its Statistics.db rules out anything to purge
     * or expire ({@link RowMerger#nothingToPurge}), so that rows need no look at their times; and
     * its header's static and regular columns among the output header's (null: the same columns).
     */
    private boolean[] nothingToPurge;
    private int[][] staticColumnMap, regularColumnMap;
    /** The input whose static row the current partition copies, until {@link #start} writes it; else null. */
    private CompactionInput staticCopy;
    private final CompactionInput[] one = new CompactionInput[1];
    /** Whether a row of the current partition went through the merge, and whether one was copied. */
    private boolean partitionMerged, partitionCopied;
    private final ClusteringBuffer markerBound = new ClusteringBuffer(4);
    /** The merged stream's open range deletion while {@link #mergeRows} walks a partition; LIVE for none. */
    private long openTs, openLdt;
    /** Uncompressed bytes of the outputs sealed so far, and the part of all output bytes charged to the throttle. */
    private long writtenBefore, charged;
    private static final long THROTTLE_CHUNK_BYTES = 64 * 1024;

    /** Runs the compaction into {@code outDir} and publishes. On any failure nothing is published. */
    public Result run(TableDirectory outDir) throws IOException {
        try {
            prepare(outDir);
            return publish();
        } finally {
            close();
        }
    }

    /**
     * Merges everything into staged outputs and checks conservation; publishes nothing. Then
     * {@link #publish} (all outputs, TOC.txt last each) or {@link #close} (removes them). Parallel
     * compactors of disjoint slices prepare on their threads and publish only if every one succeeded.
     */
    public void prepare(TableDirectory outDir) throws IOException {
        this.outDir = outDir;
        result = new Result();
        this.in = open();
        for (SSTableFiles f : files) {
            result.inputs.add(f.path(Component.DATA));
            result.inputDataBytes += Files.size(f.path(Component.DATA));
        }
        header = outputHeader(schema, in);
        keysPerRange = distinctKeysPerRange();
        merger = new RowMerger(schema, in.length, options.nowSeconds, purgeBound(schema, options.gcBefore, in),
                options.maxPurgeableTimestamp);
        int ck = schema.clusteringColumns().length;
        int width = Math.max(schema.staticColumns().length, schema.regularColumns().length);
        rowBuffer = new RowBuffer(ck, width);
        staticBuffer = new RowBuffer(ck, width);
        emptyStatic = new RowBuffer(ck, 1);
        emptyStatic.clear(true);
        active = new CompactionInput[in.length];
        group = new CompactionInput[in.length];
        groupSlot = new int[in.length];
        keyHeap = new int[in.length];
        rowHeap = new int[in.length];
        activeIndex = new int[in.length];
        slotOpen = new boolean[in.length];
        loses = new boolean[in.length];
        slotOpenTs = new long[in.length];
        slotOpenLdt = new long[in.length];
        result.mergeCounts = new long[in.length + 1];
        nothingToPurge = new boolean[in.length];
        staticColumnMap = new int[in.length][];
        regularColumnMap = new int[in.length][];
        for (int i = 0; i < in.length; i++) {
            SerializationHeader h = in[i].cursor.header();
            nothingToPurge[i] = merger.nothingToPurge(in[i].metadata);
            staticColumnMap[i] = header.indicesOf(h, true);
            regularColumnMap[i] = header.indicesOf(h, false);
        }

        long t0 = System.nanoTime();
        mergeAll();
        if (options.throttle != null) {
            // The rest below one chunk, before anything is published: a small compaction is paced too.
            long written = writtenSoFar();
            options.throttle.acquire(written - charged);
            charged = written;
        }
        result.mergeNanos = System.nanoTime() - t0;

        // Conservation, before anything is published.
        long read = 0;
        for (CompactionInput c : in) {
            read += c.cellsRead;
            result.inputRows += c.rowsRead;
        }
        long written = 0;
        for (SSTableOutput o : outputs) {
            written += o.cellsWritten();
            result.rowsCopied += o.copiedRows();
            result.rowsCopiedVerbatim += o.verbatimRows();
        }
        result.cellsRead = read;
        result.cellsWritten = written;
        result.cellsMergedAway = merger.mergedAway;
        result.cellsPurged = merger.purged;
        if (read != written + merger.mergedAway + merger.purged) {
            throw new CompactionConservationException("compaction of " + files + " read " + read + " cells but wrote " + written
                    + ", merged away " + merger.mergedAway + " and purged " + merger.purged);
        }
        for (SSTableOutput o : outputs) o.seal();
        for (CompactionInput c : in) c.close();
        prepared = true;
    }

    private boolean prepared;

    /** Publishes every prepared output. REQUIRES: {@link #prepare} returned normally. */
    public Result publish() throws IOException {
        if (!prepared) throw new IllegalStateException("publish before a successful prepare");
        for (SSTableOutput o : outputs) {
            Path p = o.finish();
            if (p != null) {
                result.published.add(p);
                result.outputPartitions += o.partitions();
                result.outputRows += o.rows();
                result.outputMarkers += o.markers();
                result.outputDataBytes += o.fileBytes();
                result.outputUncompressedBytes += o.uncompressedBytes();
                result.ioCpuNanos += o.ioCpuNanos();
                result.ioAllocatedBytes += o.ioAllocatedBytes();
            }
        }
        return result;
    }

    /** Removes every output not published and closes the inputs. Never throws for an output. */
    public void close() throws IOException {
        for (SSTableOutput o : outputs) o.close();
        if (in != null) {
            for (CompactionInput c : in) {
                if (c != null) c.close();
            }
        }
    }

    private void mergeAll() throws IOException {
        final CompactionInput[] in = this.in;
        for (CompactionInput c : in) c.advance();
        final long hi = options.tokenHi;
        final int[] idx = activeIndex;
        keyHeapSize = 0;
        for (int i = 0; i < in.length; i++) {
            if (inSlice(in[i], hi)) keyHeapPush(i);
        }
        while (keyHeapSize > 0) {
            int first = keyHeapPop();
            int n = 0;
            idx[n++] = first;
            while (keyHeapSize > 0 && compareKeys(in[keyHeap[0]], in[first]) == 0) idx[n++] = keyHeapPop();
            // In input order, as the versions of a partition have always been merged: ties between
            // equal versions then resolve the same way in every run.
            sortAscending(idx, n);
            for (int a = 0; a < n; a++) active[a] = in[idx[a]];
            result.mergeCounts[n]++;
            result.inputPartitions += n;
            mergePartition(n);
            for (int a = 0; a < n; a++) {
                if (inSlice(in[idx[a]], hi)) keyHeapPush(idx[a]);
            }
        }
        for (CompactionInput c : in) {
            if (c.state != SSTableCursor.END && !(c.state == SSTableCursor.PARTITION_START && c.token > hi)) {
                throw new IllegalStateException("input " + c.files + " not read to the end of its slice");
            }
        }
    }

    /** Whether {@code c} stands at a partition of this compactor's slice. */
    private static boolean inSlice(CompactionInput c, long hi) {
        return c.state == SSTableCursor.PARTITION_START && c.token <= hi;
    }

    /** Insertion sort of a[0, n): n is at most the number of inputs, and usually 1 or 2. */
    private static void sortAscending(int[] a, int n) {
        for (int i = 1; i < n; i++) {
            int v = a[i], j = i - 1;
            while (j >= 0 && a[j] > v) {
                a[j + 1] = a[j];
                j--;
            }
            a[j + 1] = v;
        }
    }

    private void keyHeapPush(int input) {
        final int[] h = keyHeap;
        final CompactionInput[] in = this.in;
        int i = keyHeapSize++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (compareKeys(in[h[parent]], in[input]) <= 0) break;
            h[i] = h[parent];
            i = parent;
        }
        h[i] = input;
    }

    private int keyHeapPop() {
        final int[] h = keyHeap;
        final CompactionInput[] in = this.in;
        int top = h[0];
        int last = h[--keyHeapSize];
        int n = keyHeapSize, i = 0;
        while (true) {
            int child = 2 * i + 1;
            if (child >= n) break;
            if (child + 1 < n && compareKeys(in[h[child + 1]], in[h[child]]) < 0) child++;
            if (compareKeys(in[h[child]], in[last]) >= 0) break;
            h[i] = h[child];
            i = child;
        }
        if (n > 0) h[i] = last;
        return top;
    }

    /** Whether active slot {@code a} stands at a row or a range tombstone marker. */
    private boolean atRowOrMarker(int a) {
        int s = active[a].state;
        return s == SSTableCursor.ROW || s == SSTableCursor.MARKER;
    }

    /**
     * The clustering order of the items at slots a and b: as numbers read once per item where both
     * have an order key (a row of a table clustered by one int, bigint or timestamp), else by the
     * comparator, which orders them the same.
     */
    private int compareSlots(int a, int b) {
        final CompactionInput x = active[a], y = active[b];
        if (x.hasOrderKey && y.hasOrderKey) return Long.compare(x.orderKey, y.orderKey);
        return comparator.compare(x.clustering, y.clustering);
    }

    private void rowHeapPush(int slot) {
        final int[] h = rowHeap;
        final CompactionInput[] active = this.active;
        int i = rowHeapSize++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (compareSlots(h[parent], slot) <= 0) break;
            h[i] = h[parent];
            i = parent;
        }
        h[i] = slot;
    }

    private int rowHeapPop() {
        final int[] h = rowHeap;
        final CompactionInput[] active = this.active;
        int top = h[0];
        int last = h[--rowHeapSize];
        int n = rowHeapSize, i = 0;
        while (true) {
            int child = 2 * i + 1;
            if (child >= n) break;
            if (child + 1 < n && compareSlots(h[child + 1], h[child]) < 0) child++;
            if (compareSlots(h[child], last) >= 0) break;
            h[i] = h[child];
            i = child;
        }
        if (n > 0) h[i] = last;
        return top;
    }

    private static int compareKeys(CompactionInput a, CompactionInput b) {
        int c = Long.compare(a.token, b.token);
        if (c != 0) return c;
        SSTableCursor.Partition pa = a.cursor.partition(), pb = b.cursor.partition();
        return Arrays.compareUnsigned(a.cursor.buffer(), pa.keyOffset(), pa.keyOffset() + pa.keyLength(),
                b.cursor.buffer(), pb.keyOffset(), pb.keyOffset() + pb.keyLength());
    }

    private void mergePartition(int n) throws IOException {
        final CompactionInput[] active = this.active;
        // Key (copied: the window moves on) and the superseding partition deletion.
        SSTableCursor.Partition p0 = active[0].cursor.partition();
        keyLength = p0.keyLength();
        if (key.length < keyLength) key = new byte[Math.max(keyLength, 2 * key.length)];
        System.arraycopy(active[0].cursor.buffer(), p0.keyOffset(), key, 0, keyLength);
        partitionToken = active[0].token;
        long dts = RowMerger.LIVE_TS, dldt = RowMerger.LIVE_LDT;
        for (int a = 0; a < n; a++) {
            SSTableCursor.Partition p = active[a].cursor.partition();
            if (Reconcile.deletionSupersedes(p.deletionTimestamp(), p.deletionLocalTime(), dts, dldt)) {
                dts = p.deletionTimestamp();
                dldt = p.deletionLocalTime();
            }
        }
        pdTs = dts;
        pdLdt = dldt;
        boolean pdLive = dts == RowMerger.LIVE_TS && dldt == RowMerger.LIVE_LDT;
        boolean pdOutLive = pdLive || merger.shouldPurge(dts, dldt);
        pdOutTs = pdOutLive ? RowMerger.LIVE_TS : dts;
        pdOutLdt = pdOutLive ? RowMerger.LIVE_LDT : dldt;
        for (int a = 0; a < n; a++) active[a].advance();

        // Static rows: Cassandra merges the static row of every input that holds the partition (an
        // input whose header has no static column contributes an empty one), so its one-version
        // shortcut applies only when a single input holds the partition.
        pendingStatic = null;
        staticCopy = null;
        partitionMerged = false;
        partitionCopied = false;
        int staticVersions = 0;
        for (int a = 0; a < n; a++) {
            if (active[a].atStaticRow()) group[staticVersions++] = active[a];
        }
        int gs = decodeOrSkip(staticVersions, false);
        if (gs > 0 && header.hasStatics()) {
            boolean single = n == 1 && pdLive;
            CompactionInput s0 = group[0];
            if (staticVersions == 1 && s0.cursor.row().isEmpty()) {
                // Nothing in it: merged alone it gives nothing and counts nothing; the empty static row is written.
            } else if (single && options.copyThrough && merger.keepsAsIs(s0.cursor.row(), nothingToPurge[s0.index])) {
                staticCopy = s0;
            } else {
                partitionMerged = true;
                if (merger.merge(group, gs, true, dts, dldt, single, null, staticBuffer)) pendingStatic = staticBuffer;
            }
        }
        started = false;
        // Written before the static rows' inputs advance: the merged or copied static row points into their windows.
        if (!pdOutLive || pendingStatic != null || staticCopy != null) start();
        for (int a = 0; a < n; a++) {
            if (active[a].atStaticRow()) active[a].advance(); // skipped versions too
        }

        if (!pdLive && options.skipLosingVersions) skipCoveredInputs(n, dts);
        mergeRows(n, dts, dldt);
        if (started) {
            try {
                output.endPartition(key, keyLength);
            } catch (IOException e) {
                throw output.wrap(e);
            }
            if (n == 1 && partitionCopied && !partitionMerged) result.partitionsCopied++;
            CompactionThrottle throttle = options.throttle;
            if (throttle != null) {
                // Charged per THROTTLE_CHUNK_BYTES, not per partition: one synchronized call per chunk.
                long written = writtenSoFar();
                if (written - charged >= THROTTLE_CHUNK_BYTES) {
                    throttle.acquire(written - charged);
                    charged = written;
                }
            }
        }
        for (int a = 0; a < n; a++) {
            if (active[a].state != SSTableCursor.PARTITION_END) {
                throw new IllegalStateException("partition of " + active[a].files + " did not end where expected");
            }
            active[a].advance();
        }
    }

    /**
     * Steps over, before the row merge, the rows and markers of each input whose whole partition
     * lies under the partition deletion at {@code dts}: its sstable's largest timestamp
     * (Statistics.db's bound on every timestamp in it) is below dts, so each of its rows would be
     * stepped over by {@link #skipCovered} and each of its markers would change nothing, one row
     * group at a time. Done here, the heap, the groups and the clustering copies go too. Only where
     * the other inputs hold no row or marker in the partition: otherwise a merged row could take a
     * stepped-over version's clustering bytes (the first version's), which may differ from the
     * kept one's for equal clusterings. A row with a complex column, which skipCovered leaves to
     * the merge, ends the stepping for its input there; the merge takes the rest. Counted as
     * skipCovered counts.
     */
    private void skipCoveredInputs(int n, long dts) throws IOException {
        final CompactionInput[] active = this.active;
        boolean any = false;
        for (int a = 0; a < n; a++) {
            boolean covered = active[a].metadata.maxTimestamp < dts;
            if (!covered && atRowOrMarker(a)) return;
            any |= covered;
        }
        if (!any) return;
        for (int a = 0; a < n; a++) {
            CompactionInput c = active[a];
            if (c.metadata.maxTimestamp >= dts) continue;
            while (atRowOrMarker(a)) {
                if (c.state == SSTableCursor.ROW) {
                    if (c.cursor.row().hasComplexColumn()) {
                        c.keyRow(); // the merge takes it, through the heap
                        break;
                    }
                    merger.countSkipped(c.skipBody());
                    result.rowVersionsSkipped++;
                }
                c.advanceAlone();
            }
        }
    }

    /**
     * The rows and range tombstone markers of the partition that {@code active[0..n)} hold, merged
     * in clustering order under the partition deletion {@code dts/dldt}. Its own method, apart from
     * the once-per-partition work around it, so that the JIT inlines the row loop's callees
     * (a single method holding both went past the compiler's inlining budget).
     */
    private void mergeRows(int n, long dts, long dldt) throws IOException {
        final CompactionInput[] active = this.active;
        for (int a = 0; a < n; a++) slotOpen[a] = false;
        openTs = RowMerger.LIVE_TS;
        openLdt = RowMerger.LIVE_LDT;
        rowHeapSize = 0;
        for (int a = 0; a < n; a++) {
            if (atRowOrMarker(a)) rowHeapPush(a);
        }
        while (rowHeapSize > 0) {
            // Every slot at the smallest clustering, in slot order (the order a scan of the slots gave).
            int first = rowHeapPop();
            if (rowHeapSize == 0 && active[first].state == SSTableCursor.ROW && options.copyThrough
                    && (openTs == RowMerger.LIVE_TS && openLdt == RowMerger.LIVE_LDT) && dts == RowMerger.LIVE_TS && dldt == RowMerger.LIVE_LDT) {
                rowsAlone(active[first]);
                if (atRowOrMarker(first)) rowHeapPush(first);
                continue;
            }
            int g = 0;
            groupSlot[g++] = first;
            while (rowHeapSize > 0 && compareSlots(rowHeap[0], first) == 0) {
                groupSlot[g++] = rowHeapPop();
            }
            sortAscending(groupSlot, g);
            for (int i = 0; i < g; i++) group[i] = active[groupSlot[i]];
            if (active[groupSlot[0]].state == SSTableCursor.MARKER) {
                mergeMarkers(g, n, dts, dldt);
            } else {
                boolean openLive = openTs == RowMerger.LIVE_TS && openLdt == RowMerger.LIVE_LDT;
                long coverTs = openLive ? dts : openTs, coverLdt = openLive ? dldt : openLdt;
                boolean coverLive = coverTs == RowMerger.LIVE_TS && coverLdt == RowMerger.LIVE_LDT;
                if (g == 1 && coverLive && options.copyThrough) {
                    if (!copiesUndecoded(group[0])) {
                        group[0].decodeBody();
                        copyOrMergeRow(group[0]);
                    }
                } else {
                    mergeRowVersions(g, coverTs, coverLdt, coverLive);
                }
            }
            for (int i = 0; i < g; i++) {
                active[groupSlot[i]].advance(); // group[] may have lost its skipped versions
                if (atRowOrMarker(groupSlot[i])) rowHeapPush(groupSlot[i]);
            }
        }
    }

    /**
     * The rows of {@code c} from its current one up to its next marker or its partition's end,
     * where no other input holds an item before them and nothing covers them: each is a group of
     * one, taken as the loop above takes such a group (copied, else merged alone), without the heap.
     */
    private void rowsAlone(CompactionInput c) throws IOException {
        do {
            if (!copiesUndecoded(c)) {
                c.decodeBody();
                copyOrMergeRow(c);
            }
            c.advanceAlone();
        } while (c.state == SSTableCursor.ROW);
    }

    /**
     * The markers {@code group[0..g)} at one clustering: updates each slot's open deletion and the
     * merged stream's ({@link #openTs}/{@link #openLdt}), and writes a marker where the latter changed.
     */
    private void mergeMarkers(int g, int n, long dts, long dldt) throws IOException {
        long prevTs = openTs, prevLdt = openLdt;
        for (int i = 0; i < g; i++) {
            SSTableCursor.Marker m = group[i].cursor.marker();
            int slot = groupSlot[i];
            if (m.isBoundary()) {
                slotOpen[slot] = true;
                slotOpenTs[slot] = m.startDeletionTimestamp();
                slotOpenLdt[slot] = m.startDeletionLocalTime();
            } else if (m.isStart()) {
                slotOpen[slot] = true;
                slotOpenTs[slot] = m.deletionTimestamp();
                slotOpenLdt[slot] = m.deletionLocalTime();
            } else {
                slotOpen[slot] = false;
            }
        }
        int biggest = -1;
        for (int a = 0; a < n; a++) {
            if (slotOpen[a] && (biggest < 0 || Reconcile.deletionSupersedes(slotOpenTs[a], slotOpenLdt[a], slotOpenTs[biggest], slotOpenLdt[biggest]))) {
                biggest = a;
            }
        }
        if (biggest >= 0 && Reconcile.deletionSupersedes(slotOpenTs[biggest], slotOpenLdt[biggest], dts, dldt)) {
            openTs = slotOpenTs[biggest];
            openLdt = slotOpenLdt[biggest];
        } else {
            openTs = RowMerger.LIVE_TS;
            openLdt = RowMerger.LIVE_LDT;
        }
        if (openTs != prevTs || openLdt != prevLdt) emitMarker(group[g - 1].clustering, prevTs, prevLdt, openTs, openLdt);
    }

    /**
     * The versions {@code group[0..g)} of one row, under the covering deletion {@code coverTs/coverLdt}
     * (partition or open range deletion; {@code coverLive} if none), other than a lone version with
     * nothing covering it: stepped over where they lose, copied where one is left unchanged, else merged.
     */
    private void mergeRowVersions(int g, long coverTs, long coverLdt, boolean coverLive) throws IOException {
        partitionMerged = true;
        // The merged row takes the first version's clustering bytes, even if that version is skipped.
        ClusteringBuffer firstClustering = group[0].clustering;
        int left = coverLive || !options.skipLosingVersions ? g : skipCovered(g, coverTs);
        boolean survivorMayCopy = coverLive && options.copyThrough;
        int kept = left == 0 ? 0 : decodeOrSkip(left, survivorMayCopy);
        if (kept == 0) {
            // Every version lies under the covering deletion: the merge would leave nothing.
        } else if (kept == 1 && survivorMayCopy && copiesSurvivor(group[0], firstClustering)) {
            // The one version left after the ones it beats were stepped over, copied.
        } else if (merger.merge(group, kept, false, coverTs, coverLdt, g == 1 && coverLive, firstClustering, rowBuffer)) {
            if (!started) start();
            output.row(rowBuffer);
        }
    }

    /**
     * Readies the versions {@code group[0..g)} of one row (or the static rows of one partition)
     * for the merge: with {@link Options#skipLosingVersions}, each that loses every part of itself
     * to another of them ({@link RowMerger#losesEverything}) is stepped over undecoded, its cells
     * counted as merged away, and leaves the group (the rest keep their order, so ties resolve as
     * ever); the others are decoded, but for a lone one with {@code leaveLoneSurvivor}, whose body
     * is left pending for {@link #copiesSurvivor}. Returns how many are left in the group.
     */
    private int decodeOrSkip(int g, boolean leaveLoneSurvivor) {
        final CompactionInput[] group = this.group;
        if (!options.skipLosingVersions || g < 2) {
            for (int i = 0; i < g; i++) group[i].decodeBody();
            return g;
        }
        final boolean[] loses = this.loses;
        int survivors = 0;
        for (int i = 0; i < g; i++) {
            boolean lost = false;
            for (int j = 0; j < g && !lost; j++) {
                lost = j != i && merger.losesEverything(group[i], group[j]);
            }
            loses[i] = lost;
            if (!lost) survivors++;
        }
        // A lone survivor may be copied without decoding it: copiesSurvivor decodes it if not.
        final boolean decodeKept = !(leaveLoneSurvivor && survivors == 1);
        int kept = 0;
        for (int i = 0; i < g; i++) {
            CompactionInput c = group[i];
            if (loses[i]) {
                merger.countSkipped(c.skipBody());
                result.rowVersionsSkipped++;
            } else {
                if (decodeKept) c.decodeBody();
                group[kept++] = c;
            }
        }
        return kept;
    }

    /**
     * Steps over, undecoded, each version in {@code group[0..g)} that lies wholly under the
     * covering (partition or range) deletion at {@code coverTs}: its sstable's largest timestamp,
     * which Statistics.db makes a bound on every timestamp in it, is below coverTs, so the merge
     * would drop its liveness, its own deletions and every cell of it, each superseded by the
     * covering deletion. A version with a complex column is decoded all the same, as its cells
     * cannot be counted undecoded. Counted as a version that loses to another is (its cells merged
     * away). Returns how many are left, in their order, at the front of the group.
     */
    private int skipCovered(int g, long coverTs) {
        final CompactionInput[] group = this.group;
        int left = 0;
        for (int i = 0; i < g; i++) {
            CompactionInput c = group[i];
            if (c.metadata.maxTimestamp < coverTs && !c.cursor.row().hasComplexColumn()) {
                merger.countSkipped(c.skipBody());
                result.rowVersionsSkipped++;
            } else {
                group[left++] = c;
            }
        }
        return left;
    }

    /**
     * A row that only input {@code c} holds, under no partition or range deletion: a merge would
     * take it as it is and purge it ({@link RowMerger#merge} with {@code single}). If nothing of it
     * would change ({@link RowMerger#keepsAsIs}) and the serializer accepts its bytes, it is copied;
     * otherwise merged as ever.
     */
    private void copyOrMergeRow(CompactionInput c) throws IOException {
        if (copies(c)) return;
        one[0] = c;
        partitionMerged = true;
        if (merger.merge(one, 1, false, RowMerger.LIVE_TS, RowMerger.LIVE_LDT, true, c.clustering, rowBuffer)) {
            if (!started) start();
            output.row(rowBuffer);
        }
    }

    /**
     * Copies {@code c}'s current row if a merge of it alone would write it back unchanged
     * ({@link RowMerger#keepsAsIs}) and the serializer takes its bytes; returns whether it did.
     */
    private boolean copies(CompactionInput c) throws IOException {
        SSTableCursor.Row r = c.cursor.row();
        if (!merger.keepsAsIs(r, nothingToPurge[c.index])) return false;
        // Written whether copied or merged (the merge would keep all of it), so the partition
        // may start before the serializer's check, which needs the output.
        if (!started) start();
        if (!output.prepareCopy(r, c.cursor.header().stats(), staticColumnMap[c.index], regularColumnMap[c.index])) return false;
        output.copyRow(c.cursor, c.clustering);
        partitionCopied = true;
        return true;
    }

    /**
     * Copies {@code c}'s current row, which only c holds, without decoding its cells, where
     * {@link #copyOrMergeRow} would copy it too and the serializer needs nothing per cell: c's
     * sstable has this output's columns, the row has a liveness without TTL and no deletion, and
     * every cell is plain ({@link SSTableCursor#plainBodyBytes}). Returns false, with the body still
     * pending and nothing written but perhaps the partition's start (which the merge, keeping the
     * row, writes too), if not.
     */
    private boolean copiesUndecoded(CompactionInput c) throws IOException {
        if (regularColumnMap[c.index] != null) return false;
        SSTableCursor.Row r = c.cursor.row();
        // Such a row (its liveness no LIVE timestamp, its plain cells no time of their own) holds
        // nothing to purge or expire, whatever else its sstable holds; and any other row is one whose
        // stats need its cells one by one, which prepareCopyPlain refuses. Checked before start().
        if (!r.hasLiveness() || r.livenessTtl() != Cell.NO_TTL || r.isDeleted()) return false;
        int plainBytes = c.cursor.plainBodyBytes();
        if (plainBytes < 0 || !merger.keepsAsIs(r, true)) return false;
        if (!started) start();
        if (!output.prepareCopyPlain(r, c.cursor.header().stats(), plainBytes)) return false;
        c.takePlainBody();
        output.copyRow(c.cursor, c.clustering);
        partitionCopied = true;
        result.rowsCopiedUndecoded++;
        return true;
    }

    /**
     * Copies the one version {@code c} of a row that is left once {@link #decodeOrSkip} stepped
     * over the versions it beats, where the merge of the group would give back {@code c} unchanged.
     * That merge is not Cassandra's one-version shortcut ({@link #copies} alone would assume it): the
     * row's own deletion and complex deletions still filter its liveness and cells, so a row with
     * either is left to the merge. The merged row takes the first version's clustering bytes
     * (possibly a skipped version's), so they must be {@code c}'s byte for byte. Returns whether
     * it copied; if not, nothing was written but perhaps the partition's start, which the merge
     * (keeping all of {@code c}) would write too.
     */
    private boolean copiesSurvivor(CompactionInput c, ClusteringBuffer firstClustering) throws IOException {
        boolean sameClustering = c.clustering == firstClustering || c.clustering.sameBytes(firstClustering);
        if (c.cursor.isBodyPending()) {
            // Left pending by decodeOrSkip: a plain row has no deletion of its own, so copiesUndecoded's
            // conditions are enough here too.
            if (sameClustering && copiesUndecoded(c)) {
                result.survivorsCopied++;
                return true;
            }
            c.decodeBody();
        }
        SSTableCursor.Row r = c.cursor.row();
        if (r.isDeleted() || (r.flags() & DataLayout.HAS_COMPLEX_DELETION) != 0) return false;
        if (!sameClustering || !copies(c)) return false;
        result.survivorsCopied++;
        return true;
    }

    /**
     * Writes the partition header with the static row of {@link #staticCopy}, which a merge would
     * keep as it is: copied if the serializer accepts its bytes, else merged.
     */
    private void beginPartitionCopyingStatic() throws IOException {
        CompactionInput s = staticCopy;
        staticCopy = null;
        if (output.prepareCopy(s.cursor.row(), s.cursor.header().stats(), staticColumnMap[s.index], regularColumnMap[s.index])) {
            output.beginPartition(key, keyLength, pdOutTs, pdOutLdt, s.cursor);
            partitionCopied = true;
            return;
        }
        one[0] = s;
        partitionMerged = true;
        if (!merger.merge(one, 1, true, RowMerger.LIVE_TS, RowMerger.LIVE_LDT, true, null, staticBuffer)) {
            throw new IllegalStateException("the static row of " + s.files + " at stream offset " + s.cursor.row().offset()
                    + " was found to keep its content but merged to nothing");
        }
        pendingStatic = staticBuffer;
        output.beginPartition(key, keyLength, pdOutTs, pdOutLdt, pendingStatic, emptyStatic);
    }

    /** The merged marker at {@code at} for an open deletion that changed from prev to next, purged. */
    private void emitMarker(ClusteringBuffer at, long prevTs, long prevLdt, long nextTs, long nextLdt) throws IOException {
        boolean prevLive = prevTs == RowMerger.LIVE_TS && prevLdt == RowMerger.LIVE_LDT;
        boolean nextLive = nextTs == RowMerger.LIVE_TS && nextLdt == RowMerger.LIVE_LDT;
        boolean before = ClusteringBound.comparedToClustering(at.kind()) < 0;
        boolean purgeEnd = !prevLive && merger.shouldPurge(prevTs, prevLdt);
        boolean purgeStart = !nextLive && merger.shouldPurge(nextTs, nextLdt);
        byte kind;
        if (prevLive) {
            if (purgeStart) return;
            kind = before ? ClusteringBound.INCL_START_BOUND : ClusteringBound.EXCL_START_BOUND;
        } else if (nextLive) {
            if (purgeEnd) return;
            kind = before ? ClusteringBound.EXCL_END_BOUND : ClusteringBound.INCL_END_BOUND;
        } else if (purgeEnd && purgeStart) {
            return;
        } else if (purgeEnd) {
            kind = before ? ClusteringBound.INCL_START_BOUND : ClusteringBound.EXCL_START_BOUND;
        } else if (purgeStart) {
            kind = before ? ClusteringBound.EXCL_END_BOUND : ClusteringBound.INCL_END_BOUND;
        } else {
            kind = before ? ClusteringBound.EXCL_END_INCL_START_BOUNDARY : ClusteringBound.INCL_END_EXCL_START_BOUNDARY;
        }
        markerBound.copyFrom(at);
        markerBound.setKind(kind);
        if (!started) start();
        output.marker(markerBound, prevTs, prevLdt, nextTs, nextLdt);
    }

    /** Uncompressed bytes written so far: the sealed outputs and the open ones. */
    private long writtenSoFar() {
        return writtenBefore + (rangeOutput != null ? rangeOutput.dataPosition() : 0)
                + (pooledOutput != null ? pooledOutput.dataPosition() : 0);
    }

    /**
     * Writes the partition header (and static row) into the output that owns this token, switching
     * outputs as needed: a new range seals the previous range's own output (the pooled one stays
     * open for the next pooled range); either kind is sealed at the size limit.
     */
    private void start() throws IOException {
        long[] splits = options.splitTokens;
        boolean newRange = false;
        while (range < splits.length && partitionToken >= splits[range]) {
            range++;
            newRange = true;
        }
        if (rangeOutput != null && (newRange || rangeOutput.isFull(options.maxSSTableBytes))) {
            writtenBefore += rangeOutput.dataPosition();
            rangeOutput.seal();
            rangeOutput = null;
        }
        boolean pooled = options.pooledRanges != null && options.pooledRanges[range];
        if (pooled) {
            if (pooledOutput != null && pooledOutput.isFull(options.maxSSTableBytes)) {
                writtenBefore += pooledOutput.dataPosition();
                pooledOutput.seal();
                pooledOutput = null;
            }
            if (pooledOutput == null) pooledOutput = newOutput(pooledKeys());
            output = pooledOutput;
        } else {
            if (rangeOutput == null) rangeOutput = newOutput(keysPerRange[range]);
            output = rangeOutput;
        }
        try {
            if (staticCopy != null) {
                beginPartitionCopyingStatic();
            } else {
                output.beginPartition(key, keyLength, pdOutTs, pdOutLdt, pendingStatic, emptyStatic);
            }
        } catch (IOException e) {
            throw output.wrap(e);
        }
        started = true;
    }
}

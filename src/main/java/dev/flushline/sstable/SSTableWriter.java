package dev.flushline.sstable;

import dev.flushline.data.DeletionTime;
import dev.flushline.data.Murmur3;
import dev.flushline.io.BlockPool;
import dev.flushline.io.CompressedDataSink;
import dev.flushline.io.DataSink;
import dev.flushline.io.FixedBuffer;
import dev.flushline.io.NativeMemory;
import dev.flushline.io.PipelinedDataOutput;
import dev.flushline.io.SyncedFileOutput;
import dev.flushline.io.UncompressedDataSink;
import dev.flushline.schema.CompressionParams;
import dev.flushline.schema.TableSchema;

import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes one sstable (of its {@link Descriptor}'s version) transactionally: every component is written under its final name inside
 * a staging directory that Cassandra does not look at, fsynced, then renamed into the table
 * directory in {@link Component} order with TOC.txt last, and the directory is fsynced (by the
 * transaction's commit, for a transaction's output: see {@link #finish}). Until
 * {@link #finish} returns, nothing of this sstable is visible; {@link #abort} removes it all.
 *
 * <p>It writes the components every format shares (Data.db, Filter.db, Statistics.db,
 * CompressionInfo.db or CRC.db, Digest.crc32, TOC.txt) and hands each partition to the
 * {@link PartitionIndexWriter} of its version's {@link SSTableFormat}, picked once when it opens,
 * for the format's partition index (BIG: Index.db and Summary.db).
 *
 * <p>Data.db bytes arrive through {@link #reserve}: the caller asks for exactly the bytes of its
 * next structure and writes them straight into the returned block buffer. Full blocks go to the
 * {@link DataSink} either on an I/O thread ({@link PipelinedDataOutput}, the default: compression,
 * checksums and writes overlap with serialization) or inline. Blocks come from
 * {@link BlockPool#SHARED} and go back to it, so a steady stream of flushes does not allocate them.
 * A structure larger than a block gets a buffer of its own (the only allocation on this path).
 *
 * <p>Thread safety: none; one flush writer thread owns an instance.
 */
public final class SSTableWriter implements AutoCloseable {

    private final TableSchema schema;
    private final Descriptor descriptor;
    private final boolean compressed;
    private final DataSink data;
    /** The format's partition index: one call per partition. */
    private final PartitionIndexWriter index;
    /** Null when no filter is written, or until {@link #finish} when the key count was {@link #KEYS_UNKNOWN}. */
    private BloomFilterBuilder filter;
    /** The keys' hashes, kept to size the filter from the real count at {@link #finish}; null if sized up front. */
    private KeyHashes keyHashes;
    private final double fpChance;

    private final PipelinedDataOutput pipeline;
    private final BlockPool pool = BlockPool.SHARED;
    /** Inline mode: the block being filled, and the bytes already given to the sink. */
    private FixedBuffer current;

    private byte[] firstKey;
    private byte[] lastKey;
    private long partitions;
    private boolean finished;
    private boolean aborted;
    /** Where this writer is, for failure reports. */
    private SSTableWriteException.Phase phase = SSTableWriteException.Phase.CREATE;

    /**
     * Pass as the expected key count when it is not known before the last partition (a streaming
     * writer): the keys' 128-bit hashes are kept off heap (16 bytes a key) and the bloom filter is
     * sized from the real partition count and filled at {@link #finish}, so it is exactly the
     * filter a flush of the same keys writes.
     */
    public static final long KEYS_UNKNOWN = -1;

    public SSTableWriter(TableSchema schema, Descriptor descriptor, long expectedKeys) throws IOException {
        this(schema, descriptor, expectedKeys, true);
    }

    public SSTableWriter(TableSchema schema, Descriptor descriptor, long expectedKeys, boolean pipelined) throws IOException {
        this.schema = schema;
        this.descriptor = descriptor;
        CompressionParams compression = schema.compressionParams();
        this.compressed = compression.isEnabled();
        this.fpChance = schema.bloomFilterFpChance();
        boolean filtered = BloomFilterBuilder.isFilterWritten(fpChance);
        this.filter = filtered && expectedKeys != KEYS_UNKNOWN ? new BloomFilterBuilder(expectedKeys, fpChance) : null;
        this.keyHashes = filtered && expectedKeys == KEYS_UNKNOWN ? new KeyHashes() : null;
        DataSink sink = null;
        PartitionIndexWriter idx = null;
        try {
            Path dataPath = descriptor.stagingPath(Component.DATA);
            Path digestPath = descriptor.stagingPath(Component.DIGEST);
            if (compressed) {
                sink = new CompressedDataSink(dataPath, descriptor.stagingPath(Component.COMPRESSION_INFO), digestPath,
                        ChunkCodecs.open(compression), compression.optionPairs(), compression.chunkLengthBytes(),
                        compression.maxCompressedLengthBytes(), SyncedFileOutput.DEFAULT_BLOCK_BYTES);
            } else {
                sink = new UncompressedDataSink(dataPath, descriptor.stagingPath(Component.CRC), digestPath);
            }
            idx = descriptor.version().format().newIndexWriter(descriptor, schema);
        } catch (IOException | RuntimeException e) {
            if (sink != null) sink.abort();
            if (idx != null) idx.abort();
            deleteStaging(descriptor);
            throw e;
        }
        this.data = sink;
        this.index = idx;
        if (pipelined) {
            this.pipeline = new PipelinedDataOutput(sink, pool, 4, "flushline-io-" + descriptor.generation());
            this.current = pipeline.current();
        } else {
            this.pipeline = null;
            this.current = pool.acquire();
        }
        this.phase = SSTableWriteException.Phase.WRITE_DATA;
    }

    /** The step this writer is in (or failed in). */
    public SSTableWriteException.Phase phase() { return phase; }

    public Descriptor descriptor() { return descriptor; }

    /** Logical Data.db position of the next byte written. */
    public long dataPosition() {
        return pipeline != null ? pipeline.position() : data.uncompressedPosition() + current.position();
    }

    /** A buffer with at least {@code bytes} bytes free at its position, for the next structure. */
    public FixedBuffer reserve(int bytes) throws IOException {
        if (current.remaining() >= bytes) return current;
        if (pipeline != null) {
            current = pipeline.next(bytes);
            return current;
        }
        spillInline();
        if (bytes > pool.blockBytes()) {
            pool.release(current);
            current = new FixedBuffer(bytes); // oversized structure: slow path
        }
        return current;
    }

    private void spillInline() throws IOException {
        if (current.position() > 0) {
            data.write(current.array(), 0, current.position());
        }
        if (current.capacity() != pool.blockBytes()) {
            current = pool.acquire();
        }
        current.clear();
    }

    /** CPU nanos spent by the I/O thread (0 when inline). Valid after {@link #finishData()}. */
    public long ioCpuNanos() {
        return pipeline == null ? 0 : pipeline.ioCpuNanos();
    }

    /** Heap bytes allocated by the I/O thread (0 when inline). Valid after {@link #finishData()}. */
    public long ioAllocatedBytes() {
        return pipeline == null ? 0 : pipeline.ioAllocatedBytes();
    }

    /**
     * Records a written partition: its partition index entry, bloom filter bit, first/last key.
     * {@code rowIndex} holds the partition's row index blocks; the partition deletion is two longs
     * (LIVE: Long.MIN_VALUE, Long.MAX_VALUE), so a merge need not make an object per partition.
     * {@code key} is kept by reference.
     */
    public void partitionWritten(byte[] key, long dataPosition, long headerLength, long deletionTimestamp, long deletionLocalTime,
                                 RowIndexBlocks rowIndex) throws IOException {
        indexPartition(key, key.length, dataPosition, headerLength, deletionTimestamp, deletionLocalTime, rowIndex);
        if (firstKey == null) firstKey = key;
        lastKey = key;
        lastKeyInScratch = false;
    }

    /**
     * As above for a key in a reusable buffer ({@code key[0, keyLength)}), which may change after
     * the call: the first key is copied once, the last into a scratch array that grows only for a
     * longer key, so a stream of partitions allocates nothing here.
     */
    public void partitionWritten(byte[] key, int keyLength, long dataPosition, long headerLength, long deletionTimestamp,
                                 long deletionLocalTime, RowIndexBlocks rowIndex) throws IOException {
        indexPartition(key, keyLength, dataPosition, headerLength, deletionTimestamp, deletionLocalTime, rowIndex);
        if (firstKey == null) firstKey = java.util.Arrays.copyOf(key, keyLength);
        if (lastKeyScratch.length < keyLength) lastKeyScratch = new byte[Math.max(keyLength, 2 * lastKeyScratch.length)];
        System.arraycopy(key, 0, lastKeyScratch, 0, keyLength);
        lastKeyScratchLength = keyLength;
        lastKeyInScratch = true;
    }

    private byte[] lastKeyScratch = new byte[64];
    private int lastKeyScratchLength;
    private boolean lastKeyInScratch;

    /** The key's Murmur3 hash128 (h1, h2): computed once per partition, for the bloom filter and the partition index. */
    private final long[] keyHash = new long[2];

    private void indexPartition(byte[] key, int keyLength, long dataPosition, long headerLength, long deletionTimestamp,
                                long deletionLocalTime, RowIndexBlocks rowIndex) throws IOException {
        long[] hash = keyHash;
        Murmur3.hash128(key, 0, keyLength, hash);
        long h1 = hash[0], h2 = hash[1];
        index.add(key, keyLength, h1, h2, dataPosition, headerLength, deletionTimestamp, deletionLocalTime, rowIndex);
        if (filter != null) {
            filter.addHashed(h1, h2);
        } else if (keyHashes != null) {
            keyHashes.add(h1, h2);
        }
        partitions++;
    }

    public long partitionCount() { return partitions; }

    public byte[] firstKey() { return firstKey; }

    public byte[] lastKey() {
        if (lastKeyInScratch) {
            lastKey = java.util.Arrays.copyOf(lastKeyScratch, lastKeyScratchLength);
            lastKeyInScratch = false;
        }
        return lastKey;
    }

    public double bloomFilterFpChance() { return fpChance; }

    /** Flushes Data.db; after this the compression ratio is known. Call before {@link #finish}. */
    public void finishData() throws IOException {
        phase = SSTableWriteException.Phase.FINISH_DATA;
        if (pipeline != null) {
            pipeline.finish();
        } else {
            spillInline();
            pool.release(current);
        }
        current = null;
        data.finish();
        index.finishPartitions();
    }

    /**
     * The Statistics.db content of this sstable from what {@code collector} gathered while its
     * partitions were written, plus what this writer knows (keys, compression ratio, filter): the
     * one mapping flush and compaction share. Callers add what only they know (commit log
     * intervals, level). REQUIRES: {@link #finishData()}.
     */
    public StatisticsWriter.Stats statistics(StatsCollector collector) {
        StatisticsWriter.Stats s = new StatisticsWriter.Stats();
        s.partitionSizes = collector.partitionSizes();
        s.cellsPerPartition = collector.cellsPerPartition();
        s.minTimestamp = collector.minTimestamp();
        s.maxTimestamp = collector.maxTimestamp();
        s.minLocalDeletionTime = collector.minLocalDeletionTime();
        s.maxLocalDeletionTime = collector.maxLocalDeletionTime();
        s.minTtl = collector.minTtl();
        s.maxTtl = collector.maxTtl();
        s.compressionRatio = compressionRatio();
        s.tombstones = collector.tombstones();
        s.minClustering = collector.minClustering();
        s.minClusteringKind = collector.minClusteringKind();
        s.maxClustering = collector.maxClustering();
        s.maxClusteringKind = collector.maxClusteringKind();
        s.totalColumnsSet = collector.totalColumnsSet();
        s.totalRows = collector.totalRows();
        s.hasPartitionLevelDeletions = collector.hasPartitionLevelDeletions();
        s.firstKey = firstKey();
        s.lastKey = lastKey();
        s.cardinality = collector.cardinality();
        s.bloomFilterFpChance = bloomFilterFpChance();
        return s;
    }

    public double compressionRatio() {
        return data.compressionRatio();
    }

    /** Physical bytes of Data.db. REQUIRES: {@link #finishData()}. */
    public long dataFileBytes() throws IOException {
        return Files.size(descriptor.stagingPath(Component.DATA));
    }

    /**
     * Writes the rest of the partition index, Filter, Statistics and TOC, fsyncs, and publishes. Returns the published
     * Data.db path. Outside a transaction the sstable is durable when this returns; a transaction's
     * output is durable once the transaction commits.
     */
    public Path finish(byte[] statistics) throws IOException {
        if (partitions == 0) {
            throw new IllegalStateException("refusing to publish an sstable with no partitions: " + descriptor);
        }
        phase = SSTableWriteException.Phase.WRITE_COMPONENTS;
        if (keyHashes != null) {
            filter = keyHashes.toFilter(partitions, fpChance);
            keyHashes.close();
            keyHashes = null;
        }
        index.finish(firstKey, lastKey());
        if (filter != null) {
            try (SyncedFileOutput f = new SyncedFileOutput(descriptor.stagingPath(Component.FILTER), SMALL_FILE_BLOCK_BYTES)) {
                DataOutputStream out = new DataOutputStream(f.asOutputStream());
                filter.serialize(out);
                out.flush();
                f.sync();
            }
            filter.close();
        }
        writeSmall(Component.STATISTICS, statistics);
        StringBuilder toc = new StringBuilder();
        for (Component c : Component.tocOrder(descriptor.version().format(), compressed, BloomFilterBuilder.isFilterWritten(fpChance))) {
            toc.append(c.fileSuffix()).append('\n');
        }
        writeSmall(Component.TOC, toc.toString().getBytes(StandardCharsets.UTF_8));
        // Every component's content is fsynced by now (each file forced as it was finished).
        // Directory fsyncs: a lone sstable (a flush) makes its staging entries and then its renames
        // durable itself, since nothing else will. A transaction's output leaves that to the
        // transaction: its renames need to be durable only before the log's COMMIT record (until
        // then a crash rolls the outputs back, whatever the directory holds), and the commit fsyncs
        // the table directory once for all its outputs; the staging directory is never needed
        // after a crash (Leftovers removes it). So a compaction writing N outputs pays one
        // directory fsync, not 3N.
        boolean inTransaction = descriptor.inTransaction();
        if (!inTransaction) SyncedFileOutput.syncDirectory(descriptor.stagingDir());
        descriptor.beforePublish(); // a transaction output's ADD record durable before any file of it is visible

        // Publish: rename in Component order (Data.db after what it needs, TOC.txt last).
        phase = SSTableWriteException.Phase.PUBLISH;
        descriptor.renameStagedIntoPlace(); // on failure nothing is visible; the caller's abort() removes the staging directory
        if (!inTransaction) SyncedFileOutput.syncDirectory(descriptor.tableDir());
        Files.delete(descriptor.stagingDir());
        descriptor.releaseReservation(); // after the staging dir: a held lock marks a live writer to Leftovers
        if (!inTransaction) SyncedFileOutput.syncDirectory(descriptor.tableDir());
        finished = true;
        return descriptor.path(Component.DATA);
    }

    private static final int SMALL_FILE_BLOCK_BYTES = 64 * 1024;

    private void writeSmall(Component c, byte[] bytes) throws IOException {
        SyncedFileOutput.writeSmallFile(descriptor.stagingPath(c), bytes, 0, bytes.length);
    }

    /** Removes everything this writer created. Never throws. */
    public void abort() {
        if (finished || aborted) return;
        aborted = true;
        if (pipeline != null) {
            pipeline.abort();
        } else if (current != null) {
            pool.release(current);
        }
        current = null;
        data.abort();
        index.abort();
        if (filter != null) filter.close();
        if (keyHashes != null) keyHashes.close();
        deleteStaging(descriptor);
    }

    /**
     * The (h1, h2) Murmur3 hashes of every key written, off heap (as the filter's bits are), in a
     * block that doubles when full. Not thread-safe; {@link #close} frees it (idempotent).
     */
    private static final class KeyHashes implements AutoCloseable {
        private static final int PAIR_BYTES = 16;
        private long address;
        private long capacityPairs = 1024;
        private long count;

        KeyHashes() {
            address = NativeMemory.allocate(capacityPairs * PAIR_BYTES);
        }

        void add(long h1, long h2) {
            if (count == capacityPairs) grow();
            long at = address + count * PAIR_BYTES;
            NativeMemory.putLong(at, h1);
            NativeMemory.putLong(at + 8, h2);
            count++;
        }

        private void grow() {
            long bigger = NativeMemory.allocate(2 * capacityPairs * PAIR_BYTES);
            NativeMemory.copy(address, bigger, count * PAIR_BYTES);
            NativeMemory.free(address, capacityPairs * PAIR_BYTES);
            address = bigger;
            capacityPairs *= 2;
        }

        BloomFilterBuilder toFilter(long keys, double fpChance) {
            BloomFilterBuilder f = new BloomFilterBuilder(keys, fpChance);
            for (long i = 0; i < count; i++) {
                long at = address + i * PAIR_BYTES;
                f.addHashed(NativeMemory.getLong(at), NativeMemory.getLong(at + 8));
            }
            return f;
        }

        @Override
        public void close() {
            if (address != 0) {
                NativeMemory.free(address, capacityPairs * PAIR_BYTES);
                address = 0;
            }
        }
    }

    @Override
    public void close() {
        if (!finished) abort();
    }

    static void deleteStaging(Descriptor d) {
        try {
            deleteStagingDir(d);
        } finally {
            d.releaseReservation();
        }
    }

    private static void deleteStagingDir(Descriptor d) {
        Path dir = d.stagingDir();
        if (!Files.exists(dir)) return;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // best effort; the next run's cleanup removes what is left
        }
        try {
            Files.deleteIfExists(dir);
        } catch (IOException ignored) {
            // as above
        }
    }
}

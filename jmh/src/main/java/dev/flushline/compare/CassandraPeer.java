package dev.flushline.compare;

import dev.flushline.bench.BenchCommand;
import dev.flushline.sstable.SSTableVersion;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.cassandra.config.CassandraRelevantProperties;
import org.apache.cassandra.config.Config;
import org.apache.cassandra.config.DataStorageSpec;
import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.cql3.statements.schema.CreateTableStatement;
import org.apache.cassandra.db.Clustering;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.DecoratedKey;
import org.apache.cassandra.db.Directories;
import org.apache.cassandra.db.Keyspace;
import org.apache.cassandra.db.LivenessInfo;
import org.apache.cassandra.db.commitlog.CommitLogPosition;
import org.apache.cassandra.db.compaction.OperationType;
import org.apache.cassandra.db.lifecycle.LifecycleTransaction;
import org.apache.cassandra.db.memtable.AbstractAllocatorMemtable;
import org.apache.cassandra.db.memtable.Flushing;
import org.apache.cassandra.db.memtable.Memtable;
import org.apache.cassandra.db.memtable.SkipListMemtable;
import org.apache.cassandra.db.partitions.PartitionUpdate;
import org.apache.cassandra.db.rows.BTreeRow;
import org.apache.cassandra.db.rows.BufferCell;
import org.apache.cassandra.db.rows.Row;
import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.index.transactions.UpdateTransaction;
import org.apache.cassandra.io.sstable.SSTableMultiWriter;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.io.util.File;
import org.apache.cassandra.schema.ColumnMetadata;
import org.apache.cassandra.schema.KeyspaceMetadata;
import org.apache.cassandra.schema.KeyspaceParams;
import org.apache.cassandra.schema.Schema;
import org.apache.cassandra.schema.SchemaTransformations;
import org.apache.cassandra.schema.TableMetadata;
import org.apache.cassandra.schema.TableMetadataRef;
import org.apache.cassandra.utils.ByteBufferUtil;
import org.apache.cassandra.utils.concurrent.OpOrder;
import org.apache.cassandra.utils.memory.MemtablePool;

import static org.apache.cassandra.utils.Throwables.maybeFail;

/**
 * Cassandra 5.0.5 (cassandra-all) flushing the bench workload, in this JVM, offline.
 *
 * <p>Memtable: Cassandra's own {@link SkipListMemtable} (the 5.0 default), built by its factory for a real
 * ColumnFamilyStore (client mode, {@code Keyspace.openWithoutSSTables} + {@code createColumnFamilyStore}, as
 * the project's CassandraVerifier does), filled with one PartitionUpdate per partition through
 * {@code Memtable.put} inside a write-order group, as the write path does. The allocation type is Cassandra's
 * {@code memtable_allocation_type}: its pool is a static final field ({@code AbstractAllocatorMemtable.MEMORY_POOL})
 * chosen once per JVM, so we set it before each memtable (Unsafe), with limits no fill reaches and a cleaner
 * that never runs, so no pool-triggered flush or allocation wait happens mid-fill.
 *
 * <p>Flush: the body of {@code ColumnFamilyStore.Flush.flushMemtable} in 5.0.5, step for step: on the
 * flush-writer thread (our stand-in for MemtableFlushWriter) an offline FLUSH LifecycleTransaction,
 * {@code Flushing.flushRunnables(cfs, memtable, txn)}, each FlushRunnable on a per-disk executor (our stand-in
 * for PerDiskMemtableFlushWriter_0), then {@code setOpenResult(true).prepareToCommit()} on each writer,
 * {@code txn.prepareToCommit()}, {@code writer.commit}, {@code txn.commit}, {@code writer.finished()}. Left
 * out, because offline they have nothing to do or cannot run: the write barrier wait (no concurrent writers),
 * {@code cfs.replaceFlushed} (tracker notification, compaction strategy), the commit-log discard in PostFlush,
 * and the memtable reclaim, which in Cassandra runs later on another executor. The output is real {@code oa}
 * sstables with every component, written by Cassandra's BigTableWriter, or {@code da} sstables written by its
 * BtiTableWriter when asked for da: the flush writes the node's selected sstable format
 * ({@code sstable: selected_format} in cassandra.yaml), so we select BTI for that flush and BIG again after it,
 * which is what a node configured for BTI does on every flush. The 5.0.5 node in client mode writes BIG as
 * {@code oa}, not {@code nb}, so nb is not offered.
 *
 * <p>Measured: CPU and allocated bytes of the flush-writer thread plus the per-disk writer threads
 * (ThreadMXBean), the wall time from the transaction's start to the finished sstables, and bytes on disk.
 * Not thread-safe; one flush at a time.
 */
final class CassandraPeer implements AutoCloseable {
    private static boolean initialized;

    private final BenchCommand.Workload workload;
    private final String[] valueColumnOrder;
    private final Path dataRoot;
    private final Map<String, ColumnFamilyStore> stores = new HashMap<>();
    private int keyspaces;
    /** The MemtableFlushWriter stand-in: one thread, as memtable_flush_writers' coordinator. */
    private final ExecutorService flushWriter;
    /**
     * The PerDiskMemtableFlushWriter_0 stand-in: one data directory, so one FlushRunnable per flush, so one thread
     * does all that Cassandra's per-disk pool would do for it.
     */
    private final ExecutorService perDiskWriter;
    private final List<Thread> flushThreads = Collections.synchronizedList(new ArrayList<>());

    CassandraPeer(BenchCommand.Workload workload, String[] valueColumnOrder, Path dataRoot) throws IOException {
        init(dataRoot.resolve("node"));
        this.workload = workload;
        this.valueColumnOrder = valueColumnOrder;
        this.dataRoot = dataRoot;
        this.flushWriter = Executors.newSingleThreadExecutor(r -> thread(r, "MemtableFlushWriter:1"));
        this.perDiskWriter = Executors.newSingleThreadExecutor(r -> thread(r, "PerDiskMemtableFlushWriter_0:1"));
    }

    private Thread thread(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        flushThreads.add(t);
        return t;
    }

    /** Client mode, as CQLSSTableWriter and the project's oracle do: it makes {@code oa} the BIG version written. */
    static synchronized void init(Path nodeDir) throws IOException {
        if (initialized) return;
        quietLogging();
        CassandraRelevantProperties.FORCE_LOAD_LOCAL_KEYSPACES.setBoolean(true);
        DatabaseDescriptor.clientInitialization(false);
        if (DatabaseDescriptor.getPartitioner() == null) DatabaseDescriptor.setPartitionerUnsafe(Murmur3Partitioner.instance);
        // Client mode leaves the memtable pool settings unset; AbstractAllocatorMemtable's static pool needs them.
        // The pool we measure with is set per memtable (usePool); these only let the class initialize.
        Config conf = DatabaseDescriptor.getRawConfig();
        if (conf.memtable_heap_space == null) {
            conf.memtable_heap_space = new DataStorageSpec.IntMebibytesBound(1024, DataStorageSpec.DataStorageUnit.MEBIBYTES);
        }
        if (conf.memtable_offheap_space == null) {
            conf.memtable_offheap_space = new DataStorageSpec.IntMebibytesBound(1024, DataStorageSpec.DataStorageUnit.MEBIBYTES);
        }
        if (conf.memtable_cleanup_threshold == null) conf.memtable_cleanup_threshold = 1.0f;
        // Every Cassandra memtable asks CommitLog.instance for its position when it is built, and the commit log
        // needs its directories and a started segment manager for that. Nothing is written to it here (we fill
        // memtables directly, as the write path does after its commit-log append); it idles on its own threads.
        if (conf.data_file_directories == null || conf.data_file_directories.length == 0) {
            conf.data_file_directories = new String[] {nodeDir.resolve("data").toString()};
        }
        if (conf.commitlog_directory == null) conf.commitlog_directory = nodeDir.resolve("commitlog").toString();
        if (conf.hints_directory == null) conf.hints_directory = nodeDir.resolve("hints").toString();
        if (conf.saved_caches_directory == null) conf.saved_caches_directory = nodeDir.resolve("saved_caches").toString();
        if (conf.commitlog_sync == null) {
            conf.commitlog_sync = Config.CommitLogSync.periodic;
            conf.commitlog_sync_period = new org.apache.cassandra.config.DurationSpec.IntMillisecondsBound("10000ms");
        }
        if (conf.commitlog_total_space == null) {
            conf.commitlog_total_space = new DataStorageSpec.IntMebibytesBound(8192, DataStorageSpec.DataStorageUnit.MEBIBYTES);
        }
        if (DatabaseDescriptor.getCommitLogWriteDiskAccessMode() == null) {
            DatabaseDescriptor.setCommitLogWriteDiskAccessMode(Config.DiskAccessMode.mmap);
        }
        org.apache.cassandra.db.commitlog.CommitLog.instance.start();
        initialized = true;
    }

    /**
     * cassandra-all ships no logback configuration, so logback's default logs DEBUG to the console; a node logs
     * INFO. WARN here: the flush's two INFO lines per sstable cost nothing next to the flush, and we print our own.
     */
    static void quietLogging() {
        org.slf4j.Logger root = org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        if (root instanceof ch.qos.logback.classic.Logger) {
            ((ch.qos.logback.classic.Logger) root).setLevel(ch.qos.logback.classic.Level.WARN);
        }
    }

    /** Cassandra's name for a Flushline allocation mode. */
    static Config.MemtableAllocationType allocationType(String flushlineName) {
        switch (flushlineName) {
            case "unslabbed_heap": return Config.MemtableAllocationType.unslabbed_heap_buffers;
            case "heap_buffers": return Config.MemtableAllocationType.heap_buffers;
            case "offheap_objects": return Config.MemtableAllocationType.offheap_objects;
            default: throw new IllegalArgumentException("no Cassandra allocation type for " + flushlineName);
        }
    }

    /** The table, one store per compression (compression is a table parameter). */
    private ColumnFamilyStore store(String compression, int chunkLengthBytes) throws IOException {
        String key = compression + "/" + chunkLengthBytes;
        ColumnFamilyStore cfs = stores.get(key);
        if (cfs != null) return cfs;
        String params = compression.equals("lz4")
                ? "{'class': 'LZ4Compressor', 'chunk_length_in_kb': '" + (chunkLengthBytes / 1024) + "'}"
                : "{'enabled': 'false'}";
        String keyspace = "stress_" + compression + "_" + (++keyspaces);
        TableMetadata table = CreateTableStatement.parse(workload.cql() + " WITH compression = " + params, keyspace)
                .partitioner(Murmur3Partitioner.instance)
                .build();
        Schema.instance.transform(SchemaTransformations.addKeyspace(
                KeyspaceMetadata.create(keyspace, KeyspaceParams.simple(1)), true));
        Keyspace ks = Keyspace.openWithoutSSTables(keyspace);
        Path dir = Files.createDirectories(dataRoot.resolve(keyspace));
        Directories directories = new Directories(table, Collections.singleton(new Directories.DataDirectory(new File(dir))));
        // a node creates <data>/<ks>/<table>-<id>/ when it creates the table; offline we do it here
        for (File d : directories.getCFDirectories()) Files.createDirectories(d.toPath());
        cfs = ColumnFamilyStore.createColumnFamilyStore(ks, table.name, TableMetadataRef.forOfflineTools(table),
                directories, false, false, true);
        stores.put(key, cfs);
        return cfs;
    }

    /** Makes the next memtable allocate with {@code type}; see the class comment. */
    private static void usePool(Config.MemtableAllocationType type) {
        long limit = 1L << 50; // never reached: no cleaner run, no allocation wait
        MemtablePool pool = AbstractAllocatorMemtable.createMemtableAllocatorPoolInternal(type, limit, limit, 1.0f,
                () -> org.apache.cassandra.utils.concurrent.ImmediateFuture.success(false));
        try {
            Field f = AbstractAllocatorMemtable.class.getField("MEMORY_POOL");
            sun.misc.Unsafe u = unsafe();
            Object base = u.staticFieldBase(f);
            long offset = u.staticFieldOffset(f);
            MemtablePool old = (MemtablePool) u.getObjectVolatile(base, offset);
            u.putObjectVolatile(base, offset, pool);
            if (old != null && old != pool) {
                try {
                    old.shutdownAndWait(10, java.util.concurrent.TimeUnit.SECONDS);
                } catch (Exception e) {
                    // the old pool's cleaner thread idles; leaving it is harmless
                }
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot set Cassandra's memtable pool", e);
        }
    }

    private static sun.misc.Unsafe unsafe() throws ReflectiveOperationException {
        Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
        f.setAccessible(true);
        return (sun.misc.Unsafe) f.get(null);
    }

    /** Fills a fresh Cassandra memtable with {@code w} (same values and timestamps as BenchCommand.fill). */
    private Memtable fill(ColumnFamilyStore cfs, BenchCommand.Workload w, long[] fillNanos) {
        TableMetadata md = cfs.metadata();
        Memtable m = SkipListMemtable.FACTORY.create(new AtomicReference<>(CommitLogPosition.NONE), cfs.metadata, cfs);
        // values are generated in Flushline's column order; cells go to the row builder in Cassandra's order
        ColumnMetadata[] generated = new ColumnMetadata[w.valueColumns];
        for (int c = 0; c < w.valueColumns; c++) generated[c] = md.getColumn(ByteBufferUtil.bytes(valueColumnOrder[c]));
        ColumnMetadata[] sorted = md.regularColumns().toArray(new ColumnMetadata[0]);
        int[] slotOfSorted = new int[sorted.length];
        for (int i = 0; i < sorted.length; i++) {
            for (int c = 0; c < generated.length; c++) if (generated[c] == sorted[i]) slotOfSorted[i] = c;
        }
        long nowInSec = BenchCommand.BASE_TIMESTAMP_MICROS / 1_000_000;
        ByteBuffer[] values = new ByteBuffer[w.valueColumns];
        long t0 = System.nanoTime();
        long seed = BenchCommand.VALUE_SEED;
        long ts = BenchCommand.BASE_TIMESTAMP_MICROS;
        for (int p = 0; p < w.partitions; p++) {
            DecoratedKey key = md.partitioner.decorateKey(ByteBufferUtil.bytes((long) p));
            PartitionUpdate.Builder b = new PartitionUpdate.Builder(md, key, md.regularAndStaticColumns(), w.rowsPerPartition);
            Row.Builder rb = BTreeRow.sortedBuilder();
            for (int r = 0; r < w.rowsPerPartition; r++) {
                for (int c = 0; c < w.valueColumns; c++) {
                    byte[] v = new byte[w.valueBytes];
                    for (int i = 0; i < v.length; i++) {
                        seed ^= seed << 13;
                        seed ^= seed >>> 7;
                        seed ^= seed << 17;
                        v[i] = (byte) ('!' + (int) ((seed >>> 33) % 94));
                    }
                    values[c] = ByteBuffer.wrap(v);
                }
                rb.newRow(Clustering.make(ByteBufferUtil.bytes(r)));
                rb.addPrimaryKeyLivenessInfo(LivenessInfo.create(ts, nowInSec));
                for (int i = 0; i < sorted.length; i++) rb.addCell(BufferCell.live(sorted[i], ts, values[slotOfSorted[i]]));
                b.add(rb.build());
                ts++;
            }
            try (OpOrder.Group g = Keyspace.writeOrder.start()) {
                m.put(b.build(), UpdateTransaction.NO_OP, g);
            }
        }
        fillNanos[0] = System.nanoTime() - t0;
        return m;
    }

    /** Fills and flushes {@code w} once with the given allocation type and compression, as oa; returns what it cost. */
    FlushRun fillAndFlush(BenchCommand.Workload w, String allocation, String compression, int chunkLengthBytes)
            throws Exception {
        return fillAndFlush(w, allocation, compression, chunkLengthBytes, SSTableVersion.OA, null, null);
    }

    /** As above, writing {@code version} (oa or da; see {@link #writes}). */
    FlushRun fillAndFlush(BenchCommand.Workload w, String allocation, String compression, int chunkLengthBytes,
                          SSTableVersion version) throws Exception {
        return fillAndFlush(w, allocation, compression, chunkLengthBytes, version, null, null);
    }

    /** As the oa flush, calling the hooks just before and after the flush (profilers). */
    FlushRun fillAndFlush(BenchCommand.Workload w, String allocation, String compression, int chunkLengthBytes,
                          Runnable beforeFlush, Runnable afterFlush) throws Exception {
        return fillAndFlush(w, allocation, compression, chunkLengthBytes, SSTableVersion.OA, beforeFlush, afterFlush);
    }

    /** Whether this peer flushes sstables of {@code version}: oa (BIG) and da (BTI); see the class comment. */
    static boolean writes(SSTableVersion version) {
        return version == SSTableVersion.OA || version == SSTableVersion.DA;
    }

    /** Cassandra's sstable format of {@code version}, by the name cassandra.yaml selects it with. */
    static org.apache.cassandra.io.sstable.format.SSTableFormat<?, ?> format(SSTableVersion version) {
        if (!writes(version)) throw new IllegalArgumentException("the Cassandra 5.0.5 peer does not flush " + version);
        return DatabaseDescriptor.getSSTableFormats().get(version.format().id());
    }

    FlushRun fillAndFlush(BenchCommand.Workload w, String allocation, String compression, int chunkLengthBytes,
                          SSTableVersion version, Runnable beforeFlush, Runnable afterFlush) throws Exception {
        org.apache.cassandra.io.sstable.format.SSTableFormat<?, ?> format = format(version);
        ColumnFamilyStore cfs = store(compression, chunkLengthBytes);
        usePool(allocationType(allocation));
        System.gc();
        long[] fillNanos = new long[1];
        long gcCount0 = BenchCommand.gcCount(), gcMillis0 = BenchCommand.gcMillis();
        long faults0 = BenchCommand.minorFaults();
        Memtable m = fill(cfs, w, fillNanos);
        long faults1 = BenchCommand.minorFaults();
        long fillGcCount = BenchCommand.gcCount() - gcCount0, fillGcMillis = BenchCommand.gcMillis() - gcMillis0;
        // what ColumnFamilyStore.Flush does before it flushes: seal the commit-log upper bound, wait for writers
        OpOrder.Barrier barrier = Keyspace.writeOrder.newBarrier();
        m.switchOut(barrier, new AtomicReference<>(new Memtable.LastCommitLogPosition(CommitLogPosition.NONE)));
        barrier.issue();
        barrier.await();

        // start every pool thread so that its counters exist before we read them
        flushWriter.submit(() -> { }).get();
        perDiskWriter.submit(() -> { }).get();
        List<Thread> threads = new ArrayList<>(flushThreads);
        long[] cpu0 = new long[threads.size()];
        long[] alloc0 = new long[threads.size()];
        for (int i = 0; i < threads.size(); i++) {
            cpu0[i] = Costs.cpu(threads.get(i).getId());
            alloc0[i] = Costs.allocated(threads.get(i).getId());
        }
        // The flush and its transaction log read the selected format when they start (Flushing.flushRunnable,
        // LogFile); selected before the clock starts, BIG again after it stops.
        org.apache.cassandra.io.sstable.format.SSTableFormat<?, ?> selected = DatabaseDescriptor.getSelectedSSTableFormat();
        DatabaseDescriptor.setSelectedSSTableFormat(format);
        List<SSTableReader> sstables;
        long wall;
        long proc;
        try {
            if (beforeFlush != null) beforeFlush.run();
            long proc0 = Costs.processCpuNanos();
            long wall0 = System.nanoTime();
            sstables = flushWriter.submit(() -> flushMemtable(cfs, m)).get();
            wall = System.nanoTime() - wall0;
            proc = Costs.processCpuNanos() - proc0;
            if (afterFlush != null) afterFlush.run();
        } finally {
            DatabaseDescriptor.setSelectedSSTableFormat(selected);
        }
        long cpu = 0, alloc = 0;
        StringBuilder names = new StringBuilder();
        for (int i = 0; i < threads.size(); i++) {
            cpu += Costs.cpu(threads.get(i).getId()) - cpu0[i];
            alloc += Costs.allocated(threads.get(i).getId()) - alloc0[i];
            if (names.length() > 0) names.append(',');
            names.append(threads.get(i).getName());
        }
        try {
            if (sstables.size() != 1) throw new IllegalStateException("Cassandra flushed " + sstables.size() + " sstables, expected 1");
            SSTableReader s = sstables.get(0);
            if (!s.descriptor.version.version.equals(version.id())) {
                throw new IllegalStateException("Cassandra flushed " + s.getFilename() + " when asked for " + version);
            }
            long rows = s.getSSTableMetadata().totalRows;
            long partitions = s.getSSTableMetadata().estimatedPartitionSize.count();
            FlushRun run = new FlushRun("cassandra", "skiplist", allocation, compression, s.getFilename(), s.bytesOnDisk(),
                    partitions, rows, rows * w.valueColumns, fillNanos[0], wall, cpu, alloc, proc, names.toString());
            run.fillGcCount = fillGcCount;
            run.fillGcMillis = fillGcMillis;
            run.fillMinorFaults = faults0 < 0 || faults1 < 0 ? -1 : faults1 - faults0;
            run.version = version;
            return run;
        } finally {
            for (SSTableReader s : sstables) s.selfRef().release();
            m.discard();
        }
    }

    /** ColumnFamilyStore.Flush.flushMemtable of 5.0.5 without the parts that need a running node (class comment). */
    private List<SSTableReader> flushMemtable(ColumnFamilyStore cfs, Memtable memtable) throws Exception {
        List<Future<SSTableMultiWriter>> futures = new ArrayList<>();
        List<SSTableReader> sstables = new ArrayList<>();
        try (LifecycleTransaction txn = LifecycleTransaction.offline(OperationType.FLUSH)) {
            List<Flushing.FlushRunnable> flushRunnables = null;
            List<SSTableMultiWriter> flushResults;
            try {
                flushRunnables = Flushing.flushRunnables(cfs, memtable, txn);
                for (Flushing.FlushRunnable r : flushRunnables) futures.add(perDiskWriter.submit(r));
                flushResults = new ArrayList<>();
                for (Future<SSTableMultiWriter> f : futures) flushResults.add(f.get());
            } catch (Throwable t) {
                t = Flushing.abortRunnables(flushRunnables, t);
                t = txn.abort(t);
                throw new RuntimeException(t);
            }
            Iterator<SSTableMultiWriter> it = flushResults.iterator();
            while (it.hasNext()) {
                SSTableMultiWriter writer = it.next();
                if (writer.getBytesWritten() > 0) {
                    writer.setOpenResult(true).prepareToCommit();
                } else {
                    maybeFail(writer.abort(null));
                    it.remove();
                }
            }
            txn.prepareToCommit();
            Throwable accumulate = null;
            for (SSTableMultiWriter writer : flushResults) accumulate = writer.commit(accumulate);
            maybeFail(txn.commit(accumulate));
            for (SSTableMultiWriter writer : flushResults) {
                Collection<SSTableReader> flushed = writer.finished();
                for (SSTableReader s : flushed) if (s != null) sstables.add(s);
            }
        }
        return sstables;
    }

    @Override
    public void close() {
        flushWriter.shutdownNow();
        perDiskWriter.shutdownNow();
    }
}

package dev.flushline.cassandra6;

import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.cassandra.config.Config;
import org.apache.cassandra.db.Clustering;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.DecoratedKey;
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
import org.apache.cassandra.index.transactions.UpdateTransaction;
import org.apache.cassandra.io.sstable.SSTableMultiWriter;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.schema.ColumnMetadata;
import org.apache.cassandra.schema.TableMetadata;
import org.apache.cassandra.utils.ByteBufferUtil;
import org.apache.cassandra.utils.concurrent.ImmediateFuture;
import org.apache.cassandra.utils.concurrent.OpOrder;
import org.apache.cassandra.utils.memory.MemtablePool;

import static org.apache.cassandra.utils.Throwables.maybeFail;

/**
 * Cassandra 6.0's memtable flush of the bench workload, measured as the 5.0.5 peer in the parent
 * (dev.flushline.compare.CassandraPeer) measures 5.0.5's: the same rows, the same steps, the same threads.
 *
 * <p>The rows: {@code flushline bench}'s workload regenerated here, value for value. Partition keys are the
 * bigints 0..P-1, clusterings the ints 0..R-1, values printable ASCII from the xorshift
 * {@code s ^= s << 13; s ^= s >>> 7; s ^= s << 17} seeded with {@link #VALUE_SEED}, one step per value byte,
 * byte {@code '!' + (s >>> 33) % 94}, values in the parent's column order (v1..vN), timestamps from
 * {@link #BASE_TIMESTAMP_MICROS} up by one per row. The parent names its own constants in each request and
 * this class refuses a request whose seed or base timestamp differ, so the two cannot drift apart silently;
 * the byte comparison with Flushline's Data.db proves the rows were the same.
 *
 * <p>Memtable: 6.0's default, {@link SkipListMemtable}, one PartitionUpdate per partition through
 * {@code Memtable.put} inside a write-order group. The allocation type ({@code memtable_allocation_type}) is a
 * static final pool ({@code AbstractAllocatorMemtable.MEMORY_POOL}) fixed once per JVM, so it is replaced
 * before each memtable, with limits no fill reaches and a cleaner that never runs.
 *
 * <p>Flush: the body of 6.0's {@code ColumnFamilyStore.Flush.flushMemtable}, step for step, on a
 * MemtableFlushWriter stand-in thread with the FlushRunnable on a PerDiskMemtableFlushWriter_0 stand-in (one
 * data directory); left out, as in the 5.0.5 peer: the write-barrier wait, {@code replaceFlushed}, the
 * commit-log discard and the memtable reclaim. Measured: CPU and allocation of those two threads
 * (ThreadMXBean), wall time from the transaction's start to the finished sstables, process CPU.
 *
 * <p>Not thread-safe; one flush at a time, from the protocol thread.
 */
final class Flush6 implements AutoCloseable {
    static final long VALUE_SEED = 0x9E3779B97F4A7C15L;
    static final long BASE_TIMESTAMP_MICROS = 1_750_000_000_000_000L;

    private final Path dataRoot;
    private final ExecutorService flushWriter;
    private final ExecutorService perDiskWriter;
    private final List<Thread> flushThreads = Collections.synchronizedList(new ArrayList<>());

    Flush6(Path dataRoot) {
        this.dataRoot = dataRoot;
        this.flushWriter = Executors.newSingleThreadExecutor(r -> thread(r, "MemtableFlushWriter:1"));
        this.perDiskWriter = Executors.newSingleThreadExecutor(r -> thread(r, "PerDiskMemtableFlushWriter_0:1"));
    }

    Path dataRoot() {
        return dataRoot;
    }

    private Thread thread(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        flushThreads.add(t);
        return t;
    }

    /** What one request asks for. */
    static final class Request {
        int partitions, rowsPerPartition, valueColumns, valueBytes, chunkBytes;
        String[] valueOrder;
        String allocation, compression;
    }

    /** What one flush cost and wrote. */
    static final class Result {
        String sstable, threads;
        long bytes, partitions, rows, cells, fillNanos, fillGcCount, fillGcMillis, wallNanos, cpuNanos, allocatedBytes,
                processCpuNanos;
        SSTableReader reader;
    }

    static String cql(int valueColumns, String compression, int chunkBytes) {
        StringBuilder sb = new StringBuilder("CREATE TABLE stress.stress_table (pk bigint, ck int");
        for (int i = 1; i <= valueColumns; i++) sb.append(", v").append(i).append(" text");
        sb.append(", PRIMARY KEY (pk, ck)) WITH compression = ");
        if (compression.equals("lz4")) {
            sb.append("{'class': 'LZ4Compressor', 'chunk_length_in_kb': '").append(chunkBytes / 1024).append("'}");
        } else if (compression.equals("none")) {
            sb.append("{'enabled': 'false'}");
        } else {
            throw new IllegalArgumentException("compression '" + compression + "': the peer knows lz4 and none");
        }
        return sb.toString();
    }

    static Config.MemtableAllocationType allocationType(String flushlineName) {
        switch (flushlineName) {
            case "unslabbed_heap": return Config.MemtableAllocationType.unslabbed_heap_buffers;
            case "heap_buffers": return Config.MemtableAllocationType.heap_buffers;
            case "offheap_objects": return Config.MemtableAllocationType.offheap_objects;
            default: throw new IllegalArgumentException("allocation '" + flushlineName + "' has no Cassandra allocation type");
        }
    }

    /** Fills a fresh memtable with the request's rows and flushes it; the caller releases {@code result.reader}. */
    Result fillAndFlush(Request q) throws Exception {
        ColumnFamilyStore cfs = Node6.store(cql(q.valueColumns, q.compression, q.chunkBytes), dataRoot);
        usePool(allocationType(q.allocation));
        System.gc();
        long gcCount0 = Costs.gcCount(), gcMillis0 = Costs.gcMillis();
        long[] fillNanos = new long[1];
        Memtable m = fill(cfs, q, fillNanos);
        Result r = new Result();
        r.fillNanos = fillNanos[0];
        r.fillGcCount = Costs.gcCount() - gcCount0;
        r.fillGcMillis = Costs.gcMillis() - gcMillis0;
        OpOrder.Barrier barrier = Keyspace.writeOrder.newBarrier();
        m.switchOut(barrier, new AtomicReference<>(new Memtable.LastCommitLogPosition(CommitLogPosition.NONE)));
        barrier.issue();
        barrier.await();

        // start both pool threads so that their counters exist before they are read
        flushWriter.submit(() -> { }).get();
        perDiskWriter.submit(() -> { }).get();
        List<Thread> threads = new ArrayList<>(flushThreads);
        long[] cpu0 = new long[threads.size()];
        long[] alloc0 = new long[threads.size()];
        for (int i = 0; i < threads.size(); i++) {
            cpu0[i] = Costs.cpu(threads.get(i).getId());
            alloc0[i] = Costs.allocated(threads.get(i).getId());
        }
        long proc0 = Costs.processCpuNanos();
        long wall0 = System.nanoTime();
        List<SSTableReader> sstables = flushWriter.submit(() -> flushMemtable(cfs, m)).get();
        r.wallNanos = System.nanoTime() - wall0;
        r.processCpuNanos = Costs.processCpuNanos() - proc0;
        StringBuilder names = new StringBuilder();
        for (int i = 0; i < threads.size(); i++) {
            r.cpuNanos += Costs.cpu(threads.get(i).getId()) - cpu0[i];
            r.allocatedBytes += Costs.allocated(threads.get(i).getId()) - alloc0[i];
            if (names.length() > 0) names.append(',');
            names.append(threads.get(i).getName());
        }
        r.threads = names.toString();
        m.discard();
        if (sstables.size() != 1) {
            for (SSTableReader s : sstables) s.selfRef().release();
            throw new IllegalStateException("Cassandra 6.0 flushed " + sstables.size() + " sstables, expected 1");
        }
        SSTableReader s = sstables.get(0);
        r.reader = s;
        r.sstable = s.getFilename();
        r.bytes = s.bytesOnDisk();
        r.rows = s.getSSTableMetadata().totalRows;
        r.partitions = s.getSSTableMetadata().estimatedPartitionSize.count();
        r.cells = r.rows * q.valueColumns;
        return r;
    }

    /** The workload, as the class comment gives it; values generated in the parent's order, added in Cassandra's. */
    private static Memtable fill(ColumnFamilyStore cfs, Request q, long[] fillNanos) {
        TableMetadata md = cfs.metadata();
        Memtable m = SkipListMemtable.FACTORY.create(new AtomicReference<>(CommitLogPosition.NONE), cfs.metadata, cfs);
        ColumnMetadata[] generated = new ColumnMetadata[q.valueColumns];
        for (int c = 0; c < q.valueColumns; c++) {
            generated[c] = md.getColumn(ByteBufferUtil.bytes(q.valueOrder[c]));
            if (generated[c] == null) throw new IllegalArgumentException("value column '" + q.valueOrder[c] + "' is not in " + md);
        }
        ColumnMetadata[] sorted = md.regularColumns().toArray(new ColumnMetadata[0]);
        int[] slotOfSorted = new int[sorted.length];
        for (int i = 0; i < sorted.length; i++) {
            for (int c = 0; c < generated.length; c++) if (generated[c] == sorted[i]) slotOfSorted[i] = c;
        }
        ByteBuffer[] values = new ByteBuffer[q.valueColumns];
        long t0 = System.nanoTime();
        long seed = VALUE_SEED;
        long ts = BASE_TIMESTAMP_MICROS;
        for (int p = 0; p < q.partitions; p++) {
            DecoratedKey key = md.partitioner.decorateKey(ByteBufferUtil.bytes((long) p));
            PartitionUpdate.Builder b = new PartitionUpdate.Builder(md, key, md.regularAndStaticColumns(), q.rowsPerPartition);
            Row.Builder rb = BTreeRow.sortedBuilder();
            for (int r = 0; r < q.rowsPerPartition; r++) {
                for (int c = 0; c < q.valueColumns; c++) {
                    byte[] v = new byte[q.valueBytes];
                    for (int i = 0; i < v.length; i++) {
                        seed ^= seed << 13;
                        seed ^= seed >>> 7;
                        seed ^= seed << 17;
                        v[i] = (byte) ('!' + (int) ((seed >>> 33) % 94));
                    }
                    values[c] = ByteBuffer.wrap(v);
                }
                rb.newRow(Clustering.make(ByteBufferUtil.bytes(r)));
                rb.addPrimaryKeyLivenessInfo(LivenessInfo.create(ts));
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

    /** 6.0's ColumnFamilyStore.Flush.flushMemtable without the parts that need a running node (class comment). */
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

    /** Makes the next memtable allocate with {@code type}; see the class comment. */
    private static void usePool(Config.MemtableAllocationType type) {
        long limit = 1L << 50; // never reached: no cleaner run, no allocation wait
        MemtablePool pool = AbstractAllocatorMemtable.createMemtableAllocatorPoolInternal(type, limit, limit, 1.0f,
                () -> ImmediateFuture.success(false));
        try {
            Field f = AbstractAllocatorMemtable.class.getField("MEMORY_POOL");
            sun.misc.Unsafe u = unsafe();
            Object base = u.staticFieldBase(f);
            long offset = u.staticFieldOffset(f);
            MemtablePool old = (MemtablePool) u.getObjectVolatile(base, offset);
            u.putObjectVolatile(base, offset, pool);
            if (old != null && old != pool) {
                try {
                    old.shutdownAndWait(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    // the old pool's cleaner thread idles; leaving it is harmless
                }
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot set Cassandra 6.0's memtable pool", e);
        }
    }

    private static sun.misc.Unsafe unsafe() throws ReflectiveOperationException {
        Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
        f.setAccessible(true);
        return (sun.misc.Unsafe) f.get(null);
    }

    @Override
    public void close() {
        flushWriter.shutdownNow();
        perDiskWriter.shutdownNow();
    }
}

package dev.flushline.compare;

import dev.flushline.bench.BenchCommand;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.rocksdb.CompressionType;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.SkipListMemTableConfig;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * RocksDB (rocksdbjni) flushing the bench workload: key = partition key (8 bytes, big-endian) + clustering
 * (4 bytes, big-endian); value = the row's text values, each prefixed by its length as an unsigned varint.
 * One WriteBatch per partition (Cassandra's unit of write), WAL off, skip-list memtable big enough to hold the
 * whole fill, auto compaction off; then {@code db.flush(waitForFlush=true)} writes one L0 .sst file.
 *
 * <p>RocksDB flushes on its own native background threads ("rocksdb:high*"), which ThreadMXBean cannot see.
 * Flush CPU = the CPU those threads ran during the flush call (from /proc/self/task/<tid>/schedstat) plus the
 * calling Java thread's (which mostly waits); the fill is over and nothing else writes, so that is the flush.
 * RocksDB allocates with malloc, so allocated bytes are not measured (-1, JSON null). Not thread-safe.
 */
final class RocksPeer {
    private final Path dataRoot;
    private int dbs;

    RocksPeer(Path dataRoot) {
        RocksDB.loadLibrary();
        this.dataRoot = dataRoot;
    }

    FlushRun fillAndFlush(BenchCommand.Workload w, String compression) throws Exception {
        Path dir = Files.createDirectories(dataRoot.resolve("rocksdb-" + compression + "-" + (++dbs)));
        System.gc();
        try (Options options = new Options()
                .setCreateIfMissing(true)
                .setMemTableConfig(new SkipListMemTableConfig())
                .setWriteBufferSize(8L << 30)
                .setMaxWriteBufferNumber(2)
                .setDisableAutoCompactions(true)
                .setCompressionType(compression.equals("lz4") ? CompressionType.LZ4_COMPRESSION : CompressionType.NO_COMPRESSION);
             RocksDB db = RocksDB.open(options, dir.toString());
             WriteOptions wo = new WriteOptions().setDisableWAL(true);
             FlushOptions fo = new FlushOptions().setWaitForFlush(true)) {
            long gcCount0 = BenchCommand.gcCount(), gcMillis0 = BenchCommand.gcMillis();
            long faults0 = BenchCommand.minorFaults();
            long fillNanos = fill(db, wo, w);
            long faults1 = BenchCommand.minorFaults();
            long fillGcCount = BenchCommand.gcCount() - gcCount0, fillGcMillis = BenchCommand.gcMillis() - gcMillis0;
            long caller = Thread.currentThread().getId();
            Map<String, Long> native0 = Costs.nativeThreadCpu("rocksdb");
            long callerCpu0 = Costs.cpu(caller);
            long callerAlloc0 = Costs.allocated(caller);
            long proc0 = Costs.processCpuNanos();
            long wall0 = System.nanoTime();
            db.flush(fo);
            long wall = System.nanoTime() - wall0;
            long proc = Costs.processCpuNanos() - proc0;
            long callerCpu = Costs.cpu(caller) - callerCpu0;
            long callerAlloc = Costs.allocated(caller) - callerAlloc0;
            Map<String, Long> native1 = Costs.nativeThreadCpu("rocksdb");
            long nativeCpu = 0;
            StringBuilder names = new StringBuilder("caller");
            for (Map.Entry<String, Long> e : native1.entrySet()) {
                long d = e.getValue() - native0.getOrDefault(e.getKey(), 0L);
                if (d > 0) {
                    nativeCpu += d;
                    names.append(',').append(e.getKey().substring(e.getKey().indexOf(':') + 1));
                }
            }
            List<Path> ssts;
            try (Stream<Path> s = Files.list(dir)) {
                ssts = s.filter(p -> p.toString().endsWith(".sst")).toList();
            }
            if (ssts.size() != 1) throw new IllegalStateException("RocksDB flushed " + ssts.size() + " .sst files, expected 1");
            long bytes = Files.size(ssts.get(0));
            long entries = db.getLongProperty("rocksdb.estimate-num-keys");
            long rows = (long) w.partitions * w.rowsPerPartition;
            if (entries != rows) throw new IllegalStateException("RocksDB holds " + entries + " keys, expected " + rows);
            FlushRun run = new FlushRun("rocksdb", "skiplist", "native", compression, ssts.get(0).toString(), bytes,
                    w.partitions, rows, rows * w.valueColumns, fillNanos, wall, nativeCpu + callerCpu,
                    callerAlloc > 4096 ? callerAlloc : -1, proc, names.toString());
            run.fillGcCount = fillGcCount;
            run.fillGcMillis = fillGcMillis;
            run.fillMinorFaults = faults0 < 0 || faults1 < 0 ? -1 : faults1 - faults0;
            return run;
        }
    }

    /** The same rows as BenchCommand.fill: same seed, same value order, one batch per partition. */
    private static long fill(RocksDB db, WriteOptions wo, BenchCommand.Workload w) throws Exception {
        long t0 = System.nanoTime();
        long seed = BenchCommand.VALUE_SEED;
        byte[] lengthPrefix = varint(w.valueBytes);
        for (int p = 0; p < w.partitions; p++) {
            try (WriteBatch batch = new WriteBatch()) {
                for (int r = 0; r < w.rowsPerPartition; r++) {
                    byte[] key = new byte[12];
                    long pk = p;
                    for (int i = 7; i >= 0; i--) {
                        key[i] = (byte) pk;
                        pk >>= 8;
                    }
                    key[8] = (byte) (r >> 24);
                    key[9] = (byte) (r >> 16);
                    key[10] = (byte) (r >> 8);
                    key[11] = (byte) r;
                    byte[] value = new byte[w.valueColumns * (lengthPrefix.length + w.valueBytes)];
                    int at = 0;
                    for (int c = 0; c < w.valueColumns; c++) {
                        System.arraycopy(lengthPrefix, 0, value, at, lengthPrefix.length);
                        at += lengthPrefix.length;
                        for (int i = 0; i < w.valueBytes; i++) {
                            seed ^= seed << 13;
                            seed ^= seed >>> 7;
                            seed ^= seed << 17;
                            value[at++] = (byte) ('!' + (int) ((seed >>> 33) % 94));
                        }
                    }
                    batch.put(key, value);
                }
                db.write(wo, batch);
            }
        }
        return System.nanoTime() - t0;
    }

    private static byte[] varint(int x) {
        byte[] b = new byte[5];
        int n = 0;
        while ((x & ~0x7F) != 0) {
            b[n++] = (byte) ((x & 0x7F) | 0x80);
            x >>>= 7;
        }
        b[n++] = (byte) x;
        return java.util.Arrays.copyOf(b, n);
    }
}

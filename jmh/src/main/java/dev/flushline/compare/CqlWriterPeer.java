package dev.flushline.compare;

import dev.flushline.bench.BenchCommand;

import org.apache.cassandra.db.marshal.LongType;
import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.io.sstable.CQLSSTableWriter;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;

/**
 * Cassandra 5.0.5's {@code CQLSSTableWriter} (cassandra-all) writing the bench workload, the bulk-load path
 * {@code flushline load} should replace, called as its users call it: {@code builder().inDirectory(..)
 * .forTable(CREATE TABLE ..).using(INSERT ..)}, then {@code build()}, one {@code addRow(Object...)} per row
 * with the Java values its codecs take (a boxed {@code Long} pk, an {@code Integer} ck, a {@code String} per
 * text value, a {@code Long} write timestamp), then {@code close()}. Two feeds: {@code unsorted}, partitions in
 * pk order into the default buffering writer (128 MiB buffer, one background disk writer thread), and
 * {@code sorted}, partitions in Murmur3 token order with {@code sorted()} on the builder (as that mode
 * requires; the order is computed before the clock starts).
 *
 * <p>The same rows as {@code BenchCommand.fill}: pk 0..P-1, ck 0..R-1, the values of the same seeded xorshift
 * (the generator's state at each partition's first value is recorded once, untimed, so the sorted feed can
 * produce partition p's values out of order), and the same microsecond timestamps, bound through
 * {@code USING TIMESTAMP ?}. Compression is the table's, as for the other peers. Each run gets its own keyspace,
 * because {@code build()} reuses a table it has already defined, compression included.
 *
 * <p>Measured from {@code build()} to {@code close()} returning (what a user waits for): wall time; CPU and
 * allocated bytes summed over every Java thread that ran in the window (WriterAgainstMain's sampler, which also
 * counts the unsorted writer's disk thread that ends in the window); process CPU; GC count and time
 * (GarbageCollectorMXBeans). The values are generated inside the window, as Flushline's and the other peers'
 * fills generate theirs. Rows and partitions come from each sstable's Statistics.db, and the run fails unless
 * they are the rows fed. Not thread-safe.
 */
final class CqlWriterPeer {
    private final BenchCommand.Workload workload;
    private final String[] valueColumnOrder;
    private final Path dataRoot;
    /** The xorshift state before partition p's first value byte, in pk order. */
    private final long[] seedAtPartition;
    /** Partition numbers in Murmur3 token order of their pk. */
    private final int[] tokenOrder;
    private int runs;

    CqlWriterPeer(BenchCommand.Workload w, String[] valueColumnOrder, Path dataRoot) {
        CassandraPeer.quietLogging(); // before cassandra-all logs anything: it ships no logback configuration
        this.workload = w;
        this.valueColumnOrder = valueColumnOrder.clone();
        this.dataRoot = dataRoot;
        this.seedAtPartition = new long[w.partitions];
        long seed = BenchCommand.VALUE_SEED;
        long stepsPerPartition = (long) w.rowsPerPartition * w.valueColumns * w.valueBytes;
        for (int p = 0; p < w.partitions; p++) {
            seedAtPartition[p] = seed;
            for (long i = 0; i < stepsPerPartition; i++) {
                seed ^= seed << 13;
                seed ^= seed >>> 7;
                seed ^= seed << 17;
            }
        }
        long[] tokens = new long[w.partitions];
        for (int p = 0; p < w.partitions; p++) {
            tokens[p] = (Long) Murmur3Partitioner.instance.getToken(LongType.instance.decompose((long) p)).getTokenValue();
        }
        Integer[] order = new Integer[w.partitions];
        for (int p = 0; p < w.partitions; p++) order[p] = p;
        Arrays.sort(order, Comparator.comparingLong(p -> tokens[p]));
        this.tokenOrder = new int[w.partitions];
        for (int k = 0; k < w.partitions; k++) tokenOrder[k] = order[k];
    }

    /** Writes the workload {@code w} (its first {@code w.partitions} partitions) once; {@code feed} is sorted or unsorted. */
    FlushRun write(BenchCommand.Workload w, String feed, String compression, int chunkLengthBytes) throws Exception {
        if (w.partitions > seedAtPartition.length || w.rowsPerPartition != workload.rowsPerPartition
                || w.valueColumns != workload.valueColumns || w.valueBytes != workload.valueBytes) {
            throw new IllegalArgumentException("CQLSSTableWriter peer built for " + workload.partitions + " partitions of this shape");
        }
        boolean sorted = feed.equals("sorted");
        int run = ++runs;
        String keyspace = "cqlwriter_" + compression + "_" + run;
        // <keyspace>/<table>/, so that cassandra-all's Descriptor can name the table when the run is counted
        Path runDir = dataRoot.resolve("cqlsstablewriter-" + feed + "-" + compression + "-" + run);
        Path out = Files.createDirectories(runDir.resolve(keyspace).resolve("stress_table"));
        String params = compression.equals("lz4")
                ? "{'class': 'LZ4Compressor', 'chunk_length_in_kb': '" + (chunkLengthBytes / 1024) + "'}"
                : "{'enabled': 'false'}";
        String create = w.cql().replace("CREATE TABLE stress.stress_table", "CREATE TABLE " + keyspace + ".stress_table")
                + " WITH compression = " + params;
        StringBuilder insert = new StringBuilder("INSERT INTO ").append(keyspace).append(".stress_table (pk, ck");
        for (String c : valueColumnOrder) insert.append(", ").append(c);
        insert.append(") VALUES (?, ?");
        for (int c = 0; c < w.valueColumns; c++) insert.append(", ?");
        insert.append(") USING TIMESTAMP ?");

        final int partitions = w.partitions, rowsPerPartition = w.rowsPerPartition, valueColumns = w.valueColumns;
        final Object[] row = new Object[3 + valueColumns];
        final byte[] value = new byte[w.valueBytes];
        System.gc();
        WriterAgainstMain.Sampler sampler = new WriterAgainstMain.Sampler();
        sampler.start();
        long gcCount0 = BenchCommand.gcCount(), gcMillis0 = BenchCommand.gcMillis();
        long proc0 = Costs.processCpuNanos();
        long wall0 = System.nanoTime();
        CQLSSTableWriter.Builder b = CQLSSTableWriter.builder().inDirectory(out.toString()).forTable(create).using(insert.toString());
        if (sorted) b.sorted();
        try (CQLSSTableWriter writer = b.build()) {
            // Sorted: every partition in token order, skipping those past a smaller workload (the warm-up's).
            final int feedLength = sorted ? tokenOrder.length : partitions;
            for (int k = 0; k < feedLength; k++) {
                int p = sorted ? tokenOrder[k] : k;
                if (p >= partitions) continue;
                long seed = seedAtPartition[p];
                long ts = BenchCommand.BASE_TIMESTAMP_MICROS + (long) p * rowsPerPartition;
                row[0] = (long) p;
                for (int r = 0; r < rowsPerPartition; r++) {
                    row[1] = r;
                    for (int c = 0; c < valueColumns; c++) {
                        for (int i = 0; i < value.length; i++) {
                            seed ^= seed << 13;
                            seed ^= seed >>> 7;
                            seed ^= seed << 17;
                            value[i] = (byte) ('!' + (int) ((seed >>> 33) % 94));
                        }
                        row[2 + c] = new String(value, StandardCharsets.ISO_8859_1);
                    }
                    row[2 + valueColumns] = ts++;
                    writer.addRow(row);
                }
            }
        }
        long wall = System.nanoTime() - wall0;
        long proc = Costs.processCpuNanos() - proc0;
        long gcCount = BenchCommand.gcCount() - gcCount0, gcMillis = BenchCommand.gcMillis() - gcMillis0;
        sampler.finish();

        WriterAgainstMain.Result r = new WriterAgainstMain.Result();
        WriterAgainstMain.count(out, r);
        long fed = (long) partitions * rowsPerPartition;
        // A buffering writer that flushes mid-partition leaves that partition in two sstables, each of which counts it.
        if (r.rows != fed || r.partitions < partitions || r.partitions > partitions + r.sstables - 1) {
            throw new IllegalStateException("CQLSSTableWriter " + feed + ": Statistics.db say " + r.rows + " rows, " + r.partitions
                    + " partitions; fed " + fed + " rows, " + partitions + " partitions");
        }
        FlushRun result = new FlushRun("cqlsstablewriter", "cqlsstablewriter", feed, compression,
                r.firstDataFile == null ? runDir.toString() : r.firstDataFile.toString(), r.bytes, r.partitions, r.rows,
                r.rows * valueColumns, wall, wall, sampler.cpu, sampler.alloc, proc,
                "all Java threads; " + r.sstables + " sstables");
        result.fillGcCount = gcCount;
        result.fillGcMillis = gcMillis;
        result.dir = runDir;
        return result;
    }
}

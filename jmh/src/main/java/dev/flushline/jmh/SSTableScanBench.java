package dev.flushline.jmh;

import dev.flushline.data.PartitionUpdate;
import dev.flushline.flush.FlushJob;
import dev.flushline.jmh.Workloads.MemtableKind;
import dev.flushline.jmh.Workloads.UpdateShape;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.SSTableCursor;
import dev.flushline.sstable.SSTableFiles;
import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.cql3.statements.schema.CreateTableStatement;
import org.apache.cassandra.db.rows.Cell;
import org.apache.cassandra.db.rows.Row;
import org.apache.cassandra.db.rows.Unfiltered;
import org.apache.cassandra.db.rows.UnfilteredRowIterator;
import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.io.sstable.Descriptor;
import org.apache.cassandra.io.sstable.ISSTableScanner;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.schema.TableMetadata;
import org.apache.cassandra.schema.TableMetadataRef;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * <b>Question.</b> How fast does {@link SSTableCursor} scan a whole sstable, touching every cell's
 * timestamp and value, compared with cassandra-all 5.0.5's {@code ISSTableScanner} over the same
 * files doing the same work?
 *
 * <p><b>Hypothesis.</b> Several times faster: the cursor decodes into reusable flyweights over one
 * window buffer and allocates nothing per partition, row or cell, while Cassandra's scanner builds
 * a partition iterator, a BTree row and a cell object per cell. Both read through the page cache
 * (the files were just written, and the first iterations warm it), so this compares decoding CPU,
 * not disk.
 *
 * <p><b>Shape.</b> {@code AverageTime} per full scan. The sstable is the bench workload
 * (cassandra-stress's {@code stress_table}: 10 rows per partition, 5 text values of 16 bytes)
 * flushed once by FlushJob in {@code @Setup(Level.Trial)}. Each benchmark returns the sum of every
 * cell's timestamp, value length and first value byte, so neither side can skip decoding; the two
 * sums are equal (checked in setup). Allocation: run with {@code -prof gc} and compare
 * {@code gc.alloc.rate.norm} per scan.
 *
 * <p><b>@Param axis.</b> {@code compression} ∈ {none, lz4} (16 KiB chunks); {@code rows} = 1 000 000.
 * {@code sstable}: instead of flushing its own, scan this existing sstable of the bench table (a Data.db, or a
 * folder holding exactly one, e.g. what {@code flushline bench --out DIR} kept); then {@code rows} and
 * {@code compression} are ignored (the file says whether it is compressed).
 *
 * <p><b>CPU.</b> Besides JMH's wall-clock score, each measured iteration prints the benchmark thread's CPU time
 * per scan and per row ({@code scan cpu: ...} lines in the fork's output): on a shared machine CPU time does not
 * count the time the thread was descheduled.
 *
 * <p><b>Run.</b> cassandra-all is not in benchmarks.jar (provided scope), so run with the comparison class path
 * that {@code scripts/flushline bench --against} builds: {@code java -cp
 * target/classes:<target/lib's jars but slf4j-*>:jmh/target/classes:$(cat jmh/target/compare.classpath)
 * org.openjdk.jmh.Main SSTableScanBench -f 1 -wi 3 -i 5 -prof gc} (profiles/2026-12-01-scan/README.md has the
 * command as run then, before Flushline logged through SLF4J). The classes rather than the jar, and lib's SLF4J
 * jars left out: Cassandra's logback 1.2 needs the SLF4J 1.7 line of the comparison class path, and the jar's
 * manifest class path would bring lib's SLF4J 2 back.
 *
 * <p><b>Last result.</b> 2026-12-04 22:51 UTC, 2 vCPU AMD EPYC VM, OpenJDK 17.0.15, quiet, in a node's JVM
 * ({@code -jvmArgs} with scripts/flushline's bench options), {@code -f 1 -wi 3 -i 5 -w 6s -r 6s -prof gc} on the default
 * {@code flushline bench} sstable (2.6 M rows, LZ4), main at 794d868: thread CPU per row, medians of 5 iterations,
 * cursor 75.9 ns vs Cassandra's scanner 397.5 ns (x5.24; the goal of at most 1/5 of Cassandra's is met, as at 20:15,
 * main at be47a51: 76.9 vs 409.8 ns, x5.33); allocation per scan 0.22 MiB vs 1,797 MiB (goal at most 1 MiB: met).
 * Details in profiles/2026-12-04-plain-cells/README.md and profiles/2026-12-04-cursor-records/README.md.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Thread)
@Fork(jvmArgsAppend = {"-Xms2g", "-Xmx2g",
        "--add-opens", "java.base/java.io=ALL-UNNAMED", "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
        "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED", "--add-opens", "java.base/jdk.internal.ref=ALL-UNNAMED",
        "--add-opens", "java.base/java.lang=ALL-UNNAMED", "--add-opens", "java.base/java.nio=ALL-UNNAMED",
        "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED"})
public class SSTableScanBench {
    @Param({"none", "lz4"})
    public String compression;

    @Param({"1000000"})
    public int rows;

    @Param({""})
    public String sstable;

    private TableSchema schema;
    private Path outDir;
    private Path dataFile;
    private SSTableReader cassandraReader;

    /** Rows of the sstable (counted in setup), for CPU per row. */
    private long sstableRows;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        TableSchema base = Workloads.stressSchema();
        if (sstable.isEmpty()) {
            schema = compression.equals("lz4") ? base.withCompression(TableSchema.Compression.LZ4, 16 * 1024)
                    : base.withCompression(TableSchema.Compression.NONE, base.chunkLengthBytes());
            List<PartitionUpdate> updates = Workloads.inserts(schema, rows / Workloads.STRESS_ROWS_PER_PARTITION,
                    Workloads.STRESS_ROWS_PER_PARTITION, Workloads.STRESS_VALUE_BYTES, UpdateShape.PARTITION, 42);
            outDir = Files.createTempDirectory("flushline-jmh-scan");
            Memtable m = Workloads.sealedMemtable(MemtableKind.SKIPLIST, AllocationMode.UNSLABBED_HEAP, schema, updates);
            try {
                FlushJob.run(m, FlushJob.Options.simple(outDir));
            } finally {
                Workloads.discard(m);
            }
            dataFile = findData(outDir);
        } else {
            Path given = Path.of(sstable);
            dataFile = Files.isDirectory(given) ? findData(given) : given;
            schema = SSTableFiles.of(dataFile).isCompressed()
                    ? base.withCompression(TableSchema.Compression.LZ4, 16 * 1024)
                    : base.withCompression(TableSchema.Compression.NONE, base.chunkLengthBytes());
        }
        sstableRows = countRows();
        DatabaseDescriptor.clientInitialization();
        TableMetadata table = CreateTableStatement.parse(Workloads.STRESS_CQL, "stress")
                .partitioner(Murmur3Partitioner.instance).build();
        Descriptor d = Descriptor.fromFileWithComponent(new org.apache.cassandra.io.util.File(dataFile.toAbsolutePath()),
                table.keyspace, table.name).left;
        cassandraReader = SSTableReader.openNoValidation(null, d, TableMetadataRef.forOfflineTools(table));
        long ours = flushlineCursor(), theirs = cassandraScanner();
        if (ours != theirs) throw new IllegalStateException("scans disagree: flushline " + ours + ", cassandra " + theirs);
    }

    private static Path findData(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            List<Path> found = s.filter(p -> p.getFileName().toString().endsWith("-Data.db")).collect(java.util.stream.Collectors.toList());
            if (found.size() != 1) throw new IllegalStateException("expected one Data.db under " + dir + ", found " + found);
            return found.get(0);
        }
    }

    private long countRows() throws IOException {
        long n = 0;
        try (SSTableCursor c = SSTableCursor.open(SSTableFiles.of(dataFile), schema)) {
            int kind;
            while ((kind = c.advance()) != SSTableCursor.END) {
                if (kind == SSTableCursor.ROW) n++;
            }
        }
        return n;
    }

    private static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();
    private long iterationCpu0;
    private long scans;

    @Setup(Level.Iteration)
    public void iterationStart() {
        scans = 0;
        iterationCpu0 = THREADS.getCurrentThreadCpuTime();
    }

    /** Runs on the benchmark thread (Scope.Thread): its CPU time over the iteration, per scan and per row. */
    @TearDown(Level.Iteration)
    public void iterationEnd() {
        long cpu = THREADS.getCurrentThreadCpuTime() - iterationCpu0;
        if (scans > 0) {
            System.out.printf(java.util.Locale.ROOT, "%nscan cpu: %.1f ms/scan, %.1f ns/row (%d scans of %d rows, file %s)%n",
                    cpu / 1e6 / scans, (double) cpu / scans / Math.max(1, sstableRows), scans, sstableRows, dataFile);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        if (cassandraReader != null) cassandraReader.selfRef().release();
        if (outDir != null) Workloads.deleteTree(outDir, true);
    }

    @Benchmark
    public long flushlineCursor() throws IOException {
        scans++;
        long sum = 0;
        try (SSTableCursor c = SSTableCursor.open(SSTableFiles.of(dataFile), schema)) {
            int kind;
            while ((kind = c.advance()) != SSTableCursor.END) {
                if (kind != SSTableCursor.ROW) continue;
                SSTableCursor.Row r = c.row();
                byte[] b = c.buffer();
                for (int k = 0; k < r.cellCount(); k++) {
                    SSTableCursor.Cell cell = r.cell(k);
                    int len = cell.valueLength();
                    sum += cell.timestamp() + len + (len > 0 ? b[cell.valueOffset()] : 0);
                }
            }
        }
        return sum;
    }

    @Benchmark
    public long cassandraScanner() {
        scans++;
        long sum = 0;
        try (ISSTableScanner scanner = cassandraReader.getScanner()) {
            while (scanner.hasNext()) {
                try (UnfilteredRowIterator partition = scanner.next()) {
                    while (partition.hasNext()) {
                        Unfiltered u = partition.next();
                        if (!u.isRow()) continue;
                        for (Cell<?> cell : ((Row) u).cells()) {
                            ByteBuffer v = cell.buffer();
                            int len = v.remaining();
                            sum += cell.timestamp() + len + (len > 0 ? v.get(v.position()) : 0);
                        }
                    }
                }
            }
        }
        return sum;
    }
}

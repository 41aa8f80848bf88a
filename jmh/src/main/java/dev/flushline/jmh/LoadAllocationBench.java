package dev.flushline.jmh;

import dev.flushline.bench.BenchCommand;
import dev.flushline.bench.BenchInputs;
import dev.flushline.data.InsertBuffer;
import dev.flushline.data.Mutation;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.ops.CsvOptions;
import dev.flushline.ops.CsvReader;
import dev.flushline.ops.MutationSource;
import dev.flushline.ops.OperationDecoder;
import dev.flushline.ops.OperationReader;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * <b>Question.</b> How many bytes does {@code flushline load} allocate per input row on each of its two
 * threads, for JSON Lines and for CSV, now that plain inserts of both formats are decoded into reused
 * {@link InsertBuffer}s (JSON Lines from jackson's tokens, CSV records in place in the reader's window of
 * chars) and the memtable writes a new row's record straight from the buffer? Goal: at most 64 B per row
 * for the whole load, in both formats. Allocation only: read the {@code gc.alloc.rate.norm} lines of
 * {@code -prof gc}, not the scores (the machine is shared; time is not what this asks). Allocation per
 * operation does not depend on how busy the CPU is.
 *
 * <p><b>Input.</b> The bench workload ({@link BenchInputs}: one insert per row, pk bigint, ck int, five
 * 16-character text values), {@code lines} rows held as one UTF-8 byte array, in the {@code format} of the
 * run: JSON Lines ({@link BenchInputs#jsonLines}, ~200 bytes a line), or CSV with a header line
 * ({@link BenchInputs#csvLines}, ~100 bytes a line, values holding a comma, quote or backslash quoted with
 * {@code \"} and {@code \\} escaped; loaded as {@code --format csv --timestamp} loads it, every row at the
 * workload's first timestamp). One operation reads all of them; divide {@code gc.alloc.rate.norm} by
 * {@code lines} for bytes per row.
 *
 * <p><b>What is measured.</b>
 * <ul>
 *   <li>{@code readToBuffers}: the read-ahead thread's work: an {@link OperationReader} or a {@link CsvReader}
 *       over the bytes (line split, UTF-8 check, tokens, decode), each row into one reused InsertBuffer, as
 *       {@code ReadAhead}'s recycled batches hand it. Expected: next to nothing per row (the reader's own
 *       buffers, once per operation).</li>
 *   <li>{@code readToMutations}: the same reader through {@code next()}, which builds the Mutation of Row
 *       and Cell objects from the buffer: what the commit log path (durable load) still takes, and what
 *       the fast paths took before the buffers.</li>
 *   <li>{@code loadIntoMemtable}: both threads' work on one thread: read into the buffer, then
 *       {@code Memtable.apply(InsertBuffer)} into a fresh memtable ({@code allocation}), sealed and
 *       discarded at the end of the operation. What a row leaves in the memtable counts as allocation
 *       here: its record in a heap slab ({@code heap_buffers}: the value bytes themselves), its skip-list
 *       node and clustering arrays, and per partition the key and partition objects.</li>
 * </ul>
 *
 * <p><b>@Param axis.</b> {@code format} in {jsonl, csv}; {@code lines} (default 20000: 2,000 partitions of 10
 * rows); {@code allocation} in {heap_buffers (the load's default), offheap_objects} (only
 * {@code loadIntoMemtable} depends on it).
 *
 * <p><b>Run.</b> {@code mvn -q install -DskipTests -Dflushline.skipSparkModule=true -DbuildDir=target-x},
 * then {@code cd jmh && mvn -q compile dependency:build-classpath -Dmdep.outputFile=target/jmh.classpath}
 * and {@code java -cp target/classes:$(cat target/jmh.classpath) org.openjdk.jmh.Main LoadAllocationBench
 * -prof gc} (fork, warm-up and measurement are set below; {@code -p format=csv} for CSV alone).
 *
 * <p><b>Last result</b> (2026-12-03, 2 vCPU VM shared with other builds, one fork, allocation only, JSON
 * Lines only: the format axis came later; the table and what is left per row are in
 * {@code profiles/2026-12-03-decode/README.md}): readToBuffers 3.9 B per row (the reader made once per
 * operation; nothing per line), readToMutations 668 B per row, loadIntoMemtable 277 B per row in
 * heap_buffers (the record in its heap slab, the row's node and clustering, the partition's objects) and
 * 120 B per row in offheap_objects. Before (main at e8077c2, the value model per line, measured as
 * {@code JsonLinesParseBench.oursFileToMutations}): 2,603 B per row on the reading side alone. CSV: not yet
 * measured here; {@code CsvReaderAllocationTest} asserts the reading side's steady state per line (the
 * reader's figure before its fast path: 1,960 B per row for the whole load, {@code profiles/2026-12-03-load}).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 3, time = 2)
public class LoadAllocationBench {
    @Param({"jsonl", "csv"})
    public String format;

    @Param({"20000"})
    public int lines;

    @Param({"heap_buffers", "offheap_objects"})
    public String allocation;

    private TableSchema schema;
    private boolean csv;
    private long nowSeconds;
    private byte[] file;
    private AllocationMode mode;
    private InsertBuffer buffer;
    private Memtable memtable;

    @Setup(Level.Trial)
    public void buildLines() throws Exception {
        BenchCommand.Workload w = BenchCommand.Setup.parse(new String[0]).workload;
        schema = CqlParser.parse(w.cql());
        nowSeconds = BenchCommand.BASE_TIMESTAMP_MICROS / 1_000_000;
        StringBuilder all = new StringBuilder(lines * 220);
        csv = format.equals("csv");
        if (csv) BenchInputs.csvLines(w, lines, line -> all.append(line).append('\n'));
        else BenchInputs.jsonLines(w, lines, line -> all.append(line).append('\n'));
        file = all.toString().getBytes(StandardCharsets.UTF_8);
        mode = AllocationMode.fromCliName(allocation);
        buffer = new InsertBuffer(schema);
        // Every row of the workload must take the fast path, or this measures something else.
        MutationSource reader = reader();
        long n = 0;
        Object item;
        while ((item = reader.next(buffer)) != null) {
            if (item != buffer) throw new IllegalStateException("line " + reader.lineNumber() + " did not come in the buffer");
            n++;
        }
        if (n != lines) throw new IllegalStateException("the reader returned " + n + " rows for " + lines + " lines");
    }

    private MutationSource reader() throws Exception {
        if (!csv) return new OperationReader(schema, new ByteArrayInputStream(file), "bench.jsonl", nowSeconds);
        return new CsvReader(new ByteArrayInputStream(file), "bench.csv", new OperationDecoder(schema, nowSeconds),
                CsvOptions.builder(BenchCommand.BASE_TIMESTAMP_MICROS).build());
    }

    @Benchmark
    public void readToBuffers(Blackhole bh) throws Exception {
        MutationSource reader = reader();
        final InsertBuffer b = buffer;
        Object item;
        while ((item = reader.next(b)) != null) bh.consume(item);
    }

    @Benchmark
    public void readToMutations(Blackhole bh) throws Exception {
        MutationSource reader = reader();
        Mutation m;
        while ((m = reader.next()) != null) bh.consume(m);
    }

    @Benchmark
    public void loadIntoMemtable() throws Exception {
        MutationSource reader = reader();
        final InsertBuffer b = buffer;
        final Memtable m = new SkipListMemtable(schema, mode);
        memtable = m;
        Object item;
        while ((item = reader.next(b)) != null) {
            boolean took = item == b ? m.apply(b) : m.apply(((Mutation) item).update());
            if (!took) throw new IllegalStateException("memtable refused a write");
        }
        Workloads.discard(m);
        memtable = null;
    }

    @TearDown(Level.Iteration)
    public void discard() {
        Workloads.discard(memtable);
        memtable = null;
    }
}

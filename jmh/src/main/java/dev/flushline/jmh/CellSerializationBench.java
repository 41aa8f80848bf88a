package dev.flushline.jmh;

import dev.flushline.data.Cell;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.Row;
import dev.flushline.flush.FlushWriter;
import dev.flushline.sstable.RowSerializer;
import dev.flushline.sstable.StatsCollector;
import dev.flushline.io.FixedBuffer;
import dev.flushline.io.NativeMemory;
import dev.flushline.jmh.ExperimentCells.ArrayXCell;
import dev.flushline.jmh.ExperimentCells.BufferXCell;
import dev.flushline.jmh.ExperimentCells.NativeXCell;
import dev.flushline.jmh.ExperimentCells.XCell;
import dev.flushline.jmh.ExperimentCells.XRow;
import dev.flushline.jmh.Workloads.MemtableKind;
import dev.flushline.jmh.Workloads.UpdateShape;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.SerializationHeader;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * <b>Question.</b> Does splitting the cell call sites by concrete class
 * ({@link SplitCallSiteRowSerializer}: native, then array, then buffer) beat a Cassandra-style
 * serializer with one shared virtual call per cell accessor ({@link SharedCallSiteRowSerializer}),
 * once all three cell classes have been seen at those sites, and what does it cost when only one
 * class was ever seen? This is the idea behind Flushline's split call sites, kept as an experiment
 * with its own three cell classes ({@link ExperimentCells}): production has one final cell class
 * now (memtables hold row records), and its flush splits its one polymorphic site by row source.
 *
 * <p><b>Hypothesis.</b> Polluted, the shared-site baseline pays a vtable call for each of
 * {@code timestamp/ttl/localDeletionTime/valueLength/copyValueTo}, twice per cell (size pass and
 * write pass), with no inlining; the split path inlines every accessor into a field or native
 * load. The split path should win clearly on small values (16 B, where per-cell overhead
 * dominates) and less on large ones (256 B, where the copy dominates). Clean (one class seen),
 * C2 inlines the baseline's monomorphic sites behind a class guard, and the two should be about
 * equal. The buffer class is expected to be the slowest on both paths (ByteBuffer bounds checks on
 * the copy).
 *
 * <p><b>What is measured.</b> One op = one cell; an invocation serializes 1280 cells
 * ({@code 1280 / cellsPerRow} rows) into a {@link FixedBuffer}: per row {@code rowSize} then
 * {@code writeRow}, keeping min/max cell statistics as the flush's {@link StatsCollector} does.
 * Rows come from a sealed unslabbed_heap memtable (INSERT rows of {@code pk bigint, ck int,
 * c0..cN text}, one row per partition, in flush order), their cells rebuilt as the chosen class
 * ({@link #asCellClass}), with the header from {@code FlushWriter.headerFor(memtable)}. The trial
 * setup checks that both serializers write, for every class, exactly the bytes Flushline's own
 * {@link RowSerializer} writes for the same rows, so the experiment does the real work.
 *
 * <p><b>Megamorphism.</b> {@code profile=POLLUTED}: the trial setup runs both serializers over
 * rows of all three cell classes (3000 passes each, interleaved) before JMH's warmup, so each
 * accessor site's type profile holds three classes and C2 compiles accordingly; then only the
 * chosen class is measured. {@code profile=CLEAN}: only the chosen class is ever seen in the JVM.
 * This relies on JMH forking per parameter combination: do not run with {@code -f 0}.
 *
 * <p><b>@Param axis.</b> {@code cellClass} ∈ {ARRAY, BUFFER, NATIVE} × {@code valueSize} ∈ {16, 256}
 * bytes × {@code cellsPerRow} ∈ {5, 40} × {@code profile} ∈ {POLLUTED, CLEAN}; methods
 * {@code split} (RowSerializer) and {@code sharedCallSite} (baseline), side by side in one run.
 *
 * <p><b>Run.</b> {@code java -jar jmh/target/benchmarks.jar CellSerializationBench -f 1 -wi 3 -i 5 -w 1s -r 1s -prof gc}
 *
 * <p><b>Last result</b> (2026-11-30, 2-core AMD EPYC VM shared with other workers, OpenJDK
 * 17.0.15; ns per cell, lower is better; ratios = baseline / split in the same run; raw table in
 * profiles/2026-11-30-jmh/README.md). Measured in the experiment's earlier form, when the split
 * side was Flushline's RowSerializer over Flushline's own three cell classes; the same code shape,
 * not re-run since it moved into this module:
 * <pre>
 * run2: -p valueSize=16 -f 1 -wi 3 -i 8 -w 1s -r 1s -prof gc        median ns/cell (best iteration)
 *                          split          sharedCallSite   shared/split
 * ARRAY  16B  5/row POLL   26.6 (23.8)    65.3 (33.8)      2.46
 * BUFFER 16B  5/row POLL   28.8 (27.4)   123.6 (80.2)      4.29
 * NATIVE 16B  5/row POLL   27.2 (23.9)    59.0 (48.8)      2.17
 * ARRAY  16B 40/row POLL   22.9 (20.3)    75.1 (43.4)      3.28
 * BUFFER 16B 40/row POLL   19.3 (18.4)    33.5 (31.0)      1.73
 * NATIVE 16B 40/row POLL   24.3 (20.2)    60.3 (48.0)      2.49
 * CLEAN (same order)       22.3 / 42.3 / 36.9 / 19.7 / 22.3 / 36.8  vs  43.0 / 38.3 / 37.1 / 33.5 / 19.1 / 23.7
 * run1 (all params, -i 5): POLLUTED shared/split 1.28-2.53 in all 12 combinations (256 B values:
 * 1.28-2.53, largest with 5 cells/row); CLEAN 0.43-1.61, no consistent winner.
 * Polluted: split wins every combination in both runs. Clean: within noise, except NATIVE where
 * split was slower in both runs (unexplained, see README). 0 B/op allocated on both paths.
 * Noise: iterations varied up to 3x (other workers' load 5-11 on 2 cores); trust ratios only.
 * </pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class CellSerializationBench {
    static final int CELLS_PER_OP = 1280;
    static final int POLLUTION_PASSES = 3000;

    public enum CellClass {
        ARRAY(ArrayXCell.class),
        BUFFER(BufferXCell.class),
        NATIVE(NativeXCell.class);

        final Class<? extends XCell> cls;

        CellClass(Class<? extends XCell> cls) {
            this.cls = cls;
        }
    }

    public enum Profile { POLLUTED, CLEAN }

    @Param({"ARRAY", "BUFFER", "NATIVE"})
    public CellClass cellClass;

    @Param({"16", "256"})
    public int valueSize;

    @Param({"5", "40"})
    public int cellsPerRow;

    @Param({"POLLUTED", "CLEAN"})
    public Profile profile;

    /** Everything one cell class needs: its rows, both serializers, the reference bytes and an output buffer. */
    static final class Fixture {
        final Memtable memtable;
        final XRow[] rows;
        final SplitCallSiteRowSerializer split;
        final SharedCallSiteRowSerializer baseline;
        final FixedBuffer out;
        /** What Flushline's own RowSerializer writes for these rows. */
        final byte[] reference;
        long nativeAddress, nativeBytes;

        Fixture(TableSchema schema, List<PartitionUpdate> updates, CellClass cellClass) {
            memtable = Workloads.sealedMemtable(MemtableKind.SKIPLIST, AllocationMode.UNSLABBED_HEAP, schema, updates);
            Row[] source = Workloads.rowsInFlushOrder(memtable);
            rows = asCellClass(source, cellClass, this);
            for (XRow r : rows) {
                for (XCell c : r.cells) {
                    if (c.getClass() != cellClass.cls) throw new IllegalStateException("expected " + cellClass.cls + ", got " + c.getClass());
                }
            }
            SerializationHeader header = FlushWriter.headerFor(memtable);
            RowSerializer production = new RowSerializer(header, new StatsCollector(memtable.comparator()));
            split = new SplitCallSiteRowSerializer(header);
            baseline = new SharedCallSiteRowSerializer(header);
            long total = 0, prev = 0;
            for (Row r : source) {
                int size = production.rowSize(r, prev);
                total += size;
                prev = size;
            }
            out = new FixedBuffer((int) total);
            prev = 0;
            for (Row r : source) {
                int size = production.rowSize(r, prev);
                production.writeRow(out, r, prev, size);
                prev = size;
            }
            reference = Arrays.copyOf(out.array(), out.position());
        }
    }

    /**
     * The rows with their cells as {@code cellClass}: an array cell over the value's own array, a
     * buffer cell over a slice of one heap buffer, a native cell over a record in one native region.
     */
    static XRow[] asCellClass(Row[] rows, CellClass cellClass, Fixture owner) {
        long bytes = 0;
        for (Row r : rows) for (Cell c : r.cells()) if (c != null) bytes += NativeXCell.recordLength(c.valueLength());
        java.nio.ByteBuffer slab = java.nio.ByteBuffer.allocate((int) bytes);
        long address = cellClass == CellClass.NATIVE ? NativeMemory.allocate(Math.max(1, bytes)) : 0;
        owner.nativeAddress = address;
        owner.nativeBytes = Math.max(1, bytes);
        long next = address;
        XRow[] out = new XRow[rows.length];
        for (int i = 0; i < rows.length; i++) {
            Row r = rows[i];
            if (r.isStatic() || !r.hasLiveness() || r.isLivenessExpiring() || !r.deletion().isLive() || r.complex().length != 0) {
                throw new IllegalArgumentException("the experiment takes plain INSERT rows only: " + r);
            }
            XCell[] cells = new XCell[r.cells().length];
            for (int j = 0; j < cells.length; j++) {
                Cell a = r.cells()[j];
                if (a == null) continue;
                switch (cellClass) {
                    case ARRAY:
                        cells[j] = new ArrayXCell(a.timestamp(), a.ttl(), a.localDeletionTime(), a.value());
                        break;
                    case NATIVE:
                        NativeXCell.write(next, a.timestamp(), a.ttl(), a.localDeletionTime(), a.value());
                        cells[j] = new NativeXCell(next);
                        next += NativeXCell.recordLength(a.valueLength());
                        break;
                    default: {
                        java.nio.ByteBuffer value = slab.slice(slab.position(), a.valueLength());
                        value.put(0, a.value());
                        slab.position(slab.position() + a.valueLength());
                        cells[j] = new BufferXCell(a.timestamp(), a.ttl(), a.localDeletionTime(), value);
                    }
                }
            }
            out[i] = new XRow(r.clustering(), r.livenessTimestamp(), cells);
        }
        return out;
    }

    private Fixture fixture;
    private final Map<CellClass, Fixture> all = new EnumMap<>(CellClass.class);

    @Setup(Level.Trial)
    public void setUp() {
        if (CELLS_PER_OP % cellsPerRow != 0) throw new IllegalArgumentException("cellsPerRow must divide " + CELLS_PER_OP);
        TableSchema schema = Workloads.textColumnsSchema(cellsPerRow);
        List<PartitionUpdate> updates = Workloads.inserts(schema, CELLS_PER_OP / cellsPerRow, 1, valueSize, UpdateShape.PARTITION, 7);
        for (CellClass c : CellClass.values()) {
            if (profile == Profile.POLLUTED || c == cellClass) all.put(c, new Fixture(schema, updates, c));
        }
        fixture = all.get(cellClass);
        for (Fixture f : all.values()) {
            byte[] a = Arrays.copyOf(f.out.array(), runSplit(f));
            byte[] b = Arrays.copyOf(f.out.array(), runBaseline(f));
            if (!Arrays.equals(a, f.reference)) throw new IllegalStateException("the split serializer's bytes differ from RowSerializer's");
            if (!Arrays.equals(b, f.reference)) throw new IllegalStateException("the shared serializer's bytes differ from RowSerializer's");
        }
        if (profile == Profile.POLLUTED) {
            for (int pass = 0; pass < POLLUTION_PASSES; pass++) {
                for (Fixture f : all.values()) {
                    runSplit(f);
                    runBaseline(f);
                }
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        for (Fixture f : all.values()) {
            Workloads.discard(f.memtable);
            if (f.nativeAddress != 0) NativeMemory.free(f.nativeAddress, f.nativeBytes);
        }
        all.clear();
    }

    static int runSplit(Fixture f) {
        final FixedBuffer out = f.out;
        final SplitCallSiteRowSerializer rs = f.split;
        final XRow[] rows = f.rows;
        out.clear();
        long prev = 0;
        for (int i = 0; i < rows.length; i++) {
            int size = rs.rowSize(rows[i], prev);
            rs.writeRow(out, rows[i], prev, size);
            prev = size;
        }
        return out.position();
    }

    static int runBaseline(Fixture f) {
        final FixedBuffer out = f.out;
        final SharedCallSiteRowSerializer bs = f.baseline;
        final XRow[] rows = f.rows;
        out.clear();
        long prev = 0;
        for (int i = 0; i < rows.length; i++) {
            int size = bs.rowSize(rows[i], prev);
            bs.writeRow(out, rows[i], prev, size);
            prev = size;
        }
        return out.position();
    }

    @Benchmark
    @OperationsPerInvocation(CELLS_PER_OP)
    public int split() {
        return runSplit(fixture);
    }

    @Benchmark
    @OperationsPerInvocation(CELLS_PER_OP)
    public int sharedCallSite() {
        return runBaseline(fixture);
    }
}

package dev.flushline.flush;

import dev.flushline.data.Cell;
import dev.flushline.data.ComplexColumn;
import dev.flushline.data.DeletionTime;
import dev.flushline.data.PartitionKey;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.data.Row;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.CountingMemtable;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.TableDirectory;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a flush reports as its CPU time and allocation covers every pass it makes over the memtable, on every
 * thread: the walk that counts partitions per range as well as the writing. A fake per-thread meter is charged
 * a fixed cost for each partition any iterator hands out, so the expected totals are exact counts, not timings.
 */
class FlushCostTest {
    static final long CPU_PER_VISIT = 1000, BYTES_PER_VISIT = 64;
    static final int PARTITIONS = 300;

    @TempDir
    Path tmp;

    /** Per-thread visit counts: what the fake meter reads on the thread that asks. */
    private final ThreadLocal<long[]> visits = ThreadLocal.withInitial(() -> new long[1]);

    private final FlushJob.ThreadMeter meter = new FlushJob.ThreadMeter() {
        @Override
        public long cpuNanos() {
            return visits.get()[0] * CPU_PER_VISIT;
        }

        @Override
        public long allocatedBytes() {
            return visits.get()[0] * BYTES_PER_VISIT;
        }
    };

    private CountingMemtable filled() {
        TableSchema schema = CqlParser.parse("CREATE TABLE ks.c (pk bigint, ck int, v text, PRIMARY KEY (pk, ck))");
        CountingMemtable m = new CountingMemtable(schema, AllocationMode.HEAP_BUFFERS, () -> visits.get()[0]++);
        Random r = new Random(13);
        for (int p = 0; p < PARTITIONS; p++) {
            List<Row> rows = new ArrayList<>();
            for (int c = 0; c < 3; c++) {
                long ts = 1_700_000_000_000_000L + p;
                rows.add(new Row(false, new byte[][] {ByteBuffer.allocate(4).putInt(c).array()}, ts, 0, Cell.NO_DELETION_TIME,
                        DeletionTime.LIVE, new Cell[] {Cell.live(ts, ("v" + p + "-" + c).getBytes(), null)},
                        new ComplexColumn[0]));
            }
            m.apply(new PartitionUpdate(PartitionKey.of(ByteBuffer.allocate(8).putLong(r.nextLong()).array()), DeletionTime.LIVE,
                    List.of(), null, rows));
        }
        m.seal();
        return m;
    }

    @ParameterizedTest(name = "ranges={0} threads={1}")
    @CsvSource({"1, 1", "1, 2", "4, 1", "4, 2"})
    void reportedCostCoversTheRangeWalkAndTheWrites(int ranges, int threads) throws Exception {
        CountingMemtable m = filled();
        try {
            FlushJob.Options o = FlushJob.Options.builder(tmp).ranges(ranges).flushThreads(threads).pipelined(false).build();
            TableDirectory dir = TableDirectory.open((m.schema()).directoryUnder(tmp));
            List<FlushOutcome> outcomes = FlushJob.run(m, o, dir, null, new FlushJob.Start(meter));

            long cpu = 0, alloc = 0, partitions = 0;
            for (FlushOutcome out : outcomes) {
                cpu += out.cpuNanos;
                alloc += out.allocatedBytes;
                partitions += out.result.partitions;
            }
            assertEquals(PARTITIONS, partitions);
            // One range needs no walk (the memtable knows its partition count): each partition is visited
            // once, by the writer. Several ranges are walked once to count their partitions, then written.
            long expectedVisits = ranges == 1 ? PARTITIONS : 2L * PARTITIONS;
            assertEquals(ranges == 1 ? 0 : 2 * ranges, m.rangeIteratorsOpened(), "range iterators opened");
            assertEquals(expectedVisits * CPU_PER_VISIT, cpu, "cpu summed over " + outcomes.size() + " sstables");
            assertEquals(expectedVisits * BYTES_PER_VISIT, alloc, "allocation summed over " + outcomes.size() + " sstables");
            if (ranges > 1) {
                // The walk ran on the calling thread: the first sstable carries it on top of its own writing.
                FlushOutcome first = outcomes.get(0);
                assertTrue(first.cpuNanos >= (PARTITIONS + first.result.partitions) * CPU_PER_VISIT,
                        "first sstable's cpu " + first.cpuNanos + " includes the walk");
            }
        } finally {
            m.discard();
        }
    }
}

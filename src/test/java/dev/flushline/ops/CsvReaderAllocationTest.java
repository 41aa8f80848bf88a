package dev.flushline.ops;

import dev.flushline.bench.BenchCommand;
import dev.flushline.bench.BenchInputs;
import dev.flushline.data.InsertBuffer;
import dev.flushline.data.Mutation;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bench workload's CSV ({@link BenchInputs#csvLines}, the file {@code scripts/load-against --format csv}
 * loads) is read by the fast path on every line, and read so it allocates nothing per line in the steady
 * state: its window of chars, its field scratch and the insert buffer are reused from line to line.
 *
 * <p>Measured with the JVM's per-thread allocation counter on the calling thread, as the load's read-ahead
 * thread reads (each row into one reused InsertBuffer): the bytes of reading a large input less those of a
 * small one, per extra line, so that what a reader costs once (its buffers, the jackson parser of the header
 * line) cancels. Bound: 8 B per line. The goal for the whole load is 64 B per row, of which the memtable keeps
 * most (a row's record, node and clustering); one object per line would cost 16 B or more, so a bound of 8 fails
 * for any of them while it allows for what grows slowly with the input (nothing is expected to). Measured:
 * see the line the test prints (0.0 B per line on JDK 17, 2026-12-04).
 */
class CsvReaderAllocationTest {
    static final BenchCommand.Workload WORKLOAD = BenchCommand.Setup.parse(new String[0]).workload;
    static final TableSchema SCHEMA = CqlParser.parse(WORKLOAD.cql());
    static final long NOW = BenchCommand.BASE_TIMESTAMP_MICROS / 1_000_000;

    static byte[] benchCsv(int rows) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream(rows * 110);
        BenchInputs.csvLines(WORKLOAD, rows, line -> {
            out.writeBytes(line.toString().getBytes(StandardCharsets.UTF_8));
            out.write('\n');
        });
        return out.toByteArray();
    }

    static CsvReader reader(byte[] csv, boolean fast) throws Exception {
        return new CsvReader(new ByteArrayInputStream(csv), "bench.csv", new OperationDecoder(SCHEMA, NOW),
                CsvOptions.builder(BenchCommand.BASE_TIMESTAMP_MICROS).build(), CsvReader.MAX_FIELD_CHARS, fast);
    }

    @Test
    void everyLineOfTheBenchWorkloadTakesTheFastPath() throws Exception {
        int rows = 20_000;
        byte[] csv = benchCsv(rows);
        CsvReader fast = reader(csv, true), slow = reader(csv, false);
        InsertBuffer buffer = fast.newInsertBuffer();
        int quoted = 0;
        for (int i = 0; i < rows; i++) {
            Object item = fast.next(buffer);
            assertSame(buffer, item, "line " + fast.lineNumber() + " did not come in the buffer");
            Mutation m = slow.next();
            assertEquals(m.toString(), buffer.toMutation().toString(), "line " + (i + 2));
            assertEquals(slow.lineNumber(), fast.lineNumber());
        }
        assertEquals(null, fast.next(buffer));
        assertEquals(null, slow.next());
        assertEquals(rows, fast.fastTaken());
        for (byte b : csv) if (b == '"') quoted++;
        // the workload's values hold commas, quotes and backslashes: quoting and escapes are on the fast path too
        assertTrue(quoted > rows / 10, quoted + " quotes in " + rows + " lines");
    }

    /** Bytes allocated on this thread reading every row of {@code csv} into one reused buffer. */
    static long allocatedReading(byte[] csv, int rows) throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        long before = mx.getThreadAllocatedBytes(tid);
        CsvReader reader = reader(csv, true);
        InsertBuffer buffer = reader.newInsertBuffer();
        long n = 0;
        while (reader.next(buffer) != null) n++;
        long allocated = mx.getThreadAllocatedBytes(tid) - before;
        assertEquals(rows, n);
        assertEquals(rows, reader.fastTaken());
        return allocated;
    }

    @Test
    void steadyStateAllocatesNothingPerLine() throws Exception {
        int smallRows = 20_000, largeRows = 120_000;
        byte[] small = benchCsv(smallRows), large = benchCsv(largeRows);
        for (int i = 0; i < 3; i++) allocatedReading(small, smallRows); // warm up: class loading, JIT
        long s = allocatedReading(small, smallRows);
        long l = allocatedReading(large, largeRows);
        double perLine = (double) (l - s) / (largeRows - smallRows);
        String what = smallRows + " lines: " + s + " bytes; " + largeRows + " lines: " + l + " bytes; "
                + String.format("%.2f", perLine) + " B per extra line (" + String.format("%.1f", (double) s / smallRows)
                + " B per line of the small input, its reader's fixed cost included)";
        System.out.println(what);
        assertTrue(perLine < 8, what);
    }
}

package dev.flushline.writer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Sorted mode allocates no object per row or value in the steady state: writing five times the
 * rows (the bulk-writer benchmark's table: bigint key, int clustering, five texts, through
 * {@code addRow(Object...)} with one reused argument array) allocates only a little more on the
 * writing thread, under 4 bytes per extra row, and under 16 bytes a row all told (CQLSSTableWriter
 * allocates about 2 KB a row for the same rows). One object per row or per value would add 16 bytes
 * or more for each. Measured with the JVM's per-thread allocation counter; the sstable's I/O thread
 * is not counted (it allocates per block, not per row).
 */
class SortedAllocationTest {
    static final String CREATE = "CREATE TABLE stress.stress_table (pk bigint, ck int, v1 text, v2 text, v3 text, "
            + "v4 text, v5 text, PRIMARY KEY (pk, ck))";
    static final String INSERT = "INSERT INTO stress.stress_table (pk, ck, v1, v2, v3, v4, v5) VALUES (?, ?, ?, ?, ?, ?, ?)";

    @TempDir
    Path tmp;

    long allocated(Path dir, Long[] pks, Integer[] cks, String[] pool) throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        Object[] row = new Object[7];
        long before = mx.getThreadAllocatedBytes(tid);
        try (FlushlineSSTableWriter w = FlushlineSSTableWriter.builder().inDirectory(dir).forTable(CREATE).using(INSERT).sorted()
                .withNowMillis(1_700_000_000_000L).build()) {
            int v = 0;
            for (Long pk : pks) {
                row[0] = pk;
                for (Integer ck : cks) {
                    row[1] = ck;
                    for (int i = 0; i < 5; i++) row[2 + i] = pool[(v++) & (pool.length - 1)];
                    w.addRow(row);
                }
            }
        }
        return mx.getThreadAllocatedBytes(tid) - before;
    }

    static Long[] pksInTokenOrder(int n) {
        Long[] pks = new Long[n];
        long[] tokens = new long[n];
        for (int i = 0; i < n; i++) {
            pks[i] = (long) i;
            byte[] k = java.nio.ByteBuffer.allocate(8).putLong(i).array();
            tokens[i] = SortedSSTableWriter.token(k, 0, 8);
        }
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) order[i] = i;
        Arrays.sort(order, Comparator.comparingLong(i -> tokens[i]));
        Long[] out = new Long[n];
        for (int i = 0; i < n; i++) out[i] = pks[order[i]];
        return out;
    }

    @Test
    void steadyStateAllocatesNothingPerRow() throws Exception {
        String[] pool = new String[1024];
        for (int i = 0; i < pool.length; i++) pool[i] = String.format("%016d", i * 7919L);
        Integer[] cks = new Integer[10];
        for (int c = 0; c < cks.length; c++) cks[c] = c;
        Long[] small = pksInTokenOrder(2_000), large = pksInTokenOrder(10_000);
        for (int i = 0; i < 3; i++) allocated(Files.createDirectories(tmp.resolve("warm" + i)), small, cks, pool); // class loading, JIT
        long s = allocated(Files.createDirectories(tmp.resolve("small")), small, cks, pool);
        long l = allocated(Files.createDirectories(tmp.resolve("large")), large, cks, pool);
        long extraRows = (long) (large.length - small.length) * cks.length;
        double perRow = (double) (l - s) / extraRows;
        String what = "small: " + s + " bytes for " + small.length * cks.length + " rows; large: " + l + " bytes for "
                + large.length * cks.length + " rows: " + String.format("%.2f", perRow) + " B per extra row";
        System.out.println(what);
        assertTrue(perRow < 4.0, what);
        // and all of it, fixed costs (the writer, its buffers, the sstable's files) included
        assertTrue(l < 16L * large.length * cks.length, what);
    }
}

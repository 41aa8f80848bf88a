package dev.flushline.bench;

import dev.flushline.cli.Args;
import dev.flushline.cli.UsageException;

import dev.flushline.flush.FlushJob;
import dev.flushline.flush.FlushOutcome;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code flushline ratios}: the two wall-time ratios of the flush pipeline, measured side by side
 * in one run on one filled memtable (flushing does not change a sealed memtable, so every variant
 * flushes the very same data):
 *
 * <ul>
 *   <li>parallel: 2 ranges on 2 flush threads vs 1 range on 1 thread;</li>
 *   <li>pipelined: our flush (serializer + I/O thread, all components, fsyncs) vs a plain FileChannel
 *       loop writing the same number of Data.db bytes from a 1 MiB buffer, then one fsync — the
 *       physical limit of the disk and page cache here;</li>
 *   <li>and, for reference, the same flush with the I/O done inline on the serializing thread.</li>
 * </ul>
 * Variants run interleaved, {@code --repeat} times, and the medians are compared, because this
 * machine is shared and absolute times drift.
 */
public final class RatiosCommand {
    private RatiosCommand() {}

    static final String HELP = String.join("\n",
            "Usage: flushline ratios [--partitions N] [--repeat N] [--compression none|lz4] [--allocation MODE] [--out DIR]",
            "",
            "Measures, side by side on one filled memtable of the bench workload (N partitions x 10 rows x",
            "5 text values of 16 bytes, in a skiplist memtable):",
            "  parallel  = wall(2 ranges, 2 flush threads) / wall(1 range, 1 thread)       (goal <= 0.6)",
            "  pipelined = wall(1-thread flush) / wall(FileChannel loop, same bytes, fsync)  (goal <= 1.5)",
            "  inline    = wall(flush with I/O on the serializing thread) / wall(1-thread flush)",
            "Variants run interleaved, --repeat times, after one untimed flush; medians are compared.",
            "",
            "  --partitions N         partitions of the workload (default 260000: about 2.6 million rows)",
            "  --repeat N             rounds of every variant (default 5)",
            "  --compression none|lz4 the table's compression (default none)",
            "  --allocation MODE      unslabbed_heap | heap_buffers | offheap_objects (default offheap_objects)",
            "  --out DIR              directory for the flushed files (default: a temp dir); created if needed,",
            "                         and DIR itself is deleted with everything in it at the end",
            "  --help                 this text",
            "",
            "Exit status: 0 ok, 1 usage, 2 internal or I/O failure.", "");

    public static final Set<String> OPTIONS = Set.of("partitions", "repeat", "compression", "allocation", "out");

    public static int run(String[] argv, InputStream stdin, PrintStream out, PrintStream err) {
        int partitions = 260_000, repeat = 5;
        String compression = "none";
        AllocationMode allocation = AllocationMode.OFFHEAP_OBJECTS;
        Path outDir = null;
        if (Args.wantsHelp(argv)) {
            out.print(HELP);
            return 0;
        }
        try {
            Args a = new Args("ratios", argv, OPTIONS, Set.of());
            if (a.has("partitions")) partitions = positive("--partitions", a.string("partitions", null));
            if (a.has("repeat")) repeat = positive("--repeat", a.string("repeat", null));
            compression = a.choice("compression", compression, "none", "lz4");
            if (a.has("allocation")) allocation = AllocationMode.fromCliName(a.string("allocation", null));
            if (a.has("out")) outDir = Path.of(a.string("out", null));
        } catch (UsageException | IllegalArgumentException e) {
            err.println("flushline ratios: " + e.getMessage());
            err.print(HELP);
            return 1;
        }
        try {
            Path dir = outDir != null ? Files.createDirectories(outDir) : Files.createTempDirectory("flushline-ratios-");
            try {
                measure(partitions, repeat, compression, allocation, dir, out);
            } finally {
                BenchCommand.deleteRecursively(dir);
            }
            return 0;
        } catch (IOException | RuntimeException e) {
            err.println("flushline ratios: " + e);
            return 2;
        }
    }

    private static int positive(String option, String v) throws UsageException {
        try {
            int n = Integer.parseInt(v);
            if (n < 1) throw new NumberFormatException();
            return n;
        } catch (NumberFormatException e) {
            throw new UsageException(option + " needs a positive whole number, not '" + v + "'");
        }
    }

    private static void measure(int partitions, int repeat, String compression, AllocationMode allocation, Path dir,
                                PrintStream out) throws IOException {
        BenchCommand.Workload w = new BenchCommand.Workload(partitions, 10, 5, 16);
        TableSchema schema = CqlParser.parse(w.cql() + " WITH compression = "
                + (compression.equals("lz4") ? "{'class': 'LZ4Compressor'}" : "{'enabled': 'false'}"));
        Memtable m = new SkipListMemtable(schema, allocation);
        BenchCommand.fill(m, w);
        m.seal();
        try {
            long[] single = new long[repeat], parallel = new long[repeat], inline = new long[repeat], loop = new long[repeat];
            long dataBytes = 0;
            // One untimed round first: JIT warm-up and the block pool.
            flush(m, dir.resolve("warm"), 1, 1, true);
            for (int r = 0; r < repeat; r++) {
                FlushOutcome o = null;
                long t0 = System.nanoTime();
                List<FlushOutcome> os = flush(m, dir.resolve("single-" + r), 1, 1, true);
                single[r] = System.nanoTime() - t0;
                o = os.get(0);
                dataBytes = o.result.dataFileBytes;

                t0 = System.nanoTime();
                flush(m, dir.resolve("parallel-" + r), 2, 2, true);
                parallel[r] = System.nanoTime() - t0;

                t0 = System.nanoTime();
                flush(m, dir.resolve("inline-" + r), 1, 1, false);
                inline[r] = System.nanoTime() - t0;

                t0 = System.nanoTime();
                fileChannelLoop(dir.resolve("loop-" + r + ".bin"), dataBytes);
                loop[r] = System.nanoTime() - t0;
                for (String d : new String[] {"single-", "parallel-", "inline-"}) BenchCommand.deleteRecursively(dir.resolve(d + r));
                Files.deleteIfExists(dir.resolve("loop-" + r + ".bin"));
            }
            long s = median(single), p = median(parallel), i = median(inline), l = median(loop);
            out.printf(Locale.ROOT, "workload: %d partitions x 10 rows x 5 text(16), %s, %s, Data.db %s, %d rounds (medians)%n",
                    partitions, allocation.cliName(), compression, mib(dataBytes), repeat);
            out.printf(Locale.ROOT, "flush 1 range, 1 thread, pipelined : %7.1f ms%n", s / 1e6);
            out.printf(Locale.ROOT, "flush 2 ranges, 2 threads, pipelined: %7.1f ms%n", p / 1e6);
            out.printf(Locale.ROOT, "flush 1 range, 1 thread, inline I/O : %7.1f ms%n", i / 1e6);
            out.printf(Locale.ROOT, "FileChannel loop, same bytes + fsync: %7.1f ms%n", l / 1e6);
            out.printf(Locale.ROOT, "parallel  ratio (2 threads / 1 thread)     = %.2f  (goal <= 0.60)%n", (double) p / s);
            out.printf(Locale.ROOT, "pipelined ratio (flush / FileChannel loop) = %.2f  (goal <= 1.50)%n", (double) s / l);
            out.printf(Locale.ROOT, "inline    ratio (inline / pipelined)       = %.2f%n", (double) i / s);
        } finally {
            m.discard();
        }
    }

    private static List<FlushOutcome> flush(Memtable m, Path out, int ranges, int threads, boolean pipelined) throws IOException {
        return FlushJob.run(m, FlushJob.Options.builder(out).ranges(ranges).flushThreads(threads).pipelined(pipelined).build());
    }

    /** The physical limit: write {@code bytes} with a plain loop from a 1 MiB heap buffer, then fsync. */
    private static void fileChannelLoop(Path file, long bytes) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(1 << 20);
        byte[] a = buf.array();
        for (int k = 0; k < a.length; k++) a[k] = (byte) k;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            long left = bytes;
            while (left > 0) {
                buf.clear();
                buf.limit((int) Math.min(buf.capacity(), left));
                while (buf.hasRemaining()) left -= ch.write(buf);
            }
            ch.force(true);
        }
    }

    private static long median(long[] v) {
        long[] c = v.clone();
        Arrays.sort(c);
        return c[c.length / 2];
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }
}

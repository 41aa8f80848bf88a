// Stand-alone: InsertScanner.decode over the first 120 MB of the bench JSON Lines, in memory (see README.md).
package dev.flushline.ops;

import dev.flushline.data.InsertBuffer;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import java.nio.file.*;

public class ScanHarness {
    public static void main(String[] a) throws Exception {
        TableSchema schema = CqlParser.parse(new String(Files.readAllBytes(Path.of("/tmp/la/stress_table.cql"))));
        byte[] all = new byte[120_000_000];
        try (var in = Files.newInputStream(Path.of("/tmp/la/bench.jsonl"))) { in.readNBytes(all, 0, all.length); }
        int n = 0; int[] starts = new int[700_000], ends = new int[700_000];
        int s = 0;
        for (int i = 0; i < all.length && n < starts.length; i++) if (all[i] == '\n') { starts[n] = s; ends[n] = i; n++; s = i + 1; }
        OperationDecoder d = new OperationDecoder(schema, 1750000000L);
        InsertDecoder id = new InsertDecoder(d);
        InsertScanner sc = new InsertScanner(d, id.kinds());
        InsertBuffer buf = new InsertBuffer(schema);
        int lim = Integer.getInteger("lines", n); for (int round = 0; round < 8; round++) { int reps = n / lim;
            long t0 = System.nanoTime(); int ok = 0;
            for (int r2 = 0; r2 < reps; r2++) for (int i = 0; i < lim; i++) {
                // copy like readLine does
                if (sc.decode(all, starts[i], ends[i], buf)) ok++;
            }
            long t1 = System.nanoTime();
            System.out.printf("round %d: %d/%d lines, %.1f ns/line%n", round, ok, n, (t1 - t0) / (double) n);
        }
    }
}

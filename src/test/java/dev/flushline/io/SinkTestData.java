package dev.flushline.io;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/** Deterministic test inputs for the Data.db sinks. */
final class SinkTestData {
    private SinkTestData() {}

    /**
     * Semi-compressible bytes: runs of repeated "row-like" text interleaved with random runs, so
     * chunks compress to varied sizes (and some barely at all).
     */
    static byte[] semiCompressible(int lengthBytes, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        byte[] out = new byte[lengthBytes];
        int p = 0;
        while (p < lengthBytes) {
            int run = Math.min(lengthBytes - p, 1 + r.nextInt(3000));
            if (r.nextInt(3) == 0) {
                for (int i = 0; i < run; i++) {
                    out[p + i] = (byte) r.nextInt(256);
                }
            } else {
                byte[] text = ("partition-" + r.nextInt(50) + ";clustering=" + r.nextInt(1000) + ";value=abcabc|")
                        .getBytes(StandardCharsets.US_ASCII);
                for (int i = 0; i < run; i++) {
                    out[p + i] = text[i % text.length];
                }
            }
            p += run;
        }
        return out;
    }

    static byte[] random(int lengthBytes, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        byte[] out = new byte[lengthBytes];
        for (int i = 0; i < lengthBytes; i++) {
            out[i] = (byte) r.nextInt(256);
        }
        return out;
    }

    /**
     * Feeds {@code data} to {@code sink} in pieces of random size: mostly small (serializer-like),
     * sometimes larger than a chunk, sometimes empty.
     */
    static void writeInPieces(DataSink sink, byte[] data, long seed) throws IOException {
        SplittableRandom r = new SplittableRandom(seed);
        int p = 0;
        while (p < data.length) {
            int kind = r.nextInt(10);
            int n = kind == 0 ? 0 : kind == 1 ? 1 + r.nextInt(70_000) : 1 + r.nextInt(600);
            n = Math.min(n, data.length - p);
            sink.write(data, p, n);
            p += n;
            if (sink.uncompressedPosition() != p) {
                throw new AssertionError("uncompressedPosition " + sink.uncompressedPosition() + " != " + p);
            }
        }
    }
}

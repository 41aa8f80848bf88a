package dev.flushline.compaction;

import java.util.ArrayList;
import java.util.List;

/**
 * Synthetic sstables and a stand-in for the merge, for picker tests: no files, only the numbers a
 * picker reads. The stand-in writes what a compaction of the pick's inputs would if the data were
 * spread evenly over each input's token span and nothing were dropped: the inputs' bytes, cut at
 * the pick's split tokens and then into pieces of at most the pick's maximum size; the segments the
 * pick pools go together into one output spanning them (not cut by size). Every segment that
 * holds data gets at least one byte, so totals may exceed the inputs' by a few bytes.
 */
final class Synthetic {
    static final long KIB = 1024L;
    static final long MIB = 1024L * KIB;
    static final long GIB = 1024L * MIB;

    private Synthetic() {}

    /** An sstable whose timestamps follow its generation (newer generations, newer data). */
    static SSTableInfo sst(int gen, long first, long last, long sizeBytes, int level) {
        return new SSTableInfo(gen, first, last, sizeBytes, level, gen * 1000L, gen * 1000L + 999);
    }

    /** An sstable over the whole ring. */
    static SSTableInfo wide(int gen, long sizeBytes, int level) {
        return sst(gen, Long.MIN_VALUE + 1, Long.MAX_VALUE - 1, sizeBytes, level);
    }

    /** The generations of {@code sstables}, in their order. */
    static int[] gens(List<SSTableInfo> sstables) {
        int[] g = new int[sstables.size()];
        for (int i = 0; i < g.length; i++) g[i] = sstables.get(i).generation();
        return g;
    }

    /** Hands out generations above every one a test used so far. */
    static final class Generations {
        private int next;

        Generations(int firstFree) {
            next = firstFree;
        }

        int next() {
            return next++;
        }
    }

    /** What the merge would write for {@code pick}, under the even-spread assumption above. */
    static List<SSTableInfo> outputs(CompactionPick pick, Generations gens) {
        List<SSTableInfo> in = pick.inputs();
        long total = 0, lo = Long.MAX_VALUE, hi = Long.MIN_VALUE, minTs = Long.MAX_VALUE, maxTs = Long.MIN_VALUE;
        for (SSTableInfo s : in) {
            total += s.sizeBytes();
            lo = Math.min(lo, s.firstToken());
            hi = Math.max(hi, s.lastToken());
            minTs = Math.min(minTs, s.minTimestamp());
            maxTs = Math.max(maxTs, s.maxTimestamp());
        }
        // Segments between split tokens, narrowed to where some input has data.
        List<long[]> segments = new ArrayList<>();
        List<Double> segmentBytes = new ArrayList<>();
        List<Boolean> segmentPooled = new ArrayList<>();
        boolean[] pooledFlags = pick.pooledSegments();
        long segLo = lo;
        long[] splits = pick.splitTokens();
        for (int i = 0; i <= splits.length; i++) {
            long segHi = i < splits.length ? splits[i] - 1 : hi;
            if (i < splits.length && (splits[i] <= lo || splits[i] > hi)) continue;
            long first = Long.MAX_VALUE, last = Long.MIN_VALUE;
            double bytes = 0;
            for (SSTableInfo s : in) {
                if (!s.overlaps(segLo, segHi)) continue;
                long a = Math.max(segLo, s.firstToken()), b = Math.min(segHi, s.lastToken());
                first = Math.min(first, a);
                last = Math.max(last, b);
                bytes += s.sizeBytes() * (width(a, b) / width(s.firstToken(), s.lastToken()));
            }
            if (first <= last) {
                segments.add(new long[] {first, last});
                segmentBytes.add(bytes);
                segmentPooled.add(pooledFlags.length > 0 && pooledFlags[i]);
            }
            if (i < splits.length) segLo = splits[i];
        }
        // Whole bytes per segment, summing exactly to the inputs' total.
        long[] whole = new long[segments.size()];
        long assigned = 0;
        for (int i = 0; i < whole.length; i++) {
            // A segment with any data writes an sstable, however small its share.
            whole[i] = Math.max(1, Math.round(segmentBytes.get(i)));
            assigned += whole[i];
        }
        if (whole.length > 0) whole[whole.length - 1] = Math.max(1, whole[whole.length - 1] + total - assigned);

        List<SSTableInfo> out = new ArrayList<>();
        long max = pick.maxOutputBytes();
        long poolFirst = Long.MAX_VALUE, poolLast = Long.MIN_VALUE, poolBytes = 0;
        for (int i = 0; i < segments.size(); i++) {
            long first = segments.get(i)[0], last = segments.get(i)[1];
            if (segmentPooled.get(i)) {
                poolFirst = Math.min(poolFirst, first);
                poolLast = Math.max(poolLast, last);
                poolBytes += whole[i];
                continue;
            }
            long bytes = whole[i];
            long pieces = max == Long.MAX_VALUE ? 1 : Math.max(1, (bytes + max - 1) / max);
            double w = width(first, last);
            if (pieces > w) pieces = (long) w;
            long start = first, left = bytes;
            for (long p = 0; p < pieces; p++) {
                long end = p == pieces - 1 ? last : pieceEnd(first, last, p + 1, pieces);
                long size = p == pieces - 1 ? left : bytes / pieces;
                left -= size;
                out.add(new SSTableInfo(gens.next(), start, end, size, pick.outputLevel(), minTs, maxTs));
                start = end + 1;
            }
        }
        if (poolFirst <= poolLast) out.add(new SSTableInfo(gens.next(), poolFirst, poolLast, poolBytes, pick.outputLevel(), minTs, maxTs));
        return out;
    }

    /** The last token of piece k - 1 when [first, last] is cut into n pieces of about equal width. */
    static long pieceEnd(long first, long last, long k, long n) {
        java.math.BigInteger f = java.math.BigInteger.valueOf(first);
        java.math.BigInteger span = java.math.BigInteger.valueOf(last).subtract(f).add(java.math.BigInteger.ONE);
        return f.add(span.multiply(java.math.BigInteger.valueOf(k)).divide(java.math.BigInteger.valueOf(n))).longValueExact() - 1;
    }

    /** The number of tokens in [a, b], as a double (the whole ring does not fit a long). */
    static double width(long a, long b) {
        return (double) b - (double) a + 1.0;
    }
}

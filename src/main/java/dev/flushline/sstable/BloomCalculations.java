package dev.flushline.sstable;

/**
 * Bloom filter sizing exactly as Cassandra 5.0.9 ({@code BloomCalculations.computeBloomSpec(int,
 * double)} + {@code FilterFactory.getFilter(long, double)}): a fixed table of false-positive rates
 * per (buckets per element, hash count), the smallest bucket count whose best hash count meets the
 * target, then the hash count lowered while the rate still meets it.
 *
 * <p>Quirk kept on purpose: for a target >= 0.393 Cassandra builds its spec with the arguments
 * swapped, giving 2 hashes and 1 bucket per element (not 1 hash, 2 buckets).
 *
 * <p>Stateless, called once per sstable.
 */
final class BloomCalculations {
    private static final int MIN_BUCKETS = 2;
    private static final int MIN_K = 1;
    private static final long BITSET_EXCESS_BITS = 20;
    private static final int MAX_BUCKETS = 20;

    // FP_RATE[buckets per element][hash count]; column 0 and rows 0, 1 are placeholders.
    // Values are the published rates Cassandra's table holds; they must stay identical to it.
    private static final double[][] FP_RATE = {
        {1.0},
        {1.0, 1.0},
        {1.0, 0.393, 0.400},
        {1.0, 0.283, 0.237, 0.253},
        {1.0, 0.221, 0.155, 0.147, 0.160},
        {1.0, 0.181, 0.109, 0.092, 0.092, 0.101},
        {1.0, 0.154, 0.0804, 0.0609, 0.0561, 0.0578, 0.0638},
        {1.0, 0.133, 0.0618, 0.0423, 0.0359, 0.0347, 0.0364},
        {1.0, 0.118, 0.0489, 0.0306, 0.024, 0.0217, 0.0216, 0.0229},
        {1.0, 0.105, 0.0397, 0.0228, 0.0166, 0.0141, 0.0133, 0.0135, 0.0145},
        {1.0, 0.0952, 0.0329, 0.0174, 0.0118, 0.00943, 0.00844, 0.00819, 0.00846},
        {1.0, 0.0869, 0.0276, 0.0136, 0.00864, 0.0065, 0.00552, 0.00513, 0.00509},
        {1.0, 0.08, 0.0236, 0.0108, 0.00646, 0.00459, 0.00371, 0.00329, 0.00314},
        {1.0, 0.074, 0.0203, 0.00875, 0.00492, 0.00332, 0.00255, 0.00217, 0.00199, 0.00194},
        {1.0, 0.0689, 0.0177, 0.00718, 0.00381, 0.00244, 0.00179, 0.00146, 0.00129, 0.00121, 0.0012},
        {1.0, 0.0645, 0.0156, 0.00596, 0.003, 0.00183, 0.00128, 0.001, 0.000852, 0.000775, 0.000744},
        {1.0, 0.0606, 0.0138, 0.005, 0.00239, 0.00139, 0.000935, 0.000702, 0.000574, 0.000505, 0.00047,
            0.000459},
        {1.0, 0.0571, 0.0123, 0.00423, 0.00193, 0.00107, 0.000692, 0.000499, 0.000394, 0.000335, 0.000302,
            0.000287, 0.000284},
        {1.0, 0.054, 0.0111, 0.00362, 0.00158, 0.000839, 0.000519, 0.00036, 0.000275, 0.000226, 0.000198,
            0.000183, 0.000176},
        {1.0, 0.0513, 0.00998, 0.00312, 0.0013, 0.000663, 0.000394, 0.000264, 0.000194, 0.000155, 0.000132,
            0.000118, 0.000111, 0.000109},
        {1.0, 0.0488, 0.00906, 0.0027, 0.00108, 0.00053, 0.000303, 0.000196, 0.00014, 0.000108, 8.89e-05,
            7.77e-05, 7.12e-05, 6.79e-05, 6.71e-05},
    };

    private static final int[] OPTIMAL_K = optimalK();

    private BloomCalculations() {
    }

    private static int[] optimalK() {
        int[] best = new int[FP_RATE.length];
        for (int buckets = 0; buckets < FP_RATE.length; buckets++) {
            double min = Double.MAX_VALUE;
            double[] row = FP_RATE[buckets];
            for (int k = 0; k < row.length; k++) {
                if (row[k] < min) { // strict: the first minimum wins
                    min = row[k];
                    best[buckets] = Math.max(MIN_K, k);
                }
            }
        }
        return best;
    }

    /** {hashCount, bucketsPerElement}. REQUIRES: fpChance < 1 (1.0 means no filter at all). */
    static int[] spec(long expectedKeys, double fpChance) {
        int maxBuckets = maxBucketsPerElement(expectedKeys);
        int maxK = FP_RATE[maxBuckets].length - 1;
        if (fpChance >= FP_RATE[MIN_BUCKETS][MIN_K]) {
            return new int[] {2, OPTIMAL_K[2]}; // Cassandra's swapped arguments
        }
        if (fpChance < FP_RATE[maxBuckets][maxK]) {
            throw new IllegalArgumentException("bloom fp chance " + fpChance + " unreachable with "
                    + maxBuckets + " buckets per element");
        }
        int buckets = MIN_BUCKETS;
        int k = OPTIMAL_K[buckets];
        while (FP_RATE[buckets][k] > fpChance) {
            buckets++;
            k = OPTIMAL_K[buckets];
        }
        while (FP_RATE[buckets][k - 1] <= fpChance) {
            k--;
        }
        return new int[] {k, buckets};
    }

    static int maxBucketsPerElement(long expectedKeys) {
        long n = Math.max(1, expectedKeys);
        double v = (Long.MAX_VALUE - BITSET_EXCESS_BITS) / (double) n;
        if (v < 1.0) {
            throw new IllegalArgumentException("cannot size a bloom filter for " + expectedKeys + " keys");
        }
        return Math.min(MAX_BUCKETS, (int) v);
    }

    /** 64-bit words holding expectedKeys * bucketsPerElement + 20 bits, rounded up. */
    static long wordCount(long expectedKeys, int bucketsPerElement) {
        long bits = expectedKeys * bucketsPerElement + BITSET_EXCESS_BITS;
        return ((bits - 1) >>> 6) + 1;
    }
}

package dev.flushline.data;

import java.math.BigInteger;
import java.util.Arrays;

/**
 * Pure token-ring arithmetic shared by every stage that splits output by token range (the flush's
 * ranges and shards, the compaction's ranges): where the i-th of N equal ranges starts, and the
 * validation of explicit split tokens. A range list is given by its split tokens: range 0 starts
 * at Long.MIN_VALUE, range i + 1 at split token i.
 *
 * <p>Thread safety: stateless.
 */
public final class TokenSplits {
    private static final BigInteger RING = BigInteger.ONE.shiftLeft(64);

    private TokenSplits() {}

    /** The smallest token of range {@code i} of {@code n} equal ranges (i in 0..n-1). */
    public static long startToken(int i, int n) {
        // ceil(i * 2^64 / n) as an unsigned offset, mapped back to signed tokens.
        if (i == 0) return Long.MIN_VALUE;
        BigInteger offset = RING.multiply(BigInteger.valueOf(i)).add(BigInteger.valueOf(n - 1)).divide(BigInteger.valueOf(n));
        return offset.longValue() ^ Long.MIN_VALUE;
    }

    /** The n - 1 split tokens of {@code n} equal ranges. */
    public static long[] even(int n) {
        if (n < 1) throw new IllegalArgumentException("need at least one range: " + n);
        long[] starts = new long[n - 1];
        for (int i = 1; i < n; i++) starts[i - 1] = startToken(i, n);
        return starts;
    }

    /** Throws unless the split tokens are strictly increasing and none is Long.MIN_VALUE. */
    public static void check(long[] splitTokens) {
        for (int i = 0; i < splitTokens.length; i++) {
            if (splitTokens[i] == Long.MIN_VALUE || (i > 0 && splitTokens[i] <= splitTokens[i - 1])) {
                throw new IllegalArgumentException("split tokens must be strictly increasing and above Long.MIN_VALUE: "
                        + Arrays.toString(splitTokens));
            }
        }
    }
}

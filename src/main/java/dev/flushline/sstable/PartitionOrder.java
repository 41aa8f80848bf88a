package dev.flushline.sstable;

import java.util.Arrays;

/** Partition order in every oa file: Murmur3 token (signed), then key bytes unsigned. Stateless. */
public final class PartitionOrder {
    private PartitionOrder() {}

    public static int compare(long tokenA, byte[] a, int aOff, int aLen, long tokenB, byte[] b, int bOff, int bLen) {
        int c = Long.compare(tokenA, tokenB);
        return c != 0 ? c : Arrays.compareUnsigned(a, aOff, aOff + aLen, b, bOff, bOff + bLen);
    }
}

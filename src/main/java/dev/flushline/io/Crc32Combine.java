package dev.flushline.io;

/**
 * The CRC-32 of a concatenation from the CRCs of its parts, so that a whole-file checksum
 * (Digest.crc32) can be built from the per-chunk CRCs a writer computes anyway, instead of a
 * second pass over every byte.
 *
 * <p>The arithmetic. CRC-32 (the one {@link java.util.zip.CRC32} computes: polynomial 0x04C11DB7,
 * reflected, pre- and post-inverted) is linear over GF(2) apart from the inversions, which cancel
 * between the parts: for byte strings A and B,
 * <pre>
 *   crc(A || B) = crc(A) * x^(8 * |B|)  mod P   XOR   crc(B)
 * </pre>
 * with the CRCs read as polynomials of degree below 32. In the reflected representation used here
 * bit 31 holds x^0 and bit 0 holds x^31, and {@link #POLY} is P without its x^32 term.
 * {@link #multModP} multiplies two such polynomials modulo P; x^(8n) comes from the table of
 * x^(2^k) by the binary digits of 8n, so a shift by any length costs at most about 35
 * multiplications (a few hundred nanoseconds), nothing per byte.
 *
 * <p>Thread safety: stateless; the table is built once, when the class initialises.
 */
public final class Crc32Combine {
    /** P = x^32 + x^26 + ... + 1, reflected, without the x^32 term. */
    private static final int POLY = 0xEDB88320;
    /** x^0 in the reflected representation: the multiplicative identity. */
    private static final int ONE = 0x80000000;
    /**
     * X2N[k] = x^(2^k) mod P, k = 0..31. It repeats with period 32, because x^(2^32) = x modulo this
     * P (the order of x divides 2^32 - 1; Crc32CombineTest checks the identity itself), so a shift of
     * 2^29 bytes or more takes the index mod 32.
     */
    private static final int[] X2N = new int[32];

    static {
        int p = ONE >>> 1; // x^1
        for (int k = 0; k < X2N.length; k++) {
            X2N[k] = p;
            p = multModP(p, p);
        }
    }

    private Crc32Combine() {}

    /** a * b mod P, both reflected. */
    static int multModP(int a, int b) {
        int product = 0;
        // Walk a's terms from x^0 (bit 31) upwards, multiplying b by x at each step.
        for (int m = ONE; m != 0; m >>>= 1) {
            if ((a & m) != 0) {
                product ^= b;
                if ((a & (m - 1)) == 0) break; // no higher terms left in a
            }
            b = (b & 1) != 0 ? (b >>> 1) ^ POLY : b >>> 1;
        }
        return product;
    }

    /**
     * The operator that appends {@code bytes} bytes: {@code x^(8 * bytes) mod P}. Callers that append
     * parts of one length many times compute it once and use {@link #append(int, int, int)}.
     */
    public static int shiftFor(long bytes) {
        if (bytes < 0) throw new IllegalArgumentException("negative length: " + bytes);
        int p = ONE;
        long n = bytes;
        int k = 3; // 8 * bytes = bytes * 2^3
        while (n != 0) {
            if ((n & 1) != 0) p = multModP(X2N[k & 31], p);
            n >>>= 1;
            k++;
        }
        return p;
    }

    /** crc(A || B) from {@code crcA}, {@code crcB} and the shift for |B| ({@link #shiftFor}). */
    public static int append(int crcA, int crcB, int shiftForB) {
        return multModP(shiftForB, crcA) ^ crcB;
    }

    /** crc(A || B) from {@code crcA}, {@code crcB} and |B| in bytes. */
    public static int combine(int crcA, int crcB, long bytesB) {
        return append(crcA, crcB, shiftFor(bytesB));
    }
}

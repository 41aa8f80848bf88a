package dev.flushline.data;

/** Hex rendering for messages and test diffs. Not for hot paths. */
public final class Hex {
    private Hex() {}

    private static final char[] DIGITS = "0123456789abcdef".toCharArray();

    public static String of(byte[] b) {
        return of(b, 0, b.length);
    }

    public static String of(byte[] b, int offset, int length) {
        char[] out = new char[length * 2];
        for (int i = 0; i < length; i++) {
            int v = b[offset + i] & 0xff;
            out[2 * i] = DIGITS[v >>> 4];
            out[2 * i + 1] = DIGITS[v & 0xf];
        }
        return new String(out);
    }
}

package dev.flushline.oracle;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * Immutable byte string with content equality, so model records compare serialized values by content
 * and a failing assertEquals prints something readable (hex, plus the text when it is printable ASCII).
 */
public final class Bytes implements Comparable<Bytes> {
    public static final Bytes EMPTY = new Bytes(new byte[0]);

    private final byte[] bytes;

    private Bytes(byte[] bytes) {
        this.bytes = bytes;
    }

    public static Bytes of(byte[] bytes) {
        return new Bytes(bytes.clone());
    }

    /** Copies the remaining bytes without moving the buffer's position. */
    public static Bytes of(ByteBuffer buffer) {
        ByteBuffer dup = buffer.duplicate();
        byte[] out = new byte[dup.remaining()];
        dup.get(out);
        return new Bytes(out);
    }

    public static Bytes hex(String hex) {
        return new Bytes(HexFormat.of().parseHex(hex.replace(" ", "")));
    }

    public static Bytes utf8(String text) {
        return new Bytes(text.getBytes(StandardCharsets.UTF_8));
    }

    public static Bytes int32(int value) {
        return new Bytes(ByteBuffer.allocate(4).putInt(value).array());
    }

    public static Bytes int64(long value) {
        return new Bytes(ByteBuffer.allocate(8).putLong(value).array());
    }

    public byte[] toArray() {
        return bytes.clone();
    }

    public ByteBuffer toBuffer() {
        return ByteBuffer.wrap(bytes.clone());
    }

    public int length() {
        return bytes.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Bytes other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public int compareTo(Bytes o) {
        return Arrays.compareUnsigned(bytes, o.bytes);
    }

    @Override
    public String toString() {
        String hex = "0x" + HexFormat.of().formatHex(bytes);
        if (bytes.length == 0) {
            return "0x";
        }
        for (byte b : bytes) {
            if (b < 0x20 || b > 0x7e) {
                return hex;
            }
        }
        return hex + "'" + new String(bytes, StandardCharsets.US_ASCII) + "'";
    }
}

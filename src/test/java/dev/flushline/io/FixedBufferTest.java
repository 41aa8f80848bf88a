package dev.flushline.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

class FixedBufferTest {

    private static String hex(FixedBuffer b) {
        return HexFormat.of().formatHex(b.array(), 0, b.position());
    }

    @Test
    void bigEndianLayoutMatchesDataOutput() throws IOException {
        FixedBuffer b = new FixedBuffer(64);
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        DataOutputStream dos = new DataOutputStream(bos);
        b.putByte(0xAB);             dos.writeByte(0xAB);
        b.putShort(0x1234);          dos.writeShort(0x1234);
        b.putInt(0xCAFEBABE);        dos.writeInt(0xCAFEBABE);
        b.putLong(0x0102030405060708L); dos.writeLong(0x0102030405060708L);
        b.putFloat(1.5f);            dos.writeFloat(1.5f);
        b.putDouble(Double.NaN);     dos.writeDouble(Double.NaN);
        b.putBoolean(true);          dos.writeBoolean(true);
        assertArrayEquals(bos.toByteArray(), Arrays.copyOf(b.array(), b.position()));
        assertEquals("ab1234cafebabe0102030405060708", hex(b).substring(0, 30));
    }

    @Test
    void littleEndianForSummary() {
        FixedBuffer b = new FixedBuffer(12);
        b.putIntLE(0x04000000 >>> 24);
        b.putLongLE(0x0102030405060708L);
        assertEquals("04000000" + "0807060504030201", hex(b));
    }

    @Test
    void vintsGoThroughVInt() {
        FixedBuffer b = new FixedBuffer(32);
        b.putUnsignedVInt(16384);
        b.putSignedVInt(-1);
        b.putUnsignedVInt32(-1);
        b.putSignedVInt32(64);
        assertEquals("c04000" + "01" + "ffffffffffffffffff" + "8080", hex(b));
    }

    @Test
    void modifiedUtf8MatchesWriteUTF() throws IOException {
        String[] samples = {"", "LZ4Compressor", "nul\u0000inside", "é€", "\uD83D\uDE00 emoji", "\u07FF\u0800\uFFFF"};
        for (String s : samples) {
            ByteArrayOutputStream bos = new ByteArrayOutputStream();
            new DataOutputStream(bos).writeUTF(s);
            FixedBuffer b = new FixedBuffer(64);
            b.putUtf(s);
            assertArrayEquals(bos.toByteArray(), Arrays.copyOf(b.array(), b.position()), s);
            assertEquals(bos.size(), FixedBuffer.sizeOfUtf(s), s);
        }
        FixedBuffer big = new FixedBuffer(70_000);
        assertThrows(IllegalArgumentException.class, () -> big.putUtf("x".repeat(65_536)));
    }

    @Test
    void overflowIsLoudAndNamesPositionAndLimit() {
        FixedBuffer b = new FixedBuffer(new byte[16]);
        b.limit(6);
        b.putInt(1);
        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> b.putInt(2));
        assertTrue(e.getMessage().contains("position 4") && e.getMessage().contains("limit is 6"), e.getMessage());
        assertEquals(4, b.position(), "a failed put must not move the cursor");
        assertThrows(IndexOutOfBoundsException.class, () -> b.putLong(2));
        assertThrows(IndexOutOfBoundsException.class, () -> b.putUnsignedVInt(1L << 56));
        assertThrows(IndexOutOfBoundsException.class, () -> b.putBytes(new byte[3], 0, 3));
        assertThrows(IndexOutOfBoundsException.class, () -> b.putUtf("abc"));
        assertThrows(IndexOutOfBoundsException.class, () -> b.ensureRemaining(-1));
        b.putShort(7); // exactly fills the limit
        assertEquals(0, b.remaining());
        assertThrows(IndexOutOfBoundsException.class, () -> b.putByte(0));
    }

    @Test
    void wrapWritesIntoCallerArrayWindow() {
        byte[] target = new byte[10];
        FixedBuffer b = new FixedBuffer(1);
        b.wrap(target, 3, 7);
        b.putInt(0x01020304);
        assertThrows(IndexOutOfBoundsException.class, () -> b.putByte(9));
        assertEquals("00000001020304000000", HexFormat.of().formatHex(target));
        assertThrows(IndexOutOfBoundsException.class, () -> b.wrap(target, 5, 11));
    }

    @Test
    void checkWrittenNamesStructureAndBothNumbers() {
        FixedBuffer.checkWritten("Row", 17, 17);
        SerializationSizeMismatchException e = assertThrows(SerializationSizeMismatchException.class,
                () -> FixedBuffer.checkWritten("Row", 17, 19));
        assertTrue(e.getMessage().contains("Row") && e.getMessage().contains("17") && e.getMessage().contains("19"),
                e.getMessage());
        assertEquals(17, e.expectedBytes());
        assertEquals(19, e.actualBytes());
        assertTrue(e instanceof IllegalStateException);
    }
}

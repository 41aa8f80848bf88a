package dev.flushline.io;

import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * Cassandra's DeflateCompressor through java.util.zip: each chunk is one zlib stream (header,
 * deflate blocks at the default level, Adler-32), made by a single {@code deflate} call into
 * room for zlib's worst case. An empty chunk is stored as no bytes at all, as Cassandra stores
 * it, and reads back as empty.
 *
 * <p>The Deflater and Inflater hold native zlib state: made on first use, reset per chunk, and
 * ended by {@link #close()}.
 */
public final class DeflateChunkCodec extends ChunkCodec {
    public static final String NAME = "DeflateCompressor";

    private Deflater deflater;
    private Inflater inflater;

    @Override
    public String compressorName() { return NAME; }

    /** zlib's deflateBound for the default settings, as Cassandra sizes its buffer. */
    @Override
    public int maxCompressedLength(int uncompressedLength) {
        int n = uncompressedLength;
        return n + (n >> 12) + (n >> 14) + (n >> 25) + 13;
    }

    @Override
    public int compress(byte[] src, int srcOffset, int length, byte[] dst, int dstOffset) {
        Deflater d = deflater;
        if (d == null) d = deflater = new Deflater();
        d.reset();
        d.setInput(src, srcOffset, length);
        d.finish();
        if (d.needsInput()) return 0;
        int n = d.deflate(dst, dstOffset, dst.length - dstOffset);
        if (!d.finished()) {
            throw new IllegalStateException("deflate of " + length + " bytes did not fit " + (dst.length - dstOffset) + " bytes");
        }
        return n;
    }

    @Override
    public void decompress(byte[] src, int srcOffset, int length, byte[] dst, int dstOffset, int expectedLength)
            throws ChunkCodecException {
        if (length == 0) {
            if (expectedLength != 0) throw new ChunkCodecException("empty deflate block, expected " + expectedLength + " bytes");
            return;
        }
        Inflater i = inflater;
        if (i == null) i = inflater = new Inflater();
        i.reset();
        i.setInput(src, srcOffset, length);
        int n;
        try {
            n = i.inflate(dst, dstOffset, expectedLength);
        } catch (DataFormatException e) {
            throw new ChunkCodecException("deflate block does not inflate: " + e.getMessage(), e);
        }
        if (n != expectedLength || !i.finished()) {
            throw new ChunkCodecException("deflate block inflates to " + (i.finished() ? n + " bytes" : "more than " + n + " bytes")
                    + ", expected " + expectedLength);
        }
    }

    @Override
    public void close() {
        if (deflater != null) {
            deflater.end();
            deflater = null;
        }
        if (inflater != null) {
            inflater.end();
            inflater = null;
        }
    }
}

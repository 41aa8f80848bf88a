package dev.flushline.sstable;

import dev.flushline.io.DataFileLayout;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32;

/**
 * The physical layer of Data.db ({@link DataFileLayout}) as a sequence of logical chunks: each
 * {@link #load} returns one chunk of the uncompressed stream after checking its CRC32 — the
 * CRC.db entry for an uncompressed file, the per-chunk CRC that follows each LZ4 block for a
 * compressed one. Every length and offset from CompressionInfo.db or CRC.db is checked against
 * the files before it sizes a read.
 *
 * <p>Thread safety: none. One instance per cursor.
 */
public final class DataChunks implements AutoCloseable {
    /** lz4-java decompressors are stateless; the safe one never reads or writes out of bounds on bad input. */
    private static final LZ4SafeDecompressor DECOMPRESSOR = LZ4Factory.fastestInstance().safeDecompressor();
    /** Bound on a chunk length we accept from CompressionInfo.db or CRC.db (Cassandra's largest is 2^30). */
    private static final int MAX_CHUNK_LENGTH = 1 << 30;
    /** Cassandra's other compressors: a real sstable we refuse, unlike a name no Cassandra writes (corruption). */
    private static final String[] OTHER_COMPRESSORS = {"SnappyCompressor", "DeflateCompressor", "ZstdCompressor", "NoopCompressor"};

    private final Path dataPath;
    /** The sstable's version: what its Data.db's partition deletions and local deletion times mean. */
    private final SSTableVersion version;
    private final FileChannel channel;
    private final long fileLength;
    private final long uncompressedLength;
    private final int chunkLength;
    private final int chunkCount;
    private final boolean compressed;
    /** Compressed: file offset of each chunk. */
    private final long[] chunkOffsets;
    private final int maxCompressedLength;
    /** Uncompressed: CRC.db's value per chunk, or null when there is no CRC.db or checks are off. */
    private final int[] chunkCrcs;
    private final boolean checkCrc;
    private final CRC32 crc = new CRC32();
    private byte[] raw = new byte[0];
    /** The staging buffer of {@link #readFully}; grown, never shrunk, freed with this reader by the GC. */
    private ByteBuffer io;

    private DataChunks(Path dataPath, FileChannel channel, long fileLength, long uncompressedLength, int chunkLength,
                       int chunkCount, boolean compressed, long[] chunkOffsets, int maxCompressedLength, int[] chunkCrcs,
                       boolean checkCrc, SSTableVersion version) {
        this.version = version;
        this.dataPath = dataPath;
        this.channel = channel;
        this.fileLength = fileLength;
        this.uncompressedLength = uncompressedLength;
        this.chunkLength = chunkLength;
        this.chunkCount = chunkCount;
        this.compressed = compressed;
        this.chunkOffsets = chunkOffsets;
        this.maxCompressedLength = maxCompressedLength;
        this.chunkCrcs = chunkCrcs;
        this.checkCrc = checkCrc;
    }

    /** Opens Data.db with its CompressionInfo.db (compressed) or CRC.db (if present). */
    public static DataChunks open(SSTableFiles files, boolean checkCrc) throws IOException {
        Path dataPath = files.path(Component.DATA);
        FileChannel ch = FileChannel.open(dataPath, StandardOpenOption.READ);
        try {
            long fileLength = ch.size();
            if (files.isCompressed()) return openCompressed(files, dataPath, ch, fileLength, checkCrc);
            int chunk = DataFileLayout.CRC_CHUNK_BYTES;
            int[] crcs = null;
            if (files.has(Component.CRC) && checkCrc) {
                Path crcPath = files.path(Component.CRC);
                BoundedReader in = new BoundedReader(crcPath, files.readAll(Component.CRC));
                long at = in.fileOffset();
                chunk = in.i32("CRC chunk size");
                if (chunk <= 0 || chunk > MAX_CHUNK_LENGTH || Integer.bitCount(chunk) != 1) {
                    throw in.corrupt(at, "CRC chunk size " + chunk + " is not a power of two up to 2^30");
                }
                long expected = Math.max(1, (fileLength + chunk - 1) / chunk);
                if (in.remaining() != expected * 4) {
                    throw in.corrupt(in.fileOffset(), "CRC.db holds " + in.remaining() / 4 + " chunk CRCs; Data.db of "
                            + fileLength + " bytes has " + expected + " chunks of " + chunk);
                }
                crcs = new int[(int) expected];
                for (int i = 0; i < crcs.length; i++) crcs[i] = in.i32("chunk CRC");
            }
            int count = (int) Math.max(1, (fileLength + chunk - 1) / chunk);
            return new DataChunks(dataPath, ch, fileLength, fileLength, chunk, count, false, null, 0, crcs, checkCrc, files.version());
        } catch (IOException | RuntimeException | Error e) {
            ch.close();
            throw e;
        }
    }

    private static DataChunks openCompressed(SSTableFiles files, Path dataPath, FileChannel ch, long fileLength, boolean checkCrc)
            throws IOException {
        Path infoPath = files.path(Component.COMPRESSION_INFO);
        BoundedReader in = new BoundedReader(infoPath, files.readAll(Component.COMPRESSION_INFO));
        long at = in.fileOffset();
        String compressor = in.utf("compressor name");
        if (!DataFileLayout.LZ4_COMPRESSOR_NAME.equals(compressor)) {
            for (String known : OTHER_COMPRESSORS) {
                if (known.equals(compressor)) {
                    throw new IncompatibleSSTableException(infoPath, "compressor '" + compressor + "' at byte offset " + at
                            + " is not supported; only " + DataFileLayout.LZ4_COMPRESSOR_NAME + " is read");
                }
            }
            throw in.corrupt(at, "unknown compressor name '" + compressor + "'");
        }
        at = in.fileOffset();
        int options = in.i32("compression option count");
        if (options < 0 || options > in.remaining() / 4) throw in.corrupt(at, "compression option count " + options + " is not plausible");
        for (int i = 0; i < options; i++) {
            in.utf("compression option name");
            in.utf("compression option value");
        }
        at = in.fileOffset();
        int chunkLength = in.i32("chunk length");
        if (chunkLength <= 0 || chunkLength > MAX_CHUNK_LENGTH || Integer.bitCount(chunkLength) != 1) {
            throw in.corrupt(at, "chunk length " + chunkLength + " is not a power of two up to 2^30");
        }
        at = in.fileOffset();
        int maxCompressed = in.i32("max compressed length");
        if (maxCompressed <= 0) throw in.corrupt(at, "max compressed length " + maxCompressed + " is not positive");
        at = in.fileOffset();
        long dataLength = in.i64("uncompressed length");
        if (dataLength < 0) throw in.corrupt(at, "uncompressed length " + dataLength + " is negative");
        at = in.fileOffset();
        int count = in.i32("chunk count");
        long expected = Math.max(1, (dataLength + chunkLength - 1) / chunkLength);
        if (count != expected) {
            throw in.corrupt(at, "chunk count " + count + " does not match " + dataLength + " bytes in chunks of " + chunkLength);
        }
        if ((long) count * DataFileLayout.CHUNK_OFFSET_BYTES != in.remaining()) {
            throw in.corrupt(in.fileOffset(), "CompressionInfo.db holds " + in.remaining() + " bytes of chunk offsets for " + count + " chunks");
        }
        long[] offsets = new long[count];
        long previous = -1;
        for (int i = 0; i < count; i++) {
            at = in.fileOffset();
            offsets[i] = in.i64("chunk offset");
            long minimum = i == 0 ? 0 : previous + DataFileLayout.CHUNK_CRC_BYTES;
            if ((i == 0 && offsets[i] != 0) || offsets[i] < minimum || offsets[i] + DataFileLayout.CHUNK_CRC_BYTES > fileLength) {
                throw in.corrupt(at, "chunk " + i + " offset " + offsets[i] + " is out of order or outside Data.db of " + fileLength + " bytes");
            }
            previous = offsets[i];
        }
        return new DataChunks(dataPath, ch, fileLength, dataLength, chunkLength, count, true, offsets, maxCompressed, null, checkCrc, files.version());
    }

    public Path dataPath() { return dataPath; }

    public SSTableVersion version() { return version; }

    public boolean isCompressed() { return compressed; }

    /** Length of the uncompressed stream. */
    public long length() { return uncompressedLength; }

    public int chunkLength() { return chunkLength; }

    public int chunkCount() { return chunkCount; }

    /** Logical bytes in chunk {@code i}. */
    public int chunkSize(int i) {
        long start = (long) i * chunkLength;
        return (int) Math.min(chunkLength, uncompressedLength - start);
    }

    /**
     * Loads logical chunk {@code i} into {@code dst[offset..offset + chunkSize(i))} and returns its size.
     * REQUIRES: that much room in {@code dst}.
     */
    public int load(int i, byte[] dst, int offset) throws IOException {
        int size = chunkSize(i);
        if (!compressed) {
            readFully(dst, offset, size, (long) i * chunkLength);
            if (chunkCrcs != null) {
                crc.reset();
                crc.update(dst, offset, size);
                if ((int) crc.getValue() != chunkCrcs[i]) {
                    throw new CorruptSSTableException(dataPath, (long) i * chunkLength,
                            "CRC mismatch of the " + size + "-byte chunk " + i + " (CRC.db)");
                }
            }
            return size;
        }
        long start = chunkOffsets[i];
        long end = i + 1 < chunkCount ? chunkOffsets[i + 1] : fileLength;
        long onDisk = end - start - DataFileLayout.CHUNK_CRC_BYTES;
        if (onDisk < 0 || onDisk > Integer.MAX_VALUE - 16) {
            throw new CorruptSSTableException(dataPath, start, "chunk " + i + " has an impossible on-disk length " + onDisk);
        }
        int len = (int) onDisk;
        if (raw.length < len + DataFileLayout.CHUNK_CRC_BYTES) raw = new byte[len + DataFileLayout.CHUNK_CRC_BYTES];
        readFully(raw, 0, len + DataFileLayout.CHUNK_CRC_BYTES, start);
        if (checkCrc) {
            crc.reset();
            crc.update(raw, 0, len);
            if ((int) crc.getValue() != BoundedReader.getInt(raw, len)) {
                throw new CorruptSSTableException(dataPath, start + len, "CRC mismatch of compressed chunk " + i
                        + " (" + len + " bytes from byte offset " + start + ")");
            }
        }
        if (len >= maxCompressedLength) { // stored raw (min_compress_ratio), no length prefix
            if (len != size) {
                throw new CorruptSSTableException(dataPath, start, "raw chunk " + i + " has " + len + " bytes, expected " + size);
            }
            System.arraycopy(raw, 0, dst, offset, size);
            return size;
        }
        if (len < DataFileLayout.LZ4_LENGTH_PREFIX_BYTES) {
            throw new CorruptSSTableException(dataPath, start, "compressed chunk " + i + " of " + len + " bytes has no length prefix");
        }
        int declared = (raw[0] & 0xFF) | ((raw[1] & 0xFF) << 8) | ((raw[2] & 0xFF) << 16) | ((raw[3] & 0xFF) << 24);
        if (declared != size) {
            throw new CorruptSSTableException(dataPath, start, "compressed chunk " + i + " declares " + declared
                    + " uncompressed bytes, expected " + size);
        }
        int n;
        try {
            n = DECOMPRESSOR.decompress(raw, DataFileLayout.LZ4_LENGTH_PREFIX_BYTES, len - DataFileLayout.LZ4_LENGTH_PREFIX_BYTES,
                    dst, offset, size);
        } catch (LZ4Exception e) {
            throw new CorruptSSTableException(dataPath, start, "compressed chunk " + i + " does not decompress: " + e.getMessage(), e);
        }
        if (n != size) {
            throw new CorruptSSTableException(dataPath, start, "compressed chunk " + i + " decompresses to " + n + " bytes, expected " + size);
        }
        return size;
    }

    /**
     * Reads through one direct buffer of this reader's own, then copies into {@code dst}. Reading
     * into a heap buffer costs the same copy (the JDK stages heap reads through a direct buffer),
     * plus a wrapper object per chunk; this costs nothing per chunk once the buffer has grown to
     * the largest chunk.
     */
    private void readFully(byte[] dst, int offset, int length, long position) throws IOException {
        ByteBuffer b = io;
        if (b == null || b.capacity() < length) {
            b = io = ByteBuffer.allocateDirect(Math.max(length, DataFileLayout.CRC_CHUNK_BYTES + DataFileLayout.CHUNK_CRC_BYTES));
        }
        b.clear().limit(length);
        long p = position;
        while (b.hasRemaining()) {
            int n = channel.read(b, p);
            if (n < 0) {
                throw new CorruptSSTableException(dataPath, p, "Data.db ends after " + p + " bytes; expected " + length
                        + " bytes from byte offset " + position);
            }
            p += n;
        }
        b.flip();
        b.get(dst, offset, length);
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}

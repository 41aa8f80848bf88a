package dev.flushline.sstable;

import dev.flushline.io.ChunkCodec;
import dev.flushline.io.ChunkCodecException;
import dev.flushline.io.DataFileLayout;
import dev.flushline.io.Lz4ChunkCodec;
import dev.flushline.io.NativeMemory;
import dev.flushline.schema.CompressionParams;
import dev.flushline.schema.TableSchema;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;

/**
 * The physical layer of Data.db ({@link DataFileLayout}) as a sequence of logical chunks: each
 * {@link #load} returns one chunk of the uncompressed stream after checking its CRC32 — the
 * CRC.db entry for an uncompressed file, the per-chunk CRC that follows each block of a
 * compressed one — and decompressing it with the codec CompressionInfo.db names (any of
 * Cassandra's five). Every length and offset from CompressionInfo.db or CRC.db is checked against
 * the files before it sizes a read.
 *
 * <p>As liberal as Cassandra's readers, and as strict where they check:
 * <ul>
 *   <li>CompressionInfo.db may hold more chunk offsets than the uncompressed length needs (the
 *       empty last chunk of a compaction's, scrub's or upgrade's output), and bytes after the
 *       offsets; it must hold at least as many as needed, a known compressor and options it takes.
 *   <li>CRC.db may hold more CRCs than Data.db has chunks, if each extra one is 0, the CRC of the
 *       empty chunk those writers add (Cassandra never reads past the chunks it needs; a non-zero
 *       extra CRC can only mean a Data.db cut short, so it is reported).
 *   <li>A chunk stored raw (its length reaches the max compressed length) may be longer than its
 *       logical bytes, up to the chunk length: the zero padding of a short last chunk.
 * </ul>
 *
 * <p>An LZ4 Data.db of at most {@link #MAX_MAPPED_BYTES} is mapped read-only: each chunk's CRC is
 * taken, and the chunk decompressed, where the page cache holds it, instead of after a read into a
 * buffer of ours (that copy was a tenth of a full scan's CPU). Other codecs take a byte[] block, and
 * a bigger file would need several mappings; those are read. The choice is made once, at open.
 * Like Cassandra's mmap access, a mapped file cut short by another process while it is open makes a
 * later read fail with the JVM's InternalError, not a CorruptSSTableException.
 *
 * <p>Thread safety: none. One instance per cursor; it owns the codec and the mapping and closes them.
 */
public final class DataChunks implements AutoCloseable {
    /** The window CompressionInfo.db is read through. */
    private static final int COMPRESSION_INFO_WINDOW_BYTES = 8 * 1024;
    /** The largest Data.db mapped in one piece: a MappedByteBuffer indexes with an int. */
    static final long MAX_MAPPED_BYTES = Integer.MAX_VALUE;
    /** Bound on a chunk length we accept from CompressionInfo.db or CRC.db (Cassandra's largest is 2^30). */
    private static final int MAX_CHUNK_LENGTH = 1 << 30;

    private final Path dataPath;
    /** The sstable's version: what its Data.db's partition deletions and local deletion times mean. */
    private final SSTableVersion version;
    private final FileChannel channel;
    private final long fileLength;
    private final long uncompressedLength;
    private final int chunkLength;
    /** Chunks the uncompressed length needs. */
    private final int chunkCount;
    private final boolean compressed;
    /** Compressed: file offset of each stored chunk, the needed ones and any empty ones after them. */
    private final long[] chunkOffsets;
    private final int maxCompressedLength;
    /** Compressed: the codec CompressionInfo.db names; null when uncompressed. */
    private final ChunkCodec codec;
    private final CompressionParams compression;
    /** Uncompressed: CRC.db's value per chunk, or null when there is no CRC.db or checks are off. */
    private final int[] chunkCrcs;
    private final boolean checkCrc;
    /** Data.db mapped read-only (see the class comment), or null when it is read instead. */
    private final MappedByteBuffer mapped;
    /** A heap buffer over the last destination array a mapped chunk was decompressed into (one per window array). */
    private ByteBuffer mappedDestination;
    /** Set by {@link #close}: a read of an unmapped mapping would crash the JVM, so a load after close is refused. */
    private boolean closed;
    private final CRC32 crc = new CRC32();
    private byte[] raw = new byte[0];
    /** The staging buffer of {@link #readFully}; grown, never shrunk, freed with this reader by the GC. */
    private ByteBuffer io;

    private DataChunks(Path dataPath, FileChannel channel, long fileLength, long uncompressedLength, int chunkLength,
                       int chunkCount, boolean compressed, long[] chunkOffsets, int maxCompressedLength, ChunkCodec codec,
                       CompressionParams compression, int[] chunkCrcs, boolean checkCrc, SSTableVersion version,
                       MappedByteBuffer mapped) {
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
        this.codec = codec;
        this.compression = compression;
        this.chunkCrcs = chunkCrcs;
        this.checkCrc = checkCrc;
        this.mapped = mapped;
    }

    /** Opens Data.db with its CompressionInfo.db (compressed) or CRC.db (if present). */
    public static DataChunks open(SSTableFiles files, boolean checkCrc) throws IOException {
        return open(files, checkCrc, true);
    }

    /** As {@link #open(SSTableFiles, boolean)}; {@code map} false reads an LZ4 Data.db instead of mapping it (tests compare the two). */
    static DataChunks open(SSTableFiles files, boolean checkCrc, boolean map) throws IOException {
        Path dataPath = files.path(Component.DATA);
        FileChannel ch = FileChannel.open(dataPath, StandardOpenOption.READ);
        try {
            long fileLength = ch.size();
            if (files.isCompressed()) return openCompressed(files, dataPath, ch, fileLength, checkCrc, map);
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
                if (in.remaining() % 4 != 0 || in.remaining() / 4 < expected) {
                    throw in.corrupt(in.fileOffset(), "CRC.db holds " + in.remaining() / 4 + " chunk CRCs"
                            + (in.remaining() % 4 != 0 ? " and " + in.remaining() % 4 + " stray bytes" : "") + "; Data.db of "
                            + fileLength + " bytes has " + expected + " chunks of " + chunk);
                }
                crcs = new int[(int) expected];
                for (int i = 0; i < crcs.length; i++) crcs[i] = in.i32("chunk CRC");
                while (in.hasRemaining()) {
                    at = in.fileOffset();
                    int extra = in.i32("extra chunk CRC");
                    if (extra != 0) {
                        throw in.corrupt(at, "CRC.db holds a CRC (" + String.format("%08x", extra) + ") past the " + expected
                                + " chunks of Data.db's " + fileLength + " bytes, and it is not that of an empty chunk:"
                                + " Data.db may have been cut short");
                    }
                }
            }
            int count = (int) Math.max(1, (fileLength + chunk - 1) / chunk);
            return new DataChunks(dataPath, ch, fileLength, fileLength, chunk, count, false, null, 0, null,
                    CompressionParams.NONE, crcs, checkCrc, files.version(), null);
        } catch (IOException | RuntimeException | Error e) {
            ch.close();
            throw e;
        }
    }

    private static DataChunks openCompressed(SSTableFiles files, Path dataPath, FileChannel ch, long fileLength, boolean checkCrc,
                                             boolean map) throws IOException {
        // Streamed: the chunk offsets, 8 bytes per chunk, are read into the array they are kept in,
        // not first into a copy of the whole file.
        try (StreamingReader in = StreamingReader.open(files, Component.COMPRESSION_INFO, COMPRESSION_INFO_WINDOW_BYTES)) {
            return openCompressed(files, dataPath, ch, fileLength, checkCrc, map, in);
        }
    }

    private static DataChunks openCompressed(SSTableFiles files, Path dataPath, FileChannel ch, long fileLength, boolean checkCrc,
                                             boolean map, StreamingReader in) throws IOException {
        long nameAt = in.fileOffset();
        String compressor = in.utf("compressor name");
        if (!isKnownCompressor(compressor)) {
            // Cassandra stores the simple class name and looks for it in its own compressor package,
            // so no other name is one its reader opens either.
            throw in.corrupt(nameAt, "unknown compressor name '" + compressor + "' (Cassandra's are LZ4Compressor, ZstdCompressor,"
                    + " SnappyCompressor, DeflateCompressor and NoopCompressor)");
        }
        long at = in.fileOffset();
        int options = in.i32("compression option count");
        if (options < 0 || options > in.remaining() / 4) throw in.corrupt(at, "compression option count " + options + " is not plausible");
        List<String> pairs = new ArrayList<>(2 * options);
        for (int i = 0; i < options; i++) {
            pairs.add(in.utf("compression option name"));
            pairs.add(in.utf("compression option value"));
        }
        at = in.fileOffset();
        int chunkLength = in.i32("chunk length");
        if (chunkLength <= 0 || chunkLength > MAX_CHUNK_LENGTH || Integer.bitCount(chunkLength) != 1) {
            throw in.corrupt(at, "chunk length " + chunkLength + " is not a power of two up to 2^30");
        }
        at = in.fileOffset();
        int maxCompressed = in.i32("max compressed length");
        if (maxCompressed < 0) throw in.corrupt(at, "max compressed length " + maxCompressed + " is negative");
        CompressionParams params;
        try {
            params = CompressionParams.fromStored(compressor, pairs, chunkLength, maxCompressed);
        } catch (IllegalArgumentException e) {
            throw in.corrupt(nameAt, "the stored compression parameters are not ones " + compressor + " takes: " + e.getMessage());
        }
        at = in.fileOffset();
        long dataLength = in.i64("uncompressed length");
        if (dataLength < 0) throw in.corrupt(at, "uncompressed length " + dataLength + " is negative");
        at = in.fileOffset();
        int count = in.i32("chunk count");
        long expected = Math.max(1, (dataLength + chunkLength - 1) / chunkLength);
        if (count < expected || expected > Integer.MAX_VALUE) {
            throw in.corrupt(at, "chunk count " + count + " does not cover " + dataLength + " bytes in chunks of " + chunkLength
                    + " (" + expected + " needed)");
        }
        if ((long) count * DataFileLayout.CHUNK_OFFSET_BYTES > in.remaining()) {
            throw in.corrupt(at, "chunk count " + count + " needs " + (long) count * DataFileLayout.CHUNK_OFFSET_BYTES
                    + " bytes of chunk offsets; CompressionInfo.db holds " + in.remaining() + " after it");
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
        // Bytes after the offsets are left unread, as Cassandra leaves them.
        ChunkCodec codec = ChunkCodecs.open(params);
        MappedByteBuffer mapped = null;
        try {
            if (map && codec instanceof Lz4ChunkCodec && fileLength <= MAX_MAPPED_BYTES) mapped = ch.map(FileChannel.MapMode.READ_ONLY, 0, fileLength);
        } catch (IOException | RuntimeException | Error e) {
            codec.close();
            throw e;
        }
        return new DataChunks(dataPath, ch, fileLength, dataLength, chunkLength, (int) expected, true, offsets, maxCompressed,
                codec, params, null, checkCrc, files.version(), mapped);
    }

    private static boolean isKnownCompressor(String name) {
        String full = name.contains(".") ? name : CompressionParams.COMPRESSOR_PACKAGE + name;
        for (TableSchema.Compression c : TableSchema.Compression.values()) {
            if (c.compressorName() != null && full.equals(CompressionParams.COMPRESSOR_PACKAGE + c.compressorName())) return true;
        }
        return false;
    }

    public Path dataPath() { return dataPath; }

    public SSTableVersion version() { return version; }

    public boolean isCompressed() { return compressed; }

    /** Whether Data.db is mapped rather than read (see the class comment). */
    boolean isMapped() { return mapped != null; }

    /** What CompressionInfo.db says (codec, chunk length, max compressed length, options); {@link CompressionParams#NONE} when uncompressed. */
    public CompressionParams compression() { return compression; }

    /** Length of the uncompressed stream. */
    public long length() { return uncompressedLength; }

    public int chunkLength() { return chunkLength; }

    /** Chunks holding the uncompressed stream (empty chunks stored after them not counted). */
    public int chunkCount() { return chunkCount; }

    /** Chunks CompressionInfo.db lists beyond {@link #chunkCount()}: the empty last chunk some of Cassandra's writers add. */
    public int extraChunkCount() { return compressed ? chunkOffsets.length - chunkCount : 0; }

    /** Logical bytes in chunk {@code i}. */
    /** Where stored chunk {@code i} starts in Data.db (compressed files; an extra chunk's too). */
    public long chunkOffset(int i) {
        return chunkOffsets[i];
    }

    /** Stored chunks, the extra ones included (compressed files). */
    public int storedChunkCount() {
        return chunkOffsets.length;
    }

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
        if (mapped != null) return loadMapped(i, dst, offset, size);
        long start = chunkOffsets[i];
        int len = readStoredChunk(i);
        if (len >= maxCompressedLength) {
            checkRawLength(i, start, len, size);
            System.arraycopy(raw, 0, dst, offset, size);
            return size;
        }
        try {
            ChunkCodec.decompress(codec, raw, 0, len, dst, offset, size);
        } catch (ChunkCodecException e) {
            throw decompressFailed(i, start, len, e);
        }
        return size;
    }

    /** A chunk stored raw (min_compress_ratio) may be zero-padded up to the chunk length, never shorter than its bytes. */
    private void checkRawLength(int i, long start, int len, int size) {
        if (len < size || len > chunkLength) {
            throw new CorruptSSTableException(dataPath, start, "chunk " + i + " is stored raw in " + len + " bytes; it holds "
                    + size + " bytes in chunks of " + chunkLength);
        }
    }

    private CorruptSSTableException decompressFailed(int i, long start, int len, ChunkCodecException e) {
        return new CorruptSSTableException(dataPath, start, "compressed chunk " + i + " (" + len + " bytes from byte offset "
                + start + ", " + compression.codec().compressorName() + "): " + e.getMessage(), e);
    }

    private CorruptSSTableException crcMismatch(int i, long start, int len) {
        return new CorruptSSTableException(dataPath, start + len, "CRC mismatch of compressed chunk " + i
                + " (" + len + " bytes from byte offset " + start + ")");
    }

    /** {@link #load} of a compressed chunk from the mapping: the same checks, the same messages, no copy of the block. */
    private int loadMapped(int i, byte[] dst, int offset, int size) throws IOException {
        if (closed) throw new IllegalStateException("chunk " + i + " of " + dataPath + " loaded after the reader was closed");
        final MappedByteBuffer m = mapped;
        final long start = chunkOffsets[i];
        final int len = storedLength(i);
        final int at = (int) start; // the whole file is mapped, so every offset in it fits an int
        if (checkCrc) {
            crc.reset();
            m.limit(at + len).position(at);
            crc.update(m);
            m.clear();
            if ((int) crc.getValue() != m.getInt(at + len)) throw crcMismatch(i, start, len);
        }
        if (len >= maxCompressedLength) {
            checkRawLength(i, start, len, size);
            m.get(at, dst, offset, size);
            return size;
        }
        ByteBuffer d = mappedDestination;
        if (d == null || d.array() != dst) d = mappedDestination = ByteBuffer.wrap(dst);
        try {
            ((Lz4ChunkCodec) codec).decompress(m, at, len, d, offset, size);
        } catch (ChunkCodecException e) {
            throw decompressFailed(i, start, len, e);
        }
        return size;
    }

    /**
     * Checks the chunks stored after the last needed one (see {@link #extraChunkCount()}): each
     * must pass its CRC and hold no logical bytes. Cassandra never reads them; verify does, since
     * Digest.crc32 may be absent.
     */
    public void checkExtraChunks() throws IOException {
        if (!compressed) return;
        byte[] none = new byte[0];
        for (int i = chunkCount; i < chunkOffsets.length; i++) {
            int len = readStoredChunk(i);
            if (len >= maxCompressedLength) continue; // raw: padding only, nothing to decompress
            try {
                ChunkCodec.decompress(codec, raw, 0, len, none, 0, 0);
            } catch (ChunkCodecException e) {
                throw new CorruptSSTableException(dataPath, chunkOffsets[i], "chunk " + i + ", past the end of the data, is not an"
                        + " empty chunk: " + e.getMessage(), e);
            }
        }
    }

    /** Reads stored chunk {@code i} and its CRC into {@link #raw}, checks the CRC (if checking), and returns its length. */
    private int readStoredChunk(int i) throws IOException {
        long start = chunkOffsets[i];
        int len = storedLength(i);
        if (raw.length < len + DataFileLayout.CHUNK_CRC_BYTES) growRaw(len + DataFileLayout.CHUNK_CRC_BYTES);
        readFully(raw, 0, len + DataFileLayout.CHUNK_CRC_BYTES, start);
        if (checkCrc) {
            crc.reset();
            crc.update(raw, 0, len);
            if ((int) crc.getValue() != BoundedReader.getInt(raw, len)) throw crcMismatch(i, start, len);
        }
        return len;
    }

    /** Bytes of stored chunk {@code i}'s block, its CRC not counted: up to the next chunk's offset, or the file's end. */
    private int storedLength(int i) {
        long start = chunkOffsets[i];
        long end = i + 1 < chunkOffsets.length ? chunkOffsets[i + 1] : fileLength;
        long onDisk = end - start - DataFileLayout.CHUNK_CRC_BYTES;
        if (onDisk < 0 || onDisk > Integer.MAX_VALUE - 16) {
            throw new CorruptSSTableException(dataPath, start, "chunk " + i + " has an impossible on-disk length " + onDisk);
        }
        return (int) onDisk;
    }

    /**
     * Cold path: room for a stored chunk and its CRC. Sized at once for the largest chunk the
     * codec can store (a block of a full chunk, or the raw chunk), so the buffer is not regrown
     * each time a chunk compresses a little worse than every one before it.
     */
    private void growRaw(int bytes) {
        long largest = (long) Math.max(chunkLength, codec.maxCompressedLength(chunkLength)) + DataFileLayout.CHUNK_CRC_BYTES;
        raw = new byte[(int) Math.max(bytes, Math.min(largest, Integer.MAX_VALUE - 16))];
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
        if (closed) return;
        closed = true;
        try {
            channel.close();
        } finally {
            try {
                if (codec != null) codec.close();
            } finally {
                // Unmapped now, not when the collector gets to it: a compaction deletes its inputs, and
                // their disk space comes back only once no mapping holds them.
                if (mapped != null) NativeMemory.unmap(mapped);
            }
        }
    }
}

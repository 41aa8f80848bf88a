package dev.flushline.compare;

import dev.flushline.io.DataFileLayout;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.DataChunks;
import dev.flushline.sstable.SSTableFiles;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;

/**
 * The codec floor of one compaction: the CPU, on one thread, of the work on the data's bytes that no compactor
 * of these sstables can avoid, done once over the same bytes. It says how far each system is from that work.
 *
 * <ul>
 * <li><b>Inputs</b>, every Data.db read in: per chunk, the CRC32 checked against the one stored (after each LZ4
 *     block; in CRC.db for an uncompressed file), and for LZ4 the block decompressed
 *     ({@code safeDecompressor}).</li>
 * <li><b>Outputs</b>, the uncompressed content of the compaction's Data.db written out: for LZ4, per chunk of the
 *     table's chunk length, the length prefix, the block compressed ({@code fastCompressor}, what Flushline and
 *     Cassandra use), the CRC32 over prefix and block; uncompressed, the CRC32 of each CRC.db chunk. Then the
 *     Digest: the CRC32 of the whole Data.db as written.</li>
 * </ul>
 * Codec and checksum: lz4-java's {@code LZ4Factory.fastestInstance()} and {@code java.util.zip.CRC32}, the
 * implementations both Flushline and Cassandra call. The layouts are {@link DataFileLayout}'s.
 *
 * <p>Left out on purpose: reading the files (the bytes are in memory before the clock starts), parsing and
 * merging rows, serializing them, the index, filter and statistics components, and writing to disk. So the floor
 * is a lower bound on CPU, not a target for wall time. {@link #prepare} loads everything unmeasured; {@link #run}
 * is the measured part, and checks the result: every input CRC must match, and the Digest it computes for the
 * output must equal the output's Digest.crc32, which proves it compressed and summed the very bytes the
 * compaction wrote.
 *
 * <p>Not thread-safe; {@link #run} uses the caller's thread only.
 */
final class CodecFloor {
    private static final LZ4Factory LZ4 = LZ4Factory.fastestInstance();
    private static final LZ4Compressor COMPRESSOR = LZ4.fastCompressor();
    private static final LZ4SafeDecompressor DECOMPRESSOR = LZ4.safeDecompressor();

    /** One input Data.db in memory, with where its chunks start. */
    private static final class Input {
        final Path path;
        final byte[] data;
        final boolean compressed;
        /** Compressed: each chunk's offset. Uncompressed: null. */
        final long[] chunkOffsets;
        /** Uncompressed: CRC.db's value per chunk, or null without CRC.db. */
        final int[] chunkCrcs;
        final int chunkLength;

        Input(Path path, byte[] data, boolean compressed, long[] chunkOffsets, int[] chunkCrcs, int chunkLength) {
            this.path = path;
            this.data = data;
            this.compressed = compressed;
            this.chunkOffsets = chunkOffsets;
            this.chunkCrcs = chunkCrcs;
            this.chunkLength = chunkLength;
        }
    }

    /** Everything {@link #run} needs, in memory. */
    static final class Prepared {
        final List<Input> inputs = new ArrayList<>();
        final List<byte[]> outputs = new ArrayList<>();
        final List<Long> outputDigests = new ArrayList<>();
        final List<Path> outputPaths = new ArrayList<>();
        boolean compressed;
        int outputChunkLength;
        long inputBytes, outputUncompressedBytes;
    }

    /** What the measured pass did; CPU per part is the calling thread's. */
    static final class Result {
        long inputCpuNanos, outputCpuNanos;
        long inputChunks, outputChunks, outputBytesWritten;
        String digestCheck = "";
    }

    private CodecFloor() {}

    /** Reads the inputs' Data.db (with their chunk maps) and the uncompressed content of each output, unmeasured. */
    static Prepared prepare(List<SSTableFiles> inputs, List<Path> outputDataFiles) throws IOException {
        Prepared p = new Prepared();
        for (SSTableFiles f : inputs) {
            Path data = f.path(Component.DATA);
            byte[] bytes = readSmall(data);
            p.inputBytes += bytes.length;
            if (f.isCompressed()) {
                p.inputs.add(compressedInput(data, bytes, f.readAll(Component.COMPRESSION_INFO)));
            } else {
                int[] crcs = null;
                int chunk = DataFileLayout.CRC_CHUNK_BYTES;
                if (f.has(Component.CRC)) {
                    DataInputStream in = new DataInputStream(new ByteArrayInputStream(f.readAll(Component.CRC)));
                    chunk = in.readInt();
                    int n = (int) Math.max(1, (bytes.length + (long) chunk - 1) / chunk);
                    crcs = new int[n];
                    for (int i = 0; i < n; i++) crcs[i] = in.readInt();
                }
                p.inputs.add(new Input(data, bytes, false, null, crcs, chunk));
            }
        }
        for (Path out : outputDataFiles) {
            SSTableFiles f = SSTableFiles.of(out);
            p.compressed = f.isCompressed();
            try (DataChunks chunks = DataChunks.open(f, true)) {
                if (chunks.length() > Integer.MAX_VALUE - 16) {
                    throw new IOException("codec floor: " + out + " holds " + chunks.length() + " uncompressed bytes, more than one array");
                }
                byte[] content = new byte[(int) chunks.length()];
                int at = 0;
                for (int i = 0; i < chunks.chunkCount(); i++) at += chunks.load(i, content, at);
                if (at != content.length) throw new IOException("codec floor: read " + at + " of " + content.length + " bytes of " + out);
                p.outputs.add(content);
                p.outputUncompressedBytes += content.length;
                p.outputChunkLength = p.compressed ? chunks.chunkLength() : DataFileLayout.CRC_CHUNK_BYTES;
            }
            p.outputPaths.add(out);
            p.outputDigests.add(f.has(Component.DIGEST)
                    ? Long.parseLong(new String(f.readAll(Component.DIGEST), StandardCharsets.US_ASCII).trim()) : -1L);
        }
        return p;
    }

    private static byte[] readSmall(Path p) throws IOException {
        long size = Files.size(p);
        if (size > Integer.MAX_VALUE - 16) throw new IOException("codec floor: " + p + " (" + size + " bytes) is larger than one array");
        return Files.readAllBytes(p);
    }

    /** CompressionInfo.db as {@link DataFileLayout} draws it: name, options, chunk length, max, length, count, offsets. */
    private static Input compressedInput(Path data, byte[] bytes, byte[] info) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(info));
        String compressor = in.readUTF();
        if (!compressor.equals(DataFileLayout.LZ4_COMPRESSOR_NAME)) {
            throw new IOException("codec floor: " + data + " is compressed with " + compressor + "; the floor knows "
                    + DataFileLayout.LZ4_COMPRESSOR_NAME);
        }
        int options = in.readInt();
        for (int i = 0; i < options; i++) {
            in.readUTF();
            in.readUTF();
        }
        int chunkLength = in.readInt();
        int maxCompressed = in.readInt();
        if (maxCompressed != DataFileLayout.UNBOUNDED_MAX_COMPRESSED_LENGTH) {
            throw new IOException("codec floor: " + data + " may hold raw chunks (max compressed length " + maxCompressed
                    + "); the floor handles the table default only, every chunk compressed");
        }
        in.readLong(); // uncompressed length
        int count = in.readInt();
        long[] offsets = new long[count];
        for (int i = 0; i < count; i++) offsets[i] = in.readLong();
        return new Input(data, bytes, true, offsets, null, chunkLength);
    }

    /** The measured pass, on the calling thread (see the class comment). */
    static Result run(Prepared p) throws IOException {
        Result r = new Result();
        long thread = Thread.currentThread().getId();
        CRC32 crc = new CRC32();
        long cpu0 = Costs.cpu(thread);
        int maxChunk = 1;
        for (int k = 0; k < p.inputs.size(); k++) maxChunk = Math.max(maxChunk, p.inputs.get(k).chunkLength);
        byte[] scratch = new byte[maxChunk];
        for (int k = 0; k < p.inputs.size(); k++) {
            Input in = p.inputs.get(k);
            r.inputChunks += in.compressed ? checkAndDecompress(in, scratch, crc) : check(in, crc);
        }
        long cpu1 = Costs.cpu(thread);
        int chunk = Math.max(1, p.outputChunkLength);
        byte[] block = new byte[DataFileLayout.LZ4_LENGTH_PREFIX_BYTES + COMPRESSOR.maxCompressedLength(chunk)
                + DataFileLayout.CHUNK_CRC_BYTES];
        CRC32 digest = new CRC32();
        StringBuilder checks = new StringBuilder();
        for (int k = 0; k < p.outputs.size(); k++) {
            byte[] out = p.outputs.get(k);
            digest.reset();
            if (p.compressed) {
                int pos = 0;
                do {
                    int n = Math.min(chunk, out.length - pos);
                    putIntLE(block, 0, n);
                    int c = COMPRESSOR.compress(out, pos, n, block, DataFileLayout.LZ4_LENGTH_PREFIX_BYTES,
                            block.length - DataFileLayout.LZ4_LENGTH_PREFIX_BYTES - DataFileLayout.CHUNK_CRC_BYTES);
                    int end = DataFileLayout.LZ4_LENGTH_PREFIX_BYTES + c;
                    crc.reset();
                    crc.update(block, 0, end);
                    putIntBE(block, end, (int) crc.getValue());
                    digest.update(block, 0, end + DataFileLayout.CHUNK_CRC_BYTES);
                    r.outputBytesWritten += end + DataFileLayout.CHUNK_CRC_BYTES;
                    r.outputChunks++;
                    pos += n;
                } while (pos < out.length);
            } else {
                for (int pos = 0; pos < out.length; pos += chunk) {
                    crc.reset();
                    crc.update(out, pos, Math.min(chunk, out.length - pos));
                    r.outputChunks++;
                }
                digest.update(out, 0, out.length);
                r.outputBytesWritten += out.length;
            }
            long expected = p.outputDigests.get(k);
            if (checks.length() > 0) checks.append("; ");
            checks.append(expected < 0 ? "no Digest.crc32 to check against"
                    : digest.getValue() == expected ? "Digest matches the output's"
                    : "Digest " + digest.getValue() + " differs from the output's " + expected + " (" + p.outputPaths.get(k) + ")");
        }
        long cpu2 = Costs.cpu(thread);
        r.inputCpuNanos = cpu1 - cpu0;
        r.outputCpuNanos = cpu2 - cpu1;
        r.digestCheck = p.outputs.isEmpty() ? "no output" : checks.toString();
        return r;
    }

    private static int checkAndDecompress(Input in, byte[] scratch, CRC32 crc) throws IOException {
        byte[] d = in.data;
        long[] offsets = in.chunkOffsets;
        for (int i = 0; i < offsets.length; i++) {
            int off = (int) offsets[i];
            int end = i + 1 < offsets.length ? (int) offsets[i + 1] : d.length;
            int blockLength = end - off - DataFileLayout.LZ4_LENGTH_PREFIX_BYTES - DataFileLayout.CHUNK_CRC_BYTES;
            int crcAt = off + DataFileLayout.LZ4_LENGTH_PREFIX_BYTES + blockLength;
            crc.reset();
            crc.update(d, off, DataFileLayout.LZ4_LENGTH_PREFIX_BYTES + blockLength);
            if ((int) crc.getValue() != getIntBE(d, crcAt)) {
                throw new IOException("codec floor: chunk " + i + " of " + in.path + " (offset " + off + ") fails its CRC");
            }
            int rawLength = getIntLE(d, off);
            int n = DECOMPRESSOR.decompress(d, off + DataFileLayout.LZ4_LENGTH_PREFIX_BYTES, blockLength, scratch, 0, scratch.length);
            if (n != rawLength) {
                throw new IOException("codec floor: chunk " + i + " of " + in.path + " decompressed to " + n + " bytes, its prefix says " + rawLength);
            }
        }
        return offsets.length;
    }

    private static int check(Input in, CRC32 crc) throws IOException {
        byte[] d = in.data;
        int chunks = 0;
        for (int pos = 0, i = 0; pos < d.length; pos += in.chunkLength, i++) {
            crc.reset();
            crc.update(d, pos, Math.min(in.chunkLength, d.length - pos));
            if (in.chunkCrcs != null && (int) crc.getValue() != in.chunkCrcs[i]) {
                throw new IOException("codec floor: chunk " + i + " of " + in.path + " fails its CRC.db entry");
            }
            chunks++;
        }
        return chunks;
    }

    private static int getIntBE(byte[] b, int at) {
        return (b[at] & 0xff) << 24 | (b[at + 1] & 0xff) << 16 | (b[at + 2] & 0xff) << 8 | (b[at + 3] & 0xff);
    }

    private static int getIntLE(byte[] b, int at) {
        return (b[at] & 0xff) | (b[at + 1] & 0xff) << 8 | (b[at + 2] & 0xff) << 16 | (b[at + 3] & 0xff) << 24;
    }

    private static void putIntBE(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
    }

    private static void putIntLE(byte[] b, int at, int v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >>> 8);
        b[at + 2] = (byte) (v >>> 16);
        b[at + 3] = (byte) (v >>> 24);
    }
}

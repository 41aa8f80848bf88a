package dev.flushline.compare;

import dev.flushline.io.ChunkCodec;
import dev.flushline.io.ChunkCodecException;
import dev.flushline.io.Crc32Combine;
import dev.flushline.io.DataFileLayout;
import dev.flushline.schema.CompressionParams;
import dev.flushline.sstable.ChunkCodecs;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.DataChunks;
import dev.flushline.sstable.SSTableFiles;

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
 * <li><b>Inputs</b>, every Data.db read in: per stored chunk, the CRC32 checked against the one stored (after each
 *     block; in CRC.db for an uncompressed file), and each compressed block decompressed with the input's own
 *     codec (a chunk stored raw is only checked).</li>
 * <li><b>Outputs</b>, the uncompressed content of the compaction's Data.db written out: compressed, per chunk of
 *     its chunk length, the block compressed with the output's codec (stored raw where it reaches the max
 *     compressed length, as the writers do) and the CRC32 over what is stored; uncompressed, the CRC32 of each
 *     CRC.db chunk. Then the Digest, the CRC32 of the whole Data.db as written, composed from those chunk CRCs
 *     ({@code Crc32Combine}, as the writers compose it) rather than by a second pass over the bytes.</li>
 * </ul>
 * Codecs and checksum: the codec classes Flushline's readers and writers use ({@code ChunkCodec}, through the same
 * libraries Cassandra calls) and {@code java.util.zip.CRC32}. The layouts are {@link DataFileLayout}'s.
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
    /** One input Data.db in memory, with where its chunks start. */
    private static final class Input {
        final Path path;
        final byte[] data;
        final boolean compressed;
        /** Compressed: each stored chunk's offset. Uncompressed: null. */
        final long[] chunkOffsets;
        /** Uncompressed: CRC.db's value per chunk, or null without CRC.db. */
        final int[] chunkCrcs;
        final int chunkLength;
        /** Compressed: the logical length, the max compressed length and the codec (owned). */
        final long uncompressedLength;
        final int maxCompressedLength;
        final ChunkCodec codec;

        Input(Path path, byte[] data, boolean compressed, long[] chunkOffsets, int[] chunkCrcs, int chunkLength,
              long uncompressedLength, int maxCompressedLength, ChunkCodec codec) {
            this.path = path;
            this.data = data;
            this.compressed = compressed;
            this.chunkOffsets = chunkOffsets;
            this.chunkCrcs = chunkCrcs;
            this.chunkLength = chunkLength;
            this.uncompressedLength = uncompressedLength;
            this.maxCompressedLength = maxCompressedLength;
            this.codec = codec;
        }
    }

    /** Everything {@link #run} needs, in memory; closing it releases the inputs' codecs. */
    static final class Prepared implements AutoCloseable {
        final List<Input> inputs = new ArrayList<>();
        final List<byte[]> outputs = new ArrayList<>();
        final List<Long> outputDigests = new ArrayList<>();
        final List<Path> outputPaths = new ArrayList<>();
        boolean compressed;
        int outputChunkLength;
        /** The outputs' compression (their CompressionInfo.db), when compressed. */
        CompressionParams outputCompression;
        long inputBytes, outputUncompressedBytes;

        @Override
        public void close() {
            for (Input in : inputs) {
                if (in.codec != null) in.codec.close();
            }
        }
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
                p.inputs.add(compressedInput(f, data, bytes));
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
                p.inputs.add(new Input(data, bytes, false, null, crcs, chunk, bytes.length, 0, null));
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
                if (p.compressed) p.outputCompression = chunks.compression();
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

    /** A compressed input: its chunk map and codec from our reader of CompressionInfo.db (any codec Cassandra writes). */
    private static Input compressedInput(SSTableFiles f, Path data, byte[] bytes) throws IOException {
        try (DataChunks chunks = DataChunks.open(f, false)) {
            long[] offsets = new long[chunks.storedChunkCount()];
            for (int i = 0; i < offsets.length; i++) offsets[i] = chunks.chunkOffset(i);
            CompressionParams c = chunks.compression();
            return new Input(data, bytes, true, offsets, null, chunks.chunkLength(), chunks.length(), c.maxCompressedLengthBytes(),
                    ChunkCodecs.open(c));
        }
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
        ChunkCodec codec = p.compressed ? ChunkCodecs.open(p.outputCompression) : null;
        int maxCompressed = p.compressed ? p.outputCompression.maxCompressedLengthBytes() : 0;
        byte[] block = new byte[(p.compressed ? Math.max(codec.maxCompressedLength(chunk), chunk) : 0) + DataFileLayout.CHUNK_CRC_BYTES];
        StringBuilder checks = new StringBuilder();
        try {
            for (int k = 0; k < p.outputs.size(); k++) {
                byte[] out = p.outputs.get(k);
                int digest = 0;
                if (p.compressed) {
                    int pos = 0;
                    do {
                        int n = Math.min(chunk, out.length - pos);
                        int c = ChunkCodec.compress(codec, out, pos, n, block, 0);
                        if (c >= maxCompressed) { // stored raw, zero-padded up to the max compressed length
                            System.arraycopy(out, pos, block, 0, n);
                            c = Math.max(n, Math.min(maxCompressed, chunk));
                            java.util.Arrays.fill(block, n, c, (byte) 0);
                        }
                        crc.reset();
                        crc.update(block, 0, c);
                        putIntBE(block, c, (int) crc.getValue());
                        crc.update(block, c, DataFileLayout.CHUNK_CRC_BYTES); // the block and its CRC, for the Digest
                        digest = Crc32Combine.combine(digest, (int) crc.getValue(), c + DataFileLayout.CHUNK_CRC_BYTES);
                        r.outputBytesWritten += c + DataFileLayout.CHUNK_CRC_BYTES;
                        r.outputChunks++;
                        pos += n;
                    } while (pos < out.length);
                } else {
                    for (int pos = 0; pos < out.length; pos += chunk) {
                        int n = Math.min(chunk, out.length - pos);
                        crc.reset();
                        crc.update(out, pos, n);
                        digest = Crc32Combine.combine(digest, (int) crc.getValue(), n);
                        r.outputChunks++;
                    }
                    r.outputBytesWritten += out.length;
                }
                long expected = p.outputDigests.get(k);
                if (checks.length() > 0) checks.append("; ");
                checks.append(expected < 0 ? "no Digest.crc32 to check against"
                        : (digest & 0xFFFFFFFFL) == expected ? "Digest matches the output's"
                        : "Digest " + (digest & 0xFFFFFFFFL) + " differs from the output's " + expected + " (" + p.outputPaths.get(k) + ")");
            }
        } finally {
            if (codec != null) codec.close();
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
            int blockLength = end - off - DataFileLayout.CHUNK_CRC_BYTES;
            crc.reset();
            crc.update(d, off, blockLength);
            if ((int) crc.getValue() != getIntBE(d, off + blockLength)) {
                throw new IOException("codec floor: chunk " + i + " of " + in.path + " (offset " + off + ") fails its CRC");
            }
            long logicalStart = (long) i * in.chunkLength;
            int size = (int) Math.max(0, Math.min(in.chunkLength, in.uncompressedLength - logicalStart));
            if (size == 0 || blockLength >= in.maxCompressedLength) continue; // an empty extra chunk, or stored raw
            try {
                ChunkCodec.decompress(in.codec, d, off, blockLength, scratch, 0, size);
            } catch (ChunkCodecException e) {
                throw new IOException("codec floor: chunk " + i + " of " + in.path + " does not decompress: " + e.getMessage(), e);
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

    private static void putIntBE(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
    }

}

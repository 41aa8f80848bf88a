package dev.flushline.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;

import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import org.apache.cassandra.db.ClusteringComparator;
import org.apache.cassandra.io.compress.CompressedSequentialWriter;
import org.apache.cassandra.io.sstable.metadata.MetadataCollector;
import org.apache.cassandra.io.util.File;
import org.apache.cassandra.io.util.SequentialWriterOption;
import org.apache.cassandra.schema.CompressionParams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Our Data.db + CompressionInfo.db + Digest.crc32 for every codec against Cassandra 5.0.9's own
 * CompressedSequentialWriter given the same bytes and CompressionParams: byte for byte, with the
 * same compression ratio, and read back both by our codecs and by Cassandra's compressors.
 */
class CompressedDataSinkTest {
    @TempDir
    Path dir;

    /** Captures the ratio Cassandra's writer hands to Statistics.db. */
    private static final class RatioCapture extends MetadataCollector {
        RatioCapture() {
            super(new ClusteringComparator());
        }

        double ratio() {
            return compressionRatio;
        }
    }

    private CompressedDataSink ours(byte[] data, String prefix, int chunkBytes, int maxCompressedBytes) throws IOException {
        return ours(data, prefix, new Lz4ChunkCodec(), new String[0], chunkBytes, maxCompressedBytes);
    }

    private CompressedDataSink ours(byte[] data, String prefix, ChunkCodec codec, String[] options, int chunkBytes,
                                    int maxCompressedBytes) throws IOException {
        CompressedDataSink sink = new CompressedDataSink(dir.resolve(prefix + "-Data.db"),
                dir.resolve(prefix + "-CompressionInfo.db"), dir.resolve(prefix + "-Digest.crc32"),
                codec, options, chunkBytes, maxCompressedBytes, 8192);
        SinkTestData.writeInPieces(sink, data, data.length ^ chunkBytes);
        sink.finish();
        return sink;
    }

    /** Our codec for Cassandra's compressor, configured from its stored options, as the sstable layer picks it. */
    static ChunkCodec codecFor(CompressionParams params) {
        Map<String, String> o = params.getOtherOptions();
        switch (params.getSstableCompressor().getClass().getSimpleName()) {
            case "LZ4Compressor":
                return new Lz4ChunkCodec("high".equals(o.get("lz4_compressor_type")),
                        Integer.parseInt(o.getOrDefault("lz4_high_compressor_level", "9")));
            case "ZstdCompressor": return new ZstdChunkCodec(Integer.parseInt(o.getOrDefault("compression_level", "3")));
            case "SnappyCompressor": return new SnappyChunkCodec();
            case "DeflateCompressor": return new DeflateChunkCodec();
            case "NoopCompressor": return new NoopChunkCodec();
            default: throw new AssertionError(params);
        }
    }

    static String[] optionPairs(CompressionParams params) {
        List<String> pairs = new ArrayList<>();
        for (Map.Entry<String, String> e : params.getOtherOptions().entrySet()) {
            pairs.add(e.getKey());
            pairs.add(e.getValue());
        }
        return pairs.toArray(new String[0]);
    }

    /** Writes the same bytes with Cassandra 5.0.9's CompressedSequentialWriter and compares all outputs. */
    private void compareWithCassandra(byte[] data, String prefix, CompressionParams params) throws IOException {
        CassandraClient.init();
        CompressedDataSink sink = ours(data, prefix, codecFor(params), optionPairs(params), params.chunkLength(),
                params.maxCompressedLength());

        Path cData = dir.resolve("c-" + prefix + "-Data.db");
        Path cInfo = dir.resolve("c-" + prefix + "-CompressionInfo.db");
        Path cDigest = dir.resolve("c-" + prefix + "-Digest.crc32");
        RatioCapture collector = new RatioCapture();
        try (CompressedSequentialWriter w = new CompressedSequentialWriter(new File(cData), new File(cInfo),
                new File(cDigest), SequentialWriterOption.DEFAULT, params, collector)) {
            w.write(data);
            w.finish();
        }
        String what = prefix + " (" + data.length + " bytes)";
        assertArrayEquals(Files.readAllBytes(cData), Files.readAllBytes(sink.dataPath()), "Data.db " + what);
        assertArrayEquals(Files.readAllBytes(cInfo), Files.readAllBytes(sink.companionPath()), "CompressionInfo.db " + what);
        assertEquals(Files.readString(cDigest), Files.readString(sink.digestPath()), "Digest.crc32 " + what);
        assertEquals(Long.parseLong(Files.readString(cDigest)), sink.digestCrc32());
        assertEquals(collector.ratio(), sink.compressionRatio(), "compression ratio " + what);
        assertEquals(data.length, sink.uncompressedPosition());
        assertReadsBack(data, sink, params);
    }

    /**
     * Both ways back: every stored chunk through our codec (as the sstable reader splits it) and
     * through Cassandra's compressor, raw chunks by their length, and each gives the data.
     */
    private static void assertReadsBack(byte[] data, CompressedDataSink sink, CompressionParams params) throws IOException {
        byte[] file = Files.readAllBytes(sink.dataPath());
        DataInputStream info = new DataInputStream(new ByteArrayInputStream(Files.readAllBytes(sink.companionPath())));
        info.readUTF();
        int options = info.readInt();
        for (int i = 0; i < 2 * options; i++) info.readUTF();
        int chunkLength = info.readInt();
        int maxCompressed = info.readInt();
        assertEquals(data.length, info.readLong());
        int chunks = info.readInt();
        long[] offsets = new long[chunks + 1];
        for (int i = 0; i < chunks; i++) offsets[i] = info.readLong();
        offsets[chunks] = file.length;
        try (ChunkCodec codec = codecFor(params)) {
            for (int i = 0; i < chunks; i++) {
                int start = (int) offsets[i];
                int stored = (int) (offsets[i + 1] - offsets[i]) - 4;
                int size = Math.min(chunkLength, data.length - i * chunkLength);
                byte[] expected = java.util.Arrays.copyOfRange(data, i * chunkLength, i * chunkLength + size);
                if (stored >= maxCompressed) {
                    assertArrayEquals(expected, java.util.Arrays.copyOfRange(file, start, start + size), "raw chunk " + i);
                    continue;
                }
                byte[] ourOut = new byte[size];
                ChunkCodec.decompress(codec, file, start, stored, ourOut, 0, size);
                assertArrayEquals(expected, ourOut, "chunk " + i + " through our codec");
                ByteBuffer in = ByteBuffer.wrap(file, start, stored).slice();
                ByteBuffer cOut = params.getSstableCompressor().preferredBufferType() == org.apache.cassandra.io.compress.BufferType.OFF_HEAP
                        ? ByteBuffer.allocateDirect(chunkLength) : ByteBuffer.allocate(chunkLength);
                ByteBuffer cIn = params.getSstableCompressor().preferredBufferType() == org.apache.cassandra.io.compress.BufferType.OFF_HEAP
                        ? ByteBuffer.allocateDirect(stored).put(in).flip() : in;
                params.getSstableCompressor().uncompress(cIn, cOut);
                cOut.flip();
                byte[] theirs = new byte[cOut.remaining()];
                cOut.get(theirs);
                assertArrayEquals(expected, theirs, "chunk " + i + " through Cassandra's " + params.getSstableCompressor());
            }
        }
    }

    @Test
    void tableDefaultMatchesCassandraByteForByte() throws IOException {
        // 16 KiB chunks, max compressed length unbounded: what CREATE TABLE gives by default.
        CompressionParams tableDefault = CompressionParams.lz4(16384, Integer.MAX_VALUE);
        compareWithCassandra(SinkTestData.semiCompressible(300_000, 5), "semi", tableDefault);
        compareWithCassandra(SinkTestData.random(50_000, 6), "random", tableDefault);
        compareWithCassandra(SinkTestData.semiCompressible(3 * 16384, 7), "exact", tableDefault);
        compareWithCassandra(new byte[0], "empty", tableDefault);
        compareWithCassandra(new byte[1], "one", tableDefault);
    }

    @Test
    void otherChunkLengthMatchesCassandra() throws IOException {
        compareWithCassandra(SinkTestData.semiCompressible(100_000, 8), "c4k", CompressionParams.lz4(4096, Integer.MAX_VALUE));
    }

    /**
     * Thousands of chunks: their offsets stream into CompressionInfo.db over several of its write
     * blocks, and the header's length and count, filled in last, still make Cassandra's bytes.
     */
    @Test
    void manyChunksMatchCassandra() throws IOException {
        compareWithCassandra(SinkTestData.semiCompressible(3500 * 4096 + 123, 9), "many", CompressionParams.lz4(4096, Integer.MAX_VALUE));
    }

    /**
     * CompressionParams.lz4() (no arguments) bounds max compressed length at the chunk length, so
     * incompressible chunks are stored raw and a short incompressible tail is zero-padded.
     */
    @Test
    void boundedMaxCompressedLengthStoresRawLikeCassandra() throws IOException {
        byte[] semi = SinkTestData.semiCompressible(6 * 16384, 9); // chunk-aligned, so the next two parts are whole chunks
        byte[] tail = SinkTestData.random(16_380, 10); // expands past 16384 → raw, padded to 16384
        byte[] data = new byte[semi.length + 16384 + tail.length];
        System.arraycopy(semi, 0, data, 0, semi.length);
        System.arraycopy(SinkTestData.random(16384, 11), 0, data, semi.length, 16384);
        System.arraycopy(tail, 0, data, semi.length + 16384, tail.length);
        CompressionParams bounded = CompressionParams.lz4();
        assertEquals(16384, bounded.maxCompressedLength());
        compareWithCassandra(data, "bounded", bounded);
    }

    /** Cassandra's parameters for a {@code compression} map, as CREATE TABLE gives them. */
    static CompressionParams cassandra(String... keyValues) {
        Map<String, String> m = new java.util.LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) m.put(keyValues[i], keyValues[i + 1]);
        return CompressionParams.fromMap(m);
    }

    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> everyCodec() {
        return java.util.stream.Stream.of(
                new String[] {"class", "ZstdCompressor"},
                new String[] {"class", "ZstdCompressor", "compression_level", "1", "chunk_length_in_kb", "64"},
                new String[] {"class", "org.apache.cassandra.io.compress.ZstdCompressor", "compression_level", "-7"},
                new String[] {"class", "ZstdCompressor", "compression_level", "12", "chunk_length_in_kb", "4"},
                new String[] {"class", "SnappyCompressor"},
                new String[] {"class", "SnappyCompressor", "chunk_length_in_kb", "1"},
                new String[] {"class", "DeflateCompressor"},
                new String[] {"class", "DeflateCompressor", "chunk_length_in_kb", "128"},
                new String[] {"class", "NoopCompressor"},
                new String[] {"class", "NoopCompressor", "chunk_length_in_kb", "4"},
                new String[] {"class", "LZ4Compressor", "lz4_compressor_type", "high"},
                new String[] {"class", "LZ4Compressor", "lz4_compressor_type", "high", "lz4_high_compressor_level", "14"},
                new String[] {"class", "LZ4Compressor", "lz4_compressor_type", "fast", "lz4_high_compressor_level", "3"},
                new String[] {"class", "LZ4Compressor", "chunk_length_in_kb", "1024"}
        ).map(a -> org.junit.jupiter.params.provider.Arguments.of((Object) a));
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.MethodSource("everyCodec")
    void everyCodecMatchesCassandraByteForByte(String[] map) throws IOException {
        CassandraClient.init();
        CompressionParams params = cassandra(map);
        int chunk = params.chunkLength();
        compareWithCassandra(SinkTestData.semiCompressible(300_000, 21), "semi", params);
        compareWithCassandra(SinkTestData.random(40_000, 22), "random", params);
        compareWithCassandra(SinkTestData.semiCompressible(3 * chunk, 23), "exact", params);
        compareWithCassandra(new byte[0], "empty", params);
        compareWithCassandra(new byte[1], "one", params);
    }

    /**
     * min_compress_ratio on every codec: a chunk whose compressed form does not come under the
     * max compressed length is stored raw, and a short raw last chunk is zero-padded, as Cassandra does.
     */
    @org.junit.jupiter.params.ParameterizedTest(name = "{0} ratio {1}")
    @org.junit.jupiter.params.provider.CsvSource({"LZ4Compressor, 1.1", "ZstdCompressor, 1.1", "SnappyCompressor, 1.1",
            "DeflateCompressor, 1.1", "NoopCompressor, 1.1", "ZstdCompressor, 1", "DeflateCompressor, 8", "SnappyCompressor, NaN"})
    void minCompressRatioStoresRawLikeCassandra(String cls, String ratio) throws IOException {
        CassandraClient.init();
        CompressionParams params = cassandra("class", cls, "min_compress_ratio", ratio, "chunk_length_in_kb", "16");
        int max = params.maxCompressedLength();
        byte[] semi = SinkTestData.semiCompressible(4 * 16384, 24);
        byte[] incompressible = SinkTestData.random(16384, 25);
        // a short tail just under the max compressed length: it does not compress under it, so it is padded
        byte[] tail = SinkTestData.random(Math.max(1, Math.min(max, 16384) - 3), 26);
        byte[] data = new byte[semi.length + incompressible.length + tail.length];
        System.arraycopy(semi, 0, data, 0, semi.length);
        System.arraycopy(incompressible, 0, data, semi.length, incompressible.length);
        System.arraycopy(tail, 0, data, semi.length + incompressible.length, tail.length);
        compareWithCassandra(data, "ratio", params);
        compareWithCassandra(SinkTestData.random(100, 27), "short", params);
    }

    /** Reads our files back independently: CompressionInfo fields, chunk CRCs, LZ4 blocks. */
    @Test
    void decompressRoundTrip() throws IOException {
        byte[] data = SinkTestData.semiCompressible(300_000, 12);
        CompressedDataSink sink = ours(data, "rt", 16384, Integer.MAX_VALUE);
        byte[] file = Files.readAllBytes(sink.dataPath());

        DataInputStream info = new DataInputStream(new ByteArrayInputStream(Files.readAllBytes(sink.companionPath())));
        assertEquals("LZ4Compressor", info.readUTF());
        assertEquals(0, info.readInt());
        assertEquals(16384, info.readInt());
        assertEquals(Integer.MAX_VALUE, info.readInt());
        assertEquals(data.length, info.readLong());
        int chunks = info.readInt();
        assertEquals((data.length + 16383) / 16384, chunks);
        assertEquals(chunks, sink.chunkCount());
        long[] offsets = new long[chunks + 1];
        for (int i = 0; i < chunks; i++) {
            offsets[i] = info.readLong();
        }
        assertEquals(-1, info.read(), "trailing bytes in CompressionInfo.db");
        offsets[chunks] = file.length;
        assertEquals(0, offsets[0]);

        LZ4SafeDecompressor decompressor = LZ4Factory.safeInstance().safeDecompressor();
        byte[] restored = new byte[data.length];
        int restoredBytes = 0;
        long compressedBytes = 0;
        for (int i = 0; i < chunks; i++) {
            int start = (int) offsets[i];
            int stored = (int) (offsets[i + 1] - offsets[i]) - 4;
            CRC32 crc = new CRC32();
            crc.update(file, start, stored);
            assertEquals((int) crc.getValue(), ByteBuffer.wrap(file, start + stored, 4).getInt(), "CRC of chunk " + i);
            int length = ByteBuffer.wrap(file, start, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
            assertEquals(Math.min(16384, data.length - restoredBytes), length, "length prefix of chunk " + i);
            int n = decompressor.decompress(file, start + 4, stored - 4, restored, restoredBytes, length);
            assertEquals(length, n);
            restoredBytes += n;
            compressedBytes += stored;
        }
        assertArrayEquals(data, restored);
        assertEquals((double) compressedBytes / data.length, sink.compressionRatio());
        assertTrue(sink.compressionRatio() < 0.9, "test data should compress: " + sink.compressionRatio());

        CRC32 whole = new CRC32();
        whole.update(file, 0, file.length);
        assertEquals(whole.getValue(), sink.digestCrc32());
    }
}

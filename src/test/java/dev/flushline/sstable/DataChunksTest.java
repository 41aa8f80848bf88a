package dev.flushline.sstable;

import dev.flushline.oracle.CassandraOracle;
import org.apache.cassandra.db.ClusteringComparator;
import org.apache.cassandra.io.compress.CompressedSequentialWriter;
import org.apache.cassandra.io.sstable.metadata.MetadataCollector;
import org.apache.cassandra.io.util.ChecksummedSequentialWriter;
import org.apache.cassandra.io.util.File;
import org.apache.cassandra.io.util.SequentialWriterOption;
import org.apache.cassandra.schema.CompressionParams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The chunk layer alone, on Data.db files Cassandra 5.0.9's own writers make: every codec, chunks
 * stored raw by min_compress_ratio (a padded last one included), and the file a rewrite leaves
 * when it syncs before it finishes (as compaction, scrub and upgradesstables do): one more empty
 * chunk, or one more CRC.db entry. Each chunk loads back as the bytes written; the extra chunk
 * passes verify's check and a flipped byte in it does not; a non-zero extra CRC.db entry is refused.
 */
class DataChunksTest {
    @TempDir
    Path tmp;

    /** 4 KiB stretches of text and of random bytes in turn, random from the eleventh on: some chunks compress, some do not. */
    static byte[] data(int length, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        byte[] text = "partition 17, clustering 4, value abcabcabc; ".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            int stretch = i / 4096;
            b[i] = stretch % 2 == 0 && stretch < 10 ? text[i % text.length] : (byte) r.nextInt(256);
        }
        return b;
    }

    /** A stand-in sstable around {@code dir}'s Data.db and its companion: DataChunks reads nothing else. */
    static SSTableFiles files(Path dir, boolean compressed) throws IOException {
        Files.write(dir.resolve("oa-1-big-Statistics.db"), new byte[0]);
        Files.write(dir.resolve("oa-1-big-TOC.txt"), List.of("Data.db", compressed ? "CompressionInfo.db" : "CRC.db", "Statistics.db"));
        return SSTableFiles.of(dir.resolve("oa-1-big-Data.db"));
    }

    static void assertLoadsBack(SSTableFiles f, byte[] data) throws IOException {
        try (DataChunks c = DataChunks.open(f, true)) {
            assertEquals(data.length, c.length());
            byte[] back = new byte[data.length];
            int at = 0;
            for (int i = 0; i < c.chunkCount(); i++) at += c.load(i, back, at);
            assertEquals(data.length, at);
            assertArrayEquals(data, back);
            c.checkExtraChunks();
        }
    }

    @ParameterizedTest(name = "{0} ratio {1} synced before finish {2}")
    @CsvSource({"LZ4Compressor, 0, false", "LZ4Compressor, 0, true", "ZstdCompressor, 0, true", "SnappyCompressor, 0, true",
            "DeflateCompressor, 0, true", "NoopCompressor, 0, true", "LZ4Compressor, 1.1, true", "ZstdCompressor, 1.05, true",
            "DeflateCompressor, 1, false", "SnappyCompressor, NaN, true"})
    void readsWhatCassandrasCompressedWriterWrites(String compressor, String ratio, boolean syncedBeforeFinish) throws IOException {
        CassandraOracle.init();
        Map<String, String> m = new LinkedHashMap<>();
        m.put("class", compressor);
        m.put("chunk_length_in_kb", "4");
        m.put("min_compress_ratio", ratio);
        CompressionParams params = CompressionParams.fromMap(m);
        // the random stretch at the end is just under the max compressed length: stored raw and zero-padded
        int tail = Math.max(1, Math.min(params.maxCompressedLength(), 4096) - 5);
        byte[] data = data(10 * 4096 + tail, 7);
        Path dir = Files.createDirectories(tmp.resolve(compressor + ratio + syncedBeforeFinish));
        try (CompressedSequentialWriter w = new CompressedSequentialWriter(new File(dir.resolve("oa-1-big-Data.db")),
                new File(dir.resolve("oa-1-big-CompressionInfo.db")), null, SequentialWriterOption.DEFAULT, params,
                new MetadataCollector(new ClusteringComparator()))) {
            w.write(data);
            if (syncedBeforeFinish) w.sync();
            w.finish();
        }
        SSTableFiles f = files(dir, true);
        assertLoadsBack(f, data);
        if (!ratio.equals("0")) {
            // the cases this test is for: raw chunks, and a last one padded past its data
            long[] stored = storedLengths(dir);
            int max = params.maxCompressedLength();
            assertTrue(Arrays.stream(stored).filter(l -> l >= max).count() > 1, Arrays.toString(stored) + " max " + max);
            if (max > tail) assertEquals(max, stored[10], "the last chunk of " + tail + " bytes padded to " + max);
        }
        try (DataChunks c = DataChunks.open(f, true)) {
            assertEquals(syncedBeforeFinish ? 1 : 0, c.extraChunkCount());
            assertEquals(params.getSstableCompressor().getClass().getSimpleName(), c.compression().codec().compressorName());
        }
        if (syncedBeforeFinish) {
            // a flipped byte in the extra chunk (or its CRC): nothing reads it, verify's check does
            Path data1 = dir.resolve("oa-1-big-Data.db");
            byte[] b = Files.readAllBytes(data1);
            b[b.length - 1] ^= 1;
            Files.write(data1, b);
            try (DataChunks c = DataChunks.open(f, true)) {
                CorruptSSTableException e = assertThrows(CorruptSSTableException.class, c::checkExtraChunks);
                assertTrue(e.getMessage().contains("CRC mismatch of compressed chunk 11"), e.getMessage());
            }
        }
    }

    /**
     * An LZ4 Data.db is mapped, and what the mapping gives is what reading gives: the same chunks (compressed
     * ones, ones stored raw, the padded last one), and the same refusal, word for word, of a flipped byte in a
     * compressed block, in a raw one, or in a CRC, with and without CRC checks.
     */
    @Test
    void aMappedLz4FileLoadsAndFailsAsAReadOne() throws IOException {
        CassandraOracle.init();
        Map<String, String> m = new LinkedHashMap<>();
        m.put("class", "LZ4Compressor");
        m.put("chunk_length_in_kb", "4");
        m.put("min_compress_ratio", "1.1");
        CompressionParams params = CompressionParams.fromMap(m);
        byte[] data = data(10 * 4096 + 3000, 11);
        Path dir = Files.createDirectories(tmp.resolve("mapped"));
        Path dataFile = dir.resolve("oa-1-big-Data.db");
        try (CompressedSequentialWriter w = new CompressedSequentialWriter(new File(dataFile),
                new File(dir.resolve("oa-1-big-CompressionInfo.db")), null, SequentialWriterOption.DEFAULT, params,
                new MetadataCollector(new ClusteringComparator()))) {
            w.write(data);
            w.finish();
        }
        SSTableFiles f = files(dir, true);
        try (DataChunks mapped = DataChunks.open(f, true, true); DataChunks read = DataChunks.open(f, true, false)) {
            assertTrue(mapped.isMapped());
            assertTrue(!read.isMapped());
            byte[] a = new byte[data.length], b = new byte[data.length];
            int at = 0;
            for (int i = 0; i < mapped.chunkCount(); i++) {
                int n = mapped.load(i, a, at);
                assertEquals(n, read.load(i, b, at));
                at += n;
            }
            assertArrayEquals(data, a);
            assertArrayEquals(data, b);
        }
        DataChunks closed = DataChunks.open(f, true, true);
        closed.close();
        assertThrows(IllegalStateException.class, () -> closed.load(0, new byte[closed.chunkLength()], 0), "a load from an unmapped file");
        long[] stored = storedLengths(dir);
        int max = params.maxCompressedLength();
        int compressedChunk = -1, rawChunk = -1;
        for (int i = 0; i < stored.length; i++) {
            if (stored[i] < max && compressedChunk < 0) compressedChunk = i;
            if (stored[i] >= max && rawChunk < 0) rawChunk = i;
        }
        assertTrue(compressedChunk >= 0 && rawChunk >= 0, Arrays.toString(stored));
        byte[] original = Files.readAllBytes(dataFile);
        for (int[] target : new int[][] {{compressedChunk, 1}, {compressedChunk, 0}, {rawChunk, 0}}) {
            int chunk = target[0];
            long start = 0;
            for (int i = 0; i < chunk; i++) start += stored[i] + 4;
            // a byte in the middle of the block, or the CRC's last byte
            long flip = target[1] == 1 ? start + stored[chunk] + 3 : start + stored[chunk] / 2;
            byte[] corrupt = original.clone();
            corrupt[(int) flip] ^= 0x40;
            Files.write(dataFile, corrupt);
            for (boolean checkCrc : new boolean[] {true, false}) {
                String viaMap = failure(f, checkCrc, true, chunk), viaRead = failure(f, checkCrc, false, chunk);
                assertEquals(viaRead, viaMap, "chunk " + chunk + ", byte " + flip + ", crc checks " + checkCrc);
                if (checkCrc) assertTrue(viaMap.contains("CRC mismatch of compressed chunk " + chunk), viaMap);
            }
        }
        Files.write(dataFile, original);
    }

    /** The message loading {@code chunk} fails with, or what it loaded when it does not fail. */
    private static String failure(SSTableFiles f, boolean checkCrc, boolean map, int chunk) throws IOException {
        try (DataChunks c = DataChunks.open(f, checkCrc, map)) {
            byte[] into = new byte[c.chunkLength()];
            int n = c.load(chunk, into, 0);
            return "loaded " + java.util.HexFormat.of().formatHex(into, 0, n);
        } catch (CorruptSSTableException e) {
            return e.getMessage();
        }
    }

    /** Stored block lengths (CRC excluded) from CompressionInfo.db's offsets and Data.db's length. */
    static long[] storedLengths(Path dir) throws IOException {
        java.io.DataInputStream in = new java.io.DataInputStream(new java.io.ByteArrayInputStream(
                Files.readAllBytes(dir.resolve("oa-1-big-CompressionInfo.db"))));
        in.readUTF();
        int options = in.readInt();
        for (int i = 0; i < 2 * options; i++) in.readUTF();
        in.readInt();
        in.readInt();
        in.readLong();
        int count = in.readInt();
        long[] offsets = new long[count + 1];
        for (int i = 0; i < count; i++) offsets[i] = in.readLong();
        offsets[count] = Files.size(dir.resolve("oa-1-big-Data.db"));
        long[] lengths = new long[count];
        for (int i = 0; i < count; i++) lengths[i] = offsets[i + 1] - offsets[i] - 4;
        return lengths;
    }

    @Test
    void readsWhatCassandrasChecksummedWriterWritesAndRefusesANonEmptyExtraCrc() throws IOException {
        CassandraOracle.init();
        for (int length : new int[] {27_475, 2 * 65_536, 150_000}) {
            byte[] data = data(length, length);
            Path dir = Files.createDirectories(tmp.resolve("crc-" + length));
            try (ChecksummedSequentialWriter w = new ChecksummedSequentialWriter(new File(dir.resolve("oa-1-big-Data.db")),
                    new File(dir.resolve("oa-1-big-CRC.db")), null, SequentialWriterOption.DEFAULT)) {
                w.write(data);
                w.sync();
                w.finish();
            }
            SSTableFiles f = files(dir, false);
            byte[] crc = Files.readAllBytes(dir.resolve("oa-1-big-CRC.db"));
            int chunks = (length + 65_535) / 65_536;
            assertEquals(4 + 4 * (chunks + 1), crc.length, length + ": one more CRC than chunks, as compaction's files have");
            assertEquals(0, ByteBuffer.wrap(crc, crc.length - 4, 4).getInt(), "the extra one is the empty chunk's");
            assertLoadsBack(f, data);

            crc[crc.length - 1] = 1;
            Files.write(dir.resolve("oa-1-big-CRC.db"), crc);
            CorruptSSTableException e = assertThrows(CorruptSSTableException.class, () -> DataChunks.open(f, true).close());
            assertTrue(e.getMessage().contains("Data.db may have been cut short"), e.getMessage());
            Files.write(dir.resolve("oa-1-big-CRC.db"), Arrays.copyOf(crc, crc.length - 8));
            e = assertThrows(CorruptSSTableException.class, () -> DataChunks.open(f, true).close());
            assertTrue(e.getMessage().contains("CRC.db holds " + (chunks - 1) + " chunk CRCs"), e.getMessage());
        }
    }
}

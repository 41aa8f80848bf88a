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

class Lz4CompressedDataSinkTest {
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

    private Lz4CompressedDataSink ours(byte[] data, String prefix, int chunkBytes, int maxCompressedBytes) throws IOException {
        Lz4CompressedDataSink sink = new Lz4CompressedDataSink(dir.resolve(prefix + "-Data.db"),
                dir.resolve(prefix + "-CompressionInfo.db"), dir.resolve(prefix + "-Digest.crc32"),
                chunkBytes, maxCompressedBytes, 8192);
        SinkTestData.writeInPieces(sink, data, data.length ^ chunkBytes);
        sink.finish();
        return sink;
    }

    /** Writes the same bytes with Cassandra 5.0.9's CompressedSequentialWriter and compares all outputs. */
    private void compareWithCassandra(byte[] data, String prefix, CompressionParams params) throws IOException {
        CassandraClient.init();
        Lz4CompressedDataSink sink = ours(data, prefix, params.chunkLength(), params.maxCompressedLength());

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

    /** Reads our files back independently: CompressionInfo fields, chunk CRCs, LZ4 blocks. */
    @Test
    void decompressRoundTrip() throws IOException {
        byte[] data = SinkTestData.semiCompressible(300_000, 12);
        Lz4CompressedDataSink sink = ours(data, "rt", 16384, Integer.MAX_VALUE);
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

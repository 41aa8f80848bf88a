package dev.flushline.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32;

import org.apache.cassandra.io.util.ChecksummedSequentialWriter;
import org.apache.cassandra.io.util.File;
import org.apache.cassandra.io.util.SequentialWriterOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UncompressedDataSinkTest {
    @TempDir
    Path dir;

    private static long crc(byte[] b, int off, int len) {
        CRC32 c = new CRC32();
        c.update(b, off, len);
        return c.getValue();
    }

    /** CRC.db as computed independently from the format: i32 65536, then i32 CRC per 64 KiB. */
    private static byte[] expectedCrcFile(byte[] data) {
        int chunks = Math.max(1, (data.length + 65535) / 65536);
        ByteBuffer b = ByteBuffer.allocate(4 + 4 * chunks);
        b.putInt(65536);
        for (int i = 0; i < chunks; i++) {
            int off = i * 65536;
            b.putInt((int) crc(data, off, Math.min(65536, data.length - off)));
        }
        return b.array();
    }

    private UncompressedDataSink write(byte[] data, String prefix, long seed) throws IOException {
        UncompressedDataSink sink = new UncompressedDataSink(dir.resolve(prefix + "-Data.db"),
                dir.resolve(prefix + "-CRC.db"), dir.resolve(prefix + "-Digest.crc32"), 4096);
        SinkTestData.writeInPieces(sink, data, seed);
        sink.finish();
        return sink;
    }

    @Test
    void dataCrcAndDigestMatchIndependentCrcs() throws IOException {
        byte[] data = SinkTestData.semiCompressible(211_755, 1);
        UncompressedDataSink sink = write(data, "a", 2);
        assertEquals(data.length, sink.uncompressedPosition());
        assertArrayEquals(data, Files.readAllBytes(sink.dataPath()));
        assertArrayEquals(expectedCrcFile(data), Files.readAllBytes(sink.companionPath()));
        assertEquals(4 + 4 * 4, Files.size(sink.companionPath()), "211755 bytes = 4 CRC chunks");
        long digest = crc(data, 0, data.length);
        assertEquals(digest, sink.digestCrc32());
        assertEquals(Long.toString(digest), Files.readString(sink.digestPath(), StandardCharsets.US_ASCII));
        assertEquals(-1.0, sink.compressionRatio());
    }

    @Test
    void exactMultipleOfChunkHasNoTrailingEmptyCrc() throws IOException {
        byte[] data = SinkTestData.random(2 * 65536, 3);
        UncompressedDataSink sink = write(data, "b", 4);
        assertArrayEquals(expectedCrcFile(data), Files.readAllBytes(sink.companionPath()));
        assertEquals(12, Files.size(sink.companionPath()));
    }

    /** The same bytes through Cassandra's own writer must give identical CRC.db and Digest.crc32. */
    @Test
    void matchesCassandraChecksummedSequentialWriter() throws IOException {
        CassandraClient.init();
        int[] lengths = {0, 1, 65536, 200_001};
        for (int i = 0; i < lengths.length; i++) {
            byte[] data = SinkTestData.semiCompressible(lengths[i], 10 + i);
            UncompressedDataSink ours = write(data, "ours" + i, 20 + i);

            Path cData = dir.resolve("c" + i + "-Data.db");
            Path cCrc = dir.resolve("c" + i + "-CRC.db");
            Path cDigest = dir.resolve("c" + i + "-Digest.crc32");
            try (ChecksummedSequentialWriter w = new ChecksummedSequentialWriter(new File(cData), new File(cCrc),
                    new File(cDigest), SequentialWriterOption.DEFAULT)) {
                w.write(data);
                w.finish();
            }
            assertArrayEquals(Files.readAllBytes(cData), Files.readAllBytes(ours.dataPath()), "Data.db, length " + lengths[i]);
            assertArrayEquals(Files.readAllBytes(cCrc), Files.readAllBytes(ours.companionPath()), "CRC.db, length " + lengths[i]);
            assertEquals(Files.readString(cDigest), Files.readString(ours.digestPath()), "Digest, length " + lengths[i]);
        }
    }
}

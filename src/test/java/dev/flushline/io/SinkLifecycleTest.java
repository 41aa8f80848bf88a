package dev.flushline.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SinkLifecycleTest {
    @TempDir
    Path dir;

    private long fileCount() throws IOException {
        try (var s = Files.list(dir)) {
            return s.count();
        }
    }

    private DataSink open(boolean compressed, String prefix) throws IOException {
        Path data = dir.resolve(prefix + "-Data.db");
        Path digest = dir.resolve(prefix + "-Digest.crc32");
        return compressed
                ? new CompressedDataSink(data, dir.resolve(prefix + "-CompressionInfo.db"), digest)
                : new UncompressedDataSink(data, dir.resolve(prefix + "-CRC.db"), digest);
    }

    @Test
    void abortMidStreamLeavesNoFiles() throws IOException {
        byte[] data = SinkTestData.semiCompressible(150_000, 1);
        for (boolean compressed : new boolean[] {false, true}) {
            DataSink sink = open(compressed, "mid" + compressed);
            sink.write(data, 0, data.length);
            sink.abort();
            sink.abort(); // idempotent
            assertEquals(0, fileCount(), "compressed=" + compressed);
            assertThrows(IllegalStateException.class, () -> sink.write(data, 0, 1));
        }
    }

    @Test
    void abortAfterFinishDeletesEverythingItCreated() throws IOException {
        byte[] data = SinkTestData.semiCompressible(50_000, 2);
        for (boolean compressed : new boolean[] {false, true}) {
            DataSink sink = open(compressed, "fin" + compressed);
            sink.write(data, 0, data.length);
            sink.finish();
            assertEquals(3, fileCount(), "Data, companion, digest; compressed=" + compressed);
            assertTrue(Files.exists(sink.companionPath()));
            sink.abort();
            assertEquals(0, fileCount(), "compressed=" + compressed);
        }
    }

    @Test
    void closeWithoutFinishAbortsButCloseAfterFinishKeeps() throws IOException {
        byte[] data = SinkTestData.semiCompressible(20_000, 3);
        for (boolean compressed : new boolean[] {false, true}) {
            try (DataSink sink = open(compressed, "twr" + compressed)) {
                sink.write(data, 0, data.length);
            }
            assertEquals(0, fileCount());
            try (DataSink sink = open(compressed, "ok" + compressed)) {
                sink.write(data, 0, data.length);
                sink.finish();
            }
            assertEquals(3, fileCount());
            try (var s = Files.list(dir)) {
                for (Path p : (Iterable<Path>) s::iterator) {
                    Files.delete(p);
                }
            }
        }
    }

    @Test
    void existingFileIsNeitherOverwrittenNorDeleted() throws IOException {
        Path data = dir.resolve("x-Data.db");
        Files.write(data, new byte[] {1, 2, 3});
        assertThrows(FileAlreadyExistsException.class,
                () -> new UncompressedDataSink(data, dir.resolve("x-CRC.db"), null));
        assertThrows(FileAlreadyExistsException.class,
                () -> new CompressedDataSink(data, dir.resolve("x-CompressionInfo.db"), null));
        assertArrayEquals(new byte[] {1, 2, 3}, Files.readAllBytes(data));
        assertEquals(1, fileCount());

        // A collision on the CRC.db path must also clean up the Data.db the sink had just created.
        Path crc = dir.resolve("y-CRC.db");
        Files.write(crc, new byte[] {9});
        assertThrows(FileAlreadyExistsException.class, () -> new UncompressedDataSink(dir.resolve("y-Data.db"), crc, null));
        assertTrue(Files.notExists(dir.resolve("y-Data.db")));
        assertArrayEquals(new byte[] {9}, Files.readAllBytes(crc));
    }

    /**
     * CompressionInfo.db is created with Data.db (its chunk offsets stream into it as chunks are
     * written), so a file already at its path is refused then, as CRC.db's is: the sink's Data.db
     * goes, the foreign file stays.
     */
    @Test
    void companionCollisionAbortsAndSparesForeignFile() throws IOException {
        Path info = dir.resolve("z-CompressionInfo.db");
        Files.write(info, new byte[] {7});
        assertThrows(FileAlreadyExistsException.class,
                () -> new CompressedDataSink(dir.resolve("z-Data.db"), info, dir.resolve("z-Digest.crc32")));
        assertTrue(Files.notExists(dir.resolve("z-Data.db")));
        assertTrue(Files.notExists(dir.resolve("z-Digest.crc32")));
        assertArrayEquals(new byte[] {7}, Files.readAllBytes(info));
    }

    /** A sink aborted after writing chunks removes the CompressionInfo.db it was streaming its offsets into. */
    @Test
    void abortRemovesTheStreamedCompressionInfo() throws IOException {
        Path info = dir.resolve("w-CompressionInfo.db");
        CompressedDataSink sink = new CompressedDataSink(dir.resolve("w-Data.db"), info, dir.resolve("w-Digest.crc32"));
        sink.write(new byte[100_000], 0, 100_000);
        assertTrue(Files.exists(info));
        sink.abort();
        assertTrue(Files.notExists(info));
        assertTrue(Files.notExists(sink.dataPath()));
        assertEquals(0, fileCount());
    }

    /** writeAt overwrites bytes already written, still in the block or already drained, and nothing outside them. */
    @Test
    void syncedFileOutputOverwritesOnlyWhatWasWritten() throws IOException {
        byte[] data = SinkTestData.random(5_000, 3);
        Path p = dir.resolve("patched.bin");
        try (SyncedFileOutput out = new SyncedFileOutput(p, 1000)) {
            out.write(data, 0, data.length);
            out.writeAt(10, new byte[] {1, 2, 3}, 0, 3);       // long since drained to the file
            out.writeAt(4_998, new byte[] {9, 8, 7}, 1, 2);    // the last two bytes, still in the block
            assertThrows(IndexOutOfBoundsException.class, () -> out.writeAt(4_999, new byte[2], 0, 2));
            assertThrows(IndexOutOfBoundsException.class, () -> out.writeAt(-1, new byte[1], 0, 1));
            out.write(data, 0, 7);
            assertEquals(data.length + 7, out.position());
        }
        byte[] expected = java.util.Arrays.copyOf(data, data.length + 7);
        System.arraycopy(data, 0, expected, data.length, 7);
        expected[10] = 1;
        expected[11] = 2;
        expected[12] = 3;
        expected[4_998] = 8;
        expected[4_999] = 7;
        assertArrayEquals(expected, Files.readAllBytes(p));
    }

    @Test
    void syncedFileOutputWritesIntsInPlaceAndSyncsDirectory() throws IOException {
        byte[] data = SinkTestData.random(10_000, 4);
        Path p = dir.resolve("plain.bin");
        try (SyncedFileOutput out = new SyncedFileOutput(p, 1000)) {
            out.write(data, 0, 3333);
            out.writeInt(0x01020304);
            out.write(data, 3333, data.length - 3333);
            assertEquals(data.length + 4, out.position());
            out.sync();
            assertEquals(data.length + 4, Files.size(p));
        }
        byte[] written = Files.readAllBytes(p);
        assertArrayEquals(java.util.Arrays.copyOf(data, 3333), java.util.Arrays.copyOf(written, 3333));
        assertEquals(0x01, written[3333]);
        assertEquals(0x04, written[3336]);
        assertArrayEquals(java.util.Arrays.copyOfRange(data, 3333, data.length), java.util.Arrays.copyOfRange(written, 3337, written.length));
        SyncedFileOutput.syncDirectory(dir);
    }
}

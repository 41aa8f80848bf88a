package dev.flushline.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.flushline.testing.Tmpfs;

/**
 * The O_DIRECT path of {@link SyncedFileOutput}: whatever the write sizes, flushes and syncs, the
 * file holds exactly the bytes written, ends at {@code position()} after every sync and after
 * close, and its running CRC is the CRC of those bytes. Run on the file system the build runs on
 * (ext4 on the project's machines, which takes O_DIRECT) and on a tmpfs.
 */
class SyncedFileOutputDirectTest {
    /** File systems that take O_DIRECT: there the file must really be written direct. */
    private static final Set<String> DIRECT_FILE_SYSTEMS = Set.of("ext4", "xfs", "btrfs");

    @TempDir
    Path dir;

    @Test
    void directFileHoldsExactlyTheBytesWrittenAcrossBlocksFlushesAndSyncs() throws IOException {
        String fsType = Files.getFileStore(dir).type();
        checkManyShapes(dir, DIRECT_FILE_SYSTEMS.contains(fsType));
    }

    @Test
    void tmpfsTakesEitherPathAndKeepsTheBytes() throws Exception {
        Path mountPoint = dir.resolve("tmpfs");
        Tmpfs disk = Tmpfs.mount(mountPoint, 16 * 1024);
        Assumptions.assumeTrue(disk != null, "mounting a tmpfs needs root");
        try {
            checkManyShapes(mountPoint, false);
        } finally {
            disk.close();
        }
    }

    private static void checkManyShapes(Path where, boolean mustBeDirect) throws IOException {
        Random random = new Random(42);
        int[] blockSizes = {1, 4095, 4096, 5000, 65536, 1 << 20};
        int[] totals = {0, 1, 4095, 4096, 4097, 12_345, 300_001};
        int file = 0;
        for (int blockBytes : blockSizes) {
            for (int total : totals) {
                byte[] bytes = new byte[total];
                random.nextBytes(bytes);
                Path path = where.resolve("f" + (file++) + "-Data.db");
                SyncedFileOutput out = SyncedFileOutput.direct(path, blockBytes);
                String what = "block " + blockBytes + ", " + total + " bytes, direct=" + out.isDirect();
                if (mustBeDirect) {
                    assertTrue(out.isDirect(), what);
                }
                if (out.isDirect()) {
                    assertTrue(out.alignment() >= SyncedFileOutput.MIN_DIRECT_ALIGNMENT, what);
                    assertEquals(0, out.alignment() & (out.alignment() - 1), what);
                }
                int off = 0;
                int step = 0;
                while (off < total) {
                    int n = Math.min(total - off, 1 + random.nextInt(9000));
                    out.write(bytes, off, n);
                    off += n;
                    assertEquals(off, out.position(), what);
                    switch (step++ % 5) {
                        case 1 -> out.flush();
                        case 3 -> {
                            // A sync mid-file leaves exactly the bytes so far; the next writes go on after them.
                            out.sync();
                            assertArrayEquals(Arrays.copyOf(bytes, off), Files.readAllBytes(path), what + ", synced at " + off);
                        }
                        default -> { }
                    }
                }
                out.sync();
                assertEquals(total, Files.size(path), what);
                out.close();
                out.close(); // idempotent
                assertArrayEquals(bytes, Files.readAllBytes(path), what);
                Files.delete(path);
            }
        }
    }

    @Test
    void closeWithoutSyncStillEndsAtThePosition() throws IOException {
        Path path = dir.resolve("tail-Data.db");
        byte[] bytes = new byte[10_000];
        new Random(7).nextBytes(bytes);
        try (SyncedFileOutput out = SyncedFileOutput.direct(path, 8192)) {
            out.write(bytes, 0, bytes.length);
        }
        assertArrayEquals(bytes, Files.readAllBytes(path));
    }

    @Test
    void anExistingFileIsNeverOverwrittenAndAbortDeletes() throws IOException {
        Path path = dir.resolve("taken-Data.db");
        Files.write(path, new byte[] {1, 2, 3});
        assertThrows(FileAlreadyExistsException.class, () -> SyncedFileOutput.direct(path, 4096));
        assertArrayEquals(new byte[] {1, 2, 3}, Files.readAllBytes(path), "someone else's file is left alone");

        Path mine = dir.resolve("mine-Data.db");
        SyncedFileOutput out = SyncedFileOutput.direct(mine, 4096);
        out.write(new byte[20_000], 0, 20_000);
        out.abort();
        assertFalse(Files.exists(mine));
    }

    @Test
    void anOverwriteIsRefusedUnderDirectIo() throws IOException {
        Assumptions.assumeTrue(DIRECT_FILE_SYSTEMS.contains(Files.getFileStore(dir).type()), "needs a file system that takes O_DIRECT");
        try (SyncedFileOutput out = SyncedFileOutput.direct(dir.resolve("at-Data.db"), 4096)) {
            out.write(new byte[100], 0, 100);
            assertThrows(IllegalStateException.class, () -> out.writeAt(0, new byte[4], 0, 4));
        }
    }
}

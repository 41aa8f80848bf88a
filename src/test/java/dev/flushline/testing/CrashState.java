package dev.flushline.testing;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * A crash as the disk sees it, for in-process tests: the files of a directory at one moment, taken
 * with {@link #take} at the step where the process would die, and put back with {@link #restore}
 * once the test has let go of everything it held. What a kill leaves is exactly that: the files,
 * and no process's locks (a copy holds none).
 */
public final class CrashState {
    private CrashState() {}

    /** Copies {@code dir} (files and subdirectories, links not followed) to a fresh sibling and returns it. */
    public static Path take(Path dir) throws IOException {
        Path snapshot = Files.createTempDirectory(dir.toAbsolutePath().getParent(), dir.getFileName() + ".crash-");
        copyTree(dir, snapshot);
        return snapshot;
    }

    /** Replaces what {@code dir} holds with {@code snapshot}'s files, and removes the snapshot. */
    public static void restore(Path snapshot, Path dir) throws IOException {
        deleteTree(dir);
        Files.move(snapshot, dir, StandardCopyOption.ATOMIC_MOVE);
    }

    private static void copyTree(Path from, Path to) throws IOException {
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) throws IOException {
                Files.createDirectories(to.resolve(from.relativize(d)));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) throws IOException {
                // Times kept: a transaction log checks the newest modification time of the files it lists.
                Files.copy(f, to.resolve(from.relativize(f)), LinkOption.NOFOLLOW_LINKS, StandardCopyOption.COPY_ATTRIBUTES);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) return;
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) throws IOException {
                Files.delete(f);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                if (e != null) throw e;
                Files.delete(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}

package dev.flushline.spark;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The file operations of the commit protocol: fsync of files and directories, an atomic rename
 * made durable, recursive delete. Thread safety: stateless.
 */
final class DurableFiles {
    private DurableFiles() {}

    /** Forces a file's or directory's contents (a directory: its entries) to the device. */
    static void fsync(Path p) throws IOException {
        try (FileChannel c = FileChannel.open(p, StandardOpenOption.READ)) {
            c.force(true);
        }
    }

    /** fsyncs every file and then every directory under root, root last, so the whole tree survives a crash. */
    static void fsyncTree(Path root) throws IOException {
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                fsync(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                if (e != null) throw e;
                fsync(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    /**
     * Renames {@code from} to {@code to} atomically (same file system; {@code to} must not exist)
     * and fsyncs both parents, so the move is durable once this returns.
     */
    static void publish(Path from, Path to) throws IOException {
        Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
        fsync(to.getParent());
        if (!from.getParent().equals(to.getParent())) fsync(from.getParent());
    }

    /** Deletes root and everything under it; a missing root is fine. */
    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) return;
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) return FileVisitResult.CONTINUE;
                throw e;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                if (e != null && !(e instanceof NoSuchFileException)) throw e;
                Files.deleteIfExists(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}

package dev.flushline.sstable;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The right to replace a table directory's sstables: held by an in-place compaction for its run,
 * and by a table's background compaction for its life. Two of them over one directory would pick
 * the same inputs, and the second to commit would try to obsolete sstables the first already
 * removed; so the second is refused, by name, before it reads anything. Writers that only add
 * sstables (flushes, loads) never take it.
 *
 * <p>The lock is an OS lock on {@code <table dir>/.flushline-compaction.lock}, so a holder that dies
 * releases it with its process (its empty file stays, and the next taker takes it over). A holder
 * that ends deletes the file while still holding the lock, then releases it, so a finished
 * compaction leaves nothing behind. A taker that opened the file just before such a deletion could
 * then lock a file no longer in the directory while a third creates and locks a new one; so after
 * locking, a taker checks that the path still names the file it opened (by file key, read right
 * after opening) and starts again if not. A deletion and re-creation that reuses the inode number
 * within the moment between the open and that read is the one interleaving this does not see.
 *
 * <p>Within one JVM, POSIX locks belong to the process, and closing any channel of the file drops
 * them: so a directory held by this JVM is recorded in {@link #HELD_BY_THIS_JVM} and never probed
 * with a channel of its own.
 *
 * <p>Thread safety: {@link #tryAcquire} from any thread; one holder closes its lock once.
 */
public final class CompactionLock implements AutoCloseable {
    static final String FILE_NAME = ".flushline-compaction.lock";
    private static final java.util.Set<Path> HELD_BY_THIS_JVM = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private final Path path;
    private final FileChannel channel;
    private boolean closed;

    private CompactionLock(Path path, FileChannel channel) {
        this.path = path;
        this.channel = channel;
    }

    /** Thrown when another compaction, in this process or another, holds the directory. */
    public static final class HeldException extends IOException {
        HeldException(Path tableDir, Path lockFile) {
            super("another compaction is replacing the sstables of " + tableDir + " (it holds " + lockFile
                    + "); run this one when it has finished");
        }
    }

    /** Takes the lock of {@code tableDir}, or throws {@link HeldException} if a compaction holds it. */
    public static CompactionLock tryAcquire(Path tableDir) throws IOException {
        Path lockFile = tableDir.resolve(FILE_NAME);
        Path key = lockFile.toAbsolutePath().normalize();
        if (!HELD_BY_THIS_JVM.add(key)) throw new HeldException(tableDir, lockFile);
        try {
            for (int attempt = 0; attempt < 100; attempt++) {
                FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                Object opened = fileKey(lockFile);
                FileLock l;
                try {
                    l = ch.tryLock();
                } catch (OverlappingFileLockException e) {
                    l = null;
                } catch (IOException | RuntimeException e) {
                    ch.close();
                    throw e;
                }
                if (l == null) {
                    ch.close();
                    throw new HeldException(tableDir, lockFile);
                }
                if (opened != null && opened.equals(fileKey(lockFile))) return new CompactionLock(key, ch);
                ch.close(); // its holder deleted it between our open and our lock: take the new one
            }
            throw new IOException("could not keep the compaction lock file " + lockFile);
        } catch (IOException | RuntimeException e) {
            HELD_BY_THIS_JVM.remove(key);
            throw e;
        }
    }

    /** The file's identity (device and inode), or null if it is gone. */
    private static Object fileKey(Path p) throws IOException {
        try {
            return Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    /** Deletes the lock file while still holding the lock, then releases it. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        try {
            Files.deleteIfExists(path);
        } catch (IOException ignored) {
            // A file left behind is taken over by the next taker: harmless.
        }
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing releases the lock whatever it reports
        } finally {
            HELD_BY_THIS_JVM.remove(path);
        }
    }
}

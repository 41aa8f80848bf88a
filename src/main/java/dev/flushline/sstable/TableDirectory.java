package dev.flushline.sstable;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A table directory opened for writing: listed once when it is opened (to remove what a crashed
 * writer left behind and to learn the highest generation in use), and never again. After that,
 * each new sstable's generation comes from an in-memory counter, so the cost of reserving one does
 * not grow with the number of sstables the directory already holds.
 *
 * <p>Other processes may write into the same directory at the same time, and may have published
 * generations above our counter since we listed. {@link #reserveNext} therefore still reserves
 * through the file system: a generation is ours only once {@link Descriptor#tryReserve} has created
 * its lock file with CREATE_NEW, found none of its published components, and created its staging
 * directory. A generation taken by anyone else fails one of those steps and is skipped, so two
 * writers never share a generation. The check for published components is sound because a writer
 * deletes its lock file only after its components are renamed into place: whoever wins the
 * CREATE_NEW on a freed lock sees the components of the sstable that held it.
 *
 * <p>Thread safety: {@link #reserveNext} from any number of threads.
 */
public final class TableDirectory {
    private final Path dir;
    /** The highest generation this directory hands out or skipped; only grows. */
    private final AtomicInteger lastGeneration;
    private final List<Path> removedLeftovers;

    private TableDirectory(Path dir, int highestGeneration, List<Path> removedLeftovers) {
        this.dir = dir;
        this.lastGeneration = new AtomicInteger(highestGeneration);
        this.removedLeftovers = List.copyOf(removedLeftovers);
    }

    /**
     * Creates the directory if needed, removes the leftovers of crashed writers
     * ({@link Leftovers#clean}) and reads the highest generation in use. Safe while other writers,
     * in this process or another, are live: cleaning skips every generation whose lock is held.
     */
    public static TableDirectory open(Path dir) throws IOException {
        Files.createDirectories(dir);
        List<Path> removed = Leftovers.clean(dir);
        return new TableDirectory(dir, Descriptor.highestGeneration(dir), removed);
    }

    public Path path() {
        return dir;
    }

    /** What {@link #open} removed: staging directories, lock files and TOC-less generations of crashed writers. */
    public List<Path> removedLeftovers() {
        return removedLeftovers;
    }

    /** Reserves the next free generation and creates its staging directory. */
    public Descriptor reserveNext() throws IOException {
        while (true) {
            int generation = lastGeneration.incrementAndGet();
            if (generation <= 0) throw new IOException("no sstable generation left in " + dir);
            Descriptor d = Descriptor.tryReserve(dir, generation);
            if (d != null) return d;
        }
    }
}

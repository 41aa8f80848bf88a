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
    private final List<Path> incomplete;
    private final List<RecoveredTransaction> recoveredTransactions;
    /** Non-null for the view of one transaction's outputs: each reservation is recorded in its log. */
    private final TransactionLog transaction;

    private TableDirectory(Path dir, int highestGeneration, List<Path> removedLeftovers, List<Path> incomplete,
                           List<RecoveredTransaction> recoveredTransactions) {
        this.dir = dir;
        this.lastGeneration = new AtomicInteger(highestGeneration);
        this.removedLeftovers = List.copyOf(removedLeftovers);
        this.incomplete = List.copyOf(incomplete);
        this.recoveredTransactions = List.copyOf(recoveredTransactions);
        this.transaction = null;
    }

    private TableDirectory(TableDirectory of, TransactionLog transaction) {
        this.dir = of.dir;
        this.lastGeneration = of.lastGeneration; // one counter: outputs and flushes never collide in memory
        this.removedLeftovers = of.removedLeftovers;
        this.incomplete = of.incomplete;
        this.recoveredTransactions = of.recoveredTransactions;
        this.transaction = transaction;
    }

    /** This directory, reserving outputs of {@code transaction} (see {@link TransactionLog#outputs}). */
    TableDirectory forTransaction(TransactionLog transaction) {
        return new TableDirectory(this, transaction);
    }

    /**
     * Creates the directory if needed, removes the leftovers of crashed writers
     * ({@link Leftovers#clean}) and reads the highest generation in use. Safe while other writers,
     * in this process or another, are live: cleaning skips every generation whose lock is held.
     */
    public static TableDirectory open(Path dir) throws IOException {
        Files.createDirectories(dir);
        // Interrupted transactions first (so their outcome can be reported), then the rest.
        List<RecoveredTransaction> recovered = TransactionLog.recover(dir);
        List<Path> removed = new java.util.ArrayList<>();
        for (RecoveredTransaction r : recovered) removed.addAll(r.removedFiles());
        Leftovers.Result leftovers = Leftovers.clean(dir);
        removed.addAll(leftovers.removed());
        return new TableDirectory(dir, Descriptor.highestGeneration(dir), removed, leftovers.incomplete(), recovered);
    }

    public Path path() {
        return dir;
    }

    /**
     * What {@link #open} removed: the files of interrupted transactions' rolled-back or finished
     * side and their logs, staging directories, lock files, and the TOC-less generations that a
     * crashed writer's lock proves were its unfinished publish.
     */
    public List<Path> removedLeftovers() {
        return removedLeftovers;
    }

    /**
     * What {@link #open} found unfinished but did not delete because nothing proves it ours: a
     * final-named sstable without TOC.txt (its Data.db, else its first component), or another
     * writer's transaction log. Callers report these; nothing of ours ever deletes them.
     */
    public List<Path> incomplete() {
        return incomplete;
    }

    /** What {@link #open} found of transactions interrupted by a crash, and did with them. */
    public List<RecoveredTransaction> recoveredTransactions() {
        return recoveredTransactions;
    }

    /**
     * Reserves the next free generation and creates its staging directory. On a transaction's
     * view, the generation is recorded as the transaction's output before this returns.
     */
    public Descriptor reserveNext() throws IOException {
        return reserveNext(SSTableVersion.OA);
    }

    /**
     * As {@link #reserveNext()}, for an sstable of {@code version}. On a transaction's view the ADD
     * record names the output in its own version ({@code nb-7-big-}, {@code da-7-bti-}).
     */
    public Descriptor reserveNext(SSTableVersion version) throws IOException {
        while (true) {
            int generation = lastGeneration.incrementAndGet();
            if (generation <= 0) throw new IOException("no sstable generation left in " + dir);
            Descriptor d = Descriptor.tryReserve(dir, generation, version);
            if (d != null) {
                if (transaction != null) transaction.track(d);
                return d;
            }
        }
    }
}

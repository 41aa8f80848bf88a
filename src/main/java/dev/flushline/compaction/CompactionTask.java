package dev.flushline.compaction;

import dev.flushline.data.TokenRanges;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.CompactionLock;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.TableDirectory;
import dev.flushline.sstable.TransactionLog;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.List;

/**
 * One compaction from start to finish, the one way the command line and background compaction
 * run it. {@link #replace} compacts sstables of a table directory in place: under a compaction
 * transaction log (begin, write the outputs, record the inputs as obsolete, commit), so that a
 * crash at any step leaves either the inputs or the outputs live, never both and never neither,
 * and Cassandra's own startup cleanup agrees. {@link #writeTo} compacts into another directory
 * and removes nothing.
 *
 * <p>With more than one thread the token ring is cut into slices compacted in parallel over the
 * same inputs (each compactor skips what is outside its slice; the slices take the place of the
 * options' token range); nothing is published until every
 * slice has prepared its outputs, and a failed slice removes every staged output.
 */
public final class CompactionTask {
    /**
     * Sees the published outputs before the commit point, on the compacting thread. Throwing
     * refuses them: the transaction rolls back and the inputs stay live.
     */
    public interface BeforeCommit {
        void check(List<Path> published) throws IOException;

        BeforeCommit NONE = published -> { };
    }

    private CompactionTask() {}

    /**
     * Replaces {@code inputs}, which live in {@code dir}, with their compaction, on {@code threads}
     * threads. Returns once the transaction committed; on an exception nothing changed.
     */
    public static Compactor.Result replace(TableSchema schema, List<SSTableFiles> inputs, Compactor.Options options, int threads,
                                           TableDirectory dir, BeforeCommit beforeCommit) throws IOException {
        try (TransactionLog txn = TransactionLog.beginCompaction(dir)) {
            Compactor.Result r = compact(schema, inputs, options, threads, txn.outputs());
            for (int i = 0; i < inputs.size(); i++) txn.obsolete(inputs.get(i).path(Component.DATA));
            beforeCommit.check(r.published);
            txn.commit(); // the commit point; closing without it rolls the outputs back
            return r;
        }
    }

    /** Compacts {@code inputs} into {@code out}, on {@code threads} threads; the inputs are left as they are. */
    public static Compactor.Result writeTo(TableSchema schema, List<SSTableFiles> inputs, Compactor.Options options, int threads,
                                           TableDirectory out) throws IOException {
        return compact(schema, inputs, options, threads, out);
    }

    /** As {@link #writeTo(TableSchema, List, Compactor.Options, int, TableDirectory)}, into the table folder {@code outTableDir}. */
    public static Compactor.Result writeTo(TableSchema schema, List<SSTableFiles> inputs, Compactor.Options options, int threads,
                                           Path outTableDir) throws IOException {
        return compact(schema, inputs, options, threads, TableDirectory.open(outTableDir));
    }

    /**
     * Takes the table folder {@code tableDir} for an in-place compaction: holds its compaction lock
     * (so no other in-place compaction, of ours or a node's background one, replaces the same
     * inputs; {@link Busy} if one does), then opens it for writing, which
     * recovers interrupted transactions of ours and removes what our crashed writers left. What is
     * not provably ours is left alone and listed by {@link InPlace#incomplete}.
     */
    public static InPlace inPlace(Path tableDir) throws IOException {
        CompactionLock lock;
        try {
            lock = CompactionLock.tryAcquire(tableDir);
        } catch (CompactionLock.HeldException e) {
            throw new Busy(e);
        }
        try {
            return new InPlace(lock, TableDirectory.open(tableDir));
        } catch (IOException | RuntimeException e) {
            lock.close();
            throw e;
        }
    }

    /** Another in-place compaction holds the folder; its message names the holder's lock file. */
    public static final class Busy extends IOException {
        Busy(CompactionLock.HeldException cause) {
            super(cause.getMessage(), cause);
        }
    }

    /** A table folder held for in-place compaction, from {@link #inPlace} to {@link #close}. Not thread-safe. */
    public static final class InPlace implements AutoCloseable {
        private final CompactionLock lock;
        private final TableDirectory dir;

        private InPlace(CompactionLock lock, TableDirectory dir) {
            this.lock = lock;
            this.dir = dir;
        }

        /** What opening the folder removed: unfinished files of our own crashed writers. */
        public List<Path> removedLeftovers() {
            return dir.removedLeftovers();
        }

        /** Unfinished files that are not provably ours, left alone (an in-place compaction leaves them out). */
        public List<Path> incomplete() {
            return dir.incomplete();
        }

        /** The folder's complete sstables, in generation order. */
        public List<SSTableFiles> sstables() throws IOException {
            return SSTableFiles.inDirectory(dir.path());
        }

        /** Replaces {@code inputs} with their compaction: {@link CompactionTask#replace} in this folder. */
        public Compactor.Result replace(TableSchema schema, List<SSTableFiles> inputs, Compactor.Options options, int threads)
                throws IOException {
            return CompactionTask.replace(schema, inputs, options, threads, dir, BeforeCommit.NONE);
        }

        /** Lets the folder go (its lock released). */
        @Override
        public void close() {
            lock.close();
        }
    }

    /**
     * Where the slices compacted on parallel threads start: split tokens when there are at least
     * {@code threads} ranges (so no output range is cut), else {@code threads} equal ranges.
     */
    static long[] sliceStarts(int threads, long[] splits) {
        if (threads == 1) return new long[0];
        int ranges = splits.length + 1;
        if (ranges < threads) return TokenRanges.evenSplits(threads);
        long[] out = new long[threads - 1];
        for (int k = 1; k < threads; k++) out[k - 1] = splits[(int) ((long) k * ranges / threads) - 1];
        return out;
    }

    /**
     * One compactor per slice, each on its own thread (the caller's own for one slice); outputs
     * are published only when every slice prepared successfully, else every staged output is
     * removed. Returns the combined result, with the CPU time and allocation of the compacting
     * threads.
     */
    private static Compactor.Result compact(TableSchema schema, List<SSTableFiles> inputs, Compactor.Options base, int threads,
                                            TableDirectory outDir) throws IOException {
        if (threads < 1) throw new IllegalArgumentException("threads must be at least 1: " + threads);
        long[] sliceStarts = sliceStarts(threads, base.splitTokens());
        int n = sliceStarts.length + 1;
        Compactor[] compactors = new Compactor[n];
        long[] cpu = new long[n], alloc = new long[n];
        Throwable[] failures = new Throwable[n];
        Thread[] workers = new Thread[n];
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try {
            for (int i = 0; i < n; i++) {
                Compactor.Options o = n == 1 ? base : base.toBuilder()
                        .tokenRange(i == 0 ? Long.MIN_VALUE : sliceStarts[i - 1], i == n - 1 ? Long.MAX_VALUE : sliceStarts[i] - 1)
                        .build();
                compactors[i] = new Compactor(schema, inputs, o);
            }
            for (int i = 0; i < n; i++) {
                final int slice = i;
                Runnable work = () -> {
                    long tid = Thread.currentThread().getId();
                    long c0 = mx.getCurrentThreadCpuTime(), a0 = mx.getThreadAllocatedBytes(tid);
                    try {
                        compactors[slice].prepare(outDir);
                    } catch (Throwable t) {
                        failures[slice] = t;
                    } finally {
                        cpu[slice] = mx.getCurrentThreadCpuTime() - c0;
                        alloc[slice] = mx.getThreadAllocatedBytes(tid) - a0;
                    }
                };
                if (n == 1) {
                    work.run();
                } else {
                    workers[i] = new Thread(work, "flushline-compact-" + i);
                    workers[i].start();
                }
            }
            joinAll(workers);
            for (Throwable t : failures) {
                if (t == null) continue;
                if (t instanceof IOException) throw (IOException) t;
                if (t instanceof RuntimeException) throw (RuntimeException) t;
                if (t instanceof Error) throw (Error) t;
                throw new IOException(t);
            }
            Compactor.Result total = null;
            for (int i = 0; i < n; i++) {
                Compactor.Result r = compactors[i].publish();
                r.threadCpuNanos = cpu[i];
                r.threadAllocatedBytes = alloc[i];
                total = total == null ? r : Compactor.Result.combine(total, r);
            }
            return total;
        } finally {
            for (Compactor c : compactors) {
                if (c != null) c.close();
            }
        }
    }

    /**
     * Waits for every started worker. Interrupted, it still waits for them (a worker must not
     * write after its staged outputs were removed), then reports the interrupt.
     */
    private static void joinAll(Thread[] workers) throws IOException {
        boolean interrupted = false;
        for (Thread w : workers) {
            if (w == null) continue;
            while (true) {
                try {
                    w.join();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while compacting");
        }
    }
}

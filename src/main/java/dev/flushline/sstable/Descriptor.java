package dev.flushline.sstable;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where one sstable's files live: {@code <tableDir>/<version>-<generation>-<format>-<Component>}
 * (version {@code oa} or {@code nb}, see {@link SSTableVersion}, whose format is {@code big}), with
 * {@code tableDir = <out>/<keyspace>/<table>-<table id as 32 hex>/}, the layout Cassandra's
 * {@code Descriptor.fromFile} and {@code nodetool import} expect.
 *
 * <p>While being written, the files live in a staging directory {@code <tableDir>/.flushline-oa-<gen>}
 * under their final names; Cassandra lists sstables from the table directory's files only, so a
 * staging directory is invisible to it. The staging and lock names are the same for every version
 * (they carry "oa" from when it was the only one, so that leftovers of earlier runs are still
 * recognized): generations are unique across versions, so the generation alone names them.
 *
 * <p>Reservation: a generation is taken by creating {@code .flushline-oa-<gen>.lock} with
 * CREATE_NEW (atomic across threads and processes) and holding an OS file lock on it until the
 * sstable is published or aborted. The OS drops the lock when the process dies (even on SIGKILL),
 * so {@link Leftovers#clean} can tell a live writer's staging directory from a crashed one.
 *
 * <p>Thread safety: {@link #reserveNext} is safe across threads and processes; an instance is
 * owned by the one writer that reserved it.
 */
public final class Descriptor {
    static final String STAGING_PREFIX = ".flushline-oa-";
    static final String LOCK_SUFFIX = ".lock";
    /** A published component of any version and format we know: group 1 the version, 2 the generation, 3 the component. */
    static final Pattern FILE_NAME = Pattern.compile("^(" + SSTableVersion.choices() + ")-(\\d+)-(?:" + SSTableFormat.choices() + ")-(.+)$");

    /**
     * Lock files this JVM holds. On Linux a Java file lock is a POSIX record lock, and closing any
     * descriptor of the file drops every lock the process holds on it; so {@link Leftovers} must
     * not open a probe channel on our own live locks, and checks this set instead.
     */
    static final java.util.Set<Path> HELD_BY_THIS_JVM = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private final Path tableDir;
    private final int generation;
    private final SSTableVersion version;
    private java.nio.channels.FileChannel lockChannel;
    private java.nio.channels.FileLock lock;
    /** Held by a {@link TransactionLog} past the writer's release: see {@link #pin}. */
    private boolean pinned;

    private Descriptor(Path tableDir, int generation, SSTableVersion version) {
        this.tableDir = tableDir;
        this.generation = generation;
        this.version = version;
    }

    public static Path tableDir(Path outDir, String keyspace, String table, String tableIdHex) {
        return dev.flushline.schema.TableSchema.directory(outDir, keyspace, table, tableIdHex);
    }

    /**
     * Reserves the next free generation in {@code tableDir} by creating its staging directory.
     * Lists the directory on every call: a writer that reserves many generations opens a
     * {@link TableDirectory} once instead.
     */
    public static Descriptor reserveNext(Path tableDir) throws IOException {
        return reserveNext(tableDir, SSTableVersion.OA);
    }

    /** As {@link #reserveNext(Path)}, for an sstable of {@code version}. */
    public static Descriptor reserveNext(Path tableDir, SSTableVersion version) throws IOException {
        Files.createDirectories(tableDir);
        int next = highestGeneration(tableDir) + 1;
        while (true) {
            Descriptor d = tryReserve(tableDir, next, version);
            if (d != null) return d;
            next++;
        }
    }

    /**
     * Reserves {@code generation} if nobody holds it, or returns null: its lock file is created
     * with CREATE_NEW and locked, none of its components may be published already in any version (a writer that
     * published it released its lock file only after its renames, so they are visible to whoever
     * wins the lock file next), and its staging directory must not exist (a crashed writer's).
     */
    static Descriptor tryReserve(Path tableDir, int generation) throws IOException {
        return tryReserve(tableDir, generation, SSTableVersion.OA);
    }

    static Descriptor tryReserve(Path tableDir, int generation, SSTableVersion version) throws IOException {
        Descriptor d = tryLock(tableDir, generation, version);
        if (d == null) return null;
        try {
            Component[] all = Component.values();
            SSTableVersion[] versions = SSTableVersion.values();
            for (int v = 0; v < versions.length; v++) {
                for (int i = 0; i < all.length; i++) {
                    if (Files.exists(tableDir.resolve(fileName(versions[v], generation, all[i])))) {
                        d.releaseReservation(); // published by another writer since our counter was set
                        return null;
                    }
                }
            }
            Files.createDirectory(d.stagingDir());
            return d;
        } catch (FileAlreadyExistsException e) {
            d.releaseReservation(); // a crashed writer's staging dir of this generation: skip it
            return null;
        } catch (IOException | RuntimeException e) {
            d.releaseReservation();
            throw e;
        }
    }

    /**
     * Creates the generation's lock file (CREATE_NEW) and locks it; null if it exists, or if it was
     * deleted between the two steps. Unlocked in that moment, a cleaner in another process may take
     * the fresh file for a dead writer's and delete it, and a lock on a deleted file protects
     * nothing: the file's identity before and after the lock tells.
     */
    private static Descriptor tryLock(Path tableDir, int generation, SSTableVersion version) throws IOException {
        Descriptor d = new Descriptor(tableDir, generation, version);
        java.nio.channels.FileChannel ch;
        try {
            ch = java.nio.channels.FileChannel.open(d.lockPath(), java.nio.file.StandardOpenOption.CREATE_NEW,
                    java.nio.file.StandardOpenOption.WRITE);
        } catch (FileAlreadyExistsException e) {
            return null;
        }
        try {
            Object created = fileKey(d.lockPath());
            d.lockChannel = ch;
            d.lock = ch.lock();
            HELD_BY_THIS_JVM.add(d.lockPath().toAbsolutePath());
            if (created == null || !created.equals(fileKey(d.lockPath()))) {
                d.lockChannel = null;
                d.lock = null;
                HELD_BY_THIS_JVM.remove(d.lockPath().toAbsolutePath());
                ch.close();
                return null;
            }
            return d;
        } catch (IOException | RuntimeException e) {
            d.releaseReservation();
            throw e;
        }
    }

    private static Object fileKey(Path p) {
        try {
            return Files.readAttributes(p, java.nio.file.attribute.BasicFileAttributes.class,
                    java.nio.file.LinkOption.NOFOLLOW_LINKS).fileKey();
        } catch (IOException e) {
            return null; // gone
        }
    }

    /**
     * Takes the lock of a generation that is already published, so that its files can be removed
     * the way a crashed publish is undone: whoever deletes TOC.txt first and the rest after, while
     * holding this lock, leaves at worst a TOC-less generation beside a dead writer's lock if it
     * dies midway, which {@link Leftovers#clean} then removes. Returns null when the lock file
     * exists (a live writer's, or a dead one's that the directory's next open removes).
     */
    static Descriptor lockPublished(Path tableDir, int generation, SSTableVersion version) throws IOException {
        return tryLock(tableDir, generation, version);
    }

    /**
     * Publishes the components in the staging directory: renames each into the table directory in
     * {@link Component} order (Data.db after what a reader needs with it, TOC.txt last). If a rename
     * fails, what is already visible is taken back, newest first, so the table directory holds no
     * partial sstable; the staging directory and the reservation stay for the caller to remove.
     * Directory fsyncs are the caller's.
     */
    void renameStagedIntoPlace() throws IOException {
        int moved = 0;
        Component[] order = Component.values();
        try {
            for (; moved < order.length; moved++) {
                Path from = stagingPath(order[moved]);
                if (Files.exists(from)) {
                    Files.move(from, path(order[moved]), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                }
            }
        } catch (IOException | RuntimeException e) {
            for (int i = moved - 1; i >= 0; i--) {
                try {
                    Files.deleteIfExists(path(order[i]));
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed); // Leftovers.clean removes a TOC-less generation later
                }
            }
            throw e;
        }
    }

    /** The reservation lock file of this generation. */
    public Path lockPath() {
        return tableDir.resolve(STAGING_PREFIX + generation + LOCK_SUFFIX);
    }

    /**
     * Deletes the lock file and drops the OS lock. Called once the staging directory is gone
     * (published or aborted). Idempotent; never throws.
     */
    public void releaseReservation() {
        if (pinned) return; // the transaction releases it when it ends
        if (lock == null && lockChannel == null) return;
        try {
            Files.deleteIfExists(lockPath());
        } catch (IOException ignored) {
            // an orphaned lock file without a held lock is removed by Leftovers.clean
        }
        try {
            if (lock != null) lock.release();
            if (lockChannel != null) lockChannel.close();
        } catch (IOException ignored) {
            // closing releases the lock in any case
        }
        lock = null;
        lockChannel = null;
        HELD_BY_THIS_JVM.remove(lockPath().toAbsolutePath());
    }

    /**
     * Keeps the reservation after the writer releases it (its {@link #releaseReservation} becomes
     * a no-op): a transaction's output generation must stay taken until the transaction's log is
     * gone, even if the output's writer aborts, or another writer could publish under a generation
     * that recovery would then delete. REQUIRES: the reservation is held.
     */
    void pin() {
        pinned = true;
    }

    /** The transaction this generation is an output of, or null. Set once, by the transaction's reservation. */
    private volatile TransactionLog transaction;

    void joinTransaction(TransactionLog t) {
        transaction = t;
    }

    /**
     * True if this sstable is an output of a transaction: its writer then leaves the directory
     * fsyncs to the transaction's commit (see {@link SSTableWriter#finish}).
     */
    boolean inTransaction() {
        return transaction != null;
    }

    /**
     * Called by the writer before its first component is renamed into the table directory: a
     * transaction's output must not be visible there before the log's ADD record naming it is
     * durable, or a crash could leave a published sstable that no record tells recovery to delete
     * (its data would then be live twice, in it and in the inputs).
     */
    void beforePublish() throws IOException {
        TransactionLog t = transaction;
        if (t != null) t.beforePublish(this);
    }

    /** Ends {@link #pin} and releases the reservation (lock file deleted, OS lock dropped). */
    void unpin() {
        pinned = false;
        releaseReservation();
    }

    /**
     * Ends {@link #pin} and drops the OS lock but leaves the lock file: a log that still names this
     * generation keeps it from being reserved again until recovery (then {@link Leftovers#clean})
     * has dealt with it.
     */
    void unpinKeepingLockFile() {
        pinned = false;
        try {
            if (lock != null) lock.release();
            if (lockChannel != null) lockChannel.close();
        } catch (IOException ignored) {
            // closing releases the lock in any case
        }
        lock = null;
        lockChannel = null;
        HELD_BY_THIS_JVM.remove(lockPath().toAbsolutePath());
    }

    /** Highest generation used by a published file (of any version) or a staging directory; 0 if none. */
    static int highestGeneration(Path tableDir) throws IOException {
        int max = 0;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(tableDir)) {
            for (Path p : ds) {
                String name = p.getFileName().toString();
                int g = generationOf(name);
                if (g < 0 && name.startsWith(STAGING_PREFIX)) {
                    String digits = name.substring(STAGING_PREFIX.length());
                    if (digits.endsWith(LOCK_SUFFIX)) digits = digits.substring(0, digits.length() - LOCK_SUFFIX.length());
                    try {
                        g = Integer.parseInt(digits);
                    } catch (NumberFormatException ignored) {
                        g = -1;
                    }
                }
                if (g > max) max = g;
            }
        }
        return max;
    }

    /** The generation of a published component file name, or -1. */
    static int generationOf(String fileName) {
        Matcher m = FILE_NAME.matcher(fileName);
        if (!m.matches()) return -1;
        try {
            return Integer.parseInt(m.group(2));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    public Path tableDir() { return tableDir; }

    public int generation() { return generation; }

    public SSTableVersion version() { return version; }

    public String fileName(Component c) {
        return fileName(version, generation, c);
    }

    static String fileName(SSTableVersion version, int generation, Component c) {
        return version.fileNamePrefix(Integer.toString(generation)) + c.fileSuffix();
    }

    /** The published path of a component. */
    public Path path(Component c) {
        return tableDir.resolve(fileName(c));
    }

    public Path stagingDir() {
        return tableDir.resolve(STAGING_PREFIX + generation);
    }

    /** Where a component is written before publishing. */
    public Path stagingPath(Component c) {
        return stagingDir().resolve(fileName(c));
    }

    @Override
    public String toString() {
        return path(Component.DATA).toString();
    }
}

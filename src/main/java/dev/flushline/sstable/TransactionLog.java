package dev.flushline.sstable;

import dev.flushline.io.SyncedFileOutput;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Replaces sstables of one table directory atomically: "remove these inputs, add those outputs".
 * After a kill -9 at any moment, a reader that lists the directory through {@link #liveSSTables}
 * sees either all the inputs or all the outputs, and the next {@link #recover} (run by
 * {@link Leftovers#clean} whenever a table directory is opened) finishes or rolls back what was
 * interrupted. The log is Cassandra 5.0.9's own ({@link TransactionLogLayout}), so a node or
 * {@code sstableutil --cleanup} finding it does the same cleanup. Inputs and outputs may be of any
 * version we read (oa, nb, da), mixed: each record names its sstable's own file name prefix, as
 * Cassandra's do, so a compaction may convert a directory's sstables from one version to another.
 *
 * <p>Protocol, each step durable before the next:
 * <ol>
 * <li>{@link #begin}: take {@code .flushline-txn-<uuid>.lock} (an OS lock held for the whole
 *     transaction: a live transaction's files are never cleaned by another process), create the
 *     empty log, fsync it and the directory.</li>
 * <li>{@link #reserveOutput} / {@link #outputs}: each output generation is reserved and its ADD
 *     record appended; the records are fsynced (once, for all appended so far) before the first
 *     component of any output is renamed into the table directory, so no output is ever visible
 *     there without a durable record telling recovery to delete it (until then its files are in
 *     its staging directory, which {@link Leftovers} removes after a crash). The generation's
 *     reservation lock is kept until the transaction ends, so no other writer can take the
 *     generation even if the output's writer aborts. The outputs are written and published by
 *     {@link SSTableWriter}, every file fsynced as it is finished; the table directory is not
 *     fsynced per output.</li>
 * <li>{@link #obsolete}: one REMOVE record per input (its files' count and newest time), not
 *     fsynced one by one: {@link #commit} fsyncs them all before it appends COMMIT.</li>
 * <li>{@link #commit}: the table directory is fsynced, making every output's renames durable
 *     (their contents already are), and the log, making every record durable; then the COMMIT
 *     record, fsynced, is the commit point, so after
 *     a crash a committed log always has its outputs whole on disk. Then each input is deleted
 *     Data.db first (a generation without Data.db is not an sstable to any reader) and the rest
 *     oldest first (so the newest time a REMOVE record holds stays true until the last file, which
 *     is what Cassandra checks before it deletes anything), the directory fsynced, the log
 *     deleted, the directory fsynced, the locks released.</li>
 * <li>{@link #abort} (or {@link #close} without commit): an ABORT record, the outputs deleted
 *     the same way, then the log.</li>
 * </ol>
 *
 * <p>Recovery of a log whose lock nobody holds: committed (its last valid record is COMMIT) -&gt;
 * delete what is left of the REMOVE sstables; otherwise -&gt; delete the ADD sstables; then the log.
 * A torn last line counts as not written; any other bad line is a {@link TransactionLogCorruptException}
 * and nothing is deleted. Unlike Cassandra we refuse records naming another directory (a copied
 * table directory must not delete files of the original).
 *
 * <p>Thread safety: an instance belongs to one thread, except that outputs may be reserved (and
 * their writers may sync the records) from several threads at once. REQUIRES: every output's writer is finished
 * or aborted before {@link #commit} or {@link #abort}. {@link #recover} and {@link #liveSSTables}
 * are safe from any thread and process.
 */
public final class TransactionLog implements AutoCloseable {
    static final String LOCK_PREFIX = ".flushline-txn-";
    /**
     * A component file of any version and format we know: group 1 the version, 2 the generation as
     * written, 3 the format, 4 the component. Groups 1 to 3 with their dashes are the file name
     * prefix a record names; the pair of version and format is not checked here, since a record
     * covers every file whose name starts with its prefix, as in Cassandra.
     */
    private static final Pattern COMPONENT_FILE = Pattern.compile(
            "^(" + SSTableVersion.choices() + ")-(\\d+)-(" + SSTableFormat.choices() + ")-(.+)$");
    private static final int VIEW_ATTEMPTS = 1000;

    /**
     * Sees each step of the protocol as it is taken, on the thread that takes it (the
     * transaction's; an output's writer's for "publish"): a seam for callers in this package that
     * need to act between two steps (a crash test that takes the directory's state there, a child
     * process that waits so that a kill lands there). Steps: "add G" (an output reserved, its ADD
     * appended), "publish G" (its records durable, before its first rename), "remove G" (an input's
     * REMOVE appended), "outputs synced", "committed", "aborted", "deleted NAME" per file, "log
     * deleted".
     */
    interface StepListener {
        void step(String what);

        StepListener NONE = what -> { };
    }

    /**
     * The listener of transactions begun without one ({@link #beginCompaction(TableDirectory)}, as
     * every command does): {@link StepListener#NONE}, except in a test's child process that runs a
     * command and stops it at each step so that a kill lands there. Set before the first
     * transaction begins, and never in production code.
     */
    static volatile StepListener defaultListener = StepListener.NONE;

    private enum State { OPEN, DONE, COMMIT_UNKNOWN }

    private final TableDirectory directory;
    private final Path tableDir;
    private final String canonicalDir;
    private final String operation;
    private final Path logPath;
    private final Path lockPath;
    private final FileChannel logChannel;
    private final FileChannel lockChannel;
    private final FileLock lock;
    /** Bytes of whole records (fsynced unless {@link #unsyncedRecords}): an append that fails is cut back to this. */
    private long goodLength;
    /** The log may end in a partial line we could not remove: append nothing more. */
    private boolean logBroken;
    private State state = State.OPEN;
    private final List<Descriptor> outputs = new ArrayList<>();
    /** File name prefixes of the inputs ({@code nb-3-big-}), in REMOVE order. */
    private final List<String> inputs = new ArrayList<>();
    private final StepListener listener;

    private TransactionLog(TableDirectory directory, String canonicalDir, String operation, Path logPath, Path lockPath,
                           FileChannel logChannel, FileChannel lockChannel, FileLock lock, StepListener listener) {
        this.listener = listener;
        this.directory = directory;
        this.tableDir = directory.path();
        this.canonicalDir = canonicalDir;
        this.operation = operation;
        this.logPath = logPath;
        this.lockPath = lockPath;
        this.logChannel = logChannel;
        this.lockChannel = lockChannel;
        this.lock = lock;
    }

    /** Begins a compaction's transaction in {@code directory}. */
    public static TransactionLog beginCompaction(TableDirectory directory) throws IOException {
        return beginCompaction(directory, defaultListener);
    }

    /** As {@link #beginCompaction(TableDirectory)}, telling {@code listener} each step. */
    static TransactionLog beginCompaction(TableDirectory directory, StepListener listener) throws IOException {
        return begin(directory, TransactionLogLayout.COMPACTION, listener);
    }

    /**
     * Begins a transaction: takes its lock, creates its empty log and makes both durable.
     * {@code operation} is Cassandra's file name of the operation type (lower case, no spaces);
     * it must be one Cassandra knows (its lister refuses a log named otherwise), hence not public.
     */
    static TransactionLog begin(TableDirectory directory, String operation, StepListener listener) throws IOException {
        if (!operation.matches("[a-z]+")) throw new IllegalArgumentException("operation must be lower-case letters: " + operation);
        Path dir = directory.path();
        String canonical = dir.toRealPath().toString();
        TransactionLogLayout.format(TransactionLogLayout.Type.ADD, canonical + "/x", 0, 0); // rejects paths a record cannot hold
        for (int attempt = 0; ; attempt++) {
            String uuid = nextTimeUuid();
            Path lockPath = dir.resolve(LOCK_PREFIX + uuid + Descriptor.LOCK_SUFFIX);
            FileChannel lockChannel = FileChannel.open(lockPath, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            Object created = fileKey(lockPath);
            FileLock lock;
            try {
                lock = lockChannel.lock();
            } catch (IOException | RuntimeException e) {
                closeQuietly(lockChannel);
                SyncedFileOutput.deleteQuietly(lockPath);
                throw e;
            }
            // Between CREATE_NEW and lock() the file is unlocked: a cleaner in another process may
            // have taken it for a dead transaction's and deleted it. A lock on a deleted file
            // protects nothing, so start again under a new name.
            Object now = fileKey(lockPath);
            if (created != null && created.equals(now)) {
                return begin(directory, dir, canonical, operation, uuid, lockPath, lockChannel, lock, listener);
            }
            closeQuietly(lockChannel);
            if (attempt >= 100) throw new IOException("could not keep a transaction lock file in " + dir);
        }
    }

    private static Object fileKey(Path p) {
        try {
            return Files.readAttributes(p, java.nio.file.attribute.BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
        } catch (IOException e) {
            return null; // gone
        }
    }

    private static TransactionLog begin(TableDirectory directory, Path dir, String canonical, String operation, String uuid,
                                        Path lockPath, FileChannel lockChannel, FileLock lock, StepListener listener)
            throws IOException {
        Path logPath = dir.resolve(TransactionLogLayout.fileName(operation, uuid));
        FileChannel log = null;
        try {
            Descriptor.HELD_BY_THIS_JVM.add(lockPath.toAbsolutePath());
            // The lock file before the log: whoever finds the log also finds its lock held while we live.
            log = FileChannel.open(logPath, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            log.force(true);
            SyncedFileOutput.syncDirectory(dir);
            return new TransactionLog(directory, canonical, operation, logPath, lockPath, log, lockChannel, lock, listener);
        } catch (IOException | RuntimeException e) {
            if (log != null) {
                closeQuietly(log);
                SyncedFileOutput.deleteQuietly(logPath);
            }
            Descriptor.HELD_BY_THIS_JVM.remove(lockPath.toAbsolutePath());
            SyncedFileOutput.deleteQuietly(lockPath);
            closeQuietly(lockChannel);
            throw e;
        }
    }

    private void step(String what) {
        listener.step(what);
    }

    public Path logFile() {
        return logPath;
    }

    /** The operation named in the log's file name, e.g. "compaction". */
    public String operation() {
        return operation;
    }

    /**
     * A view of the table directory whose {@link TableDirectory#reserveNext} reserves outputs of
     * this transaction ({@link #reserveOutput}), for writers that reserve their own generation.
     */
    public TableDirectory outputs() {
        return directory.forTransaction(this);
    }

    /** Reserves the next generation as an output of this transaction (recorded as ADD before this returns). */
    public Descriptor reserveOutput() throws IOException {
        return outputs().reserveNext();
    }

    /**
     * Called by the transaction's TableDirectory view for each generation it reserved.
     * Synchronized: the parallel compactors of one transaction (disjoint token slices) reserve
     * their outputs from their own threads.
     */
    synchronized void track(Descriptor d) throws IOException {
        try {
            ensureOpen();
            // Not fsynced here: the writer calls syncRecords before it publishes anything.
            append(TransactionLogLayout.Type.ADD, prefixOf(d), 0, TransactionLogLayout.sstableFiles(d.version()), false);
        } catch (IOException | RuntimeException e) {
            SSTableWriter.deleteStaging(d);
            throw e;
        }
        d.pin(); // the generation stays reserved until the transaction ends, even if its writer aborts
        d.joinTransaction(this);
        outputs.add(d);
        step("add " + d.generation());
    }

    /**
     * Records a published sstable of any version (oa, nb, da), by its Data.db path, as an input
     * removed on commit; its REMOVE names its own prefix ({@code nb-3-big-}, {@code da-5-bti-}).
     */
    public void obsolete(Path dataFile) throws IOException {
        Matcher m = COMPONENT_FILE.matcher(dataFile.getFileName().toString());
        if (!m.matches() || !m.group(4).equals(Component.DATA.fileSuffix())) {
            throw new IllegalArgumentException("not an sstable's Data.db (" + SSTableVersion.choices() + "-<generation>-<format>-Data.db): "
                    + dataFile);
        }
        SSTableVersion version = SSTableVersion.fromId(m.group(1));
        if (!version.format().id().equals(m.group(3))) {
            throw new IllegalArgumentException("not an sstable's Data.db: " + dataFile + " (version " + version + " is of format "
                    + version.format() + ", not " + m.group(3) + ")");
        }
        Path parent = dataFile.toAbsolutePath().getParent();
        if (parent == null || !parent.toRealPath().toString().equals(canonicalDir)) {
            throw new IllegalArgumentException(dataFile + " is not in the transaction's directory " + tableDir);
        }
        obsolete(version.fileNamePrefix(m.group(2)), m.group(2));
    }

    /**
     * Records published generation {@code generation}, of whichever version it was published in,
     * as an input removed on commit. Generations are unique across versions in a directory (see
     * {@link Descriptor}); a directory that holds one generation in two versions anyway (copied
     * together from elsewhere) is refused: name the input by its Data.db then.
     */
    public void obsolete(int generation) throws IOException {
        String digits = String.valueOf(generation);
        String found = null;
        StringBuilder tried = new StringBuilder();
        SSTableVersion[] versions = SSTableVersion.values();
        for (int i = 0; i < versions.length; i++) {
            String prefix = versions[i].fileNamePrefix(digits);
            tried.append(i == 0 ? "" : ", ").append(prefix).append('*');
            if (!isPublished(filesOf(tableDir, prefix))) continue;
            if (found != null) {
                throw new IllegalArgumentException("generation " + digits + " is published as both " + found + "* and " + prefix
                        + "* in " + tableDir + ": name the input by its Data.db");
            }
            found = prefix;
        }
        if (found == null) {
            throw new IllegalArgumentException("not a published sstable: no " + tried + " in " + tableDir + " has Data.db and TOC.txt");
        }
        obsolete(found, digits);
    }

    private void obsolete(String prefix, String digits) throws IOException {
        ensureOpen();
        for (Descriptor d : outputs) {
            if (sameGeneration(d.generation(), digits)) throw new IllegalArgumentException("generation " + digits + " is an output");
        }
        if (inputs.contains(prefix)) throw new IllegalArgumentException(prefix + " (generation " + digits + ") is already an input");
        List<Path> files = filesOf(tableDir, prefix);
        if (!isPublished(files)) throw new IllegalArgumentException("not a published sstable: " + tableDir.resolve(prefix + "*"));
        // Not fsynced here: commit() makes every REMOVE durable before it appends COMMIT.
        append(TransactionLogLayout.Type.REMOVE, prefix, newestTime(files, false), files.size(), false);
        inputs.add(prefix);
        step("remove " + digits);
    }

    /** The file name prefix of an output, in its own version: {@code oa-7-big-}, {@code da-7-bti-}. */
    private static String prefixOf(Descriptor d) {
        return d.version().fileNamePrefix(Integer.toString(d.generation()));
    }

    /** Whether the generation written as {@code digits} (leading zeros allowed) is {@code generation}. */
    private static boolean sameGeneration(int generation, String digits) {
        return stripLeadingZeros(digits).equals(Integer.toString(generation));
    }

    /** Data.db and TOC.txt among {@code files}: the sstable is published whole. */
    private static boolean isPublished(List<Path> files) {
        return hasComponent(files, Component.TOC) && hasComponent(files, Component.DATA);
    }

    /**
     * Commits: every output must be published whole (or have no file at all: a writer that wrote
     * nothing). Appends COMMIT (the commit point), then deletes the inputs and the log.
     * If deleting fails the transaction is still committed: the exception says so, and the next
     * {@link #recover} finishes the deletion.
     */
    public void commit() throws IOException {
        ensureOpen();
        for (Descriptor d : outputs) {
            List<Path> files = filesOf(tableDir, prefixOf(d));
            if (!files.isEmpty() && !isPublished(files)) {
                throw new IllegalStateException("output " + d + " is not published whole; abort instead of committing");
            }
        }
        if (logBroken) throw new IOException("cannot commit " + logPath + ": an earlier append failed");
        // The outputs' writers fsynced each file but left the directory to us: one fsync makes all
        // their renames durable, and it must come before COMMIT, the record after which recovery
        // keeps the outputs and deletes the inputs.
        SyncedFileOutput.syncDirectory(tableDir);
        // The REMOVE records (appended without an fsync each) durable before COMMIT is written: a
        // COMMIT on disk with a REMOVE lost would keep that input live beside the outputs. One
        // fsync for all the inputs, then one for COMMIT.
        syncRecords();
        step("outputs synced");
        try {
            append(TransactionLogLayout.Type.COMMIT, null, 0, 0);
        } catch (IOException | RuntimeException e) {
            if (logBroken) {
                // The COMMIT may or may not be on disk: only recovery, reading the log, may decide.
                state = State.COMMIT_UNKNOWN;
                releaseAll();
            }
            throw e;
        }
        step("committed");
        try {
            deleteSide(inputs);
            finishLog();
        } finally {
            state = State.DONE;
            releaseAll();
        }
    }

    /**
     * Rolls back: appends ABORT, deletes every output's staging directory and published files, then
     * the log. Idempotent;
     * a no-op after a commit. After a commit whose outcome is unknown (its append failed) it only
     * releases the locks and leaves the log to {@link #recover}.
     */
    public void abort() throws IOException {
        if (state != State.OPEN) return;
        try {
            if (!logBroken) {
                try {
                    append(TransactionLogLayout.Type.ABORT, null, 0, 0);
                    step("aborted");
                } catch (IOException e) {
                    // Not committed whatever the log holds now: no COMMIT was ever appended.
                }
            }
            List<String> added = new ArrayList<>();
            for (Descriptor d : outputs) {
                added.add(prefixOf(d));
                SSTableWriter.deleteStaging(d); // a writer that was never closed; the reservation stays pinned
            }
            deleteSide(added);
            finishLog();
        } finally {
            state = State.DONE;
            releaseAll();
        }
    }

    /** Aborts unless committed. */
    @Override
    public void close() throws IOException {
        abort();
    }

    private void ensureOpen() {
        if (state != State.OPEN) throw new IllegalStateException("transaction " + logPath + " is already complete");
    }

    private void append(TransactionLogLayout.Type type, String fileNamePrefix, long updateTime, int numFiles) throws IOException {
        append(type, fileNamePrefix, updateTime, numFiles, true);
    }

    /**
     * Makes every record appended so far durable (the ADD records, which are appended without an
     * fsync of their own). Called by an output's writer before it renames anything into the table
     * directory; a no-op when nothing is pending.
     */
    synchronized void syncRecords() throws IOException {
        if (!unsyncedRecords) return;
        if (logBroken) throw new IOException("cannot sync " + logPath + ": an earlier append failed");
        try {
            logChannel.force(true);
        } catch (IOException | RuntimeException e) {
            logBroken = true; // which records reached the disk is unknown: commit nothing on top of them
            throw e;
        }
        unsyncedRecords = false;
    }

    /**
     * Called by an output's writer before it renames anything into the table directory (see
     * {@link Descriptor#beforePublish}): the records so far made durable, then the "publish" step.
     */
    void beforePublish(Descriptor output) throws IOException {
        syncRecords();
        step("publish " + output.generation());
    }

    /** Records appended since the last fsync of the log (guarded by this). */
    private boolean unsyncedRecords;

    /**
     * Appends one record; with {@code force} it is fsynced (with every record before it) before
     * this returns. Synchronized: the parallel compactors of one transaction reserve outputs from
     * their own threads.
     */
    private synchronized void append(TransactionLogLayout.Type type, String fileNamePrefix, long updateTime, int numFiles, boolean force)
            throws IOException {
        if (logBroken) throw new IOException("cannot append to " + logPath + ": an earlier append failed");
        String path = type.hasFile() ? TransactionLogLayout.sstablePath(canonicalDir, fileNamePrefix) : "";
        byte[] line = (TransactionLogLayout.format(type, path, updateTime, numFiles) + TransactionLogLayout.RECORD_END)
                .getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.wrap(line);
        try {
            long position = goodLength;
            while (b.hasRemaining()) position += logChannel.write(b, position);
            if (force) logChannel.force(true);
        } catch (IOException | RuntimeException e) {
            try {
                logChannel.truncate(goodLength); // a partial line would corrupt every record after it
                logChannel.force(true);
            } catch (IOException | RuntimeException suppressed) {
                logBroken = true;
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        goodLength += line.length;
        unsyncedRecords = !force;
    }

    /** Deletes the files of the sstables with these file name prefixes, each in {@link #deletionOrder}. */
    private void deleteSide(List<String> prefixes) throws IOException {
        SyncedFileOutput.syncDirectory(tableDir);
        for (String prefix : prefixes) {
            for (Path f : deletionOrder(filesOf(tableDir, prefix))) {
                if (Files.deleteIfExists(f)) step("deleted " + f.getFileName());
            }
        }
        SyncedFileOutput.syncDirectory(tableDir);
    }

    private void finishLog() throws IOException {
        logChannel.close();
        Files.deleteIfExists(logPath);
        SyncedFileOutput.syncDirectory(tableDir);
        step("log deleted");
    }

    /** Drops the transaction lock and the output reservations; the lock file goes after the log. */
    private void releaseAll() {
        closeQuietly(logChannel);
        boolean logGone = !Files.exists(logPath);
        if (logGone) SyncedFileOutput.deleteQuietly(lockPath); // after the log, so a log always has its lock file
        try {
            lock.release();
        } catch (IOException | RuntimeException ignored) {
            // closing the channel releases it in any case
        }
        closeQuietly(lockChannel);
        Descriptor.HELD_BY_THIS_JVM.remove(lockPath.toAbsolutePath());
        if (logGone) {
            for (Descriptor d : outputs) d.unpin();
        } else {
            // The log names these generations: leave their lock files so nobody reuses them before
            // recovery has run; only the OS locks go.
            for (Descriptor d : outputs) d.unpinKeepingLockFile();
        }
    }

    // ---- reading logs: recovery and the consistent view ----

    /** A log as read back and checked against the files it names. */
    static final class LogState {
        final Path file;
        final String operation;
        final boolean committed;
        /** File name prefixes ({@code oa-<gen>-big-}, {@code da-<gen>-bti-}, ...) of valid ADD and REMOVE records. */
        final List<String> added = new ArrayList<>();
        final List<String> removed = new ArrayList<>();

        LogState(Path file, String operation, boolean committed) {
            this.file = file;
            this.operation = operation;
            this.committed = committed;
        }

        /** Prefixes of the side a reader must not see: inputs once committed, outputs until then. */
        List<String> hidden() {
            return committed ? removed : added;
        }
    }

    /**
     * Reads and checks one log the way Cassandra's LogFile.verify does; {@code files} is a
     * listing of the table directory. Returns null if the log no longer exists.
     */
    static LogState read(Path logFile, String canonicalDir, Map<String, List<Path>> files) throws IOException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(logFile);
        } catch (NoSuchFileException e) {
            return null;
        }
        return parse(logFile, bytes, canonicalDir, files);
    }

    /** As {@link #read}, from the log's bytes as read at one moment. */
    static LogState parse(Path logFile, byte[] bytes, String canonicalDir, Map<String, List<Path>> files) throws IOException {
        Matcher name = TransactionLogLayout.FILE_NAME.matcher(logFile.getFileName().toString());
        if (!name.matches()) throw new IllegalArgumentException("not a transaction log name: " + logFile);
        List<String> lines = lines(bytes);
        List<TransactionLogLayout.Record> records = new ArrayList<>(lines.size());
        for (int i = 0; i < lines.size(); i++) {
            TransactionLogLayout.Record r = TransactionLogLayout.parse(i + 1, lines.get(i));
            for (TransactionLogLayout.Record earlier : records) {
                if (r.sameAs(earlier)) throw new TransactionLogCorruptException(logFile, r.lineNumber(), "duplicate of line " + earlier.lineNumber());
            }
            if (r.parsed() && r.type().isFinal() && i != lines.size() - 1) {
                throw new TransactionLogCorruptException(logFile, r.lineNumber(), r.type() + " is not the last line");
            }
            records.add(r);
        }
        String[] problems = new String[records.size()];
        int firstInvalid = -1;
        for (int i = 0; i < records.size(); i++) {
            problems[i] = problem(records.get(i), canonicalDir, files);
            if (problems[i] != null && firstInvalid < 0) firstInvalid = i;
        }
        if (firstInvalid >= 0) {
            TransactionLogLayout.Record bad = records.get(firstInvalid);
            if (firstInvalid != records.size() - 1) {
                throw new TransactionLogCorruptException(logFile, bad.lineNumber(), problems[firstInvalid] + ": " + bad.line());
            }
            // A torn last line: the append was cut short by a crash. Acceptable only if every REMOVE
            // before it still has all its files (nothing is deleted before a whole COMMIT).
            for (int i = 0; i < firstInvalid; i++) {
                TransactionLogLayout.Record r = records.get(i);
                if (r.type() == TransactionLogLayout.Type.REMOVE && existing(r, files).size() < r.numFiles()) {
                    throw new TransactionLogCorruptException(logFile, r.lineNumber(), "the last line is incomplete, yet "
                            + r.path() + "* has " + existing(r, files).size() + " of its " + r.numFiles() + " files");
                }
            }
            records.remove(firstInvalid);
        }
        TransactionLogLayout.Record last = records.isEmpty() ? null : records.get(records.size() - 1);
        LogState state = new LogState(logFile, name.group(2),
                last != null && last.type() == TransactionLogLayout.Type.COMMIT);
        for (TransactionLogLayout.Record r : records) {
            if (r.type() == TransactionLogLayout.Type.ADD) state.added.add(fileNameOf(r.path()));
            if (r.type() == TransactionLogLayout.Type.REMOVE) state.removed.add(fileNameOf(r.path()));
        }
        return state;
    }

    /** Why a record is invalid, or null. */
    private static String problem(TransactionLogLayout.Record r, String canonicalDir, Map<String, List<Path>> files) {
        if (!r.parsed()) return "not a transaction log record";
        if (!r.checksumMatches()) {
            return "checksum " + r.checksum() + " should be " + TransactionLogLayout.checksum(r.type(), r.path(), r.updateTime(), r.numFiles());
        }
        if (!r.type().hasFile()) return null;
        int slash = r.path().lastIndexOf('/');
        if (slash < 0 || !r.path().substring(0, slash).equals(canonicalDir)) {
            return "names an sstable outside " + canonicalDir;
        }
        if (r.type() != TransactionLogLayout.Type.REMOVE) return null;
        // Cassandra's guard against deleting files restored from a backup: the newest time of the
        // files still there must be the recorded one (inputs are deleted oldest first).
        List<Path> onDisk = existing(r, files);
        long now = newestTime(onDisk, false);
        if (now > 0 && TransactionLogLayout.truncateToSecond(now) != TransactionLogLayout.truncateToSecond(r.updateTime())
                && TransactionLogLayout.truncateToSecond(newestTime(onDisk, true)) != TransactionLogLayout.truncateToSecond(r.updateTime())) {
            return "the files of " + r.path() + "* changed since they were recorded: newest time " + now + " is not " + r.updateTime();
        }
        return null;
    }

    private static List<Path> existing(TransactionLogLayout.Record r, Map<String, List<Path>> files) {
        return files.getOrDefault(fileNameOf(r.path()), List.of());
    }

    private static String fileNameOf(String recordPath) {
        return recordPath.substring(recordPath.lastIndexOf('/') + 1);
    }

    /** Lines as Java's line reader splits them ('\n', '\r' or "\r\n"); a torn UTF-8 sequence reads as U+FFFD. */
    private static List<String> lines(byte[] bytes) throws IOException {
        String text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE).decode(ByteBuffer.wrap(bytes)).toString();
        List<String> lines = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\n' || c == '\r') {
                lines.add(text.substring(start, i));
                if (c == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n') i++;
                start = i + 1;
            }
        }
        if (start < text.length()) lines.add(text.substring(start));
        return lines;
    }

    /**
     * Finishes or rolls back every transaction in {@code tableDir} whose process died, and says
     * what it did. Logs of live transactions (their lock is held, by this process or another)
     * are left alone, and so are logs without our lock file beside them: another writer's. Throws {@link TransactionLogCorruptException} for a log it cannot trust,
     * after handling the others.
     */
    public static List<RecoveredTransaction> recover(Path tableDir) throws IOException {
        return recoverAll(tableDir).recovered;
    }

    /**
     * What {@link #recoverAll} did; the generations (digits as written) that live transactions, and
     * logs not of ours, name; and those logs.
     */
    record Recovery(List<RecoveredTransaction> recovered, Set<String> liveGenerations, List<Path> foreignLogs) {}

    static Recovery recoverAll(Path tableDir) throws IOException {
        List<RecoveredTransaction> recovered = new ArrayList<>();
        Set<String> live = new HashSet<>();
        List<Path> foreign = new ArrayList<>();
        if (!Files.isDirectory(tableDir)) return new Recovery(recovered, live, foreign);
        String canonical = tableDir.toRealPath().toString();
        List<Path> logs = new ArrayList<>();
        List<Path> lockFiles = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(tableDir)) {
            for (Path p : ds) {
                String n = p.getFileName().toString();
                if (TransactionLogLayout.isLogFileName(n) && Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) logs.add(p);
                if (n.startsWith(LOCK_PREFIX) && n.endsWith(Descriptor.LOCK_SUFFIX)) lockFiles.add(p);
            }
        }
        Collections.sort(logs);
        TransactionLogCorruptException corrupt = null;
        Set<Path> lockFilesOfLogs = new HashSet<>();
        for (Path log : logs) {
            Matcher m = TransactionLogLayout.FILE_NAME.matcher(log.getFileName().toString());
            m.matches();
            Path lockPath = tableDir.resolve(LOCK_PREFIX + m.group(3) + Descriptor.LOCK_SUFFIX);
            lockFilesOfLogs.add(lockPath);
            // Our protocol creates the lock file before the log and deletes it after the log, so a log
            // without it was written by someone else (a Cassandra node, another tool), who may still be
            // writing it: never ours to finish or roll back.
            boolean ours = Files.exists(lockPath, LinkOption.NOFOLLOW_LINKS);
            if (!ours) foreign.add(log);
            Held held = ours ? tryHold(lockPath, false) : null;
            if (held == null) {
                // A live transaction: its generations are not leftovers. A log being written may end in a torn line.
                try {
                    LogState s = read(log, canonical, listByPrefix(tableDir));
                    if (s != null) {
                        for (String prefix : s.added) live.add(digitsOf(prefix));
                        for (String prefix : s.removed) live.add(digitsOf(prefix));
                    }
                } catch (TransactionLogCorruptException e) {
                    // The owner is alive; its log is its business until it dies.
                }
                continue;
            }
            try {
                RecoveredTransaction r = recoverOne(tableDir, canonical, log);
                if (r != null) recovered.add(r);
                SyncedFileOutput.deleteQuietly(lockPath);
            } catch (TransactionLogCorruptException e) {
                if (corrupt == null) corrupt = e; else corrupt.addSuppressed(e);
            } finally {
                held.release();
            }
        }
        // Lock files of transactions that died before creating their log or after deleting it.
        for (Path lockFile : lockFiles) {
            if (lockFilesOfLogs.contains(lockFile)) continue;
            Held held = tryHold(lockFile, false);
            if (held == null) continue;
            try {
                String uuid = lockFile.getFileName().toString();
                uuid = uuid.substring(LOCK_PREFIX.length(), uuid.length() - Descriptor.LOCK_SUFFIX.length());
                if (!hasLogFor(tableDir, uuid)) SyncedFileOutput.deleteQuietly(lockFile);
            } finally {
                held.release();
            }
        }
        if (corrupt != null) throw corrupt;
        return new Recovery(recovered, live, foreign);
    }

    private static boolean hasLogFor(Path tableDir, String uuid) throws IOException {
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(tableDir, "*" + TransactionLogLayout.SEPARATOR + uuid + TransactionLogLayout.FILE_EXTENSION)) {
            return ds.iterator().hasNext();
        }
    }

    private static RecoveredTransaction recoverOne(Path tableDir, String canonical, Path log) throws IOException {
        SyncedFileOutput.syncDirectory(tableDir); // deletions already made must be what we list
        LogState s = read(log, canonical, listByPrefix(tableDir));
        if (s == null) return null;
        List<Path> removed = new ArrayList<>();
        int sstables = 0;
        for (String prefix : s.hidden()) {
            boolean any = false;
            for (Path f : deletionOrder(filesOf(tableDir, prefix))) {
                if (Files.deleteIfExists(f)) {
                    removed.add(f);
                    any = true;
                }
            }
            if (any) sstables++;
        }
        SyncedFileOutput.syncDirectory(tableDir);
        if (Files.deleteIfExists(log)) removed.add(log);
        SyncedFileOutput.syncDirectory(tableDir);
        return new RecoveredTransaction(log, s.operation, s.committed, sstables, removed);
    }

    /** A dead transaction's lock taken by a recoverer, so two recoverers never work on one log. */
    private record Held(Path path, FileChannel channel) {
        void release() {
            closeQuietly(channel);
        }
    }

    private static Held tryHold(Path lockPath, boolean create) throws IOException {
        if (Descriptor.HELD_BY_THIS_JVM.contains(lockPath.toAbsolutePath())) return null; // ours, live: never probe it
        FileChannel ch;
        try {
            ch = create ? FileChannel.open(lockPath, StandardOpenOption.CREATE, StandardOpenOption.WRITE)
                    : FileChannel.open(lockPath, StandardOpenOption.WRITE);
        } catch (NoSuchFileException e) {
            return null;
        }
        try {
            FileLock l = ch.tryLock();
            if (l == null) {
                ch.close();
                return null;
            }
            return new Held(lockPath, ch);
        } catch (OverlappingFileLockException e) {
            ch.close(); // another thread of this JVM is recovering it
            return null;
        }
    }

    /**
     * The Data.db paths of the sstables a reader should see in {@code tableDir}, sorted by
     * generation, without changing anything: every complete generation (Data.db and TOC.txt)
     * except, per transaction log, the inputs of a committed one and the outputs of one not (yet)
     * committed, whether its process is alive or dead. Safe while transactions run in other
     * processes: it lists the logs and the files twice and retries until both listings agree, so
     * the answer is a state the directory was in (all inputs or all outputs of each transaction).
     * The files may of course be deleted after this returns, by a transaction that commits later.
     */
    public static List<Path> liveSSTables(Path tableDir) throws IOException {
        if (!Files.isDirectory(tableDir)) return List.of();
        String canonical = tableDir.toRealPath().toString();
        for (int attempt = 0; attempt < VIEW_ATTEMPTS; attempt++) {
            Map<Path, byte[]> logsBefore = readLogs(tableDir);
            List<String> names = listNames(tableDir);
            Map<Path, byte[]> logsAfter = readLogs(tableDir);
            if (!sameLogs(logsBefore, logsAfter) || !names.equals(listNames(tableDir))) continue;
            Map<String, List<Path>> byPrefix = byPrefix(tableDir, names);
            Set<String> hidden = new HashSet<>();
            for (Map.Entry<Path, byte[]> log : logsAfter.entrySet()) {
                // The bytes read beside the listings, never a later read: a COMMIT appended since
                // would hide inputs from a listing that may predate the last output's publishing.
                hidden.addAll(parse(log.getKey(), log.getValue(), canonical, byPrefix).hidden());
            }
            List<String> result = new ArrayList<>();
            for (Map.Entry<String, List<Path>> e : byPrefix.entrySet()) {
                if (hidden.contains(e.getKey())) continue;
                if (isPublished(e.getValue())) result.add(e.getKey());
            }
            result.sort(TransactionLog::compareByGeneration);
            List<Path> dataFiles = new ArrayList<>(result.size());
            for (String prefix : result) dataFiles.add(tableDir.resolve(prefix + Component.DATA.fileSuffix()));
            return List.copyOf(dataFiles);
        }
        throw new IOException("the sstables of " + tableDir + " kept changing over " + VIEW_ATTEMPTS + " listings");
    }

    private static Map<Path, byte[]> readLogs(Path tableDir) throws IOException {
        Map<Path, byte[]> logs = new TreeMap<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(tableDir)) {
            for (Path p : ds) {
                if (!TransactionLogLayout.isLogFileName(p.getFileName().toString())) continue;
                try {
                    logs.put(p, Files.readAllBytes(p));
                } catch (NoSuchFileException e) {
                    logs.put(p, null); // gone meanwhile: the listings will disagree
                }
            }
        }
        return logs;
    }

    private static boolean sameLogs(Map<Path, byte[]> a, Map<Path, byte[]> b) {
        if (!a.keySet().equals(b.keySet())) return false;
        for (Map.Entry<Path, byte[]> e : a.entrySet()) {
            byte[] other = b.get(e.getKey());
            if (e.getValue() == null || other == null || !java.util.Arrays.equals(e.getValue(), other)) return false;
        }
        return true;
    }

    private static List<String> listNames(Path dir) throws IOException {
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) names.add(p.getFileName().toString());
        }
        Collections.sort(names);
        return names;
    }

    /** The directory's component files of every version, grouped by file name prefix ({@code oa-<gen>-big-}, {@code da-<gen>-bti-}). */
    static Map<String, List<Path>> listByPrefix(Path dir) throws IOException {
        return byPrefix(dir, listNames(dir));
    }

    private static Map<String, List<Path>> byPrefix(Path dir, List<String> names) {
        Map<String, List<Path>> result = new LinkedHashMap<>();
        for (String n : names) {
            Matcher m = COMPONENT_FILE.matcher(n);
            if (!m.matches()) continue;
            result.computeIfAbsent(n.substring(0, m.start(4)), k -> new ArrayList<>()).add(dir.resolve(n));
        }
        return result;
    }

    /** Regular files of {@code dir} whose names start with {@code prefix}, as Cassandra matches a record. */
    private static List<Path> filesOf(Path dir, String prefix) throws IOException {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, glob(prefix) + "*")) {
            for (Path p : ds) {
                if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) files.add(p);
            }
        }
        return files;
    }

    private static String glob(String literal) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < literal.length(); i++) {
            char c = literal.charAt(i);
            if ("*?[]{}\\".indexOf(c) >= 0) b.append('\\');
            b.append(c);
        }
        return b.toString();
    }

    private static String digitsOf(String prefix) {
        Matcher m = COMPONENT_FILE.matcher(prefix + "x");
        m.matches();
        return m.group(2);
    }

    /**
     * Orders file name prefixes by generation (numerically, whatever its leading zeros), then by
     * name: one generation in two versions (a directory copied together) keeps both, in a fixed order.
     */
    private static int compareByGeneration(String a, String b) {
        String ga = stripLeadingZeros(digitsOf(a)), gb = stripLeadingZeros(digitsOf(b));
        if (ga.length() != gb.length()) return Integer.compare(ga.length(), gb.length());
        int c = ga.compareTo(gb);
        return c != 0 ? c : a.compareTo(b);
    }

    private static String stripLeadingZeros(String digits) {
        int i = 0;
        while (i < digits.length() - 1 && digits.charAt(i) == '0') i++;
        return digits.substring(i);
    }

    private static boolean hasComponent(List<Path> files, Component c) {
        for (Path f : files) {
            if (f.getFileName().toString().endsWith("-" + c.fileSuffix())) return true;
        }
        return false;
    }

    /**
     * Newest last-modified time in ms of the files that exist, Statistics.db excepted unless
     * {@code withStatistics}; 0 if none.
     */
    private static long newestTime(List<Path> files, boolean withStatistics) {
        long newest = 0;
        for (Path f : files) {
            if (!withStatistics && f.getFileName().toString().endsWith("-" + Component.STATISTICS.fileSuffix())) continue;
            long t = modifiedMillis(f);
            if (t > newest) newest = t;
        }
        return newest;
    }

    private static long modifiedMillis(Path f) {
        try {
            return Files.getLastModifiedTime(f).toMillis();
        } catch (IOException e) {
            return 0; // gone
        }
    }

    /**
     * Data.db first, then oldest first: the sstable stops being one to any reader at the first
     * delete, and the newest time of what is left (Statistics.db aside) stays the recorded one
     * until the last file. If Data.db is the newest by a whole second (not how any writer we know
     * writes), oldest first throughout, so the recorded time still holds.
     */
    static List<Path> deletionOrder(List<Path> files) {
        List<Path> sorted = new ArrayList<>(files);
        Map<Path, Long> times = new HashMap<>();
        for (Path f : sorted) times.put(f, modifiedMillis(f));
        sorted.sort((a, b) -> Long.compare(times.get(a), times.get(b)));
        Path data = null;
        long newestOther = 0;
        for (Path f : sorted) {
            String n = f.getFileName().toString();
            if (n.endsWith("-" + Component.DATA.fileSuffix())) data = f;
            else if (!n.endsWith("-" + Component.STATISTICS.fileSuffix())) newestOther = Math.max(newestOther, times.get(f));
        }
        if (data != null && TransactionLogLayout.truncateToSecond(times.get(data)) <= TransactionLogLayout.truncateToSecond(newestOther)) {
            sorted.remove(data);
            sorted.add(0, data);
        }
        return sorted;
    }

    private static void closeQuietly(java.io.Closeable c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // releasing on a path that is already failing or finished
        }
    }

    // ---- version-1 time UUIDs for log names ----

    private static final long UUID_EPOCH_OFFSET_TICKS = 0x01B21DD213814000L;
    private static final AtomicLong LAST_TICKS = new AtomicLong();
    /** Variant bits, a random clock sequence and a random node with the multicast bit set (not a MAC). */
    private static final long LSB;

    static {
        SecureRandom r = new SecureRandom();
        LSB = (r.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L | 0x0000_0100_0000_0000L;
    }

    static String nextTimeUuid() {
        long ticks;
        while (true) {
            long last = LAST_TICKS.get();
            ticks = Math.max(System.currentTimeMillis() * 10_000L + UUID_EPOCH_OFFSET_TICKS, last + 1);
            if (LAST_TICKS.compareAndSet(last, ticks)) break;
        }
        long msb = (ticks << 32) | ((ticks >>> 16) & 0xFFFF_0000L) | 0x1000L | ((ticks >>> 48) & 0x0FFFL);
        return new UUID(msb, LSB).toString();
    }
}

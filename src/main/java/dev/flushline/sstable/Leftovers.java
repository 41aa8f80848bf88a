package dev.flushline.sstable;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Removes what a crashed writer of ours leaves in a table directory, and only that. A table
 * directory may also hold files another writer has not finished (Cassandra itself,
 * CQLSSTableWriter, a copy in progress) and complete sstables whose TOC.txt was lost: those are not
 * ours to judge, and are reported ({@link Result#incomplete}) and left alone.
 *
 * <p>What our write protocol proves ours and unfinished, and so what may go:
 * <ul>
 *   <li>staging directories {@code .flushline-oa-<gen>} (our temporary names; see {@link Descriptor})
 *       whose writer is dead;</li>
 *   <li>the lock file {@code .flushline-oa-<gen>.lock} of a dead writer, and the final-named components
 *       ({@code oa-<gen>-big-<Component>}) of that generation when it has no TOC.txt. A writer holds
 *       this lock from before its first rename until after TOC.txt, renamed last, is in place, so a
 *       TOC-less generation beside a dead writer's lock is exactly a publish interrupted by a crash;</li>
 *   <li>transactions of ours ({@link TransactionLog#recover}): logs with our lock file beside them,
 *       finished or rolled back as their log says;</li>
 *   <li>the {@link CompactionLock} file of a compaction that died.</li>
 * </ul>
 * A final-named generation without TOC.txt and without our lock is never deleted, nor is a
 * transaction log without our lock file, nor anything whose name we do not create.
 *
 * <p>Live writers are safe: every writer holds an OS lock on its generation's
 * {@code .flushline-oa-<gen>.lock} until it has published or aborted ({@link Descriptor}). A
 * generation whose lock is held (by this or another process) is skipped entirely; a lock that can be
 * taken belonged to a process that died.
 */
public final class Leftovers {
    private static final Pattern STAGING = Pattern.compile("^" + Pattern.quote(Descriptor.STAGING_PREFIX) + "(\\d+)$");
    private static final Pattern LOCK = Pattern.compile("^" + Pattern.quote(Descriptor.STAGING_PREFIX) + "(\\d+)"
            + Pattern.quote(Descriptor.LOCK_SUFFIX) + "$");
    private static final Pattern COMPONENT_FILE =
            Pattern.compile("^(?:" + SSTableVersion.choices() + ")-(\\d+)-(?:" + SSTableFormat.choices() + ")-(.+)$");
    private static final Set<String> SUFFIXES = new HashSet<>();

    static {
        for (Component c : Component.values()) SUFFIXES.add(c.fileSuffix());
    }

    private Leftovers() {}

    /**
     * What {@link #clean} did and found.
     *
     * @param removed    every path deleted (staging directories and files, dead locks, the files and
     *                   logs of interrupted transactions of ours), sorted
     * @param incomplete what was found unfinished but is not provably ours, and was left alone: the
     *                   Data.db (else the first component) of each final-named generation without
     *                   TOC.txt, and transaction logs without our lock file; sorted
     */
    public record Result(List<Path> removed, List<Path> incomplete) {
        public Result {
            removed = List.copyOf(removed);
            incomplete = List.copyOf(incomplete);
        }
    }

    /**
     * Deletes the leftovers of our crashed writers in {@code tableDir} and reports what else is
     * unfinished. A missing directory has none. Throws {@link TransactionLogCorruptException} for a
     * transaction log of ours it cannot trust.
     */
    public static Result clean(Path tableDir) throws IOException {
        if (!Files.isDirectory(tableDir)) return new Result(List.of(), List.of());
        // Transactions first: a dead one is finished or rolled back by its log (never by the TOC
        // rule below), and the generations a live or foreign one names are not leftovers.
        TransactionLog.Recovery recovery = TransactionLog.recoverAll(tableDir);
        List<Path> recovered = new ArrayList<>();
        for (RecoveredTransaction r : recovery.recovered()) recovered.addAll(r.removedFiles());
        List<Path> stagingDirs = new ArrayList<>();
        List<Path> lockFiles = new ArrayList<>();
        // generation -> its component files; generations that have TOC.txt are complete.
        Map<String, List<Path>> byGeneration = new TreeMap<>();
        Set<String> complete = new HashSet<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(tableDir)) {
            for (Path p : ds) {
                String name = p.getFileName().toString();
                if (STAGING.matcher(name).matches() && Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                    stagingDirs.add(p);
                    continue;
                }
                if (LOCK.matcher(name).matches() && Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                    lockFiles.add(p);
                    continue;
                }
                Matcher m = COMPONENT_FILE.matcher(name);
                if (!m.matches() || !SUFFIXES.contains(m.group(2))) continue;
                // Keep the digits as written: "oa-01-..." and "oa-1-..." are different sstables to a reader.
                byGeneration.computeIfAbsent(m.group(1), g -> new ArrayList<>()).add(p);
                if (m.group(2).equals(Component.TOC.fileSuffix())) complete.add(m.group(1));
            }
        }
        // Generations reserved by a live writer: their lock cannot be taken. Dead writers' locks are
        // held by us until their leftovers are gone, then deleted.
        Set<String> live = new HashSet<>();
        for (String g : recovery.liveGenerations()) live.add(stripZeros(g));
        Set<String> deadWriters = new HashSet<>();
        List<java.nio.channels.FileChannel> deadLocks = new ArrayList<>();
        List<Path> deadLockPaths = new ArrayList<>();
        List<Path> removed = new ArrayList<>();
        List<Path> incomplete = new ArrayList<>(recovery.foreignLogs());
        try {
            for (Path lockFile : lockFiles) {
                Matcher m = LOCK.matcher(lockFile.getFileName().toString());
                m.matches();
                String gen = stripZeros(m.group(1));
                if (Descriptor.HELD_BY_THIS_JVM.contains(lockFile.toAbsolutePath())) {
                    // Ours and live. Never open (and close) a channel on it: closing any descriptor
                    // of a file drops this process's POSIX lock on it.
                    live.add(gen);
                    continue;
                }
                java.nio.channels.FileChannel ch;
                try {
                    ch = java.nio.channels.FileChannel.open(lockFile, java.nio.file.StandardOpenOption.WRITE);
                } catch (NoSuchFileException e) {
                    continue; // released meanwhile
                }
                java.nio.channels.FileLock held = null;
                try {
                    held = ch.tryLock();
                } catch (java.nio.channels.OverlappingFileLockException e) {
                    held = null; // a writer in this JVM holds it
                }
                if (held == null) {
                    live.add(gen);
                    ch.close();
                } else {
                    deadWriters.add(gen);
                    deadLocks.add(ch);
                    deadLockPaths.add(lockFile);
                }
            }
            cleanGenerations(byGeneration, complete, live, deadWriters, stagingDirs, removed, incomplete);
            for (Path p : deadLockPaths) {
                if (deleteIfExists(p)) removed.add(p);
            }
        } finally {
            for (java.nio.channels.FileChannel ch : deadLocks) ch.close();
        }
        // The compaction lock a killed compaction left: taking and releasing it deletes it (a live holder keeps it).
        Path compactionLock = tableDir.resolve(CompactionLock.FILE_NAME);
        if (Files.isRegularFile(compactionLock, LinkOption.NOFOLLOW_LINKS)) {
            try {
                CompactionLock.tryAcquire(tableDir).close();
                if (!Files.exists(compactionLock, LinkOption.NOFOLLOW_LINKS)) removed.add(compactionLock);
            } catch (CompactionLock.HeldException held) {
                // a compaction is running: its lock is its own
            }
        }
        removed.addAll(recovered);
        Collections.sort(removed);
        Collections.sort(incomplete);
        return new Result(removed, incomplete);
    }

    /** The operator's line for one path of {@link Result#incomplete}: what it is and that it was left alone. */
    public static String describe(Path incomplete) {
        String name = incomplete.getFileName().toString();
        if (TransactionLogLayout.isLogFileName(name)) {
            return "left alone: " + incomplete + ": another writer's unfinished transaction log (no lock file of ours beside"
                    + " it); the sstables it names are read as it says, and nothing of it is deleted";
        }
        return "left alone: " + incomplete + ": an sstable without TOC.txt that no writer of ours left unfinished (another"
                + " writer's still being written, or a complete one whose TOC.txt was lost); it is not read, and never deleted";
    }

    private static String stripZeros(String digits) {
        return String.valueOf(Long.parseLong(digits));
    }

    private static void cleanGenerations(Map<String, List<Path>> byGeneration, Set<String> complete, Set<String> live,
                                         Set<String> deadWriters, List<Path> stagingDirs, List<Path> removed,
                                         List<Path> incomplete) throws IOException {
        for (Map.Entry<String, List<Path>> e : byGeneration.entrySet()) {
            String gen = stripZeros(e.getKey());
            if (complete.contains(e.getKey()) || live.contains(gen)) continue;
            List<Path> files = e.getValue();
            // Data.db first: a generation without Data.db is not an sstable to any reader, so a crash
            // during the loop below cannot leave something that looks more complete than before.
            files.sort((a, b) -> Boolean.compare(!a.toString().endsWith(Component.DATA.fileSuffix()),
                    !b.toString().endsWith(Component.DATA.fileSuffix())));
            if (!deadWriters.contains(gen) || !allRegularFiles(files)) {
                // Not provably a publish of ours that a crash cut short: someone else's, or complete with its
                // TOC.txt lost. Reported, never deleted.
                incomplete.add(files.get(0));
                continue;
            }
            for (Path f : files) {
                if (deleteIfExists(f)) removed.add(f);
            }
        }
        for (Path dir : stagingDirs) {
            Matcher m = STAGING.matcher(dir.getFileName().toString());
            m.matches();
            if (live.contains(stripZeros(m.group(1)))) continue; // a live writer's work in progress
            // The staging directory is ours as a whole: it only ever holds one writer's component files.
            removed.addAll(deleteTree(dir));
        }
    }

    private static boolean allRegularFiles(List<Path> files) {
        for (Path f : files) {
            if (!Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) return false;
        }
        return true;
    }

    private static boolean deleteIfExists(Path p) throws IOException {
        try {
            return Files.deleteIfExists(p);
        } catch (NoSuchFileException e) {
            return false;
        }
    }

    /** Deletes a directory tree bottom-up without following links; returns the top directory if it went. */
    private static List<Path> deleteTree(Path dir) throws IOException {
        if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
                for (Path p : ds) deleteTree(p);
            }
        }
        return deleteIfExists(dir) ? List.of(dir) : List.of();
    }
}

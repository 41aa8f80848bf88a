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
 * Removes what a crashed flush leaves in a table directory: staging directories
 * ({@code .flushline-oa-<gen>}, see {@link Descriptor}) and published generations without TOC.txt
 * (a crash between the renames of {@link SSTableWriter#finish}; TOC.txt is renamed last, so a
 * generation with TOC.txt is complete and is never touched).
 *
 * <p>Only names we create are considered: {@code oa-<digits>-big-<one of Component's suffixes>}
 * files and {@code .flushline-oa-<digits>} directories. Anything else (other versions, other
 * suffixes, foreign files) is left alone.
 *
 * <p>Live writers are safe: every writer holds an OS lock on its generation's
 * {@code .flushline-oa-<gen>.lock} until it has published or aborted ({@link Descriptor}). A
 * generation whose lock is held (by this or another process) is skipped entirely; a lock that can be
 * taken belonged to a process that died, so its generation's leftovers and the lock file go.
 *
 * <p>Transaction logs come first ({@link TransactionLog#recover}): a dead transaction is finished or
 * rolled back by its log, and every generation a live transaction's log names is skipped.
 */
public final class Leftovers {
    private static final Pattern STAGING = Pattern.compile("^" + Pattern.quote(Descriptor.STAGING_PREFIX) + "(\\d+)$");
    private static final Pattern LOCK = Pattern.compile("^" + Pattern.quote(Descriptor.STAGING_PREFIX) + "(\\d+)"
            + Pattern.quote(Descriptor.LOCK_SUFFIX) + "$");
    private static final Pattern COMPONENT_FILE =
            Pattern.compile("^(?:" + SSTableVersion.choices() + ")-(\\d+)-" + Descriptor.FORMAT + "-(.+)$");
    private static final Set<String> SUFFIXES = new HashSet<>();

    static {
        for (Component c : Component.values()) SUFFIXES.add(c.fileSuffix());
    }

    private Leftovers() {}

    /**
     * Deletes the leftovers of {@code tableDir} and returns the paths removed (staging directories
     * and files, the files and logs of interrupted transactions included), sorted, so the caller
     * can log them. A missing directory has no leftovers. Throws
     * {@link TransactionLogCorruptException} for a transaction log it cannot trust.
     */
    public static List<Path> clean(Path tableDir) throws IOException {
        if (!Files.isDirectory(tableDir)) return List.of();
        // Transactions first: a dead one is finished or rolled back by its log (never by the TOC
        // rule below), and the generations a live one names are not leftovers.
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
                if (!m.matches() || !SUFFIXES.contains(m.group(2)) || !Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                    continue;
                }
                // Keep the digits as written: "oa-01-..." and "oa-1-..." are different sstables to a reader.
                byGeneration.computeIfAbsent(m.group(1), g -> new ArrayList<>()).add(p);
                if (m.group(2).equals(Component.TOC.fileSuffix())) complete.add(m.group(1));
            }
        }
        // Generations reserved by a live writer: their lock cannot be taken. Dead writers' locks are
        // held by us until their leftovers are gone, then deleted.
        Set<String> live = new HashSet<>();
        for (String g : recovery.liveGenerations()) live.add(stripZeros(g));
        List<java.nio.channels.FileChannel> deadLocks = new ArrayList<>();
        List<Path> deadLockPaths = new ArrayList<>();
        List<Path> removed = new ArrayList<>();
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
                    deadLocks.add(ch);
                    deadLockPaths.add(lockFile);
                }
            }
            cleanGenerations(byGeneration, complete, live, stagingDirs, removed);
            for (Path p : deadLockPaths) {
                if (deleteIfExists(p)) removed.add(p);
            }
        } finally {
            for (java.nio.channels.FileChannel ch : deadLocks) ch.close();
        }
        removed.addAll(recovered);
        Collections.sort(removed);
        return removed;
    }

    private static String stripZeros(String digits) {
        return String.valueOf(Long.parseLong(digits));
    }

    private static void cleanGenerations(Map<String, List<Path>> byGeneration, Set<String> complete, Set<String> live,
                                         List<Path> stagingDirs, List<Path> removed) throws IOException {
        for (Map.Entry<String, List<Path>> e : byGeneration.entrySet()) {
            if (complete.contains(e.getKey()) || live.contains(stripZeros(e.getKey()))) continue;
            // Data.db goes first: a generation without Data.db is not an sstable to any reader, so a
            // crash during this loop cannot leave something that looks more complete than before.
            List<Path> files = e.getValue();
            files.sort((a, b) -> Boolean.compare(!a.toString().endsWith(Component.DATA.fileSuffix()),
                    !b.toString().endsWith(Component.DATA.fileSuffix())));
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

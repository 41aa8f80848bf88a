package dev.flushline.sstable;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Leftovers.clean on hand-made crash leftovers: removes exactly ours, and only the incomplete. */
class LeftoversTest {
    @TempDir
    Path dir;

    private void touch(String name) throws IOException {
        Files.write(dir.resolve(name), new byte[] {1});
    }

    private List<String> listing() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private static final String[] ALL = {"Data.db", "Index.db", "Statistics.db", "Summary.db", "Filter.db", "CRC.db", "Digest.crc32", "TOC.txt"};

    @Test
    void removesStagingDirsAndTocLessGenerationsOnly() throws IOException {
        for (String c : ALL) touch("oa-1-big-" + c);                       // complete: keep
        // A crashed publish of ours: TOC-less components beside the dead writer's lock file.
        for (String c : ALL) if (!c.equals("TOC.txt")) touch("oa-2-big-" + c); // crash between renames: remove
        touch(".flushline-oa-2.lock");
        touch("oa-3-big-Statistics.db");                                   // crash after the first rename: remove
        touch("oa-3-big-Index.db");
        touch(".flushline-oa-3.lock");
        touch("nb-8-big-Data.db");                                         // an nb writer's crash after a rename: remove
        touch(".flushline-oa-8.lock");
        // TOC-less without a lock of ours: another writer's work in progress, or complete with its TOC.txt lost.
        for (String c : ALL) if (!c.equals("TOC.txt")) touch("oa-10-big-" + c);
        touch("nb-11-big-Index.db");
        Path staging = Files.createDirectories(dir.resolve(".flushline-oa-4")); // crash while writing: remove
        Files.write(staging.resolve("oa-4-big-Data.db"), new byte[10]);
        Files.createDirectories(dir.resolve(".flushline-oa-5"));           // crash right after reserving: remove
        // Not ours: other versions, unknown suffixes, foreign files and directories.
        touch("na-6-big-Data.db");
        touch("oa-7-big-Data.db.bak");
        touch("oa-x-big-Data.db");
        touch("notes.txt");
        Files.createDirectories(dir.resolve(".flushline-other"));
        Files.createDirectories(dir.resolve("snapshots"));

        Leftovers.Result result = Leftovers.clean(dir);

        List<String> left = listing();
        for (String c : ALL) assertTrue(left.contains("oa-1-big-" + c), "complete sstable kept: " + c);
        List<String> notOurs = new java.util.ArrayList<>();
        for (String c : ALL) if (!c.equals("TOC.txt")) notOurs.add("oa-10-big-" + c);
        notOurs.add("nb-11-big-Index.db");
        for (String n : notOurs) assertTrue(left.contains(n), "not provably ours, kept: " + n);
        List<String> expectedLeft = new java.util.ArrayList<>(List.of(".flushline-other", "na-6-big-Data.db", "notes.txt",
                "oa-1-big-CRC.db", "oa-1-big-Data.db", "oa-1-big-Digest.crc32", "oa-1-big-Filter.db", "oa-1-big-Index.db",
                "oa-1-big-Statistics.db", "oa-1-big-Summary.db", "oa-1-big-TOC.txt",
                "oa-7-big-Data.db.bak", "oa-x-big-Data.db", "snapshots"));
        expectedLeft.addAll(notOurs);
        expectedLeft.sort(null);
        assertEquals(expectedLeft, left);
        List<String> names = result.removed().stream().map(p -> p.getFileName().toString()).sorted().toList();
        assertEquals(List.of(".flushline-oa-2.lock", ".flushline-oa-3.lock", ".flushline-oa-4", ".flushline-oa-5",
                ".flushline-oa-8.lock", "nb-8-big-Data.db",
                "oa-2-big-CRC.db", "oa-2-big-Data.db", "oa-2-big-Digest.crc32", "oa-2-big-Filter.db", "oa-2-big-Index.db",
                "oa-2-big-Statistics.db", "oa-2-big-Summary.db",
                "oa-3-big-Index.db", "oa-3-big-Statistics.db"), names, "the caller is told what went");
        assertEquals(List.of(dir.resolve("nb-11-big-Index.db"), dir.resolve("oa-10-big-Data.db")), result.incomplete(),
                "the caller is told what was left alone, by its Data.db where it has one");
        Leftovers.Result again = Leftovers.clean(dir);
        assertEquals(List.of(), again.removed(), "a second run removes nothing");
        assertEquals(result.incomplete(), again.incomplete(), "and reports the same unfinished files");
    }

    @Test
    void missingOrCleanDirectory() throws IOException {
        assertEquals(new Leftovers.Result(List.of(), List.of()), Leftovers.clean(dir.resolve("absent")));
        assertEquals(new Leftovers.Result(List.of(), List.of()), Leftovers.clean(dir));
    }

    @Test
    void nextGenerationAfterCleanupDoesNotReuseACompleteOne() throws IOException {
        for (String c : ALL) touch("oa-3-big-" + c);
        Files.createDirectories(dir.resolve(".flushline-oa-9"));
        Leftovers.clean(dir);
        Descriptor d = Descriptor.reserveNext(dir);
        assertEquals(4, d.generation(), "generations stay above every complete sstable");
    }

    @Test
    void aLiveWritersReservationSurvivesCleanupAndADeadOneDoesNot() throws IOException {
        Path tableDir = dir.resolve("ks").resolve("t-00000000000000000000000000000001");
        Descriptor live = Descriptor.reserveNext(tableDir);
        Files.write(live.stagingPath(Component.DATA), new byte[] {1, 2, 3});
        // A live writer mid-publish: one component already renamed into the table dir, no TOC yet.
        Files.write(live.path(Component.STATISTICS), new byte[] {4});
        // A writer that died: its lock file remains, but nobody holds the OS lock.
        int deadGen = live.generation() + 1;
        Path deadStaging = Files.createDirectory(tableDir.resolve(Descriptor.STAGING_PREFIX + deadGen));
        Files.write(deadStaging.resolve("oa-" + deadGen + "-big-Data.db"), new byte[] {9});
        Path deadLock = Files.createFile(tableDir.resolve(Descriptor.STAGING_PREFIX + deadGen + Descriptor.LOCK_SUFFIX));
        Path deadData = Files.write(tableDir.resolve("oa-" + deadGen + "-big-Index.db"), new byte[] {7});

        List<Path> removed = Leftovers.clean(tableDir).removed();

        assertTrue(Files.exists(live.stagingPath(Component.DATA)), "live staging dir untouched");
        assertTrue(Files.exists(live.path(Component.STATISTICS)), "live writer's half-published generation untouched");
        assertTrue(Files.exists(live.lockPath()));
        assertTrue(removed.contains(deadStaging) && removed.contains(deadLock) && removed.contains(deadData), "removed: " + removed);
        assertTrue(!Files.exists(deadStaging) && !Files.exists(deadLock) && !Files.exists(deadData));

        // The next reservation skips every generation in use or seen.
        Descriptor next = Descriptor.reserveNext(tableDir);
        assertTrue(next.generation() > live.generation());
        next.releaseReservation();
        Files.delete(next.stagingDir());

        // Once the live writer is gone (released without publishing), its leftovers are fair game.
        live.releaseReservation();
        Files.write(live.lockPath(), new byte[0]); // as if it had crashed after taking the lock
        List<Path> later = Leftovers.clean(tableDir).removed();
        assertTrue(!Files.exists(live.stagingDir()) && !Files.exists(live.path(Component.STATISTICS)), "removed: " + later);
    }
}

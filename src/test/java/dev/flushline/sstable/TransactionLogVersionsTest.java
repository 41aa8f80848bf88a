package dev.flushline.sstable;

import dev.flushline.testing.CrashState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The transaction log with sstables of every version, mixed in one transaction: inputs nb-1, oa-2
 * and da-3 replaced by outputs nb-4 and oa-5 (and da-6 once da is written). Every record names its
 * sstable's own prefix; a stop at every step (as a kill -9 would stop it) leaves one whole side in
 * the view and after recovery; the REMOVE checks (file count under a torn last line, newest time)
 * and the refusals of what is not ours hold for nb and da records as for oa ones; and a log naming
 * da outputs, written by hand while we do not write da, is recovered both ways.
 * Cassandra's reading of such logs is in {@link TransactionLogCompatibilityTest}.
 */
class TransactionLogVersionsTest {
    static final SSTableVersion[] INPUTS = {SSTableVersion.NB, SSTableVersion.OA, SSTableVersion.DA};

    @TempDir
    Path tmp;

    static final class Crash extends RuntimeException {
        Crash() {
            super("simulated crash", null, false, false);
        }
    }

    static Path tableDir(Path root) throws IOException {
        return Files.createDirectories(root.resolve("ks").resolve("t-0123456789abcdef0123456789abcdef"));
    }

    /** The file names of a compressed sstable with a bloom filter of {@code version} and generation {@code g}. */
    static List<String> namesOf(SSTableVersion version, int g) {
        List<String> names = new ArrayList<>();
        for (Component c : Component.tocOrder(version.format(), true, true)) names.add(version.fileNamePrefix(Integer.toString(g)) + c.fileSuffix());
        return names;
    }

    /** A published stand-in sstable: every component of its format, distinct bytes, TOC.txt written last. */
    static void publishFake(Path dir, SSTableVersion version, int g) throws IOException {
        List<String> names = namesOf(version, g);
        names.sort((a, b) -> Boolean.compare(a.endsWith("TOC.txt"), b.endsWith("TOC.txt")));
        for (String n : names) Files.write(dir.resolve(n), n.getBytes(StandardCharsets.UTF_8));
    }

    static void publishInputs(Path dir) throws IOException {
        for (int i = 0; i < INPUTS.length; i++) publishFake(dir, INPUTS[i], i + 1);
    }

    static List<String> names(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    static List<String> sstableFiles(Path dir) throws IOException {
        return names(dir).stream().filter(n -> Descriptor.generationOf(n) > 0).toList();
    }

    static List<String> notSSTables(Path dir) throws IOException {
        return names(dir).stream().filter(n -> Descriptor.generationOf(n) < 0).toList();
    }

    /** File names of these sstables ({version, generation} pairs), sorted. */
    static List<String> filesOf(List<SSTableVersion> versions, int firstGeneration) {
        List<String> all = new ArrayList<>();
        for (int i = 0; i < versions.size(); i++) all.addAll(namesOf(versions.get(i), firstGeneration + i));
        all.sort(null);
        return all;
    }

    /** The live sstables' Data.db names, in the view's order. */
    static List<String> view(Path dir) throws IOException {
        List<String> out = new ArrayList<>();
        for (Path p : TransactionLog.liveSSTables(dir)) out.add(p.getFileName().toString());
        return out;
    }

    static List<String> dataFiles(List<SSTableVersion> versions, int firstGeneration) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < versions.size(); i++) out.add(versions.get(i).fileNamePrefix(Integer.toString(firstGeneration + i)) + "Data.db");
        return out;
    }

    /** Outputs of every version. */
    static List<SSTableVersion> outputVersions() {
        return List.of(SSTableVersion.NB, SSTableVersion.OA, SSTableVersion.DA);
    }

    /**
     * Replaces the three inputs with outputs of {@code outputs}' versions, as a compaction does
     * (each output reserved, staged, its records made durable, renamed in publish order; then the
     * inputs obsoleted: nb-1 and da-3 by their Data.db, oa-2 by its generation), and crashes at
     * action {@code crashAt} (-1 = never). {@code steps} receives the name of every action.
     */
    static int run(Path dir, List<SSTableVersion> outputs, int crashAt, boolean abortInstead, List<String> steps) throws IOException {
        int[] counter = {0};
        Path[] crashed = {null};
        TableDirectory td = TableDirectory.open(dir);
        TransactionLog.StepListener l = what -> {
            steps.add(what);
            if (counter[0]++ == crashAt) {
                try {
                    crashed[0] = CrashState.take(dir);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                throw new Crash();
            }
        };
        TransactionLog txn = TransactionLog.beginCompaction(td, l);
        Descriptor[] current = {null};
        try {
            l.step("begun");
            for (SSTableVersion v : outputs) {
                Descriptor d = current[0] = txn.outputs().reserveNext(v);
                for (Component c : Component.tocOrder(v.format(), true, true)) Files.write(d.stagingPath(c), ("out" + c).getBytes());
                d.beforePublish();
                for (Component c : Component.values()) {
                    Path from = d.stagingPath(c);
                    if (!Files.exists(from)) continue;
                    Files.move(from, d.path(c), StandardCopyOption.ATOMIC_MOVE);
                    l.step("published " + d.fileName(c));
                }
                Files.delete(d.stagingDir());
                d.releaseReservation();
                current[0] = null;
            }
            txn.obsolete(dir.resolve("nb-1-big-Data.db"));
            txn.obsolete(2);
            txn.obsolete(dir.resolve("da-3-bti-Data.db"));
            if (abortInstead) txn.abort(); else txn.commit();
        } catch (Crash c) {
            if (current[0] != null) current[0].releaseReservation();
            txn.close();
            CrashState.restore(crashed[0], dir);
            return -1;
        }
        return counter[0];
    }

    static Path logOf(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".log")).findFirst().orElseThrow();
        }
    }

    @Test
    void everyStepOfAMixedTransactionRecoversToOneWholeSide() throws IOException {
        List<SSTableVersion> outputs = outputVersions();
        List<SSTableVersion> inputs = List.of(INPUTS);
        for (boolean abortInstead : new boolean[] {false, true}) {
            Path base = tmp.resolve(abortInstead ? "abort" : "commit");
            Path probe = tableDir(base.resolve("probe"));
            publishInputs(probe);
            List<String> steps = new ArrayList<>();
            int actions = run(probe, outputs, -1, abortInstead, steps);
            assertEquals(abortInstead ? filesOf(inputs, 1) : filesOf(outputs, 4), sstableFiles(probe), "a run without a crash");
            assertEquals(List.of(), notSSTables(probe), "nothing but sstables left");
            assertTrue(steps.contains("publish 4") && steps.contains("remove 3"), steps.toString());
            int committedAt = abortInstead ? Integer.MAX_VALUE : steps.indexOf("committed");
            for (int k = 0; k < actions; k++) {
                Path dir = tableDir(base.resolve("k" + k));
                publishInputs(dir);
                assertEquals(-1, run(dir, outputs, k, abortInstead, new ArrayList<>()), "crashed at " + k);
                boolean committed = k >= committedAt;
                String at = "crash at action " + k + " (" + steps.get(k) + ")";
                List<String> expected = committed ? dataFiles(outputs, 4) : dataFiles(inputs, 1);
                assertEquals(expected, view(dir), "view, " + at);

                List<RecoveredTransaction> r = TransactionLog.recover(dir);
                assertEquals(expected, view(dir), "the view does not change with recovery, " + at);
                boolean logWasLeft = k != actions - 1;
                assertEquals(logWasLeft ? 1 : 0, r.size(), at + ": " + r);
                if (logWasLeft) assertEquals(committed, r.get(0).committed(), at);
                Leftovers.clean(dir);
                assertEquals(committed ? filesOf(outputs, 4) : filesOf(inputs, 1), sstableFiles(dir), "files after recovery, " + at);
                assertEquals(List.of(), notSSTables(dir), "no log, lock or staging dir left, " + at);
            }
        }
    }

    @Test
    void eachRecordNamesItsSSTablesOwnVersion() throws IOException {
        Path dir = tableDir(tmp);
        publishInputs(dir);
        List<String> steps = new ArrayList<>();
        run(dir, List.of(SSTableVersion.NB, SSTableVersion.OA), -1, false, steps);
        Path crashDir = tableDir(tmp.resolve("committed"));
        publishInputs(crashDir);
        run(crashDir, List.of(SSTableVersion.NB, SSTableVersion.OA), steps.indexOf("committed"), false, new ArrayList<>());
        List<String> lines = Files.readAllLines(logOf(crashDir));
        String real = crashDir.toRealPath().toString();
        assertEquals(6, lines.size(), String.join("\n", lines));
        String[] expectedStarts = {"ADD:[" + real + "/nb-4-big-,0,8][", "ADD:[" + real + "/oa-5-big-,0,8][",
                "REMOVE:[" + real + "/nb-1-big-,", "REMOVE:[" + real + "/oa-2-big-,", "REMOVE:[" + real + "/da-3-bti-,", "COMMIT:[,0,0]["};
        for (int i = 0; i < lines.size(); i++) {
            assertTrue(lines.get(i).startsWith(expectedStarts[i]), lines.get(i));
            TransactionLogLayout.Record r = TransactionLogLayout.parse(i + 1, lines.get(i));
            assertTrue(r.checksumMatches(), lines.get(i));
            if (r.type() == TransactionLogLayout.Type.REMOVE) {
                assertEquals(8, r.numFiles(), lines.get(i));
                long newest = 0;
                for (String n : namesOf(INPUTS[i - 2], i - 1)) {
                    if (!n.endsWith("Statistics.db")) newest = Math.max(newest, Files.getLastModifiedTime(crashDir.resolve(n)).toMillis());
                }
                assertEquals(newest, r.updateTime(), lines.get(i));
            }
        }
    }

    @Test
    void obsoleteFindsTheVersionOfAGenerationAndRefusesWhatIsNotOneSSTable() throws IOException {
        Path dir = tableDir(tmp);
        publishInputs(dir);
        publishFake(dir, SSTableVersion.OA, 7);
        publishFake(dir, SSTableVersion.NB, 7); // one generation in two versions: a directory copied together
        Files.write(dir.resolve("da-8-big-Data.db"), new byte[] {1}); // a version and format that do not go together
        try (TransactionLog txn = TransactionLog.beginCompaction(TableDirectory.open(dir))) {
            IllegalArgumentException both = assertThrows(IllegalArgumentException.class, () -> txn.obsolete(7));
            assertTrue(both.getMessage().contains("oa-7-big-*") && both.getMessage().contains("nb-7-big-*"), both.getMessage());
            IllegalArgumentException none = assertThrows(IllegalArgumentException.class, () -> txn.obsolete(9));
            assertTrue(none.getMessage().contains("oa-9-big-*, nb-9-big-*, da-9-bti-*"), none.getMessage());
            IllegalArgumentException mismatch = assertThrows(IllegalArgumentException.class, () -> txn.obsolete(dir.resolve("da-8-big-Data.db")));
            assertTrue(mismatch.getMessage().contains("da-8-big-Data.db") && mismatch.getMessage().contains("bti"), mismatch.getMessage());
            txn.obsolete(dir.resolve("oa-7-big-Data.db")); // named by its Data.db, either one can be an input
            txn.obsolete(3);
            assertThrows(IllegalArgumentException.class, () -> txn.obsolete(dir.resolve("da-3-bti-Data.db")), "twice");
            txn.obsolete(1);
            List<String> lines = Files.readAllLines(txn.logFile());
            assertTrue(lines.get(0).contains("/oa-7-big-,") && lines.get(1).contains("/da-3-bti-,") && lines.get(2).contains("/nb-1-big-,"),
                    String.join("\n", lines));
        } // aborted: every input stays
        assertTrue(Files.exists(dir.resolve("da-3-bti-TOC.txt")) && Files.exists(dir.resolve("nb-7-big-TOC.txt")));
    }

    /** The state after COMMIT was appended and before anything was deleted; nb and oa outputs. */
    Path committedState(Path dir) throws IOException {
        publishInputs(dir);
        List<SSTableVersion> outputs = List.of(SSTableVersion.NB, SSTableVersion.OA);
        List<String> steps = new ArrayList<>();
        Path probe = tableDir(dir.getParent().getParent().resolve("probe-" + dir.getParent().getParent().getFileName()));
        publishInputs(probe);
        run(probe, outputs, -1, false, steps);
        run(dir, outputs, steps.indexOf("committed"), false, new ArrayList<>());
        return logOf(dir);
    }

    @Test
    void aTornLastLineIsRefusedWhileAnNbOrDaInputHasLostAFile() throws IOException {
        for (String input : new String[] {"nb-1-big-", "da-3-bti-"}) {
            Path dir = tableDir(tmp.resolve(input));
            Path log = committedState(dir);
            List<String> lines = Files.readAllLines(log);
            // The COMMIT torn (not written), yet an input's file is gone: not a state our protocol leaves.
            Files.writeString(log, String.join("\n", lines.subList(0, 5)) + "\n" + lines.get(5).substring(0, 7));
            Files.delete(dir.resolve(input + "Filter.db"));
            List<String> before = names(dir);
            int line = input.startsWith("nb") ? 3 : 5;
            TransactionLogCorruptException e = assertThrows(TransactionLogCorruptException.class, () -> TransactionLog.recover(dir), input);
            assertEquals(line, e.lineNumber(), e.getMessage());
            assertTrue(e.getMessage().contains(input + "* has 7 of its 8 files"), e.getMessage());
            assertEquals(before, names(dir), "nothing deleted");
        }
    }

    @Test
    void aRestoredNbOrDaInputIsNotDeletedByAStaleLog() throws IOException {
        for (String input : new String[] {"nb-1-big-", "da-3-bti-"}) {
            Path dir = tableDir(tmp.resolve(input));
            committedState(dir);
            Path toc = dir.resolve(input + "TOC.txt");
            Files.setLastModifiedTime(toc, FileTime.fromMillis(Files.getLastModifiedTime(toc).toMillis() + 5000));
            List<String> before = names(dir);
            TransactionLogCorruptException e = assertThrows(TransactionLogCorruptException.class, () -> TransactionLog.recover(dir), input);
            assertEquals(input.startsWith("nb") ? 3 : 5, e.lineNumber(), e.getMessage());
            assertTrue(e.getMessage().contains("changed since they were recorded"), e.getMessage());
            assertEquals(before, names(dir));
        }
    }

    @Test
    void aRecordNamingAnotherDirectoryIsRefusedAndAForeignLogIsLeftAlone() throws IOException {
        // A da REMOVE pointing outside the table directory, with a good checksum: refused, nothing deleted.
        Path dir = tableDir(tmp.resolve("outside"));
        Path log = committedState(dir);
        List<String> lines = new ArrayList<>(Files.readAllLines(log));
        String other = tmp.resolve("elsewhere").toString();
        TransactionLogLayout.Record r = TransactionLogLayout.parse(5, lines.get(4));
        lines.set(4, TransactionLogLayout.format(r.type(), other + "/da-3-bti-", r.updateTime(), r.numFiles()));
        Files.write(log, lines);
        List<String> before = names(dir);
        TransactionLogCorruptException e = assertThrows(TransactionLogCorruptException.class, () -> TransactionLog.recover(dir));
        assertEquals(5, e.lineNumber());
        assertTrue(e.getMessage().contains("names an sstable outside"), e.getMessage());
        assertEquals(before, names(dir));

        // The same committed log without our lock file beside it: another writer's, never finished or rolled back by us,
        // though its view (outputs nb-4 and oa-5) is what readers see.
        Path foreign = tableDir(tmp.resolve("foreign"));
        Path foreignLog = committedState(foreign);
        for (String n : names(foreign)) {
            if (n.startsWith(TransactionLog.LOCK_PREFIX)) Files.delete(foreign.resolve(n));
        }
        List<String> kept = sstableFiles(foreign);
        assertEquals(List.of("nb-4-big-Data.db", "oa-5-big-Data.db"), view(foreign));
        assertEquals(List.of(), TransactionLog.recover(foreign));
        Leftovers.Result cleaned = Leftovers.clean(foreign);
        assertEquals(List.of(foreignLog), cleaned.incomplete());
        assertEquals(kept, sstableFiles(foreign), "nothing of a foreign log's sstables deleted");
        assertTrue(Files.exists(foreignLog));
    }

    /**
     * A log naming a da output (ADD da-6-bti-) beside nb and da inputs, as a compaction into da
     * leaves it: written here by hand, since we do not write da yet. Uncommitted, recovery deletes
     * the da output; committed, the nb and da inputs.
     */
    @Test
    void aLogNamingADaOutputIsRecoveredBothWays() throws IOException {
        for (boolean committed : new boolean[] {false, true}) {
            Path dir = tableDir(tmp.resolve(committed ? "committed" : "uncommitted"));
            publishFake(dir, SSTableVersion.NB, 1);
            publishFake(dir, SSTableVersion.DA, 3);
            publishFake(dir, SSTableVersion.DA, 6);
            writeOurLog(dir, committed, "da-6-bti-", "nb-1-big-", "da-3-bti-");
            List<String> expected = committed ? List.of("da-6-bti-Data.db") : List.of("nb-1-big-Data.db", "da-3-bti-Data.db");
            assertEquals(expected, view(dir), "committed " + committed);
            List<RecoveredTransaction> r = TransactionLog.recover(dir);
            assertEquals(1, r.size());
            assertEquals(committed, r.get(0).committed());
            assertEquals(committed ? 2 : 1, r.get(0).sstables());
            List<String> left = new ArrayList<>(committed ? namesOf(SSTableVersion.DA, 6) : namesOf(SSTableVersion.NB, 1));
            if (!committed) left.addAll(namesOf(SSTableVersion.DA, 3));
            left.sort(null);
            assertEquals(left, sstableFiles(dir), "committed " + committed);
            assertEquals(List.of(), notSSTables(dir));
        }
    }

    /**
     * Writes a compaction log of ours (with its lock file) adding {@code added} and removing
     * {@code removed} (file name prefixes; their files' newest time and count as on disk).
     */
    static Path writeOurLog(Path dir, boolean committed, String added, String... removed) throws IOException {
        String uuid = TransactionLog.nextTimeUuid();
        Files.createFile(dir.resolve(TransactionLog.LOCK_PREFIX + uuid + Descriptor.LOCK_SUFFIX));
        String real = dir.toRealPath().toString();
        StringBuilder b = new StringBuilder();
        b.append(TransactionLogLayout.format(TransactionLogLayout.Type.ADD, real + "/" + added, 0, 8)).append('\n');
        for (String prefix : removed) {
            long newest = 0;
            int files = 0;
            for (String n : names(dir)) {
                if (!n.startsWith(prefix)) continue;
                files++;
                if (!n.endsWith("Statistics.db")) newest = Math.max(newest, Files.getLastModifiedTime(dir.resolve(n)).toMillis());
            }
            b.append(TransactionLogLayout.format(TransactionLogLayout.Type.REMOVE, real + "/" + prefix, newest, files)).append('\n');
        }
        if (committed) b.append(TransactionLogLayout.format(TransactionLogLayout.Type.COMMIT, "", 0, 0)).append('\n');
        Path log = dir.resolve(TransactionLogLayout.fileName(TransactionLogLayout.COMPACTION, uuid));
        Files.writeString(log, b.toString());
        return log;
    }

    @Test
    void aDaOutputIsRecordedInItsOwnVersion() throws IOException {
        Path dir = tableDir(tmp);
        publishInputs(dir);
        try (TransactionLog txn = TransactionLog.beginCompaction(TableDirectory.open(dir))) {
            Descriptor d = txn.outputs().reserveNext(SSTableVersion.DA);
            assertTrue(Files.readAllLines(txn.logFile()).get(0).startsWith("ADD:[" + dir.toRealPath() + "/da-" + d.generation() + "-bti-,0,8]["));
            SSTableWriter.deleteStaging(d);
        }
        assertFalse(names(dir).stream().anyMatch(n -> n.endsWith(".log")));
    }
}

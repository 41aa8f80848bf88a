package dev.flushline.sstable;

import dev.flushline.testing.CrashState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The transaction protocol stopped at every step, as a kill -9 would stop it: the consistent view
 * shows all the inputs or all the outputs, recovery leaves exactly that side on disk and says
 * which, and the log's torn or corrupt lines are read as the format says.
 */
class TransactionLogTest {
    static final String[] ALL = {"Data.db", "Index.db", "Statistics.db", "Summary.db", "Filter.db", "CRC.db", "Digest.crc32", "TOC.txt"};

    @TempDir
    Path tmp;

    /** Thrown by a step listener to stop the protocol where a crash would. */
    static final class Crash extends RuntimeException {
        Crash() {
            super("simulated crash", null, false, false);
        }
    }

    static Path tableDir(Path root) throws IOException {
        return Files.createDirectories(root.resolve("ks").resolve("t-0123456789abcdef0123456789abcdef"));
    }

    /** A published stand-in sstable: every component, distinct bytes, TOC.txt written last. */
    static void publishFake(Path dir, int generation) throws IOException {
        for (String c : ALL) Files.write(dir.resolve("oa-" + generation + "-big-" + c), (generation + c).getBytes(StandardCharsets.UTF_8));
    }

    static List<String> names(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    static List<String> sstableFiles(Path dir) throws IOException {
        return names(dir).stream().filter(n -> n.startsWith("oa-")).toList();
    }

    static List<String> filesOf(int... generations) {
        List<String> all = new ArrayList<>();
        for (int g : generations) for (String c : ALL) all.add("oa-" + g + "-big-" + c);
        all.sort(null);
        return all;
    }

    static List<Integer> liveGenerations(Path dir) throws IOException {
        List<Integer> gens = new ArrayList<>();
        for (Path p : TransactionLog.liveSSTables(dir)) gens.add(Descriptor.generationOf(p.getFileName().toString()));
        return gens;
    }

    /**
     * The first action of {@link #run} at or after which the compaction is committed: begun, two
     * outputs' ADD, publish (records durable) and 8 renames each, two REMOVEs, the table
     * directory's fsync; COMMIT is next.
     */
    static final int COMMITTED_AT = 1 + 2 * 10 + 2 + 1;

    /**
     * Runs a compaction of inputs 1 and 2 into outputs 3 and 4 and crashes at action {@code crashAt}
     * (-1 = never). Actions: 0 right after begin, then each output's reservation, its records
     * made durable before its first rename, each of its component renames, each REMOVE, the directory fsync before COMMIT, COMMIT and each file
     * deletion, and the log's deletion. Outputs are published as the writer does it: the log's
     * records made durable first, then the renames.
     * {@code abortInstead}: roll back after the REMOVEs instead of committing.
     * Returns the number of actions it went through.
     */
    static int run(Path dir, int crashAt, boolean abortInstead) throws IOException {
        int[] counter = {0};
        Path[] crashed = {null};
        TableDirectory td = TableDirectory.open(dir);
        TransactionLog.StepListener l = what -> {
            if (counter[0]++ == crashAt) {
                try {
                    crashed[0] = CrashState.take(dir); // what a kill here leaves on disk
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
            for (int out = 0; out < 2; out++) {
                Descriptor d = current[0] = txn.reserveOutput();
                for (String c : ALL) Files.write(d.stagingDir().resolve("oa-" + d.generation() + "-big-" + c), ("out" + c).getBytes());
                d.beforePublish();
                for (Component c : Component.values()) { // the writer's publish order, TOC.txt last
                    Path from = d.stagingPath(c);
                    if (!Files.exists(from)) continue;
                    Files.move(from, d.path(c), StandardCopyOption.ATOMIC_MOVE);
                    l.step("published " + c);
                }
                Files.delete(d.stagingDir());
                d.releaseReservation();
                current[0] = null;
            }
            txn.obsolete(dir.resolve("oa-1-big-Data.db"));
            txn.obsolete(2);
            if (abortInstead) txn.abort(); else txn.commit();
        } catch (Crash c) {
            // Let go of everything this process held, then put back the files as the kill left them.
            if (current[0] != null) current[0].releaseReservation();
            txn.close();
            CrashState.restore(crashed[0], dir);
            return -1;
        }
        return counter[0];
    }

    @Test
    void everyCrashPointRecoversToAllInputsOrAllOutputs() throws IOException {
        for (boolean abortInstead : new boolean[] {false, true}) {
            Path base = tmp.resolve(abortInstead ? "abort" : "commit");
            Path probe = tableDir(base.resolve("probe"));
            publishFake(probe, 1);
            publishFake(probe, 2);
            int actions = run(probe, -1, abortInstead);
            assertEquals(abortInstead ? filesOf(1, 2) : filesOf(3, 4), sstableFiles(probe), "a run without a crash");
            assertEquals(List.of(), names(probe).stream().filter(n -> !n.startsWith("oa-")).toList(), "nothing but sstables left");
            int committedAt = abortInstead ? Integer.MAX_VALUE : COMMITTED_AT;
            for (int k = 0; k < actions; k++) {
                Path dir = tableDir(base.resolve("k" + k));
                publishFake(dir, 1);
                publishFake(dir, 2);
                assertEquals(-1, run(dir, k, abortInstead), "crashed at " + k);
                boolean committed = k >= committedAt;
                List<Integer> expected = committed ? List.of(3, 4) : List.of(1, 2);
                assertEquals(expected, liveGenerations(dir), "view after a crash at action " + k);

                List<RecoveredTransaction> r = TransactionLog.recover(dir);
                assertEquals(expected, liveGenerations(dir), "the view does not change with recovery, crash at " + k);
                boolean logWasLeft = !(k == actions - 1); // the last action is the log's deletion
                assertEquals(logWasLeft ? 1 : 0, r.size(), "recovered at " + k + ": " + r);
                if (logWasLeft) {
                    assertEquals(committed, r.get(0).committed(), "at " + k);
                    assertTrue(r.get(0).message().startsWith(committed ? "completed an interrupted compaction: removed "
                            : "rolled back an interrupted compaction: removed "), r.get(0).message());
                }
                Leftovers.clean(dir);
                assertEquals(committed ? filesOf(3, 4) : filesOf(1, 2), sstableFiles(dir), "files after recovery, crash at " + k);
                assertEquals(List.of(), names(dir).stream().filter(n -> !n.startsWith("oa-")).toList(),
                        "no log, lock or staging dir left, crash at " + k);
                assertEquals(List.of(), TransactionLog.recover(dir), "a second recovery finds nothing");
            }
        }
    }

    @Test
    void recoverySaysHowManySstablesItRemoved() throws IOException {
        Path dir = tableDir(tmp);
        publishFake(dir, 1);
        publishFake(dir, 2);
        run(dir, COMMITTED_AT + 3, false); // committed, Data.db and two more files of input 1 deleted
        List<RecoveredTransaction> r = TransactionLog.recover(dir);
        assertEquals(1, r.size());
        assertTrue(r.get(0).committed());
        assertEquals(2, r.get(0).sstables(), "input 1's rest and all of input 2");
        assertEquals(5 + 8 + 1, r.get(0).removedFiles().size(), "files and the log");
    }

    /** The state after COMMIT was appended and before anything was deleted; returns the log. */
    static Path committedState(Path dir) throws IOException {
        publishFake(dir, 1);
        publishFake(dir, 2);
        run(dir, COMMITTED_AT, false);
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".log")).findFirst().orElseThrow();
        }
    }

    @Test
    void theLogIsCassandrasFormat() throws IOException {
        Path dir = tableDir(tmp);
        Path log = committedState(dir);
        assertTrue(log.getFileName().toString().matches("oa_txn_compaction_[0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\\.log"),
                log.getFileName().toString());
        List<String> lines = Files.readAllLines(log);
        String real = dir.toRealPath().toString();
        assertEquals(5, lines.size(), String.join("\n", lines));
        assertTrue(lines.get(0).startsWith("ADD:[" + real + "/oa-3-big-,0,8]["), lines.get(0));
        assertTrue(lines.get(1).startsWith("ADD:[" + real + "/oa-4-big-,0,8]["), lines.get(1));
        long newest = Files.getLastModifiedTime(dir.resolve("oa-1-big-TOC.txt")).toMillis();
        assertTrue(lines.get(2).startsWith("REMOVE:[" + real + "/oa-1-big-,"), lines.get(2));
        assertTrue(lines.get(2).contains(",8]["), lines.get(2));
        assertTrue(Long.parseLong(lines.get(2).split(",")[1]) >= newest, lines.get(2));
        // COMMIT carries no path, no time and no count; its checksum covers "COMMIT" and 12 zero bytes.
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update("COMMIT".getBytes(StandardCharsets.US_ASCII));
        crc.update(new byte[12]);
        assertEquals("COMMIT:[,0,0][" + crc.getValue() + "]", lines.get(4));
        assertTrue(new String(Files.readAllBytes(log), StandardCharsets.UTF_8).endsWith("]\n"), "every record ends in a newline");
    }

    @Test
    void aTornLastRecordIsNotWritten() throws IOException {
        // Torn COMMIT (committed only once the whole line but perhaps its '\n' is there), torn REMOVE, torn ADD
        // (cut while the second output was being reserved: no file of it exists, its ADD comes first).
        for (int lineIndex : new int[] {4, 3, 1}) {
            // Each cut in a fresh state; the line's length varies a little with its checksum's digits.
            for (int offset = 0; ; offset++) {
                Path dir = tableDir(tmp.resolve(String.format("t%d-%04d", lineIndex, offset)));
                Path log = stateForTornLine(dir, lineIndex);
                List<String> own = Files.readAllLines(log);
                int lineLength = own.get(lineIndex).length();
                if (offset > lineLength + 1) break;
                StringBuilder kept = new StringBuilder();
                for (int i = 0; i < lineIndex; i++) kept.append(own.get(i)).append('\n');
                kept.append((own.get(lineIndex) + "\n"), 0, offset);
                Files.writeString(log, kept.toString());
                boolean committed = lineIndex == 4 && offset >= lineLength;
                List<Integer> expected = committed ? List.of(3, 4) : List.of(1, 2);
                String what = "line " + (lineIndex + 1) + " cut to " + offset + " of " + (lineLength + 1) + " bytes";
                assertEquals(expected, liveGenerations(dir), what);
                List<RecoveredTransaction> r = TransactionLog.recover(dir);
                assertEquals(committed, r.get(0).committed(), what);
                assertEquals(committed ? filesOf(3, 4) : filesOf(1, 2), sstableFiles(dir), what);
                Leftovers.clean(dir);
                assertEquals(List.of(), names(dir).stream().filter(n -> !n.startsWith("oa-")).toList(), what);
            }
        }
    }

    private static Path stateForTornLine(Path dir, int lineIndex) throws IOException {
        if (lineIndex != 1) return committedState(dir);
        publishFake(dir, 1);
        publishFake(dir, 2);
        run(dir, 1 + 10, false); // right after the second ADD
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".log")).findFirst().orElseThrow();
        }
    }

    @Test
    void aCorruptChecksumInTheMiddleIsANamedErrorAndDeletesNothing() throws IOException {
        Path dir = tableDir(tmp);
        Path log = committedState(dir);
        List<String> lines = new ArrayList<>(Files.readAllLines(log));
        String second = lines.get(1);
        int digit = second.lastIndexOf('[') + 1;
        char c = second.charAt(digit);
        lines.set(1, second.substring(0, digit) + (char) (c == '9' ? '1' : c + 1) + second.substring(digit + 1));
        Files.write(log, lines);
        List<String> before = names(dir);

        TransactionLogCorruptException e = assertThrows(TransactionLogCorruptException.class, () -> TransactionLog.recover(dir));
        assertEquals(log, e.logFile());
        assertEquals(2, e.lineNumber());
        assertTrue(e.getMessage().contains(log + " line 2: checksum "), e.getMessage());
        assertEquals(before, names(dir), "nothing deleted");
        TransactionLogCorruptException v = assertThrows(TransactionLogCorruptException.class, () -> TransactionLog.liveSSTables(dir));
        assertEquals(2, v.lineNumber());
        assertThrows(TransactionLogCorruptException.class, () -> TableDirectory.open(dir), "opening the directory refuses too");
        assertEquals(before, names(dir));
    }

    @Test
    void aRestoredInputIsNotDeletedByAStaleLog() throws IOException {
        // Cassandra's guard: a REMOVE whose files are newer than recorded (restored from a backup).
        Path dir = tableDir(tmp);
        Path log = committedState(dir);
        Path toc = dir.resolve("oa-1-big-TOC.txt");
        Files.setLastModifiedTime(toc, java.nio.file.attribute.FileTime.fromMillis(Files.getLastModifiedTime(toc).toMillis() + 5000));
        List<String> before = names(dir);
        TransactionLogCorruptException e = assertThrows(TransactionLogCorruptException.class, () -> TransactionLog.recover(dir));
        assertEquals(3, e.lineNumber(), e.getMessage());
        assertTrue(e.getMessage().contains("changed since they were recorded"), e.getMessage());
        assertEquals(log, e.logFile());
        assertEquals(before, names(dir));
    }

    @Test
    void liveTransactionsAreLeftAloneByCleanupAndRecovery() throws IOException {
        Path dir = tableDir(tmp);
        publishFake(dir, 1);
        publishFake(dir, 2);
        TableDirectory td = TableDirectory.open(dir);
        List<List<Path>> cleanedMidDeletion = new ArrayList<>();
        // The steps of the commit, seen as they happen: set once the transaction is under way.
        java.util.concurrent.atomic.AtomicReference<TransactionLog.StepListener> steps =
                new java.util.concurrent.atomic.AtomicReference<>(TransactionLog.StepListener.NONE);
        try (TransactionLog txn = TransactionLog.beginCompaction(td, what -> steps.get().step(what))) {
            Descriptor out = txn.reserveOutput();
            Files.write(out.stagingPath(Component.DATA), new byte[] {1});
            assertEquals(new Leftovers.Result(List.of(), List.of()), Leftovers.clean(dir), "a live output's staging dir stays");
            // an uncompressed oa sstable's components (Component also lists other formats')
            for (Component c : Component.tocOrder(SSTableFormat.BIG, false, true)) Files.write(out.path(c), new byte[] {2});
            Files.delete(out.stagingPath(Component.DATA));
            Files.delete(out.stagingDir());
            out.releaseReservation(); // as SSTableWriter.finish does: the transaction keeps the generation
            assertTrue(Files.exists(out.lockPath()), "the generation stays reserved");
            txn.obsolete(1);
            txn.obsolete(2);
            assertEquals(List.of(), TransactionLog.recover(dir), "a live log is not recovered");
            assertEquals(List.of(1, 2), liveGenerations(dir));
            steps.set(what -> {
                if (what.equals("deleted oa-1-big-Data.db")) {
                    try {
                        cleanedMidDeletion.add(Leftovers.clean(dir).removed()); // oa-1 has TOC.txt but no Data.db now
                        assertEquals(List.of(3), liveGenerations(dir), "mid-deletion the view shows the outputs");
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }
            });
            txn.commit();
            assertFalse(Files.exists(out.lockPath()), "released with the transaction");
        }
        assertEquals(List.of(List.of()), cleanedMidDeletion, "cleanup left a live transaction's inputs to it");
        assertEquals(filesOf(3), sstableFiles(dir));
        assertEquals(List.of(), names(dir).stream().filter(n -> !n.startsWith("oa-")).toList());
    }

    @Test
    void anAbortedOutputsGenerationIsNotReusedWhileTheLogNamesIt() throws IOException {
        Path dir = tableDir(tmp);
        publishFake(dir, 1);
        TableDirectory td = TableDirectory.open(dir);
        TransactionLog txn = TransactionLog.beginCompaction(td);
        Descriptor out = txn.reserveOutput();
        SSTableWriter.deleteStaging(out); // its writer aborted
        Path crashed = CrashState.take(dir); // and the process dies here
        txn.close();
        CrashState.restore(crashed, dir);
        // Another process's writer whose counter is behind: it must skip the generation the dead log names.
        assertEquals(null, Descriptor.tryReserve(dir, out.generation()), "the generation is still taken");
        TableDirectory reopened = TableDirectory.open(dir);
        assertEquals(1, reopened.recoveredTransactions().size());
        assertFalse(reopened.recoveredTransactions().get(0).committed());
        assertFalse(Files.exists(out.lockPath()), "freed once the log is gone");
    }

    @Test
    void commitRefusesAHalfPublishedOutputAndBadInputsAreNamed() throws IOException {
        Path dir = tableDir(tmp);
        publishFake(dir, 1);
        TableDirectory td = TableDirectory.open(dir);
        try (TransactionLog txn = TransactionLog.beginCompaction(td)) {
            Descriptor out = txn.reserveOutput();
            Files.write(out.path(Component.STATISTICS), new byte[] {1}); // a publish that stopped before Data.db and TOC.txt
            IllegalArgumentException notPublished = assertThrows(IllegalArgumentException.class, () -> txn.obsolete(7));
            assertTrue(notPublished.getMessage().contains("oa-7-big-"), notPublished.getMessage());
            assertThrows(IllegalArgumentException.class, () -> txn.obsolete(out.generation()), "an output is not an input");
            assertThrows(IllegalArgumentException.class, () -> txn.obsolete(tmp.resolve("oa-1-big-Data.db")), "another directory");
            txn.obsolete(1);
            assertThrows(IllegalArgumentException.class, () -> txn.obsolete(1), "twice");
            IllegalStateException half = assertThrows(IllegalStateException.class, txn::commit);
            assertTrue(half.getMessage().contains(out.toString()), half.getMessage());
        } // close() aborts: the half output goes, the input stays
        assertEquals(filesOf(1), sstableFiles(dir));
        assertEquals(List.of(), names(dir).stream().filter(n -> !n.startsWith("oa-")).toList());
    }

    @Test
    void anOutputWhoseWriterWroteNothingDoesNotStopACommit() throws IOException {
        Path dir = tableDir(tmp);
        publishFake(dir, 1);
        publishFake(dir, 2);
        TableDirectory td = TableDirectory.open(dir);
        try (TransactionLog txn = TransactionLog.beginCompaction(td)) {
            Descriptor empty = txn.reserveOutput();
            SSTableWriter.deleteStaging(empty); // e.g. every partition of its range was purged
            Descriptor out = txn.reserveOutput();
            for (Component c : Component.tocOrder(SSTableFormat.BIG, false, true)) Files.write(out.path(c), new byte[] {3});
            SSTableWriter.deleteStaging(out);
            txn.obsolete(1);
            txn.obsolete(2);
            txn.commit();
        }
        assertEquals(filesOf(4), sstableFiles(dir));
        assertEquals(List.of(), names(dir).stream().filter(n -> !n.startsWith("oa-")).toList(), "every reservation released");
    }
}

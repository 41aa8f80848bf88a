package dev.flushline.commitlog;

import dev.flushline.data.CommitLogPosition;
import dev.flushline.data.Mutation;
import dev.flushline.data.PartitionUpdate;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.testing.RandomUpdates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Damaged commit log segments: real segments with known mutations, then bytes flipped, files
 * truncated, length fields overwritten (0x7fffffff, negative, with and without a matching length
 * CRC), pages zeroed and spans of garbage written. Replay must deliver exactly the entries the
 * damage left intact, in order and identical to what was written: without skipCorrupt only up to
 * the first damaged entry of a segment, and only when nothing intact follows it there (a torn
 * tail); otherwise it throws {@link CommitLogCorruptionException} naming the file and the damaged
 * entry's offset. With skipCorrupt it delivers every intact entry and names what it skipped. No
 * other exception, no huge allocation. Bounded by count; a failure names its seed.
 */
class SegmentFuzzTest {
    static final String CQL = MutationLayoutTest.SCHEMAS[0];
    static final long NOW = 1_750_000_000L;
    static final int SEGMENT_BYTES = 16 * 1024;

    @TempDir
    Path tmp;

    final TableSchema schema = CqlParser.parse(CQL);

    /** One written entry: where it stands and what it holds. */
    record Written(long segmentId, int start, int end, String update) {}

    CommitLog.Options options(Path dir, boolean skipCorrupt) {
        return new CommitLog.Options(dir, SEGMENT_BYTES, CommitLog.SyncMode.BATCH, 50, skipCorrupt);
    }

    List<Written> writeLog(Path dir, long seed, int count) throws IOException {
        List<Written> out = new ArrayList<>();
        CommitLog log = CommitLog.open(options(dir, false));
        long previousSegment = -1;
        int previousEnd = 0;
        for (PartitionUpdate u : new RandomUpdates(schema, seed, NOW, 30, 8).next(count)) {
            Mutation m = new Mutation(schema, u);
            CommitLog.Entry e = log.append(m);
            log.awaitDurable(e);
            CommitLogPosition p = e.position;
            int start = p.segmentId() == previousSegment ? previousEnd : SegmentLayout.HEADER_BYTES;
            out.add(new Written(p.segmentId(), start, (int) p.position(), Updates.describe(u)));
            previousSegment = p.segmentId();
            previousEnd = (int) p.position();
        }
        log.close();
        return out;
    }

    static List<Path> segments(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> SegmentLayout.idOf(p.getFileName().toString()) >= 0)
                    .sorted((a, b) -> Long.compare(SegmentLayout.idOf(a.getFileName().toString()), SegmentLayout.idOf(b.getFileName().toString())))
                    .toList();
        }
    }

    static void copy(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> s = Files.list(from)) {
            for (Path p : (Iterable<Path>) s::iterator) Files.copy(p, to.resolve(p.getFileName()));
        }
    }

    // ---- damage -------------------------------------------------------------------------------

    static void putInt(byte[] b, int at, int v) {
        if (at < 0 || at + 4 > b.length) return;
        SegmentLayout.putInt(b, at, v);
    }

    /** Damages one segment's bytes in place (or returns a shorter copy for a truncation); describes it in {@code what}. */
    static byte[] damage(Random r, byte[] b, List<Written> entries, StringBuilder what) {
        int kind = r.nextInt(7);
        switch (kind) {
            case 0: { // flip bits
                int n = 1 + r.nextInt(4);
                int written = entries.isEmpty() ? SegmentLayout.HEADER_BYTES : entries.get(entries.size() - 1).end();
                for (int i = 0; i < n; i++) {
                    // mostly inside the written part, sometimes anywhere
                    int at = r.nextInt(4) == 0 ? r.nextInt(b.length) : r.nextInt(written + 8);
                    at = Math.min(at, b.length - 1);
                    b[at] ^= (byte) (1 << r.nextInt(8));
                    what.append("flip@").append(at).append(' ');
                }
                return b;
            }
            case 1: { // truncate
                int written = entries.isEmpty() ? SegmentLayout.HEADER_BYTES : entries.get(entries.size() - 1).end();
                int at = r.nextInt(written + 20);
                what.append("truncate@").append(at);
                return Arrays.copyOf(b, Math.min(at, b.length));
            }
            case 2:
            case 3: { // a huge or negative length, with (case 3) or without a matching length CRC
                if (entries.isEmpty()) return b;
                Written e = entries.get(r.nextInt(entries.size()));
                int[] lengths = {0x7fffffff, -1, Integer.MIN_VALUE, 0, SEGMENT_BYTES, e.end() - e.start() - SegmentLayout.ENTRY_OVERHEAD_BYTES + 1,
                        e.end() - e.start() - SegmentLayout.ENTRY_OVERHEAD_BYTES - 1};
                int length = lengths[r.nextInt(lengths.length)];
                putInt(b, e.start() + SegmentLayout.LENGTH_OFFSET, length);
                if (kind == 3) putInt(b, e.start() + SegmentLayout.LENGTH_CRC_OFFSET, SegmentLayout.lengthCrc(length));
                what.append(kind == 3 ? "length+crc=" : "length=").append(length).append('@').append(e.start());
                return b;
            }
            case 4: { // zero a 4 KiB page
                int page = r.nextInt((b.length + 4095) / 4096);
                Arrays.fill(b, page * 4096, Math.min(b.length, page * 4096 + 4096), (byte) 0);
                what.append("zero page ").append(page);
                return b;
            }
            case 5: { // a span of garbage
                int at = r.nextInt(b.length), n = 1 + r.nextInt(64);
                for (int i = at; i < Math.min(b.length, at + n); i++) b[i] = (byte) r.nextInt(256);
                what.append("garbage@").append(at).append('+').append(n);
                return b;
            }
            default: { // part of one entry's payload over another's: well-formed bytes in the wrong place
                // (a whole framed entry copied elsewhere would be valid: the CRCs do not cover the
                // position, and need not, since segments are never reused)
                if (entries.size() < 2) return b;
                Written x = entries.get(r.nextInt(entries.size())), y = entries.get(r.nextInt(entries.size()));
                int h = SegmentLayout.PAYLOAD_OFFSET;
                int n = Math.min(x.end() - x.start(), y.end() - y.start()) - SegmentLayout.ENTRY_OVERHEAD_BYTES;
                if (n <= 1 || x == y) return b;
                byte[] src = Arrays.copyOfRange(b, y.start() + h, y.start() + h + n - 1);
                System.arraycopy(src, 0, b, x.start() + h + 1, n - 1);
                what.append("copy ").append(y.start() + h).append("->").append(x.start() + h + 1).append('+').append(n - 1);
                return b;
            }
        }
    }

    // ---- the oracle -----------------------------------------------------------------------------

    static boolean changed(byte[] before, byte[] after, int from, int to) {
        if (to > after.length) return true;
        for (int i = from; i < to; i++) if (before[i] != after[i]) return true;
        return false;
    }

    static boolean allZero(byte[] b, int from) {
        for (int i = from; i < b.length; i++) if (b[i] != 0) return false;
        return true;
    }

    /** Equal lists, or a short message naming the first difference (the full lists are long). */
    static void assertSameUpdates(List<String> expected, List<String> actual, String info) {
        int n = Math.min(expected.size(), actual.size());
        for (int i = 0; i < n; i++) {
            if (!expected.get(i).equals(actual.get(i))) {
                throw new AssertionError(info + ": replayed entry " + i + " differs from what was written:\n  written "
                        + expected.get(i) + "\n  replayed " + actual.get(i));
            }
        }
        if (expected.size() != actual.size()) {
            throw new AssertionError(info + ": expected " + expected.size() + " entries, replay delivered " + actual.size());
        }
    }

    record Replayed(List<String> updates, List<String> warnings, Exception failure) {}

    Replayed replay(Path dir, boolean skipCorrupt, String info) {
        List<String> got = new ArrayList<>();
        try (CommitLog log = CommitLog.open(options(dir, skipCorrupt))) {
            CommitLog.ReplayReport report = log.replay(schema, (m, p) -> got.add(Updates.describe(m.update())));
            assertEquals(got.size(), report.mutations, info);
            return new Replayed(got, report.warnings, null);
        } catch (CommitLogCorruptionException e) {
            return new Replayed(got, List.of(), e);
        } catch (Throwable t) {
            throw new AssertionError(info + ": internal error " + t, t);
        }
    }

    /** Cases that replayed everything, lost a tail, failed naming corruption, skipped corrupt bytes. */
    final int[] outcomes = new int[4];

    void fuzz(long seed, boolean skipCorrupt) throws Exception {
        Path pristine = tmp.resolve("pristine-" + seed);
        List<Written> written = writeLog(pristine, seed, 60 + (int) (seed % 40));
        List<Path> segs = segments(pristine);
        Random r = new Random(seed);
        for (int round = 0; round < 12; round++) {
            String info = "seed " + seed + " round " + round + " skipCorrupt " + skipCorrupt;
            Path dir = tmp.resolve("case-" + seed + "-" + round + "-" + skipCorrupt);
            copy(pristine, dir);
            // damage one or two segments
            int damaged = 1 + r.nextInt(Math.min(2, segs.size()));
            java.util.Map<Long, byte[]> before = new java.util.HashMap<>(), after = new java.util.HashMap<>();
            StringBuilder what = new StringBuilder();
            for (int k = 0; k < damaged; k++) {
                Path seg = dir.resolve(segs.get(r.nextInt(segs.size())).getFileName());
                long id = SegmentLayout.idOf(seg.getFileName().toString());
                byte[] orig = before.containsKey(id) ? after.get(id) : Files.readAllBytes(seg);
                before.putIfAbsent(id, orig.clone());
                List<Written> inSeg = new ArrayList<>();
                for (Written w : written) if (w.segmentId() == id) inSeg.add(w);
                what.append("seg ").append(id).append(": ");
                byte[] d = damage(r, orig, inSeg, what);
                what.append("; ");
                after.put(id, d);
                Files.write(seg, d);
            }
            info += " (" + what + ")";

            // what a correct replay returns, segment by segment
            List<String> expected = new ArrayList<>();
            Path expectFailureIn = null;
            int expectFailureAt = -1;
            List<String> lossyWithoutWarning = new ArrayList<>();
            for (Path s : segs) {
                long id = SegmentLayout.idOf(s.getFileName().toString());
                List<Written> inSeg = new ArrayList<>();
                for (Written w : written) if (w.segmentId() == id) inSeg.add(w);
                if (!after.containsKey(id)) {
                    for (Written w : inSeg) expected.add(w.update());
                    continue;
                }
                byte[] b0 = before.get(id), b1 = after.get(id);
                boolean headerDamaged = changed(b0, b1, 0, SegmentLayout.HEADER_BYTES);
                List<Written> intact = new ArrayList<>();
                int firstDamaged = -1;
                for (int i = 0; i < inSeg.size(); i++) {
                    Written w = inSeg.get(i);
                    if (changed(b0, b1, w.start(), w.end())) {
                        if (firstDamaged < 0) firstDamaged = i;
                    } else {
                        intact.add(w);
                    }
                }
                if (headerDamaged) {
                    if (skipCorrupt) {
                        // the damaged header is skipped like any damaged range; intact entries replay
                        for (Written w : intact) expected.add(w.update());
                        continue;
                    }
                    if (!intact.isEmpty()) {
                        expectFailureIn = dir.resolve(s.getFileName());
                        expectFailureAt = 0;
                        break;
                    }
                    continue; // warned: no valid header, nothing to replay
                }
                if (firstDamaged < 0) {
                    for (Written w : inSeg) expected.add(w.update());
                    continue;
                }
                boolean intactAfter = intact.size() > firstDamaged;
                if (skipCorrupt) {
                    for (Written w : intact) expected.add(w.update());
                    continue;
                }
                for (int i = 0; i < firstDamaged; i++) expected.add(inSeg.get(i).update());
                if (intactAfter) {
                    expectFailureIn = dir.resolve(s.getFileName());
                    expectFailureAt = inSeg.get(firstDamaged).start();
                    break;
                }
                if (allZero(b1, inSeg.get(firstDamaged).start())) lossyWithoutWarning.add(s.getFileName().toString());
            }

            Replayed got = replay(dir, skipCorrupt, info);
            if (expectFailureIn != null) {
                assertTrue(got.failure() != null, info + ": replay should fail in " + expectFailureIn + " at " + expectFailureAt
                        + " but delivered " + got.updates().size());
                CommitLogCorruptionException e = (CommitLogCorruptionException) got.failure();
                assertEquals(expectFailureIn, e.segment(), info + ": " + e.getMessage());
                assertEquals(expectFailureAt, e.offset(), info + ": " + e.getMessage());
                assertTrue(e.getMessage().contains(expectFailureIn.toString()) && e.getMessage().contains("byte offset " + expectFailureAt),
                        info + ": " + e.getMessage());
                // what it delivered before failing is a prefix of what was written
                assertSameUpdates(expected, got.updates(), info);
                outcomes[2]++;
            } else {
                if (got.failure() != null) throw new AssertionError(info + ": unexpected " + got.failure(), got.failure());
                assertSameUpdates(expected, got.updates(), info);
                boolean skipped = false;
                for (String w : got.warnings()) if (w.startsWith("skipped")) skipped = true;
                outcomes[skipped ? 3 : expected.size() == written.size() ? 0 : 1]++;
                // every damaged segment that lost entries says so, unless its damage is all zeros to the end
                for (Long id : after.keySet()) {
                    String name = SegmentLayout.fileName(id);
                    boolean lost = false;
                    for (Written w : written) {
                        if (w.segmentId() == id && changed(before.get(id), after.get(id), w.start(), w.end())) lost = true;
                    }
                    if (changed(before.get(id), after.get(id), 0, SegmentLayout.HEADER_BYTES)) lost = true;
                    if (!lost || lossyWithoutWarning.contains(name)) continue;
                    boolean warned = false;
                    for (String w : got.warnings()) if (w.contains(name)) warned = true;
                    assertTrue(warned, info + ": lost entries of " + name + " without a warning: " + got.warnings());
                    if (skipCorrupt) {
                        boolean namesOffset = false;
                        for (String w : got.warnings()) if (w.contains(name) && w.matches("(?s).*(\\[\\d+, \\d+\\)|byte offset \\d+|no valid header).*")) namesOffset = true;
                        assertTrue(namesOffset, info + ": " + got.warnings());
                    }
                }
            }
            deleteTree(dir);
        }
        deleteTree(pristine);
    }

    static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            List<Path> all = s.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList();
            for (Path p : all) Files.deleteIfExists(p);
        }
    }

    @Test
    void damagedSegmentsReplayTheIntactPrefixOrNameTheCorruption() throws Exception {
        for (long seed = 1; seed <= 20; seed++) fuzz(seed, false);
        // each outcome was exercised: everything replayed, a torn tail cut, corruption named
        assertTrue(outcomes[0] > 0 && outcomes[1] > 0 && outcomes[2] > 0, Arrays.toString(outcomes));
    }

    @Test
    void damagedSegmentsWithSkipCorruptReplayEveryIntactEntry() throws Exception {
        for (long seed = 101; seed <= 120; seed++) fuzz(seed, true);
        assertTrue(outcomes[0] > 0 && outcomes[1] > 0 && outcomes[3] > 0, Arrays.toString(outcomes));
    }

    /**
     * {@code flushline load --commitlog} on damaged logs: it replays and exits 0, or stops with
     * exit 2 naming the segment and the byte offset; never an internal error or a stack trace.
     */
    @Test
    void loadCommandReportsDamagedLogsWithoutAStackTrace() throws Exception {
        Path schemaFile = Files.writeString(tmp.resolve("t.cql"), CQL);
        Path empty = Files.writeString(tmp.resolve("empty.jsonl"), "");
        int replayedSomething = 0, refused = 0;
        for (long seed = 201; seed <= 212; seed++) {
            boolean skip = seed % 2 == 0;
            Path cl = tmp.resolve("cl-" + seed);
            List<Written> written = writeLog(cl, seed, 50);
            List<Path> segs = segments(cl);
            Random r = new Random(seed);
            Path seg = segs.get(r.nextInt(segs.size()));
            long id = SegmentLayout.idOf(seg.getFileName().toString());
            List<Written> inSeg = new ArrayList<>();
            for (Written w : written) if (w.segmentId() == id) inSeg.add(w);
            StringBuilder what = new StringBuilder();
            Files.write(seg, damage(r, Files.readAllBytes(seg), inSeg, what));
            String[] args = {"load", "--schema", schemaFile.toString(), "--input", empty.toString(), "--out", tmp.resolve("out-" + seed).toString(),
                    "--commitlog", cl.toString(), "--now", Long.toString(NOW)};
            if (skip) {
                args = Arrays.copyOf(args, args.length + 1);
                args[args.length - 1] = "--skip-corrupt";
            }
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(), err = new java.io.ByteArrayOutputStream();
            int status = dev.flushline.Main.run(args, new java.io.ByteArrayInputStream(new byte[0]),
                    new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8),
                    new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
            String stderr = err.toString(java.nio.charset.StandardCharsets.UTF_8), stdout = out.toString(java.nio.charset.StandardCharsets.UTF_8);
            String info = "seed " + seed + " skip " + skip + " (" + what + ") status " + status + "\n" + stdout + stderr;
            assertTrue(status == 0 || status == 2, info);
            assertTrue(!stderr.contains("\tat ") && !stderr.contains("Exception in thread") && !stderr.contains("internal error"), info);
            if (status == 0) {
                replayedSomething++;
                assertTrue(stdout.contains("Replayed "), info);
            } else {
                refused++;
                assertTrue(stderr.contains(seg.getFileName().toString()) && stderr.contains("byte offset "), info);
            }
        }
        assertTrue(replayedSomething > 0, replayedSomething + " replayed, " + refused + " refused");
    }

    // ---- payloads whose CRCs match ----------------------------------------------------------------

    /**
     * Entry payloads that are not what the writer made but carry matching CRCs (a bug, a schema that
     * changed under the same table id, or tampering): the decoder either refuses them with a
     * MalformedMutationException, or returns a mutation the memtable takes. Nothing else escapes.
     */
    @Test
    void mutatedPayloadsDecodeOrAreRefusedAsMalformed() {
        TableSchema[] schemas = new TableSchema[MutationLayoutTest.SCHEMAS.length];
        for (int i = 0; i < schemas.length; i++) schemas[i] = CqlParser.parse(MutationLayoutTest.SCHEMAS[i]);
        int refused = 0, decoded = 0;
        java.util.Map<String, String> problems = new java.util.TreeMap<>();
        for (int s = 0; s < schemas.length; s++) {
            TableSchema t = schemas[s];
            List<PartitionUpdate> updates = new RandomUpdates(t, 500 + s, NOW, 20, 6).next(600);
            Random r = new Random(900 + s);
            for (int i = 0; i < updates.size(); i++) {
                byte[] good = MutationLayout.bytes(new Mutation(t, updates.get(i)));
                for (int k = 0; k < 10; k++) {
                    byte[] b = good.clone();
                    int op = r.nextInt(4);
                    if (op == 0) {
                        int n = 1 + r.nextInt(3);
                        for (int j = 0; j < n; j++) {
                            // keep the header (version, table id) most of the time: damage the body
                            int at = b.length <= MutationLayout.HEADER_BYTES || r.nextInt(8) == 0 ? r.nextInt(b.length)
                                    : MutationLayout.HEADER_BYTES + r.nextInt(b.length - MutationLayout.HEADER_BYTES);
                            b[at] = r.nextInt(3) == 0 ? (byte) 0xFF : (byte) (b[at] ^ (1 << r.nextInt(8)));
                        }
                    } else if (op == 1) {
                        b = Arrays.copyOf(b, r.nextInt(b.length));
                    } else if (op == 2) {
                        int at = r.nextInt(b.length + 1);
                        byte[] c = new byte[b.length + 1];
                        System.arraycopy(b, 0, c, 0, at);
                        c[at] = (byte) r.nextInt(256);
                        System.arraycopy(b, at, c, at + 1, b.length - at);
                        b = c;
                    } else {
                        // vint fields rewritten as 9-byte maxima: counts and lengths near 2^64
                        int at = MutationLayout.HEADER_BYTES + r.nextInt(Math.max(1, b.length - MutationLayout.HEADER_BYTES));
                        if (at < b.length) b[at] = (byte) 0xFF;
                    }
                    // the same bytes also against another schema with the same id (a changed table)
                    TableSchema target = r.nextInt(4) == 0 ? withId(schemas[r.nextInt(schemas.length)], t) : t;
                    String info = "schema " + s + " update " + i + " case " + k + " target " + target;
                    Mutation m;
                    try {
                        m = MutationLayout.deserialize(b, 0, b.length, target);
                    } catch (MutationLayout.MalformedMutationException e) {
                        refused++;
                        assertTrue(e.getMessage().startsWith("malformed mutation at byte ") || e.getMessage().contains("bytes has no header"),
                                info + ": " + e.getMessage());
                        continue;
                    } catch (Throwable e) {
                        throw new AssertionError(info + ": internal error " + e, e);
                    }
                    decoded++;
                    try {
                        SkipListMemtable mt = new SkipListMemtable(target, AllocationMode.UNSLABBED_HEAP);
                        mt.apply(m.update());
                        mt.seal();
                        mt.discard();
                    } catch (Throwable e) {
                        // one line per kind of problem, with the first case that shows it
                        String key = e.getClass().getSimpleName() + ": " + String.valueOf(e.getMessage()).replaceAll("[-0-9a-f]{4,}", "N");
                        problems.putIfAbsent(key.length() > 120 ? key.substring(0, 120) : key, info + ": decoded a mutation the memtable cannot take: " + e);
                    }
                }
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems.values()));
        assertTrue(refused > 1000 && decoded > 100, refused + " refused, " + decoded + " decoded");
    }

    /** {@code schema} as if it were created under the name (and so the id) of {@code as}. */
    static TableSchema withId(TableSchema schema, TableSchema as) {
        String cql = null;
        for (String c : MutationLayoutTest.SCHEMAS) if (CqlParser.parse(c).name().equals(schema.name())) cql = c;
        return CqlParser.parse(cql.replaceFirst("ks\\.\\w+ \\(", "ks." + as.name() + " ("));
    }
}

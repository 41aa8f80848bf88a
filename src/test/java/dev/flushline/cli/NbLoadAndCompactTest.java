package dev.flushline.cli;

import dev.flushline.Main;

import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.CassandraVerifier;
import dev.flushline.oracle.Partition;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --sstable-version nb} on load and compact: nb files that cassandra-all reads as it reads the
 * oa output of the same input, and nb's limit on expiry and deletion times (2038-01-19T03:14:06Z,
 * 2147483646 s) applied as bad input at the line that crosses it.
 */
class NbLoadAndCompactTest {
    static final long NOW = 1_750_000_000L;
    static final long NB_MAX = Integer.MAX_VALUE - 1;
    static final String CQL = "CREATE TABLE ks.items (pk bigint, ck text, n int, s text static, v1 int, v2 text, "
            + "tags set<text>, l list<int>, m map<text, int>, PRIMARY KEY (pk, ck, n)) WITH compression = {'enabled': 'false'}";
    static final String OPS = String.join("\n",
            "{\"op\":\"insert\",\"timestamp\":10,\"values\":{\"pk\":1,\"ck\":\"a\",\"n\":1,\"v1\":5,\"v2\":\"x\",\"tags\":[\"q\",\"p\"]}}",
            "{\"op\":\"insert\",\"timestamp\":10,\"ttl\":600,\"values\":{\"pk\":1,\"ck\":\"a\",\"n\":2,\"v1\":6,\"v2\":null}}",
            "{\"op\":\"update\",\"timestamp\":11,\"key\":{\"pk\":1,\"ck\":\"a\",\"n\":1},\"set\":{\"v2\":\"y\",\"l\":[1,2]},\"add\":{\"m\":{\"k\":3}}}",
            "{\"op\":\"update\",\"timestamp\":12,\"key\":{\"pk\":1},\"set\":{\"s\":\"static!\"}}",
            "{\"op\":\"insert\",\"timestamp\":10,\"values\":{\"pk\":1,\"ck\":\"b\",\"n\":1,\"v1\":7}}",
            "{\"op\":\"delete\",\"timestamp\":20,\"key\":{\"pk\":1,\"ck\":\"b\",\"n\":1}}",
            "{\"op\":\"delete\",\"timestamp\":20,\"key\":{\"pk\":1,\"ck\":\"a\",\"n\":1},\"columns\":[\"v1\"]}",
            "{\"op\":\"insert\",\"timestamp\":10,\"values\":{\"pk\":2,\"ck\":\"a\",\"n\":1,\"v1\":1}}",
            "{\"op\":\"delete\",\"timestamp\":30,\"key\":{\"pk\":2}}",
            "{\"op\":\"delete\",\"timestamp\":30,\"key\":{\"pk\":3},\"range\":{\"ck\":{\">\":\"c\",\"<=\":\"f\"}}}",
            "{\"op\":\"delete\",\"timestamp\":31,\"key\":{\"pk\":4,\"ck\":\"z\"}}",
            "");

    @TempDir
    Path tmp;

    @BeforeAll
    static void init() {
        CassandraOracle.init();
    }

    record Result(int status, String out, String err) {}

    static Result main(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int status = Main.run(args, new ByteArrayInputStream(new byte[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    Path write(String name, String text) throws IOException {
        Path p = tmp.resolve(name);
        Files.writeString(p, text, StandardCharsets.UTF_8);
        return p;
    }

    static Path tableDir(Path out) {
        TableSchema t = CqlParser.parse(CQL);
        return out.resolve("ks").resolve("items-" + t.idHex());
    }

    static List<String> names(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> !n.startsWith(".")).sorted().toList();
        }
    }

    Result load(String version, Path in, Path out, long now) throws IOException {
        return main("load", "--schema", write("t.cql", CQL).toString(), "--input", in.toString(), "--out", out.toString(),
                "--now", Long.toString(now), "--sstable-version", version, "--list-path-seed", "1");
    }

    @Test
    void loadAndCompactWriteNbThatCassandraReadsAsTheOaOutput() throws Exception {
        Path in = write("ops.jsonl", OPS);
        Path nbOut = tmp.resolve("nb"), oaOut = tmp.resolve("oa");
        Result nb = load("nb", in, nbOut, NOW);
        assertEquals(0, nb.status, nb.err);
        Result oa = load("oa", in, oaOut, NOW);
        assertEquals(0, oa.status, oa.err);
        List<String> files = names(tableDir(nbOut));
        assertFalse(files.isEmpty());
        for (String f : files) assertTrue(f.startsWith("nb-1-big-"), files.toString());
        List<Partition> expected = CassandraReader.readAll(tableDir(oaOut), CQL);
        assertEquals(4, expected.size());
        assertEquals(expected, CassandraReader.readAll(tableDir(nbOut), CQL));
        assertEquals(List.of(), CassandraVerifier.verify(tableDir(nbOut), CQL));

        // Compaction of the nb load into nb, and of the oa load into nb: both read back as the oa compaction.
        Path schema = tmp.resolve("t.cql");
        String now = Long.toString(NOW);
        Result c1 = main("compact", "--schema", schema.toString(), "--input", nbOut.toString(), "--out", tmp.resolve("c-nb").toString(),
                "--now", now, "--sstable-version", "nb");
        assertEquals(0, c1.status, c1.err);
        Result c2 = main("compact", "--schema", schema.toString(), "--input", oaOut.toString(), "--out", tmp.resolve("c-oa-nb").toString(),
                "--now", now, "--sstable-version", "nb");
        assertEquals(0, c2.status, c2.err);
        Result c3 = main("compact", "--schema", schema.toString(), "--input", nbOut.toString(), "--out", tmp.resolve("c-oa").toString(),
                "--now", now);
        assertEquals(0, c3.status, c3.err);
        for (String f : names(tableDir(tmp.resolve("c-nb")))) assertTrue(f.startsWith("nb-"), f);
        for (String f : names(tableDir(tmp.resolve("c-oa")))) assertTrue(f.startsWith("oa-"), f);
        List<Partition> compacted = CassandraReader.readAll(tableDir(tmp.resolve("c-oa")), CQL);
        assertEquals(compacted, CassandraReader.readAll(tableDir(tmp.resolve("c-nb")), CQL));
        assertEquals(compacted, CassandraReader.readAll(tableDir(tmp.resolve("c-oa-nb")), CQL));
        assertEquals(List.of(), CassandraVerifier.verify(tableDir(tmp.resolve("c-nb")), CQL));
        // Byte for byte, the two nb compactions are the same sstable.
        for (String component : new String[] {"Data.db", "Index.db", "Statistics.db", "Summary.db", "Filter.db"}) {
            assertEquals(java.util.Arrays.toString(Files.readAllBytes(tableDir(tmp.resolve("c-nb")).resolve("nb-1-big-" + component))),
                    java.util.Arrays.toString(Files.readAllBytes(tableDir(tmp.resolve("c-oa-nb")).resolve("nb-1-big-" + component))),
                    component);
        }
    }

    @Test
    void aTtlExpiringAfter2038StopsAnNbLoadAtItsLine() throws Exception {
        long now = NB_MAX - 1000;
        String atLimit = "{\"op\":\"insert\",\"timestamp\":1,\"ttl\":1000,\"values\":{\"pk\":1,\"ck\":\"a\",\"n\":1,\"v1\":1}}\n";
        String past = "{\"op\":\"insert\",\"timestamp\":2,\"ttl\":1001,\"values\":{\"pk\":1,\"ck\":\"a\",\"n\":2,\"v1\":2}}\n";
        String after = "{\"op\":\"insert\",\"timestamp\":3,\"values\":{\"pk\":1,\"ck\":\"a\",\"n\":3,\"v1\":3}}\n";
        Path in = write("ops.jsonl", atLimit + past + after);
        Path out = tmp.resolve("out");
        Result r = load("nb", in, out, now);
        assertEquals(1, r.status, r.err);
        assertTrue(r.err.startsWith(in + ":2: \"ttl\": 1001 seconds from now (" + now + ") expires after the latest expiration "
                + "the output can store (2147483646, 2038-01-19T03:14:06Z for nb sstables)\n"), r.err);
        assertTrue(r.err.contains("stopped at " + in + ":2"), r.err);
        // What came before the bad line is published whole, the expiry at the limit included.
        List<Partition> ps = CassandraReader.readAll(tableDir(out), CQL);
        assertEquals(1, ps.size());
        assertEquals(1, ps.get(0).rows().size());
        assertEquals(NB_MAX, ps.get(0).rows().get(0).liveness().localExpirationTime());
        assertEquals(List.of(), CassandraVerifier.verify(tableDir(out), CQL));
        // oa stores the same input whole.
        Result o = load("oa", in, tmp.resolve("oa"), now);
        assertEquals(0, o.status, o.err);
    }

    @Test
    void nowAfter2038IsAUsageErrorForNb() throws Exception {
        Path in = write("ops.jsonl", OPS);
        Result r = load("nb", in, tmp.resolve("out"), NB_MAX + 1);
        assertEquals(1, r.status);
        assertTrue(r.err.contains("--now 2147483647 is out of range (0..2147483646)"), r.err);
        assertFalse(Files.exists(tmp.resolve("out")), "nothing written");
        Result bad = load("na", in, tmp.resolve("out"), NOW);
        assertEquals(1, bad.status);
        assertTrue(bad.err.contains("--sstable-version"), bad.err);
    }

    @Test
    void compactToNbRefusesInputsWithLaterDeletionTimesAlsoInPlace() throws Exception {
        long now = NB_MAX + 100;
        Path in = write("ops.jsonl", "{\"op\":\"delete\",\"timestamp\":5,\"key\":{\"pk\":9}}\n");
        Path oaOut = tmp.resolve("oa");
        assertEquals(0, load("oa", in, oaOut, now).status);
        Path schema = tmp.resolve("t.cql");
        Path out = tmp.resolve("c");
        Result r = main("compact", "--schema", schema.toString(), "--input", oaOut.toString(), "--out", out.toString(),
                "--now", Long.toString(now), "--gc-grace", "864000", "--sstable-version", "nb");
        assertEquals(1, r.status, r.err);
        assertTrue(r.err.contains("refused " + tableDir(oaOut).resolve("oa-1-big-Statistics.db")) && r.err.contains("2147483746")
                && r.err.contains("2038-01-19T03:14:06Z") && r.err.contains("nothing was published"), r.err);
        assertTrue(!Files.exists(tableDir(out)) || names(tableDir(out)).isEmpty(), "nothing published");

        // In place the same refusal, by the same file and time, and the directory is left exactly as it was
        // (no output, no transaction log or lock of ours, every input byte for byte).
        java.util.Map<String, byte[]> before = everyFile(tableDir(oaOut));
        Result inPlace = main("compact", "--schema", schema.toString(), "--input", oaOut.toString(), "--in-place",
                "--now", Long.toString(now), "--gc-grace", "864000", "--sstable-version", "nb");
        assertEquals(1, inPlace.status, inPlace.err);
        assertTrue(inPlace.err.contains("refused " + tableDir(oaOut).resolve("oa-1-big-Statistics.db")) && inPlace.err.contains("2147483746")
                && inPlace.err.contains("2038-01-19T03:14:06Z") && inPlace.err.contains("nothing was published"), inPlace.err);
        assertEquals(List.of("oa-1-big-CRC.db", "oa-1-big-Data.db", "oa-1-big-Digest.crc32", "oa-1-big-Filter.db",
                "oa-1-big-Index.db", "oa-1-big-Statistics.db", "oa-1-big-Summary.db", "oa-1-big-TOC.txt"), names(tableDir(oaOut)));
        java.util.Map<String, byte[]> after = everyFile(tableDir(oaOut));
        assertEquals(before.keySet(), after.keySet(), "the same files, hidden ones included");
        for (String f : before.keySet()) assertTrue(java.util.Arrays.equals(before.get(f), after.get(f)), f + " changed");
    }

    /** Every file of {@code dir} (hidden ones and directories too; a directory's bytes are empty), by name. */
    static java.util.Map<String, byte[]> everyFile(Path dir) throws IOException {
        java.util.Map<String, byte[]> out = new java.util.TreeMap<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.toList()) out.put(p.getFileName().toString(), Files.isDirectory(p) ? new byte[0] : Files.readAllBytes(p));
        }
        return out;
    }
}

package dev.flushline.cli;

import dev.flushline.Main;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.SSTableFiles;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every command behaves alike at its edges: {@code --name value} and {@code --name=value} are the
 * same; an unknown option is exit status 1 with the option named; a missing input path is 1 with
 * the path named; {@code --help} is 0 with the help on stdout and nothing on stderr; an I/O failure
 * (a regular file where a directory must be created, a component whose read fails) is 2.
 * The commands: load, compact, verify, dump, schema, bench, ratios, compaction-stress.
 */
class CommandConsistencyTest {
    static final String CQL = "CREATE TABLE ks.cc (pk int, ck int, v text, PRIMARY KEY (pk, ck)) WITH compression = {'enabled': 'false'}";
    static final List<String> COMMANDS = List.of("load", "compact", "verify", "dump", "schema", "bench", "ratios", "compaction-stress");

    @TempDir
    Path tmp;
    Path schema, ops, tableDir, data, missing, aFile;

    record Run(int status, String out, String err) {}

    static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int status = Main.run(args, new ByteArrayInputStream(new byte[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @BeforeEach
    void fixtures() throws IOException {
        schema = Files.writeString(tmp.resolve("cc.cql"), CQL);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 30; i++) {
            sb.append("{\"op\":\"insert\",\"timestamp\":").append(1_700_000_000_000_000L + i).append(",\"values\":{\"pk\":").append(i % 5)
                    .append(",\"ck\":").append(i).append(",\"v\":\"v").append(i).append("\"}}\n");
        }
        ops = Files.writeString(tmp.resolve("ops.jsonl"), sb.toString());
        Run r = run("load", "--schema", schema.toString(), "--input", ops.toString(), "--out", tmp.resolve("data").toString(), "--now", "1750000000");
        assertEquals(0, r.status(), r.err());
        try (var s = Files.list(tmp.resolve("data").resolve("ks"))) {
            tableDir = s.findFirst().orElseThrow();
        }
        data = SSTableFiles.inDirectory(tableDir).get(0).path(Component.DATA);
        missing = tmp.resolve("no-such-thing");
        aFile = Files.writeString(tmp.resolve("a-file"), "not a directory");
    }

    /**
     * One invocation per command whose valued option's value shows in what the command says next:
     * the option, its value, and the rest of the arguments.
     */
    Map<String, String[]> valued() {
        Map<String, String[]> m = new LinkedHashMap<>();
        m.put("load", new String[] {"--input", missing.toString(), "--schema", schema.toString(), "--out", tmp.resolve("o").toString()});
        m.put("compact", new String[] {"--input", missing.toString(), "--schema", schema.toString(), "--out", tmp.resolve("o").toString()});
        m.put("verify", new String[] {"--schema", missing.toString(), data.toString()});
        m.put("dump", new String[] {"--schema", missing.toString(), data.toString()});
        m.put("schema", new String[] {"--schema", missing.toString(), data.toString()});
        m.put("bench", new String[] {"--partitions", "many"});
        m.put("ratios", new String[] {"--partitions", "many"});
        m.put("compaction-stress", new String[] {"compact", "--dir", missing.toString(), "--strategy", "stcs"});
        return m;
    }

    @Test
    void nameEqualsValueIsNameSpaceValue() {
        Map<String, String[]> cases = valued();
        assertEquals(COMMANDS, new ArrayList<>(cases.keySet()));
        for (Map.Entry<String, String[]> e : cases.entrySet()) {
            String[] spaced = e.getValue();
            List<String> a = new ArrayList<>(List.of(e.getKey()));
            a.addAll(List.of(spaced));
            // the first --name value pair joined by '='
            List<String> b = new ArrayList<>(List.of(e.getKey()));
            int at = spaced[0].startsWith("--") ? 0 : 1;
            for (int i = 0; i < spaced.length; i++) {
                if (i == at) {
                    b.add(spaced[i] + "=" + spaced[i + 1]);
                    i++;
                } else {
                    b.add(spaced[i]);
                }
            }
            Run x = run(a.toArray(new String[0])), y = run(b.toArray(new String[0]));
            assertEquals(1, x.status(), a + ": " + x.err());
            assertEquals(x.status(), y.status(), b + ": " + y.err());
            assertEquals(x.err(), y.err(), b.toString());
            assertTrue(x.err().contains(spaced[at + 1]), a + " names the value it was given: " + x.err());
        }
        // And one that succeeds both ways.
        Run x = run("verify", "--schema", schema.toString(), data.toString()), y = run("verify", "--schema=" + schema, data.toString());
        assertEquals(0, x.status(), x.err());
        assertEquals(x.out(), y.out());
    }

    @Test
    void unknownOptionsAreNamed() {
        for (String c : COMMANDS) {
            List<String> a = new ArrayList<>(List.of(c));
            if (c.equals("compaction-stress")) a.add("write");
            a.add("--no-such-option");
            Run r = run(a.toArray(new String[0]));
            assertEquals(1, r.status(), a + ": " + r.out() + r.err());
            assertTrue(r.err().contains("--no-such-option"), a + ": " + r.err());
            a.set(a.size() - 1, "--no-such-option=3");
            r = run(a.toArray(new String[0]));
            assertEquals(1, r.status(), a + ": " + r.out() + r.err());
            assertTrue(r.err().contains("--no-such-option"), a + ": " + r.err());
        }
        Run r = run("dump", "--schema", schema.toString(), data.toString(), "-z");
        assertEquals(1, r.status());
        assertTrue(r.err().contains("unknown option -z"), r.err());
    }

    /** bench and ratios read no input; the others name a missing one (and a missing schema file). */
    @Test
    void missingInputsAreNamed() {
        String m = missing.toString();
        List<String[]> cases = List.of(
                new String[] {"load", "--schema", schema.toString(), "--input", m, "--out", tmp.resolve("o").toString()},
                new String[] {"load", "--schema", m, "--input", ops.toString(), "--out", tmp.resolve("o").toString()},
                new String[] {"compact", "--schema", schema.toString(), "--input", m, "--out", tmp.resolve("o").toString()},
                new String[] {"compact", "--schema", m, "--input", tableDir.toString(), "--out", tmp.resolve("o").toString()},
                new String[] {"verify", "--schema", schema.toString(), m},
                new String[] {"verify", "--schema", m, data.toString()},
                new String[] {"dump", "--schema", schema.toString(), m},
                new String[] {"dump", "--schema", m, data.toString()},
                new String[] {"schema", m},
                new String[] {"schema", data.toString(), "--schema", m},
                new String[] {"compaction-stress", "compact", "--dir", m, "--strategy", "stcs"});
        for (String[] a : cases) {
            Run r = run(a);
            assertEquals(1, r.status(), List.of(a) + ": " + r.out() + r.err());
            assertTrue(r.err().contains(m), List.of(a) + " names the path: " + r.err());
            assertTrue(!r.err().contains("Exception"), List.of(a) + ": " + r.err());
        }
    }

    @Test
    void helpIsOnStdoutWithStatusZero() {
        for (String c : COMMANDS) {
            for (String h : new String[] {"--help", "-h"}) {
                Run r = run(c, h);
                assertEquals(0, r.status(), c + " " + h + ": " + r.err());
                assertTrue(r.out().startsWith("Usage: flushline " + c), c + ": " + r.out());
                assertEquals("", r.err(), c);
                // Help wins over anything else on the line, a bad option included.
                Run r2 = run(c, "--no-such-option", h);
                assertEquals(0, r2.status(), c + ": " + r2.err());
                assertEquals(r.out(), r2.out(), c);
            }
        }
    }

    /** A regular file where a directory is to be created, and a component whose read fails with EIO: status 2. */
    @Test
    void ioFailuresAreStatusTwo() throws IOException {
        Path blocked = aFile.resolve("sub"); // under a regular file: creating it fails with "Not a directory"
        List<String[]> cases = new ArrayList<>(List.of(
                new String[] {"load", "--schema", schema.toString(), "--input", ops.toString(), "--out", blocked.toString()},
                new String[] {"compact", "--schema", schema.toString(), "--input", tableDir.toString(), "--out", blocked.toString()},
                new String[] {"bench", "--partitions", "10", "--warmup-partitions", "0", "--out", blocked.toString()},
                new String[] {"ratios", "--partitions", "10", "--repeat", "1", "--out", blocked.toString()},
                new String[] {"compaction-stress", "write", "--dir", blocked.toString(), "--size-gb", "0.0001"}));
        // An sstable whose Statistics.db is a link to a regular file of 4 KiB that cannot be read (even by root): a
        // write-only sysfs attribute.
        Path unreadable = unreadableRegularFile();
        org.junit.jupiter.api.Assumptions.assumeTrue(unreadable != null, "no write-only sysfs attribute here to read from");
        Path eio = Files.createDirectories(tmp.resolve("eio").resolve("ks").resolve(tableDir.getFileName()));
        try (var s = Files.list(tableDir)) {
            for (Path p : (Iterable<Path>) s::iterator) Files.copy(p, eio.resolve(p.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        }
        SSTableFiles f = SSTableFiles.inDirectory(eio).get(0);
        Path stats = f.path(Component.STATISTICS);
        Files.delete(stats);
        Files.createSymbolicLink(stats, unreadable);
        cases.add(new String[] {"verify", "--schema", schema.toString(), eio.toString()});
        cases.add(new String[] {"dump", "--schema", schema.toString(), eio.toString()});
        cases.add(new String[] {"schema", eio.toString()});
        for (String[] a : cases) {
            Run r = run(a);
            assertEquals(2, r.status(), List.of(a) + ": " + r.out() + r.err());
            assertTrue(r.err().contains("I/O error") || r.out().contains("ERROR ") || r.err().contains("Not a directory"),
                    List.of(a) + ": " + r.out() + r.err());
        }
        // With --json too: the summary says 2.
        Run j = run("verify", "--schema", schema.toString(), eio.toString(), "--json");
        assertEquals(2, j.status());
        assertTrue(j.out().contains("\"status\":2") && j.out().contains("\"result\":\"ERROR\""), j.out());
    }

    /** A regular file of nonzero size whose reading fails with an IOException, or null: sysfs's write-only attributes. */
    static Path unreadableRegularFile() {
        for (String candidate : new String[] {"/sys/bus/pci/rescan", "/sys/bus/cpu/uevent", "/sys/bus/platform/uevent", "/sys/bus/pci/uevent"}) {
            Path p = Path.of(candidate);
            try {
                if (!Files.isRegularFile(p) || Files.size(p) == 0) continue;
                Files.readAllBytes(p);
            } catch (IOException e) {
                return p;
            }
        }
        return null;
    }
}

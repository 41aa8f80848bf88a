package dev.flushline.cli;

import dev.flushline.Main;
import dev.flushline.bench.BenchCommand;
import dev.flushline.bench.CompactionStressCommand;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every command's {@code --help} is enough to use it on its own: it documents exactly the options
 * the command accepts, states the exit statuses, and sends the reader to no file outside the
 * repository.
 */
class CommandHelpTest {
    private static final Pattern OPTION = Pattern.compile("--([a-z][a-z0-9-]*)");

    private static String help(String... argv) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int status = Main.run(argv, new ByteArrayInputStream(new byte[0]), new PrintStream(out, true),
                new PrintStream(err, true));
        assertEquals(0, status, err.toString(StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }

    /** The option names the text mentions, without --help. */
    private static Set<String> mentioned(String text) {
        Set<String> names = new TreeSet<>();
        Matcher m = OPTION.matcher(text);
        while (m.find()) names.add(m.group(1));
        names.remove("help");
        return names;
    }

    private static void standsAlone(String command, String text) {
        assertTrue(text.contains("Exit status: 0 ok"), command + " --help states the exit statuses:\n" + text);
        assertTrue(text.contains("2 internal or I/O failure"), command + " --help states status 2:\n" + text);
        assertFalse(text.contains(".md"), command + " --help points at a document:\n" + text);
        assertFalse(text.contains("docs/"), command + " --help points at a docs folder:\n" + text);
    }

    @Test
    void compactHelpDocumentsEveryOptionItAccepts() {
        String text = help("compact", "--help");
        standsAlone("compact", text);
        Set<String> accepted = new TreeSet<>(CompactCommand.WITH_VALUE);
        accepted.addAll(CompactCommand.FLAGS);
        accepted.add("input");
        assertEquals(accepted, mentioned(text));
        assertTrue(text.contains("Compacted ("), "compact --help shows the log line");
    }

    @Test
    void compactionStressHelpDocumentsEveryOptionItAccepts() {
        String text = help("compaction-stress", "--help");
        standsAlone("compaction-stress", text);
        Set<String> accepted = new TreeSet<>(CompactionStressCommand.WRITE_OPTIONS);
        accepted.addAll(CompactionStressCommand.COMPACT_OPTIONS);
        accepted.addAll(CompactionStressCommand.COMPACT_FLAGS);
        assertEquals(accepted, mentioned(text));
    }

    @Test
    void loadHelpDocumentsEveryOptionItAccepts() {
        String text = help("load", "--help");
        standsAlone("load", text);
        Set<String> accepted = new TreeSet<>(LoadCommand.OPTIONS);
        accepted.addAll(LoadCommand.FLAGS);
        assertTrue(accepted.containsAll(Set.of("skip-corrupt", "json")), accepted.toString());
        assertEquals(accepted, mentioned(text));
        for (String op : new String[] {"\"insert\"", "\"update\"", "\"delete\"", "\"range\"", "\"columns\"", "\"add\""}) {
            assertTrue(text.contains(op), "load --help shows " + op);
        }
        assertTrue(text.contains("Completed flushing"), "load --help shows the flush log line");
    }

    @Test
    void benchHelpDocumentsEveryOptionItAccepts() {
        String text = help("bench", "--help");
        standsAlone("bench", text);
        Set<String> accepted = new TreeSet<>(BenchCommand.OPTIONS);
        accepted.add("json");
        assertEquals(accepted, mentioned(text));
    }

    @Test
    void ratiosHelpDocumentsItsOptions() {
        String text = help("ratios", "--help");
        standsAlone("ratios", text);
        assertEquals(new TreeSet<>(Set.of("partitions", "repeat", "compression", "allocation", "out")), mentioned(text));
    }

    /** The long options a help text names; single-dash options (-k, -d) are checked by {@link #shortOptions}. */
    @Test
    void verifyHelpDocumentsEveryOptionItAccepts() {
        String text = help("verify", "--help");
        standsAlone("verify", text);
        assertEquals(longOnly(VerifyCommand.WITH_VALUE, VerifyCommand.FLAGS), mentioned(text));
        assertEquals(Set.of("-e"), shortOptions(VerifyCommand.WITH_VALUE, VerifyCommand.FLAGS));
        assertTrue(text.contains("(also -e)"), text);
        assertTrue(text.contains("\"result\":\"OK|CORRUPT|REFUSED|"), "verify --help shows the JSON summary");
    }

    @Test
    void dumpHelpDocumentsEveryOptionItAccepts() {
        String text = help("dump", "--help");
        standsAlone("dump", text);
        assertEquals(longOnly(DumpCommand.WITH_VALUE, DumpCommand.FLAGS), mentioned(text));
        for (String s : shortOptions(DumpCommand.WITH_VALUE, DumpCommand.FLAGS)) {
            assertTrue(text.contains("  " + s + " "), "dump --help documents " + s + ":\n" + text);
        }
        assertEquals(Set.of("-k", "-d", "-t", "-l"), shortOptions(DumpCommand.WITH_VALUE, DumpCommand.FLAGS));
    }

    @Test
    void schemaHelpDocumentsEveryOptionItAccepts() {
        String text = help("schema", "--help");
        standsAlone("schema", text);
        Set<String> accepted = new TreeSet<>(SchemaCommand.WITH_VALUE);
        accepted.addAll(SchemaCommand.FLAGS);
        assertEquals(accepted, mentioned(text));
        assertTrue(text.contains("CREATE TABLE"), text);
    }

    @Test
    void ratiosAcceptsWhatItsHelpDocuments() {
        assertEquals(mentioned(help("ratios", "--help")), new TreeSet<>(dev.flushline.bench.RatiosCommand.OPTIONS));
    }

    private static Set<String> longOnly(Set<String> withValue, Set<String> flags) {
        Set<String> s = new TreeSet<>();
        for (String n : withValue) if (!n.startsWith("-")) s.add(n);
        for (String n : flags) if (!n.startsWith("-")) s.add(n);
        return s;
    }

    private static Set<String> shortOptions(Set<String> withValue, Set<String> flags) {
        Set<String> s = new TreeSet<>();
        for (String n : withValue) if (n.startsWith("-")) s.add(n);
        for (String n : flags) if (n.startsWith("-")) s.add(n);
        return s;
    }

    @Test
    void launcherHelpListsTheCommandsAndExitStatuses() {
        String text = help("--help");
        standsAlone("flushline", text);
        for (String c : new String[] {"load", "bench", "ratios", "dump", "compact", "compaction-stress", "verify", "schema"}) {
            assertTrue(text.contains("  " + c + " "), "flushline --help lists " + c);
        }
    }
}

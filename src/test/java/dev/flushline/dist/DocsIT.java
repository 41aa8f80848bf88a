package dev.flushline.dist;

import dev.flushline.node.DocsNode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every command and code block of README.md and docs/*.md, run or checked as a reader would use it.
 * The distribution (flushline-&lt;version&gt;.tar.gz, built by package) is unpacked once; each page
 * then gets a fresh working directory holding the example files and {@code bin/flushline} and
 * {@code scripts/flushline}, both the archive's launcher, so a page's commands run as written.
 *
 * <p>What a fenced block's info string says it is, and what happens to it (a block of any other kind,
 * or with none, fails the test: every block is one of these):
 * <ul>
 *   <li>{@code sh}: commands, run in order through bash (-e, pipefail) in the page's directory; the
 *       block must end with status 0. Preceded by {@code <!-- docs-test: not run: REASON -->} it is not
 *       run (the reason must be given), but its flushline commands still have their options checked.
 *       Preceded by {@code <!-- docs-test: node -->} it runs with a real Cassandra node's {@code nodetool}
 *       and {@code cqlsh} first on the PATH (see {@link DocsNode}).</li>
 *   <li>{@code usage}: a command's synopsis: every {@code --option} on a flushline line must be one its
 *       {@code --help} lists.</li>
 *   <li>{@code text}: output or a listing. Preceded by {@code <!-- docs-test: output -->} it is the output
 *       of the sh block before it: each line matches one line, "..." inside a line matches any text and a
 *       line of "..." alone any number of lines. Preceded by {@code <!-- docs-test: file PATH -->}: a file
 *       the repository has must equal it; any other is written into the page's directory for the
 *       commands after it.</li>
 *   <li>{@code java}: preceded by {@code <!-- readme-example: Name -->}, compiled and run by
 *       ReadmeExampleTest (or the Spark module's ReadmeRecipeTest).</li>
 *   <li>{@code xml}: preceded by {@code <!-- docs-test: pom -->}, a dependency on this build's own
 *       coordinates.</li>
 * </ul>
 * Links between the pages (and to files of the repository) must resolve, anchors included. The README's
 * two set-up commands are checked for what can be checked without running them: the test command is
 * the one .ci/run runs, and bench is a command the launcher lists.
 */
class DocsIT {
    static final Pattern FENCE = Pattern.compile("^```(\\S*)\\s*$");
    static final Pattern MARKER = Pattern.compile("^<!-- (docs-test|readme-example): (.*?) -->$");
    static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
    static final Pattern OPTION = Pattern.compile("(?<![\\w-])--[a-z][a-z0-9-]*");
    /** The Java examples some test compiles and runs: ReadmeExampleTest here, ReadmeRecipeTest in spark/. */
    static final Set<String> JAVA_EXAMPLES = Set.of("BulkWriteExample", "SortedWriteExample", "TableExample", "SparkWriteExample");

    record Block(Path page, int line, String info, String marker, String markerValue, String text) {
        String where() {
            return page.getFileName() + ":" + line;
        }
    }

    record Run(int status, String out, String err) {}

    static Path root;
    static Path home;
    static final Map<String, String> HELP = new HashMap<>();

    @TempDir
    static Path tmp;

    @BeforeAll
    static void unpack() throws Exception {
        root = Path.of("").toAbsolutePath();
        Path archive = Path.of(System.getProperty("flushline.archive"));
        assertTrue(Files.isRegularFile(archive), "mvn package builds " + archive);
        Run untar = run(tmp, List.of("tar", "xzf", archive.toString()), Map.of(), 120);
        assertEquals(0, untar.status(), untar.err());
        home = tmp.resolve("flushline-" + System.getProperty("flushline.version"));
        assertTrue(Files.isExecutable(home.resolve("bin/flushline")), "the archive has bin/flushline");
    }

    static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>();
        pages.add(root.resolve("README.md"));
        try (Stream<Path> s = Files.list(root.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** The fenced blocks of a page, each with the marker comment on the line before its fence, if any. */
    static List<Block> blocks(Path page) throws IOException {
        List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher open = FENCE.matcher(lines.get(i));
            if (!open.matches()) continue;
            int start = i;
            StringBuilder text = new StringBuilder();
            i++;
            while (i < lines.size() && !lines.get(i).startsWith("```")) text.append(lines.get(i++)).append('\n');
            assertTrue(i < lines.size(), page.getFileName() + ":" + (start + 1) + ": a code block is never closed");
            String marker = null, value = null;
            if (start > 0) {
                Matcher m = MARKER.matcher(lines.get(start - 1).strip());
                if (m.matches()) {
                    marker = m.group(1);
                    value = m.group(2);
                }
            }
            blocks.add(new Block(page, start + 1, open.group(1), marker, value, text.toString()));
        }
        return blocks;
    }

    @Test
    void everyBlockIsOfAKnownKind() throws IOException {
        List<String> problems = kindProblems(pages());
        assertTrue(problems.isEmpty(), String.join("\n", problems));
        int count = 0;
        for (Path page : pages()) count += blocks(page).size();
        assertTrue(count > 50, "found only " + count + " code blocks");
    }

    static List<String> kindProblems(List<Path> pages) throws IOException {
        List<String> problems = new ArrayList<>();
        for (Path page : pages) {
            for (Block b : blocks(page)) {
                String v = b.markerValue() == null ? "" : b.markerValue();
                switch (b.info()) {
                    case "sh" -> {
                        if (b.marker() != null && !(v.equals("node") || v.matches("not run: \\S.{10,}"))) {
                            problems.add(b.where() + ": an sh block's marker is 'node' or 'not run: REASON', not " + v);
                        }
                    }
                    case "usage" -> {
                        if (!b.text().lines().anyMatch(l -> command(l) != null)) problems.add(b.where() + ": a usage block without a flushline command");
                    }
                    case "text" -> {
                        if (b.marker() != null && !(v.equals("output") || v.startsWith("file "))) {
                            problems.add(b.where() + ": a text block's marker is 'output' or 'file PATH', not " + v);
                        }
                    }
                    case "java" -> {
                        if (!"readme-example".equals(b.marker()) || !JAVA_EXAMPLES.contains(v)) {
                            problems.add(b.where() + ": a java block needs <!-- readme-example: Name --> naming one of " + JAVA_EXAMPLES);
                        } else if (!b.text().contains("public class " + v + " ")) {
                            problems.add(b.where() + ": the example " + v + " does not declare public class " + v);
                        }
                    }
                    case "xml" -> {
                        if (!"pom".equals(v)) problems.add(b.where() + ": an xml block is marked <!-- docs-test: pom -->");
                    }
                    default -> problems.add(b.where() + ": a code block of kind '" + b.info() + "' (expected sh, usage, text, java or xml)");
                }
            }
        }
        return problems;
    }

    /** Every Java example marker names an example once across all the pages (the tests find it by name). */
    @Test
    void everyJavaExampleIsThereOnce() throws IOException {
        Map<String, Integer> seen = new HashMap<>();
        for (Path page : pages()) {
            for (Block b : blocks(page)) if ("java".equals(b.info()) && b.markerValue() != null) seen.merge(b.markerValue(), 1, Integer::sum);
        }
        for (String name : JAVA_EXAMPLES) assertEquals(1, seen.getOrDefault(name, 0), name + " appears once in README.md and docs/");
    }

    @Test
    void linksResolve() throws IOException {
        List<String> broken = linkProblems(pages(), root);
        assertTrue(broken.isEmpty(), "broken links:\n" + String.join("\n", broken));
    }

    /** Links of the pages that lead nowhere: a missing file (or one outside {@code base}), or a missing anchor. */
    static List<String> linkProblems(List<Path> pages, Path base) throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path page : pages) {
            List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
            boolean fenced = false;
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).startsWith("```")) fenced = !fenced;
                if (fenced) continue;
                Matcher m = LINK.matcher(lines.get(i));
                while (m.find()) {
                    String target = m.group(1);
                    if (target.matches("^[a-z]+:.*")) continue; // http(s), mailto: not ours to check offline
                    String file = target, anchor = null;
                    int hash = target.indexOf('#');
                    if (hash >= 0) {
                        file = target.substring(0, hash);
                        anchor = target.substring(hash + 1);
                    }
                    Path to = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                    String where = page.getFileName() + ":" + (i + 1) + ": " + target;
                    if (!to.startsWith(base) || !Files.exists(to)) {
                        broken.add(where + " (no " + to + ")");
                    } else if (anchor != null && !anchors(to).contains(anchor)) {
                        broken.add(where + " (no heading with anchor #" + anchor + " in " + base.relativize(to) + ")");
                    }
                }
            }
        }
        return broken;
    }

    /** GitHub's heading anchors: lower case, punctuation dropped but '-' and '_', spaces to '-', repeats numbered. */
    static Set<String> anchors(Path page) throws IOException {
        Set<String> out = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean fenced = false;
        for (String line : Files.readAllLines(page, StandardCharsets.UTF_8)) {
            if (line.startsWith("```")) fenced = !fenced;
            if (fenced || !line.startsWith("#")) continue;
            String title = line.replaceFirst("^#+\\s*", "").strip().toLowerCase(Locale.ROOT);
            StringBuilder slug = new StringBuilder();
            for (int k = 0; k < title.length(); k++) {
                char c = title.charAt(k);
                if (Character.isLetterOrDigit(c) || c == '-' || c == '_') slug.append(c);
                else if (c == ' ') slug.append('-');
            }
            String s = slug.toString();
            int n = seen.merge(s, 1, Integer::sum);
            out.add(n == 1 ? s : s + "-" + (n - 1));
        }
        return out;
    }

    /**
     * The flushline command a line runs, with its sub-command ("bench compact", "compaction-stress
     * write"), or null: a line whose first word is flushline, scripts/flushline or bin/flushline.
     */
    static String command(String line) {
        String t = line.strip();
        if (t.startsWith("$ ")) t = t.substring(2);
        String[] w = t.split("\\s+");
        if (w.length < 2 || !w[0].matches("(scripts/|bin/)?flushline")) return null;
        if (w[1].startsWith("-") || w[1].startsWith("<")) return "";
        if (w.length > 2 && w[1].equals("bench") && (w[2].equals("compact") || w[2].equals("lookup"))) return "bench " + w[2];
        if (w.length > 2 && w[1].equals("compaction-stress") && !w[2].startsWith("-")) return "compaction-stress";
        return w[1];
    }

    static String help(String command) throws Exception {
        String cached = HELP.get(command);
        if (cached != null) return cached;
        List<String> cmd = new ArrayList<>();
        cmd.add(home.resolve("bin/flushline").toString());
        if (!command.isEmpty()) cmd.addAll(List.of(command.split(" ")));
        cmd.add("--help");
        Run r = run(tmp, cmd, Map.of(), 120);
        assertEquals(0, r.status(), "flushline " + command + " --help: " + r.err());
        HELP.put(command, r.out());
        return r.out();
    }

    /** Commands a help text does not hold: bench compact's and bench lookup's options come from the jmh module, which the archive lacks. */
    static boolean checkable(String command) {
        return !command.equals("bench compact") && !command.equals("bench lookup");
    }

    @Test
    void everyDocumentedOptionIsOneTheCommandTakes() throws Exception {
        List<String> problems = optionProblems(pages());
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }

    static List<String> optionProblems(List<Path> pages) throws Exception {
        List<String> problems = new ArrayList<>();
        String launcher = help("");
        for (Path page : pages) {
            for (Block b : blocks(page)) {
                if (!b.info().equals("sh") && !b.info().equals("usage")) continue;
                // a usage line may continue on the lines below it, indented
                String current = null;
                for (String line : b.text().split("\n")) {
                    String c = command(line);
                    if (c != null) current = c;
                    else if (!line.startsWith(" ")) current = null;
                    if (current == null) continue;
                    if (!current.isEmpty() && checkable(current)
                            && !launcher.contains("\n  " + current.split(" ")[0] + " ")) {
                        problems.add(b.where() + ": flushline has no command " + current);
                        continue;
                    }
                    if (!checkable(current)) continue;
                    String text = line.contains("#") && !line.contains("'#") ? line.substring(0, line.indexOf('#')) : line;
                    Matcher m = OPTION.matcher(text);
                    String help = help(current);
                    while (m.find()) {
                        if (!Pattern.compile("(?m)(^|[\\s\\[(,])" + Pattern.quote(m.group()) + "(?![\\w-])").matcher(help).find()) {
                            problems.add(b.where() + ": flushline " + current + " --help lists no " + m.group());
                        }
                    }
                }
            }
        }
        return problems;
    }

    @Test
    void theSetUpCommandsAreWhatCiRunsAndACommandTheLauncherHas() throws Exception {
        Block setup = null;
        for (Block b : blocks(root.resolve("README.md"))) {
            if (b.info().equals("sh") && b.text().contains("mvn -B -ntp verify")) setup = b;
        }
        assertTrue(setup != null, "the README shows the two set-up commands");
        assertTrue(setup.markerValue() != null && setup.markerValue().startsWith("not run: "), "they are marked as not run");
        List<String> commands = setup.text().lines().filter(l -> !l.isBlank()).toList();
        assertEquals(2, commands.size(), "exactly two set-up commands: " + commands);
        List<String> ci = Files.readAllLines(root.resolve(".ci/run")).stream()
                .filter(l -> !l.isBlank() && !l.startsWith("#") && !l.startsWith("set ") && !l.startsWith("cd ")).toList();
        assertEquals(List.of(commands.get(1)), ci, ".ci/run runs the README's test command, and only it");
        assertEquals("scripts/flushline bench", commands.get(0));
        assertTrue(help("").contains("\n  bench "), "bench is a command of the launcher");
        assertTrue(help("bench").startsWith("Usage: flushline bench"), help("bench"));
    }

    @Test
    void theInstallBlocksNameThisBuild() throws Exception {
        String version = System.getProperty("flushline.version");
        boolean sawArchive = false, sawPom = false;
        for (Path page : pages()) {
            for (Block b : blocks(page)) {
                if (b.info().equals("sh") && b.text().contains("tar xzf")) {
                    sawArchive = true;
                    assertTrue(b.text().contains("target/flushline-" + version + ".tar.gz") && b.text().contains("cd flushline-" + version + "\n"),
                            b.where() + ": the archive is target/flushline-" + version + ".tar.gz, unpacked into flushline-" + version);
                    assertTrue(b.text().contains("mvn -B -ntp package -DskipTests"), b.where());
                }
                if (b.info().equals("xml")) {
                    sawPom = true;
                    String x = b.text().replaceAll("\\s+", "");
                    assertTrue(x.contains("<groupId>dev.flushline</groupId><artifactId>flushline</artifactId><version>" + version + "</version>"),
                            b.where() + ": the dependency is dev.flushline:flushline:" + version);
                }
            }
        }
        assertTrue(sawArchive && sawPom);
        String dist = Files.readString(root.resolve("src/dist/README.md"));
        for (String example : List.of("examples/table.cql", "examples/ops.jsonl", "examples/orders.csv")) {
            assertTrue(dist.contains(example), "the archive's README uses " + example);
        }
    }

    /** Each page's commands, run in order in a directory of its own. */
    @Test
    void everyPageRunsAsWritten() throws Exception {
        List<String> failures = new ArrayList<>();
        int[] counts = runPages(pages(), "page-", failures);
        assertTrue(failures.isEmpty(), String.join("\n\n", failures));
        assertTrue(counts[0] >= 8 && counts[1] >= 5, "ran " + counts[0] + " blocks, matched " + counts[1] + " outputs");
    }

    /** Runs the pages' blocks into {@code failures}; returns the sh blocks run and the outputs matched. */
    static int[] runPages(List<Path> pages, String prefix, List<String> failures) throws Exception {
        int ran = 0, outputs = 0;
        DocsNode node = null;
        try {
            for (Path page : pages) {
                String name = page.getFileName().toString().replace(".md", "");
                Path work = Files.createDirectories(tmp.resolve(prefix + name));
                Files.createDirectories(work.resolve("bin"));
                Files.createDirectories(work.resolve("scripts"));
                Files.createSymbolicLink(work.resolve("bin/flushline"), home.resolve("bin/flushline"));
                Files.createSymbolicLink(work.resolve("scripts/flushline"), home.resolve("bin/flushline"));
                Files.createDirectories(work.resolve("examples"));
                for (String f : List.of("table.cql", "ops.jsonl", "orders.csv")) {
                    Files.copy(root.resolve("examples").resolve(f), work.resolve("examples").resolve(f));
                }
                Run last = null;
                Block lastRun = null;
                for (Block b : blocks(page)) {
                    String v = b.markerValue() == null ? "" : b.markerValue();
                    if (b.info().equals("text") && v.startsWith("file ")) {
                        String file = v.substring("file ".length()).strip();
                        Path inRepo = root.resolve(file).normalize();
                        if (inRepo.startsWith(root) && Files.isRegularFile(inRepo)) {
                            if (!Files.readString(inRepo, StandardCharsets.UTF_8).equals(b.text())) {
                                failures.add(b.where() + ": the block is not what " + file + " holds");
                            }
                        } else {
                            Path to = work.resolve(file).normalize();
                            assertTrue(to.startsWith(work), b.where() + ": " + file + " is outside the page's directory");
                            Files.createDirectories(to.getParent());
                            Files.writeString(to, b.text(), StandardCharsets.UTF_8);
                        }
                    } else if (b.info().equals("text") && v.equals("output")) {
                        outputs++;
                        if (last == null) {
                            failures.add(b.where() + ": an output block with no command run before it");
                        } else if (!matches(b.text(), last.out())) {
                            failures.add(b.where() + ": the output of " + lastRun.where() + " does not match.\nexpected:\n" + b.text()
                                    + "actual stdout:\n" + last.out() + "stderr:\n" + last.err());
                        }
                    } else if (b.info().equals("sh") && !v.startsWith("not run:")) {
                        Map<String, String> env = new HashMap<>();
                        String path = work.resolve("bin") + ":" + System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
                        if (v.equals("node")) {
                            if (node == null) node = DocsNode.start(tmp.resolve("node"));
                            path = node.bin() + ":" + path;
                        }
                        env.put("PATH", path);
                        last = run(work, List.of("bash", "-e", "-o", "pipefail", "-c", b.text()), env, 600);
                        lastRun = b;
                        ran++;
                        if (last.status() != 0) {
                            failures.add(b.where() + ": exit status " + last.status() + "\n" + b.text() + "stdout:\n" + last.out() + "stderr:\n" + last.err()
                                    + (v.equals("node") ? "\nnode log:\n" + node.logTail() : ""));
                        }
                    }
                }
            }
        } finally {
            if (node != null) node.close();
        }
        return new int[] {ran, outputs};
    }

    /** The checks above fail on a page that breaks each of them. */
    @Test
    void theChecksCatchBrokenPages() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("broken-docs"));
        Path page = dir.resolve("broken.md");
        Files.writeString(page, String.join("\n",
                "# Broken",
                "",
                "[gone](nowhere.md), [no anchor](#no-such-heading), [fine](#broken)",
                "",
                "```usage",
                "flushline load --schema table.cql --no-such-option",
                "```",
                "",
                "```sh",
                "flushline verify --schema examples/table.cql no-such-dir/",
                "```",
                "",
                "```sh",
                "flushline --version",
                "```",
                "",
                "<!-- docs-test: output -->",
                "```text",
                "flushline 0.0.0 ...",
                "```",
                "",
                "```",
                "no kind",
                "```",
                ""));
        List<Path> pages = List.of(page);
        List<String> links = linkProblems(pages, dir);
        assertEquals(2, links.size(), links.toString());
        assertTrue(links.get(0).contains("nowhere.md") && links.get(1).contains("#no-such-heading"), links.toString());
        List<String> options = optionProblems(pages);
        assertEquals(1, options.size(), options.toString());
        assertTrue(options.get(0).contains("--no-such-option"), options.toString());
        List<String> kinds = kindProblems(pages);
        assertEquals(1, kinds.size(), kinds.toString());
        List<String> failures = new ArrayList<>();
        runPages(pages, "broken-", failures);
        assertEquals(2, failures.size(), failures.toString());
        assertTrue(failures.get(0).contains("exit status 1"), failures.get(0));
        assertTrue(failures.get(1).contains("does not match"), failures.get(1));
    }

    /** The archive's own README (src/dist/README.md): its commands run as written in the unpacked archive. */
    @Test
    void theArchiveReadmeRunsInTheArchive() throws Exception {
        Path readme = home.resolve("README.md");
        assertTrue(!Files.readString(readme).contains("${"), "the archive's README is filtered: " + readme);
        int ran = 0;
        for (Block b : blocks(readme)) {
            assertEquals("sh", b.info(), b.where() + ": the archive README's blocks are commands");
            Run r = run(home, List.of("bash", "-e", "-o", "pipefail", "-c", b.text()), Map.of(), 600);
            assertEquals(0, r.status(), b.where() + ":\n" + b.text() + "stdout:\n" + r.out() + "stderr:\n" + r.err());
            assertTrue(r.out().contains("\"Shelbyville\""), "the dump shows the address field the update set: " + r.out());
            ran++;
        }
        assertEquals(1, ran);
    }

    /** Expected lines against actual ones: "..." in a line is any text, a line "..." alone any lines. */
    static boolean matches(String expected, String actual) {
        StringBuilder re = new StringBuilder();
        for (String line : expected.split("\n")) {
            if (line.equals("...")) {
                re.append("(?:[^\\n]*\\n)*?");
                continue;
            }
            String[] parts = line.split("\\.\\.\\.", -1);
            for (int i = 0; i < parts.length; i++) {
                if (i > 0) re.append("[^\\n]*");
                re.append(Pattern.quote(parts[i]));
            }
            re.append("\\n");
        }
        String text = actual.endsWith("\n") ? actual : actual + "\n";
        return Pattern.compile(re.toString()).matcher(text).matches();
    }

    @Test
    void theMatcherTellsOutputsApart() {
        assertTrue(matches("a ... c\n...\nz\n", "a b c\nx\ny\nz\n"));
        assertTrue(matches("...\nb\n...\n", "a\nb\nc\n"));
        assertTrue(!matches("a ... c\nz\n", "a b c\nx\nz\n"), "a line without ... is not skipped");
        assertTrue(!matches("a\n", "b\n"));
        assertTrue(!matches("...\nq\n...\n", "a\nb\n"));
    }

    static Run run(Path dir, List<String> cmd, Map<String, String> extraEnv, long timeoutSeconds) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
        Map<String, String> env = pb.environment();
        String path = env.getOrDefault("PATH", "/usr/bin:/bin");
        env.clear();
        env.put("PATH", path);
        env.put("JAVA_HOME", System.getProperty("java.home"));
        env.put("HOME", dir.toString());
        env.putAll(extraEnv);
        Path out = Files.createTempFile(tmp, "out", ".txt"), err = Files.createTempFile(tmp, "err", ".txt");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail(cmd + " did not end within " + timeoutSeconds + " s");
        }
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }
}

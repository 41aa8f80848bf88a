package dev.flushline.compare;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The Cassandra 6.0 peer's child JVM, seen from the benchmark: starts it, sends it one request at a time and
 * waits for its reply, and stops it. The child (dev.flushline.cassandra6.PeerMain in the jmh/cassandra6 module)
 * runs cassandra-all 6.0-alpha2 on a class path of its own, since 6.0 and the 5.0.5 loaded here cannot share
 * one; its class comment gives the protocol.
 *
 * <p>Where the child comes from: the system properties {@value #CLASSES_PROPERTY} (the module's compiled
 * classes) and {@value #CLASSPATH_PROPERTY} (a file holding its dependency class path), which scripts/flushline
 * sets after building the module when an against list names cassandra6. The child gets this JVM's
 * {@code --add-opens}/{@code --add-exports} flags (the set Cassandra needs on JDK 17) and the options in the
 * environment variable {@value #JAVA_OPTS_ENV} (scripts/flushline sets it to the options the bench itself runs
 * with, a Cassandra node's, unless it is set; without it, the JVM's defaults).
 *
 * <p>Its stderr (its logging, stack traces) is copied to ours, each line prefixed with {@code cassandra6: }.
 * While it works we wait, and while we work it waits on its stdin, so the two never compete for the cores.
 *
 * <p>Not thread-safe: one request at a time.
 */
final class Cassandra6Child implements AutoCloseable {
    static final String CLASSES_PROPERTY = "flushline.cassandra6.classes";
    static final String CLASSPATH_PROPERTY = "flushline.cassandra6.classpath";
    static final String JAVA_OPTS_ENV = "FLUSHLINE_C6_JAVA_OPTS";
    static final String MAIN = "dev.flushline.cassandra6.PeerMain";

    private final Process process;
    private final BufferedReader replies;
    private final Writer requests;
    private final PrintStream err;
    /** The child's greeting: release version, sstable format and version, storage_compatibility_mode, pid. */
    final Wire ready;

    private Cassandra6Child(Process process, BufferedReader replies, Writer requests, PrintStream err, Wire ready) {
        this.process = process;
        this.replies = replies;
        this.requests = requests;
        this.err = err;
        this.ready = ready;
    }

    /**
     * Starts the child with its work folder {@code work} and the given storage_compatibility_mode (CASSANDRA_5:
     * it writes {@code oa}; NONE: 6.0's own {@code pa}), and waits until it is ready.
     */
    static Cassandra6Child start(Path work, String storageCompatibilityMode, PrintStream err) throws IOException {
        String classes = System.getProperty(CLASSES_PROPERTY);
        String cpFile = System.getProperty(CLASSPATH_PROPERTY);
        if (classes == null || cpFile == null) {
            throw new IOException("the cassandra6 peer needs the jmh/cassandra6 module: run through scripts/flushline, which builds it "
                    + "and sets -D" + CLASSES_PROPERTY + " and -D" + CLASSPATH_PROPERTY);
        }
        Path cpPath = Path.of(cpFile);
        if (!Files.isDirectory(Path.of(classes)) || !Files.isRegularFile(cpPath)) {
            throw new IOException("the cassandra6 peer's build is missing: " + classes + " (classes) or " + cpFile
                    + " (class path file); scripts/flushline rebuilds it");
        }
        String classPath = classes + java.io.File.pathSeparator + Files.readString(cpPath).trim();
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> mine = ManagementFactory.getRuntimeMXBean().getInputArguments();
        for (int i = 0; i < mine.size(); i++) {
            String a = mine.get(i);
            if (a.startsWith("--add-opens") || a.startsWith("--add-exports")) {
                cmd.add(a);
                // "--add-opens x=y" may arrive as one argument or as two
                if ((a.equals("--add-opens") || a.equals("--add-exports")) && i + 1 < mine.size()) cmd.add(mine.get(++i));
            }
        }
        String opts = System.getenv(JAVA_OPTS_ENV);
        if (opts != null && !opts.isBlank()) for (String o : opts.trim().split("\\s+")) cmd.add(o);
        cmd.add("-cp");
        cmd.add(classPath);
        cmd.add(MAIN);
        cmd.add(Files.createDirectories(work).toString());
        cmd.add(storageCompatibilityMode);
        Process p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.PIPE).start();
        Thread copier = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
                String l;
                while ((l = r.readLine()) != null) err.println("cassandra6: " + l);
            } catch (IOException e) {
                err.println("cassandra6: (stderr lost: " + e + ")");
            }
        }, "cassandra6-stderr");
        copier.setDaemon(true);
        copier.start();
        BufferedReader replies = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        Writer requests = new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8);
        String first = protocolLine(replies, err);
        if (first == null) {
            int status = waitFor(p);
            throw new IOException("the cassandra6 peer exited (status " + status + ") before it was ready; its stderr is above");
        }
        Wire ready = Wire.decode(first);
        if (!ready.word.equals("ready")) {
            p.destroy();
            throw new IOException("the cassandra6 peer did not start: " + ready.get("message", first));
        }
        return new Cassandra6Child(p, replies, requests, err, ready);
    }

    /**
     * The next protocol line from the child's stdout, or null at its end. Anything else there (the JVM writes
     * unified logging such as -Xlog or -verbose:gc to stdout when FLUSHLINE_C6_JAVA_OPTS asks for it) is copied
     * to {@code err} and skipped.
     */
    private static String protocolLine(BufferedReader replies, PrintStream err) throws IOException {
        String line;
        while ((line = replies.readLine()) != null) {
            int tab = line.indexOf('\t');
            String word = tab < 0 ? line : line.substring(0, tab);
            if (word.equals("ready") || word.equals("ok") || word.equals("error")) return line;
            err.println("cassandra6 (stdout): " + line);
        }
        return null;
    }

    private static int waitFor(Process p) {
        try {
            if (p.waitFor(30, TimeUnit.SECONDS)) return p.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        p.destroyForcibly();
        return -1;
    }

    /** Sends {@code q} and returns the child's {@code ok} reply; an {@code error} reply or a dead child is an IOException. */
    Wire call(Wire q) throws IOException {
        requests.write(q.encode());
        requests.write('\n');
        requests.flush();
        String line = protocolLine(replies, err);
        if (line == null) {
            throw new IOException("the cassandra6 peer died during '" + q.word + "' (exit status " + waitFor(process) + "); its stderr is above");
        }
        Wire r = Wire.decode(line);
        if (r.word.equals("error")) throw new IOException("the cassandra6 peer failed '" + q.word + "': " + r.get("message", line));
        if (!r.word.equals("ok")) throw new IOException("the cassandra6 peer answered '" + q.word + "' with '" + line + "'");
        return r;
    }

    /** "Cassandra 6.0-alpha2 in a child JVM (pid N), writing big-oa, storage_compatibility_mode CASSANDRA_5, ...". */
    String describe() {
        return "Cassandra " + ready.get("version", "?") + " in a child JVM (pid " + ready.get("pid", "?") + "), writing "
                + ready.get("sstable", "?") + ", storage_compatibility_mode " + ready.get("mode", "?")
                + ", cursor_compaction_enabled by default: " + ready.get("cursorDefault", "?");
    }

    @Override
    public void close() {
        try {
            call(Wire.of("quit"));
        } catch (IOException e) {
            // it is gone already; make sure
        }
        try {
            requests.close();
        } catch (IOException e) {
            // closing our end of its stdin is only a courtesy
        }
        waitFor(process);
    }

    /**
     * One protocol line: a word, then tab-separated {@code key=value} fields; values escape backslash, tab,
     * newline and carriage return. The same encoding as the child's own copy (dev.flushline.cassandra6.Wire).
     */
    static final class Wire {
        final String word;
        final Map<String, String> fields = new LinkedHashMap<>();

        private Wire(String word) {
            this.word = word;
        }

        static Wire of(String word) {
            return new Wire(word);
        }

        Wire put(String key, Object value) {
            fields.put(key, String.valueOf(value));
            return this;
        }

        String get(String key, String dflt) {
            String v = fields.get(key);
            return v == null ? dflt : v;
        }

        String get(String key) throws IOException {
            String v = fields.get(key);
            if (v == null) throw new IOException("the cassandra6 peer's '" + word + "' reply lacks '" + key + "'");
            return v;
        }

        long getLong(String key) throws IOException {
            String v = get(key);
            try {
                return Long.parseLong(v);
            } catch (NumberFormatException e) {
                throw new IOException("the cassandra6 peer's '" + word + "' reply has '" + key + "=" + v + "', not a number");
            }
        }

        String encode() {
            StringBuilder sb = new StringBuilder(64).append(word);
            for (Map.Entry<String, String> e : fields.entrySet()) {
                sb.append('\t').append(e.getKey()).append('=');
                String s = e.getValue();
                for (int i = 0; i < s.length(); i++) {
                    char c = s.charAt(i);
                    switch (c) {
                        case '\\': sb.append("\\\\"); break;
                        case '\t': sb.append("\\t"); break;
                        case '\n': sb.append("\\n"); break;
                        case '\r': sb.append("\\r"); break;
                        default: sb.append(c);
                    }
                }
            }
            return sb.toString();
        }

        static Wire decode(String line) {
            String[] parts = line.split("\t", -1);
            Wire w = of(parts[0]);
            for (int i = 1; i < parts.length; i++) {
                int eq = parts[i].indexOf('=');
                if (eq <= 0) throw new IllegalArgumentException("malformed field " + i + " in the cassandra6 peer's line '" + line + "'");
                String s = parts[i].substring(eq + 1);
                StringBuilder sb = new StringBuilder(s.length());
                for (int k = 0; k < s.length(); k++) {
                    char c = s.charAt(k);
                    if (c != '\\' || k + 1 == s.length()) {
                        sb.append(c);
                        continue;
                    }
                    char n = s.charAt(++k);
                    sb.append(n == 't' ? '\t' : n == 'n' ? '\n' : n == 'r' ? '\r' : n);
                }
                w.fields.put(parts[i].substring(0, eq), sb.toString());
            }
            return w;
        }
    }
}

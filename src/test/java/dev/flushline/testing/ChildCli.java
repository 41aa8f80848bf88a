package dev.flushline.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code flushline} commands in child JVMs, for tests that need real processes: two writers in
 * different processes, a SIGKILL at a random moment, or a command that could hang (it is killed at
 * a deadline and the test fails, never waits for ever). The child runs {@code dev.flushline.Main}
 * on the test class path; its stdout and stderr go to files next to each other in {@code logDir}.
 */
public final class ChildCli {
    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();

    private final Process process;
    private final Path stdout, stderr;
    private final String command;

    private ChildCli(Process process, Path stdout, Path stderr, String command) {
        this.process = process;
        this.stdout = stdout;
        this.stderr = stderr;
        this.command = command;
    }

    /** Starts {@code flushline args...}; {@code name} names its output files in {@code logDir}. */
    public static ChildCli start(Path logDir, String name, String... args) throws IOException {
        return start(logDir, name, null, args);
    }

    /** As above, with {@code stdin} (a file) as the child's standard input, or none if null. */
    public static ChildCli start(Path logDir, String name, Path stdin, String... args) throws IOException {
        Files.createDirectories(logDir);
        List<String> cmd = new ArrayList<>(List.of(JAVA, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp",
                System.getProperty("java.class.path"), "dev.flushline.Main"));
        cmd.addAll(List.of(args));
        Path out = logDir.resolve(name + ".out"), err = logDir.resolve(name + ".err");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        if (stdin != null) pb.redirectInput(stdin.toFile());
        return new ChildCli(pb.start(), out, err, String.join(" ", args));
    }

    /** Waits up to {@code seconds}; past it the child is killed and this throws with its output. */
    public int await(long seconds) throws IOException, InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor();
            throw new AssertionError("flushline " + command + " did not end within " + seconds + " s; stdout:\n" + out() + "\nstderr:\n" + err());
        }
        return process.exitValue();
    }

    /** Waits up to {@code millis}; true if it ended by then (its exit status is then {@link #exitValue}). */
    public boolean awaitMillis(long millis) throws InterruptedException {
        return process.waitFor(millis, TimeUnit.MILLISECONDS);
    }

    public int exitValue() {
        return process.exitValue();
    }

    /** SIGKILL, then waits for the process to be gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    public String out() throws IOException {
        return Files.exists(stdout) ? Files.readString(stdout, StandardCharsets.UTF_8) : "";
    }

    public String err() throws IOException {
        return Files.exists(stderr) ? Files.readString(stderr, StandardCharsets.UTF_8) : "";
    }

    /** Runs to the end (at most {@code seconds}) and returns {status, stdout, stderr}. */
    public static Result run(Path logDir, String name, long seconds, String... args) throws IOException, InterruptedException {
        ChildCli c = start(logDir, name, args);
        int status = c.await(seconds);
        return new Result(status, c.out(), c.err());
    }

    public record Result(int status, String out, String err) {}
}

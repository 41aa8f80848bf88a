package dev.flushline.node;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Cassandra's own bulk loader, {@code sstableloader}: the class its script runs,
 * {@code org.apache.cassandra.tools.BulkLoader} from cassandra-all 5.0.9, in a child JVM with the
 * arguments a user gives it ({@code -d} a node, {@code -p} the native port, {@code -sp} the storage
 * port, the table directory). It asks the cluster for the ring through the native protocol and
 * streams each sstable's sections to the replicas of their token ranges.
 *
 * <p>{@link Result#succeeded} holds only when the loader exited 0 and named no host it failed to
 * stream to; the hosts it names after "Streaming to the following hosts failed:" are in
 * {@link Result#failedHosts}. A loader that does not end within the bound is killed and reported
 * as such, never waited for without end.
 */
final class BulkLoad {
    private static final Pattern FAILED_HOST = Pattern.compile("/?([0-9a-fA-F.:]+?):(\\d+)");

    private BulkLoad() {}

    /** What one run of the loader did. */
    record Result(int exitCode, boolean timedOut, List<String> failedHosts, String output, Path log) {
        boolean succeeded() {
            return exitCode == 0 && !timedOut && failedHosts.isEmpty();
        }

        /** For failure messages: exit status, failed hosts, and the output's tail. */
        String describe() {
            List<String> lines = output.lines().filter(l -> !l.startsWith("progress: ") && !l.startsWith("\rprogress: ")).toList();
            return "sstableloader " + (timedOut ? "did not end in time" : "exited with " + exitCode) + ", failed hosts " + failedHosts
                    + " (log " + log + "):\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        }
    }

    /**
     * {@code sstableloader -d <host> -p <native port> -sp <storage port> <tableDir>}, with
     * {@code classpath} (cassandra-all and its dependencies) for the loader's JVM.
     */
    static Result run(CassandraCluster cluster, String host, Path tableDir, String classpath, Path workDir, long timeoutSeconds)
            throws IOException, InterruptedException {
        Tool t = tool("org.apache.cassandra.tools.BulkLoader", List.of("-d", host, "-p", Integer.toString(cluster.nativePort), "-sp",
                Integer.toString(cluster.storagePort), tableDir.toString()), classpath, workDir, timeoutSeconds);
        String output = t.stdout() + t.stderr();
        return new Result(t.exitCode(), t.timedOut(), failedHosts(output), output, t.log());
    }

    /** What a run of one of Cassandra's tools did: exit status (-1 when killed at the bound), its output, and where that is. */
    record Tool(int exitCode, boolean timedOut, String stdout, String stderr, Path log) {}

    /**
     * Runs one of cassandra-all's tools ({@code mainClass} with {@code args}, as its script would) in a
     * child JVM on {@code classpath}, its output in a log file under {@code workDir}; killed if it
     * does not end within {@code timeoutSeconds}.
     */
    static Tool tool(String mainClass, List<String> args, String classpath, Path workDir, long timeoutSeconds)
            throws IOException, InterruptedException {
        Files.createDirectories(workDir);
        Path logback = workDir.resolve("tool-logback.xml");
        Files.writeString(logback, String.join("\n",
                "<configuration>",
                "  <appender name=\"ERR\" class=\"ch.qos.logback.core.ConsoleAppender\">",
                "    <target>System.err</target>",
                "    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{30} - %msg%n</pattern></encoder>",
                "  </appender>",
                "  <root level=\"WARN\"><appender-ref ref=\"ERR\"/></root>",
                "</configuration>", ""));
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx256m");
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.startsWith("--add-opens") || arg.startsWith("--add-exports")) cmd.add(arg);
        }
        cmd.add("-Dlogback.configurationFile=" + logback);
        cmd.add("-Dcassandra.storagedir=" + workDir);
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add(mainClass);
        cmd.addAll(args);
        String name = mainClass.substring(mainClass.lastIndexOf('.') + 1);
        Path log = Files.createTempFile(workDir, name + "-", ".log");
        Path err = log.resolveSibling(log.getFileName() + ".stderr");
        Process p = new ProcessBuilder(cmd).redirectOutput(log.toFile()).redirectError(err.toFile()).start();
        boolean ended = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
        if (!ended) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        return new Tool(ended ? p.exitValue() : -1, !ended, Files.readString(log, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8), log);
    }

    /** The hosts listed on the line after "Streaming to the following hosts failed:", e.g. {@code [/127.0.0.3:7000]}. */
    static List<String> failedHosts(String output) {
        List<String> hosts = new ArrayList<>();
        List<String> lines = output.lines().toList();
        for (int i = 0; i + 1 < lines.size(); i++) {
            if (!lines.get(i).contains("Streaming to the following hosts failed:")) continue;
            Matcher m = FAILED_HOST.matcher(lines.get(i + 1));
            while (m.find()) hosts.add(m.group(1));
        }
        return hosts;
    }
}

package dev.flushline.oracle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Runs Cassandra 5.0.9's sstabledump ({@code org.apache.cassandra.tools.SSTableExport}) in a child
 * JVM on the test class path and returns its standard output. The tool calls System.exit and
 * initializes Cassandra in tool mode, which reads a cassandra.yaml: it gets a minimal one with
 * {@code storage_compatibility_mode: NONE} (else it refuses 'oa' files) and a logback
 * configuration that keeps logging off stdout. Its clock is pinned to {@link FixedClock#FIXED_MILLIS},
 * so "expired" flags are reproducible.
 */
public final class SSTableDumpOracle {
    private SSTableDumpOracle() {}

    public record Output(int status, String stdout, String stderr) {
        /**
         * What flushline dump prints for the same sstable and options: sstabledump's stdout, with the
         * newline flushline dump ends its JSON document and its last JSON Lines line with (sstabledump
         * ends without one; -d lines end with one in both, and an empty JSON Lines dump is empty in both).
         */
        public String asFlushlinePrints(String... options) {
            if (List.of(options).contains("-d") || stdout.isEmpty()) return stdout;
            return stdout + (List.of(options).contains("-l") ? "\n" : System.lineSeparator());
        }
    }

    public static Output run(Path workDir, String... args) {
        return launch(workDir, "org.apache.cassandra.tools.SSTableExport", Arrays.asList(args),
                workDir.resolve("stdout"));
    }

    /**
     * Runs the tool once per argument list, all in one child JVM (see {@link ExportMany}), and
     * returns each run's output in order; stderr is the JVM's, shared by all runs.
     */
    public static List<Output> runMany(Path workDir, List<String[]> argLists) {
        try {
            Files.createDirectories(workDir);
            StringBuilder jobs = new StringBuilder();
            for (int i = 0; i < argLists.size(); i++) {
                jobs.append(workDir.resolve("out-" + i).toString());
                for (String a : argLists.get(i)) {
                    if (a.contains("\t") || a.contains("\n")) throw new IllegalArgumentException("argument with a tab or newline: " + a);
                    jobs.append('\t').append(a);
                }
                jobs.append('\n');
            }
            Path jobsFile = Files.writeString(workDir.resolve("jobs.tsv"), jobs.toString());
            Output whole = launch(workDir, ExportMany.class.getName(), List.of(jobsFile.toString()), workDir.resolve("stdout"));
            if (whole.status() != 0) throw new IllegalStateException("the dump JVM exited with " + whole.status() + ": " + whole.stderr());
            List<Output> outputs = new ArrayList<>();
            for (int i = 0; i < argLists.size(); i++) {
                Path out = workDir.resolve("out-" + i);
                Path status = workDir.resolve("out-" + i + ".status");
                if (!Files.exists(status)) throw new IllegalStateException("job " + i + " did not run: " + whole.stderr());
                outputs.add(new Output(Integer.parseInt(Files.readString(status).trim()), Files.readString(out, StandardCharsets.UTF_8),
                        whole.stderr()));
            }
            return outputs;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Output launch(Path workDir, String mainClass, List<String> args, Path stdout) {
        try {
            Files.createDirectories(workDir);
            Path yaml = workDir.resolve("cassandra.yaml");
            Files.writeString(yaml, String.join("\n",
                    "cluster_name: dump",
                    "partitioner: org.apache.cassandra.dht.Murmur3Partitioner",
                    "storage_compatibility_mode: NONE",
                    "data_file_directories: [" + workDir.resolve("data") + "]",
                    "local_system_data_file_directory: " + workDir.resolve("system"),
                    "commitlog_directory: " + workDir.resolve("commitlog"),
                    "hints_directory: " + workDir.resolve("hints"),
                    "saved_caches_directory: " + workDir.resolve("saved_caches"),
                    "cdc_raw_directory: " + workDir.resolve("cdc_raw"),
                    "commitlog_sync: periodic",
                    "commitlog_sync_period: 10000ms",
                    "endpoint_snitch: SimpleSnitch",
                    "seed_provider:",
                    "  - class_name: org.apache.cassandra.locator.SimpleSeedProvider",
                    "    parameters:",
                    "      - seeds: \"127.0.0.1:7000\"",
                    ""));
            Path logback = workDir.resolve("logback-dump.xml");
            Files.writeString(logback, "<configuration><root level=\"OFF\"/></configuration>\n");
            List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            cmd.add("-cp");
            cmd.add(System.getProperty("java.class.path"));
            cmd.addAll(Arrays.asList(jvmFlags()));
            cmd.add("-Xmx512m");
            cmd.add("-Dcassandra.config=" + yaml.toUri());
            cmd.add("-Dlogback.configurationFile=" + logback.toUri());
            cmd.add("-Dcassandra.storagedir=" + workDir);
            cmd.add("-Dcassandra.clock=" + FixedClock.class.getName());
            cmd.add("-Djava.security.manager=allow"); // ExportMany's exit trap; the tool alone never needs it
            cmd.add(mainClass);
            cmd.addAll(args);
            Path out = stdout, err = workDir.resolve("stderr");
            Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            int status = p.waitFor();
            return new Output(status, Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The cassandra.jvm.flags of pom.xml, which surefire passes to this JVM too. */
    static String[] jvmFlags() {
        List<String> flags = new ArrayList<>();
        for (String a : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (a.startsWith("--add-opens") || a.startsWith("--add-exports")) flags.add(a);
        }
        return flags.toArray(new String[0]);
    }
}

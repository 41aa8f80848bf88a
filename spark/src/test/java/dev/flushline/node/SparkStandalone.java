package dev.flushline.node;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Spark standalone cluster on 127.0.0.1, each part its own JVM as on real machines: a master
 * ({@code org.apache.spark.deploy.master.Master}) and workers
 * ({@code org.apache.spark.deploy.worker.Worker}, one core and 1 GiB each, their own work
 * directories), started from Spark's jars alone. Jobs go in through
 * {@code org.apache.spark.deploy.SparkSubmit}, the class {@code bin/spark-submit} ends in, with
 * {@code --master spark://127.0.0.1:PORT}; each worker starts the job's executors as child JVMs.
 *
 * <p>A worker builds its executors' command from SPARK_HOME, so {@link #start} lays out what a
 * Spark installation holds: {@code jars/} (links to the jars of {@code sparkClasspath}) and
 * {@code conf/}. Nothing of Flushline is in it: jobs bring it with {@code --jars}.
 *
 * <p>Every wait is bounded; {@link #close} kills every process it started and their children (the
 * executors), also on a failed start.
 *
 * <p>Thread safety: one test thread.
 */
final class SparkStandalone implements AutoCloseable {
    final Path home;
    final Path sparkHome;
    final String masterUrl;
    private final String classpath;
    private final List<String> jvmFlags;
    private final List<Process> processes = new ArrayList<>();
    private Process master;
    private final List<Process> workers = new ArrayList<>();
    final List<Path> workerDirs = new ArrayList<>();
    final List<Path> workerLogs = new ArrayList<>();
    Path masterLog;

    private SparkStandalone(Path home, Path sparkHome, String masterUrl, String classpath, List<String> jvmFlags) {
        this.home = home;
        this.sparkHome = sparkHome;
        this.masterUrl = masterUrl;
        this.classpath = classpath;
        this.jvmFlags = jvmFlags;
    }

    /** Starts a master and {@code workers} workers, and waits (bounded) until the master has registered them all. */
    static SparkStandalone start(Path home, String sparkClasspath, List<String> jvmFlags, int workers) throws Exception {
        Path sparkHome = Files.createDirectories(home.resolve("spark-home"));
        Path jars = Files.createDirectories(sparkHome.resolve("jars"));
        Files.createDirectories(sparkHome.resolve("conf"));
        for (String entry : sparkClasspath.split(java.io.File.pathSeparator)) {
            Path jar = Paths.get(entry);
            Path link = jars.resolve(jar.getFileName());
            if (Files.exists(link)) continue;
            try {
                Files.createSymbolicLink(link, jar);
            } catch (IOException | UnsupportedOperationException noLinks) {
                Files.copy(jar, link);
            }
        }
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            port = s.getLocalPort();
        }
        SparkStandalone spark = new SparkStandalone(home, sparkHome, "spark://127.0.0.1:" + port, sparkClasspath, jvmFlags);
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            spark.masterLog = home.resolve("master.log");
            spark.master = spark.launch("org.apache.spark.deploy.master.Master", List.of("--host", "127.0.0.1", "--port",
                    Integer.toString(port), "--webui-port", "0"), spark.masterLog, "256m");
            spark.awaitLog(spark.master, spark.masterLog, "I have been elected leader", 1, deadline);
            for (int i = 0; i < workers; i++) {
                Path dir = Files.createDirectories(home.resolve("worker" + (i + 1)));
                Path log = home.resolve("worker" + (i + 1) + ".log");
                spark.workerDirs.add(dir);
                spark.workerLogs.add(log);
                spark.workers.add(spark.launch("org.apache.spark.deploy.worker.Worker", List.of("--host", "127.0.0.1", "--cores", "1",
                        "--memory", "1g", "--work-dir", dir.toString(), "--webui-port", "0", spark.masterUrl), log, "256m"));
            }
            spark.awaitLog(spark.master, spark.masterLog, "Registering worker", workers, deadline);
        } catch (Throwable e) {
            String logs = spark.logTails(40);
            spark.close();
            throw new IllegalStateException("the Spark standalone cluster did not start: " + e + "\n" + logs, e);
        }
        return spark;
    }

    /** The environment a Spark installation's scripts give its JVMs. */
    private void environment(ProcessBuilder pb) {
        pb.environment().put("SPARK_HOME", sparkHome.toString());
        pb.environment().put("SPARK_SCALA_VERSION", "2.13");
        pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    }

    private Process launch(String mainClass, List<String> args, Path log, String heap) throws IOException {
        return launch(mainClass, args, log, heap, classpath);
    }

    private Process launch(String mainClass, List<String> args, Path log, String heap, String classpath) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx" + heap);
        cmd.addAll(jvmFlags);
        // No REST submission server: it listens on a fixed port (6066) that another build may hold.
        cmd.add("-Dspark.master.rest.enabled=false");
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add(mainClass);
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        environment(pb);
        Process p = pb.start();
        processes.add(p);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> kill(p), "stop-spark-" + mainClass));
        return p;
    }

    /**
     * Starts {@code spark-submit --master <this cluster> <args>} in client mode: the driver runs in
     * the child JVM, the executors in the workers' children.
     */
    Process submit(List<String> args, Path log) throws IOException {
        return submit(args, log, null);
    }

    /**
     * As {@link #submit(List, Path)}, with {@code driverClasspath} also on the driver JVM's class
     * path: what {@code bin/spark-submit --driver-class-path} does, since in client mode the driver
     * is the JVM the script starts.
     */
    Process submit(List<String> args, Path log, String driverClasspath) throws IOException {
        List<String> all = new ArrayList<>(List.of("--master", masterUrl, "--deploy-mode", "client",
                "--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.ui.enabled=false",
                "--conf", "spark.executor.memory=512m", "--conf", "spark.executor.cores=1"));
        all.addAll(args);
        return launch("org.apache.spark.deploy.SparkSubmit", all, log, "768m",
                driverClasspath == null ? classpath : driverClasspath + java.io.File.pathSeparator + classpath);
    }

    /** Kills worker {@code i} and the executors it started (SIGKILL), as a machine that dies takes both. */
    void killWorker(int i) throws InterruptedException {
        kill(workers.get(i));
    }

    boolean workerAlive(int i) {
        return workers.get(i).isAlive();
    }

    private static void kill(Process p) {
        List<ProcessHandle> children = p.descendants().toList();
        for (ProcessHandle c : children) c.destroyForcibly();
        p.destroyForcibly();
        try {
            p.waitFor(30, TimeUnit.SECONDS);
            for (ProcessHandle c : children) c.onExit().get(30, TimeUnit.SECONDS);
        } catch (Exception ignored) {
            // best effort: the processes were sent SIGKILL
        }
    }

    /** Waits until {@code log} holds {@code count} lines containing {@code text}; fails if the process exits or the deadline passes. */
    private void awaitLog(Process p, Path log, String text, int count, long deadline) throws IOException, InterruptedException {
        while (true) {
            if (Files.exists(log)) {
                long seen = Files.readAllLines(log, StandardCharsets.UTF_8).stream().filter(l -> l.contains(text)).count();
                if (seen >= count) return;
            }
            if (!p.isAlive()) throw new IllegalStateException(log.getFileName() + ": the process exited with " + p.exitValue());
            if (System.nanoTime() > deadline) throw new IllegalStateException(log.getFileName() + ": no " + count + " lines with '" + text + "' in time");
            Thread.sleep(250);
        }
    }

    /** The stderr files of worker {@code worker}'s executors: {@code <work dir>/app-<id>/<executor id>/stderr}. */
    List<Path> executorLogs(int worker) throws IOException {
        List<Path> out = new ArrayList<>();
        try (var apps = Files.newDirectoryStream(workerDirs.get(worker), "app-*")) {
            for (Path app : apps) {
                try (var execs = Files.newDirectoryStream(app)) {
                    for (Path e : execs) if (Files.exists(e.resolve("stderr"))) out.add(e.resolve("stderr"));
                }
            }
        }
        return out;
    }

    String logTails(int lines) {
        StringBuilder sb = new StringBuilder();
        List<Path> logs = new ArrayList<>();
        if (masterLog != null) logs.add(masterLog);
        logs.addAll(workerLogs);
        for (Path l : logs) {
            sb.append("---- ").append(l).append(" ----\n");
            try {
                List<String> all = Files.readAllLines(l, StandardCharsets.UTF_8);
                sb.append(String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()))).append('\n');
            } catch (IOException e) {
                sb.append("(").append(e).append(")\n");
            }
        }
        return sb.toString();
    }

    /** Kills every process this cluster started, with their children, workers first. */
    @Override
    public void close() {
        for (int i = processes.size() - 1; i >= 0; i--) kill(processes.get(i));
    }
}

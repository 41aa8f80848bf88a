package dev.flushline.node;

import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A real Cassandra 5.0.9 node (cassandra-all from the test classpath) in a child JVM, bound to
 * 127.0.0.1 only, with every directory under one temp folder and free ports.
 *
 * <p>Why a child JVM: other tests in the surefire JVM put cassandra-all into client mode
 * ({@code DatabaseDescriptor.clientInitialization()}), after which a daemon cannot start in that
 * JVM; the daemon also leaves non-daemon threads and static state behind. In a child process the
 * node is isolated, and this test talks to it the way an operator's tools do: CQL over the native
 * protocol (the Java driver) and {@code nodetool import} over JMX.
 */
final class CassandraNode implements AutoCloseable {
    final Path home;
    final int nativePort;
    final int storagePort;
    final int jmxPort;
    final Path log;
    private final Process process;

    private CassandraNode(Path home, int nativePort, int storagePort, int jmxPort, Path log, Process process) {
        this.home = home;
        this.nativePort = nativePort;
        this.storagePort = storagePort;
        this.jmxPort = jmxPort;
        this.log = log;
        this.process = process;
    }

    /** Starts the node and waits (bounded) until its native transport accepts connections. */
    static CassandraNode start(Path home) throws IOException, InterruptedException {
        return start(home, "NONE");
    }

    /** As {@link #start(Path)}, with {@code storage_compatibility_mode} (NONE, CASSANDRA_4, UPGRADING). */
    static CassandraNode start(Path home, String storageCompatibilityMode) throws IOException, InterruptedException {
        int[] ports = freePorts(3);
        int nativePort = ports[0], storagePort = ports[1], jmxPort = ports[2];
        Files.createDirectories(home);
        Path yaml = home.resolve("cassandra.yaml");
        Files.writeString(yaml, yaml(home, nativePort, storagePort, storageCompatibilityMode));
        Path logback = home.resolve("logback.xml");
        Files.writeString(logback, LOGBACK);
        Path log = home.resolve("node.log");

        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xms512m");
        cmd.add("-Xmx1g");
        cmd.add("-XX:+UseG1GC");
        cmd.add("-XX:+ExitOnOutOfMemoryError");
        // The --add-opens/--add-exports that cassandra-all needs on JDK 17: the same ones the pom
        // gives this surefire JVM (cassandra.jvm.flags), copied from our own command line.
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.startsWith("--add-opens") || arg.startsWith("--add-exports")) cmd.add(arg);
        }
        cmd.add("-Dcassandra.config=" + yaml.toUri());
        cmd.add("-Dcassandra-foreground=yes");
        cmd.add("-Dcassandra.storagedir=" + home);
        cmd.add("-Dcassandra.logdir=" + home);
        cmd.add("-Dlogback.configurationFile=" + logback);
        // nodetool's way in: JMX bound to the loopback address only, without authentication.
        cmd.add("-Dcassandra.jmx.local.port=" + jmxPort);
        // A single fresh node has nobody to gossip with; waiting for gossip to settle only costs time.
        cmd.add("-Dcassandra.skip_wait_for_gossip_to_settle=0");
        cmd.add("-Dcassandra.superuser_setup_delay_ms=0");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("org.apache.cassandra.service.CassandraDaemon");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        // If the test JVM is stopped before close() runs (surefire timeout, Ctrl-C), the node must not outlive it.
        Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly, "stop-cassandra-node"));
        CassandraNode node = new CassandraNode(home, nativePort, storagePort, jmxPort, log, p);
        try {
            node.awaitNativePort(TimeUnit.SECONDS.toNanos(150));
        } catch (IOException | RuntimeException e) {
            node.close();
            throw e;
        }
        return node;
    }

    private void awaitNativePort(long timeoutNanos) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException("Cassandra node exited with code " + process.exitValue()
                        + " before its native port opened; its log:\n" + tail(80));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", nativePort), 500);
                return;
            } catch (IOException notYet) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("Cassandra node did not open native port " + nativePort
                            + " in time; its log:\n" + tail(80));
                }
                Thread.sleep(250);
            }
        }
    }

    /**
     * What {@code nodetool import ks table dir...} does: ColumnFamilyStoreMBean.importNewSSTables
     * over JMX, with nodetool's defaults (reset level, clear repaired, verify sstables and tokens,
     * invalidate caches) plus extended verify (every value is checked against its type), moving
     * the files rather than copying them. Returns the directories the node refused (empty when all
     * were imported); the reason for a refusal is only in the node's log, see {@link #errors}.
     */
    @SuppressWarnings("unchecked")
    List<String> importSSTables(String keyspace, String table, List<Path> dirs) throws Exception {
        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPort + "/jmxrmi");
        try (JMXConnector c = JMXConnectorFactory.connect(url)) {
            MBeanServerConnection mbs = c.getMBeanServerConnection();
            ObjectName name = new ObjectName("org.apache.cassandra.db:type=Tables,keyspace=" + keyspace + ",table=" + table);
            Set<String> paths = new HashSet<>();
            for (Path d : dirs) paths.add(d.toString());
            Object[] args = {paths, true, true, true, true, true, true, false, false, true};
            String[] sig = {Set.class.getName(), "boolean", "boolean", "boolean", "boolean", "boolean", "boolean",
                    "boolean", "boolean", "boolean"};
            return (List<String>) mbs.invoke(name, "importNewSSTables", args, sig);
        }
    }

    /** {@code nodetool flush keyspace table}: the table's memtable is flushed once this returns. */
    void flush(String keyspace, String table) throws Exception {
        storageService("forceKeyspaceFlush", new Object[] {keyspace, new String[] {table}},
                new String[] {String.class.getName(), String[].class.getName()});
    }

    /** {@code nodetool compact keyspace table}: a major compaction of the table, done once this returns. */
    void compact(String keyspace, String table) throws Exception {
        storageService("forceKeyspaceCompaction", new Object[] {false, keyspace, new String[] {table}},
                new String[] {"boolean", String.class.getName(), String[].class.getName()});
    }

    private void storageService(String operation, Object[] args, String[] signature) throws Exception {
        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPort + "/jmxrmi");
        try (JMXConnector c = JMXConnectorFactory.connect(url)) {
            c.getMBeanServerConnection().invoke(new ObjectName("org.apache.cassandra.db:type=StorageService"), operation, args, signature);
        }
    }

    /** The node's folder of a table: {@code data/<keyspace>/<table>-<id>}. */
    Path tableDirectory(String keyspace, String table) throws IOException {
        try (var dirs = Files.list(home.resolve("data").resolve(keyspace))) {
            return dirs.filter(d -> d.getFileName().toString().startsWith(table + "-")).findFirst()
                    .orElseThrow(() -> new IOException("no folder of " + keyspace + "." + table + " under " + home.resolve("data")));
        }
    }

    /** The node's ERROR log lines with their stack traces: why an import or a query failed. */
    String errors(int fromLine) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            List<String> lines = all.subList(Math.min(fromLine, all.size()), all.size());
            List<String> out = new ArrayList<>();
            boolean inError = false;
            for (String l : lines) {
                if (l.contains(" ERROR ")) {
                    inError = true;
                    out.add(l);
                } else if (inError && (l.startsWith("\t") || l.startsWith("Caused by") || l.startsWith("java.")
                        || l.startsWith("org.") || l.startsWith("  "))) {
                    out.add(l);
                } else {
                    inError = false;
                }
            }
            return out.isEmpty() ? "(no ERROR lines; see " + log + ")" : String.join("\n", out);
        } catch (IOException e) {
            return "(cannot read node log " + log + ": " + e + ")";
        }
    }

    /** How many lines the node has logged so far: pass to {@link #errors} to see only what follows. */
    int logLines() {
        try {
            return Files.readAllLines(log, StandardCharsets.UTF_8).size();
        } catch (IOException e) {
            return 0;
        }
    }

    String tail(int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return all.subList(Math.max(0, all.size() - lines), all.size()).stream().collect(Collectors.joining("\n"));
        } catch (IOException e) {
            return "(cannot read node log " + log + ": " + e + ")";
        }
    }

    /** Stops the node: SIGTERM runs its shutdown hooks (drain); bounded wait, then SIGKILL. */
    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static int[] freePorts(int n) throws IOException {
        // Hold all sockets open until every port is picked so that the n ports differ.
        ServerSocket[] sockets = new ServerSocket[n];
        int[] ports = new int[n];
        try {
            for (int i = 0; i < n; i++) {
                sockets[i] = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"));
                ports[i] = sockets[i].getLocalPort();
            }
        } finally {
            for (ServerSocket s : sockets) if (s != null) s.close();
        }
        return ports;
    }

    /**
     * The settings this test needs; everything else is Cassandra's default. storage_compatibility_mode
     * NONE is what makes 5.0 write and accept the 'oa' format family natively (the default,
     * CASSANDRA_4, keeps the node on 'nb').
     */
    static String yaml(Path home, int nativePort, int storagePort, String storageCompatibilityMode) {
        return String.join("\n",
                "cluster_name: flushline-node-test",
                "num_tokens: 1",
                "initial_token: 0",
                "partitioner: org.apache.cassandra.dht.Murmur3Partitioner",
                "storage_compatibility_mode: " + storageCompatibilityMode,
                "data_file_directories: [" + home.resolve("data") + "]",
                "local_system_data_file_directory: " + home.resolve("system"),
                "commitlog_directory: " + home.resolve("commitlog"),
                "hints_directory: " + home.resolve("hints"),
                "saved_caches_directory: " + home.resolve("saved_caches"),
                "cdc_raw_directory: " + home.resolve("cdc_raw"),
                "commitlog_sync: periodic",
                "commitlog_sync_period: 10000ms",
                "listen_address: 127.0.0.1",
                "rpc_address: 127.0.0.1",
                "storage_port: " + storagePort,
                "native_transport_port: " + nativePort,
                "start_native_transport: true",
                "endpoint_snitch: SimpleSnitch",
                "seed_provider:",
                "  - class_name: org.apache.cassandra.locator.SimpleSeedProvider",
                "    parameters:",
                "      - seeds: \"127.0.0.1:" + storagePort + "\"",
                // Small caches and pools: the node shares 2 cores with the build.
                "concurrent_reads: 4",
                "concurrent_writes: 4",
                "concurrent_compactors: 1",
                "key_cache_size: 8MiB",
                "counter_cache_size: 0MiB",
                // Imported sstables must stay as we wrote them while we read them back.
                "auto_snapshot: false",
                "");
    }

    private static final String LOGBACK = String.join("\n",
            "<configuration>",
            "  <appender name=\"OUT\" class=\"ch.qos.logback.core.ConsoleAppender\">",
            "    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{30} - %msg%n</pattern></encoder>",
            "  </appender>",
            "  <root level=\"INFO\"><appender-ref ref=\"OUT\"/></root>",
            "</configuration>",
            "");
}

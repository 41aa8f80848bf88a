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
 * A real Cassandra 5.0.9 node (cassandra-all from the test classpath) in a child JVM, with every
 * directory under one temp folder. Alone it binds 127.0.0.1 with free ports ({@link #start(Path)});
 * as a member of a {@link CassandraCluster} it binds its own loopback address with the cluster's
 * ports and tokens ({@link #start(Path, Settings)}).
 *
 * <p>Why a child JVM: other tests in the surefire JVM put cassandra-all into client mode
 * ({@code DatabaseDescriptor.clientInitialization()}), after which a daemon cannot start in that
 * JVM; the daemon also leaves non-daemon threads and static state behind. In a child process the
 * node is isolated, and this test talks to it the way an operator's tools do: CQL over the native
 * protocol (the Java driver) and {@code nodetool import} over JMX.
 */
final class CassandraNode implements AutoCloseable {
    static {
        // JMX over RMI waits for a reply without end by default; a node that hangs must fail the test instead.
        if (System.getProperty("sun.rmi.transport.tcp.responseTimeout") == null) {
            System.setProperty("sun.rmi.transport.tcp.responseTimeout", Long.toString(TimeUnit.MINUTES.toMillis(4)));
        }
    }

    final Path home;
    /** The address the node listens on for clients and other nodes. */
    final String address;
    final int nativePort;
    final int storagePort;
    final int jmxPort;
    final Path log;
    private final Process process;

    private CassandraNode(Path home, String address, int nativePort, int storagePort, int jmxPort, Path log, Process process) {
        this.home = home;
        this.address = address;
        this.nativePort = nativePort;
        this.storagePort = storagePort;
        this.jmxPort = jmxPort;
        this.log = log;
        this.process = process;
    }

    /**
     * How one node is started. The defaults are a lone node on 127.0.0.1 that owns the whole ring
     * (token 0), with SimpleSnitch; a cluster sets the rest (see {@link CassandraCluster}).
     */
    static final class Settings {
        String clusterName = "flushline-node-test";
        String address = "127.0.0.1";
        /** 0: a free port each. A cluster gives all its nodes the same native and storage ports, each on its own address. */
        int nativePort, storagePort, jmxPort;
        /** The node's tokens: num_tokens is their count, initial_token their list. */
        List<Long> tokens = List.of(0L);
        /** "address:port,..."; null: the node is its own seed. */
        String seeds;
        /** Non-null: GossipingPropertyFileSnitch with this data center and {@link #rack}; null: SimpleSnitch. */
        String datacenter;
        String rack;
        String storageCompatibilityMode = "NONE";
        String minHeap = "512m", maxHeap = "1g";
        /** The class path of the node's JVM: cassandra-all and its dependencies. */
        String classpath = System.getProperty("java.class.path");
        /** Bound on the wait for the native port to open. */
        long startTimeoutSeconds = 150;
        /** Non-null: the sstable format the node writes ({@code sstable: selected_format}), "big" or "bti"; null: the default, big. */
        String selectedFormat;
    }

    /** Starts the node and waits (bounded) until its native transport accepts connections. */
    static CassandraNode start(Path home) throws IOException, InterruptedException {
        return start(home, "NONE");
    }

    /** As {@link #start(Path)}, with {@code storage_compatibility_mode} (NONE, CASSANDRA_4, UPGRADING). */
    static CassandraNode start(Path home, String storageCompatibilityMode) throws IOException, InterruptedException {
        Settings s = new Settings();
        s.storageCompatibilityMode = storageCompatibilityMode;
        return start(home, s);
    }

    /** Starts a node as {@code settings} say and waits (bounded) until its native transport accepts connections. */
    static CassandraNode start(Path home, Settings settings) throws IOException, InterruptedException {
        CassandraNode node = launch(home, settings);
        try {
            node.awaitNativePort(TimeUnit.SECONDS.toNanos(settings.startTimeoutSeconds));
        } catch (IOException | RuntimeException | InterruptedException e) {
            node.close();
            throw e;
        }
        return node;
    }

    /** Starts the node's JVM without waiting for it; {@link #awaitNativePort} waits. */
    static CassandraNode launch(Path home, Settings settings) throws IOException {
        int[] free = freePorts(3);
        int nativePort = settings.nativePort > 0 ? settings.nativePort : free[0];
        int storagePort = settings.storagePort > 0 ? settings.storagePort : free[1];
        int jmxPort = settings.jmxPort > 0 ? settings.jmxPort : free[2];
        Files.createDirectories(home);
        Path yaml = home.resolve("cassandra.yaml");
        Files.writeString(yaml, yaml(home, settings, nativePort, storagePort));
        Path logback = home.resolve("logback.xml");
        Files.writeString(logback, LOGBACK);
        Path log = home.resolve("node.log");

        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xms" + settings.minHeap);
        cmd.add("-Xmx" + settings.maxHeap);
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
        // A fresh node has nothing to wait for in gossip: a lone one has nobody to gossip with, and a
        // cluster's test waits itself until every node sees every other.
        cmd.add("-Dcassandra.skip_wait_for_gossip_to_settle=0");
        cmd.add("-Dcassandra.superuser_setup_delay_ms=0");
        if (settings.datacenter != null) {
            Path rackdc = home.resolve("cassandra-rackdc.properties");
            Files.writeString(rackdc, "dc=" + settings.datacenter + "\nrack=" + settings.rack + "\n");
            cmd.add("-Dcassandra-rackdc.properties=" + rackdc.toUri());
        }
        cmd.add("-cp");
        cmd.add(settings.classpath);
        cmd.add("org.apache.cassandra.service.CassandraDaemon");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        // If the test JVM is stopped before close() runs (surefire timeout, Ctrl-C), the node must not outlive it.
        Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly, "stop-cassandra-node"));
        return new CassandraNode(home, settings.address, nativePort, storagePort, jmxPort, log, p);
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Waits until the native port accepts connections; fails with the log's tail if the node exits or the deadline passes. */
    void awaitNativePort(long timeoutNanos) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        while (true) {
            if (!process.isAlive()) {
                throw new IllegalStateException("Cassandra node " + address + " exited with code " + process.exitValue()
                        + " before its native port opened; its log:\n" + tail(80));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(address, nativePort), 500);
                return;
            } catch (IOException notYet) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("Cassandra node " + address + " did not open native port " + nativePort
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
    List<String> importSSTables(String keyspace, String table, List<Path> dirs) throws Exception {
        return importSSTables(keyspace, table, dirs, true);
    }

    /**
     * As {@link #importSSTables(String, String, List)}; {@code verifyTokens} false is nodetool import's
     * {@code --no-tokens}: keys the node does not replicate are taken too.
     */
    @SuppressWarnings("unchecked")
    List<String> importSSTables(String keyspace, String table, List<Path> dirs, boolean verifyTokens) throws Exception {
        return jmx(mbs -> {
            ObjectName name = new ObjectName("org.apache.cassandra.db:type=Tables,keyspace=" + keyspace + ",table=" + table);
            Set<String> paths = new HashSet<>();
            for (Path d : dirs) paths.add(d.toString());
            Object[] args = {paths, true, true, true, verifyTokens, true, true, false, false, true};
            String[] sig = {Set.class.getName(), "boolean", "boolean", "boolean", "boolean", "boolean", "boolean",
                    "boolean", "boolean", "boolean"};
            return (List<String>) mbs.invoke(name, "importNewSSTables", args, sig);
        });
    }

    /** Something done with the node's MBean server. */
    interface JmxCall<T> {
        T call(MBeanServerConnection mbs) throws Exception;
    }

    /** Runs {@code call} over a JMX connection to the node (the way nodetool reaches it). */
    <T> T jmx(JmxCall<T> call) throws Exception {
        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPort + "/jmxrmi");
        try (JMXConnector c = JMXConnectorFactory.connect(url)) {
            return call.call(c.getMBeanServerConnection());
        }
    }

    /**
     * {@code nodetool cleanup ks table}: StorageServiceMBean.forceKeyspaceCleanup with one job.
     * Returns its status: 0 done, 1 aborted, 2 unable to cancel (the values of CompactionManager's
     * AllSSTableOpStatus in that order).
     */
    int cleanup(String keyspace, String table) throws Exception {
        return jmx(mbs -> (Integer) mbs.invoke(new ObjectName("org.apache.cassandra.db:type=StorageService"), "forceKeyspaceCleanup",
                new Object[] {1, keyspace, new String[] {table}}, new String[] {"int", String.class.getName(), String[].class.getName()}));
    }

    /** {@code nodetool flush ks table}: the table's memtable to sstables. */
    void flush(String keyspace, String table) throws Exception {
        jmx(mbs -> mbs.invoke(new ObjectName("org.apache.cassandra.db:type=StorageService"), "forceKeyspaceFlush",
                new Object[] {keyspace, new String[] {table}}, new String[] {String.class.getName(), String[].class.getName()}));
    }

    /** {@code nodetool compact ks table}: a major compaction of the table, done once this returns. */
    void compact(String keyspace, String table) throws Exception {
        jmx(mbs -> mbs.invoke(new ObjectName("org.apache.cassandra.db:type=StorageService"), "forceKeyspaceCompaction",
                new Object[] {false, keyspace, new String[] {table}}, new String[] {"boolean", String.class.getName(), String[].class.getName()}));
    }

    /** The node's folder of a table, {@code data/<keyspace>/<table>-<id>}; an error if it has none yet. */
    Path tableDirectory(String keyspace, String table) throws IOException {
        Path dir = tableDataDir(keyspace, table);
        if (dir == null) throw new IOException("no folder of " + keyspace + "." + table + " under " + home.resolve("data"));
        return dir;
    }

    /**
     * The bytes of the table's live sstables on this node (the table metric LiveDiskSpaceUsed, which
     * {@code nodetool tablestats} prints as "Space used (live)").
     */
    long liveDiskSpaceUsed(String keyspace, String table) throws Exception {
        return jmx(mbs -> (Long) mbs.getAttribute(new ObjectName("org.apache.cassandra.metrics:type=Table,keyspace=" + keyspace
                + ",scope=" + table + ",name=LiveDiskSpaceUsed"), "Count"));
    }

    /** The nodes this node's gossip sees alive (StorageServiceMBean's LiveNodes, addresses without ports). */
    @SuppressWarnings("unchecked")
    List<String> liveNodes() throws Exception {
        return jmx(mbs -> (List<String>) mbs.getAttribute(new ObjectName("org.apache.cassandra.db:type=StorageService"), "LiveNodes"));
    }

    /** Bytes this node has received by streaming since it started (the metric Streaming.TotalIncomingBytes). */
    long streamedInBytes() throws Exception {
        return jmx(mbs -> {
            ObjectName name = new ObjectName("org.apache.cassandra.metrics:type=Streaming,name=TotalIncomingBytes");
            // The streaming metrics are registered with the first stream: none yet is none received.
            return mbs.isRegistered(name) ? (Long) mbs.getAttribute(name, "Count") : 0L;
        });
    }

    /** The table's directory under the node's data directory, or null before the table has one. */
    Path tableDataDir(String keyspace, String table) throws IOException {
        Path ks = home.resolve("data").resolve(keyspace);
        if (!Files.isDirectory(ks)) return null;
        try (var dirs = Files.newDirectoryStream(ks, table + "-*")) {
            for (Path d : dirs) return d;
        }
        return null;
    }

    /**
     * Every partition of the table's sstables on this node, read from its data directory with
     * cassandra-all after a flush: what the node itself holds, not what a read through it gathers
     * from other replicas. REQUIRES: background compaction off for the table (its files must stay
     * while they are read).
     */
    List<dev.flushline.oracle.Partition> readTable(String keyspace, String table, String createTableCql) throws Exception {
        flush(keyspace, table);
        Path dir = tableDataDir(keyspace, table);
        if (dir == null || liveDataFiles(keyspace, table).isEmpty()) return List.of();
        return dev.flushline.oracle.CassandraReader.readAll(dir, createTableCql);
    }

    /** The names of the table's live Data.db files on this node, sorted: which sstables it holds. */
    List<String> liveDataFiles(String keyspace, String table) throws IOException {
        Path ks = home.resolve("data").resolve(keyspace);
        List<String> out = new ArrayList<>();
        if (!Files.isDirectory(ks)) return out;
        try (var dirs = Files.newDirectoryStream(ks, table + "-*")) {
            for (Path d : dirs) {
                try (var files = Files.newDirectoryStream(d, "*-Data.db")) {
                    for (Path f : files) out.add(f.getFileName().toString());
                }
            }
        }
        out.sort(null);
        return out;
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
     * The settings these tests need; everything else is Cassandra's default. storage_compatibility_mode
     * NONE is what makes 5.0 write and accept the 'oa' format family natively (the default,
     * CASSANDRA_4, keeps the node on 'nb').
     */
    static String yaml(Path home, Settings s, int nativePort, int storagePort) {
        StringBuilder tokens = new StringBuilder();
        for (Long t : s.tokens) tokens.append(tokens.length() == 0 ? "" : ",").append(t);
        return String.join("\n",
                "cluster_name: " + s.clusterName,
                "num_tokens: " + s.tokens.size(),
                "initial_token: " + tokens,
                // A cluster's nodes join with their own tokens into an empty cluster: nothing to stream.
                "auto_bootstrap: false",
                "partitioner: org.apache.cassandra.dht.Murmur3Partitioner",
                "storage_compatibility_mode: " + s.storageCompatibilityMode,
                "data_file_directories: [" + home.resolve("data") + "]",
                "local_system_data_file_directory: " + home.resolve("system"),
                "commitlog_directory: " + home.resolve("commitlog"),
                "hints_directory: " + home.resolve("hints"),
                "saved_caches_directory: " + home.resolve("saved_caches"),
                "cdc_raw_directory: " + home.resolve("cdc_raw"),
                "commitlog_sync: periodic",
                "commitlog_sync_period: 10000ms",
                "commitlog_segment_size: 8MiB",
                "listen_address: " + s.address,
                "rpc_address: " + s.address,
                "storage_port: " + storagePort,
                "native_transport_port: " + nativePort,
                "start_native_transport: true",
                "endpoint_snitch: " + (s.datacenter != null ? "GossipingPropertyFileSnitch" : "SimpleSnitch"),
                "seed_provider:",
                "  - class_name: org.apache.cassandra.locator.SimpleSeedProvider",
                "    parameters:",
                "      - seeds: \"" + (s.seeds != null ? s.seeds : s.address + ":" + storagePort) + "\"",
                // Small caches and pools: the node shares 2 cores with the build.
                "concurrent_reads: 4",
                "concurrent_writes: 4",
                "concurrent_compactors: 1",
                "key_cache_size: 8MiB",
                "counter_cache_size: 0MiB",
                "file_cache_size: 32MiB",
                "networking_cache_size: 16MiB",
                // Imported sstables must stay as we wrote them while we read them back.
                "auto_snapshot: false",
                s.selectedFormat == null ? "" : "sstable:\n  selected_format: " + s.selectedFormat,
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

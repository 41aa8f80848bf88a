package dev.flushline.node;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.metadata.Node;
import com.datastax.oss.driver.api.core.metadata.NodeState;
import com.datastax.oss.driver.api.core.metadata.TokenMap;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Three Cassandra 5.0.9 nodes in child JVMs, one per loopback address (127.0.0.1, 127.0.0.2,
 * 127.0.0.3), in one data center {@value #DATACENTER} and two racks ({@link #RACKS}: the second
 * node alone in rack2), 16 vnodes each. Every node listens on the same native and storage ports
 * on its own address, as the nodes of a real cluster do; JMX listens on 127.0.0.1 only, so each
 * node has its own JMX port.
 *
 * <p>The tokens are fixed: {@link #tokens} places 48 tokens near even spacing around the ring
 * (jittered by a fixed seed) and hands them to the nodes in a seeded shuffled order, so the ring
 * has runs where one node owns consecutive tokens (the replica walk must skip it) and is the same
 * on every run. Every node joins with its own {@code initial_token} list and
 * {@code auto_bootstrap: false}: the cluster starts empty, so there is nothing to stream.
 *
 * <p>{@link #start} launches the seed (127.0.0.1), waits until its storage port listens, launches
 * the other two together, and waits until the driver sees all three up with all 48 tokens. Every
 * wait has a deadline; a node that dies or misses it fails the start with the tail of every
 * node's log, and the nodes already started are stopped. On a machine where 127.0.0.2 and
 * 127.0.0.3 cannot be bound (macOS without aliases, some containers), {@link #start} skips the
 * test through a JUnit assumption that says so.
 *
 * <p>{@link #close} stops every node still running and deletes the cluster's directory.
 *
 * <p>Thread safety: one test thread.
 */
final class CassandraCluster implements AutoCloseable {
    static final String DATACENTER = "dc1";
    static final String[] ADDRESSES = {"127.0.0.1", "127.0.0.2", "127.0.0.3"};
    static final String[] RACKS = {"rack1", "rack2", "rack1"};
    static final int VNODES = 16;
    /** The seed of the token placement: a fixed ring, the same on every run. */
    static final long TOKEN_SEED = 20_261_207L;
    /** Bound on the whole start, every node included; a loaded machine with 2 cores needs most of it. */
    static final long START_TIMEOUT_SECONDS = 300;

    final Path home;
    final int nativePort;
    final int storagePort;
    private final List<CassandraNode> nodes;
    private final List<CassandraNode.Settings> settings = new ArrayList<>();
    private final List<List<Long>> tokens;
    private final boolean[] stopped;

    private CassandraCluster(Path home, int nativePort, int storagePort, List<CassandraNode> nodes, List<List<Long>> tokens) {
        this.home = home;
        this.nativePort = nativePort;
        this.storagePort = storagePort;
        this.nodes = nodes;
        this.tokens = tokens;
        this.stopped = new boolean[ADDRESSES.length];
    }

    /** Starts the cluster on this JVM's class path (the root project's tests: cassandra-all's own). */
    static CassandraCluster start(Path home) throws Exception {
        return start(home, System.getProperty("java.class.path"));
    }

    /**
     * Starts the cluster with {@code classpath} for the nodes' JVMs (cassandra-all and its
     * dependencies). Skips the calling test (a JUnit assumption) when the loopback addresses cannot
     * be bound.
     */
    static CassandraCluster start(Path home, String classpath) throws Exception {
        assumeLoopbackAddresses();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
        int[] shared = portsFreeOnEveryAddress(2);
        int nativePort = shared[0], storagePort = shared[1];
        List<List<Long>> tokens = tokens(ADDRESSES.length, VNODES, TOKEN_SEED);
        List<CassandraNode> nodes = new ArrayList<>();
        CassandraCluster cluster = new CassandraCluster(home, nativePort, storagePort, nodes, tokens);
        try {
            for (int i = 0; i < ADDRESSES.length; i++) {
                CassandraNode.Settings s = new CassandraNode.Settings();
                s.clusterName = "flushline-cluster-test";
                s.address = ADDRESSES[i];
                s.nativePort = nativePort;
                s.storagePort = storagePort;
                s.tokens = tokens.get(i);
                s.seeds = ADDRESSES[0] + ":" + storagePort;
                s.datacenter = DATACENTER;
                s.rack = RACKS[i];
                s.minHeap = "256m";
                s.maxHeap = "640m";
                s.classpath = classpath;
                cluster.settings.add(s);
                nodes.add(CassandraNode.launch(home.resolve("node" + (i + 1)), s));
                if (i == 0) {
                    // The others' first gossip round goes to the seed; it must listen by then.
                    cluster.awaitPort(nodes.get(0), storagePort, deadline);
                }
            }
            for (CassandraNode n : nodes) n.awaitNativePort(Math.max(1, deadline - System.nanoTime()));
            cluster.awaitRing(deadline);
        } catch (Throwable e) {
            String logs = cluster.logTails(60);
            try {
                cluster.close();
            } catch (Exception suppressed) {
                e.addSuppressed(suppressed);
            }
            if (e instanceof org.opentest4j.TestAbortedException) throw e;
            throw new IllegalStateException("the three-node cluster did not start: " + e + "\n" + logs, e);
        }
        return cluster;
    }

    /**
     * Skips the calling test, naming the reason, unless 127.0.0.2 and 127.0.0.3 can be bound (Linux
     * routes all of 127/8 to the loopback interface; macOS needs an alias per address).
     */
    static void assumeLoopbackAddresses() {
        for (String a : ADDRESSES) {
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(a))) {
                s.getLocalPort();
            } catch (IOException e) {
                Assumptions.abort("the three-node cluster needs the loopback addresses " + String.join(", ", ADDRESSES)
                        + ", and " + a + " cannot be bound here (" + e.getMessage() + "); on macOS: sudo ifconfig lo0 alias " + a);
            }
        }
    }

    int size() {
        return nodes.size();
    }

    CassandraNode node(int i) {
        return nodes.get(i);
    }

    /** The node listening on {@code address}. */
    CassandraNode node(String address) {
        for (CassandraNode n : nodes) if (n.address.equals(address)) return n;
        throw new IllegalArgumentException("no node at " + address);
    }

    /** The tokens node {@code i} was started with. */
    List<Long> tokens(int i) {
        return tokens.get(i);
    }

    /** A driver session to the cluster through every node (data center {@value #DATACENTER}), with generous timeouts. */
    CqlSession connect() {
        var b = CqlSession.builder().withLocalDatacenter(DATACENTER)
                .withConfigLoader(DriverConfigLoader.programmaticBuilder()
                        .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, Duration.ofSeconds(60))
                        .withDuration(DefaultDriverOption.CONTROL_CONNECTION_AGREEMENT_TIMEOUT, Duration.ofSeconds(60))
                        .withDuration(DefaultDriverOption.CONNECTION_INIT_QUERY_TIMEOUT, Duration.ofSeconds(30))
                        .withDuration(DefaultDriverOption.METADATA_SCHEMA_REQUEST_TIMEOUT, Duration.ofSeconds(60))
                        .build());
        for (int i = 0; i < nodes.size(); i++) {
            if (!stopped[i]) b.addContactPoint(new InetSocketAddress(ADDRESSES[i], nativePort));
        }
        return b.build();
    }

    /** Stops node {@code i} (SIGTERM, then SIGKILL after a bound), for the tests of a node that is down. */
    void stop(int i) throws InterruptedException {
        nodes.get(i).close();
        stopped[i] = true;
    }

    /**
     * Starts node {@code i} again after {@link #stop} (same directories, tokens and ports) and waits,
     * bounded, until it is back in the ring.
     */
    void restart(int i) throws Exception {
        if (!stopped[i]) throw new IllegalStateException("node " + ADDRESSES[i] + " is running");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_TIMEOUT_SECONDS);
        CassandraNode n = CassandraNode.launch(nodes.get(i).home, settings.get(i));
        nodes.set(i, n);
        stopped[i] = false;
        try {
            n.awaitNativePort(Math.max(1, deadline - System.nanoTime()));
            awaitRing(deadline);
        } catch (Exception | Error e) {
            throw new IllegalStateException("node " + ADDRESSES[i] + " did not come back: " + e + "\n" + logTails(60), e);
        }
    }

    /** Waits until the driver sees every node up and every node knows the other two (and so the whole ring). */
    private void awaitRing(long deadline) throws Exception {
        int expectedTokens = ADDRESSES.length * VNODES;
        long expectedPeers = (long) nodes.size() * (nodes.size() - 1);
        String last = "no session yet";
        CqlSession session = null;
        try {
            while (true) {
                for (int i = 0; i < nodes.size(); i++) {
                    if (!nodes.get(i).isAlive()) throw new IllegalStateException("node " + ADDRESSES[i] + " exited while the cluster formed");
                }
                try {
                    if (session == null) session = connect();
                    int up = 0;
                    long peers = 0;
                    for (Node n : session.getMetadata().getNodes().values()) {
                        if (n.getState() != NodeState.UP) continue;
                        up++;
                        peers += session.execute(com.datastax.oss.driver.api.core.cql.SimpleStatement
                                .newInstance("SELECT peer, tokens FROM system.peers_v2").setNode(n)).all().stream()
                                .filter(row -> !row.isNull(1)).count();
                    }
                    TokenMap tm = session.getMetadata().getTokenMap().orElse(null);
                    int ringTokens = tm == null ? 0 : tm.getTokenRanges().size();
                    // And every node's gossip sees every node alive (a restarted node is up to the driver first).
                    int seenAlive = 0;
                    if (up == nodes.size()) {
                        for (CassandraNode n : nodes) seenAlive += n.liveNodes().size();
                    }
                    last = up + " of " + nodes.size() + " nodes up, " + ringTokens + " of " + expectedTokens + " tokens in the driver's ring, "
                            + peers + " of " + expectedPeers + " peers with tokens, " + seenAlive + " of " + nodes.size() * nodes.size()
                            + " live nodes seen by gossip";
                    if (up == nodes.size() && ringTokens == expectedTokens && peers == expectedPeers
                            && seenAlive == nodes.size() * nodes.size()) {
                        return;
                    }
                } catch (Exception notYet) {
                    last = notYet.toString();
                }
                if (System.nanoTime() > deadline) throw new IllegalStateException("the ring did not form in time: " + last);
                Thread.sleep(1000);
            }
        } finally {
            if (session != null) session.close();
        }
    }

    private void awaitPort(CassandraNode n, int port, long deadline) throws InterruptedException {
        while (true) {
            if (!n.isAlive()) throw new IllegalStateException("node " + n.address + " exited before its storage port opened");
            try (java.net.Socket s = new java.net.Socket()) {
                s.connect(new InetSocketAddress(n.address, port), 500);
                return;
            } catch (IOException notYet) {
                if (System.nanoTime() > deadline) throw new IllegalStateException("node " + n.address + " did not open storage port " + port);
                Thread.sleep(250);
            }
        }
    }

    /** The last {@code lines} lines of every node's log, for a failure message. */
    String logTails(int lines) {
        StringBuilder sb = new StringBuilder();
        for (CassandraNode n : nodes) sb.append("---- ").append(n.address).append(" (").append(n.log).append(") ----\n").append(n.tail(lines)).append('\n');
        return sb.toString();
    }

    /**
     * {@code nodes × vnodes} tokens: the k-th near {@code k / total} of the ring, moved by up to a
     * quarter of the spacing either way, dealt to the nodes in a shuffled order (both from
     * {@code seed}). Returns each node's tokens, sorted.
     */
    static List<List<Long>> tokens(int nodes, int vnodes, long seed) {
        Random r = new Random(seed);
        int total = nodes * vnodes;
        List<Integer> owners = new ArrayList<>();
        for (int k = 0; k < total; k++) owners.add(k % nodes);
        Collections.shuffle(owners, r);
        List<List<Long>> out = new ArrayList<>();
        for (int i = 0; i < nodes; i++) out.add(new ArrayList<>());
        double spacing = Math.pow(2, 64) / total;
        for (int k = 0; k < total; k++) {
            double at = (k + 0.5) * spacing + (r.nextDouble() - 0.5) * spacing / 2;
            long token = new java.math.BigDecimal(at).toBigInteger().add(java.math.BigInteger.valueOf(Long.MIN_VALUE)).longValueExact();
            out.get(owners.get(k)).add(token);
        }
        for (List<Long> t : out) t.sort(null);
        return out;
    }

    /** Two ports free on every address, so that every node can listen on them on its own address. */
    private static int[] portsFreeOnEveryAddress(int n) throws IOException {
        int[] ports = new int[n];
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int k = 0; k < n; k++) {
                for (int attempt = 0; ; attempt++) {
                    if (attempt > 50) throw new IOException("no port free on every one of " + String.join(", ", ADDRESSES));
                    ServerSocket first = new ServerSocket(0, 1, InetAddress.getByName(ADDRESSES[0]));
                    int port = first.getLocalPort();
                    List<ServerSocket> these = new ArrayList<>(List.of(first));
                    boolean ok = true;
                    for (int a = 1; a < ADDRESSES.length && ok; a++) {
                        try {
                            these.add(new ServerSocket(port, 1, InetAddress.getByName(ADDRESSES[a])));
                        } catch (IOException taken) {
                            ok = false;
                        }
                    }
                    if (ok) {
                        held.addAll(these);
                        ports[k] = port;
                        break;
                    }
                    for (ServerSocket s : these) s.close();
                }
            }
        } finally {
            for (ServerSocket s : held) s.close();
        }
        return ports;
    }

    /** Stops every node still running (all at once, each bounded) and deletes the cluster's directory. */
    @Override
    public void close() throws Exception {
        List<Thread> stopping = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            if (stopped[i]) continue;
            CassandraNode n = nodes.get(i);
            stopped[i] = true;
            Thread t = new Thread(() -> {
                try {
                    n.close();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "stop-" + n.address);
            t.start();
            stopping.add(t);
        }
        for (Thread t : stopping) t.join(TimeUnit.SECONDS.toMillis(60));
        deleteTree(home);
    }

    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) return;
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                Files.deleteIfExists(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}

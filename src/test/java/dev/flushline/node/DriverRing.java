package dev.flushline.node;

import com.datastax.oss.driver.api.core.CqlIdentifier;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.metadata.Metadata;
import com.datastax.oss.driver.api.core.metadata.Node;
import com.datastax.oss.driver.api.core.metadata.TokenMap;
import com.datastax.oss.driver.api.core.metadata.token.Token;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A live cluster's ring, as the Java driver sees it, in the terms of {@code --ring FILE}: each
 * node's address, data center, rack and tokens from the driver's token map, and the keyspace's
 * replication from its schema. The same token map also answers which nodes replicate a key,
 * which the cluster tests take as the expectation (the driver computes replicas with its own
 * implementation of the strategies, not ours).
 */
final class DriverRing {
    private DriverRing() {}

    /** The ring file text for {@code keyspace} (SimpleStrategy or NetworkTopologyStrategy). */
    static String ringFile(CqlSession session, String keyspace) {
        Metadata md = session.getMetadata();
        TokenMap tm = md.getTokenMap().orElseThrow(() -> new IllegalStateException("the driver has no token map"));
        Map<String, String> replication = md.getKeyspace(keyspace).orElseThrow(() -> new IllegalStateException("no keyspace " + keyspace))
                .getReplication();
        String strategy = replication.get("class");
        strategy = strategy.substring(strategy.lastIndexOf('.') + 1);
        StringBuilder sb = new StringBuilder("# the ring of keyspace " + keyspace + ", from the driver's token map\n");
        sb.append("replication ").append(strategy);
        for (Map.Entry<String, String> e : new java.util.TreeMap<>(replication).entrySet()) {
            if (!e.getKey().equals("class")) sb.append(' ').append(e.getKey()).append('=').append(e.getValue());
        }
        sb.append('\n');
        List<Node> nodes = new ArrayList<>(md.getNodes().values());
        nodes.sort((a, b) -> address(a).compareTo(address(b)));
        for (Node n : nodes) {
            sb.append("node ").append(address(n)).append(' ').append(n.getDatacenter()).append(' ').append(n.getRack());
            for (Token t : tm.getTokens(n)) sb.append(' ').append(tm.format(t));
            sb.append('\n');
        }
        return sb.toString();
    }

    /** The node's address as the ring file names it (its native protocol address). */
    static String address(Node n) {
        return ((java.net.InetSocketAddress) n.getEndPoint().resolve()).getAddress().getHostAddress();
    }

    /** The addresses of the nodes that replicate the partition key {@code key} of {@code keyspace}, sorted. */
    static Set<String> replicas(CqlSession session, String keyspace, ByteBuffer key) {
        TokenMap tm = session.getMetadata().getTokenMap().orElseThrow();
        Set<String> out = new TreeSet<>();
        for (Node n : tm.getReplicas(CqlIdentifier.fromInternal(keyspace), key.duplicate())) out.add(address(n));
        return out;
    }
}

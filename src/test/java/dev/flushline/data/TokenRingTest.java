package dev.flushline.data;

import dev.flushline.oracle.CassandraOracle;
import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.dht.Token;
import org.apache.cassandra.locator.AbstractNetworkTopologySnitch;
import org.apache.cassandra.locator.AbstractReplicationStrategy;
import org.apache.cassandra.locator.InetAddressAndPort;
import org.apache.cassandra.locator.NetworkTopologyStrategy;
import org.apache.cassandra.locator.SimpleStrategy;
import org.apache.cassandra.locator.TokenMetadata;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link TokenRing} against cassandra-all 5.0.9's own replication strategies: on random rings (1 to
 * 9 nodes, 1 to 16 tokens each, 1 to 3 data centers, 1 to 4 racks, SimpleStrategy and
 * NetworkTopologyStrategy with factors above, at and below the node and rack counts, some data
 * centers with factor 0 or missing), the replicas of every ring token, its neighbours, the ends
 * of the token space and random tokens are the nodes cassandra-all's
 * {@code calculateNaturalReplicas} returns. Then the segments' own rules, and the ring file.
 */
class TokenRingTest {
    static final long SEED = 7_300_911L;

    @Test
    void replicasAreCassandrasOnRandomRings() throws Exception {
        CassandraOracle.init();
        Random r = new Random(SEED);
        int checked = 0;
        for (int round = 0; round < 300; round++) {
            int nodeCount = 1 + r.nextInt(9);
            int dcCount = 1 + r.nextInt(3);
            List<TokenRing.Node> nodes = new ArrayList<>();
            Set<Long> used = new HashSet<>();
            for (int i = 0; i < nodeCount; i++) {
                int vnodes = 1 + r.nextInt(16);
                long[] ts = new long[vnodes];
                for (int k = 0; k < vnodes; k++) {
                    long t;
                    do {
                        // Now and then the ends of the token space, which the wrap must handle.
                        int pick = r.nextInt(40);
                        t = pick == 0 ? Long.MIN_VALUE : pick == 1 ? Long.MAX_VALUE : pick == 2 ? Long.MIN_VALUE + 1 : r.nextLong();
                    } while (!used.add(t));
                    ts[k] = t;
                }
                nodes.add(new TokenRing.Node("10.0." + round % 250 + "." + (i + 1), "dc" + (1 + r.nextInt(dcCount)),
                        "rack" + (1 + r.nextInt(1 + r.nextInt(4))), ts));
            }
            TokenRing.Replication replication;
            Map<String, String> options = new HashMap<>();
            if (r.nextBoolean()) {
                int rf = 1 + r.nextInt(5);
                replication = TokenRing.Replication.simple(rf);
                options.put("replication_factor", Integer.toString(rf));
            } else {
                Map<String, Integer> factors = new TreeMap<>();
                for (int d = 1; d <= dcCount + 1; d++) {
                    if (r.nextInt(4) == 0) continue; // a data center left out
                    factors.put("dc" + d, r.nextInt(5)); // dc<dcCount+1> has no node; 0 takes none
                }
                boolean reachable = false;
                for (Map.Entry<String, Integer> e : factors.entrySet()) {
                    for (TokenRing.Node n : nodes) reachable |= e.getValue() > 0 && n.datacenter().equals(e.getKey());
                }
                if (!reachable) factors.put(nodes.get(0).datacenter(), 1 + r.nextInt(3));
                replication = TokenRing.Replication.networkTopology(factors);
                for (Map.Entry<String, Integer> e : factors.entrySet()) options.put(e.getKey(), Integer.toString(e.getValue()));
            }
            TokenRing ring = TokenRing.of(nodes, replication);
            Oracle oracle = new Oracle(nodes, replication.isSimple(), options);
            String what = "round " + round + " (seed " + SEED + "): " + ring;

            List<Long> probes = new ArrayList<>(List.of(Long.MIN_VALUE + 1, Long.MAX_VALUE, 0L));
            for (long t : ring.ringTokens()) {
                probes.add(t);
                if (t != Long.MAX_VALUE) probes.add(t + 1);
                if (t != Long.MIN_VALUE + 1 && t != Long.MIN_VALUE) probes.add(t - 1);
            }
            for (int k = 0; k < 50; k++) probes.add(r.nextLong());
            for (long token : probes) {
                if (token == Long.MIN_VALUE) continue; // no key has the minimum token
                Set<String> expected = oracle.replicas(token);
                Set<String> actual = new TreeSet<>();
                for (int i : ring.replicasOf(token)) actual.add(ring.node(i).address());
                assertEquals(expected, actual, what + ", token " + token);
                checked++;
            }
            checkSegments(ring, what);
        }
        System.out.println("TokenRingTest: " + checked + " tokens' replicas equal cassandra-all's");
    }

    /** cassandra-all's strategy over the same nodes. */
    static final class Oracle {
        final TokenMetadata metadata;
        final AbstractReplicationStrategy strategy;
        final Map<InetAddressAndPort, String> names = new HashMap<>();

        Oracle(List<TokenRing.Node> nodes, boolean simple, Map<String, String> options) throws Exception {
            Map<InetAddressAndPort, String[]> where = new HashMap<>();
            for (TokenRing.Node n : nodes) {
                InetAddressAndPort ep = InetAddressAndPort.getByName(n.address());
                where.put(ep, new String[] {n.datacenter(), n.rack()});
                names.put(ep, n.address());
            }
            AbstractNetworkTopologySnitch snitch = new AbstractNetworkTopologySnitch() {
                @Override
                public String getRack(InetAddressAndPort endpoint) {
                    return where.get(endpoint)[1];
                }

                @Override
                public String getDatacenter(InetAddressAndPort endpoint) {
                    return where.get(endpoint)[0];
                }
            };
            metadata = new TokenMetadata(snitch);
            for (TokenRing.Node n : nodes) {
                List<Token> ts = new ArrayList<>();
                for (long t : n.tokens()) ts.add(new Murmur3Partitioner.LongToken(t));
                metadata.updateNormalTokens(ts, InetAddressAndPort.getByName(n.address()));
            }
            strategy = simple ? new SimpleStrategy("ks", metadata, snitch, options)
                    : new NetworkTopologyStrategy("ks", metadata, snitch, options);
        }

        Set<String> replicas(long token) {
            Set<String> out = new TreeSet<>();
            for (InetAddressAndPort ep : strategy.calculateNaturalReplicas(new Murmur3Partitioner.LongToken(token), metadata).endpoints()) {
                out.add(names.get(ep));
            }
            return out;
        }
    }

    /** Segments tile the token space, neighbours differ, split tokens start them, and every node's ranges are its segments. */
    static void checkSegments(TokenRing ring, String what) {
        int n = ring.segmentCount();
        assertEquals(Long.MIN_VALUE, ring.segmentFirst(0), what);
        assertEquals(Long.MAX_VALUE, ring.segmentLast(n - 1), what);
        long[] splits = ring.splitTokens();
        assertEquals(n - 1, splits.length, what);
        TokenRanges.checkSplits(splits);
        for (int i = 0; i < n; i++) {
            assertTrue(ring.segmentFirst(i) <= ring.segmentLast(i), what + ", segment " + i);
            if (i > 0) {
                assertEquals(ring.segmentLast(i - 1) + 1, ring.segmentFirst(i), what);
                assertEquals(splits[i - 1], ring.segmentFirst(i), what);
                assertNotEquals(Arrays.toString(ring.segmentReplicas(i - 1)), Arrays.toString(ring.segmentReplicas(i)), what + ", neighbours " + i);
            }
            assertEquals(i, ring.segmentOf(ring.segmentFirst(i)), what);
            assertEquals(i, ring.segmentOf(ring.segmentLast(i)), what);
            assertTrue(ring.segmentReplicas(i).length > 0, what + ", segment " + i + " has no replica");
        }
        double shares = 0;
        for (int node = 0; node < ring.nodeCount(); node++) {
            for (long[] range : ring.rangesOf(node)) {
                for (long probe : new long[] {range[0], range[1]}) {
                    assertTrue(Arrays.binarySearch(ring.replicasOf(probe), node) >= 0, what + ": node " + node + " range " + Arrays.toString(range));
                }
            }
            shares += ring.shareOf(node);
        }
        // Each token is replicated by as many nodes as its segment has replicas: the shares sum to their mean.
        double expected = 0;
        for (int i = 0; i < n; i++) expected += (((double) ring.segmentLast(i) - ring.segmentFirst(i)) + 1) * ring.segmentReplicas(i).length;
        assertEquals(expected / Math.pow(2, 64), shares, 1e-9, what);
    }

    @Test
    void oneNodeHoldsEverythingInOneSegment() {
        TokenRing ring = TokenRing.of(List.of(new TokenRing.Node("a", "dc1", "r1", new long[] {0, 100})), TokenRing.Replication.simple(3));
        assertEquals(1, ring.segmentCount());
        assertArrayEquals(new long[0], ring.splitTokens());
        assertArrayEquals(new int[] {0}, ring.replicasOf(42));
        assertEquals(1.0, ring.shareOf(0), 1e-12);
    }

    @Test
    void wrapSegmentsAndSplitsAreWhereCassandraCutsRanges() {
        // a owns 0 and 200, b owns 100: ranges (200, 0] -> a first, (0, 100] -> b, (100, 200] -> a; RF 1.
        TokenRing ring = TokenRing.of(List.of(new TokenRing.Node("a", "dc1", "r1", new long[] {200, 0}),
                new TokenRing.Node("b", "dc1", "r1", new long[] {100})), TokenRing.Replication.simple(1));
        assertArrayEquals(new long[] {1, 101}, ring.splitTokens());
        assertArrayEquals(new int[] {0}, ring.replicasOf(0));
        assertArrayEquals(new int[] {1}, ring.replicasOf(1));
        assertArrayEquals(new int[] {1}, ring.replicasOf(100));
        assertArrayEquals(new int[] {0}, ring.replicasOf(101));
        assertArrayEquals(new int[] {0}, ring.replicasOf(Long.MAX_VALUE));
        assertArrayEquals(new int[] {0}, ring.replicasOf(Long.MIN_VALUE + 1));
        assertEquals(List.of("[-9223372036854775808, 0]", "[101, 9223372036854775807]"), ranges(ring, 0));
        assertEquals(List.of("[1, 100]"), ranges(ring, 1));
    }

    static List<String> ranges(TokenRing ring, int node) {
        List<String> out = new ArrayList<>();
        for (long[] r : ring.rangesOf(node)) out.add(Arrays.toString(r));
        return out;
    }

    @Test
    void badRingsAreRefusedByName() {
        TokenRing.Replication rf1 = TokenRing.Replication.simple(1);
        assertEquals("node a is listed twice", assertThrows(IllegalArgumentException.class, () -> TokenRing.of(List.of(
                new TokenRing.Node("a", "d", "r", new long[] {1}), new TokenRing.Node("a", "d", "r", new long[] {2})), rf1)).getMessage());
        assertEquals("token 5 is held by both a and b", assertThrows(IllegalArgumentException.class, () -> TokenRing.of(List.of(
                new TokenRing.Node("a", "d", "r", new long[] {5}), new TokenRing.Node("b", "d", "r", new long[] {5})), rf1)).getMessage());
        assertEquals("node a has no tokens", assertThrows(IllegalArgumentException.class, () -> TokenRing.of(List.of(
                new TokenRing.Node("a", "d", "r", new long[0])), rf1)).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TokenRing.of(List.of(new TokenRing.Node("a", "d1", "r", new long[] {1})),
                TokenRing.Replication.networkTopology(Map.of("d2", 3)))).getMessage().contains("no node of the ring is in a data center"));
    }

    @Test
    void ringFileRoundTripsAndAddsUpNodeLines() {
        String text = String.join("\n",
                "# a comment line",
                "replication org.apache.cassandra.locator.NetworkTopologyStrategy dc1=2 dc2=1   # trailing comment",
                "",
                "node 10.0.0.1 dc1 rack1 -100 300",
                "node\t10.0.0.2\tdc1\track2\t100",
                "node 10.0.0.1 dc1 rack1 500",
                "node 10.0.0.3 dc2 rack1 -7000 7000",
                "");
        TokenRing ring = RingFile.parse(text, "ring.txt");
        assertEquals(3, ring.nodeCount());
        assertArrayEquals(new long[] {-100, 300, 500}, ring.node(0).tokens());
        assertEquals("NetworkTopologyStrategy dc1=2 dc2=1", ring.replication().toString());
        String written = RingFile.format(ring, "written by the test");
        TokenRing again = RingFile.parse(written, "again");
        assertEquals(written, RingFile.format(again, "written by the test"));
        assertArrayEquals(ring.splitTokens(), again.splitTokens());
        for (int i = 0; i < ring.segmentCount(); i++) assertArrayEquals(ring.segmentReplicas(i), again.segmentReplicas(i));
    }

    @Test
    void ringFileErrorsNameLineAndColumn() {
        String simple = "replication SimpleStrategy replication_factor=1\n";
        assertEquals("r:2:14: 'x12' is not a Murmur3 token (a signed 64-bit integer)", refused(simple + "node a d r 1 x12\n"));
        assertEquals("r:1:13: strategy 'LocalStrategy' is not SimpleStrategy or NetworkTopologyStrategy",
                refused("replication LocalStrategy replication_factor=1\nnode a d r 1\n"));
        assertEquals("r:1:28: replication factor '3/1' of replication_factor is not a whole number (transient replicas are not supported)",
                refused("replication SimpleStrategy replication_factor=3/1\nnode a d r 1\n"));
        assertEquals("r:1:28: SimpleStrategy takes replication_factor=N alone", refused("replication SimpleStrategy dc1=2\nnode a d r 1\n"));
        assertEquals("r:3:1: a second replication line (the first is line 1)", refused(simple + "node a d r 1\n" + simple));
        assertEquals("r:2:1: a node line is: node ADDRESS DATACENTER RACK TOKEN [TOKEN ...]", refused(simple + "node a d r\n"));
        assertEquals("r:3:8: node a was in data center d, rack r on an earlier line, and is in d, r2 here",
                refused(simple + "node a d r 1\nnode a d r2 5\n"));
        assertEquals("r:1:3: unknown line 'tokens': a line is 'replication ...' or 'node ...'", refused("  tokens 1 2 3\n"));
        assertEquals("r: no 'replication' line (e.g. replication SimpleStrategy replication_factor=2)", refused("node a d r 1\n"));
        assertEquals("r: no 'node' line (node ADDRESS DATACENTER RACK TOKEN [TOKEN ...])", refused(simple));
        assertEquals("r: token 5 is held by both a and b", refused(simple + "node a d r 5\nnode b d r 5\n"));
        assertEquals("r:1:43: 'dc2' is not NAME=FACTOR", refused("replication NetworkTopologyStrategy dc1=1 dc2\nnode a dc1 r 1\n"));
    }

    static String refused(String text) {
        return assertThrows(RingFile.RingFileException.class, () -> RingFile.parse(text, "r")).getMessage();
    }
}

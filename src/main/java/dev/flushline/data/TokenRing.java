package dev.flushline.data;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A cluster's Murmur3 token ring and one keyspace's replication: which nodes hold each token, and
 * so which token ranges each node replicates. Output split at {@link #splitTokens} has every
 * sstable inside one {@link #segmentCount segment}, whose replicas are the same nodes for every
 * key in it.
 *
 * <p>Ownership, as Cassandra's: the ring's tokens t_0 < ... < t_(m-1) each belong to one node. A
 * key whose token is k belongs to the range that ends at the first ring token at or above k
 * (wrapping to t_0 above t_(m-1)): ring range j is (t_(j-1), t_j], ring range 0 is
 * (t_(m-1), t_0] around the wrap. Its replicas are found by walking the ring from t_j:
 * <ul>
 *   <li>SimpleStrategy: the owners of t_j, t_(j+1), ... in that order, skipping nodes already
 *       taken, until {@code replication_factor} nodes (or every node) are taken;</li>
 *   <li>NetworkTopologyStrategy: one walk for all data centers; a data center whose
 *       factor is N and which has n nodes in r racks takes min(N, n) nodes. A node is taken when
 *       its data center still needs nodes and it is not taken yet, and either its rack has not been
 *       met yet in this walk (among nodes not taken before), or the data center may still repeat a
 *       rack: it may do so N - r times, since with fewer racks than replicas some rack must hold
 *       two. A data center the ring has no node in, or with factor 0, takes none.</li>
 * </ul>
 * This is the rule cassandra-all 5.0 applies ({@code TokenRingTest} checks it against
 * cassandra-all's strategies on random rings).
 *
 * <p>Segments: the token space from Long.MIN_VALUE to Long.MAX_VALUE in contiguous inclusive
 * ranges [first, last], cut at each ring range's end (t_j + 1 starts the next), with neighbours
 * whose replica sets are equal merged. The ring range around the wrap gives two segments, the
 * first (from Long.MIN_VALUE) and the last (to Long.MAX_VALUE), with the same replicas.
 *
 * <p>Only Murmur3 tokens, full replicas (no transient ones), and the two strategies above.
 *
 * <p>Thread safety: immutable.
 */
public final class TokenRing {
    /** A keyspace's replication: SimpleStrategy with one factor, or NetworkTopologyStrategy with one per data center. */
    public static final class Replication {
        public static final String SIMPLE = "SimpleStrategy";
        public static final String NETWORK_TOPOLOGY = "NetworkTopologyStrategy";

        private final String strategy;
        private final int simpleFactor;
        /** Data center to factor, sorted by name. */
        private final TreeMap<String, Integer> factors;

        private Replication(String strategy, int simpleFactor, Map<String, Integer> factors) {
            this.strategy = strategy;
            this.simpleFactor = simpleFactor;
            this.factors = new TreeMap<>(factors);
        }

        public static Replication simple(int replicationFactor) {
            if (replicationFactor < 1) throw new IllegalArgumentException("SimpleStrategy needs a replication_factor of at least 1, not " + replicationFactor);
            return new Replication(SIMPLE, replicationFactor, Map.of());
        }

        /** REQUIRES: every factor 0 or more, at least one above 0. */
        public static Replication networkTopology(Map<String, Integer> factorPerDatacenter) {
            int total = 0;
            for (Map.Entry<String, Integer> e : factorPerDatacenter.entrySet()) {
                if (e.getValue() < 0) throw new IllegalArgumentException("data center " + e.getKey() + ": replication factor " + e.getValue() + " is below 0");
                total += e.getValue();
            }
            if (total == 0) throw new IllegalArgumentException("NetworkTopologyStrategy needs a replication factor above 0 in at least one data center");
            return new Replication(NETWORK_TOPOLOGY, 0, factorPerDatacenter);
        }

        public String strategy() {
            return strategy;
        }

        public boolean isSimple() {
            return strategy.equals(SIMPLE);
        }

        /** SimpleStrategy's factor. */
        public int simpleFactor() {
            return simpleFactor;
        }

        /** NetworkTopologyStrategy's factors, by data center name. */
        public Map<String, Integer> factors() {
            return java.util.Collections.unmodifiableMap(factors);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Replication r && r.strategy.equals(strategy) && r.simpleFactor == simpleFactor && r.factors.equals(factors);
        }

        @Override
        public int hashCode() {
            return strategy.hashCode() * 31 + simpleFactor * 7 + factors.hashCode();
        }

        @Override
        public String toString() {
            if (isSimple()) return SIMPLE + " replication_factor=" + simpleFactor;
            StringBuilder sb = new StringBuilder(NETWORK_TOPOLOGY);
            for (Map.Entry<String, Integer> e : factors.entrySet()) sb.append(' ').append(e.getKey()).append('=').append(e.getValue());
            return sb.toString();
        }
    }

    /** One node: its address (the name of its output directory), data center, rack and tokens. */
    public record Node(String address, String datacenter, String rack, long[] tokens) {
        public Node {
            tokens = tokens.clone();
        }

        @Override
        public long[] tokens() {
            return tokens.clone();
        }
    }

    private final Node[] nodes;
    private final Replication replication;
    /** The ring's tokens, sorted, and the index (into {@link #nodes}) of each one's node. */
    private final long[] ringTokens;
    private final int[] ringOwners;
    /** Segment i covers [segmentFirst[i], segmentFirst[i + 1] - 1], the last to Long.MAX_VALUE. */
    private final long[] segmentFirst;
    /** Per segment: the indexes of its replicas, ascending. */
    private final int[][] segmentReplicas;

    private TokenRing(Node[] nodes, Replication replication, long[] ringTokens, int[] ringOwners, long[] segmentFirst,
                      int[][] segmentReplicas) {
        this.nodes = nodes;
        this.replication = replication;
        this.ringTokens = ringTokens;
        this.ringOwners = ringOwners;
        this.segmentFirst = segmentFirst;
        this.segmentReplicas = segmentReplicas;
    }

    /**
     * The ring of {@code nodes} under {@code replication}. Refuses (IllegalArgumentException, naming
     * what) no nodes, a node without tokens, two nodes of one address, a token held twice, and a
     * NetworkTopologyStrategy whose data centers with a factor above 0 have no node in the ring.
     */
    public static TokenRing of(List<Node> nodes, Replication replication) {
        if (nodes.isEmpty()) throw new IllegalArgumentException("a ring needs at least one node");
        Node[] ns = nodes.toArray(new Node[0]);
        Set<String> addresses = new HashSet<>();
        Map<Long, String> holder = new HashMap<>();
        int m = 0;
        for (Node n : ns) {
            if (!addresses.add(n.address())) throw new IllegalArgumentException("node " + n.address() + " is listed twice");
            if (n.tokens.length == 0) throw new IllegalArgumentException("node " + n.address() + " has no tokens");
            for (long t : n.tokens) {
                String before = holder.put(t, n.address());
                if (before != null) throw new IllegalArgumentException("token " + t + " is held by both " + before + " and " + n.address());
            }
            m += n.tokens.length;
        }
        if (!replication.isSimple()) {
            boolean any = false;
            for (Map.Entry<String, Integer> e : replication.factors.entrySet()) {
                if (e.getValue() == 0) continue;
                for (Node n : ns) any |= n.datacenter().equals(e.getKey());
            }
            if (!any) {
                throw new IllegalArgumentException("no node of the ring is in a data center that " + replication + " replicates to");
            }
        }
        // The ring: every token with its node, in token order.
        long[] tokens = new long[m];
        int[] owners = new int[m];
        long[][] pairs = new long[m][];
        int k = 0;
        for (int i = 0; i < ns.length; i++) for (long t : ns[i].tokens) pairs[k++] = new long[] {t, i};
        Arrays.sort(pairs, (a, b) -> Long.compare(a[0], b[0]));
        for (int j = 0; j < m; j++) {
            tokens[j] = pairs[j][0];
            owners[j] = (int) pairs[j][1];
        }
        int[][] rangeReplicas = new int[m][];
        for (int j = 0; j < m; j++) rangeReplicas[j] = replication.isSimple() ? simple(owners, j, replication.simpleFactor, ns.length)
                : networkTopology(ns, owners, j, replication.factors);

        // Pieces in token order: [MIN, t_0] (ring range 0), (t_(j-1), t_j] for j >= 1, then (t_(m-1), MAX] (ring range 0 again).
        List<long[]> firsts = new ArrayList<>();
        List<int[]> replicas = new ArrayList<>();
        addPiece(firsts, replicas, Long.MIN_VALUE, rangeReplicas[0]);
        for (int j = 1; j < m; j++) addPiece(firsts, replicas, tokens[j - 1] + 1, rangeReplicas[j]);
        if (tokens[m - 1] != Long.MAX_VALUE) addPiece(firsts, replicas, tokens[m - 1] + 1, rangeReplicas[0]);
        long[] segmentFirst = new long[firsts.size()];
        for (int i = 0; i < segmentFirst.length; i++) segmentFirst[i] = firsts.get(i)[0];
        return new TokenRing(ns, replication, tokens, owners, segmentFirst, replicas.toArray(new int[0][]));
    }

    /** Appends a piece starting at {@code first}, or extends the previous one when its replicas are the same. */
    private static void addPiece(List<long[]> firsts, List<int[]> replicas, long first, int[] nodes) {
        if (!replicas.isEmpty() && Arrays.equals(replicas.get(replicas.size() - 1), nodes)) return;
        firsts.add(new long[] {first});
        replicas.add(nodes);
    }

    private static int[] simple(int[] owners, int j, int factor, int nodeCount) {
        int want = Math.min(factor, nodeCount);
        int[] taken = new int[want];
        int n = 0;
        for (int step = 0; step < owners.length && n < want; step++) {
            int owner = owners[(j + step) % owners.length];
            if (!contains(taken, n, owner)) taken[n++] = owner;
        }
        int[] out = Arrays.copyOf(taken, n);
        Arrays.sort(out);
        return out;
    }

    private static int[] networkTopology(Node[] ns, int[] owners, int j, TreeMap<String, Integer> factors) {
        // Per data center that takes replicas: how many it still takes, and how many rack repeats it may still make.
        Map<String, int[]> needs = new HashMap<>();
        for (Map.Entry<String, Integer> e : factors.entrySet()) {
            int factor = e.getValue();
            int nodes = 0;
            Set<String> racks = new HashSet<>();
            for (Node n : ns) {
                if (!n.datacenter().equals(e.getKey())) continue;
                nodes++;
                racks.add(n.rack());
            }
            if (factor <= 0 || nodes == 0) continue;
            needs.put(e.getKey(), new int[] {Math.min(factor, nodes), factor - racks.size()});
        }
        int open = needs.size();
        Set<String> racksMet = new HashSet<>();
        int[] taken = new int[ns.length];
        int n = 0;
        for (int step = 0; step < owners.length && open > 0; step++) {
            int owner = owners[(j + step) % owners.length];
            Node node = ns[owner];
            int[] need = needs.get(node.datacenter());
            if (need == null || need[0] == 0 || contains(taken, n, owner)) continue;
            // Data center and rack joined with a separator no name of either can hold alone.
            boolean newRack = racksMet.add(node.datacenter() + '\u0000' + node.rack());
            if (!newRack) {
                if (need[1] <= 0) continue;
                need[1]--;
            }
            taken[n++] = owner;
            if (--need[0] == 0) open--;
        }
        int[] out = Arrays.copyOf(taken, n);
        Arrays.sort(out);
        return out;
    }

    private static boolean contains(int[] a, int n, int v) {
        for (int i = 0; i < n; i++) if (a[i] == v) return true;
        return false;
    }

    public Replication replication() {
        return replication;
    }

    public int nodeCount() {
        return nodes.length;
    }

    public Node node(int i) {
        return nodes[i];
    }

    /** The index of the node of this address, or -1. */
    public int nodeIndex(String address) {
        for (int i = 0; i < nodes.length; i++) if (nodes[i].address().equals(address)) return i;
        return -1;
    }

    /** The ring's tokens in order (a copy). */
    public long[] ringTokens() {
        return ringTokens.clone();
    }

    /** The node index of the ring's {@code j}-th token. */
    public int ringOwner(int j) {
        return ringOwners[j];
    }

    public int segmentCount() {
        return segmentFirst.length;
    }

    public long segmentFirst(int i) {
        return segmentFirst[i];
    }

    public long segmentLast(int i) {
        return i + 1 < segmentFirst.length ? segmentFirst[i + 1] - 1 : Long.MAX_VALUE;
    }

    /** The node indexes of segment {@code i}'s replicas, ascending (a copy). */
    public int[] segmentReplicas(int i) {
        return segmentReplicas[i].clone();
    }

    /** The segment holding {@code token}. */
    public int segmentOf(long token) {
        int i = Arrays.binarySearch(segmentFirst, token);
        return i >= 0 ? i : -i - 2;
    }

    /** The node indexes of the replicas of a key with this token, ascending (a copy). */
    public int[] replicasOf(long token) {
        return segmentReplicas[segmentOf(token)].clone();
    }

    /** Where output must split so that no sstable spans two segments: each segment's first token but the first's. */
    public long[] splitTokens() {
        return Arrays.copyOfRange(segmentFirst, 1, segmentFirst.length);
    }

    /**
     * The token ranges node {@code node} replicates, as [first, last] pairs (inclusive) in token
     * order, neighbours joined; empty when it replicates none.
     */
    public List<long[]> rangesOf(int node) {
        List<long[]> out = new ArrayList<>();
        for (int i = 0; i < segmentFirst.length; i++) {
            if (Arrays.binarySearch(segmentReplicas[i], node) < 0) continue;
            long first = segmentFirst[i], last = segmentLast(i);
            if (!out.isEmpty() && out.get(out.size() - 1)[1] == first - 1) out.get(out.size() - 1)[1] = last;
            else out.add(new long[] {first, last});
        }
        return out;
    }

    /** The share of all tokens node {@code node} replicates, 0 to 1. */
    public double shareOf(int node) {
        double sum = 0;
        for (long[] r : rangesOf(node)) sum += ((double) r[1] - (double) r[0]) + 1;
        return sum / Math.pow(2, 64);
    }

    @Override
    public String toString() {
        return nodes.length + " nodes, " + ringTokens.length + " tokens, " + replication + ", " + segmentFirst.length + " segments";
    }
}

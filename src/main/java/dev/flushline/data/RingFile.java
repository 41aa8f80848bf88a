package dev.flushline.data;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The ring file: a cluster's token ring and a keyspace's replication as text, what
 * {@code --ring FILE} reads and {@link #format} writes. UTF-8 lines; blank lines and text after
 * {@code #} are ignored; fields are separated by spaces or tabs.
 *
 * <pre>
 * # the keyspace's replication, once: as in its CREATE KEYSPACE ... WITH replication
 * replication SimpleStrategy replication_factor=2
 * # or: replication NetworkTopologyStrategy dc1=3 dc2=2
 *
 * # node ADDRESS DATACENTER RACK TOKEN [TOKEN ...]   (one line or several per node)
 * node 10.0.0.1 dc1 rack1 -9160073621568385000 -3074457345618258603 3074457345618258602
 * node 10.0.0.2 dc1 rack2 -6148914691236517206 0 6148914691236517204
 * </pre>
 *
 * A node's tokens are what {@code nodetool ring} lists for it (or its {@code initial_token});
 * several {@code node} lines of one address add up, and must give the same data center and rack.
 * The address names the node's output directory; data center and rack are what its snitch
 * reports ({@code nodetool status}), and matter only to NetworkTopologyStrategy. The strategy
 * may be given by its class name with or without {@code org.apache.cassandra.locator.}. Only
 * Murmur3Partitioner rings.
 *
 * <p>Errors name the source, line and column: {@code ring.txt:3:12: ...}.
 *
 * <p>Thread safety: stateless.
 */
public final class RingFile {
    private static final String LOCATOR_PACKAGE = "org.apache.cassandra.locator.";

    private RingFile() {}

    /** Bad ring text; the message starts with {@code source:line:column:}. */
    public static final class RingFileException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        RingFileException(String message) {
            super(message);
        }
    }

    /** Parses ring file text; {@code source} (the file's name) starts every error message. */
    public static TokenRing parse(String text, String source) {
        TokenRing.Replication replication = null;
        int replicationLine = 0;
        Map<String, String[]> where = new LinkedHashMap<>(); // address -> {datacenter, rack}
        Map<String, List<Long>> tokens = new LinkedHashMap<>();
        String[] lines = text.split("\n", -1);
        for (int l = 0; l < lines.length; l++) {
            String line = lines[l];
            int hash = line.indexOf('#');
            if (hash >= 0) line = line.substring(0, hash);
            List<int[]> spans = fields(line);
            if (spans.isEmpty()) continue;
            int lineNo = l + 1;
            String keyword = field(line, spans.get(0));
            switch (keyword) {
                case "replication": {
                    if (replication != null) {
                        throw error(source, lineNo, spans.get(0), "a second replication line (the first is line " + replicationLine + ")");
                    }
                    replication = replication(source, lineNo, line, spans);
                    replicationLine = lineNo;
                    break;
                }
                case "node": {
                    if (spans.size() < 5) {
                        throw error(source, lineNo, spans.get(0), "a node line is: node ADDRESS DATACENTER RACK TOKEN [TOKEN ...]");
                    }
                    String address = field(line, spans.get(1)), dc = field(line, spans.get(2)), rack = field(line, spans.get(3));
                    String[] before = where.putIfAbsent(address, new String[] {dc, rack});
                    if (before != null && (!before[0].equals(dc) || !before[1].equals(rack))) {
                        throw error(source, lineNo, spans.get(2), "node " + address + " was in data center " + before[0] + ", rack " + before[1]
                                + " on an earlier line, and is in " + dc + ", " + rack + " here");
                    }
                    List<Long> ts = tokens.computeIfAbsent(address, a -> new ArrayList<>());
                    for (int f = 4; f < spans.size(); f++) {
                        String t = field(line, spans.get(f));
                        try {
                            ts.add(Long.parseLong(t));
                        } catch (NumberFormatException e) {
                            throw error(source, lineNo, spans.get(f), "'" + t + "' is not a Murmur3 token (a signed 64-bit integer)");
                        }
                    }
                    break;
                }
                default:
                    throw error(source, lineNo, spans.get(0), "unknown line '" + keyword + "': a line is 'replication ...' or 'node ...'");
            }
        }
        if (replication == null) throw new RingFileException(source + ": no 'replication' line (e.g. replication SimpleStrategy replication_factor=2)");
        if (where.isEmpty()) throw new RingFileException(source + ": no 'node' line (node ADDRESS DATACENTER RACK TOKEN [TOKEN ...])");
        List<TokenRing.Node> nodes = new ArrayList<>();
        for (Map.Entry<String, String[]> e : where.entrySet()) {
            List<Long> ts = tokens.get(e.getKey());
            long[] arr = new long[ts.size()];
            for (int i = 0; i < arr.length; i++) arr[i] = ts.get(i);
            nodes.add(new TokenRing.Node(e.getKey(), e.getValue()[0], e.getValue()[1], arr));
        }
        try {
            return TokenRing.of(nodes, replication);
        } catch (IllegalArgumentException e) {
            throw new RingFileException(source + ": " + e.getMessage());
        }
    }

    private static TokenRing.Replication replication(String source, int lineNo, String line, List<int[]> spans) {
        if (spans.size() < 3) {
            throw error(source, lineNo, spans.get(0), "a replication line is: replication SimpleStrategy replication_factor=N, or "
                    + "replication NetworkTopologyStrategy DC=N [DC=N ...]");
        }
        String strategy = field(line, spans.get(1));
        if (strategy.startsWith(LOCATOR_PACKAGE)) strategy = strategy.substring(LOCATOR_PACKAGE.length());
        Map<String, Integer> factors = new TreeMap<>();
        for (int f = 2; f < spans.size(); f++) {
            String kv = field(line, spans.get(f));
            int eq = kv.indexOf('=');
            if (eq <= 0 || eq == kv.length() - 1) throw error(source, lineNo, spans.get(f), "'" + kv + "' is not NAME=FACTOR");
            String name = kv.substring(0, eq), value = kv.substring(eq + 1);
            int factor;
            try {
                factor = Integer.parseInt(value);
            } catch (NumberFormatException e) {
                throw error(source, lineNo, spans.get(f), "replication factor '" + value + "' of " + name + " is not a whole number"
                        + (value.contains("/") ? " (transient replicas are not supported)" : ""));
            }
            if (factor < 0) throw error(source, lineNo, spans.get(f), "replication factor " + factor + " of " + name + " is below 0");
            if (factors.put(name, factor) != null) throw error(source, lineNo, spans.get(f), name + " is given twice");
        }
        try {
            switch (strategy) {
                case TokenRing.Replication.SIMPLE: {
                    Integer rf = factors.remove("replication_factor");
                    if (rf == null || !factors.isEmpty()) {
                        throw error(source, lineNo, spans.get(2), "SimpleStrategy takes replication_factor=N alone");
                    }
                    return TokenRing.Replication.simple(rf);
                }
                case TokenRing.Replication.NETWORK_TOPOLOGY:
                    if (factors.containsKey("replication_factor")) {
                        throw error(source, lineNo, spans.get(2), "NetworkTopologyStrategy takes one DC=N per data center, not replication_factor");
                    }
                    return TokenRing.Replication.networkTopology(factors);
                default:
                    throw error(source, lineNo, spans.get(1), "strategy '" + field(line, spans.get(1)) + "' is not SimpleStrategy or NetworkTopologyStrategy");
            }
        } catch (RingFileException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw error(source, lineNo, spans.get(1), e.getMessage());
        }
    }

    /**
     * The ring as ring file text: the replication line, then one node line per node with its tokens
     * in order. {@link #parse} gives back an equal ring.
     */
    public static String format(TokenRing ring, String comment) {
        StringBuilder sb = new StringBuilder();
        if (comment != null) for (String c : comment.split("\n")) sb.append("# ").append(c).append('\n');
        sb.append("replication ").append(ring.replication()).append('\n');
        for (int i = 0; i < ring.nodeCount(); i++) {
            TokenRing.Node n = ring.node(i);
            long[] ts = n.tokens();
            java.util.Arrays.sort(ts);
            sb.append("node ").append(n.address()).append(' ').append(n.datacenter()).append(' ').append(n.rack());
            for (long t : ts) sb.append(' ').append(t);
            sb.append('\n');
        }
        return sb.toString();
    }

    /** [start, end) of each field of the line. */
    private static List<int[]> fields(String line) {
        List<int[]> out = new ArrayList<>();
        int i = 0, n = line.length();
        while (i < n) {
            while (i < n && isBlank(line.charAt(i))) i++;
            if (i == n) break;
            int start = i;
            while (i < n && !isBlank(line.charAt(i))) i++;
            out.add(new int[] {start, i});
        }
        return out;
    }

    private static boolean isBlank(char c) {
        return c == ' ' || c == '\t' || c == '\r';
    }

    private static String field(String line, int[] span) {
        return line.substring(span[0], span[1]);
    }

    private static RingFileException error(String source, int line, int[] span, String what) {
        return new RingFileException(String.format(Locale.ROOT, "%s:%d:%d: %s", source, line, span[0] + 1, what));
    }
}

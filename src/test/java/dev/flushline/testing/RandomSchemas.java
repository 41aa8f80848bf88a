package dev.flushline.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random schemas over the supported types: now and then CREATE TYPE statements first (user-defined
 * types of native fields, frozen collections, tuples, durations, vectors and earlier types), then a
 * CREATE TABLE with 1-2 partition key columns, 0..3 clustering columns each ASC or DESC, statics or
 * not, and 1..10 regular columns (now and then up to 70, past the 64-column bitmap limit). Types
 * include frozen and non-frozen collections (nested, frozen inside), tuples, frozen and non-frozen
 * UDTs, durations and small vectors, as Cassandra allows them in each position. The same seed
 * always gives the same schema; the CREATE TABLE comes last, without a ';'.
 */
public final class RandomSchemas {
    private RandomSchemas() {}

    public static final String[] KEY_TYPES = {"int", "bigint", "text", "ascii", "blob", "uuid", "timeuuid", "date", "timestamp",
            "boolean", "double", "float", "smallint", "tinyint", "varint", "decimal", "inet", "time"};
    public static final String[] VALUE_TYPES = {"int", "bigint", "text", "blob", "uuid", "boolean", "double", "decimal", "varint",
            "timestamp", "date", "time", "inet", "tinyint", "smallint", "float", "ascii", "timeuuid",
            "frozen<list<int>>", "frozen<map<int, text>>", "set<text>", "map<text, int>", "list<int>", "set<int>"};
    /** Composite key types, which need no user-defined type. */
    public static final String[] COMPOSITE_KEY_TYPES = {"tuple<int, text>", "frozen<list<text>>", "tuple<bigint, frozen<set<int>>, blob>",
            "vector<float, 3>", "vector<text, 2>", "frozen<map<int, frozen<tuple<int, text>>>>", "tuple<tuple<int, int>, text>"};
    /** Composite value types, which need no user-defined type. */
    public static final String[] COMPOSITE_VALUE_TYPES = {"duration", "tuple<int, duration, text>", "vector<float, 5>",
            "vector<bigint, 2>", "vector<varint, 3>", "list<frozen<list<int>>>", "map<text, frozen<tuple<int, text>>>",
            "set<frozen<tuple<int, text>>>", "map<frozen<list<int>>, duration>", "list<duration>", "frozen<list<duration>>",
            "vector<frozen<list<text>>, 2>", "map<int, frozen<map<text, int>>>"};

    /** A random schema file (types, then the table); about a third of the seeds have user-defined types. */
    public static String randomTable(long seed) {
        return randomTable(seed, true);
    }

    /**
     * As above; without {@code nonFrozenUdts}, user-defined type columns are all frozen (Cassandra's
     * sstabledump -d fails on non-frozen ones).
     */
    public static String randomTable(long seed, boolean nonFrozenUdts) {
        Random r = new Random(seed * 7919);
        String ks = "ks";
        List<String> statements = new ArrayList<>();
        List<String> udts = new ArrayList<>();
        List<Boolean> udtHasDuration = new ArrayList<>();
        boolean composite = seed % 3 != 0; // a third of the seeds keep the original native-and-collection set
        if (composite && r.nextBoolean()) {
            int n = 1 + r.nextInt(2);
            for (int i = 0; i < n; i++) {
                String name = "u" + seed + "_" + i;
                StringBuilder sb = new StringBuilder("CREATE TYPE " + ks + "." + name + " (");
                int fields = 1 + r.nextInt(4);
                boolean duration = false;
                for (int f = 0; f < fields; f++) {
                    String type;
                    int x = r.nextInt(8);
                    if (x == 0 && !udts.isEmpty()) {
                        int k = r.nextInt(udts.size());
                        type = "frozen<" + udts.get(k) + ">";
                        duration |= udtHasDuration.get(k);
                    } else if (x == 1) {
                        type = COMPOSITE_KEY_TYPES[r.nextInt(COMPOSITE_KEY_TYPES.length)];
                    } else if (x == 2) {
                        type = "duration";
                        duration = true;
                    } else {
                        type = KEY_TYPES[r.nextInt(KEY_TYPES.length)];
                    }
                    sb.append(f == 0 ? "" : ", ").append(f == fields - 1 && r.nextInt(4) == 0 ? "\"Fx" + f + "\"" : "f" + f).append(' ').append(type);
                }
                statements.add(sb.append(')').toString());
                udts.add(name);
                udtHasDuration.add(duration);
            }
        }
        List<String> cols = new ArrayList<>();
        List<String> pk = new ArrayList<>();
        int pkCount = 1 + (r.nextInt(4) == 0 ? 1 : 0);
        for (int i = 0; i < pkCount; i++) {
            cols.add("p" + i + " " + keyType(r, composite, udts, udtHasDuration));
            pk.add("p" + i);
        }
        int ckCount = r.nextInt(4);
        List<String> ck = new ArrayList<>();
        List<String> order = new ArrayList<>();
        for (int i = 0; i < ckCount; i++) {
            cols.add("c" + i + " " + keyType(r, composite, udts, udtHasDuration));
            ck.add("c" + i);
            order.add("c" + i + (r.nextBoolean() ? " DESC" : " ASC"));
        }
        if (ckCount > 0 && r.nextBoolean()) { // statics need clustering columns
            int n = 1 + r.nextInt(3);
            for (int i = 0; i < n; i++) cols.add("s" + i + " " + valueType(r, composite, udts, nonFrozenUdts) + " static");
        }
        int regular = 1 + r.nextInt(r.nextInt(5) == 0 ? 70 : 10); // now and then past 64 columns
        for (int i = 0; i < regular; i++) cols.add("v" + i + " " + valueType(r, composite, udts, nonFrozenUdts));
        String key = pkCount == 1 ? pk.get(0) : "(" + String.join(", ", pk) + ")";
        String primary = ck.isEmpty() ? key : key + ", " + String.join(", ", ck);
        String cql = "CREATE TABLE ks.rnd" + seed + " (" + String.join(", ", cols) + ", PRIMARY KEY (" + primary + "))";
        if (ckCount > 0) cql += " WITH CLUSTERING ORDER BY (" + String.join(", ", order) + ")";
        statements.add(cql);
        return String.join(";\n", statements);
    }

    private static String keyType(Random r, boolean composite, List<String> udts, List<Boolean> udtHasDuration) {
        if (composite && r.nextInt(4) == 0) {
            if (!udts.isEmpty() && r.nextBoolean()) {
                int k = r.nextInt(udts.size());
                if (!udtHasDuration.get(k)) return "frozen<" + udts.get(k) + ">";
            }
            return COMPOSITE_KEY_TYPES[r.nextInt(COMPOSITE_KEY_TYPES.length)];
        }
        return KEY_TYPES[r.nextInt(KEY_TYPES.length)];
    }

    private static String valueType(Random r, boolean composite, List<String> udts, boolean nonFrozenUdts) {
        if (composite && r.nextInt(3) == 0) {
            if (!udts.isEmpty() && r.nextBoolean()) {
                String u = udts.get(r.nextInt(udts.size()));
                switch (r.nextInt(4)) {
                    case 0: return "list<frozen<" + u + ">>";
                    case 1: return nonFrozenUdts ? u : "frozen<" + u + ">";
                    case 2: return nonFrozenUdts && r.nextBoolean() ? u : "map<text, frozen<" + u + ">>";
                    default: return "frozen<" + u + ">";
                }
            }
            return r.nextBoolean() ? COMPOSITE_VALUE_TYPES[r.nextInt(COMPOSITE_VALUE_TYPES.length)]
                    : COMPOSITE_KEY_TYPES[r.nextInt(COMPOSITE_KEY_TYPES.length)];
        }
        return VALUE_TYPES[r.nextInt(VALUE_TYPES.length)];
    }
}

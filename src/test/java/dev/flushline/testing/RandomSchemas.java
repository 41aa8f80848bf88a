package dev.flushline.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random CREATE TABLE statements over the supported types: 1-2 partition key columns, 0..3
 * clustering columns each ASC or DESC, statics or not, and 1..10 regular columns (now and then
 * up to 70, past the 64-column bitmap limit). The same seed always gives the same table.
 */
public final class RandomSchemas {
    private RandomSchemas() {}

    public static final String[] KEY_TYPES = {"int", "bigint", "text", "ascii", "blob", "uuid", "timeuuid", "date", "timestamp",
            "boolean", "double", "float", "smallint", "tinyint", "varint", "decimal", "inet", "time"};
    public static final String[] VALUE_TYPES = {"int", "bigint", "text", "blob", "uuid", "boolean", "double", "decimal", "varint",
            "timestamp", "date", "time", "inet", "tinyint", "smallint", "float", "ascii", "timeuuid",
            "frozen<list<int>>", "frozen<map<int, text>>", "set<text>", "map<text, int>", "list<int>", "set<int>"};

    public static String randomTable(long seed) {
        Random r = new Random(seed * 7919);
        List<String> cols = new ArrayList<>();
        List<String> pk = new ArrayList<>();
        int pkCount = 1 + (r.nextInt(4) == 0 ? 1 : 0);
        for (int i = 0; i < pkCount; i++) {
            cols.add("p" + i + " " + KEY_TYPES[r.nextInt(KEY_TYPES.length)]);
            pk.add("p" + i);
        }
        int ckCount = r.nextInt(4);
        List<String> ck = new ArrayList<>();
        List<String> order = new ArrayList<>();
        for (int i = 0; i < ckCount; i++) {
            cols.add("c" + i + " " + KEY_TYPES[r.nextInt(KEY_TYPES.length)]);
            ck.add("c" + i);
            order.add("c" + i + (r.nextBoolean() ? " DESC" : " ASC"));
        }
        if (ckCount > 0 && r.nextBoolean()) { // statics need clustering columns
            int n = 1 + r.nextInt(3);
            for (int i = 0; i < n; i++) cols.add("s" + i + " " + VALUE_TYPES[r.nextInt(VALUE_TYPES.length)] + " static");
        }
        int regular = 1 + r.nextInt(r.nextInt(5) == 0 ? 70 : 10); // now and then past 64 columns
        for (int i = 0; i < regular; i++) cols.add("v" + i + " " + VALUE_TYPES[r.nextInt(VALUE_TYPES.length)]);
        String key = pkCount == 1 ? pk.get(0) : "(" + String.join(", ", pk) + ")";
        String primary = ck.isEmpty() ? key : key + ", " + String.join(", ", ck);
        String cql = "CREATE TABLE ks.rnd" + seed + " (" + String.join(", ", cols) + ", PRIMARY KEY (" + primary + "))";
        if (ckCount > 0) cql += " WITH CLUSTERING ORDER BY (" + String.join(", ", order) + ")";
        return cql;
    }

}

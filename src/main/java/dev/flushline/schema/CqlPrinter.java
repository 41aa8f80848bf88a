package dev.flushline.schema;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * A {@link TableSchema} as CQL: the {@code CREATE TYPE} statements of the user-defined types its
 * columns use (each once, a type before the types that use it), then its {@code CREATE TABLE}, laid
 * out as cqlsh's DESCRIBE lays it out: one column per line, the PRIMARY KEY clause last, then
 * {@code WITH CLUSTERING ORDER BY} (every clustering column), the compression map, and the options
 * the schema holds that differ from their defaults. {@link CqlParser} reads the text back into an
 * equal schema (the same columns, types, order, compression and options).
 *
 * <p>Identifiers are quoted where CQL needs it: anything but lowercase letters, digits and '_'
 * starting with a letter, and Cassandra's reserved keywords.
 *
 * <p>Thread safety: stateless.
 */
public final class CqlPrinter {
    private CqlPrinter() {}

    /**
     * Cassandra 5.0's reserved keywords: an unquoted identifier may not be one of these (the
     * others, such as {@code key} or {@code type}, are unreserved and may stand bare).
     */
    static final Set<String> RESERVED = Set.of(
            "add", "allow", "alter", "and", "apply", "asc", "authorize", "batch", "begin", "by", "columnfamily", "create",
            "delete", "desc", "describe", "drop", "entries", "execute", "from", "full", "grant", "if", "in", "index", "infinity",
            "insert", "into", "is", "keyspace", "limit", "materialized", "modify", "nan", "norecursive", "not", "null", "of", "on",
            "or", "order", "primary", "rename", "revoke", "schema", "select", "set", "table", "to", "token", "truncate", "unlogged",
            "update", "use", "using", "view", "where", "with");

    /** An identifier as CQL needs it written: bare, or in double quotes (a quote doubled). */
    public static String identifier(String name) {
        boolean bare = !name.isEmpty() && name.charAt(0) >= 'a' && name.charAt(0) <= 'z' && !RESERVED.contains(name);
        for (int i = 0; bare && i < name.length(); i++) {
            char c = name.charAt(i);
            bare = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
        }
        return bare ? name : '"' + name.replace("\"", "\"\"") + '"';
    }

    /** A type's CQL spelling, e.g. {@code frozen<map<text, int>>}, {@code frozen<"Addr">}, {@code vector<float, 3>}. */
    public static String type(CqlType t) {
        String base;
        switch (t.kind()) {
            case LIST: base = "list<" + type(t.elementType()) + ">"; break;
            case SET: base = "set<" + type(t.elementType()) + ">"; break;
            case MAP: base = "map<" + type(t.elementType()) + ", " + type(t.valueType()) + ">"; break;
            case UDT: base = identifier(t.typeName()); break;
            case TUPLE: {
                StringBuilder sb = new StringBuilder("tuple<");
                for (int i = 0; i < t.size(); i++) sb.append(i == 0 ? "" : ", ").append(type(t.component(i)));
                return sb.append('>').toString();
            }
            case VECTOR: return "vector<" + type(t.elementType()) + ", " + t.dimension() + ">";
            default: return t.kind().name().toLowerCase(Locale.ROOT);
        }
        return t.isFrozen() ? "frozen<" + base + ">" : base;
    }

    /**
     * The user-defined types the table's columns use, nested ones included, each once and after
     * the types it uses, as non-frozen definitions. Refuses (IllegalArgumentException) a type
     * name that stands for two different definitions.
     */
    public static List<CqlType> userTypes(TableSchema t) {
        Map<String, CqlType> seen = new LinkedHashMap<>();
        for (ColumnMetadata[] group : new ColumnMetadata[][] {t.partitionKeyColumns(), t.clusteringColumns(), t.staticColumns(),
                t.regularColumns()}) {
            for (ColumnMetadata c : group) collect(c.type(), seen);
        }
        return new ArrayList<>(seen.values());
    }

    private static void collect(CqlType t, Map<String, CqlType> seen) {
        switch (t.kind()) {
            case LIST:
            case SET:
            case VECTOR:
                collect(t.elementType(), seen);
                return;
            case MAP:
                collect(t.elementType(), seen);
                collect(t.valueType(), seen);
                return;
            case TUPLE:
                for (int i = 0; i < t.size(); i++) collect(t.component(i), seen);
                return;
            case UDT: {
                for (int i = 0; i < t.size(); i++) collect(t.component(i), seen); // the types it uses first
                List<String> names = new ArrayList<>();
                List<CqlType> types = new ArrayList<>();
                for (int i = 0; i < t.size(); i++) {
                    names.add(t.fieldName(i));
                    types.add(t.component(i));
                }
                CqlType definition = CqlType.udt(t.keyspace(), t.typeName(), names, types, false);
                String key = t.keyspace() + "." + t.typeName();
                CqlType earlier = seen.putIfAbsent(key, definition);
                if (earlier != null && !earlier.equals(definition)) {
                    throw new IllegalArgumentException("type " + key + " stands for two definitions: " + fields(earlier) + " and "
                            + fields(definition));
                }
                return;
            }
            default:
        }
    }

    private static String fields(CqlType udt) {
        StringBuilder sb = new StringBuilder("(");
        for (int i = 0; i < udt.size(); i++) sb.append(i == 0 ? "" : ", ").append(identifier(udt.fieldName(i))).append(' ').append(type(udt.component(i)));
        return sb.append(')').toString();
    }

    /** {@code CREATE TYPE ks.name (field type, ...);} on several lines. REQUIRES: a UDT. */
    public static String createType(CqlType udt) {
        StringBuilder sb = new StringBuilder("CREATE TYPE ").append(identifier(udt.keyspace())).append('.')
                .append(identifier(udt.typeName())).append(" (\n");
        for (int i = 0; i < udt.size(); i++) {
            sb.append("    ").append(identifier(udt.fieldName(i))).append(' ').append(type(udt.component(i)))
                    .append(i + 1 < udt.size() ? ",\n" : "\n");
        }
        return sb.append(");\n").toString();
    }

    /** The CREATE TYPE statements, then the CREATE TABLE, each followed by a blank line but the last. */
    public static String schema(TableSchema t) {
        StringBuilder sb = new StringBuilder();
        for (CqlType u : userTypes(t)) sb.append(createType(u)).append('\n');
        return sb.append(createTable(t)).toString();
    }

    /** The {@code CREATE TABLE} statement, ending with ";" and a newline. */
    public static String createTable(TableSchema t) {
        StringBuilder sb = new StringBuilder("CREATE TABLE ").append(identifier(t.keyspace())).append('.')
                .append(identifier(t.name())).append(" (\n");
        for (ColumnMetadata[] group : new ColumnMetadata[][] {t.partitionKeyColumns(), t.clusteringColumns(), t.staticColumns(),
                t.regularColumns()}) {
            for (ColumnMetadata c : group) {
                sb.append("    ").append(identifier(c.name())).append(' ').append(type(c.type()))
                        .append(c.isStatic() ? " static" : "").append(",\n");
            }
        }
        ColumnMetadata[] pk = t.partitionKeyColumns(), ck = t.clusteringColumns();
        sb.append("    PRIMARY KEY (");
        if (pk.length > 1) sb.append('(');
        for (int i = 0; i < pk.length; i++) sb.append(i == 0 ? "" : ", ").append(identifier(pk[i].name()));
        if (pk.length > 1) sb.append(')');
        for (ColumnMetadata c : ck) sb.append(", ").append(identifier(c.name()));
        sb.append(")\n)");
        List<String> options = new ArrayList<>();
        if (ck.length > 0) {
            StringBuilder order = new StringBuilder("CLUSTERING ORDER BY (");
            for (int i = 0; i < ck.length; i++) {
                order.append(i == 0 ? "" : ", ").append(identifier(ck[i].name())).append(ck[i].isReversed() ? " DESC" : " ASC");
            }
            options.add(order.append(')').toString());
        }
        options.add("compression = " + compression(t.compressionParams()));
        UUID nameBased = UUID.nameUUIDFromBytes((t.keyspace() + "." + t.name()).getBytes(StandardCharsets.UTF_8));
        if (!t.id().equals(nameBased)) options.add("id = " + t.id());
        if (t.bloomFilterFpChance() != TableSchema.DEFAULT_BLOOM_FILTER_FP_CHANCE) {
            options.add("bloom_filter_fp_chance = " + t.bloomFilterFpChance());
        }
        if (t.minIndexInterval() != TableSchema.DEFAULT_MIN_INDEX_INTERVAL) options.add("min_index_interval = " + t.minIndexInterval());
        if (t.maxIndexInterval() != Math.max(TableSchema.DEFAULT_MAX_INDEX_INTERVAL, t.minIndexInterval())) {
            options.add("max_index_interval = " + t.maxIndexInterval());
        }
        if (t.defaultTimeToLiveSeconds() != 0) options.add("default_time_to_live = " + t.defaultTimeToLiveSeconds());
        if (t.gcGraceSeconds() != TableSchema.DEFAULT_GC_GRACE_SECONDS) options.add("gc_grace_seconds = " + t.gcGraceSeconds());
        if (t.onlyPurgeRepairedTombstones()) {
            options.add("compaction = {'class': 'org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy', "
                    + "'only_purge_repaired_tombstones': 'true'}");
        }
        for (int i = 0; i < options.size(); i++) sb.append(i == 0 ? " WITH " : "\n    AND ").append(options.get(i));
        return sb.append(";\n").toString();
    }

    /**
     * The {@code compression} map of {@code p}, as DESCRIBE prints it: {@code {'enabled': 'false'}},
     * or chunk length (KiB), class, the codec's options and min_compress_ratio when it bounds the
     * compressed chunk. REQUIRES: a chunk length of whole KiB (chunk_length_in_kb cannot say more).
     */
    public static String compression(CompressionParams p) {
        StringBuilder sb = new StringBuilder("{");
        for (Map.Entry<String, String> e : compressionMap(p).entrySet()) {
            sb.append(sb.length() == 1 ? "" : ", ").append(quote(e.getKey())).append(": ").append(quote(e.getValue()));
        }
        return sb.append('}').toString();
    }

    /**
     * The same map as {@link #compression} as names and values in DESCRIBE's order: the
     * {@code map<text, text>} that a table's compression option is. REQUIRES: as {@link #compression}.
     */
    public static Map<String, String> compressionMap(CompressionParams p) {
        Map<String, String> m = new LinkedHashMap<>();
        if (!p.isEnabled()) {
            m.put("enabled", "false");
            return m;
        }
        if (p.chunkLengthBytes() % 1024 != 0) {
            throw new IllegalArgumentException("chunk length of " + p.chunkLengthBytes() + " bytes is not a whole number of KiB");
        }
        m.put("chunk_length_in_kb", Integer.toString(p.chunkLengthBytes() / 1024));
        m.put("class", CompressionParams.COMPRESSOR_PACKAGE + p.codec().compressorName());
        String[] options = p.optionPairs();
        for (int i = 0; i + 1 < options.length; i += 2) m.put(options[i], options[i + 1]);
        if (p.maxCompressedLengthBytes() != CompressionParams.UNBOUNDED_MAX_COMPRESSED_LENGTH) {
            m.put("min_compress_ratio", Double.toString(minCompressRatio(p.chunkLengthBytes(), p.maxCompressedLengthBytes())));
        }
        return m;
    }

    /**
     * A ratio that gives back {@code maxCompressedBytes} through Cassandra's
     * {@code ceil(chunk / ratio)}, the shortest decimal there is (so that the 1.2 a table was given
     * prints as 1.2, not as the 1.19976... that chunk / max is): the valid ratios are
     * [chunk / max, chunk / (max - 1)).
     */
    static double minCompressRatio(int chunkBytes, int maxCompressedBytes) {
        if (maxCompressedBytes == 0) return Double.NaN; // ceil(chunk / NaN) is NaN, which Cassandra's int cast makes 0
        java.math.BigDecimal lo = java.math.BigDecimal.valueOf(chunkBytes)
                .divide(java.math.BigDecimal.valueOf(maxCompressedBytes), java.math.MathContext.DECIMAL128);
        for (int digits = 0; digits <= 17; digits++) {
            double r = lo.setScale(digits, java.math.RoundingMode.CEILING).doubleValue();
            if (CompressionParams.maxCompressedLength(chunkBytes, r) == maxCompressedBytes) return r;
        }
        // Double rounding defeated every short decimal: step from chunk / max by ulps.
        double r = (double) chunkBytes / maxCompressedBytes;
        for (int i = 0; i < 8 && CompressionParams.maxCompressedLength(chunkBytes, r) > maxCompressedBytes; i++) r = Math.nextUp(r);
        for (int i = 0; i < 8 && CompressionParams.maxCompressedLength(chunkBytes, r) < maxCompressedBytes; i++) r = Math.nextDown(r);
        return r;
    }

    private static String quote(String s) {
        return '\'' + s.replace("'", "''") + '\'';
    }
}

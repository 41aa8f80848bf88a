package dev.flushline.oracle;

import org.apache.cassandra.config.CassandraRelevantProperties;
import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.cql3.CQLFragmentParser;
import org.apache.cassandra.cql3.CqlParser;
import org.apache.cassandra.cql3.statements.schema.CreateTableStatement;
import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.cql3.statements.schema.CreateTypeStatement;
import org.apache.cassandra.schema.KeyspaceMetadata;
import org.apache.cassandra.schema.KeyspaceParams;
import org.apache.cassandra.schema.Keyspaces;
import org.apache.cassandra.schema.TableMetadata;
import org.apache.cassandra.schema.Types;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The one place that brings cassandra-all up in offline client mode. Every oracle entry point calls
 * {@link #init()} before it touches any other Cassandra class, because client mode is what makes
 * {@code oa} the current BIG version (tool mode would default to CASSANDRA_4 compatibility = {@code nb}
 * and reject our files), and that choice is frozen when BigFormat loads.
 */
public final class CassandraOracle {
    /** Keyspace used when the CREATE TABLE text does not name one. */
    public static final String DEFAULT_KEYSPACE = "ks";

    private static volatile boolean initialized;

    private CassandraOracle() {
    }

    public static synchronized void init() {
        if (initialized) {
            return;
        }
        // Same two steps CQLSSTableWriter's static initializer performs, so mixing both in one JVM is harmless.
        // Local system keyspaces must be in the schema for Keyspace/ColumnFamilyStore (used by the verifier)
        // and for CQLSSTableWriter.build().
        CassandraRelevantProperties.FORCE_LOAD_LOCAL_KEYSPACES.setBoolean(true);
        DatabaseDescriptor.clientInitialization(false);
        if (DatabaseDescriptor.getPartitioner() == null) {
            DatabaseDescriptor.setPartitionerUnsafe(Murmur3Partitioner.instance);
        }
        initialized = true;
    }

    /**
     * Parses a CREATE TABLE statement keeping its own keyspace, with the Murmur3 partitioner Flushline targets.
     * The text may be a schema file: CREATE TYPE statements before the table are applied first, as a node
     * applies them (CREATE KEYSPACE, indexes and other statements are ignored); it must define one table.
     */
    public static TableMetadata parseTable(String createTableCql) {
        return parseTable(createTableCql, null);
    }

    /**
     * As above, in keyspace {@code keyspaceOverride} when not null: the table is created there
     * instead of in the keyspace the CQL names. Its user-defined types stay in the keyspace the
     * CQL names: a type's keyspace is part of its marshal name, which sstable headers hold (a
     * compaction writes its header from the table's types), and it must match what we write.
     */
    public static TableMetadata parseTable(String schemaCql, String keyspaceOverride) {
        init();
        String table = null;
        List<String> types = new ArrayList<>();
        for (String st : statements(schemaCql)) {
            String head = st.replaceFirst("^(\\s|--[^\n]*(\n|$)|//[^\n]*(\n|$)|/\\*(?s:.*?)\\*/)*", "").toLowerCase(Locale.ROOT);
            if (head.matches("(?s)create\\s+type\\b.*")) types.add(st);
            else if (head.matches("(?s)create\\s+(table|columnfamily)\\b.*")) {
                if (table != null) throw new IllegalArgumentException("several tables in " + schemaCql);
                table = st;
            }
        }
        if (table == null) throw new IllegalArgumentException("no CREATE TABLE in " + schemaCql);
        String keyspace = CQLFragmentParser.parseAny(CqlParser::createTableStatement, table + "\n", "CREATE TABLE").keyspace();
        if (keyspace == null) keyspace = DEFAULT_KEYSPACE;
        String target = keyspaceOverride == null ? keyspace : keyspaceOverride;
        Types udts = types(types, keyspace);
        return CQLFragmentParser.parseAny(CqlParser::createTableStatement, table + "\n", "CREATE TABLE")
                                .keyspace(target)
                                .prepare(null)
                                .builder(udts)
                                .partitioner(Murmur3Partitioner.instance)
                                .build();
    }

    /** The user-defined types of these CREATE TYPE statements, created one after the other in {@code keyspace}. */
    public static Types types(List<String> createTypeStatements, String keyspace) {
        if (createTypeStatements.isEmpty()) return Types.none();
        Keyspaces schema = Keyspaces.of(KeyspaceMetadata.create(keyspace, KeyspaceParams.simple(1)));
        for (String st : createTypeStatements) {
            // the keyspace a type names moves to the target keyspace, as the table's does
            String moved = st.replaceFirst("(?is)^(\\s*create\\s+type\\s+(if\\s+not\\s+exists\\s+)?)(\"[^\"]*\"|\\w+)\\.", "$1" + keyspace + ".");
            CreateTypeStatement stmt = CQLFragmentParser.parseAny(CqlParser::createTypeStatement, moved + "\n", "CREATE TYPE").prepare(null);
            schema = stmt.apply(schema);
        }
        return schema.getNullable(keyspace).types;
    }

    /** The statements of a schema file, split at ';' outside quotes and comments. */
    public static List<String> statements(String cql) {
        List<String> out = new ArrayList<>();
        int from = 0;
        for (int i = 0; i < cql.length(); i++) {
            char c = cql.charAt(i);
            if (c == '\'' || c == '"') {
                int j = i + 1;
                while (j < cql.length() && !(cql.charAt(j) == c && (j + 1 >= cql.length() || cql.charAt(j + 1) != c))) {
                    j += cql.charAt(j) == c ? 2 : 1;
                }
                i = j;
            } else if (cql.startsWith("--", i) || cql.startsWith("//", i)) {
                int e = cql.indexOf('\n', i);
                i = e < 0 ? cql.length() : e;
            } else if (cql.startsWith("/*", i)) {
                int e = cql.indexOf("*/", i + 2);
                i = e < 0 ? cql.length() : e + 1;
            } else if (cql.startsWith("$$", i)) {
                int e = cql.indexOf("$$", i + 2);
                i = e < 0 ? cql.length() : e + 1;
            } else if (c == ';') {
                if (!cql.substring(from, i).isBlank()) out.add(cql.substring(from, i));
                from = i + 1;
            }
        }
        if (from < cql.length() && !cql.substring(from).isBlank()) out.add(cql.substring(from));
        return out;
    }
}

package dev.flushline.oracle;

import org.apache.cassandra.config.CassandraRelevantProperties;
import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.cql3.CQLFragmentParser;
import org.apache.cassandra.cql3.CqlParser;
import org.apache.cassandra.cql3.statements.schema.CreateTableStatement;
import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.schema.TableMetadata;

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

    /** Parses a CREATE TABLE statement keeping its own keyspace, with the Murmur3 partitioner Flushline targets. */
    public static TableMetadata parseTable(String createTableCql) {
        init();
        String keyspace = CQLFragmentParser.parseAny(CqlParser::createTableStatement, createTableCql, "CREATE TABLE").keyspace();
        return CreateTableStatement.parse(createTableCql, keyspace == null ? DEFAULT_KEYSPACE : keyspace)
                                   .partitioner(Murmur3Partitioner.instance)
                                   .build();
    }
}

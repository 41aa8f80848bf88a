package dev.flushline.io;

import org.apache.cassandra.config.DatabaseDescriptor;

/** Puts cassandra-all into client mode once per test JVM before a test touches its classes. */
final class CassandraClient {
    private CassandraClient() {}

    private static boolean initialized;

    static synchronized void init() {
        if (!initialized) {
            DatabaseDescriptor.clientInitialization();
            initialized = true;
        }
    }
}

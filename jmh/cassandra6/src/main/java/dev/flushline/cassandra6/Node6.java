package dev.flushline.cassandra6;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

import org.apache.cassandra.config.CassandraRelevantProperties;
import org.apache.cassandra.config.Config;
import org.apache.cassandra.config.DataStorageSpec;
import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.config.DurationSpec;
import org.apache.cassandra.cql3.statements.schema.CreateTableStatement;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.Directories;
import org.apache.cassandra.db.Keyspace;
import org.apache.cassandra.db.commitlog.CommitLog;
import org.apache.cassandra.dht.Murmur3Partitioner;
import org.apache.cassandra.io.sstable.format.SSTableFormat;
import org.apache.cassandra.io.util.File;
import org.apache.cassandra.schema.KeyspaceMetadata;
import org.apache.cassandra.schema.KeyspaceParams;
import org.apache.cassandra.schema.Schema;
import org.apache.cassandra.schema.SchemaTransformations;
import org.apache.cassandra.schema.TableMetadata;
import org.apache.cassandra.tcm.ClusterMetadataService;
import org.apache.cassandra.utils.StorageCompatibilityMode;

/**
 * Cassandra 6.0-alpha2 brought up offline in this JVM, as far as a flush and a compaction need it, and the
 * tables the benchmarks use.
 *
 * <p>Client mode, as 6.0's own CQLSSTableWriter starts it: {@code clientInitialization}, the partitioner,
 * {@code ClusterMetadataService.initializeForClients()} (6.0 keeps its schema in transactional cluster
 * metadata), keyspaces submitted through {@code Schema.instance}, and each table's ColumnFamilyStore built over a
 * keyspace instance of its own ({@code Keyspace.mockKS}) with a data directory we choose. The commit log is
 * started because every memtable asks it for its position when it is built; nothing is written to it.
 *
 * <p><b>The sstable version.</b> 6.0 writes BIG {@code pa} when {@code storage_compatibility_mode} is NONE
 * (what 6.0 uses when cassandra.yaml does not set it, and what client mode forces) or UPGRADING, and BIG
 * {@code oa}, the 5.0 format Flushline writes, when it is CASSANDRA_5 ({@code nb} for CASSANDRA_4). The
 * version is fixed when the BIG format's version class initializes, which {@code clientInitialization}
 * triggers right after it sets the mode to NONE. So for another mode we set the mode's starting value through
 * its system property and initialize that class first, then put the mode back after client initialization, so
 * that everything later reads the mode a node configured with {@code storage_compatibility_mode: CASSANDRA_5}
 * would. {@link #sstableVersion()} reports what took effect.
 *
 * <p>What a node derives from its config at start-up and client mode leaves unset, set here as a node would:
 * the compaction read mode ({@code auto} becomes {@code disk_access_mode}'s data mode, standard), background
 * writes standard (6.0's default; no direct I/O), the guardrails (the cursor compaction's writer reads one),
 * and the compactor and validator pool sizes (CompactionManager sizes its pools from them). As in the 5.0.5 peer,
 * {@code disk_access_mode} itself stays at client mode's raw default (mmap_index_only); compaction is
 * unthrottled.
 *
 * <p>Not thread-safe: call from the protocol thread only.
 */
final class Node6 {
    private static boolean initialized;
    private static StorageCompatibilityMode mode;
    private static final Map<String, ColumnFamilyStore> STORES = new HashMap<>();
    private static int keyspaces;

    private Node6() {}

    static synchronized void init(Path nodeDir, StorageCompatibilityMode wanted) throws IOException {
        if (initialized) return;
        CassandraRelevantProperties.FORCE_LOAD_LOCAL_KEYSPACES.setBoolean(true);
        if (wanted != StorageCompatibilityMode.NONE) {
            CassandraRelevantProperties.TEST_STORAGE_COMPATIBILITY_MODE.setString(wanted.name());
            try {
                Class.forName("org.apache.cassandra.io.sstable.format.big.BigFormat$BigVersion", true,
                        Node6.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("cassandra-all 6.0 without BigFormat$BigVersion: cannot pin the sstable version", e);
            }
        }
        DatabaseDescriptor.clientInitialization(false);
        if (wanted != StorageCompatibilityMode.NONE) setMode(wanted);
        mode = DatabaseDescriptor.getStorageCompatibilityMode();
        if (DatabaseDescriptor.getPartitioner() == null) DatabaseDescriptor.setPartitionerUnsafe(Murmur3Partitioner.instance);

        Config conf = DatabaseDescriptor.getRawConfig();
        // AbstractAllocatorMemtable's static pool needs these to initialize; the pool we measure with is set per
        // memtable (Flush6.usePool).
        if (conf.memtable_heap_space == null) conf.memtable_heap_space = new DataStorageSpec.IntMebibytesBound(1024, DataStorageSpec.DataStorageUnit.MEBIBYTES);
        if (conf.memtable_offheap_space == null) conf.memtable_offheap_space = new DataStorageSpec.IntMebibytesBound(1024, DataStorageSpec.DataStorageUnit.MEBIBYTES);
        if (conf.memtable_cleanup_threshold == null) conf.memtable_cleanup_threshold = 1.0f;
        if (conf.data_file_directories == null || conf.data_file_directories.length == 0) {
            conf.data_file_directories = new String[] {nodeDir.resolve("data").toString()};
        }
        if (conf.commitlog_directory == null) conf.commitlog_directory = nodeDir.resolve("commitlog").toString();
        if (conf.hints_directory == null) conf.hints_directory = nodeDir.resolve("hints").toString();
        if (conf.saved_caches_directory == null) conf.saved_caches_directory = nodeDir.resolve("saved_caches").toString();
        if (conf.accord.journal_directory == null) conf.accord.journal_directory = nodeDir.resolve("accord_journal").toString();
        if (conf.commitlog_sync == null) {
            conf.commitlog_sync = Config.CommitLogSync.periodic;
            conf.commitlog_sync_period = new DurationSpec.IntMillisecondsBound("10000ms");
        }
        if (conf.commitlog_total_space == null) conf.commitlog_total_space = new DataStorageSpec.IntMebibytesBound(8192, DataStorageSpec.DataStorageUnit.MEBIBYTES);
        if (DatabaseDescriptor.getCommitLogWriteDiskAccessMode() == null) {
            DatabaseDescriptor.setCommitLogWriteDiskAccessMode(Config.DiskAccessMode.mmap);
        }
        if (DatabaseDescriptor.getCompactionReadDiskAccessMode() == null) {
            DatabaseDescriptor.setCompactionReadDiskAccessMode(Config.DiskAccessMode.standard);
        }
        if (DatabaseDescriptor.getBackgroundWriteDiskAccessMode() == null) {
            DatabaseDescriptor.setBackgroundWriteDiskAccessMode(Config.DiskAccessMode.standard);
        }
        DatabaseDescriptor.setCompactionThroughputMebibytesPerSec(0);
        // CompactionManager sizes its pools from these when a compaction task first touches it; a node derives
        // them at start-up as below (one data directory here).
        if (conf.concurrent_compactors == null) {
            conf.concurrent_compactors = Math.min(8, Math.max(2, Math.min(Runtime.getRuntime().availableProcessors(), 1)));
        }
        if (conf.concurrent_validations < 1) conf.concurrent_validations = conf.concurrent_compactors;
        // The cursor compaction's writer reads the partition-size guardrail; client mode builds no guardrails,
        // a node builds them from its config at start-up with this private step.
        if (DatabaseDescriptor.getGuardrailsConfig() == null) applyPrivately("applyGuardrails");
        ClusterMetadataService.initializeForClients();
        CommitLog.instance.start();
        initialized = true;
    }

    private static void applyPrivately(String method) {
        try {
            java.lang.reflect.Method m = DatabaseDescriptor.class.getDeclaredMethod(method);
            m.setAccessible(true);
            m.invoke(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot run DatabaseDescriptor." + method + "() in client mode", e);
        }
    }

    private static void setMode(StorageCompatibilityMode wanted) {
        try {
            Field f = DatabaseDescriptor.class.getDeclaredField("storageCompatibilityMode");
            f.setAccessible(true);
            f.set(null, wanted);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot set storage_compatibility_mode " + wanted + " in client mode", e);
        }
    }

    static StorageCompatibilityMode mode() {
        return mode;
    }

    /** The format and version this JVM writes, e.g. {@code big-oa}. */
    static String sstableVersion() {
        SSTableFormat<?, ?> f = DatabaseDescriptor.getSelectedSSTableFormat();
        return f.name() + "-" + f.getLatestVersion();
    }

    /**
     * The store of the table {@code cql} with its data directory under {@code root}: one per distinct pair, each
     * in a keyspace of its own (the statement's keyspace is replaced).
     */
    static synchronized ColumnFamilyStore store(String cql, Path root) throws IOException {
        String key = root.toAbsolutePath() + "\n" + cql;
        ColumnFamilyStore cached = STORES.get(key);
        if (cached != null) return cached;
        String keyspace = "peer6_" + (++keyspaces);
        TableMetadata table = CreateTableStatement.parse(cql, keyspace).partitioner(Murmur3Partitioner.instance).build();
        Schema.instance.submit(SchemaTransformations.addKeyspace(KeyspaceMetadata.create(keyspace, KeyspaceParams.simple(1)), true));
        Schema.instance.submit(SchemaTransformations.addTable(table, true));
        KeyspaceMetadata ksm = Schema.instance.getKeyspaceMetadata(keyspace);
        TableMetadata published = ksm.tables.getNullable(table.name);
        if (published == null) throw new IllegalStateException("table " + keyspace + "." + table.name + " did not reach the schema");
        Keyspace ks = Keyspace.mockKS(ksm);
        Path dir = Files.createDirectories(root.resolve(keyspace));
        Directories directories = new Directories(published, Collections.singleton(new Directories.DataDirectory(new File(dir))));
        // a node creates <data>/<ks>/<table>-<id>/ with the table; offline we do it here
        for (File d : directories.getCFDirectories()) Files.createDirectories(d.toPath());
        ColumnFamilyStore cfs = ColumnFamilyStore.createColumnFamilyStore(ks, published.name, published, directories, false, false);
        ks.initCfCustom(cfs);
        STORES.put(key, cfs);
        return cfs;
    }
}

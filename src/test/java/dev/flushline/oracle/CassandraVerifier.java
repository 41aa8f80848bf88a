package dev.flushline.oracle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.Directories;
import org.apache.cassandra.db.Keyspace;
import org.apache.cassandra.io.sstable.Component;
import org.apache.cassandra.io.sstable.Descriptor;
import org.apache.cassandra.io.sstable.IVerifier;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.io.util.File;
import org.apache.cassandra.schema.KeyspaceMetadata;
import org.apache.cassandra.schema.KeyspaceParams;
import org.apache.cassandra.schema.Schema;
import org.apache.cassandra.schema.SchemaTransformations;
import org.apache.cassandra.schema.TableMetadata;
import org.apache.cassandra.schema.TableMetadataRef;
import org.apache.cassandra.utils.OutputHandler;

/**
 * Runs cassandra-all 5.0.9's sstable verifier (the code behind {@code sstableverify -f -e -c}: BigTableVerifier
 * with extended verification and the latest-version check) over every sstable of a folder, offline.
 *
 * <p>The verifier needs a ColumnFamilyStore (it checks the reader's metadata against it, builds a
 * CompactionController from it, and reads Summary.db with its metadata). sstableverify gets one from a
 * tool-initialized node schema; in client mode we build it the way CQLSSTableWriter does for SAI indexes:
 * a keyspace added to the in-memory Schema, {@code Keyspace.openWithoutSSTables} and
 * {@code ColumnFamilyStore.createColumnFamilyStore(..., offline=true)}. The table gets a private keyspace name
 * per distinct CQL text so the store never collides with tables other tests (or CQLSSTableWriter) put into
 * the shared Schema; keyspace names are not stored in sstable files, so this does not change what is checked.
 * Stores are cached per CQL text (a store cannot be dropped in client mode: invalidate() touches system tables).
 *
 * <p>Options: extended verification on (every partition is deserialized even when Digest.crc32 matches),
 * checkVersion on for {@code oa} (the file must be the latest version); off for {@code nb}, which is the latest
 * version only of a node in storage_compatibility_mode CASSANDRA_4, not of this client-mode JVM; no token ownership check (there is
 * no ring offline — sstableverify also only does it when given explicit ranges), repair status never mutated,
 * disk failure policy not invoked.
 */
public final class CassandraVerifier {
    private static final Map<String, ColumnFamilyStore> STORES = new HashMap<>();
    private static int keyspaceCounter;

    private CassandraVerifier() {
    }

    /** Problems (empty = every sstable passed) and the verifier's informational output, for diagnostics. */
    public record Result(List<String> problems, List<String> log) {
        public boolean passed() {
            return problems.isEmpty();
        }
    }

    /** Verifies every sstable in the folder; returns one line per problem, empty when everything passes. */
    public static List<String> verify(Path sstableDir, String createTableCql) {
        return verifyDetailed(sstableDir, createTableCql).problems();
    }

    public static Result verifyDetailed(Path sstableDir, String createTableCql) {
        ColumnFamilyStore cfs = store(createTableCql);
        TableMetadata table = cfs.metadata();
        List<String> problems = new ArrayList<>();
        List<String> log = new ArrayList<>();
        List<Path> dataFiles = CassandraReader.dataFiles(sstableDir);
        if (dataFiles.isEmpty()) {
            problems.add("no *-Data.db in " + sstableDir);
        }
        for (Path dataFile : dataFiles) {
            Descriptor descriptor = Descriptor.fromFileWithComponent(new File(dataFile.toAbsolutePath()),
                                                                     table.keyspace, table.name).left;
            CollectingOutput output = verifyOne(cfs, descriptor);
            problems.addAll(output.problems);
            log.addAll(output.log);
        }
        return new Result(List.copyOf(problems), List.copyOf(log));
    }

    private static CollectingOutput verifyOne(ColumnFamilyStore cfs, Descriptor descriptor) {
        String name = descriptor.baseFile().name();
        CollectingOutput output = new CollectingOutput(name);
        Set<Component> components = descriptor.discoverComponents();
        if (!components.containsAll(descriptor.getFormat().primaryComponents())) {
            // sstableverify silently skips such sstables; for us a missing primary component is a failure.
            output.problems.add(name + ": missing primary components, has only " + components);
            return output;
        }
        SSTableReader reader;
        try {
            // What sstableverify does: open without validation, since the file may be broken.
            reader = SSTableReader.openNoValidation(descriptor, components, cfs);
        } catch (Throwable t) {
            output.problems.add(name + ": cannot open: " + describe(t));
            return output;
        }
        try {
            IVerifier.Options options = IVerifier.options()
                                                 .invokeDiskFailurePolicy(false)
                                                 .extendedVerification(true)
                                                 .checkVersion(!descriptor.version.version.equals("nb"))
                                                 .mutateRepairStatus(false)
                                                 .checkOwnsTokens(false)
                                                 .quick(false)
                                                 .build();
            try (IVerifier verifier = reader.getVerifier(cfs, output, true, options)) {
                verifier.verify();
            }
        } catch (Throwable t) {
            output.problems.add(name + ": " + describe(t));
        } finally {
            reader.selfRef().release();
        }
        return output;
    }

    public static synchronized ColumnFamilyStore store(String createTableCql) {
        ColumnFamilyStore existing = STORES.get(createTableCql);
        if (existing != null) {
            return existing;
        }
        CassandraOracle.init();
        String keyspace = "flushline_verify_" + (++keyspaceCounter);
        // the keyspace argument overrides the one in the CQL (its types keep theirs, see parseTable)
        TableMetadata table = CassandraOracle.parseTable(createTableCql, keyspace);
        Schema.instance.transform(SchemaTransformations.addKeyspace(
                KeyspaceMetadata.create(keyspace, KeyspaceParams.simple(1)), true));
        Keyspace ks = Keyspace.openWithoutSSTables(keyspace);
        // The store's Directories create <dir>/<ks>/<table>-<id>/ folders; keep them out of the caller's folder.
        // Under the build's cassandra.storagedir when surefire sets it, so `mvn clean` removes them.
        Path dataDir;
        try {
            String storage = System.getProperty("cassandra.storagedir");
            Path parent = storage == null ? Path.of(System.getProperty("java.io.tmpdir")) : Files.createDirectories(Path.of(storage));
            dataDir = Files.createTempDirectory(parent, "flushline-verify-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Directories directories = new Directories(table, Collections.singleton(new Directories.DataDirectory(new File(dataDir))));
        ColumnFamilyStore cfs = ColumnFamilyStore.createColumnFamilyStore(ks, table.name, TableMetadataRef.forOfflineTools(table),
                                                                          directories, false, false, true);
        STORES.put(createTableCql, cfs);
        return cfs;
    }

    private static String describe(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (sb.length() > 0) {
                sb.append(" <- ");
            }
            sb.append(c.getClass().getSimpleName()).append(": ").append(c.getMessage());
            if (c.getCause() == c) {
                break;
            }
        }
        return sb.toString();
    }

    /** Turns the verifier's warnings (and its duplicate-row report, which it only prints) into problems. */
    private static final class CollectingOutput implements OutputHandler {
        private final String name;
        private final List<String> problems = new ArrayList<>();
        private final List<String> log = new ArrayList<>();

        CollectingOutput(String name) {
            this.name = name;
        }

        @Override
        public void output(String msg) {
            log.add(name + ": " + msg);
            if (msg.contains("duplicate rows found")) {
                problems.add(name + ": " + msg);
            }
        }

        @Override
        public void debug(String msg) {
        }

        @Override
        public void warn(String msg) {
            problems.add(name + ": " + msg);
        }

        @Override
        public void warn(Throwable th, String msg) {
            problems.add(name + ": " + msg + " (" + describe(th) + ")");
        }
    }
}

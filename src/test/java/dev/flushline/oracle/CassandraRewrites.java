package dev.flushline.oracle;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.compaction.ActiveCompactionsTracker;
import org.apache.cassandra.db.compaction.CompactionTask;
import org.apache.cassandra.db.compaction.OperationType;
import org.apache.cassandra.db.compaction.Upgrader;
import org.apache.cassandra.db.lifecycle.LifecycleTransaction;
import org.apache.cassandra.io.sstable.Descriptor;
import org.apache.cassandra.io.sstable.IScrubber;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.io.util.File;
import org.apache.cassandra.schema.TableMetadata;
import org.apache.cassandra.utils.OutputHandler;

/**
 * Cassandra 5.0.9 rewriting sstables the ways a node and its offline tools do, in process and
 * offline (the ColumnFamilyStore of {@link CassandraVerifier}): a compaction task
 * ({@code CompactionTask}, what a node's compaction and {@code nodetool compact} run, through
 * SSTableRewriter), {@code upgradesstables} ({@code Upgrader}) and {@code scrub} (the format's
 * scrubber). These are the writers that sync Data.db before they finish it, so their files may
 * end with an empty chunk that a flush's never have.
 *
 * <p>Each method takes copies of its inputs' Data.db paths (a compaction or scrub deletes what it
 * replaces) and copies every component of what it wrote into {@code outDir}.
 */
public final class CassandraRewrites {
    private CassandraRewrites() {}

    /** A compaction task over {@code dataFiles} that purges tombstones deleted before {@code gcBefore}. */
    public static List<Path> compact(List<Path> dataFiles, String createTableCql, long gcBefore, Path outDir) {
        prepareCompactionManager();
        ColumnFamilyStore cfs = CassandraVerifier.store(createTableCql);
        Set<SSTableReader> readers = open(cfs, dataFiles);
        Path target = dataDirectory(cfs);
        Set<Path> before = dataFiles(target);
        try (LifecycleTransaction txn = LifecycleTransaction.offline(OperationType.COMPACTION, readers)) {
            new CompactionTask(cfs, txn, gcBefore).execute(ActiveCompactionsTracker.NOOP); // releases what it replaces
        }
        return copyNew(target, before, outDir);
    }

    /**
     * A compaction task consults CompactionManager, whose executors are sized from settings that
     * only a node's or a tool's start fills in; client mode leaves them unset.
     */
    private static synchronized void prepareCompactionManager() {
        try {
            DatabaseDescriptor.getConcurrentCompactors();
        } catch (NullPointerException unset) {
            DatabaseDescriptor.setConcurrentCompactors(1);
        }
        if (DatabaseDescriptor.getConcurrentValidations() <= 0) DatabaseDescriptor.setConcurrentValidations(1);
    }

    /** The inputs a rewrite keeps. (The readers a rewrite opens on its outputs are not handed out, so are never released.) */
    private static void release(Set<SSTableReader> readers) {
        for (SSTableReader r : readers) r.selfRef().release();
    }

    /** upgradesstables of one (nb) sstable: an oa sstable written next to it, which is kept. */
    public static List<Path> upgrade(Path dataFile, String createTableCql, Path outDir) {
        ColumnFamilyStore cfs = CassandraVerifier.store(createTableCql);
        Set<SSTableReader> readers = open(cfs, List.of(dataFile));
        Path target = dataFile.toAbsolutePath().getParent();
        Set<Path> before = dataFiles(target);
        prepareCompactionManager();
        try (LifecycleTransaction txn = LifecycleTransaction.offline(OperationType.UPGRADE_SSTABLES, readers)) {
            new Upgrader(cfs, txn, new OutputHandler.LogOutput()).upgrade(true);
        } finally {
            release(readers);
        }
        return copyNew(target, before, outDir);
    }

    /** scrub of one sstable with the default options (check data, stop on the first corrupt partition). */
    public static List<Path> scrub(Path dataFile, String createTableCql, Path outDir) {
        ColumnFamilyStore cfs = CassandraVerifier.store(createTableCql);
        prepareCompactionManager();
        Set<SSTableReader> readers = open(cfs, List.of(dataFile));
        SSTableReader sstable = readers.iterator().next();
        Path target = dataDirectory(cfs);
        Set<Path> before = dataFiles(target);
        try (LifecycleTransaction txn = LifecycleTransaction.offline(OperationType.SCRUB, readers);
             IScrubber scrubber = sstable.descriptor.getFormat().getScrubber(cfs, txn, new OutputHandler.LogOutput(),
                                                                              IScrubber.options().checkData().build())) {
            scrubber.scrub(); // releases what it replaces
        }
        return copyNew(target, before, outDir);
    }

    private static Set<SSTableReader> open(ColumnFamilyStore cfs, List<Path> dataFiles) {
        TableMetadata table = cfs.metadata();
        Set<SSTableReader> readers = new LinkedHashSet<>();
        for (Path dataFile : dataFiles) {
            Descriptor d = Descriptor.fromFileWithComponent(new File(dataFile.toAbsolutePath()), table.keyspace, table.name).left;
            readers.add(SSTableReader.openNoValidation(d, d.discoverComponents(), cfs));
        }
        return readers;
    }

    /** Where the store writes new sstables: its one data directory's table folder. */
    private static Path dataDirectory(ColumnFamilyStore cfs) {
        return Path.of(cfs.getDirectories().getDirectoryForNewSSTables().absolutePath());
    }

    private static Set<Path> dataFiles(Path dir) {
        Set<Path> out = new HashSet<>();
        if (!Files.isDirectory(dir)) return out;
        try (Stream<Path> s = Files.list(dir)) {
            s.filter(p -> p.getFileName().toString().endsWith("-Data.db")).forEach(out::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    private static List<Path> copyNew(Path dir, Set<Path> before, Path outDir) {
        List<Path> written = new ArrayList<>();
        try {
            Files.createDirectories(outDir);
            for (Path data : dataFiles(dir)) {
                if (before.contains(data)) continue;
                String prefix = data.getFileName().toString().replace("Data.db", "");
                try (Stream<Path> s = Files.list(dir)) {
                    for (Path p : (Iterable<Path>) s::iterator) {
                        if (p.getFileName().toString().startsWith(prefix)) Files.copy(p, outDir.resolve(p.getFileName()));
                    }
                }
                written.add(outDir.resolve(data.getFileName()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        written.sort(null);
        return written;
    }
}

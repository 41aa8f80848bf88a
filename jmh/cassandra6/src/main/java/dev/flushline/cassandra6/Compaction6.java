package dev.flushline.cassandra6;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.LoggerFactory;

import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.db.ColumnFamilyStore;
import org.apache.cassandra.db.Directories;
import org.apache.cassandra.db.compaction.ActiveCompactionsTracker;
import org.apache.cassandra.db.compaction.CompactionInfo;
import org.apache.cassandra.db.compaction.CompactionTask;
import org.apache.cassandra.db.compaction.CursorCompactor;
import org.apache.cassandra.db.compaction.OperationType;
import org.apache.cassandra.db.compaction.writers.CompactionAwareWriter;
import org.apache.cassandra.db.compaction.writers.DefaultCompactionWriter;
import org.apache.cassandra.db.lifecycle.ILifecycleTransaction;
import org.apache.cassandra.db.lifecycle.LifecycleTransaction;
import org.apache.cassandra.io.sstable.Descriptor;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.io.util.File;
import org.apache.cassandra.schema.TableMetadata;

/**
 * Cassandra 6.0's major compaction of input sstables already on disk, as a node runs it: a
 * {@link CompactionTask} over an offline transaction of the inputs, which picks its pipeline itself. With
 * {@code cursor_compaction_enabled} the task asks {@code CursorCompactor.isSupported} and runs the cursor
 * pipeline (CursorCompactor: reusable flyweights over the input bytes, writing through SSTableCursorWriter) when
 * it may, else the iterator pipeline (CompactionIterator + the row writer, 5.0's path); without the setting it
 * always runs the iterator pipeline.
 *
 * <p><b>Which path ran.</b> The task hands the pipeline it built to its ActiveCompactionsTracker
 * ({@code beginCompaction}); the pipeline is package-private in 6.0, but its class name is the answer:
 * {@code CursorCompactionPipeline} or {@code IteratorCompactionPipeline}. When the cursor path was asked for and
 * not taken, CursorCompactor has logged the reason at DEBUG ("... is not supported. REASON: ..."); the
 * peer captures that logger's lines and reports them.
 *
 * <p>The inputs are opened once as SSTableReaders of a store of their table before anything is measured (on a
 * node they are open long before a compaction). {@code keepOriginals} is set, so that the inputs survive for
 * the next round and the other systems; the writer is 6.0's DefaultCompactionWriter (SSTableRewriter, no
 * early open in an offline transaction), wrapped only to learn which sstables it finished. The task takes
 * "now" from the system clock, as it always does; the inputs' TTLs expired long before any clock this runs on,
 * so the output does not depend on it, and the equality check with Flushline's output says whether it did.
 * Compaction throughput is 0 (unthrottled).
 *
 * <p>Measured, by the caller: the compacting thread (everything the task does runs on it).
 *
 * <p>Not thread-safe; one compaction at a time.
 */
final class Compaction6 implements AutoCloseable {
    /** CursorCompactor's fallback reasons, kept from the start of the peer. */
    private static final ListAppender<ILoggingEvent> CURSOR_LOG = new ListAppender<>();

    static {
        ch.qos.logback.classic.Logger l =
                (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(CursorCompactor.class.getName());
        l.setLevel(ch.qos.logback.classic.Level.DEBUG);
        CURSOR_LOG.setContext(l.getLoggerContext());
        CURSOR_LOG.start();
        l.addAppender(CURSOR_LOG);
    }

    final ColumnFamilyStore cfs;
    private final Set<SSTableReader> readers = new LinkedHashSet<>();

    /** Opens {@code dataFiles} (Data.db paths) as readers of the store of {@code cql} whose data lives under {@code storeRoot}. */
    Compaction6(String cql, List<Path> dataFiles, Path storeRoot) throws IOException {
        this.cfs = Node6.store(cql, storeRoot);
        TableMetadata table = cfs.metadata();
        for (Path dataFile : dataFiles) {
            Descriptor d = Descriptor.fromFileWithComponent(new File(dataFile.toAbsolutePath()), table.keyspace, table.name).left;
            readers.add(SSTableReader.openNoValidation(d, d.discoverComponents(), cfs));
        }
    }

    int inputs() {
        return readers.size();
    }

    /** What one compaction did. */
    static final class Outcome {
        String pipeline;
        String fallbackReason = "";
        final List<SSTableReader> outputs = new ArrayList<>();
    }

    /**
     * The compaction, on the calling thread, with {@code cursor_compaction_enabled} set to {@code cursor}. Outputs
     * land in the store's table directory; the caller reads them and then calls {@link #discard}.
     */
    Outcome compact(boolean cursor, long gcBefore) {
        DatabaseDescriptor.setCursorCompactionEnabled(cursor);
        int logged;
        synchronized (CURSOR_LOG.list) {
            logged = CURSOR_LOG.list.size();
        }
        Outcome o = new Outcome();
        AtomicReference<String> pipeline = new AtomicReference<>();
        ActiveCompactionsTracker tracker = new ActiveCompactionsTracker() {
            @Override
            public void beginCompaction(CompactionInfo.Holder ci) {
                pipeline.compareAndSet(null, ci.getClass().getSimpleName());
            }

            @Override
            public void finishCompaction(CompactionInfo.Holder ci) {
            }
        };
        LifecycleTransaction txn = LifecycleTransaction.offline(OperationType.COMPACTION, readers);
        CompactionTask task = new CompactionTask(cfs, txn, gcBefore, true) {
            @Override
            public CompactionAwareWriter getCompactionAwareWriter(ColumnFamilyStore store, Directories directories,
                                                                  ILifecycleTransaction transaction, Set<SSTableReader> nonExpired) {
                return new DefaultCompactionWriter(store, directories, transaction, nonExpired, keepOriginals, getLevel()) {
                    @Override
                    public Collection<SSTableReader> finish() {
                        Collection<SSTableReader> finished = super.finish();
                        o.outputs.addAll(finished);
                        return finished;
                    }
                };
            }
        };
        task.execute(tracker);
        o.pipeline = pipeline.get() == null ? "none (no pipeline started)" : pipeline.get();
        synchronized (CURSOR_LOG.list) {
            StringBuilder reasons = new StringBuilder();
            for (int i = logged; i < CURSOR_LOG.list.size(); i++) {
                String m = CURSOR_LOG.list.get(i).getFormattedMessage();
                int at = m.indexOf("REASON: ");
                if (at < 0) continue;
                if (reasons.length() > 0) reasons.append("; ");
                reasons.append(m.substring(at + "REASON: ".length()));
            }
            o.fallbackReason = reasons.toString();
            CURSOR_LOG.list.clear();
        }
        return o;
    }

    /** Every file in the store's table directories: what the last compaction wrote. */
    List<Path> outputFiles() throws IOException {
        List<Path> files = new ArrayList<>();
        for (File d : cfs.getDirectories().getCFDirectories()) {
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(d.toPath())) {
                for (Path p : ds) if (Files.isRegularFile(p)) files.add(p);
            }
        }
        files.sort(null);
        return files;
    }

    /** Releases the last compaction's outputs and deletes every file of the store's table directories. */
    void discard(Outcome o) throws IOException {
        for (SSTableReader r : o.outputs) r.selfRef().release();
        for (Path p : outputFiles()) Files.delete(p);
    }

    @Override
    public void close() {
        for (SSTableReader r : readers) r.selfRef().release();
        readers.clear();
    }
}

package dev.flushline.sstable;

import dev.flushline.data.Murmur3;
import dev.flushline.data.TokenRing;
import dev.flushline.io.SyncedFileOutput;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Ring-aware output: the sstables a flush or compaction published into one table directory, split
 * at the ring's segments ({@link TokenRing#splitTokens}), are placed into one directory per node,
 * so that each node's directory holds exactly the token ranges that node replicates and
 * {@code nodetool import} on every node loads the data with nothing to stream and nothing for
 * {@code nodetool cleanup} to remove.
 *
 * <pre>
 * OUT/.flushline-ring/&lt;ks&gt;/&lt;table&gt;-&lt;id&gt;/   where the flush or compaction publishes ({@link #stagingRoot})
 * OUT/&lt;address&gt;/&lt;ks&gt;/&lt;table&gt;-&lt;id&gt;/       one per node in the ring ({@link #nodeRoot}); empty nodes get none
 * </pre>
 *
 * For each complete sstable of the source directory: its first and last keys (Summary.db) give its
 * tokens, which must lie in one segment, else it is refused by name (it was written without this
 * ring's splits); for each replica of that segment a generation is reserved in the node's table
 * directory, the components are hard-linked into its staging directory (copied, and fsynced,
 * where the file system cannot link) and published as a writer publishes (TOC.txt last, see
 * {@link Descriptor#renameStagedIntoPlace}); then the source is removed under its generation's
 * lock, TOC.txt first. Linked copies share their files: the output takes the disk space of one
 * copy, and Cassandra never writes into a component it has published, so importing one node's
 * copy cannot change another's.
 *
 * <p>A crash midway leaves each placed copy complete or invisible (the node directory's next open
 * removes a cut-short publish), and the source complete or, once its removal had begun, a TOC-less
 * generation beside a dead lock that the source directory's next open removes. A source left
 * complete is placed again by the next run into the same OUT, so a node may then hold it twice,
 * which a read reconciles to the same rows.
 *
 * <p>Thread safety: one caller per source and output directory.
 */
public final class ReplicaPlacement {
    /** The folder under OUT where flushes and compactions publish before their sstables are placed. */
    public static final String STAGING_FOLDER = ".flushline-ring";

    private ReplicaPlacement() {}

    /** Where the sstables for {@code outRoot} are written before they are placed. */
    public static Path stagingRoot(Path outRoot) {
        return outRoot.resolve(STAGING_FOLDER);
    }

    /** The directory of node {@code address} under {@code outRoot}: it holds {@code <ks>/<table>-<id>/}. */
    public static Path nodeRoot(Path outRoot, String address) {
        return outRoot.resolve(address);
    }

    /** One sstable placed: where it was, its token span, and its copies (one per replica, in node order). */
    public record Placed(Path source, long firstToken, long lastToken, List<Path> copies) {
        public Placed {
            copies = List.copyOf(copies);
        }
    }

    /** What {@link #place} did. */
    public static final class Result {
        public final List<Placed> placed = new ArrayList<>();
        /** Per node (ring order): sstables placed, and the bytes of their components. */
        public final int[] sstablesPerNode;
        public final long[] bytesPerNode;
        /** Components hard-linked, and copied where linking was not possible. */
        public int linkedFiles, copiedFiles;

        Result(int nodes) {
            sstablesPerNode = new int[nodes];
            bytesPerNode = new long[nodes];
        }
    }

    /**
     * Places every complete sstable of {@code sourceTableDir} (a {@code <ks>/<table>-<id>} directory)
     * into the same {@code <ks>/<table>-<id>} under each of its replicas' {@link #nodeRoot}s, and
     * removes it from the source. An sstable whose first and last tokens lie in different segments
     * is refused ({@link IncompatibleSSTableException}) before anything of it is placed.
     */
    public static Result place(Path sourceTableDir, TokenRing ring, Path outRoot) throws IOException {
        Result result = new Result(ring.nodeCount());
        if (!Files.isDirectory(sourceTableDir)) return result;
        String keyspace = sourceTableDir.getParent().getFileName().toString();
        String tableFolder = sourceTableDir.getFileName().toString();
        Map<Integer, TableDirectory> targets = new HashMap<>();
        for (SSTableFiles f : SSTableFiles.inDirectory(sourceTableDir)) {
            byte[][] keys = PartitionIndex.boundaryKeys(f);
            long first = Murmur3.token(keys[0], 0, keys[0].length);
            long last = Murmur3.token(keys[1], 0, keys[1].length);
            int segment = ring.segmentOf(first);
            if (ring.segmentOf(last) != segment) {
                throw new IncompatibleSSTableException(f.path(Component.DATA), "its tokens " + first + " to " + last
                        + " span token ranges with different replicas in the ring (one starts at " + ring.segmentFirst(ring.segmentOf(last))
                        + "): it was not written split at this ring's ranges; nothing of it was placed");
            }
            List<Path> copies = new ArrayList<>();
            for (int node : ring.segmentReplicas(segment)) {
                TableDirectory target = targets.get(node);
                if (target == null) {
                    target = TableDirectory.open(nodeRoot(outRoot, ring.node(node).address()).resolve(keyspace).resolve(tableFolder));
                    targets.put(node, target);
                }
                Path copy = publishCopy(f, target, result);
                copies.add(copy);
                result.sstablesPerNode[node]++;
                result.bytesPerNode[node] += componentBytes(f);
            }
            remove(f);
            result.placed.add(new Placed(f.path(Component.DATA), first, last, copies));
        }
        removeIfEmpty(sourceTableDir);
        return result;
    }

    /** Links (or copies) the components of {@code f} into a new generation of {@code target} and publishes it; returns its Data.db. */
    private static Path publishCopy(SSTableFiles f, TableDirectory target, Result result) throws IOException {
        Descriptor d = target.reserveNext(f.version());
        boolean published = false;
        try {
            for (Component c : Component.values()) {
                Path from = f.path(c);
                if (!Files.exists(from)) continue;
                Path to = d.stagingPath(c);
                try {
                    Files.createLink(to, from);
                    result.linkedFiles++;
                } catch (UnsupportedOperationException | FileSystemException cannotLink) {
                    // Another file system (or one without hard links): a copy of our own, made durable as a writer's file is.
                    Files.copy(from, to);
                    try (FileChannel ch = FileChannel.open(to, StandardOpenOption.WRITE)) {
                        ch.force(true);
                    }
                    result.copiedFiles++;
                }
            }
            SyncedFileOutput.syncDirectory(d.stagingDir());
            d.renameStagedIntoPlace();
            SyncedFileOutput.syncDirectory(d.tableDir());
            Files.delete(d.stagingDir());
            published = true;
            return d.path(Component.DATA);
        } finally {
            if (!published) SSTableWriter.deleteStaging(d);
            else d.releaseReservation(); // after the staging dir: a held lock marks a live writer to Leftovers
        }
    }

    /** Removes a placed source sstable: under its generation's lock, TOC.txt first, so a crash leaves nothing that looks complete. */
    private static void remove(SSTableFiles f) throws IOException {
        int generation;
        try {
            generation = Integer.parseInt(f.id());
        } catch (NumberFormatException e) {
            throw new IncompatibleSSTableException(f.path(Component.DATA), "not a generation Flushline writes (" + f.id() + "); not removed");
        }
        Descriptor lock = Descriptor.lockPublished(f.dir(), generation, f.version());
        if (lock == null) {
            throw new IOException(f.path(Component.DATA) + " is placed, but another writer holds its generation's lock "
                    + lock(f.dir(), generation) + ", so it was not removed from " + f.dir());
        }
        try {
            Files.deleteIfExists(f.path(Component.TOC));
            Component[] all = Component.values();
            for (int i = all.length - 1; i >= 0; i--) Files.deleteIfExists(f.path(all[i]));
            SyncedFileOutput.syncDirectory(f.dir());
        } finally {
            lock.releaseReservation();
        }
    }

    private static Path lock(Path dir, int generation) {
        return dir.resolve(Descriptor.STAGING_PREFIX + generation + Descriptor.LOCK_SUFFIX);
    }

    private static long componentBytes(SSTableFiles f) throws IOException {
        long total = 0;
        for (Component c : Component.values()) {
            Path p = f.path(c);
            if (Files.exists(p)) total += Files.size(p);
        }
        return total;
    }

    /**
     * Deletes the source table directory once nothing is left in it, then its keyspace folder, then
     * (when the source was under {@link #stagingRoot}) the staging folder, each only if empty.
     */
    private static void removeIfEmpty(Path tableDir) throws IOException {
        Path ks = tableDir.getParent();
        Path root = ks.getParent();
        if (!isEmpty(tableDir)) return;
        Files.delete(tableDir);
        if (!isEmpty(ks)) return;
        Files.delete(ks);
        if (root != null && root.getFileName() != null && root.getFileName().toString().equals(STAGING_FOLDER) && isEmpty(root)) {
            Files.delete(root);
        }
    }

    private static boolean isEmpty(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) return false;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            return !ds.iterator().hasNext();
        }
    }
}

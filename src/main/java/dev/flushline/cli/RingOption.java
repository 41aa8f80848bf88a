package dev.flushline.cli;

import dev.flushline.schema.ValueText;
import dev.flushline.data.RingFile;
import dev.flushline.data.TokenRing;
import dev.flushline.sstable.ReplicaPlacement;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * {@code --ring FILE} of {@code load} and {@code compact}: read the ring file, and after the
 * command has published its sstables (split at the ring's ranges, under
 * {@link ReplicaPlacement#stagingRoot}), place them into one directory per node and say where.
 */
final class RingOption {
    static final String OPTION = "ring";

    static final String HELP =
            "  --ring FILE                   ring-aware output: one directory per node, DIR/<node address>/<keyspace>/\n"
          + "                                <table>-<id>/, holding exactly the token ranges that node replicates\n"
          + "                                (for nodetool import on each node: nothing to stream, nothing for cleanup\n"
          + "                                to remove). FILE gives the replication and each node's tokens:\n"
          + "                                  replication SimpleStrategy replication_factor=2\n"
          + "                                  (or: replication NetworkTopologyStrategy dc1=3 dc2=2)\n"
          + "                                  node ADDRESS DATACENTER RACK TOKEN [TOKEN ...]   (per node)\n"
          + "                                Sstables split at the ring's range ends; not with --ranges\n";

    private RingOption() {}

    /** The ring of {@code --ring FILE}, or null without the option. */
    static TokenRing read(Args a) throws UsageException, IOException {
        if (!a.has(OPTION)) return null;
        String file = a.required(OPTION);
        Path p = Path.of(file);
        if (Files.isDirectory(p)) throw new UsageException("--ring " + file + ": is a directory, not a ring file");
        String text;
        try {
            text = Files.readString(p, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new UsageException("--ring " + file + ": no such file");
        } catch (MalformedInputException e) {
            throw new UsageException("--ring " + file + ": not UTF-8 text");
        }
        try {
            return RingFile.parse(text, file);
        } catch (RingFile.RingFileException e) {
            throw new UsageException(e.getMessage());
        }
    }

    /**
     * Places what the command published under the staging root's {@code <ks>/<table>-<id>} into
     * the node directories under {@code outRoot}, and prints one line per node.
     */
    static ReplicaPlacement.Result place(Path stagingTableDir, TokenRing ring, Path outRoot, PrintStream out)
            throws IOException, UsageException {
        ReplicaPlacement.Result r;
        try {
            r = ReplicaPlacement.place(stagingTableDir, ring, outRoot);
        } catch (dev.flushline.sstable.IncompatibleSSTableException e) {
            throw new UsageException("--ring: " + e.getMessage() + " (what is not placed stays in " + stagingTableDir + ")");
        }
        String ksTable = stagingTableDir.getParent().getFileName() + "/" + stagingTableDir.getFileName();
        out.println("Placed " + r.placed.size() + " sstables into the directories of their replicas under " + outRoot + " ("
                + ring.replication() + "; " + r.linkedFiles + " files hard-linked, " + r.copiedFiles + " copied):");
        for (int i = 0; i < ring.nodeCount(); i++) {
            String address = ring.node(i).address();
            out.println(String.format(Locale.ROOT, "  %s: %d sstables, %s, %.1f%% of the ring -> %s", address, r.sstablesPerNode[i],
                    ValueText.mib(r.bytesPerNode[i]), 100 * ring.shareOf(i),
                    r.sstablesPerNode[i] == 0 ? "(nothing)" : ReplicaPlacement.nodeRoot(outRoot, address).resolve(ksTable).toString()));
        }
        return r;
    }

    /** Adds where each published sstable was placed to a JSON summary (none: nothing). */
    static void placed(ReplicaPlacement.Result r, JsonSummary summary) {
        if (summary == null) return;
        List<Object> placed = summary.list("placed");
        for (ReplicaPlacement.Placed p : r.placed) {
            java.util.Map<String, Object> m = JsonSummary.object();
            m.put("sstable", p.source().toString());
            List<Object> copies = new java.util.ArrayList<>();
            for (Path c : p.copies()) copies.add(c.toString());
            m.put("copies", copies);
            placed.add(m);
        }
    }
}

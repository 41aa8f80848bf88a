package dev.flushline.cli;

import dev.flushline.sstable.IncompatibleSSTableException;
import dev.flushline.sstable.SSTableFiles;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The sstable arguments of verify and dump: each one is a component path of one sstable, or a
 * directory whose complete sstables (those with a TOC.txt) are taken in generation order.
 */
final class SSTableArgs {
    private SSTableArgs() {}

    /** One resolved argument: its sstables, or why it could not be resolved. */
    static final class Target {
        final String argument;
        final List<SSTableFiles> sstables = new ArrayList<>();
        /** For a directory: its sstables without TOC.txt, which are not read (see {@link SSTableFiles#withoutToc}). */
        final List<Path> withoutToc = new ArrayList<>();
        String refused;

        Target(String argument) { this.argument = argument; }
    }

    static Target resolve(String argument) throws IOException, UsageException {
        Path p = Path.of(argument);
        Target t = new Target(argument);
        if (!Files.exists(p)) throw new UsageException(argument + ": no such file or directory");
        try {
            if (Files.isDirectory(p)) {
                t.sstables.addAll(SSTableFiles.inDirectory(p));
                t.withoutToc.addAll(SSTableFiles.withoutToc(p));
                if (t.sstables.isEmpty() && t.withoutToc.isEmpty()) {
                    throw new UsageException(argument + ": no sstable with a TOC.txt in this directory");
                }
            } else {
                t.sstables.add(SSTableFiles.of(p));
            }
        } catch (IncompatibleSSTableException e) {
            t.refused = e.getMessage();
        }
        return t;
    }
}

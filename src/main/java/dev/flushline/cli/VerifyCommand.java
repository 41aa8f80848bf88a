package dev.flushline.cli;

import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.CorruptSSTableException;
import dev.flushline.sstable.IncompatibleSSTableException;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.sstable.SSTableVerifier;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** {@code flushline verify}: checks sstables against themselves and prints one line per sstable. */
public final class VerifyCommand {
    private VerifyCommand() {}

    static final String HELP =
            "Usage: flushline verify --schema table.cql [--table NAME] SSTABLE_OR_DIR... [--extended]\n"
          + "\n"
          + "Checks Cassandra 5.0 'oa' BIG or 'da' BTI, or 4.x 'nb' BIG sstables (ours or Cassandra's) and prints one\n"
          + "line per sstable:\n"
          + "  OK <Data.db>\n"
          + "  CORRUPT <file>: <reason> at byte offset N\n"
          + "  REFUSED <file>: <reason>          (another version or format than oa, nb or da, or a schema mismatch)\n"
          + "  ERROR <file>: <I/O error>\n"
          + "  INCOMPLETE <Data.db>: ...        (a directory's sstable without TOC.txt: listed, not verified)\n"
          + "For a compressed Data.db, offsets found while decoding rows are in the uncompressed stream\n"
          + "(the message says so); chunk errors give the offset in the file.\n"
          + "\n"
          + "Arguments:\n"
          + "  SSTABLE_OR_DIR   any component of one sstable (e.g. oa-1-big-Data.db), or a directory: every\n"
          + "                   sstable in it that has a TOC.txt, in generation order\n"
          + "  --schema FILE    the table's schema: its CREATE TABLE, with the CREATE TYPE statements it uses (a whole\n"
          + "                   DESCRIBE KEYSPACE output is fine); the sstable's serialization header must agree with\n"
          + "                   it (column names and types)\n"
          + "  --table NAME     the table (t or ks.t) when the schema file defines several\n"
          + "  --extended       also validate every partition key, clustering value, cell path and cell value\n"
          + "                   against its column's type\n"
          + "\n"
          + "Checks: Digest.crc32 of Data.db; every chunk CRC (CRC.db, or the per-chunk CRC of compressed\n"
          + "chunks); every partition, row, cell and marker decodes and every length fits; partitions in token\n"
          + "order and unique; rows in clustering order; Index.db holds exactly those keys at those positions,\n"
          + "with promoted row indexes that match the partitions; every key is in the bloom filter (Filter.db);\n"
          + "Summary.db samples Index.db at its interval and holds the first and last keys; Statistics.db's\n"
          + "checksums, partition/row/column counts and first/last keys.\n"
          + "\n"
          + "Exit status: 0 all OK, 1 some sstable is corrupt, refused or incomplete (or bad usage), 2 an I/O failure.\n";

    public static int run(String[] argv, InputStream stdin, PrintStream out, PrintStream err) {
        String schemaFile = null, table = null;
        boolean extended = false;
        List<String> paths = new ArrayList<>();
        for (int i = 0; i < argv.length; i++) {
            String a = argv[i];
            switch (a) {
                case "--help":
                case "-h":
                    out.print(HELP);
                    return 0;
                case "--extended":
                case "-e":
                    extended = true;
                    break;
                case "--schema":
                    if (i + 1 >= argv.length) return usage(err, "option --schema needs a value");
                    if (schemaFile != null) return usage(err, "option --schema is given twice");
                    schemaFile = argv[++i];
                    break;
                case "--table":
                    if (i + 1 >= argv.length) return usage(err, "option --table needs a value");
                    if (table != null) return usage(err, "option --table is given twice");
                    table = argv[++i];
                    break;
                default:
                    if (a.startsWith("--schema=")) {
                        schemaFile = a.substring("--schema=".length());
                    } else if (a.startsWith("-")) {
                        return usage(err, "unknown option " + a + " (see flushline verify --help)");
                    } else {
                        paths.add(a);
                    }
            }
        }
        if (schemaFile == null) return usage(err, "missing --schema (see flushline verify --help)");
        if (paths.isEmpty()) return usage(err, "no sstable or directory given (see flushline verify --help)");
        int status = 0;
        try {
            TableSchema schema = LoadCommand.readSchema(schemaFile, table);
            for (String p : paths) {
                SSTableArgs.Target t = SSTableArgs.resolve(p);
                if (t.refused != null) {
                    out.println("REFUSED " + t.refused);
                    status = Math.max(status, 1);
                    continue;
                }
                for (SSTableFiles f : t.sstables) status = Math.max(status, verifyOne(f, schema, extended, out));
                for (Path incomplete : t.withoutToc) {
                    out.println("INCOMPLETE " + incomplete + ": no TOC.txt, so not a complete sstable; not verified, and left as it is"
                            + " (another writer's still being written, or a complete one whose TOC.txt was lost)");
                    status = Math.max(status, 1);
                }
            }
        } catch (UsageException e) {
            err.println("flushline verify: " + e.getMessage());
            return Math.max(status, 1);
        } catch (IOException e) {
            err.println("flushline verify: I/O error: " + dev.flushline.io.IoErrors.withCause(e));
            return 2;
        }
        out.flush();
        return status;
    }

    /** Verifies one sstable and prints its line; returns its exit status contribution. */
    static int verifyOne(SSTableFiles f, TableSchema schema, boolean extended, PrintStream out) {
        try {
            SSTableVerifier.verify(f, schema, extended);
            out.println("OK " + f.path(Component.DATA));
            return 0;
        } catch (CorruptSSTableException e) {
            out.println("CORRUPT " + e.file() + ": " + e.reason() + " at byte offset " + e.offset());
            return 1;
        } catch (IncompatibleSSTableException e) {
            out.println("REFUSED " + e.getMessage());
            return 1;
        } catch (IOException e) {
            out.println("ERROR " + f.path(Component.DATA) + ": " + dev.flushline.io.IoErrors.withCause(e));
            return 2;
        } catch (RuntimeException e) {
            // A decoding path that failed without naming an offset: still a corrupt sstable, never a crash.
            out.println("CORRUPT " + f.path(Component.DATA) + ": unexpected " + e + " (no byte offset known)");
            return 1;
        }
    }

    private static int usage(PrintStream err, String message) {
        err.println("flushline verify: " + message);
        return 1;
    }
}

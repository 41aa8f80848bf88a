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
import java.util.Map;
import java.util.Set;

/** {@code flushline verify}: checks sstables against themselves and prints one line per sstable. */
public final class VerifyCommand {
    private VerifyCommand() {}

    static final String HELP =
            "Usage: flushline verify --schema table.cql [--table NAME] SSTABLE_OR_DIR... [--extended] [--json]\n"
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
          + "                   against its column's type (also -e)\n"
          + "  --json           print one JSON object on stdout at the end, and the lines above on stderr:\n"
          + "                   {\"command\":\"verify\",\"status\":S,\"sstables\":[{\"path\":..,\"result\":\"OK|CORRUPT|REFUSED|\n"
          + "                   ERROR|INCOMPLETE\",\"reason\":..,\"file\":..,\"offset\":N}],\"ok\":N,\"not_ok\":N,\"wall_ms\":N,\n"
          + "                   \"cpu_ms\":N} (\"error\" when S is not 0); stdout holds exactly that object, also on a usage error\n"
          + "\n"
          + "Checks: Digest.crc32 of Data.db; every chunk CRC (CRC.db, or the per-chunk CRC of compressed\n"
          + "chunks); every partition, row, cell and marker decodes and every length fits; partitions in token\n"
          + "order and unique; rows in clustering order; Index.db holds exactly those keys at those positions,\n"
          + "with promoted row indexes that match the partitions; every key is in the bloom filter (Filter.db);\n"
          + "Summary.db samples Index.db at its interval and holds the first and last keys; for 'da', Partitions.db's\n"
          + "trie leads to exactly those keys at those positions (with their hash bytes, first and last keys and\n"
          + "count), and Rows.db's row index tries match the partitions' blocks and open deletions; Statistics.db's\n"
          + "checksums, partition/row/column counts and first/last keys.\n"
          + "\n"
          + "Exit status: 0 ok (every sstable OK), 1 some sstable is corrupt, refused or incomplete (or bad usage), 2 internal or I/O failure.\n";

    static final Set<String> WITH_VALUE = Set.of("schema", "table");
    static final Set<String> FLAGS = Set.of("extended", "-e", JsonSummary.FLAG);

    public static int run(String[] argv, InputStream stdin, PrintStream out, PrintStream err) {
        if (Args.wantsHelp(argv)) {
            out.print(HELP);
            return 0;
        }
        JsonSummary summary = JsonSummary.ifRequested("verify", argv);
        return JsonSummary.finish(summary, verify(argv, JsonSummary.humanOut(summary, out, err), err, summary), out);
    }

    private static int verify(String[] argv, PrintStream out, PrintStream err, JsonSummary summary) {
        int status = 0;
        try {
            Args a = new Args("verify", argv, new Args.Spec(WITH_VALUE, FLAGS).shortOptions(Set.of("-e")).positionals());
            String schemaFile = a.required("schema");
            boolean extended = a.has("extended") || a.has("-e");
            List<String> paths = a.positionals();
            if (paths.isEmpty()) throw new UsageException("no sstable or directory given (see flushline verify --help)");
            TableSchema schema = LoadCommand.readSchema(schemaFile, a.string("table", null));
            List<Object> findings = summary == null ? null : summary.list("sstables");
            for (String p : paths) {
                SSTableArgs.Target t = SSTableArgs.resolve(p);
                if (t.refused != null) {
                    out.println("REFUSED " + t.refused);
                    if (findings != null) findings.add(finding(p, "REFUSED", t.refused));
                    status = Math.max(status, 1);
                    continue;
                }
                for (SSTableFiles f : t.sstables) status = Math.max(status, verifyOne(f, schema, extended, out, findings));
                for (Path incomplete : t.withoutToc) {
                    out.println("INCOMPLETE " + incomplete + ": no TOC.txt, so not a complete sstable; not verified, and left as it is"
                            + " (another writer's still being written, or a complete one whose TOC.txt was lost)");
                    if (findings != null) findings.add(finding(incomplete.toString(), "INCOMPLETE", "no TOC.txt; not verified, left as it is"));
                    status = Math.max(status, 1);
                }
            }
        } catch (UsageException e) {
            JsonSummary.report(summary, err, "flushline verify: " + e.getMessage());
            return Math.max(status, 1);
        } catch (IOException e) {
            JsonSummary.report(summary, err, "flushline verify: I/O error: " + dev.flushline.io.IoErrors.withCause(e));
            return 2;
        }
        out.flush();
        if (summary != null) {
            int ok = 0;
            for (Object o : summary.list("sstables")) if ("OK".equals(((Map<?, ?>) o).get("result"))) ok++;
            summary.put("ok", ok);
            summary.put("not_ok", summary.list("sstables").size() - ok);
            if (status != 0) summary.error("not every sstable is OK: see sstables");
        }
        return status;
    }

    private static Map<String, Object> finding(String path, String result, String reason) {
        Map<String, Object> m = JsonSummary.object();
        m.put("path", path);
        m.put("result", result);
        if (reason != null) m.put("reason", reason);
        return m;
    }

    /** Verifies one sstable and prints its line; returns its exit status contribution. Adds the sstable's finding to {@code findings} (if not null) for the JSON summary. */
    static int verifyOne(SSTableFiles f, TableSchema schema, boolean extended, PrintStream out, List<Object> findings) {
        String data = f.path(Component.DATA).toString();
        try {
            SSTableVerifier.verify(f, schema, extended);
            out.println("OK " + data);
            if (findings != null) findings.add(finding(data, "OK", null));
            return 0;
        } catch (CorruptSSTableException e) {
            out.println("CORRUPT " + e.file() + ": " + e.reason() + " at byte offset " + e.offset());
            if (findings != null) {
                Map<String, Object> m = finding(data, "CORRUPT", e.reason());
                m.put("file", e.file().toString());
                m.put("offset", e.offset());
                findings.add(m);
            }
            return 1;
        } catch (IncompatibleSSTableException e) {
            out.println("REFUSED " + e.getMessage());
            if (findings != null) findings.add(finding(data, "REFUSED", e.getMessage()));
            return 1;
        } catch (IOException e) {
            String why = dev.flushline.io.IoErrors.withCause(e);
            out.println("ERROR " + data + ": " + why);
            if (findings != null) findings.add(finding(data, "ERROR", why));
            return 2;
        } catch (RuntimeException e) {
            // A decoding path that failed without naming an offset: still a corrupt sstable, never a crash.
            out.println("CORRUPT " + data + ": unexpected " + e + " (no byte offset known)");
            if (findings != null) findings.add(finding(data, "CORRUPT", "unexpected " + e + " (no byte offset known)"));
            return 1;
        }
    }

}

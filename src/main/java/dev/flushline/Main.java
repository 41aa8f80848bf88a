package dev.flushline;

import dev.flushline.bench.RatiosCommand;
import dev.flushline.bench.BenchCommand;
import dev.flushline.bench.CompactionStressCommand;

import dev.flushline.cli.CompactCommand;
import dev.flushline.cli.VerifyCommand;
import dev.flushline.cli.LoadCommand;
import dev.flushline.cli.DumpCommand;
import dev.flushline.cli.SchemaCommand;

import java.io.InputStream;
import java.io.PrintStream;
import java.util.Arrays;

/**
 * The launcher's entry point: {@code flushline <command> [options]}. Exit status, for every command:
 * 0 success, 1 bad input or usage (message on stderr), 2 internal or I/O failure.
 */
public final class Main {
    private Main() {}

    static final String HELP =
            "Usage: flushline <command> [options]\n"
          + "\n"
          + "Commands:\n"
          + "  load    apply JSON Lines operations or CSV rows to a memtable and flush them into 'oa' (or 'nb') sstables\n"
          + "  bench   the end-to-end flush benchmark (stress.stress_table workload)\n"
          + "  ratios  flush wall-time ratios: 2 threads vs 1, pipelined flush vs a plain FileChannel loop\n"
          + "  dump    print 'oa', 'nb' or 'da' sstables as JSON, in the layout of Cassandra 5.0.9's sstabledump\n"
          + "  compact major compaction: merge a table's sstables into new ones (reconcile, purge, split)\n"
          + "  compaction-stress  write a benchmark table, then run a compaction strategy over it to rest\n"
          + "  verify  check 'oa', 'nb' or 'da' sstables (ours or Cassandra's): checksums, order, index, filter, values\n"
          + "  schema  print the CREATE TYPE and CREATE TABLE statements recovered from a table's sstables\n"
          + "\n"
          + "flushline <command> --help describes a command's options; flushline --version prints the version and\n"
          + "the commit it was built from.\n"
          + "\n"
          + "Exit status: 0 ok, 1 bad input or usage (message on stderr), 2 internal or I/O failure.\n";

    public static void main(String[] args) {
        // Before any command: where the library's SLF4J lines go (standard error, worded as always).
        dev.flushline.cli.CliLogging.install();
        int status = run(args, System.in, System.out, System.err);
        System.out.flush();
        System.exit(status);
    }

    /** Where the build writes the commit it was built from (git-commit-id-maven-plugin, see the pom). */
    static final String BUILD_PROPERTIES = "flushline-build.properties";

    /**
     * {@code flushline <version> (commit <id>)}: the version from the jar's manifest (or the build
     * properties when running from classes), and the commit HEAD named when it was built.
     */
    static String version() {
        java.util.Properties p = new java.util.Properties();
        try (InputStream in = Main.class.getResourceAsStream(BUILD_PROPERTIES)) {
            if (in != null) p.load(in);
        } catch (java.io.IOException e) {
            // the version line says what is unknown
        }
        String version = Main.class.getPackage().getImplementationVersion();
        if (version == null) version = p.getProperty("git.build.version", "(version unknown)");
        String commit = p.getProperty("git.commit.id.abbrev");
        if (commit == null || commit.isEmpty()) return "flushline " + version + " (commit unknown: built outside a git checkout)";
        return "flushline " + version + " (commit " + commit + ")";
    }

    /** Runs one command; returns its exit status. Never calls System.exit (tests call this). */
    public static int run(String[] args, InputStream stdin, PrintStream out, PrintStream err) {
        if (args.length == 0) {
            err.print(HELP);
            return 1;
        }
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        switch (args[0]) {
            case "load":
                return LoadCommand.run(rest, stdin, out, err);
            case "bench":
                return BenchCommand.run(rest, stdin, out, err);
            case "ratios":
                return RatiosCommand.run(rest, stdin, out, err);
            case "dump":
                return DumpCommand.run(rest, stdin, out, err);
            case "compact":
                return CompactCommand.run(rest, stdin, out, err);
            case "compaction-stress":
                return CompactionStressCommand.run(rest, stdin, out, err);
            case "verify":
                return VerifyCommand.run(rest, stdin, out, err);
            case "schema":
                return SchemaCommand.run(rest, stdin, out, err);
            case "--version":
            case "version":
                out.println(version());
                return 0;
            case "help":
            case "--help":
            case "-h":
                out.print(HELP);
                return 0;
            default:
                err.println("flushline: unknown command '" + args[0] + "'");
                err.print(HELP);
                return 1;
        }
    }
}

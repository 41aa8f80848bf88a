package dev.flushline.oracle;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Permission;
import java.util.Arrays;
import java.util.List;

/**
 * Child JVM entry point for {@link SSTableDumpOracle#runMany}: runs Cassandra's own
 * {@code SSTableExport.main} once per job in one JVM, so a test that dumps dozens of sstables
 * pays for one tool start-up instead of one each. The tool ends every run with System.exit; a
 * security manager turns that into an exception carrying the status, and standard output is
 * pointed at the job's file for each run.
 *
 * <p>Arguments: a jobs file, one job a line: the output file, then the tool's arguments, all
 * separated by tabs. Writes {@code <output>.status} with the exit status after each job.
 */
public final class ExportMany {
    private ExportMany() {}

    static final class Exit extends SecurityException {
        private static final long serialVersionUID = 1L;
        final int status;

        Exit(int status) {
            super("exit " + status);
            this.status = status;
        }
    }

    @SuppressWarnings("removal")
    public static void main(String[] args) throws Exception {
        List<String> jobs = Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8);
        PrintStream realOut = System.out;
        System.setSecurityManager(new SecurityManager() {
            @Override
            public void checkExit(int status) {
                throw new Exit(status);
            }

            @Override
            public void checkPermission(Permission perm) {
            }

            @Override
            public void checkPermission(Permission perm, Object context) {
            }
        });
        for (String job : jobs) {
            if (job.isEmpty()) continue;
            String[] parts = job.split("\t", -1);
            Path out = Path.of(parts[0]);
            int status = -1;
            try (PrintStream ps = new PrintStream(new FileOutputStream(out.toFile()), true, StandardCharsets.UTF_8)) {
                System.setOut(ps);
                try {
                    org.apache.cassandra.tools.SSTableExport.main(Arrays.copyOfRange(parts, 1, parts.length));
                    status = 0;
                } catch (Exit e) {
                    status = e.status;
                } catch (Throwable t) {
                    t.printStackTrace(System.err);
                    status = 3;
                } finally {
                    ps.flush();
                    System.setOut(realOut);
                }
            } catch (IOException e) {
                e.printStackTrace(System.err);
            }
            Files.writeString(Path.of(parts[0] + ".status"), Integer.toString(status));
        }
        System.setSecurityManager(null);
        System.exit(0);
    }
}

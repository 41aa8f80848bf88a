package dev.flushline.node;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

/**
 * A real Cassandra 5.0.9 node for the documentation's own commands (DocsIT): a lone node in a child
 * JVM, as {@link NodeImportTest} starts one, and the two tools the docs call on it, {@code nodetool}
 * and {@code cqlsh}, as small scripts in a bin directory to put first on the PATH. {@code nodetool} is
 * Cassandra's own NodeTool (cassandra-all's main class, over JMX); {@code cqlsh} is {@link CqlshShim},
 * which runs {@code -f FILE} and {@code -e STATEMENT} through the Java driver and prints a SELECT
 * as cqlsh lays it out, since the real cqlsh needs Python and a Cassandra distribution.
 */
public final class DocsNode implements AutoCloseable {
    private final CassandraNode node;
    private final Path bin;

    private DocsNode(CassandraNode node, Path bin) {
        this.node = node;
        this.bin = bin;
    }

    /** Starts a node with every directory under {@code home}, and writes the tools into {@code home/bin}. */
    public static DocsNode start(Path home) throws IOException, InterruptedException {
        CassandraNode node = CassandraNode.start(home.resolve("node"));
        try {
            Path bin = Files.createDirectories(home.resolve("bin"));
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            List<String> flags = new ArrayList<>();
            for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
                if (arg.startsWith("--add-opens") || arg.startsWith("--add-exports")) flags.add(arg);
            }
            Path logback = home.resolve("tools-logback.xml");
            Files.writeString(logback, "<configuration><appender name=\"ERR\" class=\"ch.qos.logback.core.ConsoleAppender\">"
                    + "<target>System.err</target><encoder><pattern>%-5level %logger{30} - %msg%n</pattern></encoder></appender>"
                    + "<root level=\"WARN\"><appender-ref ref=\"ERR\"/></root></configuration>\n");
            String cp = System.getProperty("java.class.path");
            String common = quote(java) + " -Xmx256m " + String.join(" ", flags) + " -Dlogback.configurationFile=" + quote(logback.toString())
                    + " -Dcassandra.storagedir=" + quote(home.resolve("tools").toString()) + " -cp " + quote(cp);
            script(bin.resolve("nodetool"), common + " org.apache.cassandra.tools.NodeTool -h 127.0.0.1 -p " + node.jmxPort + " \"$@\"");
            script(bin.resolve("cqlsh"), common + " " + CqlshShim.class.getName() + " 127.0.0.1 " + node.nativePort + " \"$@\"");
            return new DocsNode(node, bin);
        } catch (IOException | RuntimeException e) {
            node.close();
            throw e;
        }
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    private static void script(Path file, String command) throws IOException {
        Files.writeString(file, "#!/bin/sh\nexec " + command + "\n", StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    /** The directory holding {@code nodetool} and {@code cqlsh} for this node. */
    public Path bin() {
        return bin;
    }

    /** The end of the node's log, for a failure message. */
    public String logTail() {
        return node.tail(60);
    }

    @Override
    public void close() throws InterruptedException {
        node.close();
    }
}

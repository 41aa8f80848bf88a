package dev.flushline.node;

import com.datastax.oss.driver.api.core.CqlSession;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

class NodeSmokeTest {
    @Test
    void starts() throws Exception {
        Path home = Files.createTempDirectory("flushline-node");
        long t0 = System.nanoTime();
        try (CassandraNode node = CassandraNode.start(home)) {
            System.out.println("started in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
            try (CqlSession s = CqlSession.builder().addContactPoint(new InetSocketAddress("127.0.0.1", node.nativePort))
                    .withLocalDatacenter("datacenter1").build()) {
                System.out.println(s.execute("SELECT release_version FROM system.local").one().getString(0));
            }
            System.out.println(node.errors());
        }
        System.out.println("total " + (System.nanoTime() - t0) / 1_000_000 + " ms; home " + home);
    }
}

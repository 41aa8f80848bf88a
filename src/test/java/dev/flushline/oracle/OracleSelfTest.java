package dev.flushline.oracle;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OracleSelfTest {
    @TempDir
    static Path tmp;

    static OracleFixture fixture;

    @BeforeAll
    static void writeFixture() throws Exception {
        Path dir = tmp.resolve("cqlwriter");
        java.nio.file.Files.createDirectories(dir);
        fixture = OracleFixture.write(dir);
    }

    @Test
    void readsCqlWriterOutputAsTheHandWrittenModel() {
        try (CassandraReader reader = CassandraReader.open(fixture.dir, OracleFixture.CQL)) {
            List<List<Partition>> expected = fixture.expectedPerSSTable();
            assertEquals(expected.size(), reader.sstables().size(), "one sstable per CQLSSTableWriter statement");
            for (int i = 0; i < expected.size(); i++) {
                assertEquals(expected.get(i), reader.sstables().get(i).readAll(), "sstable " + reader.sstables().get(i).dataFile());
            }
        }
        assertEquals(fixture.expectedAll(), CassandraReader.readAll(fixture.dir, OracleFixture.CQL));
    }
}

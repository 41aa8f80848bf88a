package dev.flushline.sstable.big;

import dev.flushline.Main;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.Component;
import dev.flushline.sstable.Descriptor;
import dev.flushline.sstable.SSTableFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The verifier's promoted-index check takes both ends a partition's index blocks can have, as
 * Cassandra's writer makes them: after the end-of-partition byte, or, when the partition's last row
 * closed the last block, just before it (the writer adds no block after a row that closed one).
 */
class BigIndexCheckTest {
    static final String CQL = "CREATE TABLE ks.blocks (pk int, ck int, v text, PRIMARY KEY (pk, ck)) WITH compression = {'enabled': 'false'}";

    @TempDir
    Path tmp;

    @Test
    void blocksEndingAtTheLastRowOrAfterTheEndByteBothVerify() throws Exception {
        // Partition n holds 60 + n rows of about 1 KiB: 64 KiB blocks close every 60-some rows, so some
        // partition's last row closes a block and the others' do not.
        StringBuilder ops = new StringBuilder();
        String v = "x".repeat(1000);
        for (int pk = 0; pk < 140; pk++) {
            for (int ck = 0; ck < 60 + pk; ck++) {
                ops.append("{\"op\":\"insert\",\"timestamp\":1,\"values\":{\"pk\":").append(pk).append(",\"ck\":").append(ck)
                        .append(",\"v\":\"").append(v).append("\"}}\n");
            }
        }
        Path schema = Files.writeString(tmp.resolve("t.cql"), CQL);
        Path input = Files.writeString(tmp.resolve("ops.jsonl"), ops);
        assertEquals(0, run("load", "--schema", schema.toString(), "--input", input.toString(), "--out", tmp.resolve("out").toString(),
                "--now", "1750000000"));
        TableSchema t = CqlParser.parse(CQL);
        Path dir = Descriptor.tableDir(tmp.resolve("out"), t.keyspace(), t.name(), t.idHex());

        int afterEndByte = 0, beforeEndByte = 0;
        for (SSTableFiles f : SSTableFiles.inDirectory(dir)) {
            long dataLength = Files.size(f.path(Component.DATA));
            try (IndexReader index = IndexReader.open(f, t.clusteringColumns())) {
                List<long[]> entries = new java.util.ArrayList<>();
                while (index.hasNext()) {
                    index.next();
                    long covered = index.headerLength();
                    for (int b = 0; b < index.blockCount(); b++) covered += index.blockWidth(b);
                    entries.add(new long[] {index.dataPosition(), index.blockCount(), covered});
                }
                for (int i = 0; i < entries.size(); i++) {
                    long[] e = entries.get(i);
                    if (e[1] == 0) continue;
                    long size = (i + 1 < entries.size() ? entries.get(i + 1)[0] : dataLength) - e[0];
                    if (e[2] == size) afterEndByte++;
                    else if (e[2] == size - 1) beforeEndByte++;
                    else throw new AssertionError("partition at " + e[0] + ": blocks cover " + e[2] + " of " + size + " bytes");
                }
            }
        }
        assertTrue(afterEndByte > 0 && beforeEndByte > 0, "both ends exercised: " + afterEndByte + " after, " + beforeEndByte + " before");
        assertEquals(0, run("verify", "--schema", schema.toString(), dir.toString()));
    }

    private static int run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = Main.run(args, new ByteArrayInputStream(new byte[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(out, true, StandardCharsets.UTF_8));
        if (status != 0) System.err.println(out.toString(StandardCharsets.UTF_8));
        return status;
    }
}

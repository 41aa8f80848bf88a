package dev.flushline.cli;

import dev.flushline.data.PartitionUpdate;
import dev.flushline.flush.FlushCompression;
import dev.flushline.oracle.CassandraOracle;
import dev.flushline.oracle.CassandraReader;
import dev.flushline.oracle.CassandraVerifier;
import dev.flushline.oracle.Partition;
import dev.flushline.schema.CompressionParams;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.sstable.DataChunks;
import dev.flushline.sstable.SSTableFiles;
import dev.flushline.table.Table;
import dev.flushline.table.TableOptions;
import dev.flushline.testing.RandomUpdates;
import dev.flushline.writer.FlushlineSSTableWriter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which compression each way of writing picks, as Cassandra's counterpart would: {@code load}
 * (the table's codec by default, as CQLSSTableWriter; {@code --flush-compression fast|none} as a
 * node's flush_compression; {@code --compression} overriding the codec), a {@link Table} (fast by
 * default, as a node), the Java writer (the table's), and {@code compact --compression} with every
 * codec. Each output is read back by cassandra-all and passes its verifier.
 */
class CodecOptionsTest {
    static final long NOW = 1_750_000_000L;
    static final String CQL = "CREATE TABLE ks.codecs (pk int, ck int, v text, PRIMARY KEY (pk, ck)) "
            + "WITH compression = {'class': 'ZstdCompressor', 'compression_level': 7, 'chunk_length_in_kb': 8}";

    @TempDir
    Path tmp;

    @BeforeAll
    static void init() {
        CassandraOracle.init();
    }

    static String ops(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.append("{\"op\":\"insert\",\"timestamp\":").append(1000 + i).append(",\"values\":{\"pk\":").append(i % 97)
              .append(",\"ck\":").append(i).append(",\"v\":\"value number ").append(i).append(" ").append("z".repeat(i % 50)).append("\"}}\n");
        }
        return sb.toString();
    }

    /** The one sstable under {@code root} (any depth): its files, after checking that it reads back and verifies. */
    static SSTableFiles onlySSTable(Path root, String cql) throws IOException {
        Path data;
        try (Stream<Path> s = Files.walk(root)) {
            List<Path> found = s.filter(p -> p.getFileName().toString().endsWith("-Data.db")).toList();
            assertEquals(1, found.size(), found.toString());
            data = found.get(0);
        }
        assertTrue(!CassandraReader.readAll(data, cql).isEmpty());
        assertEquals(List.of(), CassandraVerifier.verify(data.getParent(), cql));
        return SSTableFiles.of(data);
    }

    static CompressionParams compressionOf(SSTableFiles f) throws IOException {
        try (DataChunks c = DataChunks.open(f, true)) {
            return c.compression();
        }
    }

    @Test
    void loadWritesTheTablesCodecUnlessToldOtherwise() throws Exception {
        Path schema = Files.writeString(tmp.resolve("t.cql"), CQL);
        Path in = Files.writeString(tmp.resolve("ops.jsonl"), ops(3000));
        CompressionParams table = CqlParser.parse(CQL).compressionParams();
        Map<String, CompressionParams> expected = Map.of(
                "default", table,
                "table", table,
                "fast", CompressionParams.LZ4_DEFAULT,
                "none", CompressionParams.NOOP_FOR_FLUSH);
        for (Map.Entry<String, CompressionParams> e : expected.entrySet()) {
            Path out = tmp.resolve("load-" + e.getKey());
            LoadCommandTest.Result r = e.getKey().equals("default")
                    ? LoadCommandTest.main("load", "--schema", schema.toString(), "--input", in.toString(), "--out", out.toString(),
                            "--now", Long.toString(NOW))
                    : LoadCommandTest.main("load", "--schema", schema.toString(), "--input", in.toString(), "--out", out.toString(),
                            "--now", Long.toString(NOW), "--flush-compression", e.getKey());
            assertEquals(0, r.status(), r.err());
            assertEquals(e.getValue(), compressionOf(onlySSTable(out, CQL)), "--flush-compression " + e.getKey());
        }
        assertEquals(List.of("compression_level", "7"), List.of(table.optionPairs()), "the table's level goes into CompressionInfo.db");

        // --compression names another codec: its defaults at the table's chunk length
        Path out = tmp.resolve("load-deflate");
        LoadCommandTest.Result r = LoadCommandTest.main("load", "--schema", schema.toString(), "--input", in.toString(), "--out",
                out.toString(), "--now", Long.toString(NOW), "--compression", "deflate");
        assertEquals(0, r.status(), r.err());
        assertEquals(CompressionParams.of(TableSchema.Compression.DEFLATE, 8 * 1024), compressionOf(onlySSTable(out, CQL)));

        r = LoadCommandTest.main("load", "--schema", schema.toString(), "--input", in.toString(), "--out", tmp.resolve("x").toString(),
                "--flush-compression", "slow");
        assertEquals(1, r.status());
        assertTrue(r.err().contains("--flush-compression slow is not one of fast, table, none"), r.err());
        r = LoadCommandTest.main("load", "--schema", schema.toString(), "--input", in.toString(), "--out", tmp.resolve("y").toString(),
                "--compression", "brotli");
        assertEquals(1, r.status());
        assertTrue(r.err().contains("--compression brotli is not one of none, lz4, zstd, snappy, deflate, noop"), r.err());
    }

    @Test
    void aTableFlushesAsANodeAndTheJavaWriterAsCqlSSTableWriter() throws Exception {
        TableSchema schema = CqlParser.parse(CQL);
        for (FlushCompression mode : new FlushCompression[] {null, FlushCompression.TABLE, FlushCompression.NONE}) {
            Path data = tmp.resolve("table-" + mode);
            TableOptions.Builder b = TableOptions.builder().schema(CQL).dataDir(data).log(line -> { });
            if (mode != null) b.flushCompression(mode);
            try (Table t = Table.open(b.build())) {
                for (PartitionUpdate u : new RandomUpdates(schema, 3, NOW, 50, 10).next(800)) t.apply(u);
            }
            CompressionParams expected = (mode == null ? FlushCompression.FAST : mode).apply(schema.compressionParams());
            assertEquals(expected, compressionOf(onlySSTable(data, CQL)), "Table with flush_compression " + mode);
        }
        assertEquals(CompressionParams.LZ4_DEFAULT, FlushCompression.FAST.apply(schema.compressionParams()), "fast sets Zstd aside");

        Path dir = Files.createDirectories(tmp.resolve("writer"));
        try (FlushlineSSTableWriter w = FlushlineSSTableWriter.builder().inDirectory(dir).forTable(CQL)
                .using("INSERT INTO ks.codecs (pk, ck, v) VALUES (?, ?, ?)").build()) {
            for (int i = 0; i < 500; i++) w.addRow(i % 13, i, "row " + i);
        }
        assertEquals(schema.compressionParams(), compressionOf(onlySSTable(dir, CQL)), "the Java writer writes the table's codec");
    }

    @Test
    void compactWritesEveryCodec() throws Exception {
        String plain = "CREATE TABLE ks.codecs (pk int, ck int, v text, PRIMARY KEY (pk, ck)) WITH compression = {'enabled': false}";
        Path schema = Files.writeString(tmp.resolve("plain.cql"), plain);
        Path in = Files.writeString(tmp.resolve("ops.jsonl"), ops(2000));
        Path loaded = tmp.resolve("loaded");
        LoadCommandTest.Result r = LoadCommandTest.main("load", "--schema", schema.toString(), "--input", in.toString(), "--out",
                loaded.toString(), "--now", Long.toString(NOW));
        assertEquals(0, r.status(), r.err());
        List<Partition> content = CassandraReader.readAll(onlySSTable(loaded, plain).path(dev.flushline.sstable.Component.DATA), plain);
        for (TableSchema.Compression codec : TableSchema.Compression.values()) {
            Path out = tmp.resolve("compact-" + codec.cliName());
            r = LoadCommandTest.main("compact", "--schema", schema.toString(), "--input", loaded.toString(), "--out", out.toString(),
                    "--now", Long.toString(NOW), "--compression", codec.cliName());
            assertEquals(0, r.status(), codec + ": " + r.err() + r.out());
            SSTableFiles f = onlySSTable(out, plain);
            assertEquals(CompressionParams.of(codec, 16 * 1024), compressionOf(f), codec.cliName());
            assertEquals(content, CassandraReader.readAll(f.path(dev.flushline.sstable.Component.DATA), plain), codec.cliName());
            LoadCommandTest.Result v = LoadCommandTest.main("verify", "--schema", schema.toString(),
                    f.path(dev.flushline.sstable.Component.DATA).toString());
            assertEquals(0, v.status(), codec.cliName() + ": " + v.out() + v.err());
        }
    }
}

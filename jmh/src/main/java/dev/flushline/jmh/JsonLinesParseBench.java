package dev.flushline.jmh;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonToken;
import dev.flushline.bench.BenchCommand;
import dev.flushline.bench.BenchInputs;
import dev.flushline.data.Mutation;
import dev.flushline.ops.JsonParser;
import dev.flushline.ops.JsonSyntaxException;
import dev.flushline.ops.OperationDecoder;
import dev.flushline.ops.OperationReader;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * <b>Question.</b> Is our own JSON parser ({@link JsonParser}, which {@link OperationReader} runs on every line
 * of a {@code flushline load}) faster than jackson-core's streaming parser on the lines of the bench workload,
 * or should the load switch to the well-kept library? Asked both for the parse alone and for the whole path from
 * file bytes to mutations.
 *
 * <p><b>Hypothesis.</b> jackson-core is at least as fast: it scans bytes, not a decoded String, interns the
 * repeated keys, and does not build a {@code BigDecimal} through a substring for each number (the profile of the
 * load shows one per number); ours first decodes each line to a String and then scans its chars. If ours is not
 * measurably faster, the issue prefers jackson-core.
 *
 * <p><b>Input.</b> The bench workload as JSON Lines, one insert per row, the same rows as {@code BenchCommand.fill}
 * (pk 0..P-1, ck 0..9, five 16-character printable-ASCII values from the bench's seeded xorshift, with JSON's
 * escapes for {@code "} and {@code \}, microsecond timestamps from the bench's base):
 * {@code {"op":"insert","timestamp":T,"values":{"pk":P,"ck":C,"v1":"...",...,"v5":"..."}}}, about 200 bytes a
 * line. Built once per trial, {@code lines} lines, held as one UTF-8 byte array (the file) and as Strings (the
 * lines, for the parse-only pair). One op = one line; each invocation runs all of them.
 *
 * <p><b>What is measured</b> (every variant produces the same value model: {@code LinkedHashMap} in key order,
 * {@code ArrayList}, {@code String}, {@code BigDecimal} for every number, {@code Boolean}, null; duplicate keys
 * refused; checked equal in setup):
 * <ul>
 *   <li>{@code oursParse}: {@link JsonParser#parse} of each String line.</li>
 *   <li>{@code jacksonParse}: a jackson-core parser per String line ({@code JsonFactory.createParser(String)}),
 *       building the same model from its tokens.</li>
 *   <li>{@code oursFileToMutations}: {@link OperationReader} over the file's bytes: what {@code flushline load}
 *       runs. Before the decision below: line split, strict UTF-8 decode to a String, {@link JsonParser}, {@link
 *       OperationDecoder#decode}. Since: line split, a strict UTF-8 check of the bytes, a jackson-core parser over
 *       each line's bytes building the same model, the same decode. The old path is no longer in the tree, so
 *       rerunning this compares the new reader with {@code jacksonFileToMutations} (one parser for the whole
 *       file, no per-line checks): the price of the per-line rules.</li>
 *   <li>{@code jacksonFileToMutations}: one jackson-core parser over the file's bytes (JSON Lines are a sequence
 *       of root values), the same model per root value, the same {@link OperationDecoder#decode}.</li>
 *   <li>{@code jacksonFileTokensOnly}: jackson-core walking the file's tokens and reading each token's text or
 *       number without building a model: the floor of any jackson-based reader.</li>
 * </ul>
 * Not measured here: error messages. Whichever parser the load uses must still report {@code file:line: column
 * ...} as today; jackson gives the line and column through {@code getCurrentLocation()}.
 *
 * <p><b>@Param axis.</b> {@code lines} (default 100000: about 20 MB, past the caches, as a real file is).
 * Throughput is lines per second (score x lines; JMH reports invocations/s); {@code -prof gc} adds
 * {@code gc.alloc.rate.norm} per invocation (divide by {@code lines} for bytes per line).
 *
 * <p><b>Run.</b> {@code java -jar jmh/target/benchmarks.jar JsonLinesParseBench -prof gc}
 * (fork, warm-up and measurement are set below).
 *
 * <p><b>Last result</b> (2026-12-01, 2 vCPU VM, one run, 100,000 lines per op, before the switch): file bytes to
 * mutations, ours 6.65 ops/s, jackson-core 9.76 ops/s (x1.47 for jackson); the parse alone, ours 12.1, jackson
 * 10.7 (+-5, so no difference shown).
 *
 * <p><b>Decision.</b> Ours is not measurably better end to end, so {@link OperationReader} now parses with
 * jackson-core 2.13.2 (the release cassandra-all 5.0.5 brings). {@link JsonParser} stays: it words the messages
 * of refused lines, and it is the parse-only baseline here.
 *
 * <p><b>After the switch</b> (2026-12-01 22:14 UTC, same VM, another build running; only the two file variants):
 * {@code oursFileToMutations} (now the jackson-per-line reader) 6.34 +- 1.46 ops/s, 2,521 B per line;
 * {@code jacksonFileToMutations} 7.99 +- 2.42 ops/s, 1,896 B per line. The per-line reader is no faster than the
 * old one within the noise; one parser per line (so a bad line is refused alone) costs about a fifth against
 * one parser over the file.
 *
 * <p><b>Since the decode without a value model</b> (2026-12-03): {@link OperationReader} decodes a plain
 * insert from the tokens of one reused parser into a reused buffer, and {@code flushline load} without a
 * commit log takes the buffers; {@code oursFileToMutations} now measures {@link OperationReader#next()},
 * which builds the Mutation objects from the buffer (the commit log's path): 2,603 B per line before,
 * 668 B after, on 20,000 lines. The load's own path and the memtable are measured by
 * {@link LoadAllocationBench}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class JsonLinesParseBench {
    @Param({"100000"})
    public int lines;

    private TableSchema schema;
    private long nowSeconds;
    private byte[] file;
    private String[] text;
    private final JsonFactory jackson = new JsonFactory();
    private final JsonParser ours = new JsonParser();

    @Setup(Level.Trial)
    public void buildLines() throws Exception {
        BenchCommand.Workload w = BenchCommand.Setup.parse(new String[0]).workload;
        schema = CqlParser.parse(w.cql());
        nowSeconds = BenchCommand.BASE_TIMESTAMP_MICROS / 1_000_000;
        text = new String[lines];
        StringBuilder all = new StringBuilder(lines * 220);
        int[] next = {0};
        BenchInputs.jsonLines(w, lines, line -> {
            text[next[0]++] = line.toString();
            all.append(line).append('\n');
        });
        file = all.toString().getBytes(StandardCharsets.UTF_8);
        // Every variant must see the same values, or the comparison is not of the same work.
        for (int i = 0; i < Math.min(lines, 1000); i++) {
            Object a = ours.parse(text[i]);
            Object b = jacksonLine(text[i]);
            if (!a.equals(b)) throw new IllegalStateException("line " + (i + 1) + ": ours " + a + " but jackson " + b);
        }
        OperationReader reader = new OperationReader(schema, new ByteArrayInputStream(file), "bench.jsonl", nowSeconds);
        long n = 0;
        while (reader.next() != null) n++;
        if (n != lines) throw new IllegalStateException("the reader returned " + n + " mutations for " + lines + " lines");
    }

    @Benchmark
    public void oursParse(Blackhole bh) throws JsonSyntaxException {
        final String[] t = text;
        for (int i = 0; i < t.length; i++) bh.consume(ours.parse(t[i]));
    }

    @Benchmark
    public void jacksonParse(Blackhole bh) throws IOException {
        final String[] t = text;
        for (int i = 0; i < t.length; i++) bh.consume(jacksonLine(t[i]));
    }

    @Benchmark
    public void oursFileToMutations(Blackhole bh) throws Exception {
        OperationReader reader = new OperationReader(schema, new ByteArrayInputStream(file), "bench.jsonl", nowSeconds);
        Mutation m;
        while ((m = reader.next()) != null) bh.consume(m);
    }

    @Benchmark
    public void jacksonFileToMutations(Blackhole bh) throws Exception {
        OperationDecoder decoder = new OperationDecoder(schema, nowSeconds);
        try (com.fasterxml.jackson.core.JsonParser p = jackson.createParser(file)) {
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                Mutation m = decoder.decode(model(p, t));
                if (m != null) bh.consume(m);
            }
        }
    }

    @Benchmark
    public void jacksonFileTokensOnly(Blackhole bh) throws IOException {
        try (com.fasterxml.jackson.core.JsonParser p = jackson.createParser(file)) {
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                switch (t) {
                    case FIELD_NAME:
                    case VALUE_STRING:
                        bh.consume(p.getTextLength());
                        bh.consume(p.getTextCharacters());
                        break;
                    case VALUE_NUMBER_INT:
                        bh.consume(p.getLongValue());
                        break;
                    case VALUE_NUMBER_FLOAT:
                        bh.consume(p.getDoubleValue());
                        break;
                    default:
                        bh.consume(t);
                }
            }
        }
    }

    private Object jacksonLine(String line) throws IOException {
        try (com.fasterxml.jackson.core.JsonParser p = jackson.createParser(line)) {
            Object v = model(p, p.nextToken());
            if (p.nextToken() != null) throw new IOException("more than one JSON value on the line");
            return v;
        }
    }

    /** The value that starts at token {@code t}, in JsonParser's value model; the parser ends on its last token. */
    private static Object model(com.fasterxml.jackson.core.JsonParser p, JsonToken t) throws IOException {
        switch (t) {
            case START_OBJECT: {
                Map<String, Object> m = new LinkedHashMap<>();
                while ((t = p.nextToken()) != JsonToken.END_OBJECT) {
                    String key = p.getCurrentName();
                    Object v = model(p, p.nextToken());
                    if (m.containsKey(key)) throw new IOException("duplicate key " + key + " at " + p.getCurrentLocation());
                    m.put(key, v);
                }
                return m;
            }
            case START_ARRAY: {
                List<Object> l = new ArrayList<>();
                while ((t = p.nextToken()) != JsonToken.END_ARRAY) l.add(model(p, t));
                return l;
            }
            case VALUE_STRING: return p.getText();
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT: return p.getDecimalValue();
            case VALUE_TRUE: return Boolean.TRUE;
            case VALUE_FALSE: return Boolean.FALSE;
            case VALUE_NULL: return null;
            default: throw new IOException("unexpected " + t + " at " + p.getCurrentLocation());
        }
    }
}

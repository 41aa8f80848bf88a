package dev.flushline.flush;

import dev.flushline.data.PartitionUpdate;
import dev.flushline.memtable.AllocationMode;
import dev.flushline.memtable.Memtable;
import dev.flushline.memtable.SkipListMemtable;
import dev.flushline.schema.CqlParser;
import dev.flushline.schema.TableSchema;
import dev.flushline.testing.RandomUpdates;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The flush log line, the JFR event and the progress counter describe the same flush. */
class FlushObservabilityTest {
    static final Pattern LOG_LINE = Pattern.compile("^Completed flushing (\\S+-Data\\.db) \\(\\d+\\.\\d{3}MiB\\) for commitlog position "
            + "CommitLogPosition\\(segmentId=-?\\d+, position=\\d+\\), time spent: \\d+ ms, bytes flushed: (\\d+)/\\(\\d+ per sec\\), "
            + "partitions flushed: (\\d+)/\\(\\d+ per sec\\), rows: (\\d+)/\\(\\d+ per sec\\), cpu time: \\d+ ms, allocated: \\d+\\.\\d{3}MiB$");

    @TempDir
    Path tmp;

    @Test
    void logLineJfrEventAndProgressAgree() throws Exception {
        TableSchema schema = CqlParser.parse("CREATE TABLE ks.o (pk int, ck int, v text, PRIMARY KEY (pk, ck))");
        Memtable m = new SkipListMemtable(schema, AllocationMode.HEAP_BUFFERS);
        RandomUpdates gen = new RandomUpdates(schema, 3, 1_750_000_000L, 20_000, 3);
        for (PartitionUpdate u : gen.next(30_000)) m.apply(u);
        m.seal();
        FlushProgress progress = new FlushProgress();
        List<FlushOutcome> outcomes;
        Path jfr = tmp.resolve("flush.jfr");
        try (Recording r = new Recording()) {
            r.enable("dev.flushline.Flush");
            r.start();
            outcomes = FlushJob.run(m, FlushJob.Options.builder(tmp.resolve("out")).ranges(3).flushThreads(2).build(), (List<Path>) null, progress);
            r.stop();
            r.dump(jfr);
        } finally {
            m.discard();
        }
        assertEquals(3, outcomes.size());
        long partitions = 0;
        for (FlushOutcome o : outcomes) {
            var matcher = LOG_LINE.matcher(o.logLine());
            assertTrue(matcher.matches(), "log line format: " + o.logLine());
            assertEquals(o.result.dataPath.toString(), matcher.group(1));
            assertEquals(o.bytesFlushed, Long.parseLong(matcher.group(2)));
            assertEquals(o.result.partitions, Long.parseLong(matcher.group(3)));
            assertEquals(o.result.rows, Long.parseLong(matcher.group(4)));
            partitions += o.result.partitions;
        }
        assertEquals(m.partitionCount(), progress.partitionsTotal());
        assertEquals(progress.partitionsTotal(), progress.partitionsDone(), "progress visits every partition, empty ones too");
        assertTrue(partitions <= progress.partitionsDone());
        assertEquals(1.0, progress.fraction());

        List<RecordedEvent> events = new ArrayList<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(jfr)) {
            if (e.getEventType().getName().equals("dev.flushline.Flush")) events.add(e);
        }
        assertEquals(outcomes.size(), events.size(), "one JFR event per sstable");
        for (FlushOutcome o : outcomes) {
            RecordedEvent e = events.stream().filter(x -> x.getString("sstable").equals(o.result.dataPath.toString())).findFirst().orElseThrow();
            assertEquals(o.result.rows, e.getLong("rows"));
            assertEquals(o.result.partitions, e.getLong("partitions"));
            assertEquals(o.bytesFlushed, e.getLong("bytesFlushed"));
            assertEquals(o.cpuNanos, e.getDuration("cpuNanos").toNanos());
        }
    }
}

package dev.flushline.flush;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * One JFR event per published sstable, with the fields of the flush log line, so a recording
 * shows flushes next to GC and I/O events. Enabled by default in any JFR recording.
 */
@Name("dev.flushline.Flush")
@Label("Flushline Flush")
@Category({"Flushline"})
@Description("A memtable range written to one oa sstable")
@StackTrace(false)
public final class FlushEvent extends Event {
    @Label("SSTable")
    String sstable;

    @Label("Data.db Bytes")
    @DataAmount
    long dataBytes;

    @Label("Bytes Flushed")
    @DataAmount
    long bytesFlushed;

    @Label("Partitions")
    long partitions;

    @Label("Rows")
    long rows;

    @Label("Cells")
    long cells;

    @Label("CPU Time")
    @Timespan(Timespan.NANOSECONDS)
    long cpuNanos;

    @Label("Allocated")
    @DataAmount
    long allocatedBytes;

    static void emit(FlushOutcome o) {
        FlushEvent e = new FlushEvent();
        if (!e.isEnabled()) return;
        e.sstable = o.result.dataPath.toString();
        e.dataBytes = o.result.dataFileBytes;
        e.bytesFlushed = o.bytesFlushed;
        e.partitions = o.result.partitions;
        e.rows = o.result.rows;
        e.cells = o.result.cells;
        e.cpuNanos = o.cpuNanos;
        e.allocatedBytes = o.allocatedBytes;
        e.commit();
    }
}

package dev.flushline.cassandra6;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.io.sstable.format.SSTableReader;
import org.apache.cassandra.utils.FBUtilities;
import org.apache.cassandra.utils.StorageCompatibilityMode;

/**
 * The Cassandra 6.0 peer: a child JVM that flushes and compacts on request of Flushline's benchmark parent
 * (dev.flushline.compare.Cassandra6Child in jmh/), and answers with what each run cost.
 *
 * <p>Usage: {@code PeerMain <work dir> <storage_compatibility_mode>} (CASSANDRA_5 to write {@code oa}, NONE for
 * 6.0's own {@code pa}; see {@link Node6}).
 *
 * <p>Protocol, one {@link Wire} line each way, in turn: the child opens with {@code ready} (version, sstable
 * format, mode); then for each request line on stdin it writes exactly one reply line on stdout, {@code ok} with
 * the results or {@code error} with a message (and the stack trace on stderr). stdout carries nothing else:
 * System.out is pointed at stderr before anything logs, and the parent forwards stderr. Requests:
 * <ul>
 * <li>{@code flush}: fill a memtable with the bench workload and flush it ({@link Flush6}); with {@code compare},
 *     the path of Flushline's Data.db of the same rows, the reply's {@code same} says whether 6.0's is equal
 *     ({@link SameContent}). The sstable is deleted afterwards unless {@code keep} names a folder to move it to.</li>
 * <li>{@code open}: open a set of input sstables for compaction under an id ({@link Compaction6}); {@code data}
 *     lists their Data.db paths, one per line.</li>
 * <li>{@code compact}: one compaction of an open set, {@code path=cursor} or {@code iterator}; the reply names
 *     the pipeline that ran and, if the cursor path was refused, 6.0's reason; {@code compare} as for flush. The
 *     output is deleted afterwards; {@code keep} names a folder to copy it to first.</li>
 * <li>{@code close}: release an open set. {@code quit}: exit.</li>
 * </ul>
 * The parent waits for each reply, so the child runs only while the parent is idle, and idles on stdin
 * otherwise.
 *
 * <p>Measurement is the same as the parent's peers: CPU and allocated bytes of the working threads from
 * ThreadMXBean, wall time around the work, process CPU around it.
 */
public final class PeerMain {
    private PeerMain() {}

    public static void main(String[] args) throws Exception {
        PrintStream protocol = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        if (args.length != 2) {
            protocol.println(Wire.of("error").put("message", "usage: PeerMain <work dir> <storage_compatibility_mode>").encode());
            System.exit(1);
        }
        Path work = Files.createDirectories(Path.of(args[0]));
        StorageCompatibilityMode mode;
        try {
            mode = StorageCompatibilityMode.valueOf(args[1]);
        } catch (IllegalArgumentException e) {
            protocol.println(Wire.of("error").put("message", "storage_compatibility_mode '" + args[1] + "' is none of CASSANDRA_4, "
                    + "CASSANDRA_5, UPGRADING, NONE").encode());
            System.exit(1);
            return;
        }
        try {
            Node6.init(work.resolve("node"), mode);
        } catch (Throwable t) {
            t.printStackTrace();
            protocol.println(Wire.of("error").put("message", "Cassandra 6.0 did not start: " + t).encode());
            System.exit(2);
        }
        protocol.println(Wire.of("ready")
                .put("version", FBUtilities.getReleaseVersionString())
                .put("sstable", Node6.sstableVersion())
                .put("mode", Node6.mode())
                .put("cursorDefault", DatabaseDescriptor.cursorCompactionEnabled())
                .put("pid", ProcessHandle.current().pid())
                .encode());

        Flush6 flush = new Flush6(work.resolve("flush"));
        Map<String, Compaction6> open = new HashMap<>();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            Wire reply;
            try {
                Wire q = Wire.decode(line);
                switch (q.word) {
                    case "flush": reply = flush(flush, q); break;
                    case "open": reply = open(open, q); break;
                    case "compact": reply = compact(open, q); break;
                    case "close": {
                        Compaction6 c = open.remove(q.get("id"));
                        if (c != null) c.close();
                        reply = Wire.of("ok");
                        break;
                    }
                    case "quit":
                        protocol.println(Wire.of("ok").encode());
                        flush.close();
                        System.exit(0);
                        return;
                    default:
                        reply = Wire.of("error").put("message", "unknown request '" + q.word + "'");
                }
            } catch (Throwable t) {
                t.printStackTrace();
                reply = Wire.of("error").put("message", String.valueOf(t));
            }
            protocol.println(reply.encode());
        }
        // the parent closed our stdin without quit: it is gone, so are we
        System.exit(0);
    }

    private static Wire flush(Flush6 flush, Wire q) throws Exception {
        if (Long.parseLong(q.get("seed")) != Flush6.VALUE_SEED || Long.parseLong(q.get("baseTimestamp")) != Flush6.BASE_TIMESTAMP_MICROS) {
            throw new IllegalArgumentException("the parent's workload constants (seed " + q.get("seed") + ", base timestamp "
                    + q.get("baseTimestamp") + ") are not this peer's (" + Flush6.VALUE_SEED + ", " + Flush6.BASE_TIMESTAMP_MICROS
                    + "): rebuild jmh/cassandra6 with the parent's values");
        }
        Flush6.Request r = new Flush6.Request();
        r.partitions = q.getInt("partitions");
        r.rowsPerPartition = q.getInt("rowsPerPartition");
        r.valueColumns = q.getInt("valueColumns");
        r.valueBytes = q.getInt("valueBytes");
        r.chunkBytes = q.getInt("chunkBytes");
        r.valueOrder = q.get("valueOrder").split(",");
        if (r.valueOrder.length != r.valueColumns) {
            throw new IllegalArgumentException("valueOrder names " + r.valueOrder.length + " columns, valueColumns is " + r.valueColumns);
        }
        r.allocation = q.get("allocation");
        r.compression = q.get("compression");
        Flush6.Result res = flush.fillAndFlush(r);
        SSTableReader reader = res.reader;
        String same = "";
        try {
            String compare = q.get("compare", "");
            if (!compare.isEmpty()) {
                same = SameContent.verdict(Path.of(compare), reader,
                        Node6.store(Flush6.cql(r.valueColumns, r.compression, r.chunkBytes), flush.dataRoot()));
            }
        } finally {
            String keep = q.get("keep", "");
            List<Path> files = componentFiles(reader);
            reader.selfRef().release();
            if (keep.isEmpty()) {
                for (Path f : files) Files.deleteIfExists(f);
            } else {
                Path to = Files.createDirectories(Path.of(keep));
                for (Path f : files) Files.move(f, to.resolve(f.getFileName()));
            }
        }
        return Wire.of("ok").put("sstable", res.sstable).put("bytes", res.bytes).put("partitions", res.partitions)
                .put("rows", res.rows).put("cells", res.cells).put("fillNanos", res.fillNanos).put("fillGcCount", res.fillGcCount)
                .put("fillGcMillis", res.fillGcMillis).put("wallNanos", res.wallNanos).put("cpuNanos", res.cpuNanos)
                .put("allocatedBytes", res.allocatedBytes).put("processCpuNanos", res.processCpuNanos).put("threads", res.threads)
                .put("same", same);
    }

    private static List<Path> componentFiles(SSTableReader reader) {
        List<Path> files = new ArrayList<>();
        for (org.apache.cassandra.io.sstable.Component c : reader.descriptor.discoverComponents()) {
            files.add(reader.descriptor.fileFor(c).toPath());
        }
        return files;
    }

    private static Wire open(Map<String, Compaction6> open, Wire q) throws Exception {
        String id = q.get("id");
        if (open.containsKey(id)) throw new IllegalArgumentException("input set '" + id + "' is already open");
        List<Path> data = new ArrayList<>();
        for (String p : q.get("data").split("\n")) data.add(Path.of(p));
        Compaction6 c = new Compaction6(q.get("cql"), data, Path.of(q.get("store")));
        open.put(id, c);
        return Wire.of("ok").put("inputs", c.inputs()).put("diskAccessMode", DatabaseDescriptor.getDiskAccessMode())
                .put("compactionReadDiskAccessMode", DatabaseDescriptor.getCompactionReadDiskAccessMode())
                .put("throughput", DatabaseDescriptor.getCompactionThroughputMebibytesPerSec());
    }

    private static Wire compact(Map<String, Compaction6> open, Wire q) throws Exception {
        Compaction6 c = open.get(q.get("id"));
        if (c == null) throw new IllegalArgumentException("no open input set '" + q.get("id") + "'");
        String path = q.get("path");
        if (!path.equals("cursor") && !path.equals("iterator")) throw new IllegalArgumentException("path '" + path + "': cursor or iterator");
        long gcBefore = q.getLong("gcBefore");
        System.gc();
        AtomicReference<Compaction6.Outcome> outcome = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long[] m = new long[3];
        Thread t = new Thread(() -> {
            long id = Thread.currentThread().getId();
            long cpu0 = Costs.cpu(id), alloc0 = Costs.allocated(id);
            long w0 = System.nanoTime();
            try {
                outcome.set(c.compact(path.equals("cursor"), gcBefore));
            } catch (Throwable e) {
                failure.set(e);
            } finally {
                m[0] = System.nanoTime() - w0;
                m[1] = Costs.cpu(id) - cpu0;
                m[2] = Costs.allocated(id) - alloc0;
            }
        }, "CompactionExecutor:1");
        long p0 = Costs.processCpuNanos();
        t.start();
        t.join();
        long proc = Costs.processCpuNanos() - p0;
        if (failure.get() != null) {
            if (failure.get() instanceof Exception) throw (Exception) failure.get();
            throw (Error) failure.get();
        }
        Compaction6.Outcome o = outcome.get();
        long bytesOut = 0;
        List<Path> files = c.outputFiles();
        for (Path f : files) bytesOut += Files.size(f);
        String same = "";
        String compare = q.get("compare", "");
        StringBuilder outputs = new StringBuilder();
        for (SSTableReader r : o.outputs) {
            if (outputs.length() > 0) outputs.append('\n');
            outputs.append(r.getFilename());
        }
        if (!compare.isEmpty()) {
            if (o.outputs.size() != 1) same = "DIFFERENT: 6.0 wrote " + o.outputs.size() + " sstables, Flushline one";
            else same = SameContent.verdict(Path.of(compare), o.outputs.get(0), c.cfs);
        } else if (!o.outputs.isEmpty()) {
            same = "DIFFERENT: Flushline wrote nothing, 6.0 wrote " + o.outputs.size() + " sstables";
        }
        String keep = q.get("keep", "");
        if (!keep.isEmpty()) {
            Path to = Files.createDirectories(Path.of(keep));
            for (Path f : files) Files.copy(f, to.resolve(f.getFileName()));
        }
        c.discard(o);
        return Wire.of("ok").put("pipeline", o.pipeline).put("reason", o.fallbackReason).put("wallNanos", m[0])
                .put("cpuNanos", m[1]).put("allocatedBytes", m[2]).put("processCpuNanos", proc).put("threads", t.getName())
                .put("bytesOut", bytesOut).put("files", files.size()).put("outputs", outputs).put("same", same);
    }
}

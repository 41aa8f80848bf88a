package dev.flushline.compare;

import dev.flushline.bench.BenchCommand;
import dev.flushline.sstable.SSTableVersion;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import one.profiler.AsyncProfiler;

/**
 * {@code scripts/profile}: async-profiler (the tools.profiler:async-profiler jar's bundled
 * linux-x64/libasyncProfiler.so, through its Java API) over the end-to-end flush of the bench workload, ours
 * and Cassandra 5.0.5's, in CPU and allocation modes. The profiler runs only while the flush runs (started
 * after the fill, stopped when the sstables are published), so the fill does not dilute it. Both write the one
 * {@code --sstable-version} given (oa by default; da profiles the BTI flushes, Cassandra's included).
 *
 * <p>Writes into the output folder, per system and mode: {@code <system>-<mode>.html} (flame graph) and
 * {@code <system>-<mode>.collapsed} (collapsed stacks); {@code top-frames.md} (top self frames of each
 * profile, side by side: the differential view, since the 4.1 jar ships no jfrconv/converter classes);
 * {@code flushline-vs-cassandra-cpu.difffolded} (stack, Flushline samples, Cassandra samples: the input format
 * of FlameGraph's difffolded/flamegraph.pl --negate); and {@code summary.txt}. Exit status 3 when any
 * {@code vtable stub}/{@code itable stub} frame appears under dev/flushline/flush/FlushWriter.write in our CPU
 * profile (a megamorphic call in the flush loop is a bug: a virtual call per cell).
 */
public final class ProfileMain {
    private ProfileMain() {}

    static final String OUR_FLUSH_FRAME = "dev/flushline/flush/FlushWriter.write";

    public static void main(String[] args) throws Exception {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] argv, PrintStream out, PrintStream err) throws Exception {
        String what = "both";
        Path outDir = null;
        String interval = "1ms";
        String allocInterval = "16k";
        List<String> rest = new ArrayList<>();
        for (int i = 0; i < argv.length; i++) {
            switch (argv[i]) {
                case "--what": what = argv[++i]; break;
                case "--profile-dir": outDir = Path.of(argv[++i]); break;
                case "--interval": interval = argv[++i]; break;
                case "--alloc-interval": allocInterval = argv[++i]; break;
                default: rest.add(argv[i]);
            }
        }
        if (!what.equals("flushline") && !what.equals("cassandra") && !what.equals("both")) {
            err.println("profile: --what is flushline, cassandra or both");
            return 1;
        }
        if (outDir == null) {
            err.println("profile: --profile-dir DIR is required");
            return 1;
        }
        Files.createDirectories(outDir);
        BenchCommand.Setup setup;
        try {
            setup = BenchCommand.Setup.parse(rest.toArray(new String[0]));
        } catch (IllegalArgumentException e) {
            err.println("profile: " + e.getMessage());
            return 1;
        }
        if (setup.versions.size() != 1) {
            err.println("profile: one --sstable-version at a time (each profile is of one flush)");
            return 1;
        }
        SSTableVersion version = setup.versions.get(0);
        if (!what.equals("flushline") && !CassandraPeer.writes(version)) {
            err.println("profile: Cassandra 5.0.5's flush writes oa and da here, not " + version + "; profile it with --what flushline");
            return 1;
        }
        AsyncProfiler profiler = load();
        out.println("async-profiler " + profiler.getVersion());
        BenchCommand.Workload w = setup.workload;
        Path root = Files.createTempDirectory("flushline-profile-");
        List<String> summary = new ArrayList<>();
        Map<String, Map<String, Long>> selfByProfile = new LinkedHashMap<>();
        Map<String, Map<String, Long>> stacksByProfile = new LinkedHashMap<>();
        int stubs = 0;
        try {
            setup.warmUp(out);
            CassandraPeer cassandra = null;
            if (!what.equals("flushline")) {
                String[] order = new String[w.valueColumns];
                for (int c = 0; c < w.valueColumns; c++) order[c] = setup.schema.regularColumns()[c].name();
                cassandra = new CassandraPeer(w, order, root.resolve("cassandra"));
                BenchCommand.Workload small = w.withPartitions(Math.max(1, setup.warmupPartitions));
                for (String a : List.of("unslabbed_heap", "heap_buffers", "offheap_objects")) {
                    cassandra.fillAndFlush(small, a, setup.compression(), setup.schema.chunkLengthBytes(), version);
                }
            }
            String cpuEvent = cpuEvent(profiler);
            for (String mode : List.of("cpu", "alloc")) {
                String start = mode.equals("cpu") ? "start,event=" + cpuEvent + ",interval=" + interval : "start,event=alloc,alloc=" + allocInterval;
                if (!what.equals("cassandra")) {
                    String name = "flushline-" + mode;
                    Runnable[] hooks = hooks(profiler, start, outDir.resolve(name + ".html"));
                    BenchCommand.Measured m = setup.fillAndFlush(root.resolve(name), out, hooks[0], hooks[1]);
                    FlushRun r = AgainstMain.flushlineRun(setup, m);
                    String collapsed = profiler.dumpCollapsed(mode.equals("cpu") ? one.profiler.Counter.SAMPLES : one.profiler.Counter.TOTAL);
                    Files.writeString(outDir.resolve(name + ".collapsed"), collapsed);
                    summary.add(line(name, r));
                    record(collapsed, name, selfByProfile, stacksByProfile);
                    if (mode.equals("cpu")) stubs = countStubs(collapsed, summary);
                    BenchCommand.deleteRecursively(root.resolve(name));
                }
                if (cassandra != null) {
                    String name = "cassandra-" + mode;
                    Runnable[] hooks = hooks(profiler, start, outDir.resolve(name + ".html"));
                    FlushRun r = cassandra.fillAndFlush(w, setup.allocation().cliName(), setup.compression(),
                            setup.schema.chunkLengthBytes(), version, hooks[0], hooks[1]);
                    String collapsed = profiler.dumpCollapsed(mode.equals("cpu") ? one.profiler.Counter.SAMPLES : one.profiler.Counter.TOTAL);
                    Files.writeString(outDir.resolve(name + ".collapsed"), collapsed);
                    summary.add(line(name, r));
                    record(collapsed, name, selfByProfile, stacksByProfile);
                }
            }
            if (cassandra != null) cassandra.close();
        } finally {
            BenchCommand.deleteRecursively(root);
        }
        Files.writeString(outDir.resolve("top-frames.md"), topFrames(selfByProfile, 25));
        if (stacksByProfile.containsKey("flushline-cpu") && stacksByProfile.containsKey("cassandra-cpu")) {
            Files.writeString(outDir.resolve("flushline-vs-cassandra-cpu.difffolded"),
                    diffFolded(stacksByProfile.get("flushline-cpu"), stacksByProfile.get("cassandra-cpu")));
        }
        summary.add("vtable/itable stub samples under " + OUR_FLUSH_FRAME + ": " + stubs);
        Files.write(outDir.resolve("summary.txt"), summary);
        for (String s : summary) out.println(s);
        if (stubs > 0) {
            err.println("profile: " + stubs + " CPU samples in vtable/itable stubs under " + OUR_FLUSH_FRAME
                    + " (megamorphic call in our flush loop); see summary.txt");
            return 3;
        }
        return 0;
    }

    /** The bundled library: extracted from the jar on the class path to a temp file, then loaded. */
    static AsyncProfiler load() throws IOException {
        String preloaded = System.getProperty("flushline.asyncProfiler");
        if (preloaded != null) return AsyncProfiler.getInstance(preloaded); // loaded by -agentpath (scripts/profile)
        String arch = System.getProperty("os.arch").contains("aarch64") ? "linux-arm64" : "linux-x64";
        try (InputStream in = AsyncProfiler.class.getResourceAsStream("/" + arch + "/libasyncProfiler.so")) {
            if (in == null) throw new IOException("no " + arch + "/libasyncProfiler.so in the async-profiler jar");
            Path lib = Files.createTempFile("libasyncProfiler-", ".so");
            Files.copy(in, lib, StandardCopyOption.REPLACE_EXISTING);
            lib.toFile().deleteOnExit();
            return AsyncProfiler.getInstance(lib.toString());
        }
    }

    /** perf_events "cpu" when the kernel allows it, else "itimer" (containers often forbid perf_event_open). */
    static String cpuEvent(AsyncProfiler p) {
        try {
            p.execute("start,event=cpu,interval=10ms");
            p.execute("stop");
            return "cpu";
        } catch (Exception | Error e) {
            return "itimer";
        }
    }

    private static Runnable[] hooks(AsyncProfiler p, String start, Path html) {
        return new Runnable[] {
            () -> exec(p, start),
            () -> exec(p, "stop,file=" + html + ",title=" + html.getFileName().toString().replace(",", " "))
        };
    }

    private static void exec(AsyncProfiler p, String cmd) {
        try {
            p.execute(cmd);
        } catch (IOException e) {
            throw new IllegalStateException("async-profiler " + cmd + ": " + e.getMessage(), e);
        }
    }

    private static String line(String name, FlushRun r) {
        return String.format(Locale.ROOT, "%-16s flush wall %d ms, flush-thread cpu %d ms, allocated %.1f MiB, %d rows",
                name, r.wallNanos / 1_000_000, r.cpuNanos / 1_000_000, r.allocatedBytes / 1048576.0, r.rows);
    }

    private static void record(String collapsed, String name, Map<String, Map<String, Long>> self,
                               Map<String, Map<String, Long>> stacks) {
        Map<String, Long> s = new HashMap<>();
        Map<String, Long> st = new HashMap<>();
        for (String l : collapsed.split("\n")) {
            int sp = l.lastIndexOf(' ');
            if (sp <= 0) continue;
            long n = Long.parseLong(l.substring(sp + 1).trim());
            String stack = l.substring(0, sp);
            String leaf = stack.substring(stack.lastIndexOf(';') + 1);
            s.merge(leaf, n, Long::sum);
            st.merge(stack, n, Long::sum);
        }
        self.put(name, s);
        stacks.put(name, st);
    }

    /** Samples whose stack passes through our flush frame and ends in (or passes) a vtable/itable stub. */
    static int countStubs(String collapsed, List<String> summary) {
        long stubs = 0, under = 0;
        Map<String, Long> where = new HashMap<>();
        for (String l : collapsed.split("\n")) {
            int sp = l.lastIndexOf(' ');
            if (sp <= 0) continue;
            String stack = l.substring(0, sp);
            int at = stack.indexOf(OUR_FLUSH_FRAME);
            if (at < 0) continue;
            long n = Long.parseLong(l.substring(sp + 1).trim());
            under += n;
            String below = stack.substring(at);
            if (below.contains("vtable stub") || below.contains("itable stub")) {
                stubs += n;
                String[] f = below.split(";");
                int k = 0;
                while (k < f.length && !f[k].contains("table stub")) k++;
                where.merge((k > 0 ? f[k - 1] : "?") + " -> " + f[Math.min(k, f.length - 1)], n, Long::sum);
            }
        }
        summary.add("CPU samples under " + OUR_FLUSH_FRAME + ": " + under);
        where.forEach((k, v) -> summary.add("  stub: " + k + " (" + v + " samples)"));
        return (int) stubs;
    }

    static String topFrames(Map<String, Map<String, Long>> self, int n) {
        StringBuilder sb = new StringBuilder("# Top self frames per profile\n\n");
        sb.append("Self samples (CPU) or self bytes (alloc) of the leaf frame, as a share of the profile. Flushline and "
                + "Cassandra profiles of the same mode side by side are the differential view.\n");
        for (Map.Entry<String, Map<String, Long>> e : self.entrySet()) {
            long total = e.getValue().values().stream().mapToLong(Long::longValue).sum();
            sb.append("\n## ").append(e.getKey()).append(" (total ").append(total).append(")\n\n| share | frame |\n|---:|---|\n");
            e.getValue().entrySet().stream()
                    .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()))
                    .limit(n)
                    .forEach(f -> sb.append(String.format(Locale.ROOT, "| %.1f%% | `%s` |%n",
                            100.0 * f.getValue() / Math.max(1, total), f.getKey().replace("|", "\\|"))));
        }
        return sb.toString();
    }

    static String diffFolded(Map<String, Long> a, Map<String, Long> b) {
        StringBuilder sb = new StringBuilder();
        Map<String, long[]> all = new LinkedHashMap<>();
        a.forEach((k, v) -> all.computeIfAbsent(k, x -> new long[2])[0] = v);
        b.forEach((k, v) -> all.computeIfAbsent(k, x -> new long[2])[1] = v);
        all.forEach((k, v) -> sb.append(k).append(' ').append(v[0]).append(' ').append(v[1]).append('\n'));
        return sb.toString();
    }
}

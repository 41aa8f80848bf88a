package dev.flushline.compare;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code scripts/chart BENCH_OUTPUT [OUT.svg]}: draws the {@code bench --against --json} objects of a run as
 * one SVG with three horizontal bar panels, one bar per flush, coloured by system: flush CPU per row (ns),
 * heap allocated per flush (MiB, log scale: Flushline's is hundreds of times smaller), and fill throughput
 * (rows/s). Plain SVG text, no library. Lines of the input that are not JSON objects are ignored.
 */
public final class ChartMain {
    private ChartMain() {}

    private static final Pattern FIELD = Pattern.compile("\"([a-z_]+)\":(\"(?:[^\"\\\\]|\\\\.)*\"|[-0-9.eE]+|null)");
    private static final Map<String, String> COLOURS = Map.of(
            "flushline", "#1b9e77", "cassandra", "#7570b3", "rocksdb", "#d95f02");

    public static void main(String[] args) throws IOException {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: chart BENCH_JSON_OUTPUT [OUT.svg]");
            System.exit(1);
        }
        List<Map<String, String>> runs = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8)) {
            line = line.trim();
            if (!line.startsWith("{")) continue;
            Map<String, String> m = new LinkedHashMap<>();
            Matcher mt = FIELD.matcher(line);
            while (mt.find()) {
                String v = mt.group(2);
                m.put(mt.group(1), v.startsWith("\"") ? v.substring(1, v.length() - 1) : v);
            }
            if (m.containsKey("system")) runs.add(m);
        }
        if (runs.isEmpty()) {
            System.err.println("chart: no JSON objects with a \"system\" key in " + args[0]);
            System.exit(1);
        }
        String svg = svg(runs);
        Path out = Path.of(args.length > 1 ? args[1] : args[0].replaceAll("\\.[^./]*$", "") + ".svg");
        Files.writeString(out, svg, StandardCharsets.UTF_8);
        System.out.println("chart: wrote " + out + " (" + runs.size() + " flushes)");
    }

    static double num(Map<String, String> m, String key) {
        String v = m.get(key);
        return v == null || v.equals("null") ? Double.NaN : Double.parseDouble(v);
    }

    static String svg(List<Map<String, String>> runs) {
        int labelW = 270, barW = 420, valueW = 110, rowH = 18, gap = 4, panelHead = 34, panelGap = 26, margin = 16;
        int width = margin * 2 + labelW + barW + valueW;
        int panelH = panelHead + runs.size() * (rowH + gap);
        int legendH = 30;
        int height = margin * 2 + 30 + legendH + 3 * panelH + 2 * panelGap;
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n", width, height, width, height));
        sb.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width, height));
        Map<String, String> first = runs.get(0);
        sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"15\" font-weight=\"bold\">"
                        + "Memtable flush, same %s rows: Flushline vs Cassandra 5.0.5 vs RocksDB</text>%n",
                margin, margin + 14, fmt(num(first, "rows"))));
        int y = margin + 30;
        int lx = margin;
        for (String sys : List.of("flushline", "cassandra", "rocksdb")) {
            sb.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                    + "<text x=\"%d\" y=\"%d\">%s</text>%n", lx, y, COLOURS.get(sys), lx + 16, y + 11, sys));
            lx += 110;
        }
        y += legendH;
        y = panel(sb, runs, "Flush CPU per row (ns, flush threads; lower is better)", y, margin, labelW, barW, rowH, gap,
                false, m -> num(m, "cpu_ms") * 1e6 / num(m, "rows"), v -> String.format(Locale.ROOT, "%.0f ns", v));
        y += panelGap;
        y = panel(sb, runs, "Heap allocated per flush (MiB, log scale; lower is better; RocksDB: native, n/a)", y, margin,
                labelW, barW, rowH, gap, true, m -> num(m, "allocated_bytes") / 1048576.0,
                v -> String.format(Locale.ROOT, "%.2f MiB", v));
        y += panelGap;
        panel(sb, runs, "Write (memtable fill) throughput (rows/s, one thread; higher is better)", y, margin, labelW, barW,
                rowH, gap, false, m -> num(m, "fill_rows_per_s"), v -> String.format(Locale.ROOT, "%,.0f/s", v));
        sb.append("</svg>\n");
        return sb.toString();
    }

    private static int panel(StringBuilder sb, List<Map<String, String>> runs, String title, int y, int x, int labelW,
                             int barW, int rowH, int gap, boolean log,
                             java.util.function.ToDoubleFunction<Map<String, String>> value,
                             java.util.function.DoubleFunction<String> label) {
        sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"13\" font-weight=\"bold\">%s</text>%n",
                x, y + 14, esc(title)));
        y += 24;
        double max = 0, minPositive = Double.MAX_VALUE;
        for (Map<String, String> m : runs) {
            double v = value.applyAsDouble(m);
            if (!Double.isNaN(v)) {
                max = Math.max(max, v);
                if (v > 0) minPositive = Math.min(minPositive, v);
            }
        }
        double lo = log ? Math.pow(10, Math.floor(Math.log10(minPositive == Double.MAX_VALUE ? 1 : minPositive))) : 0;
        double hi = log ? Math.pow(10, Math.ceil(Math.log10(Math.max(max, lo * 10)))) : max;
        int bx = x + labelW;
        sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>%n",
                bx, y - 2, bx, y + runs.size() * (rowH + gap)));
        if (log) {
            for (double t = lo; t <= hi * 1.0001; t *= 10) {
                int tx = bx + (int) Math.round(barW * (Math.log10(t) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)));
                sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>"
                                + "<text x=\"%d\" y=\"%d\" font-size=\"9\" fill=\"#777\" text-anchor=\"middle\">%s</text>%n",
                        tx, y - 2, tx, y + runs.size() * (rowH + gap), tx, y - 4, fmt(t)));
            }
        }
        for (Map<String, String> m : runs) {
            String sys = m.get("system");
            String name = sys + " " + m.get("allocation") + " " + m.get("compression");
            double v = value.applyAsDouble(m);
            sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n",
                    bx - 6, y + rowH - 5, esc(name)));
            if (Double.isNaN(v)) {
                sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" fill=\"#777\">n/a</text>%n", bx + 4, y + rowH - 5));
            } else {
                double frac = log
                        ? (Math.log10(Math.max(v, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))
                        : (hi <= 0 ? 0 : v / hi);
                int w = Math.max(1, (int) Math.round(barW * frac));
                sb.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>"
                                + "<text x=\"%d\" y=\"%d\">%s</text>%n", bx, y, w, rowH, COLOURS.getOrDefault(sys, "#999"),
                        bx + w + 4, y + rowH - 5, esc(label.apply(v))));
            }
            y += rowH + gap;
        }
        return y;
    }

    private static String fmt(double v) {
        if (v >= 1 && v == Math.rint(v)) return String.format(Locale.ROOT, "%,.0f", v);
        return String.format(Locale.ROOT, "%.3g", v);
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}

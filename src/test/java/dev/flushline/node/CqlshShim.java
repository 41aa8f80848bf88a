package dev.flushline.node;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.cql.ColumnDefinitions;
import com.datastax.oss.driver.api.core.cql.ResultSet;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.data.UdtValue;
import com.datastax.oss.driver.api.core.type.UserDefinedType;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The part of cqlsh the documentation uses, for {@link DocsNode}: {@code cqlsh -f FILE} runs the
 * file's statements (separated by ';', with '--' and '//' comment lines), {@code cqlsh -e STATEMENT}
 * runs one and prints its rows as cqlsh does: a header, a rule, each value right-aligned in its
 * column, text bare at the top level and quoted inside a collection or UDT, then "(N rows)".
 * Arguments: HOST PORT, then the cqlsh options. Exit status 0, or 2 with the error on stderr.
 */
public final class CqlshShim {
    private CqlshShim() {}

    public static void main(String[] args) throws Exception {
        String host = args[0];
        int port = Integer.parseInt(args[1]);
        List<String> statements = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            if (args[i].equals("-f") && i + 1 < args.length) {
                statements.addAll(split(Files.readString(Path.of(args[++i]), StandardCharsets.UTF_8)));
            } else if (args[i].equals("-e") && i + 1 < args.length) {
                statements.add(args[++i]);
            } else {
                System.err.println("cqlsh (test shim): unsupported argument " + args[i]);
                System.exit(2);
            }
        }
        // cqlsh waits 10 s for a request and schema changes take a while on a loaded machine: the driver's 2 s
        // default is too short for them (the node tests take the same bounds).
        try (CqlSession session = CqlSession.builder().addContactPoint(new InetSocketAddress(host, port))
                .withLocalDatacenter("datacenter1")
                .withConfigLoader(DriverConfigLoader.programmaticBuilder()
                        .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, Duration.ofSeconds(60))
                        .withDuration(DefaultDriverOption.CONTROL_CONNECTION_AGREEMENT_TIMEOUT, Duration.ofSeconds(30))
                        .build())
                .build()) {
            for (String s : statements) {
                ResultSet rs = session.execute(s);
                if (rs.getColumnDefinitions().size() > 0) print(rs);
            }
        } catch (RuntimeException e) {
            System.err.println("cqlsh (test shim): " + e);
            System.exit(2);
        }
        System.exit(0);
    }

    static List<String> split(String text) {
        StringBuilder sb = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            String t = line.strip();
            if (t.startsWith("--") || t.startsWith("//")) continue;
            sb.append(line).append('\n');
        }
        List<String> out = new ArrayList<>();
        for (String s : sb.toString().split(";")) {
            if (!s.isBlank()) out.add(s.strip());
        }
        return out;
    }

    static void print(ResultSet rs) {
        ColumnDefinitions defs = rs.getColumnDefinitions();
        int n = defs.size();
        List<String[]> rows = new ArrayList<>();
        int[] width = new int[n];
        String[] header = new String[n];
        for (int c = 0; c < n; c++) {
            header[c] = defs.get(c).getName().asCql(true);
            width[c] = header[c].length();
        }
        for (Row r : rs) {
            String[] cells = new String[n];
            for (int c = 0; c < n; c++) {
                cells[c] = format(r.getObject(c), true);
                width[c] = Math.max(width[c], cells[c].length());
            }
            rows.add(cells);
        }
        StringBuilder out = new StringBuilder("\n");
        line(out, header, width);
        for (int c = 0; c < n; c++) out.append(c == 0 ? "-" : "+-").append("-".repeat(width[c] + 1));
        out.append('\n');
        for (String[] r : rows) line(out, r, width);
        out.append("\n(").append(rows.size()).append(rows.size() == 1 ? " rows)\n" : " rows)\n");
        System.out.print(out);
    }

    private static void line(StringBuilder out, String[] cells, int[] width) {
        for (int c = 0; c < cells.length; c++) {
            out.append(c == 0 ? " " : " | ").append(" ".repeat(width[c] - cells[c].length())).append(cells[c]);
        }
        out.append('\n');
    }

    static String format(Object v, boolean top) {
        if (v == null) return "null";
        if (v instanceof CharSequence s) return top ? s.toString() : "'" + s.toString().replace("'", "''") + "'";
        if (v instanceof UdtValue u) {
            UserDefinedType t = u.getType();
            StringBuilder sb = new StringBuilder("{");
            for (int i = 0; i < t.getFieldNames().size(); i++) {
                if (i > 0) sb.append(", ");
                sb.append(t.getFieldNames().get(i).asCql(true)).append(": ").append(format(u.getObject(i), false));
            }
            return sb.append('}').toString();
        }
        if (v instanceof List<?> l) return join(l, "[", "]");
        if (v instanceof Collection<?> s) return join(s, "{", "}");
        if (v instanceof Map<?, ?> m) {
            StringBuilder sb = new StringBuilder("{");
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!first) sb.append(", ");
                first = false;
                sb.append(format(e.getKey(), false)).append(": ").append(format(e.getValue(), false));
            }
            return sb.append('}').toString();
        }
        return v.toString();
    }

    private static String join(Collection<?> c, String open, String close) {
        StringBuilder sb = new StringBuilder(open);
        boolean first = true;
        for (Object o : c) {
            if (!first) sb.append(", ");
            first = false;
            sb.append(format(o, false));
        }
        return sb.append(close).toString();
    }
}

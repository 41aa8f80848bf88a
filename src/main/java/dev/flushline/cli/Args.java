package dev.flushline.cli;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The options of one command: {@code --name value}, {@code --name=value} and flags
 * ({@code --json}). Unknown options, missing values, repeated options and stray arguments are
 * usage errors that name the option.
 *
 * <p>Thread safety: not thread-safe; one per command invocation.
 */
public final class Args {
    private final String command;
    private final Map<String, String> values = new HashMap<>();

    /** {@code withValue}: options that take a value; {@code flags}: options that do not. */
    public Args(String command, String[] args, Set<String> withValue, Set<String> flags) throws UsageException {
        this.command = command;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--")) {
                throw new UsageException("unexpected argument '" + a + "'");
            }
            String name = a.substring(2);
            String value = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            if (flags.contains(name)) {
                if (value != null) throw new UsageException("option --" + name + " takes no value");
                value = "true";
            } else if (withValue.contains(name)) {
                if (value == null) {
                    if (i + 1 >= args.length) throw new UsageException("option --" + name + " needs a value");
                    value = args[++i];
                }
            } else {
                throw new UsageException("unknown option --" + name + " (see flushline " + command + " --help)");
            }
            if (values.put(name, value) != null) {
                throw new UsageException("option --" + name + " is given twice");
            }
        }
    }

    public boolean has(String name) {
        return values.containsKey(name);
    }

    public String string(String name, String defaultValue) {
        String v = values.get(name);
        return v == null ? defaultValue : v;
    }

    public String required(String name) throws UsageException {
        String v = values.get(name);
        if (v == null) throw new UsageException("missing --" + name + " (see flushline " + command + " --help)");
        return v;
    }

    public long longValue(String name, long defaultValue, long min, long max) throws UsageException {
        String v = values.get(name);
        if (v == null) return defaultValue;
        long x;
        try {
            x = Long.parseLong(v.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " " + v + " is not an integer");
        }
        if (x < min || x > max) {
            throw new UsageException("--" + name + " " + v + " is out of range (" + min + ".." + max + ")");
        }
        return x;
    }

    public int intValue(String name, int defaultValue, int min, int max) throws UsageException {
        return (int) longValue(name, defaultValue, min, max);
    }

    /** One of {@code choices}, else a usage error listing them. */
    public String choice(String name, String defaultValue, String... choices) throws UsageException {
        String v = string(name, defaultValue);
        for (String c : choices) {
            if (c.equals(v)) return v;
        }
        throw new UsageException("--" + name + " " + v + " is not one of " + String.join(", ", choices));
    }
}

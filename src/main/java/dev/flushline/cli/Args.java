package dev.flushline.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The options of one command: {@code --name value}, {@code --name=value} and flags
 * ({@code --json}); for the commands that take them, single-dash short options ({@code -k KEY},
 * {@code -d}) and positional arguments (sstable paths). Unknown options, missing values, repeated
 * options (unless repeatable) and stray arguments are usage errors that name the option.
 *
 * <p>Every command parses through this class, so the two spellings of a valued option and the
 * wording of the usage errors are the same everywhere (CommandConsistencyTest walks them).
 *
 * <p>Thread safety: not thread-safe; one per command invocation.
 */
public final class Args {
    private final String command;
    private final Map<String, List<String>> values = new HashMap<>();
    private final List<String> positionals = new ArrayList<>();

    /** {@code withValue}: options that take a value; {@code flags}: options that do not. No positionals. */
    public Args(String command, String[] args, Set<String> withValue, Set<String> flags) throws UsageException {
        this(command, args, new Spec(withValue, flags));
    }

    public Args(String command, String[] args, Spec spec) throws UsageException {
        this.command = command;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String name;
            String value = null;
            if (a.startsWith("--")) {
                name = a.substring(2);
                int eq = name.indexOf('=');
                if (eq >= 0) {
                    value = name.substring(eq + 1);
                    name = name.substring(0, eq);
                }
                if (name.isEmpty() || name.startsWith("-")) {
                    throw new UsageException("unknown option " + a + " (see flushline " + command + " --help)");
                }
            } else if (a.length() > 1 && a.startsWith("-") && !spec.shortNames.isEmpty()) {
                // A short option is its own name, dash included, so that it can never be typed as a long one.
                name = a;
                if (!spec.withValue.contains(name) && !spec.flags.contains(name)) {
                    throw new UsageException("unknown option " + a + " (see flushline " + command + " --help)");
                }
            } else if (spec.positionals) {
                positionals.add(a);
                continue;
            } else {
                throw new UsageException("unexpected argument '" + a + "'");
            }
            String shown = name.startsWith("-") ? name : "--" + name;
            if (spec.flags.contains(name)) {
                if (value != null) throw new UsageException("option " + shown + " takes no value");
                value = "true";
            } else if (spec.withValue.contains(name)) {
                if (value == null) {
                    if (i + 1 >= args.length) throw new UsageException("option " + shown + " needs a value");
                    value = args[++i];
                }
            } else {
                throw new UsageException("unknown option " + shown + " (see flushline " + command + " --help)");
            }
            List<String> list = values.computeIfAbsent(name, k -> new ArrayList<>(1));
            if (!list.isEmpty() && !spec.repeatable.contains(name)) {
                throw new UsageException("option " + shown + " is given twice");
            }
            list.add(value);
        }
    }

    /**
     * What a command accepts. Short options are named with their dash ({@code "-k"}) in
     * {@code withValue} or {@code flags}, and listed again in {@code shortNames}.
     */
    public static final class Spec {
        final Set<String> withValue;
        final Set<String> flags;
        Set<String> repeatable = Set.of();
        Set<String> shortNames = Set.of();
        boolean positionals;

        public Spec(Set<String> withValue, Set<String> flags) {
            this.withValue = withValue;
            this.flags = flags;
        }

        /** Options that may be given more than once; {@link #all} returns every value. */
        public Spec repeatable(Set<String> names) {
            this.repeatable = names;
            return this;
        }

        /** Arguments that do not start with a dash are positional (see {@link #positionals()}). */
        public Spec positionals() {
            this.positionals = true;
            return this;
        }

        /** Single-dash options ({@code -k}, {@code -d}); each must also be in withValue or flags. */
        public Spec shortOptions(Set<String> names) {
            this.shortNames = names;
            return this;
        }
    }

    /**
     * Whether {@code argv} asks for help ({@code --help} or {@code -h}) anywhere but as the value of
     * an option: help wins over every other argument, and is printed on stdout with status 0.
     */
    public static boolean wantsHelp(String[] argv) {
        for (String s : argv) {
            if (s.equals("--help") || s.equals("-h")) return true;
        }
        return false;
    }

    public boolean has(String name) {
        return values.containsKey(name);
    }

    public String string(String name, String defaultValue) {
        List<String> v = values.get(name);
        return v == null ? defaultValue : v.get(0);
    }

    /** Every value of a repeatable option, in the order given (empty if not given). */
    public List<String> all(String name) {
        List<String> v = values.get(name);
        return v == null ? List.of() : List.copyOf(v);
    }

    /** The positional arguments, in order. */
    public List<String> positionals() {
        return List.copyOf(positionals);
    }

    public String required(String name) throws UsageException {
        String v = string(name, null);
        if (v == null) throw new UsageException("missing --" + name + " (see flushline " + command + " --help)");
        return v;
    }

    public long longValue(String name, long defaultValue, long min, long max) throws UsageException {
        String v = string(name, null);
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

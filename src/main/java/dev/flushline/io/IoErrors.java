package dev.flushline.io;

/**
 * The one wording of an I/O failure for an operator: the innermost cause, what the operating system
 * said. A full disk is named as such, with its errno, whatever layer reported it (a write on the
 * pipelined output's I/O thread, an fsync, a rename), so that every command says the same thing.
 *
 * <p>Thread safety: stateless.
 */
public final class IoErrors {
    private IoErrors() {}

    /** What Linux's strerror(ENOSPC) says; Java's IOException for a full disk carries it. */
    static final String NO_SPACE = "No space left on device";

    /** The innermost cause's message (its class name if it has none), with ENOSPC spelled out for a full disk. */
    public static String describe(Throwable t) {
        Throwable root = t;
        for (int depth = 0; root.getCause() != null && root.getCause() != root && depth < 32; depth++) {
            root = root.getCause();
        }
        String m = root.getMessage();
        String text = m == null ? root.getClass().getSimpleName() : m;
        return isDiskFull(t) && !text.contains("ENOSPC") ? text + " (ENOSPC: the disk is full)" : text;
    }

    /** {@code t.toString()}, with ENOSPC spelled out when a cause is a full disk and the text does not say so. */
    public static String withCause(Throwable t) {
        return annotated(t.toString(), t);
    }

    /** {@code t.getMessage()} (its class name if it has none), with ENOSPC spelled out as {@link #withCause} does. */
    public static String message(Throwable t) {
        return annotated(t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage(), t);
    }

    private static String annotated(String text, Throwable t) {
        if (!isDiskFull(t) || text.contains("ENOSPC")) return text;
        return text.contains(NO_SPACE) ? text + " (ENOSPC: the disk is full)" : text + ": " + describe(t);
    }

    /** Whether {@code t} or one of its causes is a full disk. */
    public static boolean isDiskFull(Throwable t) {
        Throwable c = t;
        for (int depth = 0; c != null && depth < 32; depth++) {
            String m = c.getMessage();
            if (m != null && (m.contains(NO_SPACE) || m.contains("ENOSPC"))) return true;
            if (c.getCause() == c) break;
            c = c.getCause();
        }
        return false;
    }
}

package dev.flushline.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A small tmpfs mounted for a test, so that a full disk is a real ENOSPC from the kernel rather
 * than an injected exception. Needs root (CI runs as root); {@link #mount} returns null where the
 * mount is refused, and the test then says it was skipped and why.
 */
public final class Tmpfs implements AutoCloseable {
    private final Path dir;

    private Tmpfs(Path dir) {
        this.dir = dir;
    }

    /** Mounts a tmpfs of {@code sizeKiB} at {@code dir} (created if needed), or returns null if that is not allowed here. */
    public static Tmpfs mount(Path dir, long sizeKiB) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        if (run("mount", "-t", "tmpfs", "-o", "size=" + sizeKiB + "k", "tmpfs", dir.toString()) != 0) return null;
        return new Tmpfs(dir);
    }

    public Path dir() {
        return dir;
    }

    /** Grows (or shrinks) the filesystem in place: what an operator's "free some space" amounts to. */
    public void resize(long sizeKiB) throws IOException, InterruptedException {
        if (run("mount", "-o", "remount,size=" + sizeKiB + "k", dir.toString()) != 0) {
            throw new IOException("could not resize the tmpfs at " + dir);
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        if (run("umount", "-l", dir.toString()) != 0) throw new IOException("could not unmount " + dir);
    }

    private static int run(String... command) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            return -1; // no mount command: treat as not allowed
        }
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return -1;
        }
        return p.exitValue();
    }
}

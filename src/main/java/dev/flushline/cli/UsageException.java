package dev.flushline.cli;

/** Bad command line or bad input: the command prints the message and exits with status 1. */
public final class UsageException extends Exception {
    public UsageException(String message) {
        super(message);
    }
}

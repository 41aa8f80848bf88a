package dev.flushline.sstable;

import dev.flushline.Main;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * A child JVM's main for crash tests: runs a {@code flushline} command line whose transaction
 * stops after each step of its protocol until the parent says go on, so that a SIGKILL from the
 * parent lands exactly after a chosen step. Each step is one line {@code step <what>} on stdout
 * (see {@link TransactionLog.StepListener} for the steps), then the child waits for a line on
 * stdin; the command's own output goes to stderr. At the end it prints {@code exit <status>} and
 * exits with that status; if the parent goes away (stdin ends) it exits with 3.
 */
public final class SteppedCommand {
    private SteppedCommand() {}

    public static void main(String[] args) {
        BufferedReader answers = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        TransactionLog.defaultListener = what -> {
            System.out.println("step " + what);
            System.out.flush();
            try {
                if (answers.readLine() == null) System.exit(3);
            } catch (IOException e) {
                System.exit(3);
            }
        };
        int status = Main.run(args, new ByteArrayInputStream(new byte[0]), System.err, System.err);
        System.out.println("exit " + status);
        System.out.flush();
        System.exit(status);
    }
}

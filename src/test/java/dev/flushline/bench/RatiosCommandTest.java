package dev.flushline.bench;

import dev.flushline.Main;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The ratios command runs every variant and prints the three ratios; it never asserts on time. */
class RatiosCommandTest {
    @Test
    void printsAllVariantsAndRatios() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int status = Main.run(new String[] {"ratios", "--partitions", "300", "--repeat", "1"},
                new ByteArrayInputStream(new byte[0]), new PrintStream(out, true), new PrintStream(err, true));
        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, err.toString(StandardCharsets.UTF_8));
        for (String label : new String[] {"parallel  ratio", "pipelined ratio", "inline    ratio", "FileChannel loop"}) {
            assertTrue(text.contains(label), label + " in:\n" + text);
        }
        assertTrue(Pattern.compile("parallel  ratio \\(2 threads / 1 thread\\)\\s+= \\d+\\.\\d\\d").matcher(text).find(), text);
    }

    @Test
    void badOptionsAreUsageErrors() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        int status = Main.run(new String[] {"ratios", "--repeat", "zero"}, new ByteArrayInputStream(new byte[0]),
                new PrintStream(out, true), new PrintStream(err, true));
        assertEquals(1, status);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--repeat needs a positive whole number, not 'zero'"));
    }
}

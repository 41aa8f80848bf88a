package dev.flushline.ops;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.sym.ByteQuadsCanonicalizer;
import com.fasterxml.jackson.core.util.BufferRecycler;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The reused parser reads each line as a fresh jackson parser does, whatever the line before it
 * left behind: stopped in the middle of a string, of an object, after an error, or at the end.
 * It leans on jackson's protected fields, so this pins it to the jackson-core on the class path.
 */
class LineJsonParserTest {
    static final String[] LINES = {
            "{\"op\":\"insert\",\"timestamp\":5,\"values\":{\"pk\":1,\"v\":\"abc\"}}",
            "{\"a\":\"a long string that is left unread\",\"b\":[1,2,{\"c\":null}]}",
            "{\"x\":1.5e3,\"y\":-0,\"z\":true,\"w\":false}",
            "{\"unterminated\":\"abc",
            "{\"a\":1,}",
            "[1,2,3]",
            "{\"\u00e9\":\"\ud834\udd1e\",\"k\\u0041\":\"\\n\"}",
            "{} {}",
            "{}   \r",
            "{\"deep\":[[[[{\"a\":[]}]]]]}",
    };

    @Test
    void eachLineReadsAsWithAFreshParser() throws IOException {
        LineJsonParser p = LineJsonParser.create(StreamReadConstraints.defaults(), new BufferRecycler(),
                com.fasterxml.jackson.core.JsonParser.Feature.collectDefaults(), ByteQuadsCanonicalizer.createRoot().makeChild(0));
        JsonFactory fresh = new JsonFactory();
        Random r = new Random(3);
        byte[] buffer = new byte[256];
        for (int i = 0; i < 2000; i++) {
            byte[] line = LINES[r.nextInt(LINES.length)].getBytes(StandardCharsets.UTF_8);
            // the line at a random place of a buffer, as lines sit in the reader's
            int start = r.nextInt(16);
            System.arraycopy(line, 0, buffer, start, line.length);
            p.reset(buffer, start, start + line.length);
            // read the whole line, or stop after a few tokens as a declined line does
            int stopAfter = r.nextBoolean() ? Integer.MAX_VALUE : r.nextInt(6);
            List<String> expected = tokens(fresh.createParser(line), stopAfter);
            assertEquals(expected, tokens(p, stopAfter), new String(line, StandardCharsets.UTF_8));
        }
    }

    @Test
    void blanksAfterTheValue() throws IOException {
        LineJsonParser p = LineJsonParser.create(StreamReadConstraints.defaults(), new BufferRecycler(),
                com.fasterxml.jackson.core.JsonParser.Feature.collectDefaults(), ByteQuadsCanonicalizer.createRoot().makeChild(0));
        byte[] a = "{\"a\":1} \t\r".getBytes(StandardCharsets.UTF_8);
        p.reset(a, 0, a.length);
        p.nextToken();
        p.skipChildren();
        assertTrue(p.onlyBlanksAfterValue());
        byte[] b = "{\"a\":1} {}".getBytes(StandardCharsets.UTF_8);
        p.reset(b, 0, b.length);
        p.nextToken();
        p.skipChildren();
        assertFalse(p.onlyBlanksAfterValue());
    }

    /** The tokens with their text, up to stopAfter of them, the end, or an error (named by its class). */
    private static List<String> tokens(com.fasterxml.jackson.core.JsonParser p, int stopAfter) {
        List<String> out = new ArrayList<>();
        try {
            JsonToken t;
            while (out.size() < stopAfter && (t = p.nextToken()) != null) {
                out.add(t + " " + (t == JsonToken.FIELD_NAME ? p.currentName() : t.isScalarValue() ? p.getText() : ""));
                if (t.isStructEnd() && p.getParsingContext().inRoot()) break; // one value per line
            }
        } catch (IOException e) {
            out.add("error " + e.getClass().getSimpleName());
        }
        return out;
    }
}

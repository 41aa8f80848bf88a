package dev.flushline.ops;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.SequenceInputStream;
import java.util.Arrays;

/**
 * The chars of a CSV input in one reused window, decoded from its bytes (strict UTF-8, checked by
 * {@link CheckedUtf8Input} below), read by two readers in turn: {@link CsvRecordDecoder}, which looks at
 * a record in place and takes it or leaves it, and jackson's CSV tokenizer, which is handed chars
 * through {@link #reader()} for the records the first one leaves.
 *
 * <pre>
 *   chars: [ kept ... | pos ............ | limit ........ capacity )
 *            ^ start of the last handout to jackson (kept, so that what jackson did not use can be taken back)
 * </pre>
 * {@code chars[pos, limit)} are decoded and neither consumed by the fast path nor handed to jackson.
 * {@link #fill} moves the window's live part to the front and decodes more; it keeps
 * {@code [min(pos, handout start), limit)}, so any index into the window is stale after it (the
 * distance from {@link #pos} is not).
 *
 * <p><b>Handouts.</b> jackson reads ahead at the end of a record: it skips blank lines and leading
 * spaces to the next record's first char, reading what it needs. So that the fast path can take the
 * following records again, what jackson reads at a line's start is cut short: the leading spaces and
 * line ends, then one char, the next record's first (a "prefix" handout); what it reads within a line
 * goes up to and including the line end. After a record jackson then holds at most that one char,
 * which {@link #takeBack} returns to the window.
 *
 * <p><b>Failures</b> of the input (bytes that are not UTF-8, a read that was abandoned, an I/O error)
 * are kept and thrown again by every later {@link #fill}: the fast path declines where it meets one,
 * and jackson meets the same exception at the same place in its own reading.
 *
 * <p>Thread safety: not thread-safe; the reader's thread only.
 */
final class CsvChars {
    /** The window: a record the fast path takes, with the blank lines after it, fits within it. */
    static final int WINDOW_CHARS = 1 << 16;

    private final InputStream in;
    private final byte[] bytes = new byte[1 << 16];
    private int bytePos;
    private int byteLimit;
    private boolean inputEnded;
    private IOException failure;

    final char[] chars = new char[WINDOW_CHARS];
    /** The next char neither consumed by the fast path nor handed to jackson. */
    int pos;
    /** The end of the decoded chars. */
    int limit;
    /** Where the last handout to jackson started; -1 when jackson holds nothing the window must keep. */
    private int handoutStart = -1;
    /** Whether the next handout is a prefix one: only spaces and line ends were handed since the last line end. */
    private boolean atLineStart = true;
    /** Whether the last handout was a prefix one that ended with a record's first char. */
    private boolean lastHandoutEndedPrefix;
    private final Reader reader = new HandoutReader();

    CsvChars(InputStream in) {
        this.in = in;
    }

    // ---------------------------------------------------------------------------------------
    // the first bytes

    /**
     * Reads until at least {@code n} bytes are buffered or the input ends, as jackson's encoding
     * detection does at the start of an input; returns how many are buffered. REQUIRES: nothing decoded yet.
     */
    int peekBytes(int n) throws IOException {
        while (byteLimit - bytePos < n) {
            int r = in.read(bytes, byteLimit, bytes.length - byteLimit);
            if (r < 1) break;
            byteLimit += r;
        }
        return byteLimit - bytePos;
    }

    /** Buffered byte {@code i} (from the start of what is buffered). */
    byte peekedByte(int i) {
        return bytes[bytePos + i];
    }

    /** Drops {@code n} buffered bytes (a byte order mark). */
    void skipBytes(int n) {
        bytePos += n;
    }

    /** The input from its first byte not yet decoded: what was buffered, then the rest. REQUIRES: nothing decoded yet. */
    InputStream undecodedInput() {
        return new SequenceInputStream(new ByteArrayInputStream(Arrays.copyOfRange(bytes, bytePos, byteLimit)), in);
    }

    // ---------------------------------------------------------------------------------------
    // the window

    /**
     * Decodes more chars: the number added (at least one), 0 if the window is full (it holds only
     * chars still needed), or -1 at the end of the input. Throws the input's failure, now and at
     * every later call.
     */
    int fill() throws IOException {
        if (failure != null) throw failure;
        int keep = handoutStart >= 0 ? Math.min(pos, handoutStart) : pos;
        if (keep > 0) {
            System.arraycopy(chars, keep, chars, 0, limit - keep);
            limit -= keep;
            pos -= keep;
            if (handoutStart >= 0) handoutStart -= keep;
        }
        if (chars.length - limit < 2) return 0; // a character may take two chars
        try {
            while (true) {
                int added = decode();
                if (added > 0) return added;
                if (inputEnded) return -1;
                readBytes();
            }
        } catch (IOException e) {
            failure = e;
            throw e;
        }
    }

    /** Reads more bytes behind those not yet decoded (an incomplete character at most). */
    private void readBytes() throws IOException {
        if (bytePos > 0) {
            System.arraycopy(bytes, bytePos, bytes, 0, byteLimit - bytePos);
            byteLimit -= bytePos;
            bytePos = 0;
        }
        int r = in.read(bytes, byteLimit, bytes.length - byteLimit);
        if (r < 0) {
            // CheckedUtf8Input refuses an input that ends inside a character, so none is left here
            inputEnded = true;
        } else {
            byteLimit += r;
        }
    }

    /** Decodes whole characters from the buffered bytes into the window; returns the chars added. REQUIRES: valid UTF-8. */
    private int decode() {
        final byte[] b = bytes;
        final char[] c = chars;
        final int end = byteLimit, room = c.length;
        int i = bytePos, o = limit;
        while (i < end && o < room) {
            int x = b[i];
            if (x >= 0) {
                c[o++] = (char) x;
                i++;
                continue;
            }
            int lead = x & 0xFF;
            int length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
            if (i + length > end) break; // the rest of the character is still to be read
            int cp;
            if (length == 2) {
                cp = ((lead & 0x1F) << 6) | (b[i + 1] & 0x3F);
            } else if (length == 3) {
                cp = ((lead & 0x0F) << 12) | ((b[i + 1] & 0x3F) << 6) | (b[i + 2] & 0x3F);
            } else {
                if (o + 2 > room) break;
                cp = ((lead & 0x07) << 18) | ((b[i + 1] & 0x3F) << 12) | ((b[i + 2] & 0x3F) << 6) | (b[i + 3] & 0x3F);
                c[o++] = Character.highSurrogate(cp);
                cp = Character.lowSurrogate(cp);
            }
            c[o++] = (char) cp;
            i += length;
        }
        int added = o - limit;
        bytePos = i;
        limit = o;
        return added;
    }

    // ---------------------------------------------------------------------------------------
    // jackson's side

    /** The chars from {@link #pos} on, as jackson's tokenizer reads them (see the class comment). One reader, reused. */
    Reader reader() {
        return reader;
    }

    private static boolean skippedAtLineStart(char x) {
        return x == ' ' || x == '\r' || x == '\n';
    }

    /**
     * Takes back the {@code n} chars jackson holds unread after a record, which end the last handout,
     * so that the fast path reads them next: true if that is possible, which it is when jackson holds
     * nothing, or the one char that ended a prefix handout (a record's first).
     */
    boolean takeBack(int n) {
        if (n == 0) {
            handoutStart = -1;
            return true;
        }
        if (n != 1 || !lastHandoutEndedPrefix) return false;
        pos--;
        handoutStart = -1;
        atLineStart = true; // only spaces came before that char on its line
        return true;
    }

    /** Before a new jackson parser's first read: it starts at {@link #pos}, the first char of a record or the input. */
    void startHandouts() {
        handoutStart = -1;
        atLineStart = true;
    }

    /** Hands the char taken back by {@link #takeBack} to jackson again (it still holds it). */
    void giveBack(int n) {
        pos += n;
        handoutStart = pos - n;
        atLineStart = false;
    }

    private final class HandoutReader extends Reader {
        @Override
        public int read(char[] into, int offset, int length) throws IOException {
            if (length == 0) return 0;
            if (pos == limit) {
                int r = fill();
                if (r < 0) return -1;
                if (r == 0) throw new IllegalStateException("the CSV window is full of chars jackson was handed");
            }
            final char[] c = chars;
            final int start = pos, end = limit;
            int i = start, stop;
            boolean prefix = atLineStart;
            if (prefix) {
                while (i < end && skippedAtLineStart(c[i])) i++;
                stop = i < end ? i + 1 : end;
            } else {
                while (i < end && c[i] != '\n' && c[i] != '\r') i++;
                stop = i < end ? i + 1 : end;
                if (i + 1 < end && c[i] == '\r' && c[i + 1] == '\n') stop++;
            }
            int n = Math.min(length, stop - start);
            System.arraycopy(c, start, into, offset, n);
            pos = start + n;
            handoutStart = start;
            char last = c[start + n - 1];
            if (prefix) {
                lastHandoutEndedPrefix = !skippedAtLineStart(last);
                atLineStart = !lastHandoutEndedPrefix;
            } else {
                lastHandoutEndedPrefix = false;
                atLineStart = last == '\n' || last == '\r';
            }
            return n;
        }

        @Override
        public void close() {
            // jackson closes its source at the end of the input; the CsvReader closes the input itself
        }
    }
}

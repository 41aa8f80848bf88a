package dev.flushline.ops;

import java.io.IOException;
import java.io.InputStream;

/**
 * The bytes of an input passed through unchanged once they are known to be strict UTF-8 (RFC
 * 3629: shortest forms only, no surrogates, nothing past U+10FFFF), for a decoder that would
 * otherwise take some invalid forms (jackson's takes encoded surrogates, which would then be
 * written as '?'). It counts the bytes taken and the lines passed (LF, CR or CRLF end a line), so
 * that the first invalid byte is named by its line and its byte in that line, whatever the reader
 * above had buffered.
 *
 * <p>The valid bytes before an invalid sequence are delivered first; the read that would deliver
 * the sequence throws {@link MalformedUtf8Exception}, and so does every read after it. A read
 * after {@link #abandon} throws an IOException.
 *
 * <p>Thread safety: one reading thread; {@link #abandon} from any thread.
 */
final class CheckedUtf8Input extends InputStream {
    /** The first byte of the input that is not strict UTF-8, with where it stands. */
    static final class MalformedUtf8Exception extends IOException {
        final long line;
        final long byteInLine;

        MalformedUtf8Exception(long line, long byteInLine, String what) {
            super("not valid UTF-8 at line " + line + ", byte " + byteInLine + " of the line (" + what + ")");
            this.line = line;
            this.byteInLine = byteInLine;
        }
    }

    private final InputStream in;
    private final String source;
    private volatile boolean abandoned;
    private long bytesRead;

    /** Continuation bytes still expected by the current sequence; 0 between characters. */
    private int pending;
    /** The allowed range of the next byte when it is the second of a sequence (overlong, surrogate and range rules). */
    private int secondMin = 0x80, secondMax = 0xBF;
    private boolean atSecond;
    /** Where the current sequence started, for the message. */
    private long leadLine, leadByteInLine;

    /** 1-based line of the next byte, and its 1-based byte within the line. */
    private long line = 1, byteInLine = 1;
    private boolean afterCr;

    private MalformedUtf8Exception failure;
    private final byte[] one = new byte[1];

    CheckedUtf8Input(InputStream in, String source) {
        this.in = in;
        this.source = source;
    }

    long bytesRead() { return bytesRead; }

    void abandon() { abandoned = true; }

    @Override
    public int read() throws IOException {
        int n;
        do {
            n = read(one, 0, 1);
        } while (n == 0);
        return n < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (failure != null) throw failure;
        if (abandoned) throw new IOException("reading " + source + " was abandoned");
        if (len == 0) return 0;
        int n = in.read(b, off, len);
        if (n < 0) {
            if (pending > 0) {
                failure = new MalformedUtf8Exception(leadLine, leadByteInLine, "the input ends inside a character");
                throw failure;
            }
            return -1;
        }
        bytesRead += n;
        int bad = check(b, off, off + n);
        if (bad < 0) return n;
        // Deliver what comes before the invalid sequence; the next read throws.
        if (bad > off) return bad - off;
        throw failure;
    }

    /**
     * Checks b[from, to) on from the state the last chunk left; returns -1 if it is all valid, else
     * the index up to which bytes may be delivered (the lead of the invalid sequence if it is in
     * this chunk, else the offending byte), with {@link #failure} set.
     */
    private int check(byte[] b, int from, int to) {
        int leadIndex = -1;
        for (int i = from; i < to; i++) {
            if (pending == 0 && i + Long.BYTES <= to) {
                // Eight ASCII bytes that end no line, at once: each only moves the position along the line.
                final long w = ByteWords.word(b, i);
                if ((w & ByteWords.HIGH_BITS) == 0
                        && (ByteWords.bytesEqualTo(w, ByteWords.NEWLINES) | ByteWords.bytesEqualTo(w, ByteWords.CARRIAGE_RETURNS)) == 0) {
                    byteInLine += Long.BYTES;
                    afterCr = false;
                    i += Long.BYTES - 1;
                    continue;
                }
            }
            int x = b[i] & 0xFF;
            if (pending > 0) {
                boolean ok = atSecond ? x >= secondMin && x <= secondMax : (x & 0xC0) == 0x80;
                if (!ok) {
                    failure = new MalformedUtf8Exception(leadLine, leadByteInLine, "a character's bytes end too early");
                    return leadIndex >= 0 ? leadIndex : i;
                }
                atSecond = false;
                pending--;
                byteInLine++;
                continue;
            }
            if (x < 0x80) {
                // ASCII: only line ends move the position differently
                if (x == '\n') {
                    if (!afterCr) line++;
                    byteInLine = 1;
                    afterCr = false;
                } else if (x == '\r') {
                    line++;
                    byteInLine = 1;
                    afterCr = true;
                } else {
                    byteInLine++;
                    afterCr = false;
                }
                continue;
            }
            afterCr = false;
            leadIndex = i;
            leadLine = line;
            leadByteInLine = byteInLine;
            secondMin = 0x80;
            secondMax = 0xBF;
            if (x >= 0xC2 && x <= 0xDF) {
                pending = 1;
            } else if (x >= 0xE0 && x <= 0xEF) {
                pending = 2;
                if (x == 0xE0) secondMin = 0xA0;      // shorter forms are overlong
                else if (x == 0xED) secondMax = 0x9F; // U+D800..U+DFFF are surrogates
            } else if (x >= 0xF0 && x <= 0xF4) {
                pending = 3;
                if (x == 0xF0) secondMin = 0x90;
                else if (x == 0xF4) secondMax = 0x8F; // past U+10FFFF
            } else {
                failure = new MalformedUtf8Exception(line, byteInLine, x >= 0x80 && x <= 0xBF
                        ? "a continuation byte 0x" + Integer.toHexString(x) + " without a lead byte"
                        : "byte 0x" + Integer.toHexString(x) + " never starts a character");
                return i;
            }
            atSecond = true;
            byteInLine++;
        }
        return -1;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}

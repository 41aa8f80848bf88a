package dev.flushline.ops;

import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.io.ContentReference;
import com.fasterxml.jackson.core.io.IOContext;
import com.fasterxml.jackson.core.json.JsonReadContext;
import com.fasterxml.jackson.core.json.UTF8StreamJsonParser;
import com.fasterxml.jackson.core.sym.ByteQuadsCanonicalizer;
import com.fasterxml.jackson.core.util.BufferRecycler;

/**
 * One jackson-core UTF-8 parser that is pointed at line after line ({@link #reset}) instead of
 * being built per line. A parser per line costs its own object, an IOContext, a TextBuffer, a
 * symbol table child and a read context, a few hundred bytes a line; this one costs nothing
 * per line once warm. It serves {@link InsertDecoder}'s fast path only: any line it cannot take
 * whole is handed to the per-line parser of {@link OperationReader}, which words the messages.
 *
 * <p>How the reset works: the parser has no input stream, so at the end of the bytes it is given
 * it sees the end of input; {@link #reset} puts back what the parse of one line changed (the
 * input window, the read context, the current token and whether a string token is still unread,
 * the closed flag that the end of input sets). These are jackson's protected fields, meant for
 * subclasses; {@code LineJsonParserTest} pins the behaviour on jackson-core 2.19.2.
 *
 * <p>Names: the parser's symbol table is one child of the reader's names table, kept for the
 * parser's life, so a schema's names are found without a String per name. New names (bad input,
 * or map keys of lines that leave the fast path) are added to that child; the owner starts a new
 * parser when {@link #nameCount} passes its bound, as the reader does with its shared table.
 *
 * <p>Thread safety: not thread-safe; the reader's thread only.
 */
final class LineJsonParser extends UTF8StreamJsonParser {
    private final JsonReadContext root;

    private LineJsonParser(IOContext context, int features, ByteQuadsCanonicalizer names, byte[] buffer) {
        super(context, features, null, null, names, buffer, 0, 0, 0, false);
        this.root = _parsingContext;
    }

    /** A parser with {@code names} (a child of the reader's table) and jackson's buffers from {@code recycler}. */
    static LineJsonParser create(StreamReadConstraints constraints, BufferRecycler recycler, int features,
                                 ByteQuadsCanonicalizer names) {
        IOContext context = new IOContext(constraints, recycler, ContentReference.unknown(), false);
        return new LineJsonParser(context, features, names, new byte[0]);
    }

    /** Points the parser at {@code buffer[start, end)}, one JSON value to parse from its first token. */
    void reset(byte[] buffer, int start, int end) {
        _inputBuffer = buffer;
        _inputPtr = start;
        _inputEnd = end;
        _currInputProcessed = 0;
        _currInputRow = 0;
        _currInputRowStart = start;
        root.reset(JsonStreamContext.TYPE_ROOT, 1, 0);
        _parsingContext = root;
        _currToken = null;
        _nextToken = null;
        _tokenIncomplete = false; // else the next token would first skip the rest of a string that is not there
        _numTypesValid = NR_UNKNOWN;
        _binaryValue = null;
        _closed = false;
    }

    /**
     * Whether nothing but blanks (space, tab, CR) follows the value just parsed. Checked on the bytes,
     * not by asking for a next token: at the end of the input jackson closes the parser and hands
     * its buffers back, which a parser that is reused must not do on every line.
     */
    boolean onlyBlanksAfterValue() {
        final byte[] b = _inputBuffer;
        for (int i = _inputPtr, end = _inputEnd; i < end; i++) {
            byte c = b[i];
            if (c != ' ' && c != '\t' && c != '\r') return false;
        }
        return true;
    }

    /** Names in this parser's symbol table. */
    int nameCount() {
        return _symbols.size();
    }

    private int rawStart;

    /**
     * Takes the current string token as the bytes it is in the line, when they are its value as they
     * are: no escape and no control character before the closing quote, and only ASCII when
     * {@code asciiOnly}. Returns the value's length, at {@link #rawStart()} in {@link #input()}, and the
     * token is consumed (the next {@link #nextToken} starts after its quote, as after jackson's own
     * skip of an unread string). The owner checks every line as strict UTF-8 before it parses it, so
     * these bytes are the UTF-8 of what jackson would decode: taking them saves decoding the value
     * to chars and encoding it back. Returns -1, leaving the token unread for jackson, otherwise.
     * REQUIRES: the current token is VALUE_STRING and its text has not been asked for.
     */
    int rawString(boolean asciiOnly) {
        if (!_tokenIncomplete) return -1;
        final byte[] b = _inputBuffer;
        final int start = _inputPtr, end = _inputEnd;
        int any = 0; // a byte past 0x7F makes it negative
        for (int i = start; i < end; i++) {
            final int c = b[i];
            if (c == '"') {
                if (asciiOnly && any < 0) return -1;
                rawStart = start;
                _inputPtr = i + 1;
                _tokenIncomplete = false;
                return i - start;
            }
            if (c == '\\' || (c >= 0 && c < 0x20)) return -1;
            any |= c;
        }
        return -1; // no closing quote on the line: jackson says what is wrong
    }

    /** Where the value {@link #rawString} took starts in {@link #input()}. */
    int rawStart() {
        return rawStart;
    }

    /** The bytes the parser is reading: the line it was {@link #reset} to. */
    byte[] input() {
        return _inputBuffer;
    }
}

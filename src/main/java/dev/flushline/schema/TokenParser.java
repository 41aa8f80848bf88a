package dev.flushline.schema;

import java.util.List;
import java.util.Locale;

/**
 * A position in a list of {@link CqlParser.Token}s ending in EOF, with the reads every CQL parser of
 * this package makes: look ahead, take the next token, and expect a keyword or symbol (a
 * {@link SchemaException} with the token's line and column otherwise). Parsers extend it.
 *
 * <p>Thread safety: none; one parse per instance.
 */
abstract class TokenParser {
    final List<CqlParser.Token> tokens;
    /** Index of the next token; never moves past EOF. */
    int i;

    TokenParser(List<CqlParser.Token> tokens) {
        this.tokens = tokens;
    }

    final CqlParser.Token peek() {
        return tokens.get(i);
    }

    final CqlParser.Token peek(int ahead) {
        return tokens.get(Math.min(i + ahead, tokens.size() - 1));
    }

    final CqlParser.Token next() {
        CqlParser.Token t = tokens.get(i);
        if (t.type != CqlParser.T.EOF) i++;
        return t;
    }

    final CqlParser.Token expectKeyword(String kw) {
        CqlParser.Token t = next();
        if (!t.isKeyword(kw)) throw CqlParser.error(t, "expected " + kw.toUpperCase(Locale.ROOT) + " but found " + t.describe());
        return t;
    }

    final CqlParser.Token expectSymbol(String sym) {
        CqlParser.Token t = next();
        if (!t.isSymbol(sym)) throw CqlParser.error(t, "expected '" + sym + "' but found " + t.describe());
        return t;
    }
}

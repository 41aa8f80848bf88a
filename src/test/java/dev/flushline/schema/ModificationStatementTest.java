package dev.flushline.schema;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

class ModificationStatementTest {
    static final TableSchema T = CqlParser.parse(
            "CREATE TABLE ks.t (pk int, pk2 text, ck timestamp, ck2 int, s text static, v bigint, l list<int>, m map<text, int>,"
                    + " PRIMARY KEY ((pk, pk2), ck, ck2))");

    static List<String> markers(ModificationStatement st) {
        List<String> out = new ArrayList<>();
        for (ModificationStatement.Marker m : st.markers()) out.add(m.toString());
        return out;
    }

    @Test
    void markersAreNumberedInTextOrderAndNamedAsCassandraNamesThem() {
        ModificationStatement i = ModificationStatement.parse(
                "insert into ks.t (pk, pk2, ck, ck2, v) values (?, :p2, ?, 5, ?) using ttl ? and timestamp ?;", T);
        assertEquals(ModificationStatement.Kind.INSERT, i.kind());
        assertEquals(List.of("pk (int)", "p2 (text)", "ck (timestamp)", "v (bigint)", "[ttl] (int)", "[timestamp] (bigint)"), markers(i));
        assertFalse(i.values().get(3).isMarker());
        assertEquals(new java.math.BigDecimal("5"), i.values().get(3).literal);

        ModificationStatement u = ModificationStatement.parse(
                "UPDATE t USING TIMESTAMP 9 SET v = ?, l = l + ?, m += :more WHERE pk = ? AND pk2 = 'x' AND ck = ? AND ck2 = ?", T);
        assertEquals(List.of("v (bigint)", "l (list<int>)", "more (map<text, int>)", "pk (int)", "ck (timestamp)", "ck2 (int)"), markers(u));
        assertFalse(u.assignments().get(0).append);
        assertTrue(u.assignments().get(1).append);
        assertTrue(u.assignments().get(2).append);

        ModificationStatement d = ModificationStatement.parse(
                "DELETE FROM ks.t USING TIMESTAMP ? WHERE pk = ? AND pk2 = ? AND ck = ? AND ck2 > ? AND ck2 <= ?", T);
        assertEquals(List.of("[timestamp] (bigint)", "pk (int)", "pk2 (text)", "ck (timestamp)", "ck2 (int)", "ck2 (int)"), markers(d));
        assertEquals(0, d.columns().size());
        assertEquals(ModificationStatement.Operator.GT, d.where().get(3).operator);
        assertEquals(ModificationStatement.Operator.LE, d.where().get(4).operator);
    }

    @Test
    void refusalsNameLineAndColumn() {
        String[][] cases = {
                {"DELETE FROM ks.t WHERE pk = ? AND pk2 = ? AND ck2 = ?", "clustering column 'ck2' is restricted but 'ck' before it"},
                {"UPDATE ks.t SET pk = ? WHERE pk = ? AND pk2 = ?", "line 1, column 17: primary key column 'pk' cannot be SET"},
                {"UPDATE ks.t SET l = ? + l WHERE pk = ? AND pk2 = ?", "prepending to a list"},
                {"UPDATE ks.t SET l = l - ? WHERE pk = ? AND pk2 = ?", "removing from a collection"},
                {"UPDATE ks.t SET m[?] = ? WHERE pk = ? AND pk2 = ?", "setting a collection element"},
                {"DELETE m[?] FROM ks.t WHERE pk = ? AND pk2 = ?", "deleting a collection element"},
                {"INSERT INTO ks.t (pk, pk2, l) VALUES (?, ?, [1, 2])", "collection and tuple literals are not supported"},
                {"INSERT INTO ks.t (pk, pk2) VALUES (?)", "2 columns named but 1 values given"},
                {"INSERT INTO ks.t (pk, pk2, s) VALUES (?, ?)", "3 columns named but 2 values given"},
                {"INSERT INTO ks.t (pk2, v) VALUES (?, ?)", "partition key column 'pk' (int) is missing from the INSERT"},
                {"INSERT INTO ks.t JSON ?", "expected '(' but found 'json'"},
                {"DELETE FROM ks.t WHERE pk = ? AND pk2 = ? AND ck = ? AND ck = ?", "column 'ck' is restricted twice"},
                {"INSERT INTO ks.t (pk, pk2, v) VALUES (?, ?, ?)", "clustering column 'ck' (timestamp) is missing from the INSERT"},
                {"INSERT INTO ks.t (pk, pk2, ck, s) VALUES (?, ?, ?, ?)", "clustering column 'ck2' (int) is missing from the INSERT"},
                {"UPDATE ks.t SET v = ? WHERE pk = ? AND pk2 = ? AND ck = ?", "clustering column 'ck2' (int) is missing from WHERE"},
                {"UPDATE ks.t SET s = ? WHERE pk = ? AND pk2 = ? AND ck = ?", "static columns only takes the partition key"},
                {"DELETE v FROM ks.t WHERE pk = ? AND pk2 = ? AND ck = ? AND ck2 > ?", "needs '=' on clustering column 'ck2'"},
                {"DELETE v FROM ks.t WHERE pk = ? AND pk2 = ?", "clustering column 'ck' (timestamp) is missing from WHERE"},
                {"INSERT INTO ks.t (pk, pk2, s) VALUES (?, ?, ?) extra", "line 1, column 48: unexpected 'extra' after the statement"},
        };
        for (String[] c : cases) {
            try {
                ModificationStatement.parse(c[0], T);
                fail("accepted: " + c[0]);
            } catch (SchemaException e) {
                assertTrue(e.getMessage().startsWith("line ") && e.getMessage().contains(c[1]), c[0] + " -> " + e.getMessage());
            }
        }
    }

    /** Random edits of valid statements parse or are refused with line and column, never anything else. */
    @Test
    void damagedStatementsParseOrNameLineAndColumn() {
        String[] valid = {
                "INSERT INTO ks.t (pk, pk2, ck, ck2, v, l) VALUES (?, ?, ?, ?, ?, ?) USING TIMESTAMP ? AND TTL 5",
                "UPDATE ks.t USING TTL ? SET v = ?, l = l + ?, m += ? WHERE pk = ? AND pk2 = ? AND ck = ? AND ck2 = ?",
                "DELETE v, l FROM ks.t USING TIMESTAMP ? WHERE pk = ? AND pk2 = ? AND ck = ? AND ck2 = ?",
                "DELETE FROM ks.t USING TIMESTAMP ? WHERE pk = ? AND pk2 = ? AND ck = ? AND ck2 >= ? AND ck2 < ?",
        };
        String alphabet = "?:=+-<>(),.;' \"\n0123456789abcdefxyzSETWHEREANDIN[]{}";
        long seed = 20261201;
        Random r = new Random(seed);
        int parsed = 0, refused = 0;
        for (int n = 0; n < 20_000; n++) {
            StringBuilder sb = new StringBuilder(valid[r.nextInt(valid.length)]);
            for (int e = 1 + r.nextInt(3); e > 0; e--) {
                int at = r.nextInt(sb.length() + 1);
                switch (r.nextInt(3)) {
                    case 0: if (at < sb.length()) sb.deleteCharAt(at); break;
                    case 1: sb.insert(at, alphabet.charAt(r.nextInt(alphabet.length()))); break;
                    default: if (at < sb.length()) sb.setCharAt(at, alphabet.charAt(r.nextInt(alphabet.length())));
                }
            }
            try {
                ModificationStatement.parse(sb.toString(), T);
                parsed++;
            } catch (SchemaException e) {
                assertTrue(e.getMessage().matches("(?s)line \\d+, column \\d+: .+"), "seed " + seed + " case " + n + ": " + sb + " -> " + e.getMessage());
                refused++;
            } catch (RuntimeException e) {
                throw new AssertionError("seed " + seed + " case " + n + ": " + sb + " threw " + e, e);
            }
        }
        assertTrue(parsed > 100 && refused > 100, parsed + " parsed, " + refused + " refused");
    }
}

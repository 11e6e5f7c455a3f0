package dev.arbiter.json;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class JsonWriterTest {
    private static String string(String s) {
        return JsonWriter.compact().value(s).toString();
    }

    @Test
    void quotesBackslashesAndControlCharactersAreEscaped() {
        assertEquals("\"a\\\"b\\\\c\"", string("a\"b\\c"));
        assertEquals("\"\\n\\r\\t\\u0001\\u001b[31m\"", string("\n\r\t\u0001\u001b[31m"));
    }

    @Test
    void slashesAndNonAsciiTextAreWrittenAsTheyAre() {
        assertEquals("\"team-a/train-0 é 😀\"", string("team-a/train-0 é 😀"));
    }

    @Test
    void nullStringsAndNumbersAreNull() {
        String json = JsonWriter.compact().startObject().field("s", (String) null).field("n", (Long) null)
                .field("m", 3L).field("b", true).endObject().toString();
        assertEquals("{\"s\":null,\"n\":null,\"m\":3,\"b\":true}", json);
    }

    @Test
    void decimalsHaveTheirPlacesAndNumbersTheirForm() {
        String json = JsonWriter.compact().startArray().decimal(2, 1).decimal(0.12345, 3).number("1.50").endArray()
                .toString();
        assertEquals("[2.0,0.123,1.50]", json);
    }

    @Test
    void nextLineBreaksAfterTheCommaAndEndsTheText() {
        JsonWriter w = JsonWriter.compact().startObject().name("pods").startArray();
        for (String pod : new String[] {"a/p-0", "a/p-1"}) w.nextLine(2).startObject().field("pod", pod).endObject();
        String json = w.endArray().nextLine(1).field("stable", true).endObject().nextLine(0).toString();
        assertEquals("{\"pods\":[\n  {\"pod\":\"a/p-0\"},\n  {\"pod\":\"a/p-1\"}],\n \"stable\":true}\n", json);
    }

    @Test
    void anEmptyArrayCanCloseOnItsOwnLine() {
        assertEquals("[\n]", JsonWriter.compact().startArray().nextLine(0).endArray().toString());
    }

    @Test
    void spacedPutsASpaceAfterCommasAndColonsButNotBeforeALineBreak() {
        JsonWriter w = JsonWriter.spaced().startObject().field("a", 1).name("b").startArray().value(2).value(3).endArray();
        String json = w.nextLine(1).field("c", "d").endObject().toString();
        assertEquals("{\"a\": 1, \"b\": [2, 3],\n \"c\": \"d\"}", json);
    }
}

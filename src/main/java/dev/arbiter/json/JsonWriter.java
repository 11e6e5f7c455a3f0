package dev.arbiter.json;

import java.io.StringWriter;
import java.util.Locale;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.PrettyPrinter;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.json.JsonWriteFeature;

/**
 * The one JSON writer: every JSON text Arbiter writes itself (the simulation report, {@code explain} and {@code diff}
 * output, the timeline report's data, the benchmarks' results and the live binder's Binding bodies) is written
 * through it, on Jackson's streaming generator (the Jackson 3 that fabric8 brings). Jackson checks the structure and
 * escapes strings: {@code "}, {@code \} and control characters (<code>&#92;n</code>, <code>&#92;t</code>, others as
 * <code>&#92;u001b</code>, hex in lower case); {@code /} and non-ASCII text are written as they are.
 *
 * <p>It writes no whitespace of its own except what its layout and {@link #nextLine} ask for, so a report keeps one
 * entry per line where a reader wants it:
 * <pre>{@code
 * JsonWriter w = JsonWriter.compact().startObject().name("pods").startArray();
 * for (PodOutcome p : pods) w.nextLine(2).startObject().field("pod", p.pod()).field("node", p.node()).endObject();
 * String text = w.endArray().endObject().nextLine(0).toString();
 * }</pre>
 * gives <code>{"pods":[</code>, then <code>  {"pod":"a/p-0","node":"node-1"},</code> and
 * <code>  {"pod":"a/p-1","node":null}]}</code> on lines of their own, and a final line break. A writer is used once,
 * by one thread.
 */
public final class JsonWriter {
    private static final JsonFactory JSON = JsonFactory.builder()
            .disable(JsonWriteFeature.ESCAPE_FORWARD_SLASHES)
            .disable(JsonWriteFeature.WRITE_HEX_UPPER_CASE)
            .build();

    private final StringWriter text = new StringWriter();
    private final Layout layout;
    private final JsonGenerator json;

    private JsonWriter(String entrySeparator, String nameSeparator) {
        layout = new Layout(entrySeparator, nameSeparator);
        json = JSON.createGenerator(new ObjectWriteContext.Base() {
            @Override
            public PrettyPrinter getPrettyPrinter() {
                return layout;
            }

            @Override
            public boolean hasPrettyPrinter() {
                return true;
            }
        }, text);
    }

    /** No spaces: {@code {"a":1,"b":[2,3]}}. */
    public static JsonWriter compact() {
        return new JsonWriter(",", ":");
    }

    /** A space after each comma and colon: {@code {"a": 1, "b": [2, 3]}}. */
    public static JsonWriter spaced() {
        return new JsonWriter(", ", ": ");
    }

    public JsonWriter startObject() {
        json.writeStartObject();
        return this;
    }

    public JsonWriter endObject() {
        json.writeEndObject();
        return this;
    }

    public JsonWriter startArray() {
        json.writeStartArray();
        return this;
    }

    public JsonWriter endArray() {
        json.writeEndArray();
        return this;
    }

    /** The name of the next member of the object being written. */
    public JsonWriter name(String name) {
        json.writeName(name);
        return this;
    }

    /** A string, or {@code null}. */
    public JsonWriter value(String s) {
        if (s == null) json.writeNull();
        else json.writeString(s);
        return this;
    }

    public JsonWriter value(long n) {
        json.writeNumber(n);
        return this;
    }

    /** A whole number, or {@code null}. */
    public JsonWriter value(Long n) {
        return n == null ? nullValue() : value(n.longValue());
    }

    public JsonWriter value(boolean b) {
        json.writeBoolean(b);
        return this;
    }

    /**
     * {@code d} with exactly {@code places} decimals, e.g. {@code decimal(2.0, 1)} writes {@code 2.0}. (NaN and the
     * infinities are not JSON numbers; callers write null for them.)
     */
    public JsonWriter decimal(double d, int places) {
        return number(String.format(Locale.ROOT, "%." + places + "f", d));
    }

    /** A number already written as JSON, e.g. {@code "0.25"}; the caller answers for its form. */
    public JsonWriter number(String literal) {
        json.writeNumber(literal);
        return this;
    }

    public JsonWriter nullValue() {
        json.writeNull();
        return this;
    }

    public JsonWriter field(String name, String value) {
        return name(name).value(value);
    }

    public JsonWriter field(String name, long value) {
        return name(name).value(value);
    }

    /** A whole number, or {@code null}. */
    public JsonWriter field(String name, Long value) {
        return name(name).value(value);
    }

    public JsonWriter field(String name, boolean value) {
        return name(name).value(value);
    }

    /**
     * Starts the next member, element or closing bracket on a new line, indented by {@code indent} spaces; the comma
     * that separates it from the one before stays at the end of the line before. After the last closing bracket it
     * ends the text with a line break.
     */
    public JsonWriter nextLine(int indent) {
        layout.lineBreak = "\n" + " ".repeat(indent);
        return this;
    }

    /** The JSON text; this ends the writing (Jackson's buffers go back to its pool). */
    @Override
    public String toString() {
        if (!json.isClosed()) {
            layout.breakLine(json);
            json.close();
        }
        return text.toString();
    }

    /**
     * Jackson's hooks between tokens: the separators of {@link #compact()} or {@link #spaced()}, and the line break
     * {@link #nextLine} asked for, written before the next token (after its comma).
     */
    private static final class Layout implements PrettyPrinter {
        private final String entrySeparator;
        private final String nameSeparator;
        private String lineBreak;

        Layout(String entrySeparator, String nameSeparator) {
            this.entrySeparator = entrySeparator;
            this.nameSeparator = nameSeparator;
        }

        void breakLine(JsonGenerator g) {
            if (lineBreak == null) return;
            g.writeRaw(lineBreak);
            lineBreak = null;
        }

        /** The comma between two entries; before a line break without the space of {@link #spaced()}. */
        private void separate(JsonGenerator g) {
            g.writeRaw(lineBreak == null ? entrySeparator : ",");
            breakLine(g);
        }

        @Override
        public void writeRootValueSeparator(JsonGenerator g) {
            g.writeRaw(' ');
        }

        @Override
        public void writeStartObject(JsonGenerator g) {
            g.writeRaw('{');
        }

        @Override
        public void beforeObjectEntries(JsonGenerator g) {
            breakLine(g);
        }

        @Override
        public void writeObjectNameValueSeparator(JsonGenerator g) {
            g.writeRaw(nameSeparator);
        }

        @Override
        public void writeObjectEntrySeparator(JsonGenerator g) {
            separate(g);
        }

        @Override
        public void writeEndObject(JsonGenerator g, int entries) {
            breakLine(g);
            g.writeRaw('}');
        }

        @Override
        public void writeStartArray(JsonGenerator g) {
            g.writeRaw('[');
        }

        @Override
        public void beforeArrayValues(JsonGenerator g) {
            breakLine(g);
        }

        @Override
        public void writeArrayValueSeparator(JsonGenerator g) {
            separate(g);
        }

        @Override
        public void writeEndArray(JsonGenerator g, int values) {
            breakLine(g);
            g.writeRaw(']');
        }
    }
}

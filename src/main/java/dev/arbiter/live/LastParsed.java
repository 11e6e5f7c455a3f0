package dev.arbiter.live;

import java.util.function.Function;

/**
 * A parser that remembers its last answer: informer events parse the same timestamps again and again (every pod of a
 * burst was created in the same second; each of a pod's events repeats its creation time), and
 * {@code java.time} parsing costs more CPU than the rest of handling the event. Only successful parses are kept; a
 * text that fails throws each time. Thread-safe.
 */
final class LastParsed<T> {
    private record Entry<T>(String text, T value) {}

    private final Function<String, T> parser;
    private volatile Entry<T> last;

    LastParsed(Function<String, T> parser) {
        this.parser = parser;
    }

    /** The parser's answer for {@code text} (not null); what the parser throws when it cannot parse it. */
    T parse(String text) {
        Entry<T> e = last;
        if (e != null && e.text().equals(text)) return e.value();
        T value = parser.apply(text);
        last = new Entry<>(text, value);
        return value;
    }
}

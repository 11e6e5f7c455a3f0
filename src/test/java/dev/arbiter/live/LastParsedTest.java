package dev.arbiter.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LastParsedTest {
    @Test
    void repeatsAreNotParsedAgainAndEachTextGetsItsOwnValue() {
        AtomicInteger calls = new AtomicInteger();
        LastParsed<Instant> p = new LastParsed<>(s -> {
            calls.incrementAndGet();
            return Instant.parse(s);
        });
        assertEquals(Instant.parse("2026-12-01T20:00:00Z"), p.parse("2026-12-01T20:00:00Z"));
        assertEquals(Instant.parse("2026-12-01T20:00:00Z"), p.parse(new String("2026-12-01T20:00:00Z")));
        assertEquals(1, calls.get());
        assertEquals(Instant.parse("2026-12-01T20:00:01Z"), p.parse("2026-12-01T20:00:01Z"));
        assertEquals(Instant.parse("2026-12-01T20:00:00Z"), p.parse("2026-12-01T20:00:00Z"));
        assertEquals(3, calls.get());
    }

    @Test
    void aTextThatDoesNotParseThrowsEveryTime() {
        LastParsed<Instant> p = new LastParsed<>(Instant::parse);
        p.parse("2026-12-01T20:00:00Z");
        assertThrows(DateTimeParseException.class, () -> p.parse("yesterday"));
        assertThrows(DateTimeParseException.class, () -> p.parse("yesterday"));
        assertEquals(Instant.parse("2026-12-01T20:00:00Z"), p.parse("2026-12-01T20:00:00Z"));
    }
}

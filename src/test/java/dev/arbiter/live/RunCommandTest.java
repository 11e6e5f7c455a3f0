package dev.arbiter.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.cli.Main;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code arbiter run}'s flags (the command itself needs a cluster; these are the checks before it connects). */
class RunCommandTest {
    @Test
    void periodsAreMillisecondsSecondsOrMinutes() {
        assertEquals(Duration.ofMillis(500), Durations.parse("500ms"));
        assertEquals(Duration.ofSeconds(1), Durations.parse("1s"));
        assertEquals(Duration.ofMinutes(2), Durations.parse("2m"));
        assertThrows(IllegalArgumentException.class, () -> Durations.parse("soon"));
        assertThrows(IllegalArgumentException.class, () -> Durations.parse("1.5s"));
    }

    @Test
    void aBadPeriodIsInvalidInputNamingTheFlag() {
        StringWriter err = new StringWriter();
        int code = Main.run(new String[] {"run", "--period", "soon"}, new PrintWriter(new StringWriter()), new PrintWriter(err));
        assertEquals(Main.INVALID_INPUT, code);
        assertTrue(err.toString().contains("--period"), err.toString());
    }

    @Test
    void helpListsTheFlags() {
        StringWriter out = new StringWriter();
        assertEquals(0, Main.run(new String[] {"run", "--help"}, new PrintWriter(out), new PrintWriter(new StringWriter())));
        for (String flag : new String[] {"--kubeconfig", "--scheduler-name", "--rules", "--period", "--leader-elect", "--metrics-port", "--fresh-rules-session"}) {
            assertTrue(out.toString().contains(flag), flag);
        }
    }
}

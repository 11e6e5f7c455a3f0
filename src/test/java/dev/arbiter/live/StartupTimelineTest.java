package dev.arbiter.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The start-up timeline: steps in the order they ended, each once, told once. */
class StartupTimelineTest {
    @Test
    void stepsAreMarkedOnceInTheOrderTheyEndedAndTheLineSaysWhenEachEnded() {
        StartupTimeline t = StartupTimeline.sinceNow();
        t.mark("rules compiled");
        t.mark("cluster answered");
        t.mark("rules compiled");

        assertEquals(List.of("rules compiled", "cluster answered"), t.steps());
        assertTrue(t.secondsTo("cluster answered") >= t.secondsTo("rules compiled"));
        assertTrue(Double.isNaN(t.secondsTo("first cycle")));
        String line = t.line();
        assertTrue(line.matches("\\d+\\.\\d\\d s \\(each step's end, in seconds from the JVM's start\\): "
                + "rules compiled \\d+\\.\\d\\d, cluster answered \\d+\\.\\d\\d"), line);
    }

    @Test
    void theTimelineIsToldOnce() {
        StartupTimeline t = StartupTimeline.sinceJvmStart();
        t.mark("jvm");
        assertTrue(t.secondsTo("jvm") > 0, "the JVM started before this test");
        assertTrue(t.tellOnce());
        assertFalse(t.tellOnce());
    }
}

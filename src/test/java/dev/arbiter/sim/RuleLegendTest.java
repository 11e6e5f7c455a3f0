package dev.arbiter.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Short rule ids: the concern before the colon, numbered only when one concern has several rules. */
class RuleLegendTest {
    private static final String GANG = "gang: a job starts only when minMember of its tasks can run together";
    private static final String RECLAIM = "reclaim: a queue below its deserved share takes back from reclaimable queues above theirs";
    private static final String VICTIMS_A = "victims: a pod marked volcano.sh/preemptable false is never evicted";
    private static final String VICTIMS_B = "victims: surplus gang members first, then the closest queue";

    @Test
    void aConcernWithOneRuleIsItsOwnId() {
        RuleLegend l = RuleLegend.of(List.of(GANG, RECLAIM, GANG));
        assertEquals("gang", l.id(GANG));
        assertEquals("reclaim", l.id(RECLAIM));
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("gang", GANG);
        expected.put("reclaim", RECLAIM);
        assertEquals(expected, l.entries(), "each sentence once, in first-seen order");
    }

    @Test
    void severalRulesOfOneConcernAreNumberedInTheOrderTheyAppear() {
        RuleLegend l = RuleLegend.of(List.of(VICTIMS_B, GANG, VICTIMS_A));
        assertEquals("victims-1", l.id(VICTIMS_B));
        assertEquals("victims-2", l.id(VICTIMS_A));
        assertEquals("gang", l.id(GANG));
    }

    @Test
    void oddRuleNamesStillGetAnId() {
        RuleLegend l = RuleLegend.of(Arrays.asList("no colon here", null, "Fair Share: x", "a very long concern that is not an id: y"));
        assertEquals("rule-1", l.id("no colon here"));
        assertEquals("fair-share", l.id("Fair Share: x"));
        assertEquals("rule-2", l.id("a very long concern that is not an id: y"));
        assertEquals("", l.id(null));
        assertEquals("unknown: z", l.id("unknown: z"), "a sentence the legend never saw is shown whole");
    }
}

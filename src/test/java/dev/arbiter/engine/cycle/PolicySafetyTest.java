package dev.arbiter.engine.cycle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.cli.CliRunner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Rules that compile but would wedge or quietly break the scheduler: each fails {@code validate} with one
 * {@code file:line} finding and exit 3, and none can hang {@code simulate} or {@code verify}. The examples are packs
 * over the shipped policy in {@code src/test/resources/policy-safety}. The timeouts only turn a hang into a failure;
 * the checks themselves take seconds.
 */
class PolicySafetyTest {
    private static final Path CASES = Path.of("src/test/resources/policy-safety");
    private static final Path SEED = Path.of("deploy/examples/seed");
    private static final Duration NO_HANG = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}: validate says {1}")
    @CsvSource(delimiter = '|', value = {
            "loop         | loop.drl:6: rule \"loop: a tick is always followed by another\" kept firing",
            "mutual       | mutual.drl:9: rule \"mutual: a pong for every ping\" kept firing",
            "spin         | spin.drl:3: rule \"spin: never returns\" did not return within the deadline of 5000 ms",
            "throws       | throws.drl:3: rule \"throws: divide the gang by zero\" failed in phase policy: ArithmeticException",
            "exit         | exit.drl:3: rule \"exit: leave\" calls java.lang.System.exit: a rule may only read facts and insert policy facts",
            "group        | fair-share.drl:22: rule \"allocate: an open queue is served until it reaches its deserved share, never past its capability\" is in group \"polciy\", which the engine never fires",
            "victim-key   | policy.yaml:3: victims.order[1]: unknown victim order key \"youngest first\"",
            "job-key      | policy.yaml:3: order.jobs[1]: unknown job order key \"age\"",
            "unknown-fact | note.drl:6: rule \"note: remember each queue's guarantee\" inserts Resources, which the engine does not read",
            "conflict     | order.drl:10: DequeuePolicy for batch, default, org and 2 more: rule \"order: a queue dequeues as its spec says"})
    void validateNamesTheFileAndLineAndExits3(String name, String finding) {
        CliRunner r = assertTimeoutPreemptively(NO_HANG, () -> CliRunner.run("validate", "--rules", CASES.resolve(name).toString()));
        assertEquals(3, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains(finding), r.err());
        assertTrue(r.err().lines().allMatch(l -> l.matches("error: \\S+:\\d+: .+")), "one file:line line per finding:\n" + r.err());
        assertTrue(r.out().isEmpty(), r.out());
    }

    @Test
    void withoutPriorityRulesValidateSaysNoRuleDecidesPriorities() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("rules"))) {
            for (Path f : files.toList()) if (!f.getFileName().toString().equals("priority.drl")) Files.copy(f, dir.resolve(f.getFileName()));
        }
        CliRunner r = CliRunner.run("validate", "--rules", dir.toString());
        assertEquals(3, r.exit(), r.out() + r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().contains(dir + ": no rule decides the priority of priority classes \"critical\", \"low\""), r.err());
        assertTrue(r.err().contains("nor of pods and PodGroups without one: every job and pod of them would get priority 0"
                + " (is priority.drl missing?)"), r.err());
    }

    @ParameterizedTest(name = "simulate with the {0} rules stops at the first cycle, naming the rule")
    @CsvSource(delimiter = '|', value = {
            "loop   | rule \"loop: a tick is always followed by another\" kept firing",
            "mutual | rule \"mutual: a pong for every ping\" kept firing",
            "throws | rule \"throws: divide the gang by zero\" failed",
            "exit   | calls java.lang.System.exit"})
    void simulateFailsWithExit3InsteadOfHanging(String name, String message) {
        CliRunner r = assertTimeoutPreemptively(NO_HANG,
                () -> CliRunner.run("simulate", "--rules", CASES.resolve(name).toString(), SEED.toString()));
        assertEquals(3, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains(message), r.err());
        assertEquals(1, r.err().lines().count(), "one line: " + r.err());
    }

    @Test
    void aRuleThatNeverReturnsIsStoppedAtThePolicysDeadline() throws IOException {
        CliRunner r = simulateWithADeadlineOfOneSecond("spin");
        assertEquals(3, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("spin.drl:3: rule \"spin: never returns\" did not return within the deadline of 1000 ms"),
                r.err());
    }

    /**
     * Issue 34, item 11: a 'from' that never returns is stopped at the deadline and said as such. It was reported as a
     * PropertyAccessException, or blamed on the last rule that fired ({@code order.drl:10}), as the time went to
     * matching conditions, not to any rule's consequence.
     */
    @Test
    void aFromThatNeverReturnsIsSaidAsTheDeadlineWhileMatchingNotBlamedOnAnotherRule() throws IOException {
        CliRunner r = simulateWithADeadlineOfOneSecond("spin-from");
        assertEquals(3, r.exit(), r.out() + r.err());
        assertEquals(1, r.err().lines().count(), "one line: " + r.err());
        assertTrue(r.err().contains("did not finish within the deadline of 1000 ms") && r.err().contains("while matching conditions"),
                r.err());
        assertTrue(!r.err().contains("PropertyAccessException") && !r.err().contains("order.drl"), r.err());
    }

    /**
     * Issue 34, item 11: a 'from' of a huge list takes the time in matching, not in any rule: said as such. It was
     * blamed on the last rule to fire, the shipped {@code order.drl:10}.
     */
    @Test
    void aHugeFromListIsSaidAsTheDeadlineWhileMatchingNotBlamedOnAnotherRule() throws IOException {
        CliRunner r = simulateWithADeadlineOfOneSecond("huge-from");
        assertEquals(3, r.exit(), r.out() + r.err());
        assertEquals(1, r.err().lines().count(), "one line: " + r.err());
        assertTrue(r.err().contains("did not finish within the deadline of 1000 ms") && r.err().contains("while matching conditions"),
                r.err());
        assertTrue(!r.err().contains("order.drl"), r.err());
    }

    /** Issue 34, item 11: a consequence that inserts without end is said as the deadline, naming the rule. */
    @Test
    void aConsequenceThatInsertsForeverIsSaidAsTheDeadlineNamingTheRule() throws IOException {
        CliRunner r = simulateWithADeadlineOfOneSecond("insert-loop");
        assertEquals(3, r.exit(), r.out() + r.err());
        assertEquals(1, r.err().lines().count(), "one line: " + r.err());
        assertTrue(r.err().contains("insert-loop.drl:5: rule \"insert-loop: never stops inserting\" did not return within the"
                + " deadline of 1000 ms"), r.err());
    }

    /**
     * Simulates the seed with a pack over the {@code name} case that sets a deadline of 1 s: packs stack, and the
     * deadline is a setting.
     */
    private CliRunner simulateWithADeadlineOfOneSecond(String name) throws IOException {
        Files.writeString(dir.resolve("pack.yaml"), "extends: " + CASES.resolve(name).toAbsolutePath() + "\n");
        Files.writeString(dir.resolve("policy.yaml"), "limits:\n  deadline: 1s\n");
        return assertTimeoutPreemptively(NO_HANG, () -> CliRunner.run("simulate", "--rules", dir.toString(), SEED.toString()));
    }

    @Test
    void verifyReportsTheLoopingRuleOnceAndRunsNoScenario() {
        CliRunner r = assertTimeoutPreemptively(NO_HANG,
                () -> CliRunner.run("verify", "--rules", CASES.resolve("loop").toString(), "features/gang.feature"));
        assertEquals(3, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("loop.drl:6: rule \"loop: a tick is always followed by another\" kept firing"), r.err());
        assertTrue(!r.out().contains("Scenario"), "no scenario ran: " + r.out());
    }

    @Test
    void theFiringLimitIsASetting() throws IOException {
        // The shipped rules fire several times per fact; a limit of one firing per fact stops the first cycle.
        Files.writeString(dir.resolve("pack.yaml"), "extends: " + Path.of("rules").toAbsolutePath() + "\n");
        Files.writeString(dir.resolve("policy.yaml"), "limits:\n  minFirings: 1\n  firingsPerFact: 1\n");
        CliRunner r = CliRunner.run("simulate", "--rules", dir.toString(), SEED.toString());
        assertEquals(3, r.exit(), r.out() + r.err());
        assertTrue(r.err().matches("(?s)error: \\S+\\.drl:\\d+: rule \".+\" kept firing: \\d+ firings in phase .*"), r.err());
    }
}

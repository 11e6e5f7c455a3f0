package dev.arbiter.specs;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.cli.Main;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code arbiter verify}: the specs run from main code against a candidate rules folder; a policy that lost a rule
 * fails exactly the scenarios that need it; broken input and checks that check nothing fail loudly.
 */
class VerifyCommandTest {
    private static final Path FIXTURES = Path.of("src/test/resources/specs");
    /** "  2) A queue below its share takes back what it lent # file:///…/features/reclaim.feature:11" */
    private static final Pattern FAILED = Pattern.compile("(?m)^\\s+\\d+\\) (.+?) # (\\S+):\\d+$");

    @TempDir
    Path tmp;

    private record Run(int exit, String out, String err) {
        /** Failed scenario name → feature file name, from Cucumber's summary. */
        Map<String, String> failures() {
            Map<String, String> failed = new LinkedHashMap<>();
            Matcher m = FAILED.matcher(out);
            while (m.find()) failed.put(m.group(1), Path.of(m.group(2)).getFileName().toString());
            return failed;
        }
    }

    /** {@code arbiter verify --report summary ARGS}. */
    private static Run verify(String... args) {
        return run(Stream.concat(Stream.of("verify", "--report", "summary"), Stream.of(args)));
    }

    /** {@code arbiter verify --report pretty ARGS}: every step. */
    private static Run verifyPretty(String... args) {
        return run(Stream.concat(Stream.of("verify", "--report", "pretty"), Stream.of(args)));
    }

    /** {@code arbiter verify ARGS}, with the default report: the steps of failed scenarios, then the counts. */
    private static Run verifyDefault(String... args) {
        return run(Stream.concat(Stream.of("verify"), Stream.of(args)));
    }

    private static Run run(Stream<String> argv) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Main.run(argv.toArray(String[]::new), new PrintWriter(out, true), new PrintWriter(err, true));
        return new Run(exit, out.toString(), err.toString());
    }

    private Path rulesWithout(String file) throws IOException {
        Path copy = Files.createDirectories(tmp.resolve("rules-without-" + file));
        try (Stream<Path> files = Files.list(Path.of("rules"))) {
            for (Path p : files.filter(p -> !p.getFileName().toString().equals(file)).toList()) {
                Files.copy(p, copy.resolve(p.getFileName()));
            }
        }
        return copy;
    }

    @Test
    void theShippedRulesPassTheSpecs() {
        Run r = verify("--rules", "rules", "features/admission.feature", "features/seed-story.feature");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("10 scenarios (10 passed)"), r.out());
    }

    @Test
    void rulesWithReclaimDisabledFailExactlyTheScenariosThatNeedReclaim() throws IOException {
        Path broken = rulesWithout("reclaim.drl");
        String rulesBefore = System.getProperty(SpecRules.PROPERTY);
        Run r = verify("--rules", broken.toString(), "features/reclaim.feature", "features/seed-story.feature");
        Map<String, String> failed = r.failures();
        assertAll(r.out(),
                () -> assertEquals(1, r.exit()),
                () -> assertEquals(rulesBefore, System.getProperty(SpecRules.PROPERTY), "the next run uses its own rules"),
                () -> assertTrue(failed.containsKey("Tenant A's critical inference reclaims its half from tenant B's elastic training")),
                () -> assertTrue(failed.containsKey("A queue below its share takes back what it lent")),
                () -> assertTrue(failed.containsKey("Only queues above their share give back")),
                () -> assertTrue(failed.values().stream().allMatch(f -> f.equals("reclaim.feature") || f.equals("seed-story.feature")),
                        "only reclaim stories fail: " + failed),
                () -> assertFalse(failed.containsKey("A queue that is not reclaimable keeps what it borrowed"),
                        "a story in which nothing is reclaimed still holds"),
                () -> assertFalse(failed.containsKey("Tenant B borrows the whole cluster while tenant A is idle")));
    }

    @Test
    void rulesThatDoNotCompileExitWith3AndNameFileAndLine() throws IOException {
        Path broken = rulesWithout("none");
        Files.writeString(broken.resolve("zz-broken.drl"), """
                package arbiter.policy;
                rule "broken"
                when
                    Foo( cpu > )
                then
                end
                """);
        Run r = verify("--rules", broken.toString(), "features/gang.feature");
        assertEquals(3, r.exit(), r.err());
        assertTrue(r.err().contains("zz-broken.drl:4: "), r.err());
    }

    @Test
    void aWrongOutcomeFailsWithWhatHappenedInstead() {
        Run r = verify("--rules", "rules", FIXTURES.resolve("wrong-outcome.feature").toString());
        assertEquals(1, r.exit(), r.out());
        assertTrue(r.out().contains("\"train\" should be running"), r.out());
        assertTrue(r.out().contains("gang of 2 needs 2 tasks, 1 placeable"), r.out());
    }

    @Test
    void anUndefinedStepFails() {
        Run r = verify("--rules", "rules", FIXTURES.resolve("undefined-step.feature").toString());
        assertEquals(1, r.exit(), r.out());
        assertTrue(r.out().contains("undefined"), r.out());
    }

    @Test
    void aMistypedClauseFailsAndNamesTheKnownOnes() {
        Run r = verify("--rules", "rules", FIXTURES.resolve("mistyped-clause.feature").toString());
        assertEquals(1, r.exit(), r.out());
        assertTrue(r.out().contains("cannot read \", very urgent\""), r.out());
    }

    @Test
    void anUnknownTableColumnFails() {
        Run r = verify("--rules", "rules", FIXTURES.resolve("unknown-column.feature").toString());
        assertEquals(1, r.exit(), r.out());
        assertTrue(r.out().contains("unknown column \"wieght\""), r.out());
    }

    @Test
    void aScenarioWithoutAnOutcomeFails() {
        Run r = verify("--rules", "rules", FIXTURES.resolve("no-outcome.feature").toString());
        assertEquals(1, r.exit(), r.out());
        assertTrue(r.out().contains("has no Then step"), r.out());
    }

    @Test
    void aRunInWhichNoScenarioRanFails() {
        Run r = verify("--rules", "rules", "--tags", "@no-scenario-has-this-tag", "features/gang.feature");
        assertEquals(1, r.exit());
        assertTrue(r.err().contains("no scenario ran"), r.err());
    }

    @Test
    void aMissingFeaturePathIsInvalidInput() {
        Run r = verify("--rules", "rules", "features/no-such.feature");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("features/no-such.feature: no such file or directory"), r.err());
    }

    @Test
    void thePrettyReportShowsStepsWithTheirFileAndLineAndNoJava() {
        Run r = verifyPretty("--rules", "rules", "features/seed-story.feature");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().matches("(?s).*\\n  \u2714 Given GPUs are \"mars-tech.com/gpu\" +# features/seed-story\\.feature:\\d+\\n.*"), r.out());
        assertTrue(r.out().matches("(?s).*\\nScenario: .+ # features/seed-story\\.feature:\\d+\\n.*"), r.out());
        for (String java : new String[] {"dev.arbiter.specs.", "java.lang.String", "(int,int)", "file:///"}) {
            assertFalse(r.out().contains(java), "mentions " + java + ": " + r.out());
        }
    }

    @Test
    void anUndefinedStepNamesTheClosestDocumentedStepsNotJavaSnippets() {
        Run r = verifyDefault("--rules", "rules", FIXTURES.resolve("undefined-step.feature").toString());
        assertEquals(1, r.exit(), r.out());
        assertTrue(r.out().contains("  ? And a clsuter of 2 nodes"), r.out());
        assertTrue(r.out().contains("# src/test/resources/specs/undefined-step.feature:4\n"), r.out());
        assertTrue(r.out().contains("no step reads \"a clsuter of 2 nodes\". The closest steps in docs/writing-specs.md:\n"
                + "        Given a cluster of <n> node[s] with <g> GPU[s] each\n"), r.out());
        for (String java : new String[] {"@Given(", "public void", "PendingException", "snippets", "dev.arbiter.specs."}) {
            assertFalse(r.out().contains(java), "mentions " + java + ": " + r.out());
        }
        assertTrue(r.out().contains("1 scenarios (1 undefined)"), r.out());
    }

    @Test
    void aFailureShowsTheMessageWithoutAStackTrace() {
        Run r = verifyDefault("--rules", "rules", FIXTURES.resolve("wrong-outcome.feature").toString(),
                FIXTURES.resolve("mistyped-clause.feature").toString());
        assertEquals(1, r.exit(), r.out());
        assertTrue(r.out().contains("\n      \"train\" should be running\n"), r.out());
        assertTrue(r.out().contains("What the scheduler did:"), "the failed scenario's log is shown: " + r.out());
        assertTrue(r.out().contains("cannot read \", very urgent\""), r.out());
        assertFalse(r.out().contains("\tat ") || r.out().contains("Exception:") || r.out().contains("AssertionError"), r.out());
    }

    @Test
    void byDefaultAPassingRunPrintsOnlyTheCounts() {
        Run r = verifyDefault("--rules", "rules", "features/admission.feature", "features/seed-story.feature");
        assertEquals(0, r.exit(), r.out() + r.err());
        assertEquals(java.util.List.of("", "10 scenarios (10 passed)"), r.out().lines().toList().subList(0, 2), r.out());
        assertTrue(r.out().lines().count() <= 3, "a summary, not the steps: " + r.out());
        assertFalse(r.out().contains("\u2714"), r.out());
    }

    @Test
    void byDefaultAFailingRunPrintsTheStepsOfTheFailedScenariosOnly() throws IOException {
        Path broken = rulesWithout("reclaim.drl");
        Run r = verifyDefault("--rules", broken.toString(), "features/reclaim.feature");
        assertEquals(1, r.exit(), r.out());
        assertTrue(r.out().matches("(?s).*\\nScenario: A queue below its share takes back what it lent +# features/reclaim\\.feature:\\d+\\n.*"),
                "the failed scenario's steps: " + r.out());
        assertTrue(r.out().contains("\u2718 Then"), r.out());
        assertFalse(r.out().contains("Scenario: A queue that is not reclaimable keeps what it borrowed"),
                "a passing scenario's steps are left out: " + r.out());
        assertTrue(r.out().contains("Failed scenarios:"), r.out());
    }
}

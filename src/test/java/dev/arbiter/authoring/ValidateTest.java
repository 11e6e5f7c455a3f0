package dev.arbiter.authoring;

import dev.arbiter.engine.rules.RuleInventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.cli.CliRunner;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.cycle.Shipped;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code arbiter validate}: compile errors with file and line, the rule listing, and the quadratic-growth warning. */
class ValidateTest {
    private static final Path BROKEN = Path.of("src/test/resources/authoring/broken-rules");
    private static final Path QUADRATIC = Path.of("src/test/resources/authoring/quadratic-rules");

    @TempDir
    Path dir;

    @Test
    void theShippedRulesValidateListingEveryFileAndRuleWithoutWarnings() {
        CliRunner r = CliRunner.run("validate", "--rules", "rules");
        assertEquals(0, r.exit(), r.err());
        for (Path f : Shipped.RULES.files()) assertTrue(r.out().contains(f.getFileName() + " ("), "lists " + f + ":\n" + r.out());
        for (String rule : Shipped.RULES.ruleNames()) assertTrue(r.out().contains("  " + rule + "\n"), "lists " + rule);
        assertTrue(r.out().contains("ok: " + Shipped.RULES.files().size() + " files, " + Shipped.RULES.ruleNames().size()
                + " rules, generation " + Shipped.RULES.generation()), r.out());
        assertFalse(r.out().contains("warning"), r.out());
    }

    @Test
    void everyBrokenFileIsReportedWithItsLineAndExit3() {
        CliRunner r = CliRunner.run("validate", "--rules", BROKEN.toString());
        assertEquals(3, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains("a-syntax.drl:8: "), r.err());
        assertTrue(r.err().contains("b-unknown-field.drl:7: "), r.err());
        assertTrue(r.err().contains("nosuchField"), r.err());
        assertTrue(r.err().lines().allMatch(l -> l.matches("error: .+\\.drl:\\d+: .+")), "file:line: message lines:\n" + r.err());
        assertTrue(r.out().isEmpty(), "nothing listed for broken rules: " + r.out());
    }

    @Test
    void aFolderWithoutRulesExits3() {
        CliRunner r = CliRunner.run("validate", "--rules", dir.toString());
        assertEquals(3, r.exit());
        assertTrue(r.err().contains("no .drl rule files"), r.err());
    }

    @Test
    void aRuleWhoseMatchesGrowQuadraticallyIsNamedInAWarning() {
        CliRunner r = CliRunner.run("validate", "--rules", QUADRATIC.toString());
        assertEquals(0, r.exit(), r.err());
        List<String> warnings = r.out().lines().filter(l -> l.startsWith("warning:")).toList();
        assertEquals(1, warnings.size(), r.out());
        assertTrue(warnings.get(0).contains("\"bad: a running task looks at every running task of other queues\""), warnings.get(0));
        assertTrue(warnings.get(0).contains("on 39 pods x 4 nodes") && warnings.get(0).contains("on 71 x 8"), warnings.get(0));
        assertTrue(r.out().contains(QUADRATIC.resolve("quadratic.drl") + " (3 rules)"), r.out());
        assertTrue(r.out().contains("rules/reclaim.drl (1 rule)"), "the base's files are listed where they are: " + r.out());
        assertTrue(r.out().contains("1 warning(s)"), r.out());
    }

    @Test
    void strictTurnsWarningsIntoExit1() {
        assertEquals(1, CliRunner.run("validate", "--strict", "--rules", QUADRATIC.toString()).exit());
        assertEquals(0, CliRunner.run("validate", "--strict", "--rules", "rules").exit());
    }

    @Test
    void matchGrowthMeasuresAboutFourTimesForAPairJoinAndTwiceForEqualityJoins() {
        MatchGrowth.Report report = MatchGrowth.measure(RuleBook.load(QUADRATIC));
        Map<String, MatchGrowth.Growth> byRule = new java.util.HashMap<>();
        for (MatchGrowth.Growth g : report.rules()) byRule.put(g.rule(), g);
        MatchGrowth.Growth bad = byRule.get("bad: a running task looks at every running task of other queues");
        assertEquals(4.0, bad.ratio(), 0.01, bad.toString());
        assertEquals(128, bad.small(), "8 running tasks x 8 running of the other queue, twice");
        MatchGrowth.Growth equality = byRule.get("fine: a task looks at its own job");
        assertEquals(2.0, equality.ratio(), 0.01, equality.toString());
        MatchGrowth.Growth exists = byRule.get("fine: a job with a running task elsewhere");
        assertTrue(exists.ratio() <= 2.01 && exists.large() > 0, exists.toString());
        assertEquals(List.of(bad), report.quadratic());
        assertEquals(List.of(), report.looping());
    }

    @Test
    void noShippedRuleGrowsQuadraticallyAndTheSampleClusterExercisesThem() {
        MatchGrowth.Report report = MatchGrowth.measure(Shipped.RULES);
        assertEquals(List.of(), report.quadratic());
        // The check is only as good as its sample: nearly every shipped rule must match on it (the rest handle
        // cases a healthy cluster does not have, such as unknown priority classes or closed queues).
        List<String> unmatched = report.rules().stream().filter(g -> g.large() == 0).map(MatchGrowth.Growth::rule).toList();
        assertTrue(unmatched.size() * 3 <= report.rules().size(), "rules the sample does not exercise: " + unmatched);
        assertTrue(report.rules().stream().anyMatch(g -> g.large() >= 2 * g.small() && g.small() > 0),
                "some rule matches per pod or per job, so the sample's size shows: " + report.rules());
    }

    @Test
    void aRuleThatReTriggersItselfIsNamedInsteadOfHangingValidate() throws IOException {
        Files.copy(Path.of("src/test/resources/policy-safety/loop/loop.drl"), dir.resolve("loop.drl"));
        CliRunner r = CliRunner.run("validate", "--rules", dir.toString());
        assertEquals(3, r.exit(), r.out() + r.err());
        assertTrue(r.err().contains(dir.resolve("loop.drl") + ":6: rule \"loop: a tick is always followed by another\" kept firing"),
                r.err());
    }

    @Test
    void rulesAreListedUnderTheFileThatDefinesThem() throws IOException {
        Files.writeString(dir.resolve("one.drl"), """
                package arbiter.policy;
                import dev.arbiter.facts.JobFact;
                rule "b first in one" ruleflow-group "policy" when JobFact() then end
                rule "a second in one" ruleflow-group "policy" when JobFact() then end
                """);
        Files.writeString(dir.resolve("two.drl"), """
                package arbiter.policy;
                import dev.arbiter.facts.TaskFact;
                rule "only in two" ruleflow-group "policy" when TaskFact() then end
                """);
        assertEquals(Map.of("one.drl", List.of("b first in one", "a second in one"), "two.drl", List.of("only in two")),
                RuleInventory.rulesByFile(RuleBook.load(dir)));
    }
}

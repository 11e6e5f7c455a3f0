package dev.arbiter.authoring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.cli.CliRunner;
import dev.arbiter.decision.Eviction;
import dev.arbiter.engine.rules.RuleBook;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.engine.cycle.Shipped;
import dev.arbiter.manifest.ManifestLoader;
import dev.arbiter.model.Manifests;
import dev.arbiter.sim.PodOutcome;
import dev.arbiter.sim.SimulationResult;
import dev.arbiter.sim.Simulator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The worked example of {@code docs/policy-guide.md} is real: {@code docs/examples/protect-critical-inference/rules}
 * is a pack over the shipped policy that adds one rule, and on its scenario it stops the reclaim the shipped policy makes.
 */
class PolicyGuideExampleTest {
    private static final Path EXAMPLE = Path.of("docs/examples/protect-critical-inference");
    private static final Path VARIANT = EXAMPLE.resolve("rules");
    private static final String NEW_FILE = "critical-inference.drl";
    private static final String NEW_RULE = "critical inference: a pod of priority class p0-critical is never evicted";
    private static final Manifests SCENARIO = ManifestLoader.load(List.of(EXAMPLE.resolve("scenario")));
    private static final RuleBook VARIANT_RULES = RuleBook.load(VARIANT);

    @Test
    void theVariantIsAPackOverTheShippedPolicyThatAddsOneFileWithOneRule() throws IOException {
        try (Stream<Path> variant = Files.list(VARIANT)) {
            assertEquals(List.of(NEW_FILE, RuleBook.PACK_FILE), variant.map(f -> f.getFileName().toString()).sorted().toList(),
                    "the pack holds only what differs");
        }
        List<Path> expected = new java.util.ArrayList<>(Shipped.RULES.files().stream().map(p -> p.toAbsolutePath().normalize()).toList());
        expected.add(VARIANT.resolve(NEW_FILE).toAbsolutePath().normalize());
        expected.sort(java.util.Comparator.comparing(p -> p.getFileName().toString()));
        assertEquals(expected, VARIANT_RULES.files().stream().map(p -> p.toAbsolutePath().normalize()).toList());
        List<String> added = new java.util.ArrayList<>(VARIANT_RULES.ruleNames());
        added.removeAll(Shipped.RULES.ruleNames());
        assertEquals(List.of(NEW_RULE), added);
        assertEquals(Shipped.RULES.settings(), VARIANT_RULES.settings(), "the pack changes no setting");
    }

    @Test
    void theGuideShowsTheExampleFileAsItIs() throws IOException {
        String guide = Files.readString(Path.of("docs/policy-guide.md"));
        String shown = guide.substring(guide.indexOf("```drools\n") + "```drools\n".length());
        shown = shown.substring(0, shown.indexOf("```"));
        String file = Files.readString(VARIANT.resolve(NEW_FILE));
        String code = file.substring(file.indexOf("package "));
        assertEquals(code, shown, "docs/policy-guide.md shows " + NEW_FILE + " without its comment header");
    }

    @Test
    void theShippedPolicyReclaimsCriticalInferenceForTraining() {
        SimulationResult r = Shipped.simulate(SCENARIO);
        List<Eviction> evictions = r.cycles().stream().flatMap(c -> c.evictions().stream()).toList();
        assertEquals(2, evictions.size());
        assertTrue(evictions.stream().allMatch(e -> e.pod().startsWith("inference/chat-") && e.action().equals("reclaim")));
        assertEquals("Running", outcome(r, "training/finetune-master-0").phase());
    }

    @Test
    void theVariantNeverEvictsCriticalInferenceAndTrainingWaits() {
        SimulationResult r = new Simulator(new Scheduler(VARIANT_RULES, SchedulerConfig.simulatorDefault())).run(SCENARIO, 100);
        assertTrue(r.stable());
        assertEquals(List.of(), r.cycles().stream().flatMap(c -> c.evictions().stream()).toList());
        for (int i = 0; i < 4; i++) assertEquals("Running", outcome(r, "inference/chat-" + i).phase());
        assertEquals("Pending", outcome(r, "training/finetune-master-0").phase());
        assertTrue(r.cycles().get(r.cycles().size() - 1).rulesFiredOn("Pod", "inference/chat-0").contains(NEW_RULE));
    }

    @Test
    void explainSaysWhichRuleProtectsThePodsTrainingWouldNeed() {
        SimulationResult r = new Simulator(new Scheduler(VARIANT_RULES, SchedulerConfig.simulatorDefault())).run(SCENARIO, 100);
        Explanation e = Explainer.explain(SCENARIO, r.cycles(), r.podGroups(), "training/finetune",
                SchedulerConfig.simulatorDefault().schedulerNames());
        assertEquals(4, e.holders().get(NEW_RULE), e.holders().toString());
        assertTrue(ExplanationText.render(e).contains(NEW_RULE + "   (4 pods)"), ExplanationText.render(e));
    }

    @Test
    void theGuidesDiffCommandShowsTheRemovedReclaims() {
        CliRunner r = CliRunner.run("diff", "--rules", "rules", "--candidate", VARIANT.toString(), EXAMPLE.resolve("scenario").toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("Evictions (0 added, 2 removed)"), r.out());
        assertTrue(r.out().matches("(?s).*training/finetune-master-0\\s+Running on node-\\d\\s+Pending\\n.*"), r.out());
    }

    private static PodOutcome outcome(SimulationResult r, String pod) {
        return r.pods().stream().filter(p -> p.pod().equals(pod)).findFirst().orElseThrow(() -> new AssertionError("no pod " + pod));
    }
}

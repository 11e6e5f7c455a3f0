package dev.arbiter.specs;

import dev.arbiter.live.ShadowDifferences;
import dev.arbiter.live.ShadowDifferences.Difference;
import dev.arbiter.live.ShadowPolicy;
import dev.arbiter.model.PodSpec;
import dev.arbiter.sim.SimulationResult;
import io.cucumber.java.en.Given;
import io.cucumber.java.en.Then;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * A candidate policy beside the one under test, as {@code arbiter run --shadow-rules} runs it on a live cluster: it
 * decides on every cycle's snapshot, what it decides differently is reported, and nothing it decides is acted on.
 */
public final class ShadowSteps {
    private static ScenarioWorld world() {
        return ScenarioWorld.current();
    }

    @Given("the shadow policy pack {string}")
    public void shadowPack(String folder) {
        world().useShadow(folder);
    }

    @Given("a shadow policy whose rule {string} fails on every cycle")
    public void failingShadow(String rule) {
        world().useFailingShadow(rule);
    }

    @Then("the shadow policy would have bound {int} pod(s) of {string} that the active policy left pending")
    public void shadowWouldBind(int count, String workload) {
        Set<String> pods = differingPods(workload, d -> d.active().equals("pending") && !d.shadow().equals("pending"));
        if (pods.size() != count) {
            fail("the shadow policy should have bound " + count + " pods of \"" + workload + "\" that the active policy"
                    + " left pending, not " + pods.size() + " " + pods);
        }
    }

    @Then("the shadow policy would have left {int} pod(s) of {string} pending that the active policy bound")
    public void shadowWouldLeavePending(int count, String workload) {
        Set<String> pods = differingPods(workload, d -> !d.active().equals("pending") && d.shadow().equals("pending"));
        if (pods.size() != count) {
            fail("the shadow policy should have left " + count + " pods of \"" + workload + "\" pending that the active"
                    + " policy bound, not " + pods.size() + " " + pods);
        }
    }

    @Then("the shadow policy's differences name the rule {string}")
    public void differencesNameTheRule(String rule) {
        for (ShadowPolicy.Evaluation e : evaluations()) {
            for (Difference d : e.differences().differences()) {
                if (rule.equals(d.activeRule()) || rule.equals(d.shadowRule())) return;
            }
        }
        fail("no difference names the rule \"" + rule + "\"");
    }

    @Then("the shadow policy would give queue {string} a deserved share of {int} GPU(s)")
    public void shadowShare(String queue, int gpus) {
        Pattern amount = Pattern.compile("[{ ]" + Pattern.quote(world().gpu()) + ": " + gpus + "[,}]");
        for (ShadowPolicy.Evaluation e : evaluations()) {
            for (Difference d : e.differences().differences()) {
                if (d.kind() == ShadowDifferences.Kind.SHARE && d.subject().equals(queue) && amount.matcher(d.shadow()).find()) return;
            }
        }
        fail("no cycle's shadow policy gives queue \"" + queue + "\" a deserved share of " + gpus + " GPUs other than the"
                + " active policy's");
    }

    @Then("every cycle of the shadow policy failed naming the rule {string}")
    public void everyCycleFailed(String rule) {
        List<ShadowPolicy.Evaluation> all = evaluations();
        for (ShadowPolicy.Evaluation e : all) {
            if (!e.result().equals("failed") || e.error() == null || !e.error().contains("rule \"" + rule + "\"")) {
                fail("every cycle of the shadow policy should have failed naming the rule \"" + rule + "\"; cycle "
                        + e.cycle() + ": " + e.result() + (e.error() == null ? "" : ", " + e.error()));
            }
        }
    }

    @Then("the active policy's outcome is the same as without a shadow policy")
    public void sameAsWithoutShadow() {
        SimulationResult with = world().outcome().result(), without = world().withoutShadow();
        if (without == null) fail("the scenario has no shadow policy", "");
        if (!with.pods().equals(without.pods()) || !with.podGroups().equals(without.podGroups())
                || !with.queues().equals(without.queues()) || with.cycles().size() != without.cycles().size()) {
            fail("the policy decided otherwise beside its shadow:\nwith: " + with.pods() + "\nwithout: " + without.pods());
        }
        for (int i = 0; i < with.cycles().size(); i++) {
            if (!with.cycles().get(i).bindings().equals(without.cycles().get(i).bindings())
                    || !with.cycles().get(i).evictions().equals(without.cycles().get(i).evictions())) {
                fail("cycle " + with.cycles().get(i).cycle() + " decided otherwise beside its shadow");
            }
        }
    }

    private static List<ShadowPolicy.Evaluation> evaluations() {
        List<ShadowPolicy.Evaluation> all = world().shadowEvaluations();
        if (all.isEmpty()) fail("the shadow policy evaluated no cycle (say \"Given the shadow policy pack ...\")");
        return all;
    }

    /** The pods of {@code workload} with a binding difference that {@code which} accepts, in any cycle. */
    private static Set<String> differingPods(String workload, java.util.function.Predicate<Difference> which) {
        Set<String> pods = new TreeSet<>();
        for (PodSpec p : world().outcome().workload(workload).pods()) pods.add(p.key());
        Set<String> found = new TreeSet<>();
        for (ShadowPolicy.Evaluation e : evaluations()) {
            for (Difference d : e.differences().differences()) {
                if (d.kind() == ShadowDifferences.Kind.BINDING && pods.contains(d.subject()) && which.test(d)) found.add(d.subject());
            }
        }
        return found;
    }

    private static void fail(String expectation) {
        throw new AssertionError(expectation);
    }

    private static void fail(String expectation, String actually) {
        throw new AssertionError(expectation + (actually.isEmpty() ? "" : "\n" + actually));
    }
}

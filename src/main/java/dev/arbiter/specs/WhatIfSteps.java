package dev.arbiter.specs;

import dev.arbiter.decision.Binding;
import dev.arbiter.decision.CycleResult;
import dev.arbiter.engine.cycle.Scheduler;
import dev.arbiter.engine.cycle.SchedulerConfig;
import dev.arbiter.model.PodGroupSpec;
import dev.arbiter.model.PodSpec;
import dev.arbiter.sim.Simulator;
import dev.arbiter.whatif.Answer;
import dev.arbiter.whatif.WhatIf;
import dev.arbiter.whatif.WhatIfState;
import dev.arbiter.whatif.WhatIfText;
import io.cucumber.java.en.Then;
import io.cucumber.java.en.When;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code arbiter whatif} in the specs: ask, once the story has settled, what would start a pending workload, and
 * check what the answer proposes. "Each change ... starts it" re-runs the whole story with each change made at the
 * moment asked about and checks the workload then starts.
 */
public final class WhatIfSteps {
    private static final ThreadLocal<Asked> LAST = new ThreadLocal<>();

    private record Asked(String name, WhatIfState.At at, Answer answer) {}

    @When("I ask what would start {string}")
    public void ask(String name) {
        ScenarioWorld world = ScenarioWorld.current();
        Outcome o = world.outcome();
        Outcome.Found w = o.workload(name);
        String job = w.podGroups().get(0);
        Simulator sim = new Simulator(new Scheduler(world.rulesUsed(), SchedulerConfig.simulatorDefault()));
        WhatIfState.At at = WhatIfState.whereStillPending(sim, o.manifests(), world.optionsUsed(), job);
        Answer a = at.answer() != null ? at.answer() : WhatIf.ask(new WhatIf.Question(at.state(), at.cycle(), at.job(),
                world.rulesUsed(), SchedulerConfig.simulatorDefault(), world.optionsUsed().cycleSeconds()));
        LAST.set(new Asked(name, at, a));
    }

    private static Asked asked() {
        Asked a = LAST.get();
        if (a == null) throw new AssertionError("ask what would start a workload first (\"When I ask what would start ...\")");
        return a;
    }

    private static AssertionError fail(String what, Answer a) {
        return new AssertionError(what + "\n" + WhatIfText.render(a, -1, null));
    }

    @Then("the cheapest change that would start it is {string}")
    public void cheapest(String words) {
        Answer a = asked().answer();
        if (a.remedies().isEmpty() || !a.remedies().get(0).change().words().contains(words)) {
            throw fail("the cheapest change should read \"" + words + "\"", a);
        }
    }

    @Then("a change that would start it is {string}")
    public void oneChangeIs(String words) {
        Answer a = asked().answer();
        if (a.remedies().stream().noneMatch(r -> r.change().words().contains(words))) {
            throw fail("a change should read \"" + words + "\"", a);
        }
    }

    @Then("no change that would start it is {string}")
    public void noChangeIs(String words) {
        Answer a = asked().answer();
        if (a.remedies().stream().anyMatch(r -> r.change().words().contains(words))) {
            throw fail("no change should read \"" + words + "\"", a);
        }
    }

    @Then("the change {string} is said to remove {string}")
    public void blocks(String words, String blocks) {
        Answer a = asked().answer();
        if (a.remedies().stream().noneMatch(r -> r.change().words().contains(words) && r.blocks().contains(blocks))) {
            throw fail("the change \"" + words + "\" should name \"" + blocks + "\" as what blocks the job today", a);
        }
    }

    @Then("no change within reach would start it")
    public void noneInReach() {
        Answer a = asked().answer();
        if (a.verdict() != Answer.Verdict.NONE_IN_REACH) throw fail("no change should be within reach", a);
    }

    @Then("each change, made at that moment, starts it")
    public void eachStartsIt() {
        Asked asked = asked();
        Answer a = asked.answer();
        if (a.remedies().isEmpty()) throw fail("whatif should have proposed a change", a);
        ScenarioWorld world = ScenarioWorld.current();
        Outcome o = world.outcome();
        String job = asked.at().job();
        Set<String> pods = new HashSet<>();
        for (PodSpec p : o.manifests().pods()) if (p.jobId().equals(job)) pods.add(p.key());
        int minMember = o.manifests().podGroups().stream().filter(g -> g.key().equals(job))
                .mapToInt(PodGroupSpec::minMember).findFirst().orElse(1);
        for (Answer.Remedy r : a.remedies()) {
            Simulator sim = new Simulator(new Scheduler(r.change().apply(world.rulesUsed()), SchedulerConfig.simulatorDefault()));
            List<CycleResult> cycles = sim.runWith(o.manifests(), world.optionsUsed(),
                    new Simulator.Intervention(asked.at().cycle(), r.change()::apply)).cycles();
            int bound = 0;
            for (CycleResult c : cycles) {
                if (c.cycle() > asked.at().cycle() + 2) break;
                for (Binding b : c.bindings()) if (pods.contains(b.pod())) bound++;
            }
            if (bound < minMember) throw fail("\"" + r.change().words() + "\" should start \"" + asked.name() + "\"", a);
        }
    }
}

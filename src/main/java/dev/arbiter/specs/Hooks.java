package dev.arbiter.specs;

import dev.arbiter.sim.TableReport;
import io.cucumber.java.After;
import io.cucumber.java.Before;
import io.cucumber.java.Scenario;
import io.cucumber.java.Status;

/**
 * A fresh world per scenario. Afterwards: a scenario that checked no outcome fails, because it could never have
 * failed; a failed scenario gets the simulation's cycle-by-cycle report attached, so the report shows what happened.
 */
public final class Hooks {
    @Before
    public void begin() {
        ScenarioWorld.begin();
    }

    @After
    public void end(Scenario scenario) {
        try {
            ScenarioWorld world = ScenarioWorld.current();
            if (scenario.isFailed() && world.lastSimulated() != null) {
                scenario.log("What the scheduler did:\n" + TableReport.write(world.lastSimulated().result()));
            }
            if (scenario.getStatus() == Status.PASSED && !world.checked()) {
                throw new AssertionError("this scenario has no Then step, so it checks nothing and cannot fail");
            }
        } finally {
            ScenarioWorld.end();
        }
    }
}

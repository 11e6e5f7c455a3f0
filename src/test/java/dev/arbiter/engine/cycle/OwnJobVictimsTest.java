package dev.arbiter.engine.cycle;

import dev.arbiter.engine.rules.RuleBook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.arbiter.decision.CycleResult;
import dev.arbiter.scenario.ClusterBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A preemptor never evicts its own job's running members ({@code VictimSelector.Terms#own}), also under a policy that
 * lets preemption take work of any priority: shipped rules only grant lower priorities, where a job's own members
 * (of its own priority) never qualify anyway.
 */
class OwnJobVictimsTest {
    @TempDir
    Path pack;

    @Test
    void aJobThatMayPreemptAnyPriorityStillSparesItsOwnRunningMembers() throws Exception {
        Files.writeString(pack.resolve("pack.yaml"), "name: any-priority\nextends: shipped\n");
        Files.writeString(pack.resolve("preempt.drl"), """
                package arbiter.policy;

                import dev.arbiter.facts.PreemptGrant;
                import dev.arbiter.facts.QueueFact;

                rule "preempt: a pending job may evict tasks of any other job in its own queue"
                ruleflow-group "policy"
                when
                    $q : QueueFact( open == true )
                then
                    insertLogical( new PreemptGrant( $q.getName(), false, drools.getRule().getName() ) );
                end
                """);
        RuleBook rules = RuleBook.load(pack);
        // Same queue, same priority: "other" runs on node-2; "mine" runs one member on node-1 and waits for its second.
        // By the victim order (newest first), mine's own running member would come before other's.
        ClusterBuilder c = ClusterBuilder.cluster().nodes(2, "nvidia.com/gpu", 8).priorityClass("normal", 100)
                .job("ns/other").priorityClass("normal").minMember(1).pods(1, "nvidia.com/gpu", 8)
                .running("node-2").startedAt(0).end()
                .job("ns/mine").priorityClass("normal").minMember(2).pods(2, "nvidia.com/gpu", 8)
                .running("node-1").startedAt(0).end();
        CycleResult r = new Scheduler(rules, SchedulerConfig.simulatorDefault()).schedule(c.snapshot(10_000), 1);
        assertEquals(1, r.evictions().size(), r.evictions().toString());
        assertTrue(r.evictions().get(0).pod().equals("ns/other-0"), r.evictions().toString());
    }
}

package dev.arbiter.engine.cycle;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.arbiter.manifest.ManifestLoader;
import dev.arbiter.sim.PodOutcome;
import dev.arbiter.sim.SimulationResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Gangs of the upstream Workload API ({@code scheduling.k8s.io/v1beta1} PodGroups) under the shipped policy, with the
 * cases of kube-scheduler v1.37.2's own tests translated: {@code gangscheduling_test.go}'s
 * {@code TestGangSchedulingFlow} (PreEnqueue and Permit of one pod group, CPG=false) and {@code TestPlacementFeasible}
 * (isCPG=false), {@code Test_isSchedulableAfterPodGroupUpdated} ("minCount decreased matches target pod"), and
 * {@code default_preemption_test.go}'s "Workload Aware" cases and {@code podgrouppreemption_test.go}'s "Pod group with
 * disruption mode group not reprieved" (disruptionMode all). A pod that kube-scheduler's plugin lets through, binds
 * here; one it holds at PreEnqueue or Permit, stays pending; its Unschedulable is a gang that does not start.
 */
class WorkloadApiGangTest {
    /** Nodes of one 8-GPU slot each; every pod asks for a whole node. */
    private static String nodes(int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 1; i <= n; i++) {
            b.append("apiVersion: v1\nkind: Node\nmetadata: {name: node-").append(i).append("}\n")
                    .append("status: {allocatable: {cpu: \"8\", nvidia.com/gpu: \"8\"}}\n---\n");
        }
        return b.toString();
    }

    private static String group(String name, String policy, String extra) {
        return "apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: " + name + "}\n"
                + "spec: {schedulingPolicy: " + policy + extra + "}\n---\n";
    }

    private static String gang(String name, int minCount) {
        return group(name, "{gang: {minCount: " + minCount + "}}", "");
    }

    /** A pod of {@code group} (null: none), bound to {@code node} when not null, at {@code priority}. */
    private static String pod(String name, String group, String node, int priority) {
        return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + "}\nspec:\n  schedulerName: volcano\n"
                + "  priority: " + priority + "\n"
                + (node == null ? "" : "  nodeName: " + node + "\n")
                + (group == null ? "" : "  schedulingGroup: {podGroupName: " + group + "}\n")
                + "  containers: [{name: c, resources: {limits: {nvidia.com/gpu: \"8\"}}}]\n"
                + (node == null ? "" : "status: {phase: Running}\n") + "---\n";
    }

    private static String pods(String prefix, String group, int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 1; i <= n; i++) b.append(pod(prefix + i, group, null, 0));
        return b.toString();
    }

    private static SimulationResult run(String yaml) {
        return Shipped.simulate(ManifestLoader.parse(yaml, "test.yaml"));
    }

    private static Set<String> running(SimulationResult r) {
        Set<String> out = new TreeSet<>();
        for (PodOutcome p : r.pods()) if (p.phase().equals("Running")) out.add(p.pod().replace("default/", ""));
        return out;
    }

    private static Set<String> evicted(SimulationResult r) {
        Set<String> out = new TreeSet<>();
        r.cycles().forEach(c -> out.addAll(Shipped.evicted(c)));
        List<String> names = new ArrayList<>();
        out.forEach(p -> names.add(p.replace("default/", "")));
        return new TreeSet<>(names);
    }

    // ---- TestGangSchedulingFlow (CPG=false) ----

    @Test
    void nonGangPodSucceedsImmediately() {
        assertEquals(Set.of("p1"), running(run(nodes(1) + pod("p1", null, null, 0))));
    }

    @Test
    void basicPolicyPodSucceedsImmediately() {
        assertEquals(Set.of("p1"), running(run(nodes(1) + group("pg", "{basic: {}}", "") + pod("p1", "pg", null, 0))));
    }

    @Test
    void gangPodWaitsWhileItsPodGroupIsNotYetCreated() {
        assertEquals(Set.of(), running(run(nodes(2) + pods("p", "pg", 2))));
    }

    @Test
    void gangPodWaitsWhileQuorumIsNotMet() {
        // minCount 3, two pods exist: room for both, neither binds
        assertEquals(Set.of(), running(run(nodes(3) + gang("pg", 3) + pods("p", "pg", 2))));
    }

    @Test
    void gangPodsWaitAtPermitWhileOnlySomeFit() {
        // both pods exist (PreEnqueue passes), one node: the first would wait at Permit, and nothing binds
        SimulationResult r = run(nodes(1) + gang("pg", 2) + pods("p", "pg", 2));
        assertEquals(Set.of(), running(r));
        assertEquals("Pending", Shipped.group(r.podGroups(), "default/pg").phase());
    }

    @Test
    void theFinalGangPodAllowsAllWaitingPods() {
        SimulationResult r = run(nodes(2) + gang("pg", 2) + pods("p", "pg", 2));
        assertEquals(Set.of("p1", "p2"), running(r));
        assertEquals(2, Shipped.bound(r.cycles().get(0)).size(), "both bind in one cycle");
    }

    // ---- TestPlacementFeasible (isCPG=false) ----

    @Test
    void moreThanMinCountPodsAllSucceed() {
        assertEquals(Set.of("p1", "p2", "p3"), running(run(nodes(3) + gang("pg", 2) + pods("p", "pg", 3))));
    }

    @Test
    void moreThanMinCountPodsOneFailsTheGangStartsWithMinCount() {
        assertEquals(2, running(run(nodes(2) + gang("pg", 2) + pods("p", "pg", 3))).size());
    }

    @Test
    void moreThanMinCountPodsMinCountNotSatisfiable() {
        assertEquals(Set.of(), running(run(nodes(1) + gang("pg", 2) + pods("p", "pg", 3))));
    }

    @Test
    void minCountAlreadyMetByScheduledPods() {
        SimulationResult r = run(nodes(2) + gang("pg", 2) + pod("s1", "pg", "node-1", 0) + pod("s2", "pg", "node-2", 0)
                + pod("p1", "pg", null, 0));
        assertEquals(Set.of("s1", "s2"), running(r));
        assertEquals("Running", Shipped.group(r.podGroups(), "default/pg").phase());
    }

    @Test
    void oneScheduledTwoUnscheduledSucceedMinCountThreeMet() {
        assertEquals(Set.of("p1", "p2", "s1"),
                running(run(nodes(3) + gang("pg", 3) + pod("s1", "pg", "node-1", 0) + pods("p", "pg", 2))));
    }

    @Test
    void oneScheduledMinCountFourNotEnoughRemaining() {
        assertEquals(Set.of("s1"),
                running(run(nodes(4) + gang("pg", 4) + pod("s1", "pg", "node-1", 0) + pods("p", "pg", 2))));
    }

    // ---- Test_isSchedulableAfterPodGroupUpdated: "minCount decreased matches target pod" ----

    @Test
    void aGangStartsOnceItsMinCountIsLowered() {
        // read afresh each cycle: the same pods under minCount 3 wait, under minCount 2 start
        assertEquals(Set.of(), running(run(nodes(2) + gang("pg", 3) + pods("p", "pg", 2))));
        assertEquals(Set.of("p1", "p2"), running(run(nodes(2) + gang("pg", 2) + pods("p", "pg", 2))));
    }

    // ---- preemption: default_preemption_test.go "Workload Aware", podgrouppreemption_test.go ----

    private static String lowGroup(String mode) {
        return group("pg1", "{gang: {minCount: 1}}", ", priority: 100" + (mode == null ? "" : ", disruptionMode: {" + mode + ": {}}"));
    }

    @Test
    void atomicPreemptionOfAPodGroup() {
        // "Workload Aware: Atomic preemption of PodGroup" and "Pod group with disruption mode group not reprieved":
        // one victim frees the room, but disruptionMode all takes the whole group
        SimulationResult r = run(nodes(2) + lowGroup("all") + pod("g1-1", "pg1", "node-1", 100)
                + pod("g1-2", "pg1", "node-2", 100) + pod("p", null, null, 1000));
        assertEquals(Set.of("g1-1", "g1-2"), evicted(r));
        assertEquals(Set.of("p"), running(r));
    }

    @Test
    void disruptionModeSingleTakesOneMember() {
        SimulationResult r = run(nodes(2) + lowGroup("single") + pod("g1-1", "pg1", "node-1", 100)
                + pod("g1-2", "pg1", "node-2", 100) + pod("p", null, null, 1000));
        assertEquals(1, evicted(r).size());
        assertEquals(2, running(r).size());
    }

    @Test
    void preferASinglePodOverAPodGroup() {
        // "Workload Aware: prefer single pod over podGroup for preemption candidate": fewest victims
        SimulationResult r = run(nodes(3) + lowGroup("all") + pod("p1", null, "node-1", 100)
                + pod("g1-1", "pg1", "node-2", 100) + pod("g1-2", "pg1", "node-3", 100) + pod("p", null, null, 1000));
        assertEquals(Set.of("p1"), evicted(r));
    }

    @Test
    void preemptALowerPriorityPodGroupInsteadOfAHigherPrioritySinglePod() {
        SimulationResult r = run(nodes(2) + lowGroup("all") + pod("p1", null, "node-1", 1000)
                + pod("g1-1", "pg1", "node-2", 100) + pod("p", null, null, 10000));
        assertEquals(Set.of("g1-1"), evicted(r));
    }

    @Test
    void preemptALowerPrioritySinglePodInsteadOfAHigherPriorityPodGroup() {
        SimulationResult r = run(nodes(2) + group("pg1", "{gang: {minCount: 1}}", ", priority: 1000, disruptionMode: {all: {}}")
                + pod("p1", null, "node-1", 100) + pod("g1-1", "pg1", "node-2", 1000) + pod("p", null, null, 10000));
        assertEquals(Set.of("p1"), evicted(r));
    }

    @Test
    void theVictimsPodGroupPriorityOverridesItsPods() {
        // "Preemptor with SchedulingGroup, victim priority overridden by PodGroup in victim namespace": the victim's pod
        // says 10000, its PodGroup 100; a 1000 preemptor may take it
        SimulationResult r = run(nodes(1) + group("pg1", "{gang: {minCount: 1}}", ", priority: 100")
                + pod("v1", "pg1", "node-1", 10000) + pod("p", null, null, 1000));
        assertEquals(Set.of("v1"), evicted(r));
        assertEquals(Set.of("p"), running(r));
    }
}
